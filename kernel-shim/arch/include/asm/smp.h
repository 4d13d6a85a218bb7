/* SPDX-License-Identifier: GPL-2.0 */
/* The simulated CPU the harness is executing kernel code on. */
#ifndef __ASM_SHIM_SMP_H
#define __ASM_SHIM_SMP_H

extern int shim_cpu;

#define raw_smp_processor_id()	(shim_cpu)

struct cpumask;
void arch_send_call_function_ipi_mask(const struct cpumask *mask);
void arch_send_call_function_single_ipi(int cpu);

#endif
