// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks, as init/init_task.c, kernel/fork.c and kernel/exit.c make them,
 * reduced to what the scheduler reads. A task here is a struct task_struct
 * and nothing else: there is no stack to switch to and no user memory.
 *
 * The tasks the harness creates share one user address space (kshim_user_mm)
 * so that core.c's context_switch() sees user tasks (->mm set) as it would;
 * kernel threads (idle, stoppers) have ->mm NULL and borrow ->active_mm.
 */
#include <linux/init_task.h>
#include <linux/mm_types.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/plist.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kshim/compat/mm_types.h>
#include <kshim/compat/sched.h>

#include "shim.h"

struct mm_struct init_mm = {
	.mm_users	= ATOMIC_INIT(2),
	.mm_count	= ATOMIC_INIT(1),
	KSHIM_MM_CPU_BITMAP_INIT,
};

/* Never freed: its count starts far from zero (see __mmdrop()). */
static struct mm_struct kshim_user_mm = {
	.mm_users	= ATOMIC_INIT(1),
	.mm_count	= ATOMIC_INIT(1 << 30),
	KSHIM_MM_CPU_BITMAP_INIT,
};

struct task_struct init_task __aligned(L1_CACHE_BYTES) = {
	.thread_info	= INIT_THREAD_INFO(init_task),
	.stack_refcount	= REFCOUNT_INIT(1),
	.usage		= REFCOUNT_INIT(2),
	.flags		= PF_KTHREAD,
	.prio		= MAX_PRIO - 20,
	.static_prio	= MAX_PRIO - 20,
	.normal_prio	= MAX_PRIO - 20,
	.policy		= SCHED_NORMAL,
	.cpus_ptr	= &init_task.cpus_mask,
	.cpus_mask	= CPU_MASK_ALL,
	.nr_cpus_allowed = NR_CPUS,
	.mm		= NULL,
	.active_mm	= &init_mm,
	.se		= {
		.group_node	= LIST_HEAD_INIT(init_task.se.group_node),
	},
	.rt		= {
		.run_list	= LIST_HEAD_INIT(init_task.rt.run_list),
		.time_slice	= RR_TIMESLICE,
	},
	.tasks		= LIST_HEAD_INIT(init_task.tasks),
	.pushable_tasks	= PLIST_NODE_INIT(init_task.pushable_tasks, MAX_PRIO),
	.real_parent	= &init_task,
	.parent		= &init_task,
	.group_leader	= &init_task,
	.comm		= INIT_TASK_COMM,
	.pi_lock	= __RAW_SPIN_LOCK_UNLOCKED(init_task.pi_lock),
	.timer_slack_ns	= 50000, /* 50 usec default slack */
};

/* pid -> task, for the harness's handles. pid 0 is the idle tasks. */
#define KSHIM_MAX_TASKS	4096
static struct task_struct *tasks_by_pid[KSHIM_MAX_TASKS];
static int last_pid;

struct task_struct *kshim_find_task(int pid)
{
	if (pid <= 0 || pid > last_pid)
		return NULL;
	return tasks_by_pid[pid];
}

/*
 * dup_task_struct() + the parts of copy_process() the scheduler reads: a
 * copy of the boot task with its own identity, lists and masks. `kthread`
 * keeps PF_KTHREAD and no mm; otherwise the task is a user task.
 */
struct task_struct *kshim_copy_task(const char *comm, bool kthread)
{
	struct task_struct *p;

	if (last_pid + 1 >= KSHIM_MAX_TASKS)
		return NULL;
	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return NULL;
	*p = init_task;
	p->thread_info.flags = 0;
	p->thread_info.preempt_count = 0;
	refcount_set(&p->usage, 1);
	refcount_set(&p->stack_refcount, 1);
	refcount_set(&p->rcu_users, 2);
	p->flags &= ~(PF_SUPERPRIV | PF_WQ_WORKER | PF_IDLE | PF_NO_SETAFFINITY);
	if (kthread) {
		p->flags |= PF_KTHREAD;
		p->mm = NULL;
		p->active_mm = NULL;
	} else {
		p->flags &= ~PF_KTHREAD;
		p->mm = &kshim_user_mm;
		p->active_mm = &kshim_user_mm;
	}
	p->cpus_ptr = &p->cpus_mask;
	cpumask_copy(&p->cpus_mask, cpu_possible_mask);
	p->nr_cpus_allowed = cpumask_weight(cpu_possible_mask);
	kshim_task_clear_user_cpus(p);
	INIT_LIST_HEAD(&p->tasks);
	INIT_LIST_HEAD(&p->se.group_node);
	INIT_LIST_HEAD(&p->rt.run_list);
	raw_spin_lock_init(&p->pi_lock);
	p->real_parent = p->parent = &init_task;
	p->group_leader = p;
	/* copy_process(): the parent is init_task's copy (its slack) */
	p->default_timer_slack_ns = p->timer_slack_ns;
	strscpy(p->comm, comm, sizeof(p->comm));

	p->pid = p->tgid = ++last_pid;
	tasks_by_pid[p->pid] = p;
	return p;
}

/* kernel/fork.c: the last reference went; nothing refers to it any more. */
void __put_task_struct(struct task_struct *tsk)
{
	WARN_ON(refcount_read(&tsk->usage));
	if (tsk->pid > 0 && tsk->pid <= last_pid && tasks_by_pid[tsk->pid] == tsk)
		tasks_by_pid[tsk->pid] = NULL;
	kfree(tsk);
}

/* kernel/fork.c: put_task_struct()'s deferred put (7.x always defers) */
void __put_task_struct_rcu_cb(struct rcu_head *rhp)
{
	__put_task_struct(container_of(rhp, struct task_struct, rcu));
}

void put_task_stack(struct task_struct *tsk)
{
}

/* kernel/exit.c: the RCU-deferred put of a dead task. */
void put_task_struct_rcu_user(struct task_struct *task)
{
	if (refcount_dec_and_test(&task->rcu_users))
		put_task_struct(task);
}

/* kernel/fork.c: no address space is ever freed (see kshim_user_mm). */
void __mmdrop(struct mm_struct *mm)
{
	BUG();
}

/* kernel/pid.c: pids are the harness's handles, in the initial namespace. */
pid_t __task_pid_nr_ns(struct task_struct *task, enum pid_type type,
		       struct pid_namespace *ns)
{
	return task->pid;
}

struct task_struct *find_task_by_vpid(pid_t vnr)
{
	return kshim_find_task(vnr);
}

/* kernel/fork.c: set_kthread_struct() attaches struct kthread; the
 * harness's kernel threads need none. */
bool set_kthread_struct(struct task_struct *p)
{
	return true;
}
