/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xchg/cmpxchg on GCC's __atomic builtins, fully ordered like the kernel's
 * value-returning atomics.
 */
#ifndef __ASM_SHIM_CMPXCHG_H
#define __ASM_SHIM_CMPXCHG_H

#define arch_xchg(ptr, x)						\
	__atomic_exchange_n((ptr), (x), __ATOMIC_SEQ_CST)

#define arch_cmpxchg(ptr, old, new)					\
({									\
	__typeof__(*(ptr)) __old = (old);				\
	__atomic_compare_exchange_n((ptr), &__old, (new), 0,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\
	__old;								\
})

#define arch_cmpxchg_local	arch_cmpxchg
#define arch_cmpxchg64		arch_cmpxchg
#define arch_cmpxchg64_local	arch_cmpxchg

#endif
