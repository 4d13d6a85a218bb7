// SPDX-License-Identifier: GPL-2.0
/*
 * Export unit for kernel/sched/fair.c, compiled unchanged, with non-static
 * entry points to the functions tests call directly (KUnit style).
 */
#include "fair.c"

#include <kshim/sched.h>
