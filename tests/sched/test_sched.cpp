// SPDX-License-Identifier: GPL-2.0
//
// The scheduler compiled from the tree (core.c, fair.c, topology.c,
// cpufreq_schedutil.c, ...) deciding on real boards: EAS wake-up placement,
// the non-EAS path, the root domain's overutilized state, load balancing,
// schedutil's frequency requests, and the kernel's own command line, sysctl
// and feature switches. Kernel state lives once per process: CTest runs
// each case in a process of its own (tests/sched/CMakeLists.txt), each from
// a freshly booted kernel.
//
// Tasks get a known PELT signal through kshim_task_set_util() while they
// sleep; everything after that (placement, balancing, frequency) is the
// kernel's.
#include "kernel_support.h"
#include "print_values.h"
#include "support.h"
#include "tree_features.h"

#include "kernel-shim/kernel.h"

#include <kshim/api.h>
#include <kshim/sched.h>
#include "sched_driver.h"

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <map>
#include <set>

using namespace sh;

namespace {

constexpr unsigned long long ms = 1'000'000;
const unsigned long long tick = kshim_tick_nsec();	// CONFIG_HZ of the flavour
constexpr unsigned long long all_cpus = 0xff;

// A booted board and simulated time: every CPU ticks, and the CPUs settle
// (IPIs, softirqs, reschedules) after each kernel entry. Cases start after
// one idle second, when what boot left (init's blocked utilization on
// CPU 0) has decayed through the kernel's own periodic updates.
class Board {
public:
	explicit Board(const std::string &name, kshim::BootOptions options = {},
		       std::initializer_list<std::filesystem::path> overlays = {})
		: kernel(kshim::boot(test::load_board(name, overlays), options)), now(kshim::boot_clock_ns)
	{
		run_for(1000 * ms);
	}

	void advance_to(unsigned long long t)
	{
		now = t;
		kshim_set_now(now);
	}

	// Every CPU ticks every 4 ms for `duration`.
	void run_for(unsigned long long duration)
	{
		const unsigned long long end = now + duration;
		while (now + tick <= end) {
			advance_to(now + tick);
			for (unsigned cpu = 0; cpu < kernel.cpus.size(); cpu++)
				kshim_cpu_tick(static_cast<int>(cpu));
			kshim_settle();
		}
	}

	int fork(const char *name, unsigned long long cpus = all_cpus)
	{
		const kshim_cpuset set{{cpus}};
		const int pid = kshim_task_fork(name, 0, &set);
		BOOST_REQUIRE_GT(pid, 0);
		kshim_settle();
		return pid;
	}

	void set_affinity(int pid, unsigned long long cpus)
	{
		const kshim_cpuset set{{cpus}};
		BOOST_REQUIRE_EQUAL(kshim_task_set_affinity(pid, &set), 0);
		kshim_settle();
	}

	struct kshim_task_info task(int pid) const
	{
		struct kshim_task_info info{};
		BOOST_REQUIRE_EQUAL(kshim_task_info(pid, &info), 0);
		return info;
	}

	struct kshim_cpu_info cpu(int cpu) const
	{
		struct kshim_cpu_info info{};
		kshim_cpu_info(cpu, &info);
		return info;
	}

	// A task that last ran on `cpu` and now sleeps with utilization `util`:
	// forked pinned there, run, blocked, unpinned.
	int sleeper_last_on(int cpu, unsigned long util)
	{
		const int pid = sleeper_last_on(cpu);
		BOOST_REQUIRE_EQUAL(kshim_task_set_util(pid, util), 0);
		return pid;
	}

	// The same with the utilization fork gave it, to be set later.
	int sleeper_last_on(int cpu)
	{
		const int pid = fork("sleeper", 1ULL << cpu);
		BOOST_REQUIRE(task(pid).running);
		BOOST_REQUIRE_EQUAL(task(pid).cpu, cpu);
		BOOST_REQUIRE_EQUAL(kshim_task_sleep(pid), 0);
		kshim_settle();
		set_affinity(pid, all_cpus);
		return pid;
	}

	// A task pinned to `cpu` that runs for `duration`, then sleeps: the CPU
	// is left idle with the task's blocked utilization.
	void run_then_idle(int cpu, unsigned long long duration)
	{
		const int pid = fork("runner", 1ULL << cpu);
		run_for(duration);
		BOOST_REQUIRE_EQUAL(kshim_task_sleep(pid), 0);
		kshim_settle();
	}

	// try_to_wake_up() from CPU 0; returns the CPU the kernel chose.
	int wake(int pid)
	{
		BOOST_REQUIRE_EQUAL(kshim_task_wake(pid, 0), 1);
		kshim_settle();
		return task(pid).cpu;
	}

	kshim::Kernel kernel;
	unsigned long long now;
};

std::set<int> cpus_in(unsigned first, unsigned last)
{
	std::set<int> cpus;
	for (unsigned c = first; c <= last; c++)
		cpus.insert(static_cast<int>(c));
	return cpus;
}

const std::set<int> little = cpus_in(0, 3), big = cpus_in(4, 7);

void no_kernel_warnings()
{
	for (const auto &w : kshim::kernel_warnings())
		BOOST_ERROR("kernel WARNING at " << w.file << ":" << w.line << " (" << w.function << "): " << w.text);
}

// The EAS cases: a small task whose previous CPU is big goes LITTLE, a big
// task whose previous CPU is LITTLE goes big.
void small_task_goes_little(const std::string &board)
{
	Board b(board);
	BOOST_REQUIRE(b.kernel.eas);
	const int pid = b.sleeper_last_on(4, 100);
	BOOST_TEST(!kshim_rd_overutilized(0));
	// The static functions, reached through fair.c's export unit, agree
	// with the wake-up that follows.
	const int feec = kshim_feec(pid, 4, 0);
	BOOST_TEST(little.count(feec) == 1u, "find_energy_efficient_cpu() returned " << feec);
	BOOST_TEST(kshim_select_task_rq_fair(pid, 4, 0) == feec);
	const int cpu = b.wake(pid);
	BOOST_TEST(cpu == feec);
	BOOST_TEST(little.count(cpu) == 1u, "find_energy_efficient_cpu() chose CPU" << cpu);
	no_kernel_warnings();
}

// Both trees want 20% headroom (fits_capacity()): util 700 fits only a big
// CPU and find_energy_efficient_cpu() puts it there at wake-up. Util 900
// fits no CPU at all (900 * 1.25 > 1024), so feec() keeps the previous
// LITTLE CPU; the task is then a misfit, and load balancing moves it to a
// big CPU once it runs.
//
// Both sleepers are forked before either gets its utilization: a load
// balance at the top level in between would see a LITTLE CPU at 700 or 900
// and set overutilized, and feec() would not decide. 6.12 runs one at each
// fork here (CPU0's newly idle balance): its fair server counts in
// rq->nr_running (deadline.c's inc_dl_tasks()), so a lone fair task sets
// rd->overloaded.
void big_task_goes_big(const std::string &board)
{
	Board b(board);
	BOOST_REQUIRE(b.kernel.eas);
	const int fits_big = b.sleeper_last_on(1);
	const int fits_none = b.sleeper_last_on(2);
	BOOST_REQUIRE_EQUAL(kshim_task_set_util(fits_big, 700), 0);
	BOOST_REQUIRE_EQUAL(kshim_task_set_util(fits_none, 900), 0);

	BOOST_TEST(!kshim_rd_overutilized(0));
	const int cpu = b.wake(fits_big);
	BOOST_TEST(big.count(cpu) == 1u, "feec() chose CPU" << cpu << " for util 700");

	BOOST_TEST(!kshim_rd_overutilized(0));
	BOOST_TEST(b.wake(fits_none) == 2);
	b.run_for(100 * ms);
	BOOST_TEST(big.count(b.task(fits_none).cpu) == 1u,
		   "util 900 still on CPU" << b.task(fits_none).cpu << " after 100 ms");
	no_kernel_warnings();
}

// Without an energy model EAS is off; the same small task takes
// select_idle_sibling(): its previous CPU is idle and the task fits there,
// so it stays on the big CPU.
void without_em_takes_non_eas_path(const std::string &board)
{
	Board b(board, {}, {test::fixture("kernel/" + board + "-no-em.dtso")});
	BOOST_TEST(!b.kernel.eas);
	BOOST_TEST(b.kernel.eas_reason.find("no EM found for CPU0") != std::string::npos, b.kernel.eas_reason);
	BOOST_TEST(b.kernel.root_perf_domains.empty());
	const int pid = b.sleeper_last_on(4, 100);
	BOOST_TEST(kshim_feec(pid, 4, 0) == -1);	// no perf domains: feec() does not decide
	BOOST_TEST(b.wake(pid) == 4);
	no_kernel_warnings();
}

} // namespace

// The level above MC: "DIE", then "PKG" (topology.c's default_topology[];
// test::package_level_name()).
std::string package_level()
{
	return test::package_level_name();
}

BOOST_AUTO_TEST_SUITE(sched)

BOOST_AUTO_TEST_CASE(odroid_xu3_eas_on_with_perf_domains)
{
	Board b("odroid-xu3");
	BOOST_TEST(b.kernel.eas);
	BOOST_TEST(b.kernel.root_perf_domains.size() == 2u);
	// 32-bit arm (arch/arm/kernel/topology.c): MC per cluster, from the
	// MPIDR's Aff1, under DIE over both; the asymmetry is seen at DIE.
	for (const auto &cpu : b.kernel.cpus) {
		BOOST_TEST(cpu.governor == "schedutil");
		BOOST_REQUIRE_EQUAL(cpu.domains.size(), 2u);
		BOOST_TEST(cpu.domains[0].name == "MC");
		BOOST_TEST(cpu.domains[0].span == (cpu.id < 4 ? std::vector<unsigned>{0, 1, 2, 3}
							     : std::vector<unsigned>{4, 5, 6, 7}));
		const auto &top = cpu.domains.back();
		BOOST_TEST(top.name == package_level());
		BOOST_TEST(top.span.size() == 8u);
		BOOST_TEST(std::count(top.flags.begin(), top.flags.end(), "SD_ASYM_CPUCAPACITY") == 1);
	}
	no_kernel_warnings();
}

// hi3660 has per-cluster L2 caches: MC per cluster, DIE over both, and the
// asymmetry flag only at DIE.
BOOST_AUTO_TEST_CASE(hikey960_domains_mc_and_die)
{
	Board b("hikey960");
	BOOST_TEST(b.kernel.eas);
	const auto &domains = b.kernel.cpus[0].domains;
	BOOST_REQUIRE_EQUAL(domains.size(), 2u);
	BOOST_TEST(domains[0].name == "MC");
	BOOST_TEST(domains[0].span == (std::vector<unsigned>{0, 1, 2, 3}));
	// 6.10 renamed SD_SHARE_PKG_RESOURCES to SD_SHARE_LLC
	BOOST_TEST(std::count(domains[0].flags.begin(), domains[0].flags.end(), test::llc_flag_name()) == 1);
	BOOST_TEST(domains[1].name == package_level());
	BOOST_TEST(domains[1].span.size() == 8u);
	BOOST_TEST(std::count(domains[1].flags.begin(), domains[1].flags.end(), "SD_ASYM_CPUCAPACITY") == 1);
	no_kernel_warnings();
}

BOOST_AUTO_TEST_CASE(odroid_xu3_small_task_goes_little) { small_task_goes_little("odroid-xu3"); }
BOOST_AUTO_TEST_CASE(hikey960_small_task_goes_little) { small_task_goes_little("hikey960"); }
BOOST_AUTO_TEST_CASE(odroid_xu3_big_task_goes_big) { big_task_goes_big("odroid-xu3"); }
BOOST_AUTO_TEST_CASE(hikey960_big_task_goes_big) { big_task_goes_big("hikey960"); }
BOOST_AUTO_TEST_CASE(odroid_xu3_without_em_takes_non_eas_path) { without_em_takes_non_eas_path("odroid-xu3"); }
BOOST_AUTO_TEST_CASE(hikey960_without_em_takes_non_eas_path) { without_em_takes_non_eas_path("hikey960"); }

// cpu_startup_entry() gives every idle task PF_IDLE, so is_idle_task()
// holds on an idle CPU and update_rq_clock_pelt() keeps its PELT clock in
// step with its task clock (_update_idle_rq_clock_pelt()), including a CPU
// that ran a task and went idle again.
BOOST_AUTO_TEST_CASE(hikey960_idle_cpus_pelt_clock_is_task_clock)
{
	Board b("hikey960");
	b.run_then_idle(5, 100 * ms);
	b.run_for(2 * tick);
	for (unsigned cpu = 0; cpu < b.kernel.cpus.size(); cpu++) {
		const auto info = b.cpu(static_cast<int>(cpu));
		BOOST_REQUIRE_EQUAL(info.curr_pid, 0);
		BOOST_TEST(info.clock_pelt == info.clock_task,
			   "CPU" << cpu << ": clock_pelt lags clock_task by " << info.clock_task - info.clock_pelt << " ns");
	}
	no_kernel_warnings();
}

// A CPU left idle: its blocked utilization is kept up to date by the
// kernel's periodic updates and decays with PELT's half-life of 32 periods
// of 1024 us (y^32 = 0.5), measured on the PELT clock, which on an idle
// CPU is the task clock.
BOOST_AUTO_TEST_CASE(hikey960_idle_cpu_utilization_decays_with_pelt_half_life)
{
	Board b("hikey960");
	b.run_then_idle(5, 200 * ms);
	b.run_for(tick);
	const auto before = b.cpu(5);
	b.run_for(64 * ms);
	const auto after = b.cpu(5);
	const double periods = static_cast<double>(after.cfs_last_update - before.cfs_last_update) / 1024.0 / 1024.0;
	const double expected = static_cast<double>(before.cfs_util_avg) * std::pow(0.5, periods / 32.0);
	BOOST_TEST_MESSAGE("CPU5 util " << before.cfs_util_avg << " -> " << after.cfs_util_avg << " over "
					<< periods << " PELT periods (expected " << expected << "); last update "
					<< (after.clock_task - after.cfs_last_update) / 1000 << " us before clock_task");
	BOOST_TEST(before.cfs_util_avg > 300u);
	// 64 ms of wall time is 61 PELT periods of the idle CPU's own clock,
	// and the decayed value is PELT's (integer decay: within 2).
	BOOST_TEST(periods > 60.0);
	BOOST_TEST(std::abs(static_cast<double>(after.cfs_util_avg) - expected) <= 2.0);
	BOOST_TEST(after.clock_task - after.cfs_last_update <= tick);
	no_kernel_warnings();
}

// do_idle() without a cpuidle driver (CONFIG_CPU_IDLE off, as on the
// Exynos5422, which has none): the first pass of the idle loop keeps the
// tick; an interrupt that is not the tick leaves it kept; after a tick
// arrives while idle, the next pass stops it (tick_nohz_idle_got_tick()).
BOOST_AUTO_TEST_CASE(odroid_xu3_idle_loop_stops_the_tick_after_an_idle_tick)
{
	Board b("odroid-xu3");
	const int cpu = 3;
	BOOST_REQUIRE_EQUAL(b.cpu(cpu).curr_pid, 0);
	kshim_cpu_idle(cpu, 1, KSHIM_IDLE_TICK_KERNEL);
	kshim_settle();
	BOOST_TEST(!kshim_tick_stopped(cpu));
	kshim_cpu_timers(cpu);	// an interrupt, not the tick
	kshim_settle();
	BOOST_TEST(!kshim_tick_stopped(cpu));
	b.advance_to(b.now + tick);
	kshim_cpu_tick(cpu);
	kshim_settle();
	BOOST_TEST(kshim_tick_stopped(cpu));
	// leaving idle restarts it
	kshim_cpu_idle(cpu, 0, KSHIM_IDLE_TICK_KERNEL);
	BOOST_TEST(!kshim_tick_stopped(cpu));
	no_kernel_warnings();
}

std::vector<kshim_idle_state> idle_states(int cpu)
{
	std::vector<kshim_idle_state> states(KSHIM_MAX_IDLE_STATES);
	const int n = kshim_cpu_idle_states(cpu, states.data(), static_cast<int>(states.size()));
	BOOST_REQUIRE(n >= 0);
	states.resize(static_cast<std::size_t>(n));
	return states;
}

// hikey960's CPUs have PSCI idle states (hi3660.dtsi). arm64 defconfig's
// driver, cpuidle-psci.c, registers one driver per CPU: WFI, then the DT's
// arm,idle-state nodes as dt_idle_states.c reads them (exit latency =
// entry-latency-us + exit-latency-us, target residency = min-residency-us);
// menu, the default governor, chooses among them: CPUs left in the idle
// loop, ticked every 4 ms, sleep in the deep states, not only in WFI.
BOOST_AUTO_TEST_CASE(hikey960_cpuidle_psci_states_from_the_dt)
{
	Board b("hikey960");
	BOOST_TEST(kshim_cpuidle_governor() == std::string("menu"));
	for (int cpu = 0; cpu < 8; cpu++) {
		BOOST_REQUIRE_EQUAL(b.cpu(cpu).curr_pid, 0);
		kshim_cpu_idle(cpu, 1, KSHIM_IDLE_TICK_KERNEL);
	}
	kshim_settle();
	b.run_for(200 * ms);
	struct Expected {
		const char *name;
		unsigned long long exit_latency_us, target_residency_us;
	};
	const Expected little[] = {{"WFI", 1, 1}, {"cpu-sleep-0", 400 + 650, 1500}, {"cluster-sleep-0", 500 + 1600, 3500}};
	const Expected big[] = {{"WFI", 1, 1}, {"cpu-sleep-1", 400 + 550, 1500}, {"cluster-sleep-1", 800 + 2900, 3500}};
	for (int cpu = 0; cpu < 8; cpu++) {
		const auto states = idle_states(cpu);
		const auto &expected = cpu < 4 ? little : big;
		BOOST_REQUIRE_EQUAL(states.size(), 3u);
		unsigned long long deep_entries = 0;
		for (std::size_t i = 0; i < states.size(); i++) {
			BOOST_TEST(states[i].name == std::string(expected[i].name));
			BOOST_TEST(states[i].exit_latency_ns == expected[i].exit_latency_us * 1000);
			BOOST_TEST(states[i].target_residency_ns == expected[i].target_residency_us * 1000);
			if (i > 0)
				deep_entries += states[i].usage;
		}
		BOOST_TEST(deep_entries > 0u, "CPU" << cpu << " never entered a PSCI idle state");
	}
	no_kernel_warnings();
}

// cpuidle.off=1, cpuidle.c's own module parameter, keeps every CPU on idle.c's
// default path: no driver registers.
BOOST_AUTO_TEST_CASE(hikey960_cpuidle_off_leaves_the_default_idle_path)
{
	kshim::BootOptions options;
	options.cmdline = "cpuidle.off=1";
	Board b("hikey960", options);
	for (int cpu = 0; cpu < 8; cpu++)
		BOOST_TEST(idle_states(cpu).empty());
	no_kernel_warnings();
}

// 6.1: a CPU is overutilized when its CFS utilization does not fit in 80%
// of its capacity (cpu_overutilized()); the root domain's flag is raised on
// enqueue and recomputed by load balancing at the root level.
BOOST_AUTO_TEST_CASE(overutilized_flips_as_6_1_defines_it)
{
	Board b("odroid-xu3");
	const int pid = b.sleeper_last_on(0, 900);
	b.set_affinity(pid, 1ULL << 0);	// a LITTLE CPU: 900 > 0.8 * 377
	BOOST_TEST(!kshim_rd_overutilized(0));
	BOOST_REQUIRE_EQUAL(kshim_task_wake(pid, 0), 1);
	kshim_settle();
	BOOST_TEST(b.task(pid).cpu == 0);
	BOOST_TEST(kshim_rd_overutilized(0));

	BOOST_REQUIRE_EQUAL(kshim_task_sleep(pid), 0);
	kshim_settle();
	b.run_for(300 * ms);	// the blocked utilization decays under 0.8 * 377
	BOOST_TEST(b.cpu(0).cfs_util_avg < 301u);
	BOOST_TEST(!kshim_rd_overutilized(0));
	no_kernel_warnings();
}

// Wake-up preemption, which the trees decide by different algorithms. A
// task that slept 100 ms wakes on a CPU where a CPU-bound task has run
// alone for 100 ms, 1 ms after a tick.
// - 6.1 (CFS): the sleeper is placed half a latency period (GENTLE_FAIR_
//   SLEEPERS: 12 ms on 8 CPUs) behind min_vruntime, more than
//   wakeup_gran() (4 ms) behind the running task: check_preempt_wakeup()
//   preempts at once.
// - 6.12 (EEVDF): the sleeper is placed at the average vruntime (its lag is
//   0: it last ran alone) with a deadline one 3 ms slice later; the running
//   task's slice, renewed at the tick, ends 2 ms from now, earlier:
//   check_preempt_wakeup_fair()'s pick_eevdf() keeps it, and the next tick
//   (update_deadline()) ends its slice. (Woken at the tick itself, both
//   deadlines tie and the woken task wins: pick_eevdf() prefers the tree's
//   leftmost to an equal current.)
BOOST_AUTO_TEST_CASE(hikey960_wakeup_preemption_by_tree)
{
	Board b("hikey960");
	const int sleeper = b.sleeper_last_on(1);
	b.set_affinity(sleeper, 1ULL << 1);
	const int hog = b.fork("hog", 1ULL << 1);
	BOOST_REQUIRE(b.task(hog).running);
	b.run_for(100 * ms);
	b.advance_to(b.now + 1 * ms);
	BOOST_REQUIRE_EQUAL(kshim_task_wake(sleeper, 0), 1);
	kshim_settle();
	BOOST_TEST(b.task(sleeper).cpu == 1);
	if (!test::eevdf()) {
		BOOST_TEST(b.task(sleeper).running, "CFS: the woken task preempts at once");
	} else {
		BOOST_TEST(!b.task(sleeper).running, "EEVDF: the running task keeps its slice");
		BOOST_TEST(b.task(hog).running);
		b.run_for(tick);
		BOOST_TEST(b.task(sleeper).running, "EEVDF: the woken task runs at the next tick");
	}
	no_kernel_warnings();
}

// Eight CPU-bound tasks forked on CPU 0 and kept there, then set free:
// the kernel's load balancing (periodic at the tick, newidle, active
// balancing through the stopper) leaves one per CPU.
void eight_tasks_spread(const std::string &board)
{
	Board b(board);
	std::vector<int> pids;
	for (int i = 0; i < 8; i++)
		pids.push_back(b.fork("hog", 1ULL << 0));
	BOOST_TEST(b.cpu(0).cfs_nr_running == 8u);
	for (int pid : pids)
		b.set_affinity(pid, all_cpus);
	b.run_for(2000 * ms);
	std::set<int> used;
	for (int pid : pids)
		used.insert(b.task(pid).cpu);
	BOOST_TEST(used.size() == 8u);
	for (int cpu = 0; cpu < 8; cpu++)
		BOOST_TEST(b.cpu(cpu).cfs_nr_running == 1u, "CPU" << cpu);

	// The kernel's own tracepoints saw it happen: each hog's last
	// sched_migrate_task names the CPU it ended on.
	std::map<std::string, int> counts;
	std::map<long long, long long> last_dest;
	for (const auto &ev : kshim::trace_events()) {
		counts[ev.name]++;
		if (ev.name == "sched_migrate_task")
			last_dest[ev.args[0]] = ev.args[3];
	}
	BOOST_TEST(counts["sched_wakeup_new"] >= 8);
	BOOST_TEST(counts["sched_switch"] > 0);
	BOOST_TEST(counts["cpu_frequency"] > 0);
	for (int pid : pids)
		if (last_dest.count(pid))
			BOOST_TEST(last_dest[pid] == b.task(pid).cpu, "pid " << pid);
	BOOST_TEST(last_dest.size() >= 7u);	// all but the one left on CPU 0 moved
	no_kernel_warnings();
}

BOOST_AUTO_TEST_CASE(odroid_xu3_eight_tasks_spread) { eight_tasks_spread("odroid-xu3"); }
BOOST_AUTO_TEST_CASE(hikey960_eight_tasks_spread) { eight_tasks_spread("hikey960"); }

// 6.1's cpufreq_driver_resolve_freq(): the lowest *efficient* frequency at
// or above the request (CPUFREQ_RELATION_LE, with the OPPs the energy
// model marks inefficient skipped, em_cpufreq_update_efficiencies()).
unsigned lowest_efficient_at_or_above(const kshim::PerfDomain &pd, double khz)
{
	for (const auto &state : pd.states)
		if (!state.inefficient && static_cast<double>(state.frequency_khz) >= khz)
			return static_cast<unsigned>(state.frequency_khz);
	return static_cast<unsigned>(pd.states.back().frequency_khz);
}

// schedutil: next_freq = 1.25 * util / max_capacity * max_freq, resolved as
// 6.1's cpufreq core resolves it (above); util is the CPU's CFS utilization
// with util_est (the policy's busiest CPU). The task runs on CPU4, the
// first of its policy to tick: a shared policy takes the request of a tick
// round at the first CPU past the rate limit, with the others' utilization
// as of their last update, and ignores the rest while its kthread has the
// switch pending (work_in_progress). On 6.12, whose rate limit (1.5 x the
// transition latency, 210 us here) is shorter than a tick, that is every
// round's first CPU.
BOOST_AUTO_TEST_CASE(schedutil_requests_1_25_util_of_max_freq)
{
	Board b("odroid-xu3");
	const int pid = b.sleeper_last_on(4, 400);
	b.set_affinity(pid, 1ULL << 4);
	BOOST_REQUIRE_EQUAL(kshim_task_wake(pid, 0), 1);
	kshim_settle();
	b.run_for(12 * ms);	// past schedutil's 10 ms rate limit
	const auto cpu = b.cpu(4);
	const unsigned long util = std::max(cpu.cfs_util_avg, cpu.cfs_util_est);
	const double wanted_khz = 1.25 * static_cast<double>(util) / 1024.0 * 2000000.0;
	const unsigned expected = lowest_efficient_at_or_above(test::perf_domain_of(b.kernel, 4), wanted_khz);
	BOOST_TEST_MESSAGE("CPU4 util " << util << ": 1.25 * util gives " << wanted_khz << " kHz, efficient OPP "
					<< expected << " kHz; policy->cur " << kshim_cpufreq_cur(4));
	BOOST_TEST(util > 300u);
	BOOST_TEST(kshim_cpufreq_cur(4) == expected);
	// cpufreq-dt cannot switch from scheduler context: schedutil's slow
	// path (irq_work, then its sugov:4 SCHED_DEADLINE kthread) switched.
	BOOST_TEST(!kshim_cpufreq_fast_switch_enabled(4));
	BOOST_TEST(kshim_cpufreq_fast_switches(4) == 0u);
	BOOST_TEST(kshim_cpufreq_slow_switches(4) > 0u);
	// The switch reached frequency invariance (topology_set_freq_scale()),
	// and the busy CPU's PELT clock runs slower than its task clock
	// (update_rq_clock_pelt() scales by capacity and frequency).
	BOOST_TEST(kshim_cpu_freq_scale(4) == (static_cast<unsigned long>(expected) << 10) / 2000000u);
	BOOST_TEST(cpu.clock_pelt < cpu.clock_task);
	// The idle LITTLE cluster went down to its lowest efficient OPP: the
	// A7's 200 MHz costs more energy per instruction than 300 MHz (same
	// voltage), so the EM marks it inefficient and cpufreq skips it (from
	// 5.16, test::em_inefficient_opps(); before, to its lowest OPP).
	const auto &little_pd = test::perf_domain_of(b.kernel, 0);
	BOOST_TEST(little_pd.states.front().frequency_khz == 200000u);
	BOOST_TEST(little_pd.states.front().inefficient == test::em_inefficient_opps());
	BOOST_TEST(kshim_cpufreq_cur(0) == lowest_efficient_at_or_above(little_pd, 0));
	BOOST_TEST(kshim_cpufreq_cur(0) == (test::em_inefficient_opps() ? 300000u : 200000u));
	no_kernel_warnings();
}

// --sysctl kernel.sched_energy_aware=0: rebuild_sched_domains() through
// the sysctl's handler drops the perf domains, and the small task of
// small_task_goes_little() stays on its big CPU.
BOOST_AUTO_TEST_CASE(sysctl_energy_aware_off_changes_placement)
{
	kshim::BootOptions options;
	options.sysctls = {"kernel.sched_energy_aware=0"};
	Board b("odroid-xu3", options);
	BOOST_TEST(!b.kernel.eas);
	BOOST_TEST(b.kernel.eas_reason == "kernel.sched_energy_aware = 0");
	const int pid = b.sleeper_last_on(4, 100);
	BOOST_TEST(b.wake(pid) == 4);
	no_kernel_warnings();
}

// --feature UTIL_EST: a task that slept 300 ms has decayed util_avg but
// keeps its util_est; with UTIL_EST schedutil sizes the frequency by the
// estimate, without it by the decayed average.
unsigned freq_after_long_sleep(const kshim::BootOptions &options)
{
	Board b("odroid-xu3", options);
	const int pid = b.sleeper_last_on(5, 600);
	b.set_affinity(pid, 1ULL << 5);
	b.run_for(300 * ms);
	BOOST_REQUIRE_EQUAL(kshim_task_wake(pid, 0), 1);
	kshim_settle();
	b.run_for(tick);
	no_kernel_warnings();
	return kshim_cpufreq_cur(5);
}

BOOST_AUTO_TEST_CASE(feature_util_est_on_keeps_frequency)
{
	const unsigned khz = freq_after_long_sleep({});
	BOOST_TEST_MESSAGE("UTIL_EST on: " << khz << " kHz");
	BOOST_TEST(khz >= 1400000u);	// 1.25 * 600 / 1024 * 2 GHz = 1.46 GHz -> 1.5 GHz
}

BOOST_AUTO_TEST_CASE(feature_util_est_off_lowers_frequency)
{
	kshim::BootOptions options;
	options.features = {"UTIL_EST=off"};
	const unsigned khz = freq_after_long_sleep(options);
	BOOST_TEST_MESSAGE("UTIL_EST off: " << khz << " kHz");
	// The decayed average asks for less than the A15's lowest efficient
	// OPP (800 MHz: 200-700 MHz share its voltage and are inefficient).
	const auto kernel = kshim::snapshot();
	BOOST_TEST(khz == lowest_efficient_at_or_above(test::perf_domain_of(kernel, 5), 0));
	BOOST_TEST(khz <= 800000u);
	BOOST_TEST(kshim_sched_feat_get("UTIL_EST") == 0);
}

// --cmdline sched_thermal_decay_shift=3: fair.c's __setup handler slows the
// thermal pressure signal's clock 8 times. 100 ms of constant pressure 512
// (big cluster capped at half its maximum) reaches ~450 at shift 0
// (512 * (1 - 0.5^(100/32))) and ~120 at shift 3 (the same over 12.5 ms).
unsigned long thermal_load_after_100ms(const kshim::BootOptions &options)
{
	Board b("odroid-xu3", options);
	const unsigned big_cpus[] = {4, 5, 6, 7};
	kshim::update_thermal_pressure(big_cpus, 1000000);
	b.run_for(100 * ms);
	no_kernel_warnings();
	return b.cpu(4).thermal_load_avg;
}

BOOST_AUTO_TEST_CASE(cmdline_default_thermal_decay)
{
	const unsigned long load = thermal_load_after_100ms({});
	BOOST_TEST_MESSAGE("thermal load, shift 0: " << load);
	BOOST_TEST(load > 400u);
	BOOST_TEST(load < 512u);
}

BOOST_AUTO_TEST_CASE(cmdline_thermal_decay_shift_3)
{
	kshim::BootOptions options;
	options.cmdline = "sched_thermal_decay_shift=3";
	const unsigned long load = thermal_load_after_100ms(options);
	BOOST_TEST_MESSAGE("thermal load, shift 3: " << load);
	if (!test::thermal_decay_shift()) {
		// 6.9 dropped the shift: fair.c's handler only says so
		BOOST_TEST(load > 400u);
		const auto &log = kshim::kernel_log();
		BOOST_TEST(std::ranges::any_of(log, [](const auto &l) {
			return l.text.find("Ignoring the deprecated sched_thermal_decay_shift= option") != std::string::npos;
		}));
		return;
	}
	BOOST_TEST(load > 60u);
	BOOST_TEST(load < 200u);
}

BOOST_AUTO_TEST_CASE(unknown_names_list_the_valid_ones)
{
	kshim::BootOptions options;
	options.cmdline = "sched_thermal_decay_shif=3";
	try {
		kshim::boot(test::load_board("odroid-xu3"), options);
		BOOST_FAIL("an unknown parameter booted");
	} catch (const kshim::BadParameter &e) {
		const std::string what = e.what();
		BOOST_TEST(what.find("sched_thermal_decay_shif=3") != std::string::npos, what);
		BOOST_TEST(what.find("sched_thermal_decay_shift=") != std::string::npos, what);
	}
}

// A WARN_ON in upstream code is recorded with the kernel's function, file
// and line (and makes a sched-harness run exit with status 3).
BOOST_AUTO_TEST_CASE(warn_in_core_c_names_function_file_and_line)
{
	Board b("odroid-xu3");
	const int pid = b.sleeper_last_on(4, 100);
	BOOST_REQUIRE(kshim::kernel_warnings().empty());
	BOOST_REQUIRE_EQUAL(sched_driver_set_task_cpu(kshim_find_task(pid), 5), 0);
	const auto &warnings = kshim::kernel_warnings();
	BOOST_REQUIRE_EQUAL(warnings.size(), 1u);
	BOOST_TEST(warnings[0].function == "set_task_cpu");
	BOOST_TEST(warnings[0].file.ends_with("kernel/sched/core.c"), warnings[0].file);
	BOOST_TEST(warnings[0].line > 0);
}

BOOST_AUTO_TEST_SUITE_END()
