// SPDX-License-Identifier: GPL-2.0
#include "harness/report/ftrace.h"

#include <kshim/api.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

namespace sh::report {

namespace {

// sched_switch's prev_state, as TP_printk() prints it.
std::string task_state(long long state)
{
	if (state == KSHIM_SWITCH_PREEMPTED)
		return "R+";
	if (state == 0)
		return "R";
	static constexpr char letters[] = "SDTtXZPI";
	std::string s;
	for (int bit = 0; bit < 8; bit++) {
		if (state & (1LL << bit)) {
			if (!s.empty())
				s += '|';
			s += letters[bit];
		}
	}
	return s;
}

// A CPU mask as the kernel's %*pbl prints it: "0-3,6".
std::string cpu_list(unsigned long long mask)
{
	std::string s;
	for (int c = 0; c < 64;) {
		if (!(mask & (1ULL << c))) {
			c++;
			continue;
		}
		int last = c;
		while (last + 1 < 64 && (mask & (1ULL << (last + 1))))
			last++;
		s += (s.empty() ? "" : ",") + (last == c ? fmt::format("{}", c) : fmt::format("{}-{}", c, last));
		c = last + 1;
	}
	return s;
}

std::string fields(const kshim_trace_event &ev)
{
	const std::string_view name(ev.name);
	const auto *a = ev.args;
	if (name == "sched_switch")
		return fmt::format("prev_comm={} prev_pid={} prev_prio={} prev_state={} ==> next_comm={} "
				   "next_pid={} next_prio={}",
				   ev.comm[0], a[0], a[1], task_state(a[2]), ev.comm[1], a[3], a[4]);
	if (name == "sched_wakeup" || name == "sched_wakeup_new")
		return fmt::format("comm={} pid={} prio={} target_cpu={:03}", ev.comm[0], a[0], a[1], a[2]);
	if (name == "sched_migrate_task")
		return fmt::format("comm={} pid={} prio={} orig_cpu={} dest_cpu={}", ev.comm[0], a[0], a[1], a[2],
				   a[3]);
	if (name == "cpu_frequency" || name == "cpu_idle")
		return fmt::format("state={} cpu_id={}", static_cast<unsigned long long>(a[0]) & 0xffffffffULL, a[1]);
	if (name == "sched_overutilized")
		return fmt::format("overutilized={} span={}", a[0], cpu_list(static_cast<unsigned long long>(a[1])));
	if (name == "sched_pelt_cfs")
		return fmt::format("cpu={} path=/ load={} runnable={} util={} update_time={}", a[0], a[1], a[2], a[3],
				   a[4]);
	if (name == "sched_pelt_se")
		return fmt::format("cpu={} path=(null) comm={} pid={} load={} runnable={} util={} update_time={}", a[0],
				   ev.comm[0], a[1], a[2], a[3], a[4], a[5]);
	if (name == "sched_util_est_cfs")
		return fmt::format("cpu={} path=/ enqueued={} ewma={} util={}", a[0], a[1], a[2], a[3]);
	if (name == "sched_util_est_se")
		return fmt::format("cpu={} path=(null) comm={} pid={} enqueued={} ewma={} util={}", a[0], ev.comm[0],
				   a[1], a[2], a[3], a[4]);
	if (name.starts_with("sched_pelt_"))
		return fmt::format("cpu={} util={}", a[0], a[1]);
	std::string s;
	for (int i = 0; i < ev.nr_args; i++)
		s += fmt::format("{}arg{}={}", i ? " " : "", i, a[i]);
	return s;
}

} // namespace

FtraceWriter::FtraceWriter(const std::filesystem::path &path, unsigned nr_cpus)
	: file_(std::fopen(path.c_str(), "w")), path_(path)
{
	if (!file_)
		throw std::runtime_error(fmt::format("{}: cannot write the trace: {}", path.string(),
						     std::strerror(errno)));
	fmt::print(file_.get(),
		   "# tracer: nop\n"
		   "#\n"
		   "# sched-harness: simulated, {} CPUs; timestamps are the simulated sched_clock()\n"
		   "#\n"
		   "#                                _-----=> irqs-off/BH-disabled\n"
		   "#                               / _----=> need-resched\n"
		   "#                              | / _---=> hardirq/softirq\n"
		   "#                              || / _--=> preempt-depth\n"
		   "#                              ||| / _-=> migrate-disable\n"
		   "#                              |||| /     delay\n"
		   "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		   "#              | |         |   |||||     |         |\n",
		   nr_cpus);
}

void FtraceWriter::event(const kshim_trace_event &ev, std::string_view current_comm, int current_pid)
{
	const auto us = ev.time_ns / 1000;
	// The events fire with the runqueue locked: interrupts off, preempt
	// count 2, as most scheduler events show on hardware.
	fmt::print(file_.get(), "{:>16}-{:<7} [{:03}] d..2. {:5}.{:06}: {}: {}\n",
		   current_pid ? current_comm : std::string_view("<idle>"), current_pid, ev.cpu, us / 1000000,
		   us % 1000000, ev.name, fields(ev));
}

void FtraceWriter::close()
{
	if (!file_)
		return;
	const bool failed = std::ferror(file_.get()) != 0;
	if (std::fclose(file_.release()) != 0 || failed)
		throw std::runtime_error(fmt::format("{}: writing the trace failed", path_.string()));
}

} // namespace sh::report
