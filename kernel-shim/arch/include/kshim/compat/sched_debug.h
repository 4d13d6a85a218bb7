/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CONFIG_SCHED_DEBUG was removed and its code made unconditional (6.15,
 * "sched/debug: Remove CONFIG_SCHED_DEBUG"): what it guarded, the glue
 * asks through KSHIM_SCHED_DEBUG. sysctl_sched_features lost its
 * const_debug then.
 *
 * The boot parameter that makes the scheduler tell what it builds (its
 * domains, why EAS is off) is sched_verbose from 5.13 (commit
 * 9406415f46f6, "sched/debug: Rename the sched_debug parameter to
 * sched_verbose"), sched_debug before: KSHIM_SCHED_VERBOSE_PARAM.
 */
#ifndef _KSHIM_COMPAT_SCHED_DEBUG_H
#define _KSHIM_COMPAT_SCHED_DEBUG_H

#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_GE(5, 13, 0)
#define KSHIM_SCHED_VERBOSE_PARAM		"sched_verbose"
#else
#define KSHIM_SCHED_VERBOSE_PARAM		"sched_debug"
#endif

#if KSHIM_KERNEL_GE(6, 15, 0)
#define KSHIM_SCHED_DEBUG			1
#define kshim_sched_features_storage		__read_mostly
#else
#ifdef CONFIG_SCHED_DEBUG
#define KSHIM_SCHED_DEBUG			1
#else
#define KSHIM_SCHED_DEBUG			0
#endif
#define kshim_sched_features_storage		const_debug
#endif

#endif
