// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/char/random.c's get_random_bytes(), deterministic: the bytes come
 * from a SplitMix64 stream started from the harness's seed, so the same
 * seed gives the same prandom states (lib/random32.c) and the same run.
 */
#include <linux/random.h>
#include <linux/string.h>

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
