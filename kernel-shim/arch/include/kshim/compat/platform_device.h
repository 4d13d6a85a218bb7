/* SPDX-License-Identifier: GPL-2.0 */
/*
 * __platform_driver_register() gained the module's name (in 7.2.13, not in
 * 6.12.118; bracketed): the glue's definition takes the newest arguments.
 */
#ifndef _KSHIM_COMPAT_PLATFORM_DEVICE_H
#define _KSHIM_COMPAT_PLATFORM_DEVICE_H

#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_GE(6, 13, 0)
#define KSHIM_PLATFORM_DRIVER_MOD_NAME(name)	, const char *name
#else
#define KSHIM_PLATFORM_DRIVER_MOD_NAME(name)
#endif

#endif
