// SPDX-License-Identifier: GPL-2.0
/*
 * What the scheduler's system calls (sched_setattr(), sched_getattr(),
 * sched_rr_get_interval(), ...) and signal delivery need from elsewhere.
 * The harness changes tasks through the kernel functions those system
 * calls end in (set_user_nice(), set_cpus_allowed_ptr(),
 * sched_setattr_nocheck()), never through user memory; reaching user
 * memory is a bug in the harness.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/thread_info.h>
#include <linux/time64.h>
#include <linux/uaccess.h>

#include "shim.h"

int check_zeroed_user(const void __user *from, size_t size)
{
	shim_fatal("check_zeroed_user(): the harness makes no system calls");
}

void __copy_overflow(int size, unsigned long count)
{
	shim_fatal("__copy_overflow(): the harness makes no system calls");
}

int put_timespec64(const struct timespec64 *ts, struct __kernel_timespec __user *uts)
{
	shim_fatal("put_timespec64(): the harness makes no system calls");
}

/* security/commoncap.c: the harness acts with every capability. */
int cap_task_setscheduler(struct task_struct *p)
{
	return 0;
}

/* kernel/signal.c, from schedule_tail(): no task here has signals. */
void calculate_sigpending(void)
{
}

/* fs/: the file operations of /dev/cpu_dma_latency (kernel/power/qos.c),
 * a device file nothing opens here. */
loff_t noop_llseek(struct file *file, loff_t offset, int whence)
{
	shim_fatal("noop_llseek(): the harness opens no files");
}

ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos, const void *from,
				size_t available)
{
	shim_fatal("simple_read_from_buffer(): the harness makes no system calls");
}
