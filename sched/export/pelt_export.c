// SPDX-License-Identifier: GPL-2.0
/*
 * Export unit for kernel/sched/pelt.c: the headers kernel/sched/build_policy.c
 * includes before it, the upstream file itself, then non-static wrappers
 * for what the harness and its tests call.
 */
#include <linux/sched/clock.h>
#include <linux/sched/cputime.h>
#include <linux/sched/hotplug.h>
#include <linux/sched/rt.h>
#include <linux/cpuidle.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <uapi/linux/sched/types.h>

#include "sched.h"
#include "smp.h"
#include "autogroup.h"
#include "stats.h"
#include "pelt.h"

#include "pelt.c"
