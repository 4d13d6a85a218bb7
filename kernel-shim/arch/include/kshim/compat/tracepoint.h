/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracepoint_srcu: the tracepoints' readers enter an SRCU-fast read side
 * (__DO_TRACE's guard(srcu_fast_notrace)), on the srcu_struct
 * kernel/tracepoint.c defines — in 7.2.13, not in 6.12.118; bracketed.
 */
#ifndef _KSHIM_COMPAT_TRACEPOINT_H
#define _KSHIM_COMPAT_TRACEPOINT_H

#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_GE(6, 13, 0)
#define KSHIM_HAS_TRACEPOINT_SRCU	1
#else
#define KSHIM_HAS_TRACEPOINT_SRCU	0
#endif

#endif
