// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU devices of drivers/base/cpu.c: one struct device per CPU whose
 * of_node is the CPU's DT node, as register_cpu() sets it. sysfs does not
 * exist here, so attribute files are accepted and never shown.
 */
#include <linux/cpu.h>
#include <linux/device.h>
#include <linux/of.h>
#include <linux/version.h>

#include "shim.h"

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
const
#endif
struct bus_type cpu_subsys = {
	.name = "cpu",
	.dev_name = "cpu",
};

static struct device cpu_devices[NR_CPUS];

void kshim_init_cpu_devices(unsigned int nr_cpus)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		cpu_devices[cpu].of_node = of_get_cpu_node(cpu, NULL);
		cpu_devices[cpu].id = cpu;
		cpu_devices[cpu].bus = &cpu_subsys;
	}
}

struct device *get_cpu_device(unsigned int cpu)
{
	if (cpu >= nr_cpu_ids)
		return NULL;
	return &cpu_devices[cpu];
}

int device_create_file(struct device *dev, const struct device_attribute *attr)
{
	return 0;
}

void device_remove_file(struct device *dev, const struct device_attribute *attr)
{
}
