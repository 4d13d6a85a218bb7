/* SPDX-License-Identifier: GPL-2.0 */
/* core.c includes <asm/tlb.h>; the generic one serves (no MMU, no real stacks). */
#include <asm-generic/tlb.h>
