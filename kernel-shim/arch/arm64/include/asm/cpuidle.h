/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What arm64's asm/cpuidle.h gives a kernel without CONFIG_ARM64_PSEUDO_NMI
 * (the defconfig has it, but no board here uses GIC priority masking), and
 * the declaration of cpu_do_idle() it takes from asm/proc-fns.h: the WFI
 * that linux/cpuidle.h's CPU_PM_CPU_IDLE_ENTER() runs for state 0.
 * cpu_do_idle() is glue/cpuidle.c's wait.
 */
#ifndef __ASM_SHIM_ARM64_CPUIDLE_H
#define __ASM_SHIM_ARM64_CPUIDLE_H

void cpu_do_idle(void);

struct arm_cpuidle_irq_context { };

#define arm_cpuidle_save_irq_context(c)		(void)c
#define arm_cpuidle_restore_irq_context(c)	(void)c

#endif
