/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arch_atomic*() and arch_atomic64*() primitives on GCC's __atomic
 * builtins. linux/atomic.h builds every other variant (acquire/release,
 * inc/dec, fetch_*) from these through the tree's own fallbacks.
 */
#ifndef __ASM_SHIM_ATOMIC_H
#define __ASM_SHIM_ATOMIC_H

#include <linux/types.h>
#include <asm/cmpxchg.h>

#define ATOMIC64_INIT(i)	{ (i) }

/*
 * linux/atomic.h of trees before 5.14 builds on arch_atomic_*() only where
 * the architecture says so (arm64's asm/atomic.h did), else on atomic_*();
 * later trees test nothing.
 */
#define ARCH_ATOMIC

#define arch_atomic_read(v)	__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define arch_atomic_set(v, i)	__atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define arch_atomic64_read(v)	__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define arch_atomic64_set(v, i)	__atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)

#define SHIM_ATOMIC_OPS(pfx, type, op, builtin)				\
static inline void arch_##pfx##_##op(type i, pfx##_t *v)		\
{									\
	__atomic_##builtin(&v->counter, i, __ATOMIC_RELAXED);		\
}									\
static inline type arch_##pfx##_fetch_##op(type i, pfx##_t *v)	\
{									\
	return __atomic_##builtin(&v->counter, i, __ATOMIC_SEQ_CST);	\
}

#define SHIM_ATOMIC_RETURN_OPS(pfx, type, op, builtin)			\
static inline type arch_##pfx##_##op##_return(type i, pfx##_t *v)	\
{									\
	return __atomic_##builtin(&v->counter, i, __ATOMIC_SEQ_CST);	\
}

#define SHIM_ATOMIC_ALL(pfx, type)					\
	SHIM_ATOMIC_OPS(pfx, type, add, fetch_add)			\
	SHIM_ATOMIC_OPS(pfx, type, sub, fetch_sub)			\
	SHIM_ATOMIC_OPS(pfx, type, and, fetch_and)			\
	SHIM_ATOMIC_OPS(pfx, type, or, fetch_or)			\
	SHIM_ATOMIC_OPS(pfx, type, xor, fetch_xor)			\
	SHIM_ATOMIC_RETURN_OPS(pfx, type, add, add_fetch)		\
	SHIM_ATOMIC_RETURN_OPS(pfx, type, sub, sub_fetch)

SHIM_ATOMIC_ALL(atomic, int)
SHIM_ATOMIC_ALL(atomic64, s64)

#define arch_atomic_add			arch_atomic_add
#define arch_atomic_sub			arch_atomic_sub
#define arch_atomic_and			arch_atomic_and
#define arch_atomic_or			arch_atomic_or
#define arch_atomic_xor			arch_atomic_xor
#define arch_atomic_fetch_add		arch_atomic_fetch_add
#define arch_atomic_fetch_sub		arch_atomic_fetch_sub
#define arch_atomic_fetch_and		arch_atomic_fetch_and
#define arch_atomic_fetch_or		arch_atomic_fetch_or
#define arch_atomic_fetch_xor		arch_atomic_fetch_xor
#define arch_atomic_add_return		arch_atomic_add_return
#define arch_atomic_sub_return		arch_atomic_sub_return
#define arch_atomic64_add		arch_atomic64_add
#define arch_atomic64_sub		arch_atomic64_sub
#define arch_atomic64_and		arch_atomic64_and
#define arch_atomic64_or		arch_atomic64_or
#define arch_atomic64_xor		arch_atomic64_xor
#define arch_atomic64_fetch_add		arch_atomic64_fetch_add
#define arch_atomic64_fetch_sub		arch_atomic64_fetch_sub
#define arch_atomic64_fetch_and		arch_atomic64_fetch_and
#define arch_atomic64_fetch_or		arch_atomic64_fetch_or
#define arch_atomic64_fetch_xor		arch_atomic64_fetch_xor
#define arch_atomic64_add_return	arch_atomic64_add_return
#define arch_atomic64_sub_return	arch_atomic64_sub_return

#define arch_atomic_xchg(v, new)	arch_xchg(&(v)->counter, (new))
#define arch_atomic_cmpxchg(v, old, new) arch_cmpxchg(&(v)->counter, (old), (new))
#define arch_atomic64_xchg(v, new)	arch_xchg(&(v)->counter, (new))
#define arch_atomic64_cmpxchg(v, old, new) arch_cmpxchg(&(v)->counter, (old), (new))

#undef SHIM_ATOMIC_ALL
#undef SHIM_ATOMIC_RETURN_OPS
#undef SHIM_ATOMIC_OPS

#endif
