/* SPDX-License-Identifier: GPL-2.0 */
/* No MMU: the generic flat page definitions. */
#include <asm-generic/page.h>
