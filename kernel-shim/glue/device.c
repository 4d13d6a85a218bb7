// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU devices of drivers/base/cpu.c: one struct device per CPU whose
 * of_node is the CPU's DT node, as register_cpu() sets it. sysfs does not
 * exist here, so attribute files are accepted and never shown.
 */
#include <linux/cpu.h>
#include <linux/miscdevice.h>
#include <linux/device.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/syscore_ops.h>
#include <linux/version.h>
#include <kshim/compat/platform_device.h>

#include <kshim/kernel-version.h>
#include "shim.h"

/* kobjects' types are const (bracketed: in 6.1, not in 5.10) */
#if KSHIM_KERNEL_GE(5, 11, 0)
#define kshim_kobj_type_const const
#else
#define kshim_kobj_type_const
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
const
#endif
struct bus_type cpu_subsys = {
	.name = "cpu",
	.dev_name = "cpu",
};

static struct device cpu_devices[NR_CPUS];
/* /sys/devices/system/cpu: the bus's root, the cpufreq kobject's parent */
static struct device cpu_root = { .init_name = "cpu" };

void kshim_init_cpu_devices(unsigned int nr_cpus)
{
	unsigned int cpu;

	kref_init(&cpu_root.kobj.kref);
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
	cpu_subsys.dev_root = &cpu_root;
#endif

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		cpu_devices[cpu].of_node = of_get_cpu_node(cpu, NULL);
		cpu_devices[cpu].id = cpu;
		cpu_devices[cpu].bus = &cpu_subsys;
		INIT_LIST_HEAD(&cpu_devices[cpu].devres_head);
		/* register_cpu(): the bus's dev_name and the id, "cpu4" */
		dev_set_name(&cpu_devices[cpu], "cpu%u", cpu);
	}
}

struct device *get_cpu_device(unsigned int cpu)
{
	if (cpu >= nr_cpu_ids)
		return NULL;
	return &cpu_devices[cpu];
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
struct device *bus_get_dev_root(const struct bus_type *bus)
{
	return bus == &cpu_subsys ? get_device(&cpu_root) : NULL;
}
#endif

/*
 * drivers/base/bus.c: an interface of the CPU subsystem (cpufreq's) hears
 * of every CPU device, as subsys_interface_register() walks the bus; CPUs
 * are never removed, so remove_dev() is never called.
 */
int subsys_interface_register(struct subsys_interface *sif)
{
	unsigned int cpu;

	if (!sif || sif->subsys != &cpu_subsys)
		return -EINVAL;
	if (sif->add_dev)
		for_each_possible_cpu(cpu)
			sif->add_dev(&cpu_devices[cpu], sif);
	return 0;
}

void subsys_interface_unregister(struct subsys_interface *sif)
{
}

/* drivers/base/core.c: the error printed unless the probe is deferred */
int dev_err_probe(const struct device *dev, int err, const char *fmt, ...)
{
	char text[256];
	va_list args;

	va_start(args, fmt);
	kshim_vformat(text, sizeof(text), fmt, args);
	va_end(args);
	if (err != -EPROBE_DEFER)
		dev_err(dev, "error %d: %s", err, text);
	return err;
}

/* drivers/base/power/common.c: no PM domains (genpd) are modelled; the
 * callers here (the OPP library's genpd configuration) ask only for
 * domains cpufreq-dt never names. */
struct device *dev_pm_domain_attach_by_name(struct device *dev, const char *name)
{
	return NULL;
}

void dev_pm_domain_detach(struct device *dev, bool power_off)
{
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
int dev_pm_domain_set_performance_state(struct device *dev, unsigned int state)
{
	return 0;
}
#endif

int device_create_file(struct device *dev, const struct device_attribute *attr)
{
	return 0;
}

void device_remove_file(struct device *dev, const struct device_attribute *attr)
{
}

/* drivers/base/core.c */
const char *dev_driver_string(const struct device *dev)
{
	if (dev->driver)
		return dev->driver->name;
	return dev->bus ? dev->bus->name : "";
}

/*
 * lib/kobject.c: objects without sysfs. The governor's tunables are the
 * only kobjects; kobject_put() hands the last reference to the type's
 * release(), as kobject_release() does.
 */
int kobject_init_and_add(struct kobject *kobj, kshim_kobj_type_const struct kobj_type *ktype,
			 struct kobject *parent, const char *fmt, ...)
{
	kref_init(&kobj->kref);
	kobj->ktype = ktype;
	kobj->parent = parent;
	kobj->state_initialized = 1;
	kobj->state_in_sysfs = 1;
	return 0;
}

static void kobject_release(struct kref *kref)
{
	struct kobject *kobj = container_of(kref, struct kobject, kref);

	if (kobj->ktype && kobj->ktype->release)
		kobj->ktype->release(kobj);
}

void kobject_put(struct kobject *kobj)
{
	if (kobj)
		kref_put(&kobj->kref, kobject_release);
}

struct kobject *kobject_get(struct kobject *kobj)
{
	if (kobj)
		kref_get(&kobj->kref);
	return kobj;
}

static void dynamic_kobj_release(struct kobject *kobj)
{
	kfree(kobj);
}

static kshim_kobj_type_const struct kobj_type dynamic_kobj_ktype = {
	.release = dynamic_kobj_release,
};

struct kobject *kobject_create_and_add(const char *name, struct kobject *parent)
{
	struct kobject *kobj = kzalloc(sizeof(*kobj), GFP_KERNEL);

	if (kobj && kobject_init_and_add(kobj, &dynamic_kobj_ktype, parent, "%s", name)) {
		kobject_put(kobj);
		return NULL;
	}
	return kobj;
}

/* No user space listens. */
int kobject_uevent(struct kobject *kobj, enum kobject_action action)
{
	return 0;
}

/*
 * drivers/base/platform.c, as far as a driver that registers its own device
 * needs it (cpuidle-psci.c): a device binds to the registered driver of
 * its name, whose probe runs then; no deferral, no bus notifiers, no
 * removal (devices live as long as the kernel).
 */
#define KSHIM_MAX_PLATFORM_DRIVERS	8
static struct platform_driver *platform_drivers[KSHIM_MAX_PLATFORM_DRIVERS];

static void platform_probe(struct platform_driver *drv, struct platform_device *pdev);
#define KSHIM_MAX_PLATFORM_DEVICES	8
static struct platform_device *platform_devices[KSHIM_MAX_PLATFORM_DEVICES];

/* A driver registered after its device (cpufreq-dt after the device
 * cpufreq-dt-platdev made) binds it then, as driver_attach() does. */
int __platform_driver_register(struct platform_driver *drv, struct module *owner
			       KSHIM_PLATFORM_DRIVER_MOD_NAME(mod_name))
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(platform_drivers); i++) {
		if (!platform_drivers[i]) {
			platform_drivers[i] = drv;
			break;
		}
	}
	if (i == ARRAY_SIZE(platform_drivers))
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(platform_devices); i++)
		if (platform_devices[i] && !platform_devices[i]->dev.driver &&
		    !strcmp(drv->driver.name, platform_devices[i]->name))
			platform_probe(drv, platform_devices[i]);
	return 0;
}

void platform_driver_unregister(struct platform_driver *drv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(platform_drivers); i++)
		if (platform_drivers[i] == drv)
			platform_drivers[i] = NULL;
}

static void devres_release_all(struct device *dev);

/* Whether a platform device of this name was registered (bound or not). */
bool kshim_platform_device_registered(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(platform_devices); i++)
		if (platform_devices[i] && !strcmp(platform_devices[i]->name, name))
			return true;
	return false;
}

/* really_probe(): a failed probe leaves nothing managed */
static void platform_probe(struct platform_driver *drv, struct platform_device *pdev)
{
	int ret;

	if (!drv->probe)
		return;
	pdev->dev.driver = &drv->driver;
	ret = drv->probe(pdev);
	if (ret) {
		pdev->dev.driver = NULL;
		devres_release_all(&pdev->dev);
		pr_info("%s: probe of %s failed with error %d\n", drv->driver.name, pdev->name, ret);
	}
}

struct platform_device *platform_device_register_full(const struct platform_device_info *info)
{
	struct platform_device *pdev;
	unsigned int i, slot;

	for (slot = 0; slot < ARRAY_SIZE(platform_devices); slot++)
		if (!platform_devices[slot])
			break;
	if (WARN(slot == ARRAY_SIZE(platform_devices), "more than %d platform devices\n",
		 KSHIM_MAX_PLATFORM_DEVICES))
		return ERR_PTR(-ENOMEM);
	pdev = kzalloc(sizeof(*pdev), GFP_KERNEL);
	if (!pdev)
		return ERR_PTR(-ENOMEM);
	platform_devices[slot] = pdev;
	INIT_LIST_HEAD(&pdev->dev.devres_head);
	pdev->name = info->name;
	pdev->id = info->id;
	pdev->dev.parent = info->parent;
	pdev->dev.init_name = info->name;
	if (info->data && info->size_data) {
		pdev->dev.platform_data = kmemdup(info->data, info->size_data, GFP_KERNEL);
		if (!pdev->dev.platform_data)
			return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < ARRAY_SIZE(platform_drivers); i++) {
		struct platform_driver *drv = platform_drivers[i];

		if (drv && !strcmp(drv->driver.name, pdev->name)) {
			platform_probe(drv, pdev);
			break;
		}
	}
	return pdev;
}

/*
 * drivers/base/devres.c: resources released with their device, newest
 * first, or one at a time by devres_release().
 */
struct devres {
	struct list_head node;
	dr_release_t release;
	u8 data[] __aligned(ARCH_KMALLOC_MINALIGN);
};

static void devres_release_all(struct device *dev)
{
	struct devres *dr, *tmp;

	list_for_each_entry_safe_reverse(dr, tmp, &dev->devres_head, node) {
		list_del(&dr->node);
		dr->release(dev, dr->data);
		kfree(dr);
	}
}

static void devm_kmalloc_release(struct device *dev, void *res)
{
}

/* device-managed memory: a resource of the device, freed with it */
void *devm_kmalloc(struct device *dev, size_t size, gfp_t gfp)
{
	void *data = devres_alloc_node(devm_kmalloc_release, size, gfp, NUMA_NO_NODE);

	if (data)
		devres_add(dev, data);
	return data;
}

/*
 * The resource's allocation: __devres_alloc_node() behind devres_alloc*()
 * (with the release function's name) since the later of Debian's trees;
 * before it (5.10, without CONFIG_DEBUG_DEVRES), devres_alloc_node()
 * (bracketed: between 5.10 and 6.1)
 */
#if KSHIM_KERNEL_GE(5, 11, 0)
void *__devres_alloc_node(dr_release_t release, size_t size, gfp_t gfp, int nid, const char *name)
#else
void *devres_alloc_node(dr_release_t release, size_t size, gfp_t gfp, int nid)
#endif
{
	struct devres *dr = kzalloc(sizeof(*dr) + size, gfp);

	if (!dr)
		return NULL;
	INIT_LIST_HEAD(&dr->node);
	dr->release = release;
	return dr->data;
}

void devres_free(void *res)
{
	if (res)
		kfree(container_of(res, struct devres, data));
}

void devres_add(struct device *dev, void *res)
{
	list_add_tail(&container_of(res, struct devres, data)->node, &dev->devres_head);
}

int devres_release(struct device *dev, dr_release_t release, dr_match_t match, void *match_data)
{
	struct devres *dr;

	list_for_each_entry_reverse(dr, &dev->devres_head, node) {
		if (dr->release != release || (match && !match(dev, dr->data, match_data)))
			continue;
		list_del(&dr->node);
		release(dev, dr->data);
		kfree(dr);
		return 0;
	}
	return -ENOENT;
}

/*
 * drivers/base/core.c without sysfs or a device hierarchy: a device is a
 * name and a reference count whose last put calls its release, as
 * device_release() does (the device's own, else its class's).
 */
int dev_set_name(struct device *dev, const char *fmt, ...)
{
	va_list args;
	char *name;

	va_start(args, fmt);
	name = kvasprintf(GFP_KERNEL, fmt, args);
	va_end(args);
	if (!name)
		return -ENOMEM;
	kfree(dev->kobj.name);
	dev->kobj.name = name;
	return 0;
}

static void device_release(struct kobject *kobj)
{
	struct device *dev = container_of(kobj, struct device, kobj);

	devres_release_all(dev);
	if (dev->release)
		dev->release(dev);
	else if (dev->class && dev->class->dev_release)
		dev->class->dev_release(dev);
	else
		WARN(1, "Device '%s' does not have a release() function\n", dev_name(dev));
}

static kshim_kobj_type_const struct kobj_type device_ktype = {
	.release = device_release,
};

/* drivers/base/core.c: device_register() is these two, which 7.x's thermal
 * core calls apart (a cooling device is initialised before it is named). */
void device_initialize(struct device *dev)
{
	kref_init(&dev->kobj.kref);
	dev->kobj.ktype = &device_ktype;
	dev->kobj.state_initialized = 1;
	INIT_LIST_HEAD(&dev->devres_head);
}

int device_add(struct device *dev)
{
	if (dev->init_name) {
		int ret = dev_set_name(dev, "%s", dev->init_name);

		if (ret)
			return ret;
		dev->init_name = NULL;
	}
	if (!dev_name(dev))
		return -EINVAL;
	return 0;
}

int device_register(struct device *dev)
{
	device_initialize(dev);
	return device_add(dev);
}

void device_del(struct device *dev)
{
}

void put_device(struct device *dev)
{
	if (dev)
		kobject_put(&dev->kobj);
}

void device_unregister(struct device *dev)
{
	device_del(dev);
	put_device(dev);
}

/* drivers/base/class.c: a class is its devices' release and nothing else */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
int class_register(const struct class *cls)
#else
int __class_register(struct class *cls, struct lock_class_key *key)
#endif
{
	return 0;
}

#if KSHIM_KERNEL_LT(6, 1, 0)
/* 5.10.262's thermal_core.c unregisters its class on a failed init */
void class_unregister(struct class *cls)
{
}
#endif

struct device *get_device(struct device *dev)
{
	if (dev)
		kref_get(&dev->kobj.kref);
	return dev;
}

/* drivers/char/misc.c: no /dev here (kernel/power/qos.c's cpu_dma_latency) */
int misc_register(struct miscdevice *misc)
{
	return 0;
}

/* drivers/base/syscore.c: no system suspend, so no syscore callbacks */
void register_syscore_ops(struct syscore_ops *ops)
{
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
void register_syscore(struct syscore *syscore)
{
}
#endif
