// SPDX-License-Identifier: GPL-2.0
/*
 * Export unit for kernel/sched/build_policy.c, compiled unchanged: idle.c,
 * rt.c, cpudeadline.c, pelt.c, cputime.c and deadline.c, as the kernel
 * builds them.
 */
#include "build_policy.c"

/*
 * idle.c's choice, on a pass of do_idle()'s loop without a cpuidle driver
 * (cpuidle_not_available()), whether the CPU stops its tick: stop_tick is
 * do_idle()'s got_tick (a tick arrived while idle on the previous pass).
 */
void kshim_idle_call_stop_or_retain_tick(bool stop_tick);
void kshim_idle_call_stop_or_retain_tick(bool stop_tick)
{
	idle_call_stop_or_retain_tick(stop_tick);
}
