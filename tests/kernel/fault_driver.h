/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel-side code that WARNs or BUGs on request, with plain-C entry points. */
#ifndef FAULT_DRIVER_H
#define FAULT_DRIVER_H

#ifdef __cplusplus
extern "C" {
#endif

/* printk()s a line using the kernel's format extensions (%*pbl) and
 * libc's (%.*s, %lu, %c). */
void fault_driver_printk(void);
/* printk()s a line in pr_cont() fragments, then a fragment after the line
 * ended, then another line. */
void fault_driver_printk_cont(void);

/* WARN(1, ...) and returns the line of the WARN. */
int fault_driver_warn(int value);
/* BUG(): does not return. */
void fault_driver_bug(void);
/* Takes the same spinlock twice: a deadlock on a real kernel. */
void fault_driver_deadlock(void);

#ifdef __cplusplus
}
#endif

#endif
