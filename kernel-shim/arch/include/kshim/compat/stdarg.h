/* SPDX-License-Identifier: GPL-2.0 */
/*
 * va_list and its macros: the tree's linux/stdarg.h from 5.15, the compiler's
 * <stdarg.h> before it (the tree's Makefile adds the compiler's include
 * directory after -nostdinc: cmake/series/5.10.cmake).
 */
#ifndef _KSHIM_COMPAT_STDARG_H
#define _KSHIM_COMPAT_STDARG_H

#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_GE(5, 15, 0)
#include <linux/stdarg.h>
#else
#include <stdarg.h>
#endif

#endif
