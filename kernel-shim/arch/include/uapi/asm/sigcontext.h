/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
#ifndef __ASM_SHIM_UAPI_SIGCONTEXT_H
#define __ASM_SHIM_UAPI_SIGCONTEXT_H
/* Signals are never delivered to simulated tasks. */
struct sigcontext {
	unsigned long unused;
};
#endif
