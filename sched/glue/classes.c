// SPDX-License-Identifier: GPL-2.0
/*
 * For the PELT-only build (trees whose core.c is not compiled yet).
 *
 * Since 6.11, pelt.c's update_other_load_avgs() tells the RT and deadline
 * classes apart by comparing rq->curr->sched_class with &rt_sched_class and
 * &dl_sched_class. Until rt.c and deadline.c are compiled in (the fair.c
 * issue), these objects give those comparisons their identity; they have
 * no methods, and no task can belong to them yet.
 */
#include <linux/version.h>

#include "../export/build_policy_headers.h"
#if KSHIM_KERNEL_LT(5, 18, 0)
#include "sched.h"	/* once: no include guard before 5.18 (build_policy_headers.h) */
#endif
#include <kshim/compat/sched_debug.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
const struct sched_class rt_sched_class;
const struct sched_class dl_sched_class;
#endif

#if KSHIM_SCHED_DEBUG
/*
 * With SCHED_DEBUG (always, from 6.15), sched_feat() in pelt.c reads this variable, which
 * core.c defines on a real kernel: every feature of the tree's features.h
 * at its default.
 */
#define SCHED_FEAT(name, enabled)	\
	(1UL << __SCHED_FEAT_##name) * enabled |
kshim_sched_features_storage unsigned int sysctl_sched_features =
#include "features.h"
	0;
#undef SCHED_FEAT
#endif
