// SPDX-License-Identifier: GPL-2.0
/*
 * Since 6.11, pelt.c's update_other_load_avgs() tells the RT and deadline
 * classes apart by comparing rq->curr->sched_class with &rt_sched_class and
 * &dl_sched_class. Until rt.c and deadline.c are compiled in (the fair.c
 * issue), these objects give those comparisons their identity; they have
 * no methods, and no task can belong to them yet.
 */
#include <linux/version.h>

#include "../export/build_policy_headers.h"

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
const struct sched_class rt_sched_class;
const struct sched_class dl_sched_class;
#endif
