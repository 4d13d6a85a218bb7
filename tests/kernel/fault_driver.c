// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel code that faults on purpose, compiled with the kernel's flags and
 * headers like the upstream files, so the tests see WARN/BUG/deadlocks go
 * through the same macros and glue as an upstream fault would.
 */
#include <linux/bug.h>
#include <linux/spinlock.h>
#include <linux/cpumask.h>
#include <linux/printk.h>

#include "fault_driver.h"

void fault_driver_printk(void)
{
	struct cpumask mask;

	cpumask_clear(&mask);
	cpumask_set_cpu(0, &mask);
	cpumask_set_cpu(1, &mask);
	cpumask_set_cpu(2, &mask);
	cpumask_set_cpu(3, &mask);
	cpumask_set_cpu(6, &mask);
	pr_info("fault_driver: %.*s cpus %*pbl, %lu%c %d%%\n", 3, "abcdef",
		cpumask_pr_args(&mask), 42UL, 'x', 7);
}

void fault_driver_printk_cont(void)
{
	pr_info("fault_driver: groups:");
	pr_cont(" 0:{ span=%d }", 0);
	pr_cont(",");
	pr_cont(" 4:{ span=%d }\n", 4);
	pr_cont(" alone\n");
	pr_info("fault_driver: next\n");
}

int fault_driver_warn(int value)
{
	int line = __LINE__ + 1;
	WARN(1, "fault_driver: value %d\n", value);
	return line;
}

void fault_driver_bug(void)
{
	BUG();
}

static DEFINE_RAW_SPINLOCK(the_lock);

void fault_driver_deadlock(void)
{
	raw_spin_lock(&the_lock);
	raw_spin_lock(&the_lock);
}
