// SPDX-License-Identifier: GPL-2.0
/*
 * The CPUs' clocks: the common clock framework's consumer API
 * (drivers/clk/clk.c, clkdev.c) over the SoC's clock provider, stood in
 * for. A consumer's clock is the specifier its node's `clocks` gives at
 * the index `clock-names` names (the first without a name, as
 * of_clk_get() takes it); consumers naming one specifier share one clock,
 * as CPUs of a cluster share its PLL.
 *
 * The provider is the board: it makes any rate asked for (a real PLL's
 * driver rounds to what it can generate; those steps are not in the DT),
 * and a rate set reaches the CPUs clocked by it through the harness
 * (shim_clock_changed()) once the voltage programmed before it has
 * settled (glue/regulator.c); the board model adds the clock's own
 * transition time. At boot a clock runs at the rate the harness says the
 * boot loader left (kshim_set_boot_clock()).
 */
#include <linux/clk.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/of.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "shim.h"

struct clk {
	struct of_phandle_args spec;
	unsigned long rate;		/* Hz, as clk_get_rate() reports it */
	struct cpumask cpus;		/* the CPUs it clocks */
	unsigned int refs;
	struct clk *next;
};

static struct clk *clocks;
static unsigned long boot_rate[NR_CPUS];	/* Hz */
static unsigned long long rate_changes[NR_CPUS];

void kshim_set_boot_clock(unsigned int cpu, unsigned long long hz)
{
	if (cpu < NR_CPUS)
		boot_rate[cpu] = hz;
}

static bool same_spec(const struct of_phandle_args *a, const struct of_phandle_args *b)
{
	return a->np == b->np && a->args_count == b->args_count &&
	       !memcmp(a->args, b->args, a->args_count * sizeof(a->args[0]));
}

/* of_clk_get_hw(): the specifier of node's clock at index */
static int clock_spec_at(struct device_node *np, int index, struct of_phandle_args *spec)
{
	if (!np || of_parse_phandle_with_args(np, "clocks", "#clock-cells", index, spec))
		return -ENOENT;
	of_node_put(spec->np);	/* the node lives as long as the tree */
	return 0;
}

/* the specifier of node's clock con_id (the first without a name) */
static int clock_spec(struct device_node *np, const char *con_id, struct of_phandle_args *spec)
{
	int index = 0;

	if (con_id) {
		index = of_property_match_string(np, "clock-names", con_id);
		if (index < 0)
			return -ENOENT;
	}
	return clock_spec_at(np, index, spec);
}

/* The CPUs whose clock (their node's first) this specifier is. */
static void clocked_cpus(struct clk *clk)
{
	struct of_phandle_args spec;
	struct device_node *np;
	unsigned int cpu;

	cpumask_clear(&clk->cpus);
	for_each_possible_cpu(cpu) {
		np = of_get_cpu_node(cpu, NULL);
		if (np && !clock_spec(np, NULL, &spec) && same_spec(&spec, &clk->spec))
			cpumask_set_cpu(cpu, &clk->cpus);
		of_node_put(np);
	}
}

static struct clk *clock_of(const struct of_phandle_args *spec)
{
	struct clk *clk;
	unsigned int cpu;

	for (clk = clocks; clk; clk = clk->next) {
		if (same_spec(&clk->spec, spec)) {
			clk->refs++;
			return clk;
		}
	}
	clk = kzalloc(sizeof(*clk), GFP_KERNEL);
	if (!clk)
		return ERR_PTR(-ENOMEM);
	clk->spec = *spec;
	clk->refs = 1;
	clocked_cpus(clk);
	for_each_cpu(cpu, &clk->cpus) {
		if (boot_rate[cpu]) {
			clk->rate = boot_rate[cpu];
			break;
		}
	}
	clk->next = clocks;
	clocks = clk;
	return clk;
}

struct clk *clk_get(struct device *dev, const char *con_id)
{
	struct of_phandle_args spec;

	if (!dev || !dev->of_node || clock_spec(dev->of_node, con_id, &spec))
		return ERR_PTR(-ENOENT);
	return clock_of(&spec);
}

/*
 * drivers/clk/clk.c: a node's clock by index. arch_topology.c reads the
 * CPUs' boot rates through it for the early capacities; a clock whose
 * boot rate the board does not give (a CPU without OPPs) is not provided,
 * rather than reported running at 0 Hz.
 */
struct clk *of_clk_get(struct device_node *np, int index)
{
	struct of_phandle_args spec;
	struct clk *clk;

	if (clock_spec_at(np, index, &spec))
		return ERR_PTR(-ENOENT);
	clk = clock_of(&spec);
	if (!IS_ERR(clk) && !clk->rate) {
		clk_put(clk);
		return ERR_PTR(-ENOENT);
	}
	return clk;
}

void clk_put(struct clk *clk)
{
	if (!IS_ERR_OR_NULL(clk))
		clk->refs--;
}

unsigned long clk_get_rate(struct clk *clk)
{
	return IS_ERR_OR_NULL(clk) ? 0 : clk->rate;
}

long clk_round_rate(struct clk *clk, unsigned long rate)
{
	return IS_ERR_OR_NULL(clk) ? 0 : rate;
}

/* The hardware changes the CPUs' clock to khz once the supplies settled. */
void kshim_clock_reaches(const struct cpumask *cpus, unsigned long khz)
{
	struct kshim_cpuset set = {};
	u64 ready = ktime_get_ns();
	unsigned int cpu;

	for_each_cpu(cpu, cpus) {
		struct device *dev = get_cpu_device(cpu);

		if (dev && dev->of_node)
			ready = max(ready, kshim_supply_settled_at(dev->of_node));
		set.bits[cpu / 64] |= 1ULL << (cpu % 64);
		rate_changes[cpu]++;
	}
	shim_clock_changed(&set, khz, ready);
}

int clk_set_rate(struct clk *clk, unsigned long rate)
{
	if (IS_ERR_OR_NULL(clk))
		return 0;
	rate = clk_round_rate(clk, rate);
	if (rate == clk->rate)
		return 0;
	clk->rate = rate;
	kshim_clock_reaches(&clk->cpus, rate / 1000);
	return 0;
}

/* How often the hardware was asked to change cpu's clock. */
unsigned long long kshim_clock_changes(int cpu)
{
	return cpu >= 0 && cpu < NR_CPUS ? rate_changes[cpu] : 0;
}

/* The rate the boot loader left cpu's clock at (Hz). */
unsigned long long kshim_boot_clock(unsigned int cpu)
{
	return cpu < NR_CPUS ? boot_rate[cpu] : 0;
}
