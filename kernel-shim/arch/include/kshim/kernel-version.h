/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one vocabulary of version tests in the glue and the fake arch, as
 * LTTng-modules' LTTNG_KERNEL_RANGE: sublevels compared in full (Debian's
 * stable trees reach 5.10.262, past LINUX_VERSION_CODE's clamp at 255), a
 * range's lower bound inclusive and its upper bound exclusive.
 *
 *	#if KSHIM_KERNEL_GE(6, 9, 0)		6.9 and later
 *	#if KSHIM_KERNEL_RANGE(5, 10, 0, 6, 1, 0)	5.10 up to, not including, 6.1
 *
 * A difference between trees lives in the compat header of its kernel API
 * (kernel-shim/arch/include/kshim/compat/), newest branch first, each
 * boundary at the upstream version that moved it, naming the commit.
 * The span the harness supports is stated once, in
 * cmake/KernelSeries.cmake.
 */
#ifndef _KSHIM_KERNEL_VERSION_H
#define _KSHIM_KERNEL_VERSION_H

#include <generated/uapi/linux/version.h>

#define KSHIM_VERSION(a, b, c)	(((a) << 24) + ((b) << 16) + (c))
#define KSHIM_KERNEL_CODE \
	KSHIM_VERSION(LINUX_VERSION_MAJOR, LINUX_VERSION_PATCHLEVEL, LINUX_VERSION_SUBLEVEL)
#define KSHIM_KERNEL_GE(a, b, c)	(KSHIM_KERNEL_CODE >= KSHIM_VERSION(a, b, c))
#define KSHIM_KERNEL_LT(a, b, c)	(KSHIM_KERNEL_CODE < KSHIM_VERSION(a, b, c))
#define KSHIM_KERNEL_RANGE(a1, b1, c1, a2, b2, c2) \
	(KSHIM_KERNEL_GE(a1, b1, c1) && KSHIM_KERNEL_LT(a2, b2, c2))

#endif
