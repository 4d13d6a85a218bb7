// SPDX-License-Identifier: GPL-2.0
#include "harness/report/ftrace.h"

#include <kshim/api.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <span>
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

// A CPU set (64-bit words, CPU 0 first) as the kernel's %*pbl prints it:
// "0-3,6".
std::string cpu_list(std::span<const long long> words)
{
	const int n = static_cast<int>(words.size()) * 64;
	auto in = [&](int c) {
		return (static_cast<unsigned long long>(words[static_cast<std::size_t>(c / 64)]) >> (c % 64)) & 1;
	};
	std::string s;
	for (int c = 0; c < n;) {
		if (!in(c)) {
			c++;
			continue;
		}
		int last = c;
		while (last + 1 < n && in(last + 1))
			last++;
		s += (s.empty() ? "" : ",") + (last == c ? fmt::format("{}", c) : fmt::format("{}-{}", c, last));
		c = last + 1;
	}
	return s;
}

// n at p in a field of `width` (20 digits at most), right-aligned (or
// left), padded with `fill`; returns the end
char *put_number(char *p, long long n, std::size_t width, char fill, bool right)
{
	char digits[24];
	const auto end = std::to_chars(digits, digits + sizeof(digits), n).ptr;
	const auto len = static_cast<std::size_t>(end - digits);
	const std::size_t pad = len < width ? width - len : 0;
	if (right)
		p = std::fill_n(p, pad, fill);
	p = std::copy(digits, end, p);
	if (!right)
		p = std::fill_n(p, pad, fill);
	return p;
}

// The event's fields as its TP_printk() prints them, appended to out.
void append_fields(fmt::memory_buffer &out, const kshim_trace_event &ev)
{
	const auto to = std::back_inserter(out);
	const std::string_view name(ev.name);
	const auto *a = ev.args;
	if (name == "sched_switch") {
		fmt::format_to(to,
			       FMT_COMPILE("prev_comm={} prev_pid={} prev_prio={} prev_state={} ==> next_comm={} "
					   "next_pid={} next_prio={}"),
			       ev.comm[0], a[0], a[1], task_state(a[2]), ev.comm[1], a[3], a[4]);
	} else if (name == "sched_wakeup" || name == "sched_wakeup_new") {
		fmt::format_to(to, FMT_COMPILE("comm={} pid={} prio={} target_cpu={:03}"), ev.comm[0], a[0], a[1],
			       a[2]);
	} else if (name == "sched_migrate_task") {
		fmt::format_to(to, FMT_COMPILE("comm={} pid={} prio={} orig_cpu={} dest_cpu={}"), ev.comm[0], a[0],
			       a[1], a[2], a[3]);
	} else if (name == "cpu_frequency" || name == "cpu_idle") {
		fmt::format_to(to, FMT_COMPILE("state={} cpu_id={}"),
			       static_cast<unsigned long long>(a[0]) & 0xffffffffULL, a[1]);
	} else if (name == "sched_overutilized") {
		fmt::format_to(to, FMT_COMPILE("overutilized={} span={}"), a[0],
			       cpu_list(std::span<const long long>(a + 1, static_cast<std::size_t>(ev.nr_args - 1))));
	} else if (name == "sched_pelt_cfs") {
		fmt::format_to(to, FMT_COMPILE("cpu={} path=/ load={} runnable={} util={} update_time={}"), a[0],
			       a[1], a[2], a[3], a[4]);
	} else if (name == "sched_pelt_se") {
		fmt::format_to(to,
			       FMT_COMPILE("cpu={} path=(null) comm={} pid={} load={} runnable={} util={} "
					   "update_time={}"),
			       a[0], ev.comm[0], a[1], a[2], a[3], a[4], a[5]);
	} else if (name == "sched_util_est_cfs") {
		fmt::format_to(to, FMT_COMPILE("cpu={} path=/ enqueued={} ewma={} util={}"), a[0], a[1], a[2],
			       a[3]);
	} else if (name == "sched_util_est_se") {
		fmt::format_to(to, FMT_COMPILE("cpu={} path=(null) comm={} pid={} enqueued={} ewma={} util={}"),
			       a[0], ev.comm[0], a[1], a[2], a[3], a[4]);
	} else if (name == "thermal_temperature") {
		fmt::format_to(to, FMT_COMPILE("thermal_zone={} id={} temp_prev={} temp={}"), ev.type, a[0], a[1], a[2]);
	} else if (name == "cdev_update") {
		fmt::format_to(to, FMT_COMPILE("type={} target={}"), ev.type, a[1]);
	} else if (name == "thermal_zone_trip") {
		static constexpr const char *trip_types[] = {"ACTIVE", "PASSIVE", "HOT", "CRITICAL"};
		fmt::format_to(to, FMT_COMPILE("thermal_zone={} id={} trip={} trip_type={}"), ev.type, a[0], a[1],
			       a[2] >= 0 && a[2] < 4 ? trip_types[a[2]] : "?");
	} else if (name == "thermal_power_allocator") {
		// the per-actor req_power/granted_power arrays are not recorded
		fmt::format_to(to,
			       FMT_COMPILE("thermal_zone_id={} total_req_power={} total_granted_power={} "
					   "power_range={} current_temperature={} delta_temperature={}"),
			       a[0], a[1], a[2], a[3], a[4], a[5]);
	} else if (name == "thermal_pressure_update") {
		fmt::format_to(to, FMT_COMPILE("cpu={} thermal_pressure={}"), a[0], a[1]);
	} else if (name == "cpu_frequency_limits") {
		fmt::format_to(to, FMT_COMPILE("min={} max={} cpu_id={}"), a[0], a[1], a[2]);
	} else if (name.starts_with("sched_pelt_")) {
		fmt::format_to(to, FMT_COMPILE("cpu={} util={}"), a[0], a[1]);
	} else {
		for (int i = 0; i < ev.nr_args; i++)
			fmt::format_to(to, FMT_COMPILE("{}arg{}={}"), i ? " " : "", i, a[i]);
	}
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
	// "{:>16}-{:<7} [{:03}] d..2. {:5}.{:06}: {}: ", written out: most of
	// a trace's cost is in this line head
	const auto comm = current_pid ? current_comm : std::string_view("<idle>");
	if (comm.size() < 16)
		buffer_.append(std::string_view("                ").substr(comm.size()));
	buffer_.append(comm);
	char head[96];
	char *p = head;
	*p++ = '-';
	p = put_number(p, current_pid, 7, ' ', false);
	p = std::copy_n(" [", 2, p);
	p = put_number(p, ev.cpu, 3, '0', true);
	p = std::copy_n("] d..2. ", 8, p);
	p = put_number(p, static_cast<long long>(us / 1000000), 5, ' ', true);
	*p++ = '.';
	p = put_number(p, static_cast<long long>(us % 1000000), 6, '0', true);
	*p++ = ':';
	*p++ = ' ';
	buffer_.append(head, p);
	buffer_.append(std::string_view(ev.name));
	buffer_.append(std::string_view(": "));
	append_fields(buffer_, ev);
	buffer_.push_back('\n');
	if (buffer_.size() >= flush_at)
		flush();
}

void FtraceWriter::flush()
{
	if (buffer_.size() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_.get()) != buffer_.size())
		throw std::runtime_error(fmt::format("{}: writing the trace failed: {}", path_.string(),
						     std::strerror(errno)));
	buffer_.clear();
}

void FtraceWriter::close()
{
	if (!file_)
		return;
	flush();
	const bool failed = std::ferror(file_.get()) != 0;
	if (std::fclose(file_.release()) != 0 || failed)
		throw std::runtime_error(fmt::format("{}: writing the trace failed", path_.string()));
}

} // namespace sh::report
