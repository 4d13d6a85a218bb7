/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pages without an MMU: a flat, identity-mapped address space. Written
 * here rather than taken from asm-generic/page.h, which 6.12 no longer has.
 */
#ifndef __ASM_SHIM_PAGE_H
#define __ASM_SHIM_PAGE_H

#include <linux/const.h>
#include <kshim/kernel-version.h>

#if KSHIM_KERNEL_GE(6, 13, 0)
/* include/vdso/page.h (in 7.2.13, not in 6.12.118; bracketed) defines them from CONFIG_PAGE_SHIFT, as arm64's own page-def.h takes them */
#include <vdso/page.h>
#else
#define PAGE_SHIFT	CONFIG_PAGE_SHIFT
#define PAGE_SIZE	(_AC(1, UL) << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#endif

#ifndef __ASSEMBLY__

#define clear_page(page)	memset((page), 0, PAGE_SIZE)
#define copy_page(to, from)	memcpy((to), (from), PAGE_SIZE)
#define clear_user_page(page, vaddr, pg)	clear_page(page)
#define copy_user_page(to, from, vaddr, pg)	copy_page(to, from)

typedef struct { unsigned long pte; } pte_t;
typedef struct { unsigned long pmd[16]; } pmd_t;
typedef struct { unsigned long pgd; } pgd_t;
typedef struct { unsigned long pgprot; } pgprot_t;
typedef struct page *pgtable_t;

#define pte_val(x)	((x).pte)
#define pmd_val(x)	((&x)->pmd[0])
#define pgd_val(x)	((x).pgd)
#define pgprot_val(x)	((x).pgprot)
#define __pte(x)	((pte_t) { (x) })
#define __pmd(x)	((pmd_t) { (x) })
#define __pgd(x)	((pgd_t) { (x) })
#define __pgprot(x)	((pgprot_t) { (x) })

extern unsigned long memory_start;
extern unsigned long memory_end;

#endif

#define PAGE_OFFSET		(0)
#define ARCH_PFN_OFFSET		(PAGE_OFFSET >> PAGE_SHIFT)

#ifndef __ASSEMBLY__

#define __va(x)			((void *)((unsigned long)(x)))
#define __pa(x)			((unsigned long)(x))
#define virt_to_pfn(kaddr)	(__pa(kaddr) >> PAGE_SHIFT)
#define pfn_to_virt(pfn)	__va((pfn) << PAGE_SHIFT)
#define virt_to_page(addr)	pfn_to_page(virt_to_pfn(addr))
#define page_to_virt(page)	pfn_to_virt(page_to_pfn(page))
#if KSHIM_KERNEL_LT(6, 13, 0)
/* asm-generic/memory_model.h gives it from then on (in 7.2.13, not in 6.12.118; bracketed) */
#define page_to_phys(page)	((dma_addr_t)page_to_pfn(page) << PAGE_SHIFT)
#endif
#define pfn_valid(pfn)		((pfn) >= ARCH_PFN_OFFSET && ((pfn) - ARCH_PFN_OFFSET) < max_mapnr)
#define virt_addr_valid(kaddr)	(((void *)(kaddr) >= (void *)PAGE_OFFSET) && \
				 ((void *)(kaddr) < (void *)memory_end))

#endif

#include <asm-generic/memory_model.h>
#include <asm-generic/getorder.h>

#endif
