/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock words of the fake architecture. The harness runs every simulated
 * CPU on one host thread, so a lock records that it is held (taking a held
 * lock is a deadlock in the kernel code under test) and when it was let
 * go, so that a CPU whose clock is behind that waits for it.
 */
#ifndef __ASM_SHIM_SPINLOCK_TYPES_H
#define __ASM_SHIM_SPINLOCK_TYPES_H

typedef struct {
	volatile unsigned int locked;
	/* when its last holder let it go, on the holder's clock
	 * (kshim/cost.h: spinlocks in simulated time) */
	unsigned long long free_at;
} arch_spinlock_t;

#define __ARCH_SPIN_LOCK_UNLOCKED	{ 0, 0 }

typedef struct {
	volatile int count;	/* > 0 readers, -1 writer */
} arch_rwlock_t;

#define __ARCH_RW_LOCK_UNLOCKED		{ 0 }

#endif
