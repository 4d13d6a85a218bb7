/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bitmap_from_arr64() and bitmap_to_arr64(), the kshim_cpuset's 64-bit
 * words to and from a cpumask: lib/bitmap.c's from 5.19 (commit
 * 0a97953fd221, "lib: add bitmap_{from,to}_arr64"). Before it, with the
 * 64-bit longs both flavours are compiled with (the host's), a copy that
 * clears the bits past nbits, as 5.19's bitmap.h defines them for
 * BITS_PER_LONG == 64.
 */
#ifndef _KSHIM_COMPAT_BITMAP_H
#define _KSHIM_COMPAT_BITMAP_H

#include <linux/bitmap.h>
#include <linux/build_bug.h>
#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_LT(5, 19, 0)
static_assert(BITS_PER_LONG == 64, "the kshim_cpuset's words are longs");
#define bitmap_from_arr64(bitmap, buf, nbits) \
	bitmap_copy_clear_tail((bitmap), (const unsigned long *)(buf), (nbits))
#define bitmap_to_arr64(buf, bitmap, nbits) \
	bitmap_copy_clear_tail((unsigned long *)(buf), (bitmap), (nbits))
#endif

#endif
