/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kernel/sched/build_policy.c includes before the scheduler's own
 * files: every unit that includes kernel/sched/sched.h starts here.
 */
#ifndef SH_BUILD_POLICY_HEADERS_H
#define SH_BUILD_POLICY_HEADERS_H

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
