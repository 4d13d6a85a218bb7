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
#include "harness/sim/metrics.h"

#include <kshim/api.h>
#include <kshim/sched.h>

#include <algorithm>
#include <bit>
#include <utility>
#include <cmath>
#include <deque>
#include <fmt/format.h>
#include <map>
#include <queue>
#include <random>
#include <unordered_map>

namespace sh::sim {

namespace {

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

using workload::Event;
using workload::EventKind;

struct Thread {
	std::string comm;
	const workload::Task *task = nullptr;
	int pid = 0;
	std::size_t phase = 0, event = 0;
	long phase_iter = 0, loop_iter = 0;
	enum class State { ready, computing, sleeping, exited } state = State::ready;
	bool delay_done = false;
	bool at_end = false;		// past its last event: exits when it next runs
	std::int64_t work_left = 0;		// run: capacity-ns
	std::optional<std::int64_t> runtime_end;	// runtime: wall-clock end
	int armed_cpu = 0;			// where its wake-up timer was armed
	std::int64_t timer_at = -1;		// when that timer expires (-1: none armed)
	std::int64_t expired_at = -1;		// when it expired, until the wake-up
	std::size_t index = 0;			// in Simulator::threads_
	const char *blocked_on = nullptr;	// "sleep", "timer", ... while sleeping
	// rt-app's wait (pthread_cond_wait) unlocked its mutex, and the waiter
	// it woke preempted it before it could sleep: it sleeps when it runs
	// again, unless the signal came first (the futex would not sleep then).
	std::optional<std::pair<const char *, int>> pending_block;
	int blocked_resource = -1;
	std::vector<std::pair<bool, std::int64_t>> own_timers;	// "unique*" timers, by resource
};

bool advance_pc(Thread &th);
void start_pc(Thread &th);

enum class Timed { frequency, wake };

// The tracepoints the simulator follows. Probes name events with string
// literals, so each name pointer is classified once.
enum class Tracepoint { sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task, cpu_frequency,
			sched_overutilized, other };

Tracepoint classify(std::string_view name)
{
	static constexpr std::pair<std::string_view, Tracepoint> known[] = {
		{"sched_switch", Tracepoint::sched_switch},
		{"sched_wakeup", Tracepoint::sched_wakeup},
		{"sched_wakeup_new", Tracepoint::sched_wakeup_new},
		{"sched_migrate_task", Tracepoint::sched_migrate_task},
		{"cpu_frequency", Tracepoint::cpu_frequency},
		{"sched_overutilized", Tracepoint::sched_overutilized},
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
	std::int64_t next_hrtimer = 0;		// earliest kernel hrtimer, 0: none (this instant's)
	// The kernel's state of the CPU as last read: refreshed only when the
	// kernel says it may have changed (kshim_take_touched_cpus()).
	std::int64_t hrtimer_cached = 0;
	std::int64_t waking_cached = 0;
	std::string curr_comm;
	bool idle_reported = false;
	std::vector<kshim_idle_state> idle_at_start;	// the kernel's counters
};

class Simulator {
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

	std::int64_t start_ = 0, now_ = 0, end_ = 0;
	std::int64_t tick_ns_ = 0, next_tick_ = 0;
	std::optional<Board> board_;
	std::vector<Cpu> cpus_;
	std::vector<Thread> threads_;
	std::unordered_map<int, std::size_t> by_pid_;
	std::vector<std::pair<const char *, Tracepoint>> tracepoints_;

	Tracepoint tracepoint_of(const char *name)
	{
		for (const auto &[p, t] : tracepoints_)
			if (p == name)
				return t;
		tracepoints_.emplace_back(name, classify(name));
		return tracepoints_.back().second;
	}
	std::priority_queue<TimedEvent, std::vector<TimedEvent>, std::greater<>> queue_;
	std::uint64_t seq_ = 0;
	// The jitter's random numbers: mt19937_64's output is fixed by the
	// standard, and the transforms below are ours, so a seed gives the
	// same run with any standard library.
	std::mt19937_64 rng_;
	double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }	// [0, 1)
	double normal()		// Box-Muller
	{
		const double u1 = 1.0 - uniform(), u2 = uniform();
		return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
	}
	// an activation's amount of work or time, varied
	std::int64_t jittered(std::int64_t amount)
	{
		if (options_.jitter <= 0)
			return amount;
		const double f = 1.0 + options_.jitter * jitter_run_sd * std::clamp(normal(), -3.0, 3.0);
		return std::max<std::int64_t>(1, std::llround(static_cast<double>(amount) * f));
	}
	// how late a timer's interrupt arrives
	std::int64_t timer_latency()
	{
		if (options_.jitter <= 0)
			return 0;
		return std::llround(-std::log(1.0 - uniform()) * options_.jitter * jitter_timer_mean_ns);
	}
	unsigned long calibration_capacity_ = 0;
	bool overutilized_ = false;
	std::size_t live_threads_ = 0;
	bool eas_enabled_ = false;

	// rt-app resources, by name as rt-app keeps them; events refer to them
	// by index (resolved once, in setup).
	struct Resource {
		std::string name;
		std::pair<bool, std::int64_t> timer;	// shared timer: started, next expiry
		// suspend/wait waiters, each with the mutex it takes back when woken
		std::deque<std::pair<std::size_t, int>> waiters;
		int owner = -1;				// mutex
		std::deque<std::size_t> lock_waiters;
		std::size_t barrier_users = 0;
		std::vector<std::size_t> barrier_waiting;
		std::int64_t messages = 0;		// hackbench channel
		std::optional<std::size_t> receiver;
	};
	std::vector<Resource> resources_;
	// [task][phase][event] -> (resource, wait's mutex), -1 when none
	std::vector<std::vector<std::vector<std::pair<int, int>>>> resource_ids_;
	void resolve_resources();

	Result result_;
	std::optional<RunMetrics> metrics_;
	bool switched_ = true;	// a sched_switch since dispatch() last looked for CPUs gone idle

	void setup();
	void fork_threads();
	void on_event(const kshim_trace_event &ev);
	void advance_to(std::int64_t t);
	std::int64_t next_event_time();
	void read_touched_cpus();
	std::optional<std::int64_t> completion_time(std::size_t cpu, const Thread &th) const;
	void settle_and_dispatch();
	void dispatch();
	void step(Thread &th, int cpu);
	void next_event(Thread &th);
	void block(Thread &th, int cpu, const char *why, int resource = -1);
	void wake(std::size_t index, int waker_cpu);
	void finish(Thread &th);
	void push(Timed kind, std::int64_t time, int index, unsigned khz = 0)
	{
		queue_.push({time, seq_++, kind, index, khz});
	}
	// A thread's wake-up timer: on a board an hrtimer on the CPU it sleeps
	// on, whose interrupt arrives a little after the expiry.
	void arm_timer(Thread &th, std::int64_t time)
	{
		time += timer_latency();
		th.timer_at = time;
		push(Timed::wake, time, static_cast<int>(th.index));
	}
	std::uint64_t next_timer_on(int cpu) const;
	Thread *thread_of(int pid)
	{
		auto it = by_pid_.find(pid);
		return it == by_pid_.end() ? nullptr : &threads_[it->second];
	}
	void release_mutex(int mutex, int cpu);
	void acquire_for_waiter(int mutex, std::size_t waiter, int cpu);
	Result collect();
};

void Simulator::setup()
{
	const auto n = kernel_.cpus.size();
	board_.emplace(platform_, kernel_, options_.idle_power_uw);
	metrics_.emplace(n);
	cpus_.resize(n);
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

void Simulator::resolve_resources()
{
	std::map<std::string, int> by_name;
	auto id = [&](const std::string &name) {
		if (name.empty())
			return -1;
		auto [it, added] = by_name.emplace(name, static_cast<int>(resources_.size()));
		if (added) {
			Resource r;
			r.name = name;
			resources_.push_back(std::move(r));
		}
		return it->second;
	};
	for (const auto &task : workload_.tasks) {
		auto &task_ids = resource_ids_.emplace_back();
		for (const auto &phase : task.phases) {
			auto &phase_ids = task_ids.emplace_back();
			for (const auto &e : phase.events)
				phase_ids.emplace_back(id(e.resource), id(e.mutex));
		}
	}
}

void Simulator::fork_threads()
{
	const auto n = cpus_.size();
	// Threads stay where they are: CPUs point at the one they run.
	std::size_t total = 0;
	for (const auto &task : workload_.tasks)
		total += static_cast<std::size_t>(task.instances);
	threads_.reserve(total);
	for (const auto &task : workload_.tasks) {
		std::uint64_t mask = 0;
		for (unsigned c : task.cpus) {
			if (c >= n)
				throw workload::Error(fmt::format("{}: task \"{}\": cpus names CPU{}, the board has CPU0-{}",
								  workload_.name, task.name, c, n - 1));
			mask |= 1ULL << c;
		}
		if (!mask)
			mask = n >= 64 ? ~0ULL : (1ULL << n) - 1;
		const auto &ids = resource_ids_[static_cast<std::size_t>(&task - workload_.tasks.data())];
		for (std::size_t p = 0; p < task.phases.size(); p++)
			for (std::size_t i = 0; i < task.phases[p].events.size(); i++)
				if (task.phases[p].events[i].kind == EventKind::barrier)
					resources_[static_cast<std::size_t>(ids[p][i].first)].barrier_users +=
						static_cast<std::size_t>(task.instances);
		for (int i = 0; i < task.instances; i++) {
			Thread th;
			th.comm = task.instances > 1 ? fmt::format("{}-{}", task.name, i) : task.name;
			th.task = &task;
			th.own_timers.resize(resources_.size());
			th.index = threads_.size();
			threads_.push_back(std::move(th));
			auto &t = threads_.back();
			const int pid = kshim_task_fork(t.comm.c_str(), static_cast<int>(options_.fork_cpu), mask);
			if (pid < 0)
				throw kshim::KernelFault(fmt::format("fork of {} failed: {}", t.comm, pid));
			t.pid = pid;
			metrics_->add_task(now_);
			start_pc(t);
			by_pid_[pid] = threads_.size() - 1;
			live_threads_++;
			if (task.nice && kshim_task_set_nice(pid, task.nice))
				throw workload::Error(fmt::format("task \"{}\": nice {} refused", task.name, task.nice));
			if ((task.util_min >= 0 || task.util_max >= 0) &&
			    kshim_task_set_uclamp(pid, task.util_min, task.util_max))
				throw workload::Error(fmt::format("task \"{}\": util_min {} / util_max {} refused by "
								  "sched_setattr()",
								  task.name, task.util_min, task.util_max));
			kshim_settle();
		}
	}
	if (threads_.empty())
		throw workload::Error(fmt::format("{}: no thread to run (every task has instance 0)", workload_.name));
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
		cpu.curr = next;
		switched_ = true;
		cpu.curr_thread = to;
		cpu.curr_comm = next ? ev.comm[1] : "<idle>";
		cpu.done_at.reset();
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
		const auto target = static_cast<std::size_t>(ev.args[1]);
		metrics_->on_frequency(t, ev.args[0], static_cast<int>(ev.args[1]));
		if (target < cpus_.size())
			push(Timed::frequency, t + board_->cpu(target).transition_latency_ns, static_cast<int>(target),
			     static_cast<unsigned>(ev.args[0]));
	} else if (tp == Tracepoint::sched_overutilized) {
		overutilized_ = ev.args[0] != 0;
	}
}

void Simulator::advance_to(std::int64_t t)
{
	const std::int64_t dt = t - now_;
	if (dt > 0) {
		board_->run(dt, [&](std::size_t c) { return cpus_[c].curr != 0; });
		for (std::size_t c = 0; c < cpus_.size(); c++) {
			auto *th = cpus_[c].curr_thread;
			if (!cpus_[c].curr || !th)
				continue;
			std::int64_t d = 0;
			if (th->state == Thread::State::computing && !th->runtime_end) {
				const u128 done = board_->work_in(c, dt);
				d = done >= static_cast<u128>(th->work_left) ? th->work_left : static_cast<std::int64_t>(done);
				th->work_left -= d;
			}
			metrics_->on_run(th->index, c, dt, d);
		}
		if (overutilized_)
			result_.overutilized_ns += dt;
	}
	now_ = t;
	kshim_set_now(static_cast<unsigned long long>(t));
}

// When the thread's work on `cpu` runs out at the CPU's present speed;
// nullopt when it never will (a CPU of capacity 0).
std::optional<std::int64_t> Simulator::completion_time(std::size_t cpu, const Thread &th) const
{
	if (th.runtime_end)
		return std::max(now_, *th.runtime_end);
	const auto needs = board_->time_for(cpu, th.work_left);
	if (!needs)
		return std::nullopt;
	return now_ + *needs;
}

void Simulator::read_touched_cpus()
{
	for (auto touched = kshim_take_touched_cpus(); touched; touched &= touched - 1) {
		const int c = std::countr_zero(touched);
		if (static_cast<std::size_t>(c) >= cpus_.size())
			continue;
		cpus_[static_cast<std::size_t>(c)].waking_cached = static_cast<std::int64_t>(kshim_cpu_waking_at(c));
		cpus_[static_cast<std::size_t>(c)].hrtimer_cached = static_cast<std::int64_t>(kshim_next_hrtimer(c));
	}
}

std::int64_t Simulator::next_event_time()
{
	std::int64_t t = std::min(end_, next_tick_);
	if (!queue_.empty())
		t = std::min(t, queue_.top().time);
	read_touched_cpus();
	for (std::size_t c = 0; c < cpus_.size(); c++) {
		auto &cpu = cpus_[c];
		// a CPU leaving an idle state handles its interrupts once out
		const auto waking = cpu.waking_cached;
		if (waking)
			t = std::min(t, std::max(now_, waking));
		cpu.next_hrtimer = cpu.hrtimer_cached;
		if (cpu.next_hrtimer)
			t = std::min(t, std::max({now_, cpu.next_hrtimer, waking}));
		const auto *th = cpu.curr_thread;
		if (!th || th->state != Thread::State::computing)
			continue;
		// Progress is summed in pieces, each rounded down: the work can
		// outlast its estimate by a few units, then it is estimated again.
		if (!cpu.done_at || *cpu.done_at <= now_)
			cpu.done_at = completion_time(c, *th).value_or(end_);
		t = std::min(t, *cpu.done_at);
	}
	return t;
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
		for (std::size_t c = 0; c < cpus_.size(); c++) {
			auto *th = cpus_[c].curr_thread;
			if (!th)
				continue;
			if (th->state == Thread::State::computing &&
			    (th->runtime_end ? *th->runtime_end <= now_ : th->work_left == 0)) {
				th->state = Thread::State::ready;
				th->runtime_end.reset();
			}
			if (th->state == Thread::State::ready) {
				step(*th, static_cast<int>(c));
				stepped = true;
			}
		}
		// CPUs that became idle run do_idle() (nohz idle balance, tick
		// stopped), which can pull work and so start the round again.
		// Only a switch changes what a CPU runs.
		bool entered_idle = false;
		const bool switched = std::exchange(switched_, false);
		for (std::size_t c = 0; switched && c < cpus_.size(); c++) {
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

// Moves the program counter past the current event; false when the
// thread has run its last loop.
bool advance_pc(Thread &th)
{
	const auto &phases = th.task->phases;
	if (++th.event < phases[th.phase].events.size())
		return true;
	th.event = 0;
	const auto &phase = phases[th.phase];
	if (phase.loop < 0 || ++th.phase_iter < phase.loop)
		return true;	// this phase again
	th.phase_iter = 0;
	for (std::size_t tries = 0; tries <= phases.size(); tries++) {
		if (++th.phase == phases.size()) {
			th.phase = 0;
			if (th.task->loop >= 0 && ++th.loop_iter >= th.task->loop)
				return false;
		}
		if (!phases[th.phase].events.empty() && phases[th.phase].loop != 0)
			return true;
	}
	return false;
}

// Where a new thread starts: the first phase with something to run.
void start_pc(Thread &th)
{
	const auto &phases = th.task->phases;
	th.at_end = th.task->loop == 0;
	for (th.phase = 0; th.phase < phases.size(); th.phase++)
		if (!phases[th.phase].events.empty() && phases[th.phase].loop != 0)
			return;
	th.phase = 0;
	th.at_end = true;
}

void Simulator::block(Thread &th, int cpu, const char *why, int resource)
{
	th.state = Thread::State::sleeping;
	th.blocked_on = why;
	th.blocked_resource = resource;
	th.armed_cpu = cpu;
	if (const int ret = kshim_task_sleep(th.pid))
		throw kshim::KernelFault(fmt::format("{} could not block: {}", th.comm, ret));
	kshim_settle();
}

void Simulator::wake(std::size_t index, int waker_cpu)
{
	auto &th = threads_[index];
	if (th.state != Thread::State::sleeping) {
		th.pending_block.reset();	// woken before it could sleep
		return;
	}
	th.state = Thread::State::ready;
	th.blocked_on = nullptr;
	result_.wakeups++;
	if (!th.task->cpus.empty() && th.task->cpus.size() == 1) {
		result_.pinned_wakeups++;
	} else if (eas_enabled_ && options_.count_eas_decisions) {
		// select_task_rq_fair() asks find_energy_efficient_cpu() first; the
		// same call on the same state, just before, says whether it chose.
		struct kshim_task_info info {};
		kshim_task_info(th.pid, &info);
		if (kshim_feec(th.pid, info.cpu, waker_cpu) >= 0)
			result_.eas_wakeups++;
		else
			result_.non_eas_wakeups++;
	} else {
		result_.non_eas_wakeups++;
	}
	if (const int ret = kshim_task_wake(th.pid, waker_cpu); ret < 0)
		throw kshim::KernelFault(fmt::format("{} could not be woken on CPU {}: {}", th.comm, waker_cpu, ret));
	kshim_settle();
}

void Simulator::finish(Thread &th)
{
	th.state = Thread::State::exited;
	metrics_->on_exit(th.index, now_ - start_);
	live_threads_--;
	if (const int ret = kshim_task_exit(th.pid))
		throw kshim::KernelFault(fmt::format("{} could not exit: {}", th.comm, ret));
	kshim_settle();
}

void Simulator::release_mutex(int mutex, int cpu)
{
	auto &m = resources_[static_cast<std::size_t>(mutex)];
	if (m.lock_waiters.empty()) {
		m.owner = -1;
		return;
	}
	const auto next = m.lock_waiters.front();
	m.lock_waiters.pop_front();
	m.owner = threads_[next].pid;
	wake(next, cpu);
}

// A waiter signalled on a condition takes its mutex back before it runs.
void Simulator::acquire_for_waiter(int mutex, std::size_t waiter, int cpu)
{
	if (mutex < 0) {
		wake(waiter, cpu);
		return;
	}
	auto &m = resources_[static_cast<std::size_t>(mutex)];
	if (m.owner < 0) {
		m.owner = threads_[waiter].pid;
		wake(waiter, cpu);
	} else {
		m.lock_waiters.push_back(waiter);
		threads_[waiter].blocked_on = "lock";
		threads_[waiter].blocked_resource = mutex;
	}
}

// Runs the thread's events from its program counter while it stays current
// on `cpu`: instantaneous ones in order, until one needs the CPU for a
// while (run, runtime), blocks, or the thread ends.
void Simulator::step(Thread &th, int cpu)
{
	const auto index = th.index;
	const auto &ids = resource_ids_[static_cast<std::size_t>(th.task - workload_.tasks.data())];
	auto advance = [&] {
		if (!advance_pc(th))
			th.at_end = true;
	};
	for (int guard = 0; cpus_[static_cast<std::size_t>(cpu)].curr == th.pid && th.state == Thread::State::ready;
	     guard++) {
		if (guard > 100000)
			throw workload::Error(fmt::format("{}: task \"{}\": its events loop forever without taking "
							  "time (add a run, sleep or timer)",
							  workload_.name, th.task->name));
		if (!th.delay_done) {
			th.delay_done = true;
			// the thread's launch: rt-app's delay, and the jitter's start
			const auto start = options_.jitter > 0
						   ? std::llround(uniform() * options_.jitter * jitter_start_max_ns)
						   : 0;
			if (th.task->delay_ns > 0 || start > 0) {
				arm_timer(th, now_ + th.task->delay_ns + start);
				block(th, cpu, "delay");
				continue;
			}
		}
		if (th.pending_block) {
			const auto [why, resource] = *th.pending_block;
			th.pending_block.reset();
			block(th, cpu, why, resource);
			continue;
		}
		if (th.at_end) {
			finish(th);
			break;
		}
		const Event &e = th.task->phases[th.phase].events[th.event];
		const auto [rid, mutex] = ids[th.phase][th.event];
		auto &res = resources_[static_cast<std::size_t>(std::max(rid, 0))];
		switch (e.kind) {
		case EventKind::run:
			th.work_left = jittered(e.amount) * static_cast<std::int64_t>(calibration_capacity_);
			th.state = Thread::State::computing;
			cpus_[static_cast<std::size_t>(cpu)].done_at.reset();
			advance();
			break;
		case EventKind::runtime:
			th.runtime_end = now_ + jittered(e.amount);
			th.state = Thread::State::computing;
			cpus_[static_cast<std::size_t>(cpu)].done_at.reset();
			advance();
			break;
		case EventKind::sleep:
			advance();
			arm_timer(th, now_ + e.amount);
			block(th, cpu, "sleep");
			break;
		case EventKind::timer: {
			auto &timer = e.resource.rfind("unique", 0) == 0 ? th.own_timers[static_cast<std::size_t>(rid)]
									 : res.timer;
			// rt-app starts every timer from the one t_zero all threads
			// share (the workload's start): the first deadline is
			// t_zero + period, wherever the thread first reaches it.
			if (!timer.first) {
				timer.first = true;
				timer.second = start_;
			}
			timer.second += e.amount;
			const std::int64_t slack = timer.second - now_;
			metrics_->on_period(th.index, slack);
			advance();
			if (slack <= 0) {
				// missed: rt-app does not sleep; a relative timer restarts from now
				if (!e.absolute)
					timer.second = now_;
				break;
			}
			arm_timer(th, timer.second);
			block(th, cpu, "timer", rid);
			break;
		}
		case EventKind::suspend:
		case EventKind::wait:
			if (e.kind == EventKind::wait) {
				if (resources_[static_cast<std::size_t>(mutex)].owner != th.pid)
					throw workload::Error(fmt::format("{}: task \"{}\": wait on \"{}\" without holding "
									  "mutex \"{}\"",
									  workload_.name, th.task->name, e.resource, e.mutex));
				release_mutex(mutex, cpu);
			}
			res.waiters.emplace_back(index, e.kind == EventKind::wait ? mutex : -1);
			advance();
			if (cpus_[static_cast<std::size_t>(cpu)].curr != th.pid) {
				th.pending_block = std::pair{"wait", rid};
				break;
			}
			block(th, cpu, e.kind == EventKind::wait ? "wait" : "suspend", rid);
			break;
		case EventKind::resume:
		case EventKind::signal:
		case EventKind::broadcast: {
			advance();
			auto &waiters = res.waiters;
			// rt-app's resume and broad wake every waiter, signal the first
			std::size_t n = e.kind == EventKind::signal ? std::min<std::size_t>(1, waiters.size()) : waiters.size();
			while (n--) {
				const auto [w, w_mutex] = waiters.front();
				waiters.pop_front();
				acquire_for_waiter(w_mutex, w, cpu);
			}
			break;
		}
		case EventKind::lock: {
			advance();
			if (res.owner < 0) {
				res.owner = th.pid;
			} else {
				res.lock_waiters.push_back(index);
				block(th, cpu, "lock", rid);
			}
			break;
		}
		case EventKind::unlock:
			advance();
			if (res.owner == th.pid)
				release_mutex(rid, cpu);
			break;
		case EventKind::barrier: {
			advance();
			if (res.barrier_waiting.size() + 1 >= res.barrier_users) {
				auto waiting = std::move(res.barrier_waiting);
				res.barrier_waiting.clear();
				for (auto w : waiting)
					wake(w, cpu);
			} else {
				res.barrier_waiting.push_back(index);
				block(th, cpu, "barrier", rid);
			}
			break;
		}
		case EventKind::yield:
			advance();
			kshim_task_yield(th.pid);
			kshim_settle();
			break;
		case EventKind::send: {
			advance();
			res.messages++;
			if (res.receiver) {
				const auto r = *res.receiver;
				res.receiver.reset();
				wake(r, cpu);
			}
			break;
		}
		case EventKind::receive: {
			if (res.messages > 0) {
				res.messages--;
				advance();
			} else {
				// back to this same event when a message wakes it
				res.receiver = index;
				block(th, cpu, "receive", rid);
			}
			break;
		}
		}
	}
}

Result Simulator::run()
{
	start_ = now_ = static_cast<std::int64_t>(kshim_now());
	rng_.seed(options_.seed ^ 0x6a09e667f3bcc909ULL);
	end_ = start_ + options_.duration_ns;
	setup();
	resolve_resources();
	if (options_.pelt_events && kshim_sched_trace_attach_pelt())
		throw kshim::KernelFault("could not attach the PELT tracepoint probes");
	kshim::set_trace_sink([this](const kshim_trace_event &ev) { on_event(ev); });
	kshim::set_timer_source([this](int cpu) { return next_timer_on(cpu); });
	for (std::size_t c = 0; c < cpus_.size(); c++) {
		cpus_[c].idle_at_start = idle_states_of(static_cast<int>(c));
		cpus_[c].waking_cached = static_cast<std::int64_t>(kshim_cpu_waking_at(static_cast<int>(c)));
		cpus_[c].hrtimer_cached = static_cast<std::int64_t>(kshim_next_hrtimer(static_cast<int>(c)));
	}
	kshim_take_touched_cpus();
	for (auto &cpu : cpus_)
		cpu.curr_comm = cpu.curr ? "?" : "<idle>";
	next_tick_ = (now_ / tick_ns_ + 1) * tick_ns_;

	fork_threads();
	dispatch();
	while (live_threads_ > 0) {
		const std::int64_t t = next_event_time();
		advance_to(t);
		if (now_ >= end_)
			break;
		// hardware first: frequency transitions that complete now
		while (!queue_.empty() && queue_.top().time <= now_ && queue_.top().kind == Timed::frequency) {
			const auto ev = queue_.top();
			queue_.pop();
			const auto c = static_cast<std::size_t>(ev.index);
			if (board_->cpu(c).khz != ev.khz) {
				board_->set_frequency(c, ev.khz);
				cpus_[c].done_at.reset();
			}
		}
		// CPUs now out of an idle state take the interrupts that woke them
		read_touched_cpus();
		for (std::size_t c = 0; c < cpus_.size(); c++) {
			const auto waking = cpus_[c].waking_cached;
			if (waking && waking <= now_) {
				kshim_settle();
				break;
			}
		}
		// work that ran out, then the threads' timers, in the order armed
		dispatch();
		while (!queue_.empty() && queue_.top().time <= now_) {
			const auto ev = queue_.top();
			queue_.pop();
			if (ev.kind == Timed::frequency) {
				queue_.push(ev);	// armed by a kernel entry at this instant
				break;
			}
			auto &th = threads_[static_cast<std::size_t>(ev.index)];
			if (th.state == Thread::State::sleeping) {
				if (th.expired_at < 0)
					th.expired_at = ev.time;
				th.timer_at = -1;
				// the timer interrupt waits for its CPU to leave an idle state
				const auto ready = static_cast<std::int64_t>(kshim_cpu_interrupt_at(th.armed_cpu));
				if (ready > now_) {
					push(Timed::wake, ready, ev.index);
					continue;
				}
			}
			wake(static_cast<std::size_t>(ev.index), th.armed_cpu);
			dispatch();
		}
		// hrtimers armed during this instant are seen by the next round
		for (std::size_t c = 0; c < cpus_.size(); c++) {
			const auto hr = cpus_[c].next_hrtimer;
			if (hr && hr <= now_) {
				kshim_cpu_timers(static_cast<int>(c));
				settle_and_dispatch();
			}
		}
		if (now_ >= next_tick_) {
			// NO_HZ_IDLE: CPUs whose tick is stopped (idle) take none
			for (std::size_t c = 0; c < cpus_.size(); c++) {
				if (kshim_tick_stopped(static_cast<int>(c)))
					continue;
				kshim_cpu_tick(static_cast<int>(c));
				result_.ticks++;
				kshim_settle();
			}
			dispatch();
			next_tick_ += tick_ns_;
		}
	}
	if (live_threads_ == 0)
		result_.completion_ns = now_ - start_;
	kshim::set_trace_sink({});
	kshim::set_timer_source({});
	return collect();
}

// The earliest wake-up timer armed on cpu (0: none). A scan of the threads:
// asked once per idle-state choice, on boards with a cpuidle driver.
std::uint64_t Simulator::next_timer_on(int cpu) const
{
	std::int64_t next = -1;
	for (const auto &th : threads_)
		if (th.timer_at >= 0 && th.armed_cpu == cpu && (next < 0 || th.timer_at < next))
			next = th.timer_at;
	return next < 0 ? 0 : static_cast<std::uint64_t>(next);
}

Result Simulator::collect()
{
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
	for (const auto &th : threads_) {
		TaskResult t;
		t.name = th.comm;
		t.pid = th.pid;
		metrics_->fill(th.index, t);
		switch (th.state) {
		case Thread::State::exited:
			t.state = "exited";
			break;
		case Thread::State::sleeping:
			t.state = !th.blocked_on ? "sleeping"
				  : th.blocked_resource < 0
					  ? fmt::format("blocked ({})", th.blocked_on)
					  : fmt::format("blocked ({} \"{}\")", th.blocked_on,
							resources_[static_cast<std::size_t>(th.blocked_resource)].name);
			break;
		default:
			t.state = "runnable";
		}
		r.tasks.push_back(std::move(t));
	}
	r.wakeup_latency_ns = metrics_->all_latencies().summary();
	if (r.simulated_ns > 0 && calibration_capacity_)
		r.throughput = static_cast<double>(metrics_->work_done()) /
			       (static_cast<double>(r.simulated_ns) * static_cast<double>(calibration_capacity_));
	r.fingerprint = metrics_->fingerprint();
	r.fingerprint_events = metrics_->fingerprint_events();
	r.context_switches = metrics_->context_switches();
	r.migrations = metrics_->migrations();
	r.kernel_warnings = kshim::kernel_warnings().size();
	return r;
}

} // namespace

Result simulate(const dts::Platform &platform, const kshim::Kernel &kernel, const workload::Workload &workload,
		const Options &options, EventSink *sink)
{
	if (options.duration_ns <= 0)
		throw workload::Error("the duration must be positive");
	Simulator sim(platform, kernel, workload, options, sink);
	return sim.run();
}

} // namespace sh::sim
