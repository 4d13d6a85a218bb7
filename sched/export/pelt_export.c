// SPDX-License-Identifier: GPL-2.0
/*
 * Export unit for kernel/sched/pelt.c: the headers kernel/sched/build_policy.c
 * includes before it, then the upstream file itself. Its functions are not
 * static, so no wrapper is needed yet.
 */
#include "build_policy_headers.h"

#include "pelt.c"
