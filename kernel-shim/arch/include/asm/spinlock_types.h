/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock words of the fake architecture. The harness runs every simulated
 * CPU on one host thread, so a lock only records that it is held: taking
 * a held lock is a deadlock in the kernel code under test.
 */
#ifndef __ASM_SHIM_SPINLOCK_TYPES_H
#define __ASM_SHIM_SPINLOCK_TYPES_H

typedef struct {
	volatile unsigned int locked;
} arch_spinlock_t;

#define __ARCH_SPIN_LOCK_UNLOCKED	{ 0 }

typedef struct {
	volatile int count;	/* > 0 readers, -1 writer */
} arch_rwlock_t;

#define __ARCH_RW_LOCK_UNLOCKED		{ 0 }

#endif
