/* SPDX-License-Identifier: GPL-2.0 */
/*
 * alloc_workqueue_noprof(): alloc_workqueue() became a macro over it for
 * memory allocation profiling (in 7.2.13, not in 6.12.118). The glue
 * defines the _noprof function; an older tree's alloc_workqueue() is it.
 */
#ifndef _KSHIM_COMPAT_WORKQUEUE_H
#define _KSHIM_COMPAT_WORKQUEUE_H

#include <linux/workqueue.h>

#ifndef alloc_workqueue
#define alloc_workqueue_noprof	alloc_workqueue
#endif

#endif
