/* SPDX-License-Identifier: GPL-2.0 */
/* arm's asm/cpu.h declares the per-CPU cpuinfo; the topology code that
 * includes it uses none of it. */
#ifndef __ASM_SHIM_ARM_CPU_H
#define __ASM_SHIM_ARM_CPU_H
#endif
