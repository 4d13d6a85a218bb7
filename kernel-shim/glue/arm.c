// SPDX-License-Identifier: GPL-2.0
/*
 * What the arm flavour's arch code reads of the hardware: the executing
 * CPU's MPIDR (read_cpuid_mpidr(), kernel-shim/arch/arm/include/asm/
 * cputype.h). arm's cpu_logical_map() is the DT's reg of each logical CPU
 * (arm_dt_init_cpu_maps(), boot CPU first, which is the first CPU node
 * here); the register adds the multiprocessor-format bit.
 */
#include <linux/of.h>
#include <linux/smp.h>

#include "shim.h"

unsigned int kshim_read_cpuid_mpidr(void)
{
	struct device_node *cn = of_get_cpu_node(raw_smp_processor_id(), NULL);
	u32 hwid;

	if (!cn || of_property_read_u32(cn, "reg", &hwid))
		shim_fatal("read_cpuid_mpidr(): the executing CPU's node has no reg");
	return (1U << 31) | (hwid & 0xFFFFFF);
}
