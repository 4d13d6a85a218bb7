// SPDX-License-Identifier: GPL-2.0
//
// KernelShark opens a run's trace.dat: its library (Debian's libkshark-dev,
// KernelShark 2.2.1), used headless as the GUI uses it to load a file,
// reads every record, as many of each event as `trace-cmd report` prints.
#include "run_json.h"
#include "support.h"
#include "temp_files.h"

#include <boost/test/unit_test.hpp>

extern "C" {
#include <libkshark.h>
}

#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <string>

using namespace sh;

namespace {

std::map<std::string, std::size_t> report_counts(const std::filesystem::path &dat)
{
	const auto r = support::run_tool(std::vector<std::string>{"trace-cmd", "report", "-N", dat.string()});
	BOOST_REQUIRE_MESSAGE(r.exit_status == 0, r.err);
	const std::regex line(R"(^ *\S+-\d+ +\[\d{3}\] +[\d.]+: (\w+):.*$)");
	std::map<std::string, std::size_t> counts;
	std::istringstream in(r.out);
	std::string l;
	while (std::getline(in, l)) {
		std::smatch m;
		if (std::regex_match(l, m, line))
			counts[m[1].str()]++;
	}
	return counts;
}

} // namespace

BOOST_AUTO_TEST_SUITE(report)

BOOST_AUTO_TEST_CASE(kernelshark_loads_the_trace_dat)
{
	const auto dat = test::temp_path("kshark.dat");
	test::run_json({"--duration", "1s", "--trace", dat.string()});

	kshark_context *ctx = nullptr;
	BOOST_REQUIRE(kshark_instance(&ctx));
	const int sd = kshark_open(ctx, dat.c_str());
	BOOST_REQUIRE_MESSAGE(sd >= 0, "kshark_open() refused " << dat.string() << ": " << sd);
	kshark_entry **rows = nullptr;
	const ssize_t n = kshark_load_entries(ctx, sd, &rows);
	BOOST_REQUIRE_MESSAGE(n > 0, "kshark_load_entries(): " << n);
	std::map<std::string, std::size_t> counts;
	for (ssize_t i = 0; i < n; i++) {
		// "SYSTEM/NAME", as KernelShark lists the events
		if (char *name = kshark_get_event_name(rows[i])) {
			const std::string full(name);
			counts[full.substr(full.find('/') + 1)]++;
			std::free(name);
		}
		std::free(rows[i]);
	}
	std::free(rows);
	kshark_close(ctx, sd);
	kshark_free(ctx);

	const auto expected = report_counts(dat);
	BOOST_TEST(counts == expected);
	BOOST_TEST(counts["sched_switch"] > 0u);
	BOOST_TEST_MESSAGE(n << " entries loaded");
}

BOOST_AUTO_TEST_SUITE_END()
