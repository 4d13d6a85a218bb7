/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An mm_struct's trailing CPU bitmap became a flexible array sized for
 * the bitmap and the mm_cid data, with its own initialiser (in 7.2.13,
 * not in 6.12.118): the initialiser of a static mm's array, either way.
 */
#ifndef _KSHIM_COMPAT_MM_TYPES_H
#define _KSHIM_COMPAT_MM_TYPES_H

#include <linux/mm_types.h>

#ifdef MM_STRUCT_FLEXIBLE_ARRAY_INIT
#define KSHIM_MM_CPU_BITMAP_INIT	.flexible_array = MM_STRUCT_FLEXIBLE_ARRAY_INIT
#else
#define KSHIM_MM_CPU_BITMAP_INIT	.cpu_bitmap = CPU_BITS_NONE
#endif

#endif
