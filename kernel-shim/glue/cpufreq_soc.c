// SPDX-License-Identifier: GPL-2.0
/*
 * The SoC's own cpufreq driver, for boards that cpufreq-dt-platdev.c
 * (compiled) leaves to one: it creates the "cpufreq-dt" device only for
 * boards it allows, or whose CPU0 has an operating-points-v2 table and
 * which are not on its blocklist. The others get, by what their DT says:
 *
 *  - a firmware frequency domain (qcom,freq-domain; an SCMI performance
 *    protocol or SCPI DVFS clock): a struct cpufreq_driver with the real
 *    driver's name, flags, fast switch, latency and EM registration
 *    (qcom-cpufreq-hw.c, scmi-cpufreq.c, scpi-cpufreq.c). The firmware's
 *    frequency table is the CPUs' OPP table in the DT, added through the
 *    OPP library as a lookup table would be; the firmware reports no
 *    latency of its own and no power (so scmi registers no EM), and sets a
 *    level the moment it is asked;
 *  - a MediaTek SoC of mediatek-cpufreq.c's list: that driver's name and
 *    flags over the OPP library, its "proc" supply set before raising
 *    and after lowering the "cpu" clock (no intermediate clock, no SRAM
 *    supply tracking, no CCI devfreq);
 *  - any other with an OPP table on CPU0: the "cpufreq-dt" device, as
 *    ti-cpufreq, imx-cpufreq-dt, sun50i-cpufreq-nvmem, qcom-cpufreq-nvmem
 *    and tegra's drivers register it once they have read their fuses (the
 *    fuses are not modelled: no opp-supported-hw is set).
 *
 * docs/architecture.md lists these as stand-ins.
 */
#include <linux/clk.h>
#include <linux/cpu.h>
#include <linux/cpufreq.h>
#include <linux/version.h>
#include <linux/energy_model.h>
#include <linux/init.h>
#include <linux/of.h>
#include <linux/of_device.h>
#include <linux/platform_device.h>
#include <linux/pm_opp.h>
#include <linux/regulator/consumer.h>
#include <linux/slab.h>

#include <kshim/compat/cpufreq.h>

#include "shim.h"

/* The tree's default for a driver whose hardware reports no latency:
 * 6.12's drivers use 1 ms, 6.1's CPUFREQ_ETERNAL. */
#ifdef CPUFREQ_DEFAULT_TRANSITION_LATENCY_NS
#define FW_NO_LATENCY	CPUFREQ_DEFAULT_TRANSITION_LATENCY_NS
#else
#define FW_NO_LATENCY	CPUFREQ_ETERNAL
#endif

enum soc_kind { SOC_QCOM_HW, SOC_SCMI, SOC_SCPI, SOC_MTK };

struct soc_domain {
	struct cpumask cpus;
	unsigned int cur;		/* kHz, the firmware's level */
	unsigned long long fast_switches;
};

static enum soc_kind soc_kind;
static struct soc_domain domains[NR_CPUS];
static unsigned int nr_domains;

int kshim_add_firmware_domain(const char *kind, const unsigned int *cpus, unsigned int nr_cpus)
{
	struct soc_domain *d;
	unsigned int i;

	if (!strcmp(kind, "qcom-cpufreq-hw"))
		soc_kind = SOC_QCOM_HW;
	else if (!strcmp(kind, "scmi"))
		soc_kind = SOC_SCMI;
	else if (!strcmp(kind, "scpi"))
		soc_kind = SOC_SCPI;
	else
		return -EINVAL;
	if (nr_domains == ARRAY_SIZE(domains))
		return -ERANGE;
	d = &domains[nr_domains++];
	for (i = 0; i < nr_cpus; i++) {
		if (cpus[i] >= nr_cpu_ids)
			return -ERANGE;
		cpumask_set_cpu(cpus[i], &d->cpus);
	}
	return 0;
}

static struct soc_domain *domain_of(unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < nr_domains; i++)
		if (cpumask_test_cpu(cpu, &domains[i].cpus))
			return &domains[i];
	return NULL;
}

/* The level the firmware sets: the hardware follows at once. Whether it
 * changed. */
static bool firmware_set(struct cpufreq_policy *policy, unsigned int khz)
{
	struct soc_domain *d = policy->driver_data;

	if (d->cur == khz)
		return false;
	d->cur = khz;
	kshim_clock_reaches(&d->cpus, khz);
	return true;
}

/* the firmware driver's ->register_em() (scmi registers none) */
static void (*fw_register_em)(struct cpufreq_policy *policy);

static int fw_init(struct cpufreq_policy *policy)
{
	struct device *cpu_dev = get_cpu_device(policy->cpu);
	struct soc_domain *d = domain_of(policy->cpu);
	struct cpufreq_frequency_table *table;
	unsigned int latency = 0;
	int ret;

	if (!cpu_dev || !d)
		return -ENODEV;
	ret = dev_pm_opp_of_cpumask_add_table(&d->cpus);
	if (ret)
		return ret;
	ret = dev_pm_opp_set_sharing_cpus(cpu_dev, &d->cpus);
	if (ret)
		goto out_remove;
	ret = dev_pm_opp_init_cpufreq_table(cpu_dev, &table);
	if (ret)
		goto out_remove;
	cpumask_copy(policy->cpus, &d->cpus);
	policy->driver_data = d;
	policy->freq_table = table;
	policy->dvfs_possible_from_any_cpu = true;
	d->cur = kshim_boot_clock(policy->cpu) / 1000;
	switch (soc_kind) {
	case SOC_QCOM_HW:	/* qcom_cpufreq_hw_cpu_init(): no latency */
		policy->fast_switch_possible = true;
		break;
	case SOC_SCMI:		/* the firmware's latency, its fast channel */
		latency = FW_NO_LATENCY;
		policy->fast_switch_possible = true;
		break;
	case SOC_SCPI:
		latency = FW_NO_LATENCY;
		break;
	default:
		break;
	}
	policy->cpuinfo.transition_latency = latency;
	kshim_cpufreq_init_em(fw_register_em, policy);
	return 0;

out_remove:
	dev_pm_opp_of_cpumask_remove_table(&d->cpus);
	return ret;
}

/* ->exit() returns nothing since 6.11 (cpufreq: Make cpufreq_driver->exit() return void) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define CPUFREQ_EXIT_RETURN	void
#define cpufreq_exit_return()	return
#else
#define CPUFREQ_EXIT_RETURN	int
#define cpufreq_exit_return()	return 0
#endif

static CPUFREQ_EXIT_RETURN fw_exit(struct cpufreq_policy *policy)
{
	struct device *cpu_dev = get_cpu_device(policy->cpu);

	dev_pm_opp_free_cpufreq_table(cpu_dev, &policy->freq_table);
	dev_pm_opp_of_cpumask_remove_table(policy->related_cpus);
	cpufreq_exit_return();
}

static int fw_target_index(struct cpufreq_policy *policy, unsigned int index)
{
	firmware_set(policy, policy->freq_table[index].frequency);
	return 0;
}

/* qcom-cpufreq-hw writes the index schedutil's resolution cached; scmi
 * asks for the frequency itself. */
static unsigned int fw_fast_switch(struct cpufreq_policy *policy, unsigned int target_freq)
{
	struct soc_domain *d = policy->driver_data;
	unsigned int freq = target_freq;

	if (soc_kind == SOC_QCOM_HW)
		freq = policy->freq_table[policy->cached_resolved_idx].frequency;
	if (firmware_set(policy, freq))
		d->fast_switches++;	/* of the clock changes kshim_clock_changes() counts */
	return freq;
}

static unsigned int fw_get(unsigned int cpu)
{
	struct soc_domain *d = domain_of(cpu);

	return d ? d->cur : 0;
}

static struct cpufreq_driver fw_driver = {
	.flags		= CPUFREQ_NEED_INITIAL_FREQ_CHECK | CPUFREQ_HAVE_GOVERNOR_PER_POLICY |
			  CPUFREQ_IS_COOLING_DEV,
	.verify		= cpufreq_generic_frequency_table_verify,
	.target_index	= fw_target_index,
	.get		= fw_get,
	.init		= fw_init,
	.exit		= fw_exit,
};

/* mediatek-cpufreq.c, reduced to its "cpu" clock and "proc" supply */
struct mtk_policy {
	struct device *cpu_dev;
	struct clk *clk;
	struct regulator *proc;
};

static int mtk_init(struct cpufreq_policy *policy)
{
	struct device *cpu_dev = get_cpu_device(policy->cpu);
	struct cpufreq_frequency_table *table;
	struct mtk_policy *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!cpu_dev || !m) {
		kfree(m);
		return -ENOMEM;
	}
	m->cpu_dev = cpu_dev;
	m->clk = clk_get(cpu_dev, "cpu");
	if (IS_ERR(m->clk)) {
		ret = PTR_ERR(m->clk);
		goto out_free;
	}
	m->proc = regulator_get_optional(cpu_dev, "proc");
	if (IS_ERR(m->proc))
		m->proc = NULL;
	ret = dev_pm_opp_of_get_sharing_cpus(cpu_dev, policy->cpus);
	if (ret)
		goto out_free;
	ret = dev_pm_opp_of_cpumask_add_table(policy->cpus);
	if (ret)
		goto out_free;
	ret = dev_pm_opp_init_cpufreq_table(cpu_dev, &table);
	if (ret) {
		dev_pm_opp_of_cpumask_remove_table(policy->cpus);
		goto out_free;
	}
	policy->freq_table = table;
	policy->driver_data = m;
	policy->clk = m->clk;
	kshim_cpufreq_init_em(cpufreq_register_em_with_opp, policy);
	return 0;

out_free:
	if (!IS_ERR_OR_NULL(m->proc))
		regulator_put(m->proc);
	kfree(m);
	return ret;
}

static CPUFREQ_EXIT_RETURN mtk_exit(struct cpufreq_policy *policy)
{
	struct mtk_policy *m = policy->driver_data;

	dev_pm_opp_free_cpufreq_table(m->cpu_dev, &policy->freq_table);
	dev_pm_opp_of_cpumask_remove_table(policy->related_cpus);
	kfree(m);
	cpufreq_exit_return();
}

/* mtk_cpufreq_set_target(): the voltage up before the clock, down after */
static int mtk_target_index(struct cpufreq_policy *policy, unsigned int index)
{
	struct mtk_policy *m = policy->driver_data;
	unsigned long hz = policy->freq_table[index].frequency * 1000UL;
	unsigned long old_hz = clk_get_rate(m->clk);
	unsigned long uV = 0;
	struct dev_pm_opp *opp;
	int ret;

	opp = dev_pm_opp_find_freq_ceil(m->cpu_dev, &hz);
	if (IS_ERR(opp))
		return PTR_ERR(opp);
	uV = dev_pm_opp_get_voltage(opp);
	dev_pm_opp_put(opp);
	if (m->proc && uV && hz > old_hz) {
		ret = regulator_set_voltage(m->proc, uV, INT_MAX);
		if (ret)
			return ret;
	}
	ret = clk_set_rate(m->clk, hz);
	if (!ret && m->proc && uV && hz < old_hz)
		ret = regulator_set_voltage(m->proc, uV, INT_MAX);
	return ret;
}

static struct cpufreq_driver mtk_driver = {
	.flags		= CPUFREQ_NEED_INITIAL_FREQ_CHECK | CPUFREQ_HAVE_GOVERNOR_PER_POLICY |
			  CPUFREQ_IS_COOLING_DEV,
	.verify		= cpufreq_generic_frequency_table_verify,
	.target_index	= mtk_target_index,
	.get		= cpufreq_generic_get,
	.init		= mtk_init,
	.exit		= mtk_exit,
	.name		= "mtk-cpufreq",
};

static const struct of_device_id mtk_machines[] = {
	{ .compatible = "mediatek,mt2701", }, { .compatible = "mediatek,mt2712", },
	{ .compatible = "mediatek,mt7622", }, { .compatible = "mediatek,mt7623", },
	{ .compatible = "mediatek,mt8167", }, { .compatible = "mediatek,mt817x", },
	{ .compatible = "mediatek,mt8173", }, { .compatible = "mediatek,mt8176", },
	{ .compatible = "mediatek,mt8183", }, { .compatible = "mediatek,mt8186", },
	{ .compatible = "mediatek,mt8365", }, { .compatible = "mediatek,mt8516", },
	{ }
};

static bool cpu0_has_opp_v2(void)
{
	struct device_node *np = of_cpu_device_node_get(0);
	bool ret = np && of_find_property(np, "operating-points-v2", NULL);

	of_node_put(np);
	return ret;
}

/* After the device initcalls, where cpufreq-dt has probed if it was to. */
static int __init soc_cpufreq_init(void)
{
	struct device_node *root;
	bool mtk;

	if (cpufreq_get_current_driver())
		return 0;
	if (nr_domains) {
		strscpy(fw_driver.name, soc_kind == SOC_QCOM_HW ? "qcom-cpufreq-hw" :
					soc_kind == SOC_SCMI ? "scmi" : "scpi-cpufreq",
			sizeof(fw_driver.name));
		fw_driver.fast_switch = soc_kind == SOC_SCPI ? NULL : fw_fast_switch;
		/* scmi's EM needs the firmware's power, which it gives none */
		fw_register_em = soc_kind == SOC_SCMI ? NULL : cpufreq_register_em_with_opp;
		kshim_cpufreq_set_register_em(&fw_driver, fw_register_em);
		return cpufreq_register_driver(&fw_driver);
	}
	if (!cpu0_has_opp_v2())
		return 0;
	root = of_find_node_by_path("/");
	mtk = root && of_match_node(mtk_machines, root);
	of_node_put(root);
	if (mtk) {
		kshim_cpufreq_set_register_em(&mtk_driver, cpufreq_register_em_with_opp);
		return cpufreq_register_driver(&mtk_driver);
	}
	/* cpufreq-dt-platdev made it, and cpufreq-dt refused the board */
	if (kshim_platform_device_registered("cpufreq-dt"))
		return 0;
	return PTR_ERR_OR_ZERO(platform_device_register_simple("cpufreq-dt", -1, NULL, 0));
}
late_initcall(soc_cpufreq_init);

unsigned long long kshim_cpufreq_fast_switches(int cpu)
{
	struct soc_domain *d = cpu >= 0 ? domain_of(cpu) : NULL;

	return d ? d->fast_switches : 0;
}
