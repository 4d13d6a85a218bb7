/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The block counter in a register (cmake/BlockCounter.cmake): with
 * KSHIM_BLOCK_COUNTER_REGISTER each instrumented basic block adds one to
 * %r15, which no object of the project uses for anything else
 * (-ffixed-r15). Code outside the project saves and restores it as any
 * callee-saved register, so the count survives calls into libraries; a
 * switch of stacks through one (Boost.Context's fcontext restores the
 * %r15 the other stack left) carries it across by hand
 * (kernel-shim/src/fiber_switch.h). Plain C: included by the glue and the
 * C++ runtime.
 */
#ifndef KSHIM_BLOCK_COUNTER_H
#define KSHIM_BLOCK_COUNTER_H

#ifdef KSHIM_BLOCK_COUNTER_REGISTER
static inline unsigned long long kshim_blocks_register(void)
{
	unsigned long long n;

	/* "memory": in order with the calls around it, which count */
	__asm__ volatile("movq %%r15, %0" : "=r"(n) : : "memory");
	return n;
}

static inline void kshim_blocks_register_set(unsigned long long n)
{
	__asm__ volatile("movq %0, %%r15" : : "r"(n) : "memory");
}
#endif

#endif
