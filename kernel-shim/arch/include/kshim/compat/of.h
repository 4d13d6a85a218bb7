/* SPDX-License-Identifier: GPL-2.0 */
/* of_get_cpu_state_node()'s CPU node became const (in 7.2.13, not in 6.12.118; bracketed). */
#ifndef _KSHIM_COMPAT_OF_H
#define _KSHIM_COMPAT_OF_H

#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_GE(6, 13, 0)
#define kshim_of_cpu_state_node_t	const struct device_node
#else
#define kshim_of_cpu_state_node_t	struct device_node
#endif

/* of_property_read_bool() went out of line (in 7.2.13, not in 6.12.118; bracketed) */
#if KSHIM_KERNEL_GE(6, 13, 0)
#define KSHIM_OF_PROPERTY_READ_BOOL_OUT_OF_LINE	1
#else
#define KSHIM_OF_PROPERTY_READ_BOOL_OUT_OF_LINE	0
#endif

#endif
