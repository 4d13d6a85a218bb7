// SPDX-License-Identifier: GPL-2.0
#include "harness/report/ftrace.h"

#include "support/symbols.h"

#include <kshim/api.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>

#include <iterator>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

namespace sh::report {

namespace {

// The longest line an event makes, but for a CPU list (sized apart): the
// line head (16 + 1 + 7 + 23 + 5 + 7 + 2), the event's name, and fields of
// at most 16 numbers of 20 characters, 4 names of 16 and their labels,
// with room for the last piece's fixed-size writes past its end.
constexpr std::size_t line_max = 512;

// Appends to a buffer sized beforehand: one capacity check per line, not
// one per piece.
struct Out {
	char *p;

	template <std::size_t N>
	void text(const char (&s)[N])
	{
		std::memcpy(p, s, N - 1);	// of a constant size: a few moves
		p += N - 1;
	}
	void text(std::string_view s)
	{
		std::memcpy(p, s.data(), s.size());
		p += s.size();
	}
	// a NUL-terminated name in a fixed array (a comm, a zone's type)
	template <std::size_t N>
	void name(const char (&c)[N])
	{
		std::memcpy(p, c, N);
		p += strnlen(c, N);
	}
	void number(long long n)
	{
		Decimal d(n);
		std::memcpy(p, d.digits, 20);	// a constant size: moves
		p += d.length;
	}
	// n in a field of `width`, right-aligned (or left), padded with fill
	void number(long long n, std::size_t width, char fill, bool right)
	{
		Decimal d(n);
		const std::size_t pad = d.length < width ? width - d.length : 0;
		if (right)
			p = padding(pad, fill);
		std::memcpy(p, d.digits, 20);
		p += d.length;
		if (!right)
			p = padding(pad, fill);
	}
	// A number in decimal, two digits per division, written backwards
	// so that its length need not be found first (what std::to_chars()
	// spends most of its time on for short numbers). `digits` is followed
	// by at least 20 bytes of the scratch area, for a fixed-size copy.
	struct Decimal {
		char scratch[40];
		const char *digits;
		std::size_t length;

		explicit Decimal(long long n)
		{
			static constexpr char pairs[] =
				"0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
				"5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";
			char *q = scratch + 20;	// the longest, "-9223372036854775808", starts at scratch
			auto u = n < 0 ? 0ULL - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n);
			while (u >= 100) {
				q -= 2;
				std::memcpy(q, pairs + (u % 100) * 2, 2);
				u /= 100;
			}
			if (u >= 10) {
				q -= 2;
				std::memcpy(q, pairs + u * 2, 2);
			} else {
				*--q = static_cast<char>('0' + u);
			}
			if (n < 0)
				*--q = '-';
			digits = q;
			length = static_cast<std::size_t>(scratch + 20 - q);
		}
	};
	// n (at most 16) fill characters; the line's room allows writing 16
	char *padding(std::size_t n, char fill)
	{
		char block[16];
		std::memset(block, fill, sizeof(block));
		std::memcpy(p, block, sizeof(block));
		return p + n;
	}
	// sched_switch's prev_state, as TP_printk() prints it
	void task_state(long long state)
	{
		if (state == KSHIM_SWITCH_PREEMPTED)
			return text("R+");
		if (state == 0)
			return text("R");
		static constexpr char letters[] = "SDTtXZPI";
		bool first = true;
		for (int bit = 0; bit < 8; bit++) {
			if (state & (1LL << bit)) {
				if (!first)
					*p++ = '|';
				*p++ = letters[bit];
				first = false;
			}
		}
	}
};

// A CPU set (64-bit words, CPU 0 first) as the kernel's %*pbl prints it:
// "0-3,6". Runs of set and clear bits are found a word at a time.
std::string cpu_list(std::span<const long long> words)
{
	const int n = static_cast<int>(words.size()) * 64;
	// the first CPU from `c` whose bit is `set`, or n
	auto next = [&](int c, bool set) {
		while (c < n) {
			auto w = static_cast<unsigned long long>(words[static_cast<std::size_t>(c / 64)]);
			if (!set)
				w = ~w;
			w >>= c % 64;
			if (w)
				return c + std::countr_zero(w);
			c = (c / 64 + 1) * 64;
		}
		return n;
	};
	std::string s;
	for (int c = next(0, true); c < n; c = next(c, true)) {
		const int last = next(c, false) - 1;
		s += (s.empty() ? "" : ",") + (last == c ? fmt::format("{}", c) : fmt::format("{}-{}", c, last));
		c = last + 1;
	}
	return s;
}

enum class Kind { sched_switch, sched_wakeup, sched_migrate_task, state_cpu_id, sched_overutilized, sched_pelt_cfs,
		  sched_pelt_se, sched_util_est_cfs, sched_util_est_se, thermal_temperature, cdev_update,
		  thermal_zone_trip, thermal_power_allocator, thermal_pressure_update, cpu_frequency_limits,
		  sched_pelt_other, other };

// The events the probes record (sched/glue/trace_probes.c,
// thermal/glue/thermal.c, kernel-shim/glue/trace.c), their subsystems and
// line layouts: the one list of them. The sched_tp module puts the PELT
// and util_est events and sched_overutilized under sched; 6.9 renamed
// thermal_pressure_update and 6.12 sched_pelt_thermal (to hw_*).
struct Known {
	TraceEvent event;
	Kind kind;
};
constexpr Known known[] = {
	{{"sched_switch", "sched"}, Kind::sched_switch},
	{{"sched_waking", "sched"}, Kind::sched_wakeup},
	{{"sched_wakeup", "sched"}, Kind::sched_wakeup},
	{{"sched_wakeup_new", "sched"}, Kind::sched_wakeup},
	{{"sched_migrate_task", "sched"}, Kind::sched_migrate_task},
	{{"sched_overutilized", "sched"}, Kind::sched_overutilized},
	{{"sched_pelt_cfs", "sched"}, Kind::sched_pelt_cfs},
	{{"sched_pelt_se", "sched"}, Kind::sched_pelt_se},
	{{"sched_pelt_rt", "sched"}, Kind::sched_pelt_other},
	{{"sched_pelt_dl", "sched"}, Kind::sched_pelt_other},
	{{"sched_pelt_irq", "sched"}, Kind::sched_pelt_other},
	{{"sched_pelt_thermal", "sched"}, Kind::sched_pelt_other},
	{{"sched_pelt_hw", "sched"}, Kind::sched_pelt_other},
	{{"sched_util_est_cfs", "sched"}, Kind::sched_util_est_cfs},
	{{"sched_util_est_se", "sched"}, Kind::sched_util_est_se},
	{{"cpu_frequency", "power"}, Kind::state_cpu_id},
	{{"cpu_frequency_limits", "power"}, Kind::cpu_frequency_limits},
	{{"cpu_idle", "power"}, Kind::state_cpu_id},
	{{"thermal_temperature", "thermal"}, Kind::thermal_temperature},
	{{"cdev_update", "thermal"}, Kind::cdev_update},
	{{"thermal_zone_trip", "thermal"}, Kind::thermal_zone_trip},
	{{"thermal_power_allocator", "thermal_power_allocator"}, Kind::thermal_power_allocator},
	{{"thermal_pressure_update", "thermal_pressure"}, Kind::thermal_pressure_update},
	{{"hw_pressure_update", "hw_pressure"}, Kind::other},
};

constexpr auto known_events = [] {
	std::array<TraceEvent, std::size(known)> events{};
	for (std::size_t i = 0; i < events.size(); i++)
		events[i] = known[i].event;
	return events;
}();

// The index of `name` in known[], or none.
std::optional<std::size_t> known_index(std::string_view name)
{
	for (std::size_t i = 0; i < std::size(known); i++)
		if (known[i].event.name == name)
			return i;
	return std::nullopt;
}

Kind kind_of(std::string_view name)
{
	if (const auto i = known_index(name))
		return known[*i].kind;
	return name.starts_with("sched_pelt_") ? Kind::sched_pelt_other : Kind::other;
}

// The event's fields as its TP_printk() prints them.
void put_fields(Out &out, Kind kind, const kshim_trace_event &ev, std::string_view span)
{
	const auto *a = ev.args;
	switch (kind) {
	case Kind::sched_switch:
		out.text("prev_comm="), out.name(ev.comm[0]), out.text(" prev_pid="), out.number(a[0]);
		out.text(" prev_prio="), out.number(a[1]), out.text(" prev_state="), out.task_state(a[2]);
		out.text(" ==> next_comm="), out.name(ev.comm[1]), out.text(" next_pid="), out.number(a[3]);
		out.text(" next_prio="), out.number(a[4]);
		break;
	case Kind::sched_wakeup:
		out.text("comm="), out.name(ev.comm[0]), out.text(" pid="), out.number(a[0]);
		out.text(" prio="), out.number(a[1]), out.text(" target_cpu="), out.number(a[2], 3, '0', true);
		break;
	case Kind::sched_migrate_task:
		out.text("comm="), out.name(ev.comm[0]), out.text(" pid="), out.number(a[0]);
		out.text(" prio="), out.number(a[1]), out.text(" orig_cpu="), out.number(a[2]);
		out.text(" dest_cpu="), out.number(a[3]);
		break;
	case Kind::state_cpu_id:
		out.text("state="), out.number(static_cast<long long>(static_cast<unsigned long long>(a[0]) & 0xffffffffULL));
		out.text(" cpu_id="), out.number(a[1]);
		break;
	case Kind::sched_overutilized:
		out.text("overutilized="), out.number(a[0]), out.text(" span="), out.text(span);
		break;
	case Kind::sched_pelt_cfs:
		out.text("cpu="), out.number(a[0]), out.text(" path=/ load="), out.number(a[1]);
		out.text(" runnable="), out.number(a[2]), out.text(" util="), out.number(a[3]);
		out.text(" update_time="), out.number(a[4]);
		break;
	case Kind::sched_pelt_se:
		out.text("cpu="), out.number(a[0]), out.text(" path=(null) comm="), out.name(ev.comm[0]);
		out.text(" pid="), out.number(a[1]), out.text(" load="), out.number(a[2]);
		out.text(" runnable="), out.number(a[3]), out.text(" util="), out.number(a[4]);
		out.text(" update_time="), out.number(a[5]);
		break;
	case Kind::sched_util_est_cfs:
		out.text("cpu="), out.number(a[0]), out.text(" path=/ enqueued="), out.number(a[1]);
		out.text(" ewma="), out.number(a[2]), out.text(" util="), out.number(a[3]);
		break;
	case Kind::sched_util_est_se:
		out.text("cpu="), out.number(a[0]), out.text(" path=(null) comm="), out.name(ev.comm[0]);
		out.text(" pid="), out.number(a[1]), out.text(" enqueued="), out.number(a[2]);
		out.text(" ewma="), out.number(a[3]), out.text(" util="), out.number(a[4]);
		break;
	case Kind::thermal_temperature:
		out.text("thermal_zone="), out.name(ev.type), out.text(" id="), out.number(a[0]);
		out.text(" temp_prev="), out.number(a[1]), out.text(" temp="), out.number(a[2]);
		break;
	case Kind::cdev_update:
		out.text("type="), out.name(ev.type), out.text(" target="), out.number(a[1]);
		break;
	case Kind::thermal_zone_trip: {
		static constexpr std::string_view trip_types[] = {"ACTIVE", "PASSIVE", "HOT", "CRITICAL"};
		out.text("thermal_zone="), out.name(ev.type), out.text(" id="), out.number(a[0]);
		out.text(" trip="), out.number(a[1]), out.text(" trip_type=");
		out.text(a[2] >= 0 && a[2] < 4 ? trip_types[a[2]] : "?");
		break;
	}
	case Kind::thermal_power_allocator:
		// the per-actor req_power/granted_power arrays are not recorded
		out.text("thermal_zone_id="), out.number(a[0]), out.text(" total_req_power="), out.number(a[1]);
		out.text(" total_granted_power="), out.number(a[2]), out.text(" power_range="), out.number(a[3]);
		out.text(" current_temperature="), out.number(a[4]), out.text(" delta_temperature=");
		out.number(a[5]);
		break;
	case Kind::thermal_pressure_update:
		out.text("cpu="), out.number(a[0]), out.text(" thermal_pressure="), out.number(a[1]);
		break;
	case Kind::cpu_frequency_limits:
		out.text("min="), out.number(a[0]), out.text(" max="), out.number(a[1]);
		out.text(" cpu_id="), out.number(a[2]);
		break;
	case Kind::sched_pelt_other:
		out.text("cpu="), out.number(a[0]), out.text(" util="), out.number(a[1]);
		break;
	case Kind::other:
		for (int i = 0; i < ev.nr_args && i < static_cast<int>(std::size(ev.args)); i++) {
			if (i)
				out.text(" ");
			out.text("arg"), out.number(i), out.text("="), out.number(a[i]);
		}
		break;
	}
}

// The known events by subsystem, for an error: "sched: sched_switch, ...;
// power: ...".
std::string known_by_subsystem()
{
	std::vector<std::string> groups;
	for (std::size_t i = 0; i < known_events.size();) {
		const auto subsystem = known_events[i].subsystem;
		std::vector<std::string_view> names;
		for (; i < known_events.size() && known_events[i].subsystem == subsystem; i++)
			names.push_back(known_events[i].name);
		groups.push_back(fmt::format("{}: {}", subsystem, fmt::join(names, ", ")));
	}
	return fmt::format("{}", fmt::join(groups, "; "));
}

// A name against an item's pattern: a shell glob (fnmatch(3)), or the name.
bool matches(std::string_view pattern, std::string_view name)
{
	return ::fnmatch(std::string(pattern).c_str(), std::string(name).c_str(), 0) == 0;
}

// One item of a list, as trace-cmd's -e reads it: SUBSYSTEM:EVENT, or a
// name that is an event's or a subsystem's. Sets the events it selects.
void select_item(std::string_view item, std::vector<bool> &chosen)
{
	const auto colon = item.find(':');
	const auto subsystem = colon == std::string_view::npos ? item : item.substr(0, colon);
	const auto event = colon == std::string_view::npos ? item : item.substr(colon + 1);
	bool any = false, any_subsystem = false;
	for (std::size_t i = 0; i < known_events.size(); i++) {
		const auto &e = known_events[i];
		bool selected;
		if (colon == std::string_view::npos) {
			selected = matches(item, e.name) || matches(item, e.subsystem);
		} else {
			const bool in_subsystem = matches(subsystem, e.subsystem);
			any_subsystem = any_subsystem || in_subsystem;
			selected = in_subsystem && matches(event, e.name);
		}
		if (selected)
			chosen[i] = true;
		any = any || selected;
	}
	if (any)
		return;
	if (colon == std::string_view::npos)
		throw TraceEventsError(fmt::format("{}: no such event or subsystem (the events, by subsystem: {})",
						   item, known_by_subsystem()));
	if (!any_subsystem)
		throw TraceEventsError(fmt::format("{}: no such subsystem (the events, by subsystem: {})", item,
						   known_by_subsystem()));
	throw TraceEventsError(fmt::format("{}: no event {} in subsystem {} (the events, by subsystem: {})", item,
					   event, subsystem, known_by_subsystem()));
}

} // namespace

std::span<const TraceEvent> trace_events()
{
	return known_events;
}

TraceEvents TraceEvents::parse(std::span<const std::string> lists)
{
	TraceEvents events;
	if (lists.empty())
		return events;
	events.all_ = false;
	events.chosen_.assign(known_events.size(), false);
	for (const std::string_view list : lists) {
		for (std::size_t start = 0;;) {
			const auto comma = list.find(',', start);
			auto item = list.substr(start, comma == std::string_view::npos ? list.npos : comma - start);
			while (!item.empty() && item.front() == ' ')
				item.remove_prefix(1);
			while (!item.empty() && item.back() == ' ')
				item.remove_suffix(1);
			if (item.empty())
				throw TraceEventsError(fmt::format("\"{}\": an empty item (say EVENT, SUBSYSTEM or "
								   "SUBSYSTEM:EVENT, comma-separated)",
								   list));
			if (item == "all")
				events.all_ = true;
			else
				select_item(item, events.chosen_);
			if (comma == std::string_view::npos)
				break;
			start = comma + 1;
		}
	}
	return events;
}

bool TraceEvents::selects(std::string_view event) const
{
	if (all_)
		return true;
	const auto i = known_index(event);
	return i && chosen_[*i];
}

FtraceWriter::FtraceWriter(const std::filesystem::path &path, unsigned nr_cpus, TraceEvents events)
	: events_(std::move(events)), block_(flush_at + line_max), file_(std::fopen(path.c_str(), "w")), path_(path)
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

// Probes name events with string literals: each name is classified once
// (name_of()'s cache misses come here).
const FtraceWriter::Name &FtraceWriter::classify(Name &slot, const char *name)
{
	slot = {name, static_cast<int>(kind_of(name)), events_.selects(name), std::strlen(name), {}};
	std::memcpy(slot.padded.data(), name, std::min(slot.length, slot.padded.size()));
	return slot;
}

void FtraceWriter::event(const kshim_trace_event &ev, std::string_view current_comm, int current_pid)
{
	const auto &event_name = name_of(ev.name);
	if (!event_name.selected)
		return;
	const auto kind = static_cast<Kind>(event_name.kind);
	std::string span;	// sched_overutilized's CPUs
	if (kind == Kind::sched_overutilized)
		span = cpu_list(std::span<const long long>(ev.args + 1,
							   static_cast<std::size_t>(std::max(ev.nr_args - 1, 0))));
	const std::string_view name(ev.name, event_name.length);
	const auto comm = current_pid ? current_comm : std::string_view("<idle>");
	const auto room = line_max + span.size() + name.size() + comm.size();
	if (used_ + room > block_.size()) {
		flush();
		if (room > block_.size())
			block_.resize(room);
	}
	Out out{block_.data() + used_};
	const auto line_start = out.p;
	// Events come in bursts from one kernel entry: most lines repeat the
	// previous line's head (task, CPU, timestamp), which is copied rather
	// than formatted again.
	const auto us = ev.time_ns / 1000;
	if (head_.len && head_.cpu == ev.cpu && head_.pid == current_pid && head_.us == us &&
	    std::string_view(head_.comm.data(), head_.comm_len) == comm) {
		std::memcpy(out.p, head_.text.data(), head_.text.size());	// a constant size: moves
		out.p += head_.len;
	} else {
		const auto head = out.p;
		// The events fire with the runqueue locked: interrupts off,
		// preempt count 2, as most scheduler events show on hardware:
		// "{:>16}-{:<7} [{:03}] d..2. {:5}.{:06}: "
		if (comm.size() < 16)
			out.p = out.padding(16 - comm.size(), ' ');
		out.text(comm);
		out.text("-");
		out.number(current_pid, 7, ' ', false);
		out.text(" [");
		out.number(ev.cpu, 3, '0', true);
		out.text("] d..2. ");
		out.number(static_cast<long long>(us / 1000000), 5, ' ', true);
		out.text(".");
		out.number(static_cast<long long>(us % 1000000), 6, '0', true);
		out.text(": ");
		const auto len = static_cast<std::size_t>(out.p - head);
		head_.len = 0;
		if (len <= head_.text.size() && comm.size() <= head_.comm.size()) {
			std::memcpy(head_.text.data(), head, len);
			std::memcpy(head_.comm.data(), comm.data(), comm.size());
			head_.cpu = ev.cpu, head_.pid = current_pid, head_.us = us;
			head_.comm_len = comm.size(), head_.len = len;
		}
	}
	if (name.size() <= event_name.padded.size()) {
		std::memcpy(out.p, event_name.padded.data(), event_name.padded.size());	// a constant size: moves
		out.p += name.size();
	} else {
		out.text(name);
	}
	const auto head_end = out.p;
	out.text(": ");
	put_fields(out, kind, ev, span);
	*out.p++ = '\n';
	used_ = static_cast<std::size_t>(out.p - block_.data());
	if (stacktrace_)
		put_stack(std::string(line_start, head_end - name.size()));
	if (used_ >= flush_at)
		flush();
}

void FtraceWriter::marker(int cpu, std::uint64_t time_ns, int pid, std::string_view comm, std::string_view text)
{
	const auto us = time_ns / 1000;
	put_lines(fmt::format("{:>16}-{:<7} [{:03}] ..... {:5}.{:06}: tracing_mark_write: {}\n",
			      pid ? comm : std::string_view("<idle>"), pid, cpu, us / 1000000, us % 1000000, text));
	if (used_ >= flush_at)
		flush();
}

// Whole lines formatted elsewhere; the next event formats its head.
void FtraceWriter::put_lines(std::string_view text)
{
	if (used_ + text.size() > block_.size())
		flush();
	if (text.size() > block_.size())
		block_.resize(text.size());
	std::memcpy(block_.data() + used_, text.data(), text.size());
	used_ += text.size();
	head_.len = 0;
}

// The kernel image's frames (libksched*.so) below the probe: the harness's
// own frames and the tracepoint's plumbing (the shim's probe_*, the
// tracepoint's __traceiter_*) are left out, and the stack ends where the
// fake architecture called into the kernel (the next kshim_/shim_ frame),
// as a kernel stack ends at its entry.
void FtraceWriter::put_stack(const std::string_view head)
{
	auto frames = support::stack_functions("libksched", 32);
	auto shim = [](const std::string &f) { return f.starts_with("kshim_") || f.starts_with("shim_"); };
	auto first = std::find_if(frames.begin(), frames.end(), [&](const std::string &f) {
		return !shim(f) && !f.starts_with("probe_") && !f.starts_with("__traceiter_");
	});
	auto last = std::find_if(first, frames.end(), shim);
	std::string text(head);
	text += "<stack trace>\n";
	for (auto it = first; it != last; ++it)
		text += " => " + *it + "\n";
	put_lines(text);
}

void FtraceWriter::flush()
{
	if (used_ && std::fwrite(block_.data(), 1, used_, file_.get()) != used_)
		throw WriteError(fmt::format("{}: writing the trace failed: {}", path_.string(),
						     std::strerror(errno)));
	used_ = 0;
}

void FtraceWriter::close()
{
	if (!file_)
		return;
	flush();
	const bool failed = std::ferror(file_.get()) != 0;
	if (std::fclose(file_.release()) != 0 || failed)
		throw WriteError(fmt::format("{}: writing the trace failed", path_.string()));
}

} // namespace sh::report
