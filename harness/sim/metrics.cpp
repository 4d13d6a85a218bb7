// SPDX-License-Identifier: GPL-2.0
#include "harness/sim/metrics.h"

#include "harness/sim/simulator.h"

#include <algorithm>

namespace sh::sim {

void RunMetrics::add_task(std::int64_t now)
{
	auto &m = tasks_.emplace_back();
	m.cpu_time_on.resize(cpus_);
	m.cpus_used.resize(cpus_);
	m.runnable_since = now;
}

void RunMetrics::on_switch(std::int64_t t, int cpu, int prev_pid, int next_pid, int prev_task, bool prev_runnable,
			   int next_task)
{
	fingerprint_events_++;
	fingerprint_.add(1);
	fingerprint_.add(cpu);
	fingerprint_.add(t);
	fingerprint_.add(prev_pid);
	fingerprint_.add(next_pid);
	context_switches_++;
	if (prev_task >= 0 && prev_runnable)
		tasks_[static_cast<std::size_t>(prev_task)].runnable_since = t;
	if (next_task < 0)
		return;
	auto &m = tasks_[static_cast<std::size_t>(next_task)];
	if (m.runnable_since >= 0)
		m.runnable_wait += t - m.runnable_since;
	m.runnable_since = -1;
	if (m.woken_at >= 0) {
		m.latencies.add(t - m.woken_at);
		all_latencies_.add(t - m.woken_at);
	}
	m.woken_at = -1;
	m.cpus_used[static_cast<std::size_t>(cpu)] = true;
}

void RunMetrics::on_wakeup(std::int64_t t, bool new_task, int pid, int target_cpu, int task, std::int64_t since)
{
	fingerprint_events_++;
	fingerprint_.add(new_task ? 3 : 2);
	fingerprint_.add(t);
	fingerprint_.add(pid);
	fingerprint_.add(target_cpu);
	if (task < 0)
		return;
	auto &m = tasks_[static_cast<std::size_t>(task)];
	m.woken_at = since;
	m.runnable_since = t;
}

void RunMetrics::on_migrate(std::int64_t t, int pid, int orig_cpu, int dest_cpu, int task)
{
	fingerprint_events_++;
	fingerprint_.add(4);
	fingerprint_.add(t);
	fingerprint_.add(pid);
	fingerprint_.add(orig_cpu);
	fingerprint_.add(dest_cpu);
	migrations_++;
	if (task >= 0)
		tasks_[static_cast<std::size_t>(task)].migrations++;
}

void RunMetrics::on_frequency(std::int64_t t, long long khz, int cpu)
{
	fingerprint_events_++;
	fingerprint_.add(5);
	fingerprint_.add(t);
	fingerprint_.add(khz);
	fingerprint_.add(cpu);
}

void RunMetrics::step(Pressure &p, unsigned long value, std::int64_t t)
{
	p.integral += static_cast<long double>(p.value) * static_cast<long double>(t - p.since);
	p.value = value;
	p.since = t;
}

std::vector<double> RunMetrics::averages(const std::vector<Pressure> &signal, std::int64_t start, std::int64_t end)
{
	std::vector<double> avg;
	for (const auto &p : signal) {
		const auto total = p.integral + static_cast<long double>(p.value) * static_cast<long double>(end - p.since);
		avg.push_back(end > start ? static_cast<double>(total / static_cast<long double>(end - start)) : 0.0);
	}
	return avg;
}

void RunMetrics::on_thermal_pressure(std::size_t cpu, unsigned long value, std::int64_t t)
{
	step(pressure_[cpu], value, t);
}

void RunMetrics::on_cpufreq_pressure(std::size_t cpu, unsigned long value, std::int64_t t)
{
	step(cpufreq_pressure_[cpu], value, t);
}

std::vector<double> RunMetrics::cpufreq_pressure_avg(std::int64_t start, std::int64_t end) const
{
	return averages(cpufreq_pressure_, start, end);
}

void RunMetrics::on_thermal_load_avg(std::size_t cpu, unsigned long value, std::int64_t t)
{
	step(pressure_pelt_[cpu], value, t);
}

std::vector<double> RunMetrics::thermal_pressure_avg(std::int64_t start, std::int64_t end) const
{
	return averages(pressure_, start, end);
}

std::vector<double> RunMetrics::thermal_load_avg(std::int64_t start, std::int64_t end) const
{
	return averages(pressure_pelt_, start, end);
}

void RunMetrics::on_policy_limited(std::size_t cpu, bool limited, std::int64_t t)
{
	step(limited_[cpu], limited ? 1 : 0, t);
}

std::vector<std::int64_t> RunMetrics::limited_ns(std::int64_t end) const
{
	std::vector<std::int64_t> ns;
	for (const auto &p : limited_)
		ns.push_back(static_cast<std::int64_t>(p.integral) + static_cast<std::int64_t>(p.value) * (end - p.since));
	return ns;
}

void RunMetrics::add_cooling_device(int id, std::vector<unsigned> cpus, unsigned long max_state,
				    unsigned long state, std::int64_t t)
{
	cooling_.push_back({id, std::move(cpus), max_state, state, t, std::vector<std::int64_t>(max_state + 1, 0), 0});
}

void RunMetrics::on_cooling_state(int id, unsigned long state, std::int64_t t)
{
	for (auto &c : cooling_) {
		if (c.id != id)
			continue;
		c.updates++;
		if (c.state < c.state_ns.size())
			c.state_ns[c.state] += t - c.since;
		c.state = state;
		c.since = t;
		if (state >= c.state_ns.size())
			c.state_ns.resize(state + 1, 0);
	}
}

std::vector<RunMetrics::Cooling> RunMetrics::cooling_devices(std::int64_t end) const
{
	auto out = cooling_;
	for (auto &c : out) {
		if (c.state < c.state_ns.size())
			c.state_ns[c.state] += end - c.since;
		c.since = end;
	}
	return out;
}

void RunMetrics::on_period(std::size_t task, std::int64_t slack)
{
	auto &m = tasks_[task];
	m.periods++;
	m.slack_sum += slack;
	m.slack_min = m.periods == 1 ? slack : std::min(m.slack_min, slack);
	if (slack <= 0)
		m.missed++;
}

std::int64_t RunMetrics::work_done() const
{
	std::int64_t work = 0;
	for (const auto &m : tasks_)
		work += m.work_done;
	return work;
}

void RunMetrics::fill(std::size_t task, TaskResult &t) const
{
	const auto &m = tasks_[task];
	t.cpu_time_ns = m.cpu_time;
	t.runnable_wait_ns = m.runnable_wait;
	t.work_done = m.work_done;
	t.wakeup_latency_ns = m.latencies.summary();
	t.periods = m.periods;
	t.missed_periods = m.missed;
	t.slack_min_ns = m.slack_min;
	t.slack_mean_ns = m.periods ? m.slack_sum / static_cast<std::int64_t>(m.periods) : 0;
	t.migrations = m.migrations;
	for (unsigned c = 0; c < m.cpus_used.size(); c++)
		if (m.cpus_used[c])
			t.cpus_used.push_back(c);
	t.exit_ns = m.exit_time;
	t.cpu_time_by_cpu_ns = m.cpu_time_on;
}

} // namespace sh::sim
