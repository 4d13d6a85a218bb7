// SPDX-License-Identifier: GPL-2.0
//
// The workload executor: the workload's threads run as rt-app runs them.
// Each thread has a program counter over its task's events and the
// resources they name (mutexes, conditions, barriers, timers, hackbench's
// channels); the executor makes the system calls a thread makes (fork,
// sleep, wake, yield, exit) into the kernel, and steps a thread through
// its instantaneous events while the kernel keeps it current on its CPU.
// What takes time — work, a timer — goes back to the loop, which owns the
// clock and the CPUs (Executor::Host). Run-to-run variation (the jitter
// model) is drawn here, from the run's seed.
#pragma once

#include "harness/sim/simulator.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sh::sim {

class RunMetrics;

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
	// hrtimer_nanosleep()'s range: the timer may expire from timer_soft
	// on, and its own interrupt comes at timer_at (the range's end, late
	// by the interrupt's latency); -1 once it expired or none is armed
	std::int64_t timer_soft = -1;
	std::int64_t timer_at = -1;
	std::uint64_t timer_seq = no_timer;	// the loop's event for that interrupt
	static constexpr std::uint64_t no_timer = ~std::uint64_t{0};
	std::int64_t expired_at = -1;		// when it expired, until the wake-up
	std::size_t index = 0;			// in Executor::threads()
	const char *blocked_on = nullptr;	// "sleep", "timer", ... while sleeping
	// rt-app's wait (pthread_cond_wait) unlocked its mutex, and the waiter
	// it woke preempted it before it could sleep: it sleeps when it runs
	// again, unless the signal came first (the futex would not sleep then).
	std::optional<std::pair<const char *, int>> pending_block;
	int blocked_resource = -1;
	std::vector<std::pair<bool, std::int64_t>> own_timers;	// "unique*" timers, by resource
	// rt-app's trace markers: the loop (one pass over a phase's events)
	// under way and what its rtapp_stats line reports (rt-app's
	// log_data_t, in µs); a run's start until it ends, and the deadline
	// of the timer it sleeps to until it wakes
	struct RtappLoop {
		bool started = false;	// a loop began
		bool open = false;	// and has not ended
		std::int64_t start = 0;
		long thread_loop = 0, phase_loop = 0;
		std::size_t phase = 0;
		long run = 0, c_run = 0, c_period = 0, slack = 0, wu_lat = 0;
	} rtapp_loop;
	std::int64_t run_started = -1;
	std::int64_t timer_deadline = -1;
};

class Executor {
public:
	// What the executor needs of the loop.
	class Host {
	public:
		virtual std::int64_t now() const = 0;
		virtual std::int64_t start() const = 0;
		// the pid the kernel runs on cpu (0: idle)
		virtual int current_on(int cpu) const = 0;
		// the thread current on cpu was given new work or a new end
		virtual void work_changed(int cpu) = 0;
		// the thread's wake-up timer interrupts its CPU at `time` (the
		// host keeps the event's sequence in Thread::timer_seq)
		virtual void arm_wake(std::size_t thread, std::int64_t time) = 0;
		// the thread has something to do again (woken)
		virtual void thread_ready(const Thread &th) = 0;
		// rt-app's trace markers: whether a trace takes them, and one
		// written to trace_marker by the task current on cpu
		virtual bool wants_markers() const = 0;
		virtual void marker(int cpu, std::string_view text) = 0;

	protected:
		~Host() = default;
	};

	// calibration_capacity: the capacity a run amount is measured at.
	Executor(const workload::Workload &workload, const Options &options, std::size_t cpus,
		 unsigned long calibration_capacity, bool eas, Host &host, RunMetrics &metrics);

	// Forks every thread from options.fork_cpu, as the launcher does:
	// with a launcher task (rt-app's main thread), that task runs there,
	// forks them all and then sleeps until the end.
	void fork_all();
	// Runs the thread's events while it stays current on cpu: instantaneous
	// ones in order, until one needs the CPU for a while, blocks, or the
	// thread ends.
	void step(Thread &th, int cpu);
	// Wakes the thread (a resume, a message) from waker_cpu; a timer's
	// expiry wakes it in the hrtimer interrupt waker_cpu handles
	// (in_interrupt: nothing settles until the interrupt returns).
	void wake(std::size_t index, int waker_cpu, bool in_interrupt = false);

	std::vector<Thread> &threads() { return threads_; }
	const std::vector<Thread> &threads() const { return threads_; }
	Thread *thread_of(int pid)
	{
		const auto i = static_cast<std::size_t>(pid);
		return pid >= 0 && i < by_pid_.size() && by_pid_[i] != no_thread ? &threads_[by_pid_[i]] : nullptr;
	}
	std::size_t live() const { return live_; }
	// The earliest wake-up timer armed on cpu (0: none).
	std::uint64_t next_timer_on(int cpu) const;
	// An hrtimer interrupt on cpu at `now` (__hrtimer_run_queues()): the
	// sleepers armed there that it expires, in the order it runs them —
	// by the end of their range, up to the first whose range has not
	// begun —, taken off the CPU and appended to `due`.
	void take_due_timers(int cpu, std::int64_t now, std::vector<std::size_t> &due);
	// "runnable", "exited", "sleeping", "blocked (lock "m")": as the report says.
	std::string state_of(const Thread &th) const;
	// The wake-ups: all, pinned, and (when counted) EAS's and the others.
	void report(Result &r) const;

private:
	// Forks the workload's launcher task onto the fork CPU and runs it
	// there; -1 for a workload without one.
	int start_launcher();

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

	void resolve_resources();
	Resource &resource(int id) { return resources_[static_cast<std::size_t>(id)]; }
	// step()'s parts: the launch, and the events by kind (inline: defined
	// in executor.cpp, and inlined into step() there)
	bool launch(Thread &th, int cpu);
	inline void run_event(Thread &th, int cpu, std::pair<int, int> ids);
	inline void start_computing(Thread &th, int cpu, const workload::Event &e);
	inline void wait_for_timer(Thread &th, int cpu, const workload::Event &e, int rid);
	inline void wait_on(Thread &th, int cpu, const workload::Event &e, int rid, int mutex);
	inline void wake_waiters(Resource &condition, bool first_only, int cpu);
	inline void take_mutex(Thread &th, int cpu, int rid);
	inline void arrive_at_barrier(Thread &th, int cpu, int rid);
	inline void send_message(Resource &channel, int cpu);
	inline void receive_message(Thread &th, int cpu, int rid);
	void block(Thread &th, int cpu, const char *why, int resource = -1);
	// rt-app's markers (rt-app.c's log_ftrace() calls) around the event
	// the thread runs next on cpu, and at its start and end
	void rtapp_markers(Thread &th, int cpu);
	void rtapp_loop_end(Thread &th, int cpu);
	void rtapp_marker(int cpu, unsigned category, std::string_view text);
	std::int64_t user_clock(int cpu) const;
	void finish(Thread &th);
	void release_mutex(int mutex, int cpu);
	void acquire_for_waiter(int mutex, std::size_t waiter, int cpu);
	// A thread's wake-up timer (a sleep: hrtimer_nanosleep()): an hrtimer
	// on the CPU it sleeps on, with the range the kernel gives the task's
	// sleeps; its interrupt arrives a little after the range's end.
	void arm_timer(Thread &th, int cpu, std::int64_t time);

	// The jitter's random numbers: mt19937_64's output is fixed by the
	// standard, and the transforms are ours, so a seed gives the same run
	// with any standard library.
	double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }	// [0, 1)
	double normal();
	std::int64_t jittered(std::int64_t amount);	// an activation's work or time, varied
	std::int64_t timer_latency();			// how late a timer's interrupt arrives

	const workload::Workload &workload_;
	const Options &options_;
	std::size_t cpus_;
	unsigned long calibration_capacity_;
	bool eas_;
	Host &host_;
	RunMetrics &metrics_;
	std::mt19937_64 rng_;
	std::optional<double> spare_normal_;	// the polar method's second deviate
	std::vector<Thread> threads_;
	std::vector<std::vector<std::size_t>> armed_;	// by CPU: the threads whose timer is armed there
	// thread index by pid (the kernel's pids are small and dense: a
	// lookup per tracepoint hit, no hashing)
	static constexpr std::size_t no_thread = ~std::size_t{0};
	std::vector<std::size_t> by_pid_;
	std::size_t live_ = 0;
	unsigned markers_ = 0;	// the RtappTrace categories written
	// rt-app resources, by name as rt-app keeps them; events refer to them
	// by index (resolved once).
	std::vector<Resource> resources_;
	// [task][phase][event] -> (resource, wait's mutex), -1 when none
	std::vector<std::vector<std::vector<std::pair<int, int>>>> resource_ids_;
	std::size_t wakeups_ = 0, pinned_wakeups_ = 0, eas_wakeups_ = 0, non_eas_wakeups_ = 0, requeued_wakeups_ = 0;
};

} // namespace sh::sim
