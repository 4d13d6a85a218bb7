// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt context, softirqs (kernel/softirq.c) and the architecture's
 * irq_work interrupt (kernel/irq_work.c is compiled). An interrupt here is
 * a call: kshim_irq_enter() and kshim_irq_exit() bracket it with the
 * HARDIRQ count in preempt_count, as irq_enter()/irq_exit() do, and
 * irq_exit() runs the softirqs raised in it with the SOFTIRQ count held,
 * as __do_softirq() does. irq_work raised in any context is a self-IPI the
 * CPU takes once its current interrupt has returned.
 */
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <asm/irq_regs.h>

#include <linux/version.h>

#include <kshim/cost.h>
#include <kshim/compat/preempt.h>
#include "shim.h"

DEFINE_PER_CPU(struct pt_regs *, __irq_regs);

static struct softirq_action softirq_vec[NR_SOFTIRQS];
/* kernel/softirq.c: the pending word local_softirq_pending() reads */
DEFINE_PER_CPU_ALIGNED(irq_cpustat_t, irq_stat);

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
void open_softirq(int nr, void (*action)(void))	/* no argument since 6.9 */
#else
void open_softirq(int nr, void (*action)(struct softirq_action *))
#endif
{
	softirq_vec[nr].action = action;
}

void __raise_softirq_irqoff(unsigned int nr)
{
	or_softirq_pending(1UL << nr);
	kshim_settle_mark(smp_processor_id());
}

/* No ksoftirqd: every softirq runs at the interrupt exit. */
void raise_softirq_irqoff(unsigned int nr)
{
	__raise_softirq_irqoff(nr);
}

void raise_softirq(unsigned int nr)
{
	unsigned long flags;

	local_irq_save(flags);
	raise_softirq_irqoff(nr);
	local_irq_restore(flags);
}

bool kshim_softirq_pending(int cpu)
{
	return per_cpu(local_softirq_pending_ref, cpu) != 0;
}

static void do_softirq_pending(void)
{
	unsigned long pending;
	int cost;

	__preempt_count_add(SOFTIRQ_OFFSET);
	while ((pending = local_softirq_pending())) {
		unsigned int nr = __ffs(pending);

		set_softirq_pending(pending & ~(1UL << nr));
		if (WARN_ONCE(!softirq_vec[nr].action, "softirq %u raised, none registered\n", nr))
			continue;
		local_irq_enable();
		cost = kshim_cost_enter(nr == SCHED_SOFTIRQ ? KSHIM_COST_BALANCE : KSHIM_COST_SOFTIRQ);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
		softirq_vec[nr].action();
#else
		softirq_vec[nr].action(&softirq_vec[nr]);
#endif
		kshim_cost_leave(cost);
		local_irq_disable();
	}
	__preempt_count_sub(SOFTIRQ_OFFSET);
}

/*
 * arm64's arch_irq_work_raise(): a self-IPI (IPI_IRQ_WORK), taken once the
 * CPU's current interrupt returns, whose handler is kernel/irq_work.c's
 * irq_work_run() (kshim_deliver_irq_work()).
 */
static DEFINE_PER_CPU(bool, irq_work_raised);

void arch_irq_work_raise(void)
{
	__this_cpu_write(irq_work_raised, true);
	kshim_settle_mark(smp_processor_id());
}

bool kshim_irq_work_pending(int cpu)
{
	return per_cpu(irq_work_raised, cpu);
}

bool kshim_deliver_irq_work(void)
{
	int cost;

	if (!__this_cpu_read(irq_work_raised))
		return false;
	__this_cpu_write(irq_work_raised, false);
	cost = kshim_cost_enter(KSHIM_COST_IPI);
	irq_work_run();
	kshim_cost_leave(cost);
	return true;
}

/* kernel/softirq.c: process context running what is pending (after the
 * idle task flushed its call-single queue) */
asmlinkage __visible void do_softirq(void)
{
	unsigned long flags;

	if (in_interrupt())
		return;
	local_irq_save(flags);
	if (local_softirq_pending())
		do_softirq_pending();
	local_irq_restore(flags);
}

/* The hardware's entry into an interrupt, before its handler: the
 * exception entry and the interrupt controller's acknowledge, whose code
 * the glue stands in for, take the board's figure on the CPU's clock. */
unsigned long long kshim_irq_entry_ns;

void kshim_irq_enter(void)
{
	int cpu = smp_processor_id();

	if (kshim_irq_entry_ns && !in_hardirq())
		kshim_cpu_clock_raise(cpu, kshim_cpu_clock(cpu) + kshim_irq_entry_ns);
	local_irq_disable();
	__preempt_count_add(HARDIRQ_OFFSET);
}

void kshim_irq_exit(void)
{
	__preempt_count_sub(HARDIRQ_OFFSET);
	if (!in_interrupt() && local_softirq_pending())
		do_softirq_pending();
	local_irq_enable();
}

/*
 * kernel/softirq.c: the end of a bottom-half-disabled section (xarray's
 * xa_lock_bh()). Pending softirqs run when the CPUs settle
 * (kshim_settle()), not here.
 */
void __local_bh_enable_ip(unsigned long ip, unsigned int cnt)
{
	__preempt_count_sub(cnt);
}
