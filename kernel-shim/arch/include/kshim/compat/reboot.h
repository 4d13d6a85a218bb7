/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The emergency power-off a thermal zone's critical trip asks for, which
 * the glue ends the run at; its entry point, newest first:
 * __hw_protection_trigger() with an action (in 7.2.13, not in 6.12.118;
 * bracketed), __hw_protection_shutdown() with a bool (6.12.118, not 6.1;
 * bracketed at 6.12), hw_protection_shutdown().
 */
#ifndef _KSHIM_COMPAT_REBOOT_H
#define _KSHIM_COMPAT_REBOOT_H

#include <kshim/kernel-version.h>
#include <linux/reboot.h>

#if KSHIM_KERNEL_GE(6, 13, 0)
#define KSHIM_HW_PROTECTION_ENTRY(reason, ms_until_forced) \
	void __hw_protection_trigger(const char *reason, int ms_until_forced, \
				     enum hw_protection_action action)
#elif KSHIM_KERNEL_GE(6, 12, 0)
#define KSHIM_HW_PROTECTION_ENTRY(reason, ms_until_forced) \
	void __hw_protection_shutdown(const char *reason, int ms_until_forced, bool shutdown)
#else
#define KSHIM_HW_PROTECTION_ENTRY(reason, ms_until_forced) \
	void hw_protection_shutdown(const char *reason, int ms_until_forced)
#endif

#endif
