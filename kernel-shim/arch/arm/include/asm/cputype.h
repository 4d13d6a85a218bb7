/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What arch/arm/kernel/topology.c reads of arm's asm/cputype.h: the
 * executing CPU's MPIDR and its fields, as the ARMv7 architecture defines
 * them (bit 31: multiprocessor format, bit 30: uniprocessor, bit 24: MT,
 * affinity levels 0-2 in bits 0-23).
 *
 * The harness's MPIDR of a CPU is its DT reg (arm's cpu_logical_map())
 * with the multiprocessor-format bit set and MT clear: the DT does not say
 * whether the cores report MT, and the ARMv7 cores of the arm boards
 * (Cortex-A7/A15/...) do not.
 */
#ifndef __ASM_SHIM_ARM_CPUTYPE_H
#define __ASM_SHIM_ARM_CPUTYPE_H

#include <linux/types.h>

#define MPIDR_SMP_BITMASK	(0x3 << 30)
#define MPIDR_SMP_VALUE		(0x2 << 30)
#define MPIDR_MT_BITMASK	(0x1 << 24)
#define MPIDR_HWID_BITMASK	0xFFFFFF
#define MPIDR_LEVEL_BITS	8
#define MPIDR_LEVEL_MASK	((1 << MPIDR_LEVEL_BITS) - 1)
#define MPIDR_AFFINITY_LEVEL(mpidr, level) \
	(((mpidr) >> (MPIDR_LEVEL_BITS * (level))) & MPIDR_LEVEL_MASK)

/* kernel-shim/glue/arm.c */
unsigned int kshim_read_cpuid_mpidr(void);

static inline unsigned int read_cpuid_mpidr(void)
{
	return kshim_read_cpuid_mpidr();
}

#endif
