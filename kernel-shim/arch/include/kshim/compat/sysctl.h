/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sysctl tables, as the glue's stand-in for kernel/sysctl.c's registry
 * sees them, newest first:
 * - registered const (in 7.2.13, not in 6.12.118; bracketed);
 * - proc handlers take a const table, and a table carries its size
 *   instead of an empty last entry (6.12.118, not 6.1; bracketed at 6.12);
 * - before: a mutable table ending in an empty entry.
 */
#ifndef _KSHIM_COMPAT_SYSCTL_H
#define _KSHIM_COMPAT_SYSCTL_H

#include <kshim/kernel-version.h>
#include <linux/sysctl.h>

#if KSHIM_KERNEL_GE(6, 12, 0)
typedef const struct ctl_table kshim_ctl_table;
#define KSHIM_SYSCTL_TABLE_SIZED		1
#else
typedef struct ctl_table kshim_ctl_table;
#define KSHIM_SYSCTL_TABLE_SIZED		0
#endif

#if KSHIM_KERNEL_GE(6, 13, 0)
typedef const struct ctl_table kshim_registered_ctl_table;
#else
typedef struct ctl_table kshim_registered_ctl_table;
#endif

#endif
