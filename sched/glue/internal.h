/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler's own headers for a glue unit of the whole scheduler, which
 * includes no file of kernel/sched: what build_policy.c includes
 * (build_policy_headers.h), and before 5.18, when that is nothing,
 * sched.h and pelt.h as each file of kernel/sched includes them (once:
 * they have no include guard).
 */
#ifndef SH_SCHED_GLUE_INTERNAL_H
#define SH_SCHED_GLUE_INTERNAL_H

#include "../export/build_policy_headers.h"

#if !KSHIM_KERNEL_GE(5, 18, 0)
#include "sched.h"
#include "pelt.h"
#endif

#endif
