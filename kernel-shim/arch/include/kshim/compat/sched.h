/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler's exported entry points the glue calls:
 * set_cpus_allowed_force() is do_set_cpus_allowed() renamed (in 7.2.13,
 * not in 6.12.118; bracketed).
 */
#ifndef _KSHIM_COMPAT_SCHED_H
#define _KSHIM_COMPAT_SCHED_H

#include <kshim/kernel-version.h>
#include <linux/sched.h>

#if KSHIM_KERNEL_LT(6, 13, 0)
#define set_cpus_allowed_force(p, new_mask)	do_set_cpus_allowed(p, new_mask)
#endif

#endif
