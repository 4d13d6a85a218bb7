/* SPDX-License-Identifier: GPL-2.0 */
/* No exception tables: nothing faults on a user access here. */
#include <asm-generic/extable.h>
