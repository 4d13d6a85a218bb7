// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt context, softirqs (kernel/softirq.c) and irq_work
 * (kernel/irq_work.c). An interrupt here is a call: kshim_irq_enter() and
 * kshim_irq_exit() bracket it with the HARDIRQ count in preempt_count, as
 * irq_enter()/irq_exit() do, and irq_exit() runs the softirqs raised in it
 * with the SOFTIRQ count held, as __do_softirq() does. irq_work queued in
 * any context runs at the next interrupt exit of its CPU.
 */
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <asm/irq_regs.h>

#include <linux/version.h>

#include "shim.h"

DEFINE_PER_CPU(struct pt_regs *, __irq_regs);

static struct softirq_action softirq_vec[NR_SOFTIRQS];
static DEFINE_PER_CPU(unsigned long, softirq_pending);
static DEFINE_PER_CPU(struct llist_head, raised_irq_work);

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
	__this_cpu_or(softirq_pending, 1UL << nr);
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
	return per_cpu(softirq_pending, cpu) != 0;
}

static void do_softirq_pending(void)
{
	unsigned long pending;

	__preempt_count_add(SOFTIRQ_OFFSET);
	while ((pending = __this_cpu_read(softirq_pending))) {
		unsigned int nr = __ffs(pending);

		__this_cpu_and(softirq_pending, ~(1UL << nr));
		if (WARN_ONCE(!softirq_vec[nr].action, "softirq %u raised, none registered\n", nr))
			continue;
		local_irq_enable();
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
		softirq_vec[nr].action();
#else
		softirq_vec[nr].action(&softirq_vec[nr]);
#endif
		local_irq_disable();
	}
	__preempt_count_sub(SOFTIRQ_OFFSET);
}

bool irq_work_queue(struct irq_work *work)
{
	if (atomic_fetch_or(IRQ_WORK_CLAIMED | CSD_TYPE_IRQ_WORK, &work->node.a_flags) &
	    IRQ_WORK_PENDING)
		return false;
	llist_add(&work->node.llist, this_cpu_ptr(&raised_irq_work));
	kshim_settle_mark(smp_processor_id());
	return true;
}

/* Raised irq_work is an interrupt the CPU takes as soon as it can (the
 * harness delivers it when the CPUs settle). */
bool kshim_irq_work_pending(int cpu)
{
	return !llist_empty(per_cpu_ptr(&raised_irq_work, cpu));
}

/* Everything queued runs at the next interrupt exit: nothing is in flight
 * once the caller could wait for it. */
void irq_work_sync(struct irq_work *work)
{
	WARN_ON_ONCE(irq_work_is_busy(work));
}

static void run_irq_work(void)
{
	struct llist_node *list = llist_del_all(this_cpu_ptr(&raised_irq_work));
	struct irq_work *work, *tmp;

	list = llist_reverse_order(list);
	llist_for_each_entry_safe(work, tmp, list, node.llist) {
		atomic_andnot(IRQ_WORK_PENDING, &work->node.a_flags);
		work->func(work);
		atomic_andnot(IRQ_WORK_BUSY, &work->node.a_flags);
	}
}

void kshim_irq_enter(void)
{
	local_irq_disable();
	__preempt_count_add(HARDIRQ_OFFSET);
}

void kshim_irq_exit(void)
{
	run_irq_work();
	__preempt_count_sub(HARDIRQ_OFFSET);
	if (!in_interrupt() && __this_cpu_read(softirq_pending))
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
