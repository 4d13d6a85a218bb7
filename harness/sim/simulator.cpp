// SPDX-License-Identifier: GPL-2.0
//
// The event loop. Time advances from one event to the next: a task's work
// running out, a workload timer, the tick, a kernel hrtimer, a frequency
// transition completing. Between two events every CPU runs its current task
// at a constant speed, so work, busy time and energy are exact integer sums.
// Every kernel entry is followed by kshim_settle() (IPIs, softirqs,
// reschedules), and the kernel's tracepoints tell the simulator what it
// decided: sched_switch says which task each CPU runs, cpu_frequency which
// OPP schedutil asked for, sched_overutilized when the root domain tips.
#include "harness/sim/simulator.h"

#include "harness/sim/board.h"
#include "harness/sim/cpu_times.h"
#include "harness/sim/executor.h"
#include "harness/sim/kernel_entry.h"
#include "harness/sim/metrics.h"
#include "support/symbols.h"

#include <kshim/api.h>
#include <kshim/cost.h>
#include <kshim/sched.h>

#include <algorithm>
#include <limits>
#include <array>
#include <bit>
#include <utility>
#include <cmath>
#include <cstring>
#include <deque>
#include <fmt/format.h>
#include <map>
#include <queue>
#include <random>
#include <stdexcept>
#include <unordered_map>

namespace sh::sim {

namespace {

// The cycles a basic block of kernel code takes on each CPU: `fastest` on
// the CPUs of the highest per-MHz performance the kernel gave (capacity /
// highest frequency: capacity-dmips-mhz, as the kernel normalised it),
// more in proportion on the others. 0: kernel code takes no time.
std::vector<double> kernel_cycles_per_block(const kshim::Kernel &kernel, double fastest)
{
	std::vector<double> per_mhz(kernel.cpus.size());
	for (std::size_t c = 0; c < per_mhz.size(); c++) {
		const auto khz = kshim_cpufreq_max(static_cast<int>(c));
		per_mhz[c] = static_cast<double>(kernel.cpus[c].capacity) / (khz ? static_cast<double>(khz) : 1.0);
	}
	const double best = per_mhz.empty() ? 0 : *std::max_element(per_mhz.begin(), per_mhz.end());
	std::vector<double> cycles(per_mhz.size(), fastest);
	for (std::size_t c = 0; c < per_mhz.size(); c++)
		if (per_mhz[c] > 0)
			cycles[c] = fastest * best / per_mhz[c];
	return cycles;
}

// The hottest a thermal zone of the model may get: beyond it, its
// parameters are wrong (docs/thermal.md).
constexpr double max_model_c = 1000;

int idle_tick_policy(IdleTick policy)
{
	switch (policy) {
	case IdleTick::retain:
		return KSHIM_IDLE_TICK_RETAIN;
	case IdleTick::stop:
		return KSHIM_IDLE_TICK_STOP;
	case IdleTick::kernel:
		break;
	}
	return KSHIM_IDLE_TICK_KERNEL;
}

// kernel_done: an idle CPU's kernel code ends (it was busy running it)
enum class Timed { frequency, wake, cap, kernel_done };

// Events at one instant, in a row: kernel code that keeps the CPUs busy
// without letting time pass (a livelock) is stopped and reported as a
// kernel fault. Far more than any real instant takes (4000 threads woken at
// once take some thousands).
constexpr std::uint64_t max_events_at_one_instant = 10'000'000;

bool is_hardware(Timed kind)
{
	return kind != Timed::wake;
}

// The tracepoints the simulator follows. Probes name events with string
// literals, so each name pointer is classified once.
enum class Tracepoint { sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task, cpu_frequency,
			sched_overutilized, thermal_pressure_update, thermal_temperature, cdev_update,
			cpu_frequency_limits, other };

Tracepoint classify(std::string_view name)
{
	static constexpr std::pair<std::string_view, Tracepoint> known[] = {
		{"sched_switch", Tracepoint::sched_switch},
		{"sched_wakeup", Tracepoint::sched_wakeup},
		{"sched_wakeup_new", Tracepoint::sched_wakeup_new},
		{"sched_migrate_task", Tracepoint::sched_migrate_task},
		{"cpu_frequency", Tracepoint::cpu_frequency},
		{"sched_overutilized", Tracepoint::sched_overutilized},
		{"thermal_pressure_update", Tracepoint::thermal_pressure_update},
		{"thermal_temperature", Tracepoint::thermal_temperature},
		{"cdev_update", Tracepoint::cdev_update},
		{"cpu_frequency_limits", Tracepoint::cpu_frequency_limits},
	};
	for (const auto &[n, t] : known)
		if (n == name)
			return t;
	return Tracepoint::other;
}

struct TimedEvent {
	std::int64_t time;
	std::uint64_t seq;
	Timed kind;
	int index;		// CPU (frequency) or thread (wake)
	unsigned khz;
	bool operator>(const TimedEvent &o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

// The cpuidle states of a CPU's driver with the kernel's usage counters.
std::vector<kshim_idle_state> idle_states_of(int cpu)
{
	std::vector<kshim_idle_state> states(KSHIM_MAX_IDLE_STATES);
	const int n = kshim_cpu_idle_states(cpu, states.data(), static_cast<int>(states.size()));
	states.resize(static_cast<std::size_t>(std::max(n, 0)));
	return states;
}

// What the loop knows of a CPU: the task the kernel runs on it, and the
// kernel's idle and timer state as last read. The hardware is the Board's.
struct Cpu {
	int curr = 0;			// pid the kernel switched to (0: idle)
	Thread *curr_thread = nullptr;	// the workload thread it runs, if any
	// When curr_thread's work runs out at the present speed; recomputed
	// after a switch, a frequency change or new work.
	std::optional<std::int64_t> done_at;
	// The work done since the speed or the work last changed (the anchor)
	// is floor(speed x (t - anchor)), accounted as the difference from
	// what was already counted: one rounding per stretch at one speed, so
	// the sums do not depend on how often they are read.
	std::int64_t work_anchor = 0;
	std::int64_t work_counted = 0;
	// The CPU's clock as last read (kshim_cpu_clock()): until then it ran
	// kernel code, and its thread's work waits.
	std::int64_t kernel_until = 0;
	// In an entry of a group of timer interrupts that a later one joined
	// (Simulator::admit_interrupt()): its work was accounted up to the
	// entry's instant and waits until the entry's end is read.
	bool in_entry = false;
	std::int64_t next_hrtimer = 0;		// earliest kernel hrtimer, 0: none (this instant's)
	// The kernel's state of the CPU as last read: refreshed only when the
	// kernel says it may have changed (kshim_take_touched_cpus()).
	std::int64_t hrtimer_cached = 0;
	std::int64_t waking_cached = 0;
	std::string curr_comm;		// kept for a trace only
	std::int64_t curr_since = 0;	// curr_thread's CPU time is accounted up to
	bool idle_reported = false;
	std::vector<kshim_idle_state> idle_at_start;	// the kernel's counters
	kshim_cost_counts cost_at_start{};		// kshim/cost.h's
	unsigned long long spin_at_start = 0;
};

class Simulator final : Executor::Host {
public:
	Simulator(const dts::Platform &platform, const kshim::Kernel &kernel, const workload::Workload &workload,
		  const Options &options, EventSink *sink)
		: platform_(platform), kernel_(kernel), workload_(workload), options_(options), sink_(sink)
	{
	}

	Result run();

private:
	const dts::Platform &platform_;
	const kshim::Kernel &kernel_;
	const workload::Workload &workload_;
	const Options &options_;
	EventSink *sink_;
	bool records_markers_ = false;	// the sink records trace_marker writes too

	std::int64_t start_ = 0, now_ = 0, end_ = 0;
	std::int64_t tick_ns_ = 0, next_tick_ = 0;
	std::vector<int> ticking_;		// the CPUs the tick at this instant reaches
	std::vector<int> interrupted_;		// the CPUs whose hrtimers fire at this instant
	std::optional<Board> board_;
	std::optional<RunMetrics> metrics_;
	std::optional<Executor> executor_;
	std::vector<Cpu> cpus_;
	std::array<std::pair<const char *, Tracepoint>, 64> tracepoints_{};

	// cached by the name's address (direct-mapped: a collision classifies
	// the name again)
	Tracepoint tracepoint_of(const char *name)
	{
		auto &slot = tracepoints_[(reinterpret_cast<std::uintptr_t>(name) >> 3) % tracepoints_.size()];
		if (slot.first != name)
			slot = {name, classify(name)};
		return slot.second;
	}
	std::priority_queue<TimedEvent, std::vector<TimedEvent>, std::greater<>> queue_;
	std::uint64_t seq_ = 0;
	unsigned long calibration_capacity_ = 0;
	bool overutilized_ = false;
	std::int64_t overutilized_since_ = 0;
	bool eas_enabled_ = false;
	unsigned long long ipis_taken_at_start_ = 0;
	unsigned long long entry_yields_at_start_ = 0;
	unsigned long long entries_joined_at_start_ = 0;

	Result result_;

	// What the loop waits for, per CPU, so that an event costs what the
	// CPUs it involves cost: the idle exits (as last read), the hrtimers
	// (as read when the next event was chosen), when the threads' work
	// runs out, and the earliest of the first two (an hrtimer of a CPU
	// still leaving an idle state fires once it is out).
	CpuTimes wake_times_, hrtimer_times_, done_times_, next_times_;
	CpuMarks stale_;	// their times to read again before the next event is chosen
	CpuMarks to_dispatch_;	// may have a thread with something to do
	CpuMarks switched_;	// a sched_switch since dispatch() last looked for CPUs gone idle
	std::vector<int> thread_cpu_;	// by thread: the CPU it is current on (-1: none)
	std::vector<std::size_t> due_;
	void refresh(std::size_t c);

	// The board's thermal model: one zone per sensor the kernel registered.
	// Zones that cover the same CPUs with the same parameters have the
	// same temperature: they share one RC network (computed once per power
	// change), which carries the trips of them all.
	struct ModelZone {
		std::string name;
		int sensor = -1;		// the kernel's sensor index
		std::size_t network = 0;	// in networks_
		std::size_t first_trip = 0, trips = 0;	// its trips among the network's
		std::size_t reads = 0, interrupts = 0;
	};
	std::vector<ModelZone> zones_;
	// (domain, zone): leakage that follows the zone's temperature
	std::vector<std::pair<std::size_t, std::size_t>> leakage_zones_;
	std::vector<thermal::Zone> networks_;
	std::vector<std::uint64_t> network_power_;	// the sum of its CPUs' power
	std::vector<std::uint64_t> cpu_power_;		// each CPU's, as last added in
	std::vector<std::vector<std::size_t>> networks_of_cpu_;
	std::vector<std::size_t> sensor_zone_;		// by sensor index
	thermal::Zone &network_of(const ModelZone &zone) { return networks_[zone.network]; }
	bool pressure_changed_ = false;	// a thermal_pressure_update since the metrics read it
	void setup_thermal();
	void setup_cooling();
	void check_sensors();
	void update_leakage_temperatures();
	void read_thermal_pressure();
	std::vector<unsigned> domain_cpus(std::size_t cpu) const
	{
		const int d = board_->cpu(cpu).domain;
		return d < 0 ? std::vector<unsigned>{static_cast<unsigned>(cpu)}
			     : platform_.frequency_domains[static_cast<std::size_t>(d)].cpus;
	}

	void setup();
	void on_event(const kshim_trace_event &ev);
	void advance_to(std::int64_t t);
	std::int64_t next_sample_ = std::numeric_limits<std::int64_t>::max();	// Result::series
	void sample_series(std::int64_t t);
	void account_work(std::size_t c);
	// The CPU's speed or its thread's work changes now: a new stretch
	// starts (what was done until now accounted first: account_work()).
	void rebase_work(std::size_t c)
	{
		cpus_[c].work_anchor = std::max(now_, cpus_[c].kernel_until);
		cpus_[c].work_counted = 0;
		cpus_[c].done_at.reset();
		stale_.mark(c);
	}
	std::int64_t next_event_time();
	// Most calls find no CPU touched: the walk stays out of line.
	void read_touched_cpus();
	[[gnu::noinline]] void read_kernel_state(const kshim_cpuset &cpus);
	void read_kernel_state(std::size_t c)	// the idle exit and hrtimer the loop waits for
	{
		// an entry of the running group is read where it ends, whatever
		// touched its CPU on the way (a report's read included)
		if (shim_entry_suspended(static_cast<int>(c)))
			return;
		if (cpus_[c].in_entry)
			read_entry_end(c);
		const auto waking = static_cast<std::int64_t>(kshim_cpu_waking_at(static_cast<int>(c)));
		cpus_[c].waking_cached = waking;
		cpus_[c].hrtimer_cached = static_cast<std::int64_t>(kshim_next_hrtimer(static_cast<int>(c)));
		// kernel code ran on it: its thread resumes once that is done
		if (const auto until = static_cast<std::int64_t>(kshim_cpu_clock(static_cast<int>(c)));
		    until > now_ && until > cpus_[c].kernel_until) {
			// the idle task's code keeps the CPU busy until it is done
			if (cpus_[c].curr == 0) {
				board_->set_busy(c, true, now_);
				push(Timed::kernel_done, until, static_cast<int>(c));
			}
			account_work(c);
			cpus_[c].kernel_until = until;
			if (until > cpus_[c].work_anchor)
				rebase_work(c);
		}
		wake_times_.set(c, waking ? waking : CpuTimes::none);
		stale_.mark(c);
		if (board_->tracks_idle_states()) [[unlikely]]
			read_idle_state(c);
	}
	void read_entry_end(std::size_t c);
	// For the board's power model: the idle state the CPU waits in.
	[[gnu::noinline]] void read_idle_state(std::size_t c)
	{
		board_->set_idle_state(c, kshim_cpu_idle_state_now(static_cast<int>(c)), now_);
	}
	std::optional<std::int64_t> completion_time(std::size_t cpu, const Thread &th) const;
	void settle_and_dispatch();
	void dispatch();
	std::uint64_t push(Timed kind, std::int64_t time, int index, unsigned khz = 0)
	{
		queue_.push({time, seq_, kind, index, khz});
		return seq_++;
	}
	// An hrtimer interrupt on a CPU that takes it now: the workload's
	// sleepers it expires wake.
	void expire_sleepers(std::size_t c);
	// A sleep's own interrupt whose sleep an earlier interrupt ended: no
	// event (the kernel reprogrammed the CPU's timer).
	bool is_stale_wake(const TimedEvent &ev) const
	{
		return ev.kind == Timed::wake &&
		       ev.seq != executor_->threads()[static_cast<std::size_t>(ev.index)].timer_seq;
	}
	// per CPU: the timer interrupts of several CPUs run at once
	// (kshim_cpus_tick()), each expiring its own
	std::vector<std::vector<std::size_t>> expiring_;
	Thread *thread_of(int pid) { return executor_->thread_of(pid); }
	void apply_cap(const Options::ThermalCap &cap);
	Result collect();

	// run()'s parts: the start, the loop and its instants, the end
	void start_board();
	void schedule_thermal_caps();
	void attach_to_kernel();
	void read_start_state();
	void start_series();
	void run_until_end();
	void run_instant();
	void run_hardware_events();
	void run_wake_timers();
	void run_kernel_hrtimers();
	void tick();
	void detach_from_kernel();
	void collect_kernel_cost(Result &r) const;
	void collect_kernel_profile(Result &r) const;
	// With kernel time, the timer interrupts of one instant run at once,
	// interleaved in clock order (docs/kernel-time.md); untimed, one after
	// another, each followed by what it woke, as the model before.
	bool concurrent_interrupts() const { return options_.kernel_cycles_per_block > 0; }
	void run_timer_interrupts();
	// A thread's timer due now, taken from the queue: the CPU whose
	// interrupt it is, or -1 while that CPU still leaves an idle state.
	int take_wake_timer(const TimedEvent &ev);
	std::uint64_t admit_interrupt(std::uint64_t before);
	void enter_group_cpus();
	std::uint64_t admitted_at_instant_ = 0;	// a kernel livelock's bound
	void collect_idle_states(Result &r) const;

	// Executor::Host
	std::int64_t now() const override { return now_; }
	std::int64_t start() const override { return start_; }
	int current_on(int cpu) const override { return cpus_[static_cast<std::size_t>(cpu)].curr; }
	bool wants_markers() const override { return sink_ != nullptr; }
	void marker(int cpu, std::string_view text) override
	{
		// written now by the task current there, at that CPU's clock
		const auto &c = cpus_[static_cast<std::size_t>(cpu)];
		const auto t = kshim_cpu_clock(cpu);
		sink_->marker(cpu, t, c.curr, c.curr_comm, text);
		if (records_markers_)
			sink_->record(cpu, t, kshim::marker_record(c.curr, text));
	}
	void work_changed(int cpu) override { rebase_work(static_cast<std::size_t>(cpu)); }
	void arm_wake(std::size_t thread, std::int64_t time) override
	{
		executor_->threads()[thread].timer_seq = push(Timed::wake, time, static_cast<int>(thread));
	}
	void thread_ready(const Thread &th) override
	{
		if (th.index < thread_cpu_.size() && thread_cpu_[th.index] >= 0)
			to_dispatch_.mark(static_cast<std::size_t>(thread_cpu_[th.index]));
	}
};

void Simulator::setup()
{
	const auto n = kernel_.cpus.size();
	// The board runs a CPU's work at the capacity the kernel gives it
	// (capacity x f / f_max): a CPU of capacity 0 would never finish any
	// work, and as the calibration CPU would make every run amount 0.
	for (std::size_t c = 0; c < n && c < platform_.cpus.size(); c++) {
		if (kernel_.cpus[c].capacity != 0)
			continue;
		const auto &cpu = platform_.cpus[c];
		throw dts::Error(fmt::format(
			"{}: CPU{} ({}) has capacity 0 in the kernel{}; the board runs a CPU's work at its capacity, "
			"so it would never run any: give it a positive capacity-dmips-mhz",
			platform_.source, c, cpu.node_path,
			cpu.capacity_dmips_mhz ? fmt::format(" (capacity-dmips-mhz = <{}>)", *cpu.capacity_dmips_mhz)
					       : std::string()));
	}
	if (!kshim_cost_counts_blocks() && (options_.kernel_cycles_per_block > 0 || options_.kernel_profile_functions))
		throw kshim::BadParameter("this build counts no kernel code (configured with -DSH_BLOCK_COUNTER=none, "
					    "the baseline of bench/scale.sh): run it with --kernel-time off and no "
					    "--kernel-profile");
	board_.emplace(platform_, kernel_, options_.idle_power_uw,
		       options_.power_model ? &*options_.power_model : nullptr);
	board_->set_kernel_cycles_per_block(kernel_cycles_per_block(kernel_, options_.kernel_cycles_per_block));
	kshim_ipi_latency_ns = static_cast<unsigned long long>(options_.ipi_latency_ns);
	kshim_irq_entry_ns = static_cast<unsigned long long>(options_.irq_entry_ns);
	kshim_wfi_exit_ns = static_cast<unsigned long long>(options_.wfi_exit_ns);
	metrics_.emplace(n);
	cpus_.resize(n);
	expiring_.resize(n);
	// SMT threads and a package budget change other CPUs' speed as one
	// turns busy: their tasks' work is counted up to then at the old speed
	if (board_->has_speed_model())
		board_->set_speed_observer([this](std::size_t c, bool before) {
			if (before)
				account_work(c);
			else
				rebase_work(c);
		});
	wake_times_ = hrtimer_times_ = done_times_ = next_times_ = CpuTimes(n);
	stale_ = to_dispatch_ = switched_ = CpuMarks(n);
	switched_.mark_all(n);
	for (std::size_t c = 0; c < n; c++) {
		struct kshim_cpu_info info {};
		kshim_cpu_info(static_cast<int>(c), &info);
		cpus_[c].curr = info.curr_pid;
	}
	if (options_.fork_cpu >= n)
		throw workload::Error(fmt::format("the fork CPU {} does not exist on this board (CPU0-{})",
						  options_.fork_cpu, n - 1));
	if (workload_.calibration_cpu >= n)
		throw workload::Error(fmt::format("{}: calibration CPU{} does not exist on this board ({} CPUs)",
						  workload_.name, workload_.calibration_cpu, n));
	calibration_capacity_ = board_->cpu(workload_.calibration_cpu).capacity;
	tick_ns_ = static_cast<std::int64_t>(kshim_tick_nsec());
	eas_enabled_ = kshim_sched_energy_enabled() != 0;
	overutilized_ = kshim_rd_overutilized(0) != 0;
}

void Simulator::on_event(const kshim_trace_event &ev)
{
	const auto tp = tracepoint_of(ev.name);
	const auto t = static_cast<std::int64_t>(ev.time_ns);
	auto &cpu = cpus_[static_cast<std::size_t>(ev.cpu)];
	if (sink_)
		sink_->event(ev, cpu.curr_comm, cpu.curr);

	if (tp == Tracepoint::sched_switch) {
		const int prev = static_cast<int>(ev.args[0]), next = static_cast<int>(ev.args[3]);
		auto *from = thread_of(prev), *to = thread_of(next);
		metrics_->on_switch(t, ev.cpu, prev, next, from ? static_cast<int>(from->index) : -1,
				    ev.args[2] == 0 || ev.args[2] == KSHIM_SWITCH_PREEMPTED,
				    to ? static_cast<int>(to->index) : -1);
		if (auto *running = cpu.curr_thread)
			metrics_->on_cpu_time(running->index, static_cast<std::size_t>(ev.cpu), now_ - cpu.curr_since);
		cpu.curr_since = now_;
		account_work(static_cast<std::size_t>(ev.cpu));
		board_->set_busy(static_cast<std::size_t>(ev.cpu), next != 0 || cpu.kernel_until > now_, now_);
		cpu.curr = next;
		switched_.mark(static_cast<std::size_t>(ev.cpu));
		to_dispatch_.mark(static_cast<std::size_t>(ev.cpu));
		if (from && thread_cpu_[from->index] == ev.cpu)
			thread_cpu_[from->index] = -1;
		if (to) {
			if (to->index >= thread_cpu_.size())
				thread_cpu_.resize(to->index + 1, -1);
			thread_cpu_[to->index] = ev.cpu;
		}
		cpu.curr_thread = to;
		if (sink_)	// only a trace's lines name the current task
			cpu.curr_comm = next ? ev.comm[1] : "<idle>";
		rebase_work(static_cast<std::size_t>(ev.cpu));
	} else if (tp == Tracepoint::sched_wakeup || tp == Tracepoint::sched_wakeup_new) {
		// woken by its timer: latency counts from the expiry, which
		// precedes the wake-up by the exit latency of an idle state
		auto *th = thread_of(static_cast<int>(ev.args[0]));
		metrics_->on_wakeup(t, tp == Tracepoint::sched_wakeup_new, static_cast<int>(ev.args[0]),
				    static_cast<int>(ev.args[2]), th ? static_cast<int>(th->index) : -1,
				    th && th->expired_at >= 0 ? th->expired_at : t);
		if (th)
			th->expired_at = -1;
	} else if (tp == Tracepoint::sched_migrate_task) {
		const auto *th = thread_of(static_cast<int>(ev.args[0]));
		metrics_->on_migrate(t, static_cast<int>(ev.args[0]), static_cast<int>(ev.args[2]),
				     static_cast<int>(ev.args[3]), th ? static_cast<int>(th->index) : -1);
	} else if (tp == Tracepoint::cpu_frequency) {
		// what cpufreq set; the hardware hears it through the clock sink
		metrics_->on_frequency(t, ev.args[0], static_cast<int>(ev.args[1]));
	} else if (tp == Tracepoint::sched_overutilized) {
		if (overutilized_)
			result_.overutilized_ns += now_ - overutilized_since_;
		overutilized_since_ = now_;
		overutilized_ = ev.args[0] != 0;
	} else if (tp == Tracepoint::thermal_pressure_update) {
		// fired before the CPUs' values are written: read after the kernel entry
		pressure_changed_ = true;
	} else if (tp == Tracepoint::thermal_temperature) {
		for (auto &zone : zones_)
			if (zone.name == ev.type)
				zone.reads++;
	} else if (tp == Tracepoint::cdev_update) {
		metrics_->on_cooling_state(static_cast<int>(ev.args[0]), static_cast<unsigned long>(ev.args[1]), t);
	} else if (tp == Tracepoint::cpu_frequency_limits) {
		pressure_changed_ = true;	// 6.12's cpufreq pressure follows the limits
		const auto policy_cpu = static_cast<std::size_t>(ev.args[2]);
		if (policy_cpu < cpus_.size())
			for (const unsigned c : domain_cpus(policy_cpu))
				metrics_->on_policy_limited(c, ev.args[1] < board_->cpu(c).max_khz, t);
	}
}

// Only the clock moves: work is accounted when a CPU is next looked at
// (account_work()), and so are the board's sums.
void Simulator::advance_to(std::int64_t t)
{
	if (next_sample_ <= t)
		sample_series(t);
	now_ = t;
	kshim_set_now(static_cast<unsigned long long>(t));
}

// The samples due up to t (at most the end), the state being what it has
// been since now_: reads only.
void Simulator::sample_series(std::int64_t t)
{
	auto &series = result_.series;
	for (; next_sample_ <= std::min(t, end_); next_sample_ += options_.series_period_ns) {
		series.time_ns.push_back(next_sample_ - start_);
		for (std::size_t c = 0; c < cpus_.size(); c++) {
			struct kshim_cpu_info info {};
			kshim_cpu_info(static_cast<int>(c), &info);
			auto &out = series.cpus[c];
			out.util.push_back(static_cast<unsigned>(info.cfs_util_avg));
			out.khz.push_back(board_->cpu(c).khz);
			out.capacity.push_back(static_cast<unsigned>(info.cpu_capacity));
			out.thermal_pressure.push_back(
				static_cast<unsigned>(kshim_cpu_thermal_pressure(static_cast<unsigned>(c))));
			out.thermal_avg.push_back(static_cast<unsigned>(info.thermal_load_avg));
			out.cpufreq_pressure.push_back(
				static_cast<unsigned>(kshim_cpu_cpufreq_pressure(static_cast<int>(c))));
		}
		for (std::size_t z = 0; z < zones_.size(); z++)
			series.zone_temperature_c[z].push_back(network_of(zones_[z]).peek(next_sample_));
	}
	if (next_sample_ > end_)
		next_sample_ = std::numeric_limits<std::int64_t>::max();
}

void Simulator::account_work(std::size_t c)
{
	auto &cpu = cpus_[c];
	auto *th = cpu.curr_thread;
	if (!th || th->state != Thread::State::computing || th->runtime_end)
		return;
	if (now_ <= cpu.work_anchor || cpu.in_entry)	// still in kernel code
		return;
	const u128 total = board_->work_in(c, now_ - cpu.work_anchor);
	const u128 done = total - static_cast<u128>(cpu.work_counted);
	const auto d = done >= static_cast<u128>(th->work_left) ? th->work_left : static_cast<std::int64_t>(done);
	cpu.work_counted = static_cast<std::int64_t>(total);
	th->work_left -= d;
	metrics_->on_work(th->index, d);
}

// When the thread's work on `cpu` runs out at the CPU's present speed;
// nullopt when it never will (a CPU of capacity 0).
std::optional<std::int64_t> Simulator::completion_time(std::size_t cpu, const Thread &th) const
{
	if (th.runtime_end)
		return std::max(now_, *th.runtime_end);
	// exactly: the first instant the stretch's floor(speed x time) covers it
	const auto &c = cpus_[cpu];
	const auto needs = board_->time_for(cpu, c.work_counted + th.work_left);
	if (!needs)
		return std::nullopt;
	return c.work_anchor + *needs;
}

void Simulator::read_touched_cpus()
{
	kshim_cpuset touched;
	if (kshim_take_touched_cpus(&touched))
		read_kernel_state(touched);
}

void Simulator::read_kernel_state(const kshim_cpuset &cpus)
{
	const auto words = std::min(std::size(cpus.bits), (cpus_.size() + 63) / 64);
	for (std::size_t word = 0; word < words; word++) {
		for (auto bits = cpus.bits[word]; bits; bits &= bits - 1) {
			const auto c = word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
			if (c < cpus_.size())
				read_kernel_state(c);
		}
	}
}

// The CPU's times as the kernel and the workload left them.
void Simulator::refresh(std::size_t c)
{
	auto &cpu = cpus_[c];
	cpu.next_hrtimer = cpu.hrtimer_cached;
	hrtimer_times_.set(c, cpu.next_hrtimer ? cpu.next_hrtimer : CpuTimes::none);
	next_times_.set(c, cpu.waking_cached	  ? cpu.waking_cached
			   : cpu.next_hrtimer ? cpu.next_hrtimer
					      : CpuTimes::none);
	const auto *th = cpu.curr_thread;
	if (!th || th->state != Thread::State::computing) {
		done_times_.set(c, CpuTimes::none);
		return;
	}
	if (!cpu.done_at || *cpu.done_at <= now_)
		cpu.done_at = completion_time(c, *th).value_or(end_);
	done_times_.set(c, *cpu.done_at);
}

std::int64_t Simulator::next_event_time()
{
	// first: an idle CPU's kernel code queues when it ends (kernel_done)
	read_touched_cpus();
	while (!queue_.empty() && is_stale_wake(queue_.top()))
		queue_.pop();
	std::int64_t t = std::min(end_, next_tick_);
	if (!queue_.empty())
		t = std::min(t, queue_.top().time);
	for (auto c = stale_.take_from(0); c != CpuMarks::end; c = stale_.take_from(c + 1))
		refresh(c);
	// work that ran out and was not stepped (none expected): estimated again
	due_.clear();
	done_times_.each_until(now_, [&](std::size_t c) { due_.push_back(c); });
	for (const auto c : due_)
		refresh(c);
	// a CPU leaving an idle state handles its interrupts, and fires its
	// hrtimers, once out
	if (const auto next = next_times_.earliest(); next != CpuTimes::none)
		t = std::min(t, std::max(now_, next));
	return std::min(t, done_times_.earliest());
}

// In the interrupt (shim_expire_user_sleeps()): the timers' wake-ups
// (hrtimer_wakeup()); the woken run once the loop dispatches.
void Simulator::expire_sleepers(std::size_t c)
{
	auto &expiring = expiring_[c];
	expiring.clear();
	executor_->take_due_timers(static_cast<int>(c), now_, expiring);
	for (const auto index : expiring) {
		auto &th = executor_->threads()[index];
		if (th.expired_at < 0)
			th.expired_at = now_;
		executor_->wake(index, static_cast<int>(c), true);
	}
}

void Simulator::settle_and_dispatch()
{
	kshim_settle();
	dispatch();
}

// Steps every thread that is current on its CPU and has something to do
// (its work ran out, it was woken, it was just forked), until none has.
void Simulator::dispatch()
{
	for (;;) {
		bool stepped = false;
		for (auto c = to_dispatch_.take_from(0); c != CpuMarks::end; c = to_dispatch_.take_from(c + 1)) {
			auto *th = cpus_[c].curr_thread;
			if (!th)
				continue;
			stale_.mark(c);
			if (th->state == Thread::State::computing) {
				account_work(c);
				if (th->runtime_end ? *th->runtime_end <= now_ : th->work_left == 0) {
					th->state = Thread::State::ready;
					th->runtime_end.reset();
				}
			}
			if (th->state == Thread::State::ready) {
				executor_->step(*th, static_cast<int>(c));
				stepped = true;
			}
		}
		// CPUs that became idle run do_idle() (nohz idle balance, tick
		// stopped), which can pull work and so start the round again.
		// Only a switch changes what a CPU runs.
		bool entered_idle = false;
		for (auto c = switched_.take_from(0); c != CpuMarks::end; c = switched_.take_from(c + 1)) {
			auto &cpu = cpus_[c];
			const bool idle = cpu.curr == 0;
			if (idle == cpu.idle_reported)
				continue;
			cpu.idle_reported = idle;
			kshim_cpu_idle(static_cast<int>(c), idle, idle_tick_policy(options_.idle_tick));
			entered_idle |= idle;
		}
		if (entered_idle) {
			kshim_settle();
			continue;
		}
		if (!stepped)
			break;
	}
}

// An imposed cap: the board throttles the CPUs' clocks, and the kernel
// learns of it through topology_update_thermal_pressure(), one CPU at a
// time (the function takes the first CPU's capacity for all it is given).
void Simulator::apply_cap(const Options::ThermalCap &cap)
{
	for (const unsigned c : cap.cpus) {
		account_work(c);
		if (board_->set_cap(c, cap.khz, now_))
			rebase_work(c);
		const unsigned one[] = {c};
		kshim::update_thermal_pressure(one, cap.khz ? cap.khz : board_->cpu(c).max_khz);
	}
	read_thermal_pressure();
}

// Each zone the kernel registered gets the model's RC network, heated by
// the CPUs its cooling maps cap (their whole frequency domains: a cooling
// device caps a policy), or by every CPU when it maps none. Its sensor
// reads the model from then on.
void Simulator::setup_thermal()
{
	if (kernel_.thermal_zones.empty()) {
		result_.thermal_model = "none: the board's device tree has no thermal zones";
		return;
	}
	if (!options_.thermal.enabled) {
		result_.thermal_model = "off (--thermal-model off): the sensors read 25 C";
		return;
	}
	if (!board_->power_in_microwatts()) {
		result_.thermal_model = "off: the energy model's power is in abstract units, not watts";
		return;
	}
	if (!board_->energy_complete()) {
		// (juno's SCPI and db845c's qcom-cpufreq-hw domains register none)
		result_.thermal_model = "off: some CPUs have no energy model, so no power to heat the zones with";
		return;
	}
	struct Network {
		std::vector<unsigned> cpus;
		thermal::RcParams params;
		std::vector<thermal::TripLevel> trips;
		std::string name;	// its first zone's
	};
	std::vector<Network> networks;
	for (const auto &kz : kernel_.thermal_zones) {
		if (kz.sensor < 0)
			continue;
		const auto dz = std::ranges::find_if(platform_.thermal_zones, [&](const auto &z) { return z.name == kz.zone; });
		std::vector<unsigned> cpus;
		std::vector<thermal::TripLevel> trips;
		if (dz != platform_.thermal_zones.end()) {
			for (const auto &map : dz->cooling_maps)
				for (const auto &dev : map.devices)
					if (dev.cpu && *dev.cpu < cpus_.size())
						for (const unsigned c : domain_cpus(*dev.cpu))
							cpus.push_back(c);
			for (const auto &trip : dz->trips)
				trips.push_back({trip.name, std::string(dts::to_string(trip.type)),
						 trip.temperature_mc / 1000.0});
		}
		std::ranges::sort(cpus);
		cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
		if (cpus.empty())
			for (unsigned c = 0; c < cpus_.size(); c++)
				cpus.push_back(c);
		const auto params = options_.thermal.params_for(kz.zone);
		auto same = [&](const Network &n) { return n.cpus == cpus && n.params == params; };
		auto n = std::ranges::find_if(networks, same);
		if (n == networks.end())
			n = networks.insert(n, {std::move(cpus), params, {}, kz.zone});
		ModelZone zone;
		zone.name = kz.zone;
		zone.sensor = kz.sensor;
		zone.network = static_cast<std::size_t>(n - networks.begin());
		zone.first_trip = n->trips.size();
		zone.trips = trips.size();
		n->trips.insert(n->trips.end(), trips.begin(), trips.end());
		if (sensor_zone_.size() <= static_cast<std::size_t>(kz.sensor))
			sensor_zone_.resize(static_cast<std::size_t>(kz.sensor) + 1, SIZE_MAX);
		sensor_zone_[static_cast<std::size_t>(kz.sensor)] = zones_.size();
		zones_.push_back(std::move(zone));
	}
	cpu_power_.resize(cpus_.size());
	for (std::size_t c = 0; c < cpus_.size(); c++)
		cpu_power_[c] = board_->power(c);
	networks_of_cpu_.resize(cpus_.size());
	for (auto &n : networks) {
		std::uint64_t power = 0;
		for (const unsigned c : n.cpus) {
			networks_of_cpu_[c].push_back(networks_.size());
			power += cpu_power_[c];
		}
		networks_.emplace_back(std::move(n.name), std::move(n.cpus), n.params, std::move(n.trips), now_,
				       options_.thermal_sample_ns);
		networks_.back().set_power(power, now_);
		network_power_.push_back(power);
	}
	result_.thermal_model = "RC";
	board_->set_power_observer([this](std::size_t c, std::int64_t t) {
		const auto power = board_->power(c);
		for (const auto n : networks_of_cpu_[c]) {
			network_power_[n] += power - cpu_power_[c];	// modulo 2^64: exact once summed
			networks_[n].set_power(network_power_[n], t);
		}
		cpu_power_[c] = power;
	});
	kshim::set_sensor_source([this](int sensor) {
		const auto z = static_cast<std::size_t>(sensor) < sensor_zone_.size()
				       ? sensor_zone_[static_cast<std::size_t>(sensor)]
				       : SIZE_MAX;
		if (z == SIZE_MAX)
			return kshim::room_temperature_mc;
		// in range for the int a sensor returns (check_sensors() stops a
		// run whose model leaves it, at the next tick)
		const double c = std::clamp(network_of(zones_[z]).temperature_at(now_), -273.15, max_model_c);
		return static_cast<int>(std::lround(std::isnan(c) ? max_model_c * 1000 : c * 1000));
	});
	// the domains whose leakage follows a zone's temperature
	for (const auto &[d, name] : board_->temperature_zones()) {
		const auto z = std::ranges::find(zones_, name, &ModelZone::name);
		if (z != zones_.end())
			leakage_zones_.emplace_back(d, static_cast<std::size_t>(z - zones_.begin()));
	}
	update_leakage_temperatures();
	// the model's starting temperature, as the sensors' first interrupt
	for (const auto &zone : zones_)
		kshim_thermal_sensor_interrupt(zone.sensor);
	kshim_settle();
	read_thermal_pressure();
}

void Simulator::setup_cooling()
{
	for (std::size_t c = 0; c < cpus_.size(); c++) {
		const auto cpus = domain_cpus(c);
		if (cpus.front() != c)
			continue;
		int id = 0;
		unsigned long max_state = 0, state = 0;
		if (kshim_cpufreq_cooling(static_cast<int>(c), &id, &max_state, &state) == 0)
			metrics_->add_cooling_device(id, cpus, max_state, state, now_);
	}
}

// The sensors' alarms: a zone whose temperature left the window its last
// ->set_trips() asked for interrupts (checked at each tick: the SoCs'
// sensors sample every few milliseconds).
void Simulator::check_sensors()
{
	for (auto &zone : zones_) {
		int low = 0, high = 0;
		if (kshim_thermal_sensor_window(zone.sensor, &low, &high))
			continue;
		const double c = network_of(zone).temperature_at(now_);
		// Past 1000 C the model's parameters are wrong, not the board hot:
		// stop rather than report what a sensor could never read.
		if (!(c <= max_model_c))
			throw thermal::Error(fmt::format(
				"thermal model: zone {} reached {} at {:.3f} s, above the {:g} C the model holds to "
				"(r {:g} K/W x the CPUs' power; give a smaller r)",
				zone.name, std::isnan(c) ? std::string("a temperature that is not a number") : fmt::format("{:g} C", c),
				static_cast<double>(now_ - start_) / 1e9, max_model_c,
				network_of(zone).params().resistance_k_per_w));
		const auto mc = std::lround(c * 1000);
		if (mc >= high || (low > -INT_MAX && mc <= low)) {
			zone.interrupts++;
			kshim_thermal_sensor_interrupt(zone.sensor);
		}
	}
}

// Leakage follows the die's temperature, read at each tick: between two
// ticks a zone's temperature moves by a small part of a degree.
void Simulator::update_leakage_temperatures()
{
	for (const auto &[d, z] : leakage_zones_)
		board_->set_temperature(d, network_of(zones_[z]).temperature_at(now_), now_);
}

void Simulator::read_thermal_pressure()
{
	pressure_changed_ = false;
	for (std::size_t c = 0; c < cpus_.size(); c++) {
		metrics_->on_thermal_pressure(c, kshim_cpu_thermal_pressure(static_cast<unsigned>(c)), now_);
		metrics_->on_cpufreq_pressure(c, kshim_cpu_cpufreq_pressure(static_cast<int>(c)), now_);
	}
}

// The board's clocks start, and the metrics read the kernel's pressure
// signals as they are at the start.
void Simulator::start_board()
{
	board_->start(now_, [&](std::size_t c) { return cpus_[c].curr != 0; });
	for (auto &cpu : cpus_)
		cpu.curr_since = now_;
	overutilized_since_ = now_;
	read_thermal_pressure();
	for (std::size_t c = 0; c < cpus_.size(); c++)
		metrics_->on_thermal_load_avg(c, kshim_cpu_thermal_load_avg(static_cast<int>(c)), now_);
}

void Simulator::schedule_thermal_caps()
{
	for (std::size_t i = 0; i < options_.thermal_caps.size(); i++) {
		for (const unsigned c : options_.thermal_caps[i].cpus)
			if (c >= cpus_.size())
				throw workload::Error(fmt::format("--thermal-cap: CPU{} does not exist on this board (CPU0-{})",
								  c, cpus_.size() - 1));
		push(Timed::cap, now_ + options_.thermal_caps[i].at_ns, static_cast<int>(i));
	}
}

// The kernel's calls into the loop: its tracepoints, the workload's timers
// it asks about, the sleeps its hrtimer interrupts expire.
void Simulator::attach_to_kernel()
{
	// with kernel time, whether traced or not: the dispatch of a
	// tracepoint with a probe is the tree's code, and takes time. A sink
	// that takes the kernel's records (a trace.dat) has theirs, and needs
	// no copy of the trace-only events as the probes record them.
	const auto recorded = sink_ ? sink_->recorded_events() : std::vector<std::string>{};
	if ((options_.trace_only_events || concurrent_interrupts()) &&
	    kshim_sched_trace_attach_trace_only(options_.trace_only_events && recorded.empty()))
		throw kshim::KernelFault("could not attach the PELT and cpu_idle tracepoint probes");
	kshim::set_trace_sink([this](const kshim_trace_event &ev) { on_event(ev); });
	if (sink_) {
		for (const auto &event : recorded)
			if (const auto format = kshim::record_event(event))
				sink_->recording(*format);
		// and what the workload writes to trace_marker (rt-app's markers)
		records_markers_ = !recorded.empty() && workload_.rtapp_trace;
		if (records_markers_)
			sink_->recording(kshim::marker_format());
	}
	if (sink_)
		kshim::set_record_sink([this](int cpu, std::uint64_t t, std::span<const std::byte> record) {
			sink_->record(cpu, t, record);
		});
	kshim::set_timer_source([this](int cpu) { return executor_->next_timer_on(cpu); });
	// the clock provider's set_rate (or the firmware's level): the board's
	// clock takes its transition time once the supplies have settled
	kshim::set_clock_sink([this](const kshim_cpuset &set, unsigned long khz, unsigned long long ready_ns) {
		const auto start = std::max<std::int64_t>(now_, static_cast<std::int64_t>(ready_ns));
		for (std::size_t c = 0; c < cpus_.size(); c++)
			if (set.bits[c / 64] & (1ULL << (c % 64)))
				push(Timed::frequency, start + board_->cpu(c).transition_latency_ns,
				     static_cast<int>(c), static_cast<unsigned>(khz));
	});
	kshim::set_sleep_expiry([this](int cpu) { expire_sleepers(static_cast<std::size_t>(cpu)); });
	if (concurrent_interrupts())
		kshim::set_entry_admission([this](std::uint64_t before) { return admit_interrupt(before); });
}

void Simulator::detach_from_kernel()
{
	kshim::set_trace_sink({});
	kshim::stop_recording();
	kshim::set_record_sink({});
	kshim::set_timer_source({});
	kshim::set_sleep_expiry({});
	kshim::set_entry_admission({});
	kshim::set_sensor_source({});
	kshim::set_clock_sink({});
}

// The CPUs' kernel state at the start, read whole: what the kernel touched
// until now is in it.
void Simulator::read_start_state()
{
	for (std::size_t c = 0; c < cpus_.size(); c++) {
		cpus_[c].idle_at_start = idle_states_of(static_cast<int>(c));
		kshim_cost_read(static_cast<int>(c), &cpus_[c].cost_at_start);
		cpus_[c].spin_at_start = kshim_cpu_spin_ns(static_cast<int>(c));
		read_kernel_state(c);
	}
	ipis_taken_at_start_ = kshim_ipis_taken_at_locks();
	entry_yields_at_start_ = shim_entry_yields();
	entries_joined_at_start_ = shim_entries_joined();
	if (options_.kernel_profile_functions) {
		if (const int err = kshim_cost_profile_start())
			throw std::runtime_error(fmt::format("--kernel-profile: the block counter's callback cannot be patched: {}",
							     std::strerror(-err)));
	}
	kshim_cpuset ignored;
	kshim_take_touched_cpus(&ignored);
	for (auto &cpu : cpus_)
		cpu.curr_comm = cpu.curr ? "?" : "<idle>";
}

void Simulator::start_series()
{
	result_.series.period_ns = options_.series_period_ns;
	result_.series.cpus.resize(cpus_.size());
	result_.series.zone_temperature_c.resize(zones_.size());
	next_sample_ = now_;
}

// Frequency transitions that complete now, and imposed caps.
void Simulator::run_hardware_events()
{
	while (!queue_.empty() && queue_.top().time <= now_ && is_hardware(queue_.top().kind)) {
		const auto ev = queue_.top();
		queue_.pop();
		if (ev.kind == Timed::cap) {
			apply_cap(options_.thermal_caps[static_cast<std::size_t>(ev.index)]);
			continue;
		}
		if (ev.kind == Timed::kernel_done) {
			const auto c = static_cast<std::size_t>(ev.index);
			if (cpus_[c].curr == 0 && cpus_[c].kernel_until <= now_)
				board_->set_busy(c, false, now_);
			continue;
		}
		const auto c = static_cast<std::size_t>(ev.index);
		account_work(c);
		if (board_->set_frequency(c, ev.khz, now_))
			rebase_work(c);
	}
}

// The workload's timers due now, in the order armed.
void Simulator::run_wake_timers()
{
	const bool concurrent = concurrent_interrupts();
	do {
		interrupted_.clear();
		while (!queue_.empty() && queue_.top().time <= now_) {
			const auto ev = queue_.top();
			queue_.pop();
			if (is_hardware(ev.kind)) {
				queue_.push(ev);	// armed by a kernel entry at this instant
				break;
			}
			if (is_stale_wake(ev))
				continue;	// ended at this instant by another interrupt on its CPU
			const int cpu = take_wake_timer(ev);
			if (cpu < 0)
				continue;
			// its own interrupt, which expires the others due there too
			if (!concurrent) {
				kshim_cpu_timers(cpu);
				settle_and_dispatch();
			} else if (std::find(interrupted_.begin(), interrupted_.end(), cpu) == interrupted_.end()) {
				interrupted_.push_back(cpu);
			}
		}
		if (interrupted_.empty())
			return;
		run_timer_interrupts();
	} while (true);
}

int Simulator::take_wake_timer(const TimedEvent &ev)
{
	auto &th = executor_->threads()[static_cast<std::size_t>(ev.index)];
	if (th.expired_at < 0)
		th.expired_at = ev.time;
	th.timer_at = -1;
	// the timer interrupt waits for its CPU to leave an idle state
	const auto ready = static_cast<std::int64_t>(kshim_cpu_interrupt_at(th.armed_cpu));
	if (ready > now_) {
		th.timer_seq = push(Timed::wake, ready, ev.index);
		return -1;
	}
	return th.armed_cpu;
}

// A CPU whose entry in a group ended, read once (read_kernel_state()):
// its work was accounted at the entry's instant, and resumes at its end.
void Simulator::read_entry_end(std::size_t c)
{
	auto &cpu = cpus_[c];
	cpu.in_entry = false;
	const auto until = static_cast<std::int64_t>(kshim_cpu_clock(static_cast<int>(c)));
	if (until > now_ && until > cpu.kernel_until && cpu.curr == 0) {
		board_->set_busy(c, true, now_);
		push(Timed::kernel_done, until, static_cast<int>(c));
	}
	cpu.kernel_until = std::max(cpu.kernel_until, until);
	rebase_work(c);
}

// Before the harness's time moves on inside a group: the CPUs of its
// entries have their work accounted up to now, and none after until their
// entries end.
void Simulator::enter_group_cpus()
{
	for (std::size_t c = 0; c < cpus_.size(); c++) {
		if (cpus_[c].in_entry || !shim_entry_suspended(static_cast<int>(c)))
			continue;
		account_work(c);
		cpus_[c].in_entry = true;
	}
}

// While a group of timer interrupts runs, its entries all waiting at clocks
// of at least `before` (kernel.h's set_entry_admission()): the interrupt
// due next joins the group if it is due by then, on a CPU that has no entry
// in it, and nothing that only the loop runs comes first — the tick, work
// that runs out, a CPU out of an idle state, the end, or what the group's
// entries left for the CPUs' settling. Hardware events due before it
// happen on the way. Returns the clock at which to ask again.
std::uint64_t Simulator::admit_interrupt(std::uint64_t before)
{
	constexpr auto closed = std::numeric_limits<std::uint64_t>::max();
	if (kshim_settle_pending_outside_group())
		return closed;
	for (;;) {
		const auto t = next_event_time();
		if (t >= std::min({end_, next_tick_, done_times_.earliest(), wake_times_.earliest()}))
			return closed;
		const auto due = static_cast<std::uint64_t>(std::max(t, now_));
		int cpu = -1;
		const bool queued = !queue_.empty() && queue_.top().time == t;
		if (queued && !is_hardware(queue_.top().kind)) {
			cpu = executor_->threads()[static_cast<std::size_t>(queue_.top().index)].armed_cpu;
		} else if (!queued) {
			hrtimer_times_.each_until(t, [&](std::size_t c) {
				if (cpu < 0 && wake_times_.at(c) == CpuTimes::none)
					cpu = static_cast<int>(c);
			});
			if (cpu < 0)
				return closed;
		}
		if (cpu >= 0 && shim_entry_in_group(cpu))
			return closed;
		if (due > before)
			return due;
		if (t > now_) {
			enter_group_cpus();
			advance_to(t);
			admitted_at_instant_ = 0;
		} else if (++admitted_at_instant_ > max_events_at_one_instant) {
			throw kshim::KernelFault(fmt::format(
				"kernel livelock: {} timer interrupts joined at simulated time {:.6f} s without time passing",
				admitted_at_instant_, static_cast<double>(now_ - start_) / 1e9));
		}
		if (queued && cpu < 0) {
			run_hardware_events();
			continue;
		}
		if (queued) {
			const auto ev = queue_.top();
			queue_.pop();
			cpu = take_wake_timer(ev);
			if (cpu < 0)
				continue;
		}
		account_work(static_cast<std::size_t>(cpu));
		cpus_[static_cast<std::size_t>(cpu)].in_entry = true;
		kshim_cpu_timers_admit(cpu);
		return due;
	}
}

// The hrtimer interrupts of the CPUs in interrupted_, at once, then what
// they woke.
void Simulator::run_timer_interrupts()
{
	std::sort(interrupted_.begin(), interrupted_.end());
	kshim_cpus_timers(interrupted_.data(), static_cast<int>(interrupted_.size()));
	settle_and_dispatch();
}

// The kernel's own hrtimers due now; those armed during this instant are
// seen by the next round.
void Simulator::run_kernel_hrtimers()
{
	due_.clear();
	hrtimer_times_.each_until(now_, [&](std::size_t c) { due_.push_back(c); });
	if (concurrent_interrupts()) {
		interrupted_.assign(due_.begin(), due_.end());
		if (!interrupted_.empty())
			run_timer_interrupts();
		return;
	}
	for (const auto c : due_) {
		kshim_cpu_timers(static_cast<int>(c));
		settle_and_dispatch();
	}
}

void Simulator::tick()
{
	// this tick is taken: interrupts due before the next may join its group
	next_tick_ += tick_ns_;
	// NO_HZ_IDLE: CPUs whose tick is stopped (idle) take none
	ticking_.clear();
	for (std::size_t c = 0; c < cpus_.size(); c++)
		if (!kshim_tick_stopped(static_cast<int>(c)))
			ticking_.push_back(static_cast<int>(c));
	const bool concurrent = concurrent_interrupts();
	if (concurrent) {
		kshim_cpus_tick(ticking_.data(), static_cast<int>(ticking_.size()));
		kshim_settle();
	}
	for (const int c : ticking_) {
		if (!concurrent) {
			kshim_cpu_tick(c);
			kshim_settle();
		}
		result_.ticks++;
		// the tick's update_thermal_load_avg() moved it
		metrics_->on_thermal_load_avg(static_cast<std::size_t>(c), kshim_cpu_thermal_load_avg(c), now_);
	}
	// the timer softirq (delayed work: thermal polling), the sensors' alarms
	{
		const KernelEntry entry(KSHIM_COST_SOFTIRQ);
		kshim_run_timers();
	}
	if (!zones_.empty())
		check_sensors();
	if (!leakage_zones_.empty())
		update_leakage_temperatures();
	kshim_settle();
	if (pressure_changed_)
		read_thermal_pressure();
	dispatch();
}

// Everything due at now_: the hardware first, then the CPUs woken out of
// idle states, work that ran out, the threads' timers, the kernel's, the tick.
void Simulator::run_instant()
{
	// what no narrower kind claims (the glue and the executor name theirs)
	const KernelEntry entry(KSHIM_COST_OTHER);
	done_times_.each_until(now_, [&](std::size_t c) { to_dispatch_.mark(c); });
	run_hardware_events();
	// CPUs now out of an idle state take the interrupts that woke them
	read_touched_cpus();
	if (wake_times_.earliest() <= now_)
		kshim_settle();
	dispatch();
	run_wake_timers();
	run_kernel_hrtimers();
	if (now_ >= next_tick_)
		tick();
}

// Until every thread ended or the duration ran out.
void Simulator::run_until_end()
{
	std::uint64_t at_this_instant = 0;
	while (executor_->live() > 0) {
		const std::int64_t t = next_event_time();
		at_this_instant = t > now_ ? 0 : at_this_instant + 1;
		if (at_this_instant > max_events_at_one_instant)
			throw kshim::KernelFault(fmt::format(
				"kernel livelock: {} events at simulated time {:.6f} s without time passing",
				at_this_instant, static_cast<double>(now_ - start_) / 1e9));
		advance_to(t);
		kshim::watchdog_beat(now_ - start_);
		if (now_ >= end_)
			break;
		run_instant();
	}
}

Result Simulator::run()
{
	start_ = now_ = static_cast<std::int64_t>(kshim_now());
	end_ = start_ + options_.duration_ns;
	setup();
	start_board();
	schedule_thermal_caps();
	executor_.emplace(workload_, options_, cpus_.size(), calibration_capacity_, eas_enabled_,
			  static_cast<Executor::Host &>(*this), *metrics_);
	attach_to_kernel();
	read_start_state();
	next_tick_ = (now_ / tick_ns_ + 1) * tick_ns_;
	setup_cooling();
	setup_thermal();
	if (options_.series_period_ns > 0)
		start_series();
	{
		const KernelEntry entry(KSHIM_COST_OTHER);
		executor_->fork_all();
		to_dispatch_.mark_all(cpus_.size());
		dispatch();
	}
	run_until_end();
	if (executor_->live() == 0)
		result_.completion_ns = now_ - start_;
	detach_from_kernel();
	return collect();
}

Result Simulator::collect()
{
	// what is accounted when it changes, up to the end
	for (std::size_t c = 0; c < cpus_.size(); c++)
		account_work(c);
	for (std::size_t c = 0; c < cpus_.size(); c++)
		if (auto *running = cpus_[c].curr_thread)
			metrics_->on_cpu_time(running->index, c, now_ - cpus_[c].curr_since);
	board_->finish(now_);
	if (overutilized_)
		result_.overutilized_ns += now_ - overutilized_since_;
	Result &r = result_;
	r.workload = workload_.name;
	r.duration_ns = options_.duration_ns;
	r.simulated_ns = now_ - start_;
	r.calibration_cpu = workload_.calibration_cpu;
	r.calibration_capacity = calibration_capacity_;
	r.fork_cpu = options_.fork_cpu;
	r.eas = kernel_.eas;
	r.eas_reason = kernel_.eas_reason;
	r.tick_ns = static_cast<unsigned long long>(tick_ns_);
	r.idle_tick = options_.idle_tick;
	r.jitter = options_.jitter;
	r.eas_decisions_counted = options_.count_eas_decisions;
	r.finite = true;
	for (const auto &t : workload_.tasks) {
		bool infinite = t.loop < 0;
		for (const auto &p : t.phases)
			infinite |= p.loop < 0 && !p.events.empty();
		r.finite &= !infinite;
	}
	board_->report(r);
	const auto pressure = metrics_->thermal_pressure_avg(start_, now_);
	const auto pressure_pelt = metrics_->thermal_load_avg(start_, now_);
	const auto limited = metrics_->limited_ns(now_);
	const auto cpufreq_pressure = metrics_->cpufreq_pressure_avg(start_, now_);
	for (std::size_t c = 0; c < cpus_.size(); c++) {
		r.cpus[c].thermal_pressure_avg = pressure[c];
		r.cpus[c].thermal_load_avg = pressure_pelt[c];
		r.cpus[c].limited_ns = limited[c];
		r.cpus[c].cpufreq_pressure_avg = cpufreq_pressure[c];
		struct kshim_cpu_info info {};
		kshim_cpu_info(static_cast<int>(c), &info);
		r.cpus[c].capacity_end = info.cpu_capacity;
		r.cpus[c].thermal_load_end = info.thermal_load_avg;
		r.cpus[c].cpufreq_pressure_end = kshim_cpu_cpufreq_pressure(static_cast<int>(c));
	}
	for (const auto &zone : zones_) {
		auto &network = network_of(zone);
		ThermalZoneResult out;
		out.end_c = network.temperature_at(now_);
		out.name = zone.name;
		struct kshim_thermal_zone info {};
		if (kshim_thermal_zone(zone.sensor, &info) == 0)
			out.governor = info.governor;
		for (const auto &kz : kernel_.thermal_zones)
			if (kz.sensor == zone.sensor)
				out.sensor = fmt::format("{} {}", kz.sensor_path, kz.sensor_id);
		out.cpus = network.cpus();
		out.resistance_k_per_w = network.params().resistance_k_per_w;
		out.capacitance_j_per_k = network.params().capacitance_j_per_k;
		out.ambient_c = network.params().ambient_c;
		out.initial_c = network.params().initial_c.value_or(network.params().ambient_c);
		out.min_c = network.min_c();
		out.mean_c = network.mean_c();
		out.max_c = network.max_c();
		out.heat_j = network.energy_j();
		for (std::size_t i = zone.first_trip; i < zone.first_trip + zone.trips; i++) {
			const auto &trip = network.trips()[i];
			out.trips.push_back({trip.name, trip.type, trip.temperature_c, network.time_above_ns(i)});
		}
		out.sample_period_ns = network.sample_period_ns();
		out.temperature_c = network.samples();
		out.kernel_reads = zone.reads;
		out.interrupts = zone.interrupts;
		r.thermal_zones.push_back(std::move(out));
	}
	for (auto &cooling : metrics_->cooling_devices(now_))
		r.cooling_devices.push_back({cooling.id, cooling.cpus, cooling.max_state, cooling.state_ns, cooling.updates});
	collect_idle_states(r);
	for (const auto &th : executor_->threads()) {
		TaskResult t;
		t.name = th.comm;
		t.pid = th.pid;
		metrics_->fill(th.index, t);
		t.state = executor_->state_of(th);
		r.tasks.push_back(std::move(t));
	}
	executor_->report(r);
	r.wakeup_latency_ns = metrics_->all_latencies().summary();
	if (r.simulated_ns > 0 && calibration_capacity_)
		r.throughput = static_cast<double>(metrics_->work_done()) /
			       (static_cast<double>(r.simulated_ns) * static_cast<double>(calibration_capacity_));
	r.fingerprint = metrics_->fingerprint();
	r.fingerprint_events = metrics_->fingerprint_events();
	r.context_switches = metrics_->context_switches();
	r.migrations = metrics_->migrations();
	r.kernel_warnings = kshim::kernel_warnings().size();
	collect_kernel_cost(r);
	return r;
}

// The kernel's cpuidle counters over the run.
void Simulator::collect_idle_states(Result &r) const
{
	for (std::size_t c = 0; c < cpus_.size(); c++) {
		const auto &cpu = cpus_[c];
		const auto now = idle_states_of(static_cast<int>(c));
		for (std::size_t i = 0; i < now.size(); i++) {
			const auto &n = now[i];
			const kshim_idle_state zero{};
			const auto &s0 = i < cpu.idle_at_start.size() ? cpu.idle_at_start[i] : zero;
			r.cpus[c].idle_states.push_back({n.name, n.exit_latency_ns, n.target_residency_ns,
							 n.usage - s0.usage, n.time_ns - s0.time_ns, n.above - s0.above,
							 n.below - s0.below});
		}
	}
	r.cpuidle_governor = kshim_cpuidle_governor();
	if (std::all_of(r.cpus.begin(), r.cpus.end(), [](const auto &c) { return c.idle_states.empty(); }))
		r.cpuidle_governor.clear();
}

void Simulator::collect_kernel_cost(Result &r) const
{
	static constexpr std::array<const char *, KSHIM_COST_NR> kinds = {
		"none", "other", "wakeup", "schedule", "tick", "ipi", "balance", "softirq", "idle", "kthread"};
	r.kernel_cycles_per_block = options_.kernel_cycles_per_block;
	r.ipi_latency_ns = options_.ipi_latency_ns;
	r.irq_entry_ns = options_.irq_entry_ns;
	r.wfi_exit_ns = options_.wfi_exit_ns;
	r.ipis_taken_at_locks = kshim_ipis_taken_at_locks() - ipis_taken_at_start_;
	r.interleavings = shim_entry_yields() - entry_yields_at_start_;
	r.joined_interrupts = shim_entries_joined() - entries_joined_at_start_;
	r.kernel_cost.clear();
	for (std::size_t k = KSHIM_COST_OTHER; k < KSHIM_COST_NR; k++)
		r.kernel_cost.push_back({kinds[k]});
	for (std::size_t c = 0; c < cpus_.size(); c++) {
		kshim_cost_counts now{};
		kshim_cost_read(static_cast<int>(c), &now);
		const auto &start = cpus_[c].cost_at_start;
		for (std::size_t k = KSHIM_COST_OTHER; k < KSHIM_COST_NR; k++) {
			auto &kind = r.kernel_cost[k - KSHIM_COST_OTHER];
			const auto blocks = now.blocks[k] - start.blocks[k];
			// ps summed per CPU, rounded once per CPU and kind
			const auto ns = static_cast<std::int64_t>((now.ps[k] - start.ps[k] + 500) / 1000);
			kind.entries += now.entries[k] - start.entries[k];
			kind.blocks += blocks;
			kind.ns += ns;
			r.cpus[c].kernel_blocks += blocks;
			r.cpus[c].kernel_ns += ns;
		}
		r.lock_spin_ns += static_cast<std::int64_t>(kshim_cpu_spin_ns(static_cast<int>(c)) - cpus_[c].spin_at_start);
	}
	if (options_.kernel_profile_functions)
		collect_kernel_profile(r);
}

// The profile's sites by the function holding them in the kernel image
// (the ELF symbol table: static functions included), most blocks first,
// ties by name: addresses differ from run to run, names do not.
void Simulator::collect_kernel_profile(Result &r) const
{
	unsigned long long lost = 0;
	std::vector<kshim_cost_site> sites(kshim_cost_profile_read(nullptr, 0, &lost));
	sites.resize(kshim_cost_profile_read(sites.data(), sites.size(), &lost));
	if (lost)
		throw std::runtime_error(fmt::format("the kernel-code profile had no room for the sites of {} blocks", lost));
	std::map<std::string, std::uint64_t> by_function;
	for (const auto &site : sites) {
		// the site is the callback's return address: its call is the byte before
		auto name = support::function_at_address(site.pc - 1, "libksched");
		by_function[name.value_or("(outside the kernel image)")] += site.blocks;
	}
	r.kernel_functions.clear();
	for (auto &[function, blocks] : by_function)
		r.kernel_functions.push_back({function, blocks});
	std::sort(r.kernel_functions.begin(), r.kernel_functions.end(), [](const auto &a, const auto &b) {
		return a.blocks != b.blocks ? a.blocks > b.blocks : a.function < b.function;
	});
	r.kernel_functions_found = r.kernel_functions.size();
	if (r.kernel_functions.size() > options_.kernel_profile_functions)
		r.kernel_functions.resize(options_.kernel_profile_functions);
}

} // namespace

std::vector<KernelOverhead> kernel_overhead(const Result &r)
{
	const auto find = [&](std::string_view kind) -> const KernelCost * {
		for (const auto &k : r.kernel_cost)
			if (k.kind == kind)
				return &k;
		return nullptr;
	};
	const auto per = [&](const char *name, const char *what, std::string_view kind,
			     std::optional<std::uint64_t> events) {
		KernelOverhead o{name, what, std::nullopt, std::nullopt};
		const auto *k = find(kind);
		if (!k)
			return o;
		const auto n = events.value_or(k->entries);
		if (n == 0)
			return o;
		o.blocks = static_cast<double>(k->blocks) / static_cast<double>(n);
		o.ns = static_cast<double>(k->ns) / static_cast<double>(n);
		return o;
	};
	return {per("wakeup", "wake-up", "wakeup", r.wakeups), per("tick", "tick", "tick", r.ticks),
		per("context_switch", "context switch", "schedule", r.context_switches),
		per("balance", "load balance", "balance", std::nullopt)};
}

Result simulate(const dts::Platform &platform, const kshim::Kernel &kernel, const workload::Workload &workload,
		const Options &options, EventSink *sink)
{
	if (options.duration_ns <= 0)
		throw workload::Error("the duration must be positive");
	Simulator sim(platform, kernel, workload, options, sink);
	return sim.run();
}

} // namespace sh::sim
