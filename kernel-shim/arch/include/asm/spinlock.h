/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Single-threaded locks: every simulated CPU runs on the same host thread,
 * and each CPU's kernel entry runs to its end before another's, so a lock
 * is never found held by another CPU. Taking a lock that is already held
 * would spin forever on real hardware; here it is reported as a kernel bug
 * with the lock's address (shim_lock_bug() does not return). In simulated
 * time a lock is held from its taking to its release on the holder's
 * clock: a CPU that takes it earlier on its own clock spins until then
 * (kshim_lock_wait()).
 */
#ifndef __ASM_SHIM_SPINLOCK_H
#define __ASM_SHIM_SPINLOCK_H

#include <asm/spinlock_types.h>

void __noreturn shim_lock_bug(const char *what, const void *lock);
/* kshim/cost.h: a taker whose clock is behind the release waits for it */
void kshim_lock_wait(const unsigned long long *free_at);
void kshim_lock_release(unsigned long long *free_at);

static inline int arch_spin_is_locked(arch_spinlock_t *lock)
{
	return lock->locked != 0;
}

static inline int arch_spin_is_contended(arch_spinlock_t *lock)
{
	return 0;
}
#define arch_spin_is_contended	arch_spin_is_contended

static inline int arch_spin_value_unlocked(arch_spinlock_t lock)
{
	return lock.locked == 0;
}

static inline void arch_spin_lock(arch_spinlock_t *lock)
{
	if (lock->locked)
		shim_lock_bug("spinlock taken twice (deadlock)", lock);
	kshim_lock_wait(&lock->free_at);
	lock->locked = 1;
}

static inline int arch_spin_trylock(arch_spinlock_t *lock)
{
	if (lock->locked)
		return 0;
	/* held in simulated time, it would fail; waiting keeps code that
	 * retries in a loop from spinning without time passing */
	kshim_lock_wait(&lock->free_at);
	lock->locked = 1;
	return 1;
}

static inline void arch_spin_unlock(arch_spinlock_t *lock)
{
	if (!lock->locked)
		shim_lock_bug("unlocking a spinlock that is not held", lock);
	kshim_lock_release(&lock->free_at);
	lock->locked = 0;
}

static inline void arch_read_lock(arch_rwlock_t *rw)
{
	if (rw->count < 0)
		shim_lock_bug("read_lock on a write-locked rwlock (deadlock)", rw);
	rw->count++;
}

static inline int arch_read_trylock(arch_rwlock_t *rw)
{
	if (rw->count < 0)
		return 0;
	rw->count++;
	return 1;
}

static inline void arch_read_unlock(arch_rwlock_t *rw)
{
	rw->count--;
}

static inline void arch_write_lock(arch_rwlock_t *rw)
{
	if (rw->count != 0)
		shim_lock_bug("write_lock on a held rwlock (deadlock)", rw);
	rw->count = -1;
}

static inline int arch_write_trylock(arch_rwlock_t *rw)
{
	if (rw->count != 0)
		return 0;
	rw->count = -1;
	return 1;
}

static inline void arch_write_unlock(arch_rwlock_t *rw)
{
	rw->count = 0;
}

#endif
