/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __ASM_SHIM_VMALLOC_H
#define __ASM_SHIM_VMALLOC_H
/* No huge vmap support to declare. */
#endif
