// SPDX-License-Identifier: GPL-2.0
//
// `sched-harness run --json ARGS...` in a fresh process, its report parsed.
#pragma once

#include "support.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidjson/document.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace sh::test {

struct Run {
	support::ToolResult tool;
	rapidjson::Document json;
};

inline Run run_json(std::vector<std::string> args)
{
	std::vector<std::string> argv{"run", "--json"};
	argv.insert(argv.end(), args.begin(), args.end());
	Run r;
	const std::string command = fmt::format("{}", fmt::join(argv, " "));
	BOOST_TEST_MESSAGE("sched-harness " << command);
	std::vector<std::string> full{SH_TEST_HARNESS_BIN};
	full.insert(full.end(), argv.begin(), argv.end());
	r.tool = support::run_tool(full);
	BOOST_REQUIRE_MESSAGE(r.tool.exit_status == 0, "sched-harness " << command << " failed: " << r.tool.err);
	r.json.Parse(r.tool.out.c_str());
	BOOST_REQUIRE_MESSAGE(!r.json.HasParseError(), "the output is not JSON");
	return r;
}

// A command's JSON output, which must have succeeded.
inline rapidjson::Document json_of(const support::ToolResult &r)
{
	BOOST_REQUIRE_MESSAGE(r.exit_status == 0, r.err);
	rapidjson::Document doc;
	doc.Parse(r.out.c_str());
	BOOST_REQUIRE_MESSAGE(!doc.HasParseError(), "the output is not JSON");
	return doc;
}

inline Run run_json(std::initializer_list<std::string> args)
{
	return run_json(std::vector<std::string>(args));
}

} // namespace sh::test
