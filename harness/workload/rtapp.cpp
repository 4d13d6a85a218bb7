// SPDX-License-Identifier: GPL-2.0
//
// rt-app's JSON dialect. rt-app reads its files with json-c after stripping
// comments, and walks objects key by key: the same key may appear several
// times ("run", "sleep", "run") and order is the program. A DOM would keep
// one value per key, so a SAX pass (RapidJSON's Reader, with comments and
// trailing commas allowed) builds an ordered tree first, and the rt-app
// grammar is read from that.
#include "harness/workload/workload.h"

#include "dts/input_file.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <variant>

namespace sh::workload {

namespace {

// A JSON value with object members kept in order, duplicates included.
struct Member;

struct Node {
	enum class Type { null, boolean, number, string, array, object } type = Type::null;
	bool boolean = false;
	double number = 0;
	bool integral = false;
	std::int64_t integer = 0;
	std::string string;
	std::vector<Member> members;	// object
	std::vector<Node> items;	// array
};

// (a struct, not a std::pair: a pair of an incomplete Node is ill-formed)
struct Member {
	std::string key;
	Node value;
};

// rt-app's grammar nests six levels (tasks, task, phases, phase, event,
// its fields); this is far beyond any real file and keeps the tree (and
// its recursive destruction) shallow whatever the input.
constexpr std::size_t max_nesting = 64;


class TreeBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TreeBuilder> {
public:
	Node root;
	bool too_deep = false;

	bool Null() { return add(Node{}); }
	bool Bool(bool b)
	{
		Node n;
		n.type = Node::Type::boolean;
		n.boolean = b;
		return add(std::move(n));
	}
	bool Int(int i) { return integer(i); }
	bool Uint(unsigned u) { return integer(u); }
	bool Int64(std::int64_t i) { return integer(i); }
	bool Uint64(std::uint64_t u)
	{
		if (u <= static_cast<std::uint64_t>(INT64_MAX))
			return integer(static_cast<std::int64_t>(u));
		return Double(static_cast<double>(u));	// not an integer this reader takes
	}
	bool Double(double d)
	{
		Node n;
		n.type = Node::Type::number;
		n.number = d;
		return add(std::move(n));
	}
	bool String(const char *s, rapidjson::SizeType len, bool)
	{
		Node n;
		n.type = Node::Type::string;
		n.string.assign(s, len);
		return add(std::move(n));
	}
	bool StartObject() { return open(Node::Type::object); }
	bool Key(const char *s, rapidjson::SizeType len, bool)
	{
		pending_key_.assign(s, len);
		return true;
	}
	bool EndObject(rapidjson::SizeType) { return close(); }
	bool StartArray() { return open(Node::Type::array); }
	bool EndArray(rapidjson::SizeType) { return close(); }

private:
	// Containers being filled, innermost last; each with the key it will
	// be stored under in its parent.
	std::vector<std::pair<std::string, Node>> stack_;
	std::string pending_key_;

	bool integer(std::int64_t i)
	{
		Node n;
		n.type = Node::Type::number;
		n.integral = true;
		n.integer = i;
		n.number = static_cast<double>(i);
		return add(std::move(n));
	}
	bool open(Node::Type type)
	{
		if (stack_.size() >= max_nesting) {
			too_deep = true;
			return false;	// stops the parse: kParseErrorTermination
		}
		Node n;
		n.type = type;
		stack_.emplace_back(std::move(pending_key_), std::move(n));
		pending_key_.clear();
		return true;
	}
	bool close()
	{
		auto [key, node] = std::move(stack_.back());
		stack_.pop_back();
		pending_key_ = std::move(key);
		return add(std::move(node));
	}
	bool add(Node n)
	{
		if (stack_.empty()) {
			root = std::move(n);
			return true;
		}
		auto &parent = stack_.back().second;
		if (parent.type == Node::Type::object)
			parent.members.push_back({std::move(pending_key_), std::move(n)});
		else
			parent.items.push_back(std::move(n));
		pending_key_.clear();
		return true;
	}
};

std::pair<std::size_t, std::size_t> line_column(const std::string &text, std::size_t offset)
{
	std::size_t line = 1, column = 1;
	for (std::size_t i = 0; i < offset && i < text.size(); i++) {
		if (text[i] == '\n') {
			line++;
			column = 1;
		} else {
			column++;
		}
	}
	return {line, column};
}

class Reader {
public:
	explicit Reader(std::string file) : file_(std::move(file)) {}

	Workload read(const Node &root)
	{
		if (root.type != Node::Type::object)
			fail("the file is not a JSON object");
		Workload w;
		w.name = file_;
		w.launcher = "rt-app";
		const Node *tasks = nullptr;
		for (const auto &[key, value] : root.members) {
			if (key == "tasks")
				tasks = &value;
			else if (key == "global")
				read_global(value, w);
			else if (key == "resources")
				;	// rt-app < 1.0 declared resources up front; they are implicit now
			else
				fail(fmt::format("unknown top-level key \"{}\" (rt-app knows tasks, global, resources)", key));
		}
		if (!tasks || tasks->type != Node::Type::object || tasks->members.empty())
			fail("no \"tasks\" object, or it is empty");
		std::int64_t threads = 0;
		for (const auto &[name, value] : tasks->members) {
			printable(name, "task name");
			w.tasks.push_back(read_task(name, value));
			threads += w.tasks.back().instances;
		}
		if (threads > max_threads)
			fail(fmt::format("{} threads (tasks x instances); this tool runs at most {}", threads,
					 max_threads));
		return w;
	}

private:
	std::string file_;
	std::string default_policy_ = "SCHED_OTHER";

	[[noreturn]] void fail(const std::string &what) const
	{
		throw Error(fmt::format("{}: {}", file_, what));
	}
	[[noreturn]] void fail_task(const std::string &task, const std::string &what) const
	{
		fail(fmt::format("task \"{}\": {}", task, what));
	}

	std::int64_t integer(const Node &n, const std::string &what) const
	{
		if (n.type != Node::Type::number || !n.integral)
			fail(fmt::format("{} must be an integer", what));
		return n.integer;
	}

	// An integer in [lo, hi]: no narrowing wraps a CPU 2^32 to CPU 0.
	std::int64_t ranged(const Node &n, const std::string &what, std::int64_t lo, std::int64_t hi) const
	{
		const auto v = integer(n, what);
		if (v < lo || v > hi)
			fail(fmt::format("{} {} is outside {}..{}", what, v, lo, hi));
		return v;
	}

	std::string string(const Node &n, const std::string &what) const
	{
		if (n.type != Node::Type::string)
			fail(fmt::format("{} must be a string", what));
		return n.string;
	}

	// Names reach the report and the ftrace text: a newline or an escape
	// sequence in one would forge lines or garble a terminal.
	void printable(const std::string &name, const std::string &what) const
	{
		if (const auto c = control_character(name))
			fail(fmt::format("{} {:?} has a control character (0x{:02x})", what, name, *c));
	}

	void read_global(const Node &global, Workload &w)
	{
		if (global.type != Node::Type::object)
			fail("\"global\" must be an object");
		for (const auto &[key, value] : global.members) {
			if (key == "duration") {
				const auto seconds = integer(value, "global.duration");
				if (seconds == 0 || seconds < -1)
					fail(fmt::format("global.duration {}: must be positive, or -1 (until every task ends)", seconds));
				if (seconds > 0)
					w.duration_ns = checked_ns(seconds, 1'000'000'000,
								   fmt::format("{}: global.duration {} s", file_, seconds));
			} else if (key == "calibration") {
				if (value.type == Node::Type::string) {
					// all of it a CPU number in range: sscanf's %u took
					// "CPU4294967296" as CPU0 and "CPU1x" as CPU1
					const std::string_view text = value.string;
					unsigned long long cpu = 0;
					const auto digits = text.substr(std::min<std::size_t>(3, text.size()));
					const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cpu);
					if (!text.starts_with("CPU") || digits.empty() || ec != std::errc() ||
					    end != digits.data() + digits.size() || cpu > max_cpu_number)
						fail(fmt::format("global.calibration \"{}\": expected \"CPUn\", n from 0 to {}",
								 value.string, max_cpu_number));
					w.calibration_cpu = static_cast<unsigned>(cpu);
				} else {
					// ns per loop: rt-app skips calibration; `run` amounts
					// stay times on CPU0 at its highest OPP.
					integer(value, "global.calibration");
				}
			} else if (key == "default_policy") {
				default_policy_ = string(value, "global.default_policy");
			} else if (key == "ftrace") {
				w.rtapp_trace = ftrace_categories(value);
			} else if (key == "cumulative_slack") {
				if (value.type != Node::Type::boolean)
					fail("global.cumulative_slack must be true or false");
				w.cumulative_slack = value.boolean;
			}
			// pi_enabled, lock_pages, logdir, log_basename, log_size,
			// gnuplot, io_device, mem_buffer_size: about the host
			// rt-app runs on.
		}
	}

	// rt-app's ftrace_setup(): comma-separated categories in any case,
	// "none" clearing those before it; the deprecated boolean true is
	// every category (rt-app's FTRACE_ATTRS too, whose sched_attr
	// markers a SCHED_OTHER-only reader has none of).
	unsigned ftrace_categories(const Node &value) const
	{
		if (value.type == Node::Type::boolean)
			return value.boolean ? rtapp_trace_main | rtapp_trace_task | rtapp_trace_loop |
						       rtapp_trace_event | rtapp_trace_stats
					     : 0;
		const auto text = string(value, "global.ftrace");
		unsigned levels = 0;
		std::size_t start = 0;
		while (start <= text.size()) {
			const auto comma = std::min(text.find(',', start), text.size());
			auto category = text.substr(start, comma - start);
			std::transform(category.begin(), category.end(), category.begin(),
				       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
			if (category.empty())
				;	// strtok() skips it
			else if (category == "main")
				levels |= rtapp_trace_main;
			else if (category == "task")
				levels |= rtapp_trace_task;
			else if (category == "loop")
				levels |= rtapp_trace_loop;
			else if (category == "event")
				levels |= rtapp_trace_event;
			else if (category == "stats")
				levels |= rtapp_trace_stats;
			else if (category == "none")
				levels = 0;
			else
				fail(fmt::format("global.ftrace \"{}\": \"{}\" is not a category (rt-app's are main, "
						 "task, loop, event, stats and none)",
						 text, category));
			start = comma + 1;
		}
		return levels;
	}

	Task read_task(const std::string &name, const Node &node)
	{
		if (node.type != Node::Type::object)
			fail_task(name, "must be an object");
		Task t;
		t.name = name;
		std::string policy = default_policy_;
		Phase inline_phase;
		inline_phase.name = name;
		const Node *phases = nullptr;
		bool loop_given = false;
		for (const auto &[key, value] : node.members) {
			if (key == "instance") {
				t.instances = static_cast<int>(
					ranged(value, fmt::format("task \"{}\": instance", name), 0, max_threads));
			} else if (key == "loop") {
				t.loop = integer(value, fmt::format("task \"{}\": loop", name));
				loop_given = true;
			} else if (key == "policy") {
				policy = string(value, fmt::format("task \"{}\": policy", name));
			} else if (key == "priority") {
				t.nice = static_cast<int>(ranged(value, fmt::format("task \"{}\": priority", name),
								 INT32_MIN, INT32_MAX));
			} else if (key == "cpus") {
				if (value.type != Node::Type::array)
					fail_task(name, "cpus must be an array of CPU numbers");
				for (const auto &cpu : value.items)
					t.cpus.push_back(static_cast<unsigned>(
						ranged(cpu, fmt::format("task \"{}\": cpus", name), 0, max_cpu_number)));
			} else if (key == "delay") {
				const auto us = integer(value, fmt::format("task \"{}\": delay", name));
				if (us < 0)
					fail_task(name, fmt::format("delay {} must not be negative", us));
				t.delay_ns = checked_ns(us, 1000, fmt::format("{}: task \"{}\": delay {} us", file_, name, us));
			} else if (key == "util_min" || key == "util_max") {
				const auto v = integer(value, fmt::format("task \"{}\": {}", name, key));
				if (v < 0 || v > 1024)
					fail_task(name, fmt::format("{} {} is outside 0..1024", key, v));
				(key == "util_min" ? t.util_min : t.util_max) = static_cast<int>(v);
			} else if (key == "sched_flags") {
				t.sched_flags = static_cast<unsigned>(
					ranged(value, fmt::format("task \"{}\": sched_flags", name), 0, UINT32_MAX));
			} else if (key == "phases") {
				phases = &value;
			} else if (key.rfind("dl-", 0) == 0) {
				if (policy != "SCHED_DEADLINE")
					fail_task(name, fmt::format("{} without policy SCHED_DEADLINE", key));
			} else {
				read_event(name, key, value, inline_phase.events);
			}
		}
		if (policy != "SCHED_OTHER")
			fail_task(name, fmt::format("policy {} is not supported yet (only SCHED_OTHER: the "
						    "simulator drives the fair class)", policy));
		if (t.nice < -20 || t.nice > 19)
			fail_task(name, fmt::format("priority {} is not a nice value (-20..19) for SCHED_OTHER", t.nice));
		if (phases) {
			if (!inline_phase.events.empty())
				fail_task(name, "has both \"phases\" and events of its own");
			if (phases->type != Node::Type::object)
				fail_task(name, "phases must be an object");
			for (const auto &[phase_name, phase] : phases->members)
				t.phases.push_back(read_phase(name, phase_name, phase));
		} else {
			t.phases.push_back(std::move(inline_phase));
		}
		if (!loop_given)
			t.loop = -1;
		bool any_event = false;
		for (const auto &p : t.phases)
			any_event |= !p.events.empty();
		if (!any_event)
			fail_task(name, "has no event to run");
		return t;
	}

	Phase read_phase(const std::string &task, const std::string &name, const Node &node)
	{
		if (node.type != Node::Type::object)
			fail_task(task, fmt::format("phase \"{}\" must be an object", name));
		Phase p;
		p.name = name;
		for (const auto &[key, value] : node.members) {
			if (key == "loop")
				p.loop = integer(value, fmt::format("task \"{}\" phase \"{}\": loop", task, name));
			else if (key == "cpus")
				fail_task(task, fmt::format("phase \"{}\": a per-phase \"cpus\" (the thread changing its "
							    "own affinity while it runs) is not supported yet", name));
			else
				read_event(task, key, value, p.events);
		}
		return p;
	}

	// rt-app's resource_t (rt-app_types.h) and event name for an event.
	static RtappEvent rtapp_event(const Event &e, const std::string &key, int id)
	{
		switch (e.kind) {
		case EventKind::run:
			return {id, 6, key};
		case EventKind::runtime:
			return {id, 19, key};
		case EventKind::sleep:
			return {id, 5, key};
		case EventKind::yield:
			return {id, 20, key};
		case EventKind::timer:
			return {id, e.resource.rfind("unique", 0) == 0 ? 11 : 10, fmt::format("{}:{}", key, e.resource)};
		case EventKind::suspend:
			return {id, 12, fmt::format("{}:{}:{}", key, e.resource, e.resource)};
		case EventKind::resume:
			return {id, 13, fmt::format("{}:{}:{}", key, e.resource, e.resource)};
		case EventKind::wait:
			return {id, 2, fmt::format("{}:{}:{}", key, e.resource, e.mutex)};
		case EventKind::lock:
			return {id, 8, fmt::format("{}:{}", key, e.resource)};
		case EventKind::unlock:
			return {id, 9, fmt::format("{}:{}", key, e.resource)};
		case EventKind::signal:
			return {id, 3, fmt::format("{}:{}", key, e.resource)};
		case EventKind::broadcast:
			return {id, 4, fmt::format("{}:{}", key, e.resource)};
		case EventKind::barrier:
			return {id, 21, fmt::format("{}:{}", key, e.resource)};
		case EventKind::send:
		case EventKind::receive:
			break;
		}
		return {};
	}

	// rt-app matches events by prefix ("run0", "timer1" are run and timer).
	void read_event(const std::string &task, const std::string &key, const Node &value,
			std::vector<Event> &out)
	{
		auto is = [&](std::string_view prefix) { return key.rfind(prefix, 0) == 0; };
		auto what = [&] { return fmt::format("task \"{}\": {}", task, key); };
		// microseconds, as rt-app counts them, to nanoseconds: no overflow
		auto to_ns = [&](std::int64_t v, const std::string &name) {
			if (v < 0)
				fail_task(task, fmt::format("{} {} must not be negative", name, v));
			return checked_ns(v, 1000, fmt::format("{}: task \"{}\": {} {} us", file_, task, name, v));
		};
		auto usec = [&] { return to_ns(integer(value, what()), key); };
		Event e;
		// what rt-app logs of the event: its index among the phase's
		// events, its resource_t, and its name as parse_task_event_data()
		// makes it (the key, then the resources it names). The ids
		// count up from 0 in the phase: the last one, plus one (counting
		// them all again made a phase of a million events quadratic)
		const auto last = std::find_if(out.rbegin(), out.rend(),
					       [](const Event &prior) { return prior.rtapp.id >= 0; });
		const int rtapp_id = last == out.rend() ? 0 : last->rtapp.id + 1;
		if (is("runtime")) {
			e.kind = EventKind::runtime;
			e.amount = usec();
		} else if (is("run")) {
			e.kind = EventKind::run;
			e.amount = usec();
		} else if (is("sleep")) {
			e.kind = EventKind::sleep;
			e.amount = usec();
		} else if (is("timer")) {
			e.kind = EventKind::timer;
			if (value.type != Node::Type::object)
				fail_task(task, fmt::format("{} must be an object {{\"ref\", \"period\"}}", key));
			for (const auto &[k, v] : value.members) {
				if (k == "ref")
					e.resource = string(v, what() + ".ref");
				else if (k == "period")
					e.amount = to_ns(integer(v, what() + ".period"), key + ".period");
				else if (k == "mode")
					e.absolute = string(v, what() + ".mode") == "absolute";
			}
			if (e.amount <= 0)
				fail_task(task, fmt::format("{}: period must be positive", key));
			if (e.resource.empty())
				fail_task(task, fmt::format("{} needs \"ref\", the name of the timer", key));
		} else if (is("suspend") || is("resume") || is("lock") || is("unlock") || is("signal") ||
			   is("broad") || is("barrier") || is("yield")) {
			e.kind = is("suspend") ? EventKind::suspend
				 : is("resume") ? EventKind::resume
				 : is("lock")	 ? EventKind::lock
				 : is("unlock") ? EventKind::unlock
				 : is("signal") ? EventKind::signal
				 : is("broad")	 ? EventKind::broadcast
				 : is("barrier") ? EventKind::barrier
						 : EventKind::yield;
			e.resource = value.type == Node::Type::string ? value.string : std::string();
			// suspend "" is filled by workgen with the thread's own name
			if (e.resource.empty() && e.kind == EventKind::suspend)
				e.resource = task;
			if (e.resource.empty() && e.kind != EventKind::yield)
				fail_task(task, fmt::format("{} needs a resource name", key));
		} else if (is("wait") || is("sync")) {
			if (value.type != Node::Type::object)
				fail_task(task, fmt::format("{} must be an object {{\"ref\", \"mutex\"}}", key));
			Event w;
			w.kind = EventKind::wait;
			for (const auto &[k, v] : value.members) {
				if (k == "ref")
					w.resource = string(v, what() + ".ref");
				else if (k == "mutex")
					w.mutex = string(v, what() + ".mutex");
			}
			if (w.resource.empty() || w.mutex.empty())
				fail_task(task, fmt::format("{} needs \"ref\" and \"mutex\"", key));
			if (is("sync")) {
				// lock, signal, wait, unlock: as rt-app expands it;
				// one event of rt-app's (rtapp_sig_and_wait) for its trace
				out.push_back({EventKind::lock, 0, w.mutex, {}, false,
					       {rtapp_id, 7, fmt::format("{}:{}:{}", key, w.resource, w.mutex)}});
				out.push_back({EventKind::signal, 0, w.resource, {}, false, {}});
				out.push_back(w);
				out.push_back({EventKind::unlock, 0, w.mutex, {}, false, {}});
				return;
			}
			e = w;
		} else if (key == "exec" || key == "period" || key == "deadline" || key == "lock_order" ||
			   key == "resources") {
			fail_task(task, fmt::format("\"{}\" belongs to rt-app's old grammar (exec/period/"
						    "lock_order, as merge.py writes it), which is not supported", key));
		} else if (is("mem") || is("iorun") || is("fork")) {
			fail_task(task, fmt::format("event \"{}\" is not supported (memory, I/O and fork "
						    "are not simulated)", key));
		} else {
			fail_task(task, fmt::format("unknown key or event \"{}\"", key));
		}
		printable(e.resource, fmt::format("task \"{}\": {}: resource", task, key));
		printable(e.mutex, fmt::format("task \"{}\": {}: mutex", task, key));
		e.rtapp = rtapp_event(e, key, rtapp_id);
		out.push_back(std::move(e));
	}
};

} // namespace

Workload parse_rtapp(const std::string &text, const std::string &file_name)
{
	TreeBuilder builder;
	rapidjson::Reader reader;
	rapidjson::StringStream stream(text.c_str());
	// iterative: the input does not decide the depth of the stack
	constexpr unsigned flags = rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag |
				   rapidjson::kParseNanAndInfFlag | rapidjson::kParseIterativeFlag;
	auto result = reader.Parse<flags>(stream, builder);
	if (result.IsError()) {
		auto [line, column] = line_column(text, result.Offset());
		if (builder.too_deep)
			throw Error(fmt::format("{}:{}:{}: objects and arrays nested deeper than {} levels",
						file_name, line, column, max_nesting));
		// rt-app's workgen script accepts keys without a value ("suspend",)
		// and fills them in; rt-app itself, like JSON, does not.
		const char *hint = result.Code() == rapidjson::kParseErrorObjectMissColon
					   ? " (a key without a value: files written for rt-app's workgen "
					     "script must go through workgen first)"
					   : "";
		throw Error(fmt::format("{}:{}:{}: {}{}", file_name, line, column,
					rapidjson::GetParseError_En(result.Code()), hint));
	}
	return Reader(file_name).read(builder.root);
}

Workload load_rtapp(const std::string &path)
{
	std::string text;
	std::error_code ec;
	if (!std::filesystem::exists(path, ec))
		throw Error(fmt::format("{}: cannot read the workload file", path));
	try {
		text = read_input_file(path, "workload file");
	} catch (const std::runtime_error &e) {
		throw Error(e.what());
	}
	return parse_rtapp(text, path);
}

} // namespace sh::workload
