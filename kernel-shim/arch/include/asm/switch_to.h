/* SPDX-License-Identifier: GPL-2.0 */
/* core.c includes <asm/switch_to.h>; the generic one serves (no MMU, no real stacks). */
#include <asm-generic/switch_to.h>
