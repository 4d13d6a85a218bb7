// SPDX-License-Identifier: GPL-2.0
/*
 * The thermal zones' sensors: the board's sensor driver (exynos-tmu,
 * hisi_thermal, ...) stood in for. Each (sensor node, id) a DT thermal zone
 * reads is registered as a driver's probe would, through thermal_of.c's
 * devm_thermal_of_zone_register(); the temperature it reads is the harness's
 * thermal model of the board at the present simulated time
 * (shim_sensor_temp()).
 *
 * Interrupts: where a sensor driver programs alarm thresholds (exynos-tmu a
 * rising and a falling one per trip, hisi_thermal one alarm), this one
 * offers ->set_trips() and keeps the window thermal_zone_set_trips() asks
 * for; the harness checks the model against it (kshim_thermal_sensor_window())
 * and raises the sensor's interrupt (kshim_thermal_sensor_interrupt()),
 * whose threaded handler updates the zone as the drivers' do.
 */
#include <linux/cpufreq.h>
#include <linux/err.h>
#include <linux/of.h>
#include <linux/sched/clock.h>
#include <linux/thermal.h>
#include <linux/trace_events.h>
#include <linux/version.h>
#include <trace/events/power.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
/* beside thermal_core.c since 6.7 */
#include "thermal_trace.h"
#include "thermal_trace_ipa.h"
#else
#include <trace/events/thermal.h>
#include <trace/events/thermal_power_allocator.h>
#endif

#include <kshim/sched.h>
#include <kshim/compat/thermal.h>

/* drivers/thermal/ of the tree: thermal_zone_device_set_policy(), instances */
#include "thermal_core.h"
#include "../../kernel-shim/glue/shim.h"

#define KSHIM_MAX_SENSORS	64

struct kshim_sensor {
	struct device dev;	/* the sensor driver's platform device */
	struct device_node *np;
	int id;
	struct thermal_zone_device *tz;
	int low, high;		/* the window of the last ->set_trips() */
};

static struct kshim_sensor sensors[KSHIM_MAX_SENSORS];
static int nr_sensors;

static int sensor_get_temp(struct kshim_sensor *sensor, int *temp)
{
	*temp = shim_sensor_temp(sensor - sensors);
	return 0;
}

static int sensor_set_trips(struct kshim_sensor *sensor, int low, int high)
{
	sensor->low = low;
	sensor->high = high;
	return 0;
}

KSHIM_THERMAL_SENSOR_OPS(sensor_ops, sensor_get_temp, sensor_set_trips);

int kshim_thermal_add_sensor(const char *path, int id)
{
	struct kshim_sensor *sensor;
	struct thermal_zone_device *tz;
	struct device_node *np = of_find_node_by_path(path);

	if (!np)
		return -ENOENT;
	/* a disabled sensor's driver never probes: its zones do not exist */
	if (!of_device_is_available(np))
		return -ENODEV;
	if (nr_sensors >= KSHIM_MAX_SENSORS)
		return -ENOSPC;
	sensor = &sensors[nr_sensors];
	sensor->dev.of_node = np;
	INIT_LIST_HEAD(&sensor->dev.devres_head);
	dev_set_name(&sensor->dev, "%s", kbasename(np->full_name));
	sensor->np = np;
	sensor->id = id;
	sensor->low = -INT_MAX;
	sensor->high = INT_MAX;
	nr_sensors++;
	tz = kshim_thermal_sensor_register(&sensor->dev, id, sensor, sensor_ops);
	if (IS_ERR(tz)) {
		nr_sensors--;
		return PTR_ERR(tz);
	}
	sensor->tz = tz;
	return nr_sensors - 1;
}

static struct kshim_sensor *sensor_of(int index)
{
	return index >= 0 && index < nr_sensors ? &sensors[index] : NULL;
}

int kshim_thermal_sensor_window(int index, int *low, int *high)
{
	struct kshim_sensor *sensor = sensor_of(index);

	if (!sensor)
		return -EINVAL;
	*low = sensor->low;
	*high = sensor->high;
	return 0;
}

void kshim_thermal_sensor_interrupt(int index)
{
	struct kshim_sensor *sensor = sensor_of(index);

	if (sensor)
		thermal_zone_device_update(sensor->tz, THERMAL_EVENT_UNSPECIFIED);
}

int kshim_thermal_zone(int index, struct kshim_thermal_zone *out)
{
	struct kshim_sensor *sensor = sensor_of(index);
	struct thermal_zone_device *tz;
	struct thermal_instance *instance;

	if (!sensor)
		return -EINVAL;
	tz = sensor->tz;
	memset(out, 0, sizeof(*out));
	strscpy(out->type, tz->type, sizeof(out->type));
	strscpy(out->governor, tz->governor ? tz->governor->name : "", sizeof(out->governor));
	out->id = tz->id;
	out->temperature = tz->temperature;
	out->num_trips = kshim_tz_num_trips(tz);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	{
		const struct thermal_trip_desc *td;

		for_each_trip_desc(tz, td)
			out->nr_disabled_trips += td->trip.temperature == THERMAL_TEMP_INVALID;
	}
#else
	{
		int trip;

		for (trip = 0; trip < kshim_tz_num_trips(tz); trip++)
			out->nr_disabled_trips += test_bit(trip, &tz->trips_disabled);
	}
#endif
	out->passive_delay_ms = kshim_tz_passive_delay_ms(tz);
	out->polling_delay_ms = kshim_tz_polling_delay_ms(tz);
	out->enabled = tz->mode == THERMAL_DEVICE_ENABLED;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	{
		const struct thermal_trip_desc *td;

		for_each_trip_desc(tz, td)
			list_for_each_entry(instance, &td->thermal_instances, trip_node)
				out->nr_instances++;
	}
#else
	list_for_each_entry(instance, &tz->thermal_instances, tz_node)
		out->nr_instances++;
#endif
	return 0;
}

/* What `echo NAME > /sys/class/thermal/thermal_zoneN/policy` does. */
int kshim_thermal_set_governor(int index, const char *name)
{
	struct kshim_sensor *sensor = sensor_of(index);
	char policy[THERMAL_NAME_LENGTH];

	if (!sensor)
		return -EINVAL;
	strscpy(policy, name, sizeof(policy));
	return thermal_zone_device_set_policy(sensor->tz, policy);
}

/* --- tracepoints ------------------------------------------------------- */
/*
 * The harness's probes, fields as each event's TP_fast_assign stores them
 * (the zone's or cooling device's type in the event's type):
 *
 *   thermal_temperature     tz_id temp_prev temp
 *   cdev_update             cdev_id target
 *   thermal_zone_trip       tz_id trip trip_type
 *   thermal_power_allocator tz_id total_req_power total_granted_power
 *                           power_range current_temp delta_temp
 *   cpu_frequency_limits    min_freq max_freq cpu_id
 */
static void record(const char *name, const char *type, int nr_args, const long long *args)
{
	kshim_trace_record(name, nr_args, args, NULL, NULL, type);
}

/* The events a trace.dat can hold: the kernel records them (glue/shim.h). */
KSHIM_RAW_EVENT(thermal_temperature);
KSHIM_RAW_EVENT(cdev_update);
KSHIM_RAW_EVENT(thermal_zone_trip);
KSHIM_RAW_EVENT(thermal_power_allocator);
KSHIM_RAW_EVENT(cpu_frequency_limits);

static void probe_thermal_temperature(void *data, struct thermal_zone_device *tz)
{
	const long long args[] = { tz->id, tz->last_temperature, tz->temperature };

	record("thermal_temperature", tz->type, ARRAY_SIZE(args), args);
	kshim_record_raw(thermal_temperature, probe_thermal_temperature, tz);
}

static void probe_cdev_update(void *data, struct thermal_cooling_device *cdev, unsigned long target)
{
	const long long args[] = { cdev->id, target };

	record("cdev_update", cdev->type, ARRAY_SIZE(args), args);
	kshim_record_raw(cdev_update, probe_cdev_update, cdev, target);
}

static void probe_thermal_zone_trip(void *data, struct thermal_zone_device *tz, int trip,
				    enum thermal_trip_type trip_type)
{
	const long long args[] = { tz->id, trip, trip_type };

	record("thermal_zone_trip", tz->type, ARRAY_SIZE(args), args);
	kshim_record_raw(thermal_zone_trip, probe_thermal_zone_trip, tz, trip, trip_type);
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
/* the per-actor arrays moved to thermal_power_actor in 6.8 */
static void probe_thermal_power_allocator(void *data, struct thermal_zone_device *tz, u32 total_req_power,
					  u32 total_granted_power, int num_actors, u32 power_range,
					  u32 max_allocatable_power, int current_temp, s32 delta_temp)
#else
static void probe_thermal_power_allocator(void *data, struct thermal_zone_device *tz, u32 *req_power,
					  u32 total_req_power, u32 *granted_power, u32 total_granted_power,
					  size_t num_actors, u32 power_range, u32 max_allocatable_power,
					  int current_temp, s32 delta_temp)
#endif
{
	const long long args[] = { tz->id, total_req_power, total_granted_power, power_range,
				   current_temp, delta_temp };

	record("thermal_power_allocator", tz->type, ARRAY_SIZE(args), args);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	kshim_record_raw(thermal_power_allocator, probe_thermal_power_allocator, tz, total_req_power,
			 total_granted_power, num_actors, power_range, max_allocatable_power, current_temp,
			 delta_temp);
#else
	kshim_record_raw(thermal_power_allocator, probe_thermal_power_allocator, tz, req_power,
			 total_req_power, granted_power, total_granted_power, num_actors, power_range,
			 max_allocatable_power, current_temp, delta_temp);
#endif
}

static void probe_cpu_frequency_limits(void *data, struct cpufreq_policy *policy)
{
	const long long args[] = { policy->min, policy->max, policy->cpu };

	record("cpu_frequency_limits", NULL, ARRAY_SIZE(args), args);
	kshim_record_raw(cpu_frequency_limits, probe_cpu_frequency_limits, policy);
}

int kshim_thermal_trace_attach(void)
{
	kshim_raw_event_add(&raw_thermal_temperature);
	kshim_raw_event_add(&raw_cdev_update);
	kshim_raw_event_add(&raw_thermal_zone_trip);
	kshim_raw_event_add(&raw_thermal_power_allocator);
	kshim_raw_event_add(&raw_cpu_frequency_limits);
	return register_trace_thermal_temperature(probe_thermal_temperature, NULL) ?:
	       register_trace_cdev_update(probe_cdev_update, NULL) ?:
	       register_trace_thermal_zone_trip(probe_thermal_zone_trip, NULL) ?:
	       register_trace_thermal_power_allocator(probe_thermal_power_allocator, NULL) ?:
	       register_trace_cpu_frequency_limits(probe_cpu_frequency_limits, NULL);
}
