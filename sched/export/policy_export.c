// SPDX-License-Identifier: GPL-2.0
/*
 * Export unit for kernel/sched/build_policy.c, compiled unchanged: idle.c,
 * rt.c, cpudeadline.c, pelt.c, cputime.c and deadline.c, as the kernel
 * builds them.
 */
#include "build_policy.c"

/*
 * One pass of do_idle()'s loop after arch_cpu_idle_enter(): idle.c's
 * cpuidle_idle_call(got_tick), which the harness runs on the CPU's idle
 * stack (kernel-shim/glue/cpu.c) because it waits for an interrupt inside.
 */
void kshim_cpuidle_idle_call(bool got_tick);
void kshim_cpuidle_idle_call(bool got_tick)
{
	cpuidle_idle_call(got_tick);
}
