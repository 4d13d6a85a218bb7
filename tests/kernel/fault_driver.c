// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel code that faults on purpose, compiled with the kernel's flags and
 * headers like the upstream files, so the tests see WARN/BUG/deadlocks go
 * through the same macros and glue as an upstream fault would.
 */
#include <linux/bug.h>
#include <linux/spinlock.h>

#include "fault_driver.h"

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
