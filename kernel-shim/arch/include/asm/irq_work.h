/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __ASM_SHIM_IRQ_WORK_H
#define __ASM_SHIM_IRQ_WORK_H

/* arm64 and arm raise irq_work with a self-IPI (glue/softirq.c's
 * arch_irq_work_raise()), as their asm/irq_work.h say for an SMP system. */
static inline bool arch_irq_work_has_interrupt(void)
{
	return true;
}

#endif
