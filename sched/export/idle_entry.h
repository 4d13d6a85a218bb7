/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The harness's entry into kernel/sched/idle.c, included after it by its
 * export unit (policy_export.c, which includes build_policy.c; before 5.18
 * idle_export.c, which includes idle.c).
 *
 * One pass of do_idle()'s loop after arch_cpu_idle_enter(): idle.c's
 * cpuidle_idle_call(got_tick), which the harness runs on the CPU's idle
 * stack (kernel-shim/glue/cpu.c) because it waits for an interrupt inside.
 */
void kshim_cpuidle_idle_call(bool got_tick);
void kshim_cpuidle_idle_call(bool got_tick)
{
	cpuidle_idle_call(got_tick);
}
