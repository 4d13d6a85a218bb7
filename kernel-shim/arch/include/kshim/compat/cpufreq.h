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

#ifndef _KSHIM_COMPAT_CPUFREQ_REGISTER_EM
#define _KSHIM_COMPAT_CPUFREQ_REGISTER_EM
/*
 * A driver's energy model: the cpufreq core registers it through the
 * driver's ->register_em() once the policy is up (in 6.1, not in 5.10.262;
 * bracketed), which is cpufreq_register_em_with_opp() for drivers over the
 * OPP library. Before, the driver's ->init() registered it itself, as
 * 5.10's cpufreq-dt.c:180 does with dev_pm_opp_of_register_em(), which is
 * what cpufreq_register_em_with_opp() calls.
 *
 * A stand-in driver names its callback with kshim_cpufreq_set_register_em()
 * and calls kshim_cpufreq_init_em() at the end of its ->init(): one of the
 * two registers the model, by the tree.
 */
#include <kshim/kernel-version.h>
#include <linux/cpu.h>
#include <linux/pm_opp.h>

#if KSHIM_KERNEL_GE(6, 1, 0)
#define kshim_cpufreq_set_register_em(driver, register)	((driver)->register_em = (register))
#define kshim_cpufreq_init_em(driver_register, policy)	do { } while (0)
#else
#define kshim_cpufreq_set_register_em(driver, register)	do { } while (0)
#define kshim_cpufreq_init_em(driver_register, policy) do {	\
	void (*__register)(struct cpufreq_policy *) = (driver_register);	\
	if (__register)							\
		__register(policy);					\
} while (0)
static inline void cpufreq_register_em_with_opp(struct cpufreq_policy *policy)
{
	dev_pm_opp_of_register_em(get_cpu_device(policy->cpu), policy->cpus);
}
#endif
#endif
