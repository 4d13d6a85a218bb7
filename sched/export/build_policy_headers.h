/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kernel/sched/build_policy.c includes before the scheduler's own
 * files: every unit that includes kernel/sched/sched.h starts here.
 *
 * Before 5.18 (when kernel/sched/build_policy.c and build_utility.c
 * came, and sched.h got its include guard) each file
 * of kernel/sched is a unit of its own that includes sched.h itself, and
 * sched.h and the headers it includes (stats.h, autogroup.h,
 * linux/sched/deadline.h...) have no include guard: a unit takes them once,
 * through the tree's file (a unit with no file of the tree includes
 * sched.h itself).
 */
#ifndef SH_BUILD_POLICY_HEADERS_H
#define SH_BUILD_POLICY_HEADERS_H

#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_GE(5, 18, 0)

#include <linux/sched/clock.h>
#include <linux/sched/cputime.h>
#include <linux/sched/hotplug.h>
#include <linux/sched/rt.h>
#include <linux/cpuidle.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
/* sched.h of 6.12 uses task_cpu_possible(); arm64's headers bring it in. */
#include <linux/mmu_context.h>
#include <uapi/linux/sched/types.h>

#include "sched.h"
#include "smp.h"
#include "autogroup.h"
#include "stats.h"
#include "pelt.h"
#endif

#endif
