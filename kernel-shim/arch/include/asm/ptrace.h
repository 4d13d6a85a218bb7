/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __ASM_SHIM_PTRACE_H
#define __ASM_SHIM_PTRACE_H

/* No user mode and no trap frames; the type exists for prototypes. */
struct pt_regs {
	unsigned long pc;
	unsigned long sp;
};

#define user_mode(regs)			0
#define instruction_pointer(regs)	((regs)->pc)
#define user_stack_pointer(regs)	((regs)->sp)
#define profile_pc(regs)		instruction_pointer(regs)
#define current_pt_regs()		((struct pt_regs *)0)

#endif
