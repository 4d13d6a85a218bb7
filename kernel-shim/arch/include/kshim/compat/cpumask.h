/* SPDX-License-Identifier: GPL-2.0 */
/*
 * __num_possible_cpus: num_possible_cpus() reads a count that
 * set_cpu_possible() keeps, not the mask's weight — in 7.2.13, not in
 * 6.12.118; bracketed.
 */
#ifndef _KSHIM_COMPAT_CPUMASK_H
#define _KSHIM_COMPAT_CPUMASK_H

#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_GE(6, 13, 0)
#define KSHIM_HAS_NUM_POSSIBLE_CPUS	1
#else
#define KSHIM_HAS_NUM_POSSIBLE_CPUS	0
#endif

#endif
