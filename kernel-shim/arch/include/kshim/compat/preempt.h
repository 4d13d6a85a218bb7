/* SPDX-License-Identifier: GPL-2.0 */
/*
 * in_hardirq(): in_irq() renamed (in 6.1, not in 5.10.262; bracketed),
 * which later trees dropped.
 */
#ifndef _KSHIM_COMPAT_PREEMPT_H
#define _KSHIM_COMPAT_PREEMPT_H

#include <kshim/kernel-version.h>
#include <linux/preempt.h>

#if KSHIM_KERNEL_LT(6, 1, 0)
#define in_hardirq()	in_irq()
#endif

#endif
