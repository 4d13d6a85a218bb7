/* SPDX-License-Identifier: GPL-2.0 */
/* No arch-optimised string functions: lib/string.c's names, from libc. */
#ifndef __ASM_SHIM_STRING_H
#define __ASM_SHIM_STRING_H
#endif
