/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPUFREQ_DEFAULT_TRANSITION_LATENCY_NS: what a driver without a
 * transition latency gives its policy, once CPUFREQ_ETERNAL was dropped
 * (in 7.2.13, not in 6.12.118). Older trees give CPUFREQ_ETERNAL.
 */
#ifndef _KSHIM_COMPAT_CPUFREQ_H
#define _KSHIM_COMPAT_CPUFREQ_H

#include <linux/cpufreq.h>

#ifdef CPUFREQ_ETERNAL
#define KSHIM_CPUFREQ_UNKNOWN_LATENCY	CPUFREQ_ETERNAL
#else
#define KSHIM_CPUFREQ_UNKNOWN_LATENCY	CPUFREQ_DEFAULT_TRANSITION_LATENCY_NS
#endif

#endif

#ifndef _KSHIM_COMPAT_CPUFREQ_ETERNAL
#define _KSHIM_COMPAT_CPUFREQ_ETERNAL
/* Whether a policy's latency says the driver knows none: only the trees
 * with CPUFREQ_ETERNAL can say it. */
#ifdef CPUFREQ_ETERNAL
#define kshim_cpufreq_latency_unknown(latency)	((latency) == CPUFREQ_ETERNAL)
#else
#define kshim_cpufreq_latency_unknown(latency)	false
#endif
#endif
