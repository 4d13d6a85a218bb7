// SPDX-License-Identifier: GPL-2.0
#include "harness/sim/executor.h"
#include "harness/sim/kernel_entry.h"

#include "harness/sim/metrics.h"

#include <kshim/api.h>
#include <kshim/cost.h>
#include <kshim/sched.h>

#include <fmt/format.h>

#include <cstring>

#include <algorithm>
#include <cmath>
#include <map>

namespace sh::sim {

namespace {

using workload::Event;
using workload::EventKind;

// Moves the program counter past the current event; false when the
// thread has run its last loop.
[[gnu::always_inline]] inline bool advance_pc(Thread &th)
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

// rt-app's timespec_to_usec(): nanoseconds to the nearest microsecond.
long usec(std::int64_t ns)
{
	return std::lround(static_cast<double>(ns) / 1000.0);
}

// std::llround(), rounding halves away from zero, without libm's call: a
// run's jittered amount is rounded once per activation (hackbench: every
// message). Below 2^53 the truncation and the remainder are exact; above,
// a double is an integer already.
std::int64_t round_half_away(double x)
{
	if (!(std::fabs(x) < 0x1p62))
		return std::llround(x);
	const auto whole = static_cast<std::int64_t>(x);	// toward zero
	const double rest = x - static_cast<double>(whole);
	if (rest >= 0.5)
		return whole + 1;
	if (rest <= -0.5)
		return whole - 1;
	return whole;
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

// Past the event just run; at_end once that was the thread's last.
[[gnu::always_inline]] inline void next_event(Thread &th)
{
	if (!advance_pc(th))
		th.at_end = true;
}

} // namespace

Executor::Executor(const workload::Workload &workload, const Options &options, std::size_t cpus,
		   unsigned long calibration_capacity, bool eas, Host &host, RunMetrics &metrics)
	: workload_(workload), options_(options), cpus_(cpus), calibration_capacity_(calibration_capacity), eas_(eas),
	  host_(host), metrics_(metrics), armed_(cpus)
{
	rng_.seed(options_.seed ^ 0x6a09e667f3bcc909ULL);
	resolve_resources();
}

// Marsaglia's polar method: two normal deviates from one logarithm and no
// trigonometry (Box-Muller's cosine and logarithm per deviate were an eighth
// of hackbench's instructions); the second is kept for the next call.
double Executor::normal()
{
	if (spare_normal_) {
		const double v = *spare_normal_;
		spare_normal_.reset();
		return v;
	}
	double u, v, s;
	do {
		u = 2.0 * uniform() - 1.0;
		v = 2.0 * uniform() - 1.0;
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	const double m = std::sqrt(-2.0 * std::log(s) / s);
	spare_normal_ = v * m;
	return u * m;
}

std::int64_t Executor::jittered(std::int64_t amount)
{
	if (options_.jitter <= 0)
		return amount;
	const double f = 1.0 + options_.jitter * jitter_run_sd * std::clamp(normal(), -3.0, 3.0);
	return std::max<std::int64_t>(1, round_half_away(static_cast<double>(amount) * f));
}

std::int64_t Executor::timer_latency()
{
	if (options_.jitter <= 0)
		return 0;
	return round_half_away(-std::log(1.0 - uniform()) * options_.jitter * jitter_timer_mean_ns);
}

void Executor::arm_timer(Thread &th, int cpu, std::int64_t time)
{
	const long long slack = kshim_task_timer_slack(th.pid);
	if (slack < 0)
		throw kshim::KernelFault(fmt::format("{}: no timer slack to read: {}", th.comm, slack));
	th.armed_cpu = cpu;
	th.timer_soft = time;
	th.timer_at = time + slack + timer_latency();
	armed_[static_cast<std::size_t>(cpu)].push_back(th.index);
	host_.arm_wake(th.index, th.timer_at);
}

void Executor::take_due_timers(int cpu, std::int64_t now, std::vector<std::size_t> &due)
{
	auto &armed = armed_[static_cast<std::size_t>(cpu)];
	// the timerqueue's order: the range's end, then the order armed; a
	// timer whose interrupt came and is still being taken (timer_at -1)
	// was at its end already
	auto before = [&](std::size_t a, std::size_t b) {
		const auto &x = threads_[a], &y = threads_[b];
		return std::pair(x.timer_at, x.timer_seq) < std::pair(y.timer_at, y.timer_seq);
	};
	while (!armed.empty()) {
		auto first = std::min_element(armed.begin(), armed.end(), before);
		auto &th = threads_[*first];
		if (th.timer_soft > now)
			break;
		due.push_back(*first);
		th.timer_soft = th.timer_at = -1;
		th.timer_seq = Thread::no_timer;
		*first = armed.back();
		armed.pop_back();
	}
}

std::string Executor::state_of(const Thread &th) const
{
	switch (th.state) {
	case Thread::State::exited:
		return "exited";
	case Thread::State::sleeping:
		return !th.blocked_on ? "sleeping"
		       : th.blocked_resource < 0
			       ? fmt::format("blocked ({})", th.blocked_on)
			       : fmt::format("blocked ({} \"{}\")", th.blocked_on,
					     resources_[static_cast<std::size_t>(th.blocked_resource)].name);
	default:
		return "runnable";
	}
}

void Executor::report(Result &r) const
{
	r.wakeups = wakeups_;
	r.pinned_wakeups = pinned_wakeups_;
	r.requeued_wakeups = requeued_wakeups_;
	r.eas_wakeups = eas_wakeups_;
	r.non_eas_wakeups = non_eas_wakeups_;
}

void Executor::resolve_resources()
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

namespace {

// A task that loops forever through runs and sleeps of 0 and events that
// neither block nor wait for another thread: every pass is at one instant.
// A sleep of 0 still blocks and wakes through the kernel, so the step's
// own guard does not see it; without jitter no timer delay makes time
// pass either, and the run would end as the loop's livelock check after
// ten million events (tens of seconds), blaming the kernel. With jitter a
// sleep's timer is late by a draw, so a sleep takes time; a run of 0 does
// not, and runs of 0 alone were an event storm (15 s of CPU per simulated
// 0.2 s).
bool loops_without_time(const workload::Task &task, bool timers_jittered)
{
	if (task.loop >= 0)
		return false;
	for (const auto &phase : task.phases)
		for (const auto &e : phase.events) {
			switch (e.kind) {
			case workload::EventKind::run:
			case workload::EventKind::runtime:
				if (e.amount > 0)
					return false;
				break;
			case workload::EventKind::sleep:
				if (e.amount > 0 || timers_jittered)
					return false;
				break;
			case workload::EventKind::resume:
			case workload::EventKind::unlock:
			case workload::EventKind::signal:
			case workload::EventKind::broadcast:
			case workload::EventKind::yield:
				break;
			default:	// timers, and what waits for another thread
				return false;
			}
		}
	return true;
}

} // namespace

int Executor::start_launcher()
{
	if (workload_.launcher.empty())
		return -1;
	const int cpu = static_cast<int>(options_.fork_cpu);
	const auto only_fork_cpu = kshim::cpuset_of(std::span<const unsigned>(&options_.fork_cpu, 1));
	const KernelEntry entry(KSHIM_COST_OTHER);
	const int pid = kshim_task_fork(workload_.launcher.c_str(), cpu, &only_fork_cpu);
	if (pid < 0)
		throw kshim::KernelFault(fmt::format("fork of {} (the workload's launcher) failed: {}", workload_.launcher, pid));
	kshim_settle();
	struct kshim_task_info info{};
	if (kshim_task_info(pid, &info) || !info.running || info.cpu != cpu)
		throw kshim::KernelFault(fmt::format("{} (the workload's launcher) does not run on CPU{} after its fork, "
						     "so it cannot fork the threads there",
						     workload_.launcher, cpu));
	return pid;
}

void Executor::fork_all()
{
	const auto n = cpus_;
	// rt-app's main thread forks the threads one after another while it
	// runs (pthread_create(); its own work between them is not modelled),
	// so nothing reschedules its CPU until it sleeps.
	const int launcher = start_launcher();
	if (launcher >= 0 && host_.wants_markers())
		markers_ = workload_.rtapp_trace;
	rtapp_marker(static_cast<int>(options_.fork_cpu), workload::rtapp_trace_main, "rtapp_main: event=start");
	// Threads stay where they are: CPUs point at the one they run.
	std::size_t total = 0;
	for (const auto &task : workload_.tasks)
		total += static_cast<std::size_t>(task.instances);
	threads_.reserve(total);
	for (const auto &task : workload_.tasks) {
		for (unsigned c : task.cpus)
			if (c >= n)
				throw workload::Error(fmt::format("{}: task \"{}\": cpus names CPU{}, the board has CPU0-{}",
								  workload_.name, task.name, c, n - 1));
		if (loops_without_time(task, options_.jitter > 0))
			throw workload::Error(fmt::format(
				"{}: task \"{}\": its events loop forever without taking time: {} (add a run, sleep "
				"or timer that takes time)",
				workload_.name, task.name,
				options_.jitter > 0 ? "its runs are 0 long and it neither sleeps nor waits"
						    : "its runs and sleeps are 0 long and --jitter 0 delays no timer"));
		// no cpus: every CPU
		const auto allowed = kshim::cpuset_of(task.cpus);
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
			const KernelEntry entry(KSHIM_COST_OTHER);
			const int pid = kshim_task_fork(t.comm.c_str(), static_cast<int>(options_.fork_cpu),
							task.cpus.empty() ? nullptr : &allowed);
			if (pid < 0)
				throw kshim::KernelFault(fmt::format("fork of {} failed: {}", t.comm, pid));
			t.pid = pid;
			metrics_.add_task(host_.now());
			start_pc(t);
			if (static_cast<std::size_t>(pid) >= by_pid_.size())
				by_pid_.resize(static_cast<std::size_t>(pid) + 1, no_thread);
			by_pid_[static_cast<std::size_t>(pid)] = threads_.size() - 1;
			live_++;
			if (task.nice && kshim_task_set_nice(pid, task.nice))
				throw workload::Error(fmt::format("{}: task \"{}\": nice {} refused", workload_.name,
								  task.name, task.nice));
			if (task.util_min >= 0 || task.util_max >= 0 || task.sched_flags) {
				if (const int err = kshim_task_setattr(pid, task.util_min, task.util_max, task.sched_flags))
					throw workload::Error(fmt::format(
						"{}: task \"{}\": util_min {} / util_max {} / sched_flags {:#x} refused by "
						"sched_setattr(): {} ({}){}",
						workload_.name, task.name, task.util_min, task.util_max, task.sched_flags, err,
						std::strerror(-err),
						task.sched_flags ? " (a flag this kernel does not know? sched_flags is "
								   "for patches that add one)"
								 : ""));
			}
			if (launcher < 0)
				kshim_settle();
		}
	}
	if (threads_.empty())
		throw workload::Error(fmt::format("{}: no thread to run (every task has instance 0)", workload_.name));
	if (launcher >= 0) {
		// and then waits for the run's duration (rt-app's main thread
		// sleeps, then joins its threads): the run ends first
		const KernelEntry entry(KSHIM_COST_SCHEDULE);
		if (const int ret = kshim_task_sleep(launcher))
			throw kshim::KernelFault(fmt::format("{} (the workload's launcher) could not sleep after forking "
							     "its threads: {}",
							     workload_.launcher, ret));
		kshim_settle();
	}
}

void Executor::block(Thread &th, int cpu, const char *why, int resource)
{
	th.state = Thread::State::sleeping;
	th.blocked_on = why;
	th.blocked_resource = resource;
	th.armed_cpu = cpu;
	const KernelEntry entry(KSHIM_COST_SCHEDULE);
	if (const int ret = kshim_task_sleep(th.pid))
		throw kshim::KernelFault(fmt::format("{} could not block: {}", th.comm, ret));
	kshim_settle();
}

void Executor::wake(std::size_t index, int waker_cpu, bool in_interrupt)
{
	auto &th = threads_[index];
	if (th.state != Thread::State::sleeping) {
		th.pending_block.reset();	// woken before it could sleep
		return;
	}
	th.state = Thread::State::ready;
	th.blocked_on = nullptr;
	host_.thread_ready(th);
	wakeups_++;
	if (!th.task->cpus.empty() && th.task->cpus.size() == 1) {
		pinned_wakeups_++;
	} else if (eas_ && options_.count_eas_decisions) {
		// select_task_rq_fair() asks find_energy_efficient_cpu() first; the
		// same call on the same state, just before, says whether it chose.
		// The harness asks: not the kernel's time.
		const KernelEntry report_only(KSHIM_COST_NONE);
		struct kshim_task_info info {};
		kshim_task_info(th.pid, &info);
		// Still queued (6.12's delayed dequeue): ttwu_runnable() puts it
		// back where it is and nothing is selected; feec() here would only
		// move its PELT signal (sync_entity_load_avg() of a queued entity).
		if (info.on_rq)
			requeued_wakeups_++;
		// select_task_rq_fair() asks feec() only while the waker's root
		// domain is not overutilized (6.12 tests it there; 6.1's feec()
		// returns at once): asking anyway would sync the task's PELT
		// before wake_affine() reads it
		else if (kshim_rd_overutilized(waker_cpu))
			non_eas_wakeups_++;
		else if (kshim_feec(th.pid, info.cpu, waker_cpu) >= 0)
			eas_wakeups_++;
		else
			non_eas_wakeups_++;
	} else {
		non_eas_wakeups_++;
	}
	const KernelEntry entry(KSHIM_COST_WAKEUP);
	if (in_interrupt) {
		if (const int ret = kshim_task_wake_in_irq(th.pid); ret < 0)
			throw kshim::KernelFault(fmt::format("{} could not be woken by its timer on CPU {}: {}",
							     th.comm, waker_cpu, ret));
		return;
	}
	if (const int ret = kshim_task_wake(th.pid, waker_cpu); ret < 0)
		throw kshim::KernelFault(fmt::format("{} could not be woken on CPU {}: {}", th.comm, waker_cpu, ret));
	kshim_settle();
}

void Executor::finish(Thread &th)
{
	th.state = Thread::State::exited;
	metrics_.on_exit(th.index, host_.now() - host_.start());
	live_--;
	const KernelEntry entry(KSHIM_COST_SCHEDULE);
	if (const int ret = kshim_task_exit(th.pid))
		throw kshim::KernelFault(fmt::format("{} could not exit: {}", th.comm, ret));
	kshim_settle();
}

void Executor::release_mutex(int mutex, int cpu)
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
void Executor::acquire_for_waiter(int mutex, std::size_t waiter, int cpu)
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

// The thread's launch: rt-app's delay, and the jitter's start. True when
// the thread sleeps until then.
bool Executor::launch(Thread &th, int cpu)
{
	th.delay_done = true;
	const auto start =
		options_.jitter > 0 ? std::llround(uniform() * options_.jitter * jitter_start_max_ns) : 0;
	if (th.task->delay_ns <= 0 && start <= 0)
		return false;
	arm_timer(th, cpu, host_.now() + th.task->delay_ns + start);
	block(th, cpu, "delay");
	return true;
}

// The events' handlers, step()'s cases, are inlined into it as they were
// when they were its switch: step() runs for every event (hackbench's are
// some 160000 per simulated second), and calls there cost some 4% of a run.

// run, runtime: the CPU for a while, measured in work or in time.
[[gnu::always_inline]] inline void Executor::start_computing(Thread &th, int cpu, const Event &e)
{
	if (e.kind == EventKind::run)
		th.work_left = jittered(e.amount) * static_cast<std::int64_t>(calibration_capacity_);
	else
		th.runtime_end = host_.now() + jittered(e.amount);
	if (markers_) {
		th.rtapp_loop.c_run += usec(e.amount);
		th.run_started = user_clock(cpu);
	}
	th.state = Thread::State::computing;
	host_.work_changed(cpu);
	next_event(th);
}

[[gnu::always_inline]] inline void Executor::wait_for_timer(Thread &th, int cpu, const Event &e, int rid)
{
	auto &timer = e.resource.rfind("unique", 0) == 0 ? th.own_timers[static_cast<std::size_t>(rid)]
							 : resource(rid).timer;
	// rt-app starts every timer from the one t_zero all threads
	// share (the workload's start): the first deadline is
	// t_zero + period, wherever the thread first reaches it.
	if (!timer.first) {
		timer.first = true;
		timer.second = host_.start();
	}
	timer.second += e.amount;
	const std::int64_t slack = timer.second - host_.now();
	metrics_.on_period(th.index, slack);
	next_event(th);
	if (markers_) {
		auto &loop = th.rtapp_loop;
		loop.c_period += usec(e.amount);
		loop.slack = (workload_.cumulative_slack ? loop.slack : 0) + usec(timer.second - user_clock(cpu));
		if (slack <= 0)
			loop.wu_lat = 0;
		else
			th.timer_deadline = timer.second;
	}
	if (slack <= 0) {
		// missed: rt-app does not sleep; a relative timer restarts from now
		if (!e.absolute)
			timer.second = host_.now();
		return;
	}
	arm_timer(th, cpu, timer.second);
	block(th, cpu, "timer", rid);
}

// suspend, and wait (pthread_cond_wait(), which releases its mutex first).
[[gnu::always_inline]] inline void Executor::wait_on(Thread &th, int cpu, const Event &e, int rid, int mutex)
{
	const bool is_wait = e.kind == EventKind::wait;
	if (is_wait) {
		if (resource(mutex).owner != th.pid)
			throw workload::Error(fmt::format("{}: task \"{}\": wait on \"{}\" without holding mutex \"{}\"",
							  workload_.name, th.task->name, e.resource, e.mutex));
		release_mutex(mutex, cpu);
	}
	resource(rid).waiters.emplace_back(th.index, is_wait ? mutex : -1);
	next_event(th);
	if (host_.current_on(cpu) != th.pid) {
		th.pending_block = std::pair{"wait", rid};
		return;
	}
	block(th, cpu, is_wait ? "wait" : "suspend", rid);
}

// rt-app's resume and broad wake every waiter, signal the first.
[[gnu::always_inline]] inline void Executor::wake_waiters(Resource &condition, bool first_only, int cpu)
{
	auto &waiters = condition.waiters;
	std::size_t n = first_only ? std::min<std::size_t>(1, waiters.size()) : waiters.size();
	while (n--) {
		const auto [w, w_mutex] = waiters.front();
		waiters.pop_front();
		acquire_for_waiter(w_mutex, w, cpu);
	}
}

[[gnu::always_inline]] inline void Executor::take_mutex(Thread &th, int cpu, int rid)
{
	auto &m = resource(rid);
	if (m.owner < 0) {
		m.owner = th.pid;
	} else {
		m.lock_waiters.push_back(th.index);
		block(th, cpu, "lock", rid);
	}
}

// The last to arrive wakes the others and goes on.
[[gnu::always_inline]] inline void Executor::arrive_at_barrier(Thread &th, int cpu, int rid)
{
	auto &barrier = resource(rid);
	if (barrier.barrier_waiting.size() + 1 >= barrier.barrier_users) {
		auto waiting = std::move(barrier.barrier_waiting);
		barrier.barrier_waiting.clear();
		for (auto w : waiting)
			wake(w, cpu);
	} else {
		barrier.barrier_waiting.push_back(th.index);
		block(th, cpu, "barrier", rid);
	}
}

[[gnu::always_inline]] inline void Executor::send_message(Resource &channel, int cpu)
{
	channel.messages++;
	if (channel.receiver) {
		const auto r = *channel.receiver;
		channel.receiver.reset();
		wake(r, cpu);
	}
}

[[gnu::always_inline]] inline void Executor::receive_message(Thread &th, int cpu, int rid)
{
	auto &channel = resource(rid);
	if (channel.messages > 0) {
		channel.messages--;
		next_event(th);
	} else {
		// back to this same event when a message wakes it
		channel.receiver = th.index;
		block(th, cpu, "receive", rid);
	}
}

// The event at the thread's program counter; `ids` its resource and wait's
// mutex. Only events that name a resource look it up (a workload without
// resources has none).
[[gnu::always_inline]] inline void Executor::run_event(Thread &th, int cpu, std::pair<int, int> ids)
{
	const Event &e = th.task->phases[th.phase].events[th.event];
	const auto [rid, mutex] = ids;
	switch (e.kind) {
	case EventKind::run:
	case EventKind::runtime:
		start_computing(th, cpu, e);
		break;
	case EventKind::sleep:
		next_event(th);
		arm_timer(th, cpu, host_.now() + e.amount);
		block(th, cpu, "sleep");
		break;
	case EventKind::timer:
		wait_for_timer(th, cpu, e, rid);
		break;
	case EventKind::suspend:
	case EventKind::wait:
		wait_on(th, cpu, e, rid, mutex);
		break;
	case EventKind::resume:
	case EventKind::signal:
	case EventKind::broadcast:
		next_event(th);
		wake_waiters(resource(rid), e.kind == EventKind::signal, cpu);
		break;
	case EventKind::lock:
		next_event(th);
		take_mutex(th, cpu, rid);
		break;
	case EventKind::unlock:
		next_event(th);
		if (resource(rid).owner == th.pid)
			release_mutex(rid, cpu);
		break;
	case EventKind::barrier:
		next_event(th);
		arrive_at_barrier(th, cpu, rid);
		break;
	case EventKind::yield:
		next_event(th);
		{
			const KernelEntry entry(KSHIM_COST_SCHEDULE);
			kshim_task_yield(th.pid);
			kshim_settle();
		}
		break;
	case EventKind::send:
		next_event(th);
		send_message(resource(rid), cpu);
		break;
	case EventKind::receive:
		receive_message(th, cpu, rid);
		break;
	}
}

// --- rt-app's trace markers ------------------------------------------------

// What clock_gettime() reads on cpu: its clock (kshim_cpu_clock()), past
// the harness's time while kernel code it ran takes time.
std::int64_t Executor::user_clock(int cpu) const
{
	return static_cast<std::int64_t>(kshim_cpu_clock(cpu));
}

void Executor::rtapp_marker(int cpu, unsigned category, std::string_view text)
{
	if (markers_ & category)
		host_.marker(cpu, text);
}

// What step() finds on the thread's return to its CPU, and what it is about
// to run: a run or a timer's sleep ended (rt-app's clock_gettime() after
// loadwait() and clock_nanosleep()), a loop begins (the previous one ended).
void Executor::rtapp_markers(Thread &th, int cpu)
{
	auto &loop = th.rtapp_loop;
	const auto now = user_clock(cpu);
	if (th.run_started >= 0) {
		loop.run += usec(now - th.run_started);
		th.run_started = -1;
	}
	if (th.timer_deadline >= 0) {
		loop.wu_lat += usec(now - th.timer_deadline);
		th.timer_deadline = -1;
	}
	// a loop begins at its phase's first event (the program counter is
	// past any event it started, blocked in or not)
	if (th.at_end || th.pending_block || th.event != 0)
		return;
	long thread_loop = 0;
	if (loop.started) {
		rtapp_loop_end(th, cpu);
		// past the last phase: rt-app's thread_loop counts on, whatever
		// the task's loop (ours counts only a finite one)
		thread_loop = loop.thread_loop + (th.phase_iter == 0 && th.phase <= loop.phase);
	}
	loop = {true, true, now, thread_loop, static_cast<long>(th.phase_iter), th.phase, 0, 0, 0, 0, 0};
	rtapp_marker(cpu, workload::rtapp_trace_loop,
		     fmt::format("rtapp_loop: event=start thread_loop={} phase={} phase_loop={}", loop.thread_loop,
				 loop.phase, loop.phase_loop));
}

void Executor::rtapp_loop_end(Thread &th, int cpu)
{
	auto &loop = th.rtapp_loop;
	if (!loop.open)
		return;
	loop.open = false;
	rtapp_marker(cpu, workload::rtapp_trace_loop,
		     fmt::format("rtapp_loop: event=end thread_loop={} phase={} phase_loop={}", loop.thread_loop,
				 loop.phase, loop.phase_loop));
	rtapp_marker(cpu, workload::rtapp_trace_stats,
		     fmt::format("rtapp_stats: period={} run={} wu_lat={} slack={} c_period={} c_run={}",
				 usec(user_clock(cpu) - loop.start), loop.run, loop.wu_lat, loop.slack, loop.c_period,
				 loop.c_run));
}

// Runs the thread's events from its program counter while it stays current
// on `cpu`: instantaneous ones in order, until one needs the CPU for a
// while (run, runtime), blocks, or the thread ends.
void Executor::step(Thread &th, int cpu)
{
	const auto &ids = resource_ids_[static_cast<std::size_t>(th.task - workload_.tasks.data())];
	for (int guard = 0; th.state == Thread::State::ready && host_.current_on(cpu) == th.pid; guard++) {
		if (guard > 100000)
			throw workload::Error(fmt::format("{}: task \"{}\": its events loop forever without taking "
							  "time (add a run, sleep or timer)",
							  workload_.name, th.task->name));
		if (!th.delay_done) {
			if (markers_) {
				// thread 0 first takes the time every thread's timers start from
				if (th.index == 0)
					rtapp_marker(cpu, workload::rtapp_trace_task,
						     fmt::format("rtapp_main: event=clock_ref data={}", usec(host_.start())));
				rtapp_marker(cpu, workload::rtapp_trace_task, "rtapp_task: event=start");
			}
			if (launch(th, cpu))
				continue;
		}
		if (markers_)
			rtapp_markers(th, cpu);
		if (th.pending_block) {
			const auto [why, rid] = *th.pending_block;
			th.pending_block.reset();
			block(th, cpu, why, rid);
			continue;
		}
		if (th.at_end) {
			if (markers_) {
				rtapp_loop_end(th, cpu);
				rtapp_marker(cpu, workload::rtapp_trace_task, "rtapp_task: event=end");
			}
			finish(th);
			break;
		}
		if (markers_ & workload::rtapp_trace_event) {
			const auto &marked = th.task->phases[th.phase].events[th.event].rtapp;
			if (marked.id >= 0)
				rtapp_marker(cpu, workload::rtapp_trace_event,
					     fmt::format("rtapp_event: id={} type={} desc={}", marked.id, marked.type,
							 marked.desc));
		}
		run_event(th, cpu, ids[th.phase][th.event]);
	}
}

// The earliest wake-up timer armed on cpu (0: none): asked once per
// idle-state choice, on boards with a cpuidle driver.
std::uint64_t Executor::next_timer_on(int cpu) const
{
	std::int64_t next = -1;
	for (const auto index : armed_[static_cast<std::size_t>(cpu)])
		if (const auto at = threads_[index].timer_at; at >= 0 && (next < 0 || at < next))
			next = at;
	return next < 0 ? 0 : static_cast<std::uint64_t>(next);
}

} // namespace sh::sim
