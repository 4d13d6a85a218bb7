/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interrupt state of the CPU the harness is currently running kernel code
 * on, as a plain variable: there are no real interrupts, but kernel code
 * asserts on it (lockdep_assert_irqs_disabled(), irqs_disabled()).
 */
#ifndef __ASM_SHIM_IRQFLAGS_H
#define __ASM_SHIM_IRQFLAGS_H

#define ARCH_IRQ_ENABLED	0UL
#define ARCH_IRQ_DISABLED	1UL

extern unsigned long shim_irq_flags;

static inline unsigned long arch_local_save_flags(void)
{
	return shim_irq_flags;
}

static inline void arch_local_irq_restore(unsigned long flags)
{
	shim_irq_flags = flags;
}

static inline void arch_local_irq_enable(void)
{
	shim_irq_flags = ARCH_IRQ_ENABLED;
}

static inline void arch_local_irq_disable(void)
{
	shim_irq_flags = ARCH_IRQ_DISABLED;
}

static inline unsigned long arch_local_irq_save(void)
{
	unsigned long flags = shim_irq_flags;

	shim_irq_flags = ARCH_IRQ_DISABLED;
	return flags;
}

static inline int arch_irqs_disabled_flags(unsigned long flags)
{
	return flags == ARCH_IRQ_DISABLED;
}

static inline int arch_irqs_disabled(void)
{
	return arch_irqs_disabled_flags(shim_irq_flags);
}

#endif
