// SPDX-License-Identifier: GPL-2.0
/*
 * The CPUs' supplies: the regulator core (drivers/regulator/core.c,
 * of_regulator.c) and the PMIC's driver stood in for, as far as the OPP
 * library asks of them. A consumer's "<id>-supply" names a regulator node;
 * its constraints are the node's regulator-* properties, read as
 * of_get_regulation_constraints() reads them. What the PMIC driver would
 * add is not in the DT and is not invented:
 *
 *  - its voltage steps: a regulator reaches any voltage within its
 *    constraints (a pwm-regulator without voltage-table is a continuous
 *    range, as pwm-regulator.c declares it);
 *  - its own ramp rate (regulator_desc.ramp_delay), used when the DT
 *    gives no regulator-ramp-delay: known only for the PMICs listed in
 *    pmic_ramps[] below, from their drivers; for any other, without
 *    regulator-ramp-delay or a regulator-settling-time-* property in the
 *    DT, a voltage change takes no time (the core's answer for a
 *    regulator with neither).
 *
 * The ramp the core would wait for inside regulator_set_voltage() (its
 * _regulator_delay_helper()) takes no simulated time here: kernel code
 * takes none. It is recorded instead, and the clock programmed after it
 * (glue/clk.c) reaches the hardware only once the voltage has settled.
 */
#include <linux/device.h>
#include <linux/list.h>
#include <linux/of.h>
#include <linux/regulator/consumer.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "shim.h"

struct regulator_dev {
	struct device_node *np;
	int min_uV, max_uV;		/* 0, 0: unconstrained */
	bool can_change_voltage;	/* REGULATOR_CHANGE_VOLTAGE */
	bool continuous;		/* desc->continuous_voltage_range */
	unsigned int ramp_delay;	/* uV/us */
	bool ramp_disable;
	unsigned int settling_time, settling_time_up, settling_time_down;	/* us */
	int uV;				/* the voltage set; 0: never set */
	u64 settled_at_ns;
	unsigned int use_count;
	struct regulator_dev *next;
};

struct regulator {
	struct regulator_dev *rdev;
	struct device *dev;
	int min_uV, max_uV;		/* this consumer's request */
	bool enabled;
	struct list_head node;		/* consumers */
};

static LIST_HEAD(consumers);

static struct regulator_dev *regulators;

/* PMIC drivers' own ramp rates (regulator_desc.ramp_delay, uV/us), by the
 * PMIC's compatible and the regulator node's name prefix. */
static const struct {
	const char *compatible, *prefix;
	unsigned int ramp_delay;
} pmic_ramps[] = {
	/* drivers/regulator/s2mps11.c: S2MPS11_RAMP_DELAY for every buck */
	{ "samsung,s2mps11-pmic", "BUCK", 25000 },
};

static unsigned int desc_ramp_delay(struct device_node *np)
{
	struct device_node *pmic;
	unsigned int i;

	for (pmic = np->parent; pmic; pmic = pmic->parent)
		for (i = 0; i < ARRAY_SIZE(pmic_ramps); i++)
			if (of_device_is_compatible(pmic, pmic_ramps[i].compatible) &&
			    !strncmp(np->name, pmic_ramps[i].prefix, strlen(pmic_ramps[i].prefix)))
				return pmic_ramps[i].ramp_delay;
	return 0;
}

static u32 read_u32_or(struct device_node *np, const char *name, u32 fallback)
{
	u32 v;

	return of_property_read_u32(np, name, &v) ? fallback : v;
}

/* of_get_regulation_constraints() for the constraints read here */
static struct regulator_dev *regulator_dev_of(struct device_node *np)
{
	struct regulator_dev *rdev;

	for (rdev = regulators; rdev; rdev = rdev->next)
		if (rdev->np == np)
			return rdev;
	rdev = kzalloc(sizeof(*rdev), GFP_KERNEL);
	if (!rdev)
		return NULL;
	rdev->np = np;
	rdev->min_uV = read_u32_or(np, "regulator-min-microvolt", 0);
	rdev->max_uV = read_u32_or(np, "regulator-max-microvolt", 0);
	rdev->can_change_voltage = rdev->min_uV != rdev->max_uV;
	rdev->continuous = of_device_is_compatible(np, "pwm-regulator") &&
			   !of_find_property(np, "voltage-table", NULL);
	rdev->ramp_delay = read_u32_or(np, "regulator-ramp-delay", 0);
	if (!rdev->ramp_delay)
		rdev->ramp_delay = desc_ramp_delay(np);
	rdev->ramp_disable = of_property_read_bool(np, "regulator-ramp-disable");
	rdev->settling_time = read_u32_or(np, "regulator-settling-time-us", 0);
	rdev->settling_time_up = read_u32_or(np, "regulator-settling-time-up-us", 0);
	rdev->settling_time_down = read_u32_or(np, "regulator-settling-time-down-us", 0);
	rdev->next = regulators;
	regulators = rdev;
	return rdev;
}

/* regulator_dev_lookup(): "<id>-supply" on the consumer's node. */
struct regulator *regulator_get_optional(struct device *dev, const char *id)
{
	struct device_node *supply;
	struct regulator *regulator;
	char prop[64];

	if (!dev || !dev->of_node || !id)
		return ERR_PTR(-ENODEV);
	snprintf(prop, sizeof(prop), "%s-supply", id);
	supply = of_parse_phandle(dev->of_node, prop, 0);
	if (!supply)
		return ERR_PTR(-ENODEV);
	regulator = kzalloc(sizeof(*regulator), GFP_KERNEL);
	if (!regulator)
		return ERR_PTR(-ENOMEM);
	regulator->rdev = regulator_dev_of(supply);
	if (!regulator->rdev) {
		kfree(regulator);
		return ERR_PTR(-ENOMEM);
	}
	regulator->dev = dev;
	list_add_tail(&regulator->node, &consumers);
	return regulator;
}

void regulator_put(struct regulator *regulator)
{
	if (IS_ERR_OR_NULL(regulator))
		return;
	if (regulator->enabled)
		regulator->rdev->use_count--;
	list_del(&regulator->node);
	kfree(regulator);
}

int regulator_enable(struct regulator *regulator)
{
	if (!regulator->enabled) {
		regulator->enabled = true;
		regulator->rdev->use_count++;
	}
	return 0;
}

int regulator_disable(struct regulator *regulator)
{
	if (WARN(!regulator->enabled, "unbalanced disable of %pOF\n", regulator->rdev->np))
		return -EIO;
	regulator->enabled = false;
	regulator->rdev->use_count--;
	return 0;
}

/* drivers/regulator/core.c: the constraints, not the PMIC's steps (above). */
int regulator_is_supported_voltage(struct regulator *regulator, int min_uV, int max_uV)
{
	struct regulator_dev *rdev = regulator->rdev;

	if (!rdev->min_uV && !rdev->max_uV)
		return 1;	/* no constraints: the hardware is asked */
	if (!rdev->can_change_voltage)
		return min_uV <= rdev->min_uV && rdev->min_uV <= max_uV;
	if (rdev->continuous)
		return min_uV >= rdev->min_uV && max_uV <= rdev->max_uV;
	return max_uV >= rdev->min_uV && min_uV <= rdev->max_uV;
}

/* _regulator_set_voltage_time(): the constraints' ramp or settling time */
static int voltage_time_us(const struct regulator_dev *rdev, int old_uV, int new_uV)
{
	if (rdev->ramp_disable)
		return 0;
	if (rdev->ramp_delay)
		return DIV_ROUND_UP(abs(new_uV - old_uV), rdev->ramp_delay);
	if (rdev->settling_time)
		return rdev->settling_time;
	if (rdev->settling_time_up && new_uV > old_uV)
		return rdev->settling_time_up;
	if (rdev->settling_time_down && new_uV < old_uV)
		return rdev->settling_time_down;
	return 0;
}

int regulator_set_voltage_time(struct regulator *regulator, int old_uV, int new_uV)
{
	return voltage_time_us(regulator->rdev, old_uV, new_uV);
}

/*
 * regulator_set_voltage(): the lowest voltage of the request the
 * constraints allow (regulator_check_voltage() clamps to them), and the
 * time the change takes before the supply has settled.
 */
int regulator_set_voltage(struct regulator *regulator, int min_uV, int max_uV)
{
	struct regulator_dev *rdev = regulator->rdev;
	int uV = min_uV;
	u64 now = ktime_get_ns();

	if (rdev->min_uV || rdev->max_uV) {
		if (max_uV < rdev->min_uV || min_uV > rdev->max_uV)
			return -EINVAL;
		uV = max(min_uV, rdev->min_uV);
	}
	regulator->min_uV = min_uV;
	regulator->max_uV = max_uV;
	if (uV == rdev->uV)
		return 0;
	if (rdev->uV)
		rdev->settled_at_ns = max(rdev->settled_at_ns, now) +
				      (u64)voltage_time_us(rdev, rdev->uV, uV) * NSEC_PER_USEC;
	rdev->uV = uV;
	return 0;
}

int regulator_get_voltage(struct regulator *regulator)
{
	return regulator->rdev->uV ? regulator->rdev->uV : -EINVAL;
}

/* Nothing changes the voltage behind the consumers' backs. */
int regulator_sync_voltage(struct regulator *regulator)
{
	return 0;
}

/*
 * When the supplies a device (a CPU's node) consumes have settled: the time
 * the clock programmed after a voltage change waits for; 0 when none is
 * changing.
 */
u64 kshim_supply_settled_at(struct device_node *consumer)
{
	struct regulator *regulator;
	u64 settled = 0;

	list_for_each_entry(regulator, &consumers, node)
		if (regulator->dev->of_node == consumer)
			settled = max(settled, regulator->rdev->settled_at_ns);
	return settled;
}
