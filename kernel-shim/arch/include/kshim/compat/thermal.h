/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A thermal zone as a sensor driver and the harness see it:
 *  - its sensor registers the zone whole, devm_thermal_of_zone_register()
 *    with zone ops taking the zone, from 6.1 (commit 3fd6d6e2b4e8,
 *    "thermal/of: Rework the thermal device tree initialization"); before,
 *    thermal_core.c's init parsed every zone of the DT and the sensor
 *    attached to its zone with devm_thermal_zone_of_sensor_register(),
 *    whose thermal_zone_of_device_ops take the driver's data:
 *	KSHIM_THERMAL_SENSOR_OPS(name, read_temp, set_window)	the ops, of
 *		int get_temp(struct kshim_sensor *, int *) and
 *		int set_trips(struct kshim_sensor *, int, int), the glue's
 *	kshim_thermal_sensor_register(dev, id, sensor, ops)
 *  - its trip count is num_trips (trips before: in 6.1, not in 5.10.262;
 *    bracketed), its delays in jiffies (in ms before; bracketed likewise):
 *	kshim_tz_num_trips(tz), kshim_tz_passive_delay_ms(tz),
 *	kshim_tz_polling_delay_ms(tz)
 */
#ifndef _KSHIM_COMPAT_THERMAL_H
#define _KSHIM_COMPAT_THERMAL_H

#include <kshim/kernel-version.h>
#include <linux/jiffies.h>
#include <linux/thermal.h>

struct kshim_sensor;

#if KSHIM_KERNEL_GE(6, 1, 0)
#define KSHIM_THERMAL_SENSOR_OPS(name, read_temp, set_window)				\
static int name##_get_temp(struct thermal_zone_device *tz, int *temp)			\
{											\
	return read_temp(tz->devdata, temp);						\
}											\
static int name##_set_trips(struct thermal_zone_device *tz, int low, int high)		\
{											\
	return set_window(tz->devdata, low, high);					\
}											\
static const struct thermal_zone_device_ops name = {					\
	.get_temp = name##_get_temp,							\
	.set_trips = name##_set_trips,							\
}
#define kshim_thermal_sensor_register(dev, id, sensor, ops) \
	devm_thermal_of_zone_register(dev, id, sensor, &(ops))
#define kshim_tz_num_trips(tz)		((tz)->num_trips)
#define kshim_tz_passive_delay_ms(tz)	jiffies_to_msecs((tz)->passive_delay_jiffies)
#define kshim_tz_polling_delay_ms(tz)	jiffies_to_msecs((tz)->polling_delay_jiffies)
#else
#define KSHIM_THERMAL_SENSOR_OPS(name, read_temp, set_window)				\
static int name##_get_temp(void *data, int *temp)					\
{											\
	return read_temp(data, temp);							\
}											\
static int name##_set_trips(void *data, int low, int high)				\
{											\
	return set_window(data, low, high);						\
}											\
static const struct thermal_zone_of_device_ops name = {				\
	.get_temp = name##_get_temp,							\
	.set_trips = name##_set_trips,							\
}
#define kshim_thermal_sensor_register(dev, id, sensor, ops) \
	devm_thermal_zone_of_sensor_register(dev, id, sensor, &(ops))
#define kshim_tz_num_trips(tz)		((tz)->trips)
#define kshim_tz_passive_delay_ms(tz)	((tz)->passive_delay)
#define kshim_tz_polling_delay_ms(tz)	((tz)->polling_delay)
#endif

#endif
