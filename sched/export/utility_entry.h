/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The harness's entries into kernel/sched/debug.c and cpufreq_schedutil.c,
 * included after them by their export units (utility_export.c, which
 * includes build_utility.c; before 5.18 debug_export.c and
 * cpufreq_schedutil_export.c, which include one file each and define
 * SH_EXPORT_DEBUG or SH_EXPORT_SCHEDUTIL).
 */
#include <kshim/sched.h>

#if !defined(SH_EXPORT_SCHEDUTIL)
/* debug.c's scheduler-feature switch: what writing
 * /sys/kernel/debug/sched/features does */
int kshim_sched_feat_set(const char *name, int enable)
{
	char buf[64];

	if (snprintf(buf, sizeof(buf), "%s%s", enable ? "" : "NO_", name) >= sizeof(buf))
		return -EINVAL;
	return sched_feat_set(buf);
}

int kshim_sched_feat_get(const char *name)
{
	int i = match_string(sched_feat_names, __SCHED_FEAT_NR, name);

	if (i < 0)
		return -ENOENT;
	return !!(sysctl_sched_features & (1UL << i));
}

const char *kshim_sched_feat_name(int index)
{
	return index >= 0 && index < __SCHED_FEAT_NR ? sched_feat_names[index] : NULL;
}
#endif

#if !defined(SH_EXPORT_DEBUG)
/*
 * schedutil's rate limit on cpu's policy (µs): its tunables', which every
 * policy shares unless the driver has a governor per policy
 * (CPUFREQ_HAVE_GOVERNOR_PER_POLICY); 0 when schedutil does not govern it.
 */
unsigned int kshim_sugov_rate_limit_us(int cpu)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(cpu);
	struct sugov_policy *sg_policy;

	if (!policy || policy->governor != &schedutil_gov || !policy->governor_data)
		return 0;
	sg_policy = policy->governor_data;
	return sg_policy->tunables->rate_limit_us;
}
#endif
