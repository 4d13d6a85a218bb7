/* SPDX-License-Identifier: GPL-2.0 */
/* Mutex and SRCU initialisation, kvfree_call_rcu(): the glue's entry points. */
#ifndef _KSHIM_COMPAT_LOCKING_H
#define _KSHIM_COMPAT_LOCKING_H

#include <kshim/kernel-version.h>
#include <linux/mutex.h>
#include <linux/srcu.h>
#include <linux/rcupdate.h>

/*
 * __mutex_init() became an inline over mutex_init_generic() (without
 * lockdep) or mutex_init_lockdep(): in 7.2.13, not in 6.12.118; bracketed.
 */
#if KSHIM_KERNEL_GE(6, 13, 0)
#define KSHIM_HAS_MUTEX_INIT_GENERIC	1
#else
#define KSHIM_HAS_MUTEX_INIT_GENERIC	0
void mutex_init_generic(struct mutex *lock);
#endif

/*
 * init_srcu_struct() became a macro over the inline __init_srcu_struct(),
 * which calls init_srcu_struct_generic() without lockdep: in 7.3.4, not in
 * 7.2.13 (where it was out of line still, as in 6.12).
 */
#if KSHIM_KERNEL_GE(7, 3, 0)
#define KSHIM_HAS_INIT_SRCU_STRUCT_GENERIC	1
#else
#define KSHIM_HAS_INIT_SRCU_STRUCT_GENERIC	0
int init_srcu_struct_generic(struct srcu_struct *ssp);
#endif

/*
 * kvfree_call_rcu()'s head: struct rcu_head from 6.3 (the two-argument
 * form), struct kvfree_rcu_head in 7.3.4 (not in 7.2.13).
 */
#if KSHIM_KERNEL_GE(7, 3, 0)
#define kshim_kvfree_rcu_head	kvfree_rcu_head
#else
#define kshim_kvfree_rcu_head	rcu_head
#endif

#endif
