/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capacity, frequency and thermal-pressure scaling come from
 * drivers/base/arch_topology.c, as on arm64: without these redirections
 * asm-generic/topology.h leaves every CPU at SCHED_CAPACITY_SCALE and
 * silently ignores asymmetry, the energy model and thermal pressure.
 */
#ifndef __ASM_SHIM_TOPOLOGY_H
#define __ASM_SHIM_TOPOLOGY_H

#include <linux/arch_topology.h>

void update_freq_counters_refs(void);

#define arch_scale_freq_capacity	topology_get_freq_scale
/* cpufreq's frequency changes reach invariance here; without it
 * linux/cpufreq.h's empty inline would drop them silently. */
#define arch_set_freq_scale		topology_set_freq_scale
#define arch_scale_freq_invariant	topology_scale_freq_invariant
#define arch_scale_cpu_capacity		topology_get_cpu_scale
#define arch_update_cpu_topology	topology_update_cpu_topology
#include <linux/version.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
/* 6.8: the frequency capacities are measured against (capacity_freq_ref) */
#define arch_scale_freq_ref		topology_get_freq_ref
#endif
#include <kshim/kernel-version.h>
#if KSHIM_KERNEL_GE(6, 9, 0)
/* 6.9 renamed thermal pressure to hardware pressure. */
#define arch_scale_hw_pressure		topology_get_hw_pressure
#define arch_update_hw_pressure		topology_update_hw_pressure
#elif KSHIM_KERNEL_GE(5, 14, 0)
/* from 5.14, topology_update_thermal_pressure(): the capped frequency in,
 * the pressure computed in arch_topology.c */
#define arch_scale_thermal_pressure	topology_get_thermal_pressure
#define arch_update_thermal_pressure	topology_update_thermal_pressure
#else
/* before 5.14 cpufreq_cooling.c computes the pressure and sets it; without
 * this, sched/topology.h's empty inline drops it and it reads 0 */
#define arch_scale_thermal_pressure	topology_get_thermal_pressure
#define arch_set_thermal_pressure	topology_set_thermal_pressure
#endif

#include <asm-generic/topology.h>

#endif
