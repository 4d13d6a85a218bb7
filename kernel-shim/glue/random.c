// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/char/random.c's get_random_bytes(), deterministic: the bytes come
 * from a SplitMix64 stream started from the harness's seed, so the same
 * seed gives the same prandom states (lib/random32.c) and the same run.
 */
#include <linux/notifier.h>
#include <linux/random.h>
#include <linux/string.h>
#include <kshim/kernel-version.h>

#include "shim.h"

static u64 stream = 0x5eed;

void kshim_set_seed(unsigned long long seed)
{
	stream = seed;
}

static u64 splitmix64(void)
{
	u64 z = (stream += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void get_random_bytes(void *buf, size_t len)
{
	u8 *out = buf;

	while (len) {
		u64 word = splitmix64();
		size_t n = min(len, sizeof(word));

		memcpy(out, &word, n);
		out += n;
		len -= n;
	}
}

/*
 * drivers/char/random.c's __get_random_u32_below(): a uniform value below
 * ceil from the same seeded stream (lib/find_bit.c's find_random_bit()
 * calls it from 7.x on). The values differ from the kernel's, whose source
 * is its entropy pool: draws rejected below 2^32 mod ceil, so that each
 * residue is equally likely; ceil 0 gives the whole range, as the kernel's.
 */
u32 __get_random_u32_below(u32 ceil)
{
	const u32 reject_below = ceil ? -ceil % ceil : 0;
	u32 draw;

	do
		draw = (u32)splitmix64();
	while (draw < reject_below);
	return ceil ? draw % ceil : draw;
}

#if KSHIM_KERNEL_LT(6, 1, 0)
/*
 * What 5.10.262's lib/random32.c asks of drivers/char/random.c (in 6.1,
 * prandom lives on get_random_bytes() alone; bracketed):
 *  - get_random_u64(), from the same seeded stream;
 *  - the entropy it mixes in (add_device_randomness()) changes nothing:
 *    the stream depends on the seed alone;
 *  - random_get_entropy() without a cycle counter: the stream's next word;
 *  - the pool never announces itself ready (register_random_ready_notifier()
 *    keeps no notifier), so prandom's reseed timer never starts and its
 *    states stay those prandom_init_early() derived from the stream.
 */
u64 get_random_u64(void)
{
	return splitmix64();
}

void add_device_randomness(const void *buf, size_t len)
{
}

unsigned long random_get_entropy_fallback(void)
{
	return splitmix64();
}

int register_random_ready_notifier(struct notifier_block *nb)
{
	return 0;
}
#endif
