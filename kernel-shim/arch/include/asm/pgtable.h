/* SPDX-License-Identifier: GPL-2.0 */
/*
 * No MMU, so no page tables: the few names generic headers expect, all
 * trivially empty.
 */
#ifndef __ASM_SHIM_PGTABLE_H
#define __ASM_SHIM_PGTABLE_H

#include <asm-generic/pgtable-nopud.h>
#include <asm/page.h>

#define pgd_present(pgd)	(1)
#define pgd_none(pgd)		(0)
#define pgd_bad(pgd)		(0)
#define pgd_clear(pgdp)
#define pmd_offset(a, b)	((void *)0)

#define PAGE_NONE		__pgprot(0)
#define PAGE_SHARED		__pgprot(0)
#define PAGE_COPY		__pgprot(0)
#define PAGE_READONLY		__pgprot(0)
#define PAGE_KERNEL		__pgprot(0)

#define swapper_pg_dir		((pgd_t *)0)

#define __swp_type(x)		(0)
#define __swp_offset(x)		(0)
#define __swp_entry(type, off)	((swp_entry_t) { ((type) | ((off) << 7)) })
#define __pte_to_swp_entry(pte)	((swp_entry_t) { pte_val(pte) })
#define __swp_entry_to_pte(x)	((pte_t) { (x).val })

#include <kshim/kernel-version.h>
#if KSHIM_KERNEL_LT(6, 13, 0)
/* linux/pgtable.h defines it for every architecture from then on (in
 * 7.2.13, not in 6.12.118; bracketed) */
#define ZERO_PAGE(vaddr)	((struct page *)0)
#endif

#define VMALLOC_START		0UL
#define VMALLOC_END		(~0UL)

static inline void paging_init(void)
{
}

#endif
