/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __ASM_SHIM_CACHE_H
#define __ASM_SHIM_CACHE_H

#define L1_CACHE_SHIFT		6
#define L1_CACHE_BYTES		(1 << L1_CACHE_SHIFT)
#define ARCH_DMA_MINALIGN	L1_CACHE_BYTES

#endif
