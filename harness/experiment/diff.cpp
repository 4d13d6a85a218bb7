// SPDX-License-Identifier: GPL-2.0
#include "harness/experiment/diff.h"

#include <charconv>
#include <cmath>
#include <fstream>

namespace sh::experiment {

namespace {

// "   sugov:4-18      [004] d..2.     0.001000: cpu_frequency: ..." -> 1000000
std::int64_t timestamp_ns(const std::string &line)
{
	auto at = line.find("] ");
	if (at == std::string::npos)
		return 0;
	at = line.find(' ', at + 2);	// after the flags
	const auto end = line.find(": ", at);
	if (at == std::string::npos || end == std::string::npos)
		return 0;
	const auto text = line.substr(at, end - at);
	const auto dot = text.find('.');
	long long seconds = 0, micros = 0;
	const auto digits = text.find_first_not_of(' ');
	if (dot == std::string::npos || digits == std::string::npos)
		return 0;
	std::from_chars(text.data() + digits, text.data() + dot, seconds);
	std::from_chars(text.data() + dot + 1, text.data() + text.size(), micros);
	return seconds * 1000000000LL + micros * 1000;
}

// the line without the timestamp's digits
std::string without_timestamp(const std::string &line)
{
	auto at = line.find("] ");
	if (at == std::string::npos)
		return line;
	at = line.find(' ', at + 2);
	const auto end = at == std::string::npos ? at : line.find(": ", at);
	if (end == std::string::npos)
		return line;
	return line.substr(0, at) + line.substr(end);
}

} // namespace

std::vector<Decision> decisions(const std::filesystem::path &trace)
{
	std::ifstream in(trace);
	std::vector<Decision> events;
	bool stack_of_last = false;	// a "<stack trace>" line follows its event
	for (std::string line; std::getline(in, line);) {
		if (line.starts_with("#"))
			continue;
		if (line.starts_with(" => ")) {
			if (stack_of_last && !events.empty())
				events.back().stack.push_back(line.substr(4));
			continue;
		}
		if (line.ends_with(": <stack trace>"))
			continue;
		stack_of_last = false;
		for (const char *name : {": sched_switch: ", ": sched_wakeup: ", ": sched_wakeup_new: ",
					 ": sched_migrate_task: ", ": cpu_frequency: "}) {
			if (line.find(name) != std::string::npos) {
				events.push_back({line, without_timestamp(line), timestamp_ns(line), {}});
				stack_of_last = true;
				break;
			}
		}
	}
	return events;
}

std::size_t first_difference(std::span<const Decision> a, std::span<const Decision> b)
{
	std::size_t i = 0;
	while (i < a.size() && i < b.size() && a[i].what == b[i].what)
		i++;
	return i;
}

std::size_t first_timing_difference(std::span<const Decision> a, std::span<const Decision> b)
{
	std::size_t i = 0;
	while (i < a.size() && i < b.size() && a[i].line == b[i].line)
		i++;
	return i;
}

} // namespace sh::experiment
