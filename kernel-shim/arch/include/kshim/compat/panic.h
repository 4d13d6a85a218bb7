/* SPDX-License-Identifier: GPL-2.0 */
/*
 * panic(), oops and taint: include/linux/panic.h from 5.14 (split out of
 * kernel.h), linux/kernel.h before it.
 */
#ifndef _KSHIM_COMPAT_PANIC_H
#define _KSHIM_COMPAT_PANIC_H

#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_GE(5, 14, 0)
#include <linux/panic.h>
#else
#include <linux/kernel.h>
#endif

#endif
