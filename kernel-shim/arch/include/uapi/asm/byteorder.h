/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* The fake architecture is little-endian, like arm64 Linux and the host. */
#ifndef __ASM_SHIM_UAPI_BYTEORDER_H
#define __ASM_SHIM_UAPI_BYTEORDER_H

#include <linux/byteorder/little_endian.h>

#endif
