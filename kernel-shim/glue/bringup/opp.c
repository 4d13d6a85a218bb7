// SPDX-License-Identifier: GPL-2.0
/*
 * The OPP library's part in the energy model (drivers/opp/of.c): each
 * policy keeps the OPPs of its frequency domain, and the EM is registered
 * the way dev_pm_opp_of_register_em() registers it, with an active-power
 * callback that does _get_power()'s arithmetic:
 *
 *	P[uW] = dynamic-power-coefficient * mV^2 * MHz / 1000000
 *
 * on the OPP found with dev_pm_opp_find_freq_ceil(), in the same integer
 * types, so the kernel's em_create_perf_table() sees the numbers it would
 * see on the board.
 */
#include <linux/cpufreq.h>
#include <linux/energy_model.h>
#include <linux/math64.h>
#include <linux/of.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "../shim.h"

struct opp_table {
	unsigned int nr;
	struct kshim_opp *opps;		/* ascending frequency */
	int em_status;			/* dev_pm_opp_of_register_em()'s result */
};

static DEFINE_PER_CPU(struct opp_table *, cpu_opp_table);

void kshim_opp_set_table(struct cpufreq_policy *policy, const struct kshim_opp *opps,
			 unsigned int nr)
{
	struct opp_table *table = kzalloc(sizeof(*table), GFP_KERNEL);
	unsigned int cpu;

	table->nr = nr;
	table->opps = kmemdup(opps, nr * sizeof(*opps), GFP_KERNEL);
	table->em_status = -ENODEV;
	for_each_cpu(cpu, policy->related_cpus)
		per_cpu(cpu_opp_table, cpu) = table;
}

/* dev_pm_opp_find_freq_ceil(): the lowest OPP at or above *hz. */
static const struct kshim_opp *find_freq_ceil(const struct opp_table *table, unsigned long *hz)
{
	unsigned int i;

	for (i = 0; i < table->nr; i++) {
		if (table->opps[i].hz >= *hz) {
			*hz = table->opps[i].hz;
			return &table->opps[i];
		}
	}
	return NULL;
}

/* drivers/opp/of.c, _get_power() */
static int opp_active_power(struct device *dev, unsigned long *uW, unsigned long *kHz)
{
	const struct opp_table *table = per_cpu(cpu_opp_table, dev->id);
	const struct kshim_opp *opp;
	unsigned long mV, Hz;
	u32 cap;
	u64 tmp;

	if (!table || of_property_read_u32(dev->of_node, "dynamic-power-coefficient", &cap))
		return -EINVAL;

	Hz = *kHz * 1000;
	opp = find_freq_ceil(table, &Hz);
	if (!opp)
		return -EINVAL;

	mV = opp->microvolt / 1000;
	if (!mV)
		return -EINVAL;

	tmp = (u64)cap * mV * mV * (Hz / 1000000);
	do_div(tmp, 1000000);

	*uW = (unsigned long)tmp;
	*kHz = Hz / 1000;
	return 0;
}

/* drivers/opp/of.c, _get_dt_power(): the OPP's opp-microwatt */
static int opp_dt_power(struct device *dev, unsigned long *uW, unsigned long *kHz)
{
	const struct opp_table *table = per_cpu(cpu_opp_table, dev->id);
	const struct kshim_opp *opp;
	unsigned long Hz = *kHz * 1000;

	if (!table)
		return -EINVAL;
	opp = find_freq_ceil(table, &Hz);
	if (!opp || !opp->microwatt)
		return -EINVAL;
	*kHz = Hz / 1000;
	*uW = opp->microwatt;
	return 0;
}

/* drivers/opp/of.c, dev_pm_opp_of_register_em(), for a policy's CPUs:
 * opp-microwatt first (_of_has_opp_microwatt_property(): the lowest OPP
 * has one), else dynamic-power-coefficient. */
int kshim_register_em(struct cpufreq_policy *policy)
{
	struct device *dev = get_cpu_device(policy->cpu);
	struct opp_table *table = per_cpu(cpu_opp_table, policy->cpu);
	struct em_data_callback em_cb;
	u32 cap;
	int ret;

	if (!dev || !table || !table->nr) {
		ret = -EINVAL;
		goto failed;
	}
	if (table->opps[0].microwatt) {
		EM_SET_ACTIVE_POWER_CB(em_cb, opp_dt_power);
		goto register_em;
	}
	if (of_property_read_u32(dev->of_node, "dynamic-power-coefficient", &cap) || !cap) {
		ret = -EINVAL;
		goto failed;
	}
	EM_SET_ACTIVE_POWER_CB(em_cb, opp_active_power);
register_em:
	ret = em_dev_register_perf_domain(dev, table->nr, &em_cb, policy->cpus, true);
failed:
	if (table)
		table->em_status = ret;
	return ret;
}

int kshim_em_status(unsigned int cpu)
{
	const struct opp_table *table = cpu < nr_cpu_ids ? per_cpu(cpu_opp_table, cpu) : NULL;

	return table ? table->em_status : -ENODEV;
}

#include <linux/clk.h>
#include <linux/pm_opp.h>
#include <linux/version.h>

/*
 * The bring-up build has no clock provider and no OPP library (glue/clk.c
 * and drivers/opp come with the whole scheduler): arch_topology.c finds
 * no CPU clock, and energy_model.c's chip-binning update (6.9+), which
 * nothing calls here, finds no OPP.
 */
struct clk *of_clk_get(struct device_node *np, int index)
{
	return ERR_PTR(-ENOENT);
}

unsigned long clk_get_rate(struct clk *clk)
{
	return 0;
}

void clk_put(struct clk *clk)
{
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
int dev_pm_opp_calc_power(struct device *dev, unsigned long *uW, unsigned long *kHz)
{
	return -ENODEV;
}
#endif
