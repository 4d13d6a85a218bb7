// SPDX-License-Identifier: GPL-2.0
//
// What a run measures, apart from how it runs: observers of the kernel's
// tracepoints (switches, wake-ups, migrations, frequency requests) and of
// the workload's progress that turn a run into the report's numbers — the
// fingerprint of the kernel's decisions, each task's CPU time, wake-up
// latency, runnable wait, migrations, rt-app slack — in memory that does
// not grow with the run's length.
#pragma once

#include "harness/sim/latency_histogram.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sh::sim {

struct TaskResult;

// A stable 64-bit hash whose value does not depend on the standard
// library (std::hash may differ between builds).
class Fingerprint {
public:
	// a word at a time: a multiply by the golden ratio's odd constant and
	// a fold of the high half down, so every bit of v reaches every bit of
	// the hash within two words (FNV-1a byte by byte cost 8 multiplies)
	void add(std::int64_t v)
	{
		hash_ = (hash_ ^ static_cast<std::uint64_t>(v)) * 0x9e3779b97f4a7c15ULL;
		hash_ ^= hash_ >> 32;
	}
	std::uint64_t value() const { return hash_; }

private:
	std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// One task's measures. A task is an index into the workload's threads; the
// tracepoint observers take -1 for a task that is not the workload's.
struct TaskMetrics {
	std::int64_t cpu_time = 0, runnable_wait = 0, work_done = 0;
	std::int64_t runnable_since = -1, woken_at = -1;
	LatencyHistogram latencies;	// sched_wakeup -> switched in
	std::size_t periods = 0, missed = 0;
	std::int64_t slack_min = 0, slack_sum = 0;
	std::size_t migrations = 0;
	std::vector<bool> cpus_used;		// by CPU
	std::vector<std::int64_t> cpu_time_on;	// by CPU
	std::optional<std::int64_t> exit_time;
};

class RunMetrics {
public:
	explicit RunMetrics(std::size_t cpus)
		: cpus_(cpus), pressure_(cpus), pressure_pelt_(cpus), cpufreq_pressure_(cpus), limited_(cpus)
	{
	}

	// A task joins (forked at `now`, runnable).
	void add_task(std::int64_t now);
	TaskMetrics &task(std::size_t task) { return tasks_[task]; }
	const TaskMetrics &task(std::size_t task) const { return tasks_[task]; }

	// The kernel's tracepoints. A task preempted (prev_runnable) waits
	// from the switch; a wake-up's latency counts from `since` (the expiry
	// of the timer that woke it, before the idle state's exit latency).
	void on_switch(std::int64_t t, int cpu, int prev_pid, int next_pid, int prev_task, bool prev_runnable,
		       int next_task);
	void on_wakeup(std::int64_t t, bool new_task, int pid, int target_cpu, int task, std::int64_t since);
	void on_migrate(std::int64_t t, int pid, int orig_cpu, int dest_cpu, int task);
	void on_frequency(std::int64_t t, long long khz, int cpu);
	// The kernel's thermal pressure of cpu is `value` from t (it holds it
	// until the next change: the average is exact).
	void on_thermal_pressure(std::size_t cpu, unsigned long value, std::int64_t t);
	// 6.12's cpufreq pressure of cpu (a limited policy max) from t.
	void on_cpufreq_pressure(std::size_t cpu, unsigned long value, std::int64_t t);
	std::vector<double> cpufreq_pressure_avg(std::int64_t start, std::int64_t end) const;
	// The scheduler's PELT average of it (rq->avg_thermal), sampled at
	// each tick: piecewise constant between samples.
	void on_thermal_load_avg(std::size_t cpu, unsigned long value, std::int64_t t);
	// The time-averages of each CPU's thermal pressure and of its PELT
	// average, from start to end.
	std::vector<double> thermal_pressure_avg(std::int64_t start, std::int64_t end) const;
	std::vector<double> thermal_load_avg(std::int64_t start, std::int64_t end) const;
	// Whether cpu's policy limits it below its highest frequency
	// (cpu_frequency_limits: policy->max < cpuinfo.max_freq), from t.
	void on_policy_limited(std::size_t cpu, bool limited, std::int64_t t);
	std::vector<std::int64_t> limited_ns(std::int64_t end) const;

	// A cooling device (its thermal_cooling_device id) in state `state`
	// from t; the first call for an id adds it.
	struct Cooling {
		int id = 0;
		std::vector<unsigned> cpus;
		unsigned long max_state = 0;
		unsigned long state = 0;
		std::int64_t since = 0;
		std::vector<std::int64_t> state_ns;	// index: state
		std::size_t updates = 0;		// cdev_update events
	};
	void add_cooling_device(int id, std::vector<unsigned> cpus, unsigned long max_state, unsigned long state,
				std::int64_t t);
	void on_cooling_state(int id, unsigned long state, std::int64_t t);
	// Residencies up to end.
	std::vector<Cooling> cooling_devices(std::int64_t end) const;

	// The workload's progress: a task ran on cpu for dt; it did `work`
	// (capacity-ns); a periodic timer fired with `slack` to spare
	// (negative: the period was missed); the task exited.
	void on_cpu_time(std::size_t task, std::size_t cpu, std::int64_t dt)
	{
		tasks_[task].cpu_time += dt;
		tasks_[task].cpu_time_on[cpu] += dt;
	}
	void on_work(std::size_t task, std::int64_t work) { tasks_[task].work_done += work; }
	void on_period(std::size_t task, std::int64_t slack);
	void on_exit(std::size_t task, std::int64_t since_start) { tasks_[task].exit_time = since_start; }

	std::uint64_t fingerprint() const { return fingerprint_.value(); }
	std::size_t fingerprint_events() const { return fingerprint_events_; }
	std::size_t context_switches() const { return context_switches_; }
	std::size_t migrations() const { return migrations_; }
	const LatencyHistogram &all_latencies() const { return all_latencies_; }
	std::int64_t work_done() const;
	// The task's measures as the report gives them (name, pid and state
	// are the executor's).
	void fill(std::size_t task, TaskResult &out) const;

private:
	std::size_t cpus_;
	std::vector<TaskMetrics> tasks_;
	Fingerprint fingerprint_;
	std::size_t fingerprint_events_ = 0, context_switches_ = 0, migrations_ = 0;
	LatencyHistogram all_latencies_;	// every wake-up of every task
	struct Pressure {
		unsigned long value = 0;
		std::int64_t since = 0;
		long double integral = 0;	// capacity x ns
	};
	std::vector<Pressure> pressure_, pressure_pelt_, cpufreq_pressure_, limited_;
	std::vector<Cooling> cooling_;
	static void step(Pressure &p, unsigned long value, std::int64_t t);
	static std::vector<double> averages(const std::vector<Pressure> &signal, std::int64_t start, std::int64_t end);
};

} // namespace sh::sim
