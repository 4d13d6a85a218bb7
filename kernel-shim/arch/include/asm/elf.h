/* SPDX-License-Identifier: GPL-2.0 */
/* Module and core-dump headers name the ELF class; nothing is loaded. */
#ifndef __ASM_SHIM_ELF_H
#define __ASM_SHIM_ELF_H

#define ELF_CLASS	ELFCLASS64
#define ELF_DATA	ELFDATA2LSB
#define ELF_ARCH	EM_NONE
#define ELF_EXEC_PAGESIZE	4096

typedef unsigned long elf_greg_t;
#define ELF_NGREG	1
typedef elf_greg_t elf_gregset_t[ELF_NGREG];
typedef struct { unsigned long unused; } elf_fpregset_t;

#endif
