// SPDX-License-Identifier: GPL-2.0
//
// sched-harness compare end to end: variants A and B each run over seeds,
// their metrics' statistics and a verdict each (identical, changed, or not
// told apart), for one scenario or every scenario of a suite.
#include "support.h"
#include "temp_files.h"
#include "tree_features.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>
#include <filesystem>
#include <fstream>
#include <string>

using namespace sh;

namespace {

using test::temp_path;

} // namespace

BOOST_AUTO_TEST_SUITE(experiment)

// compare: the same options under A and B give the same run for every
// seed (identical, no test needed); turning EAS off is a change the t test
// finds (p < 0.01) in energy and the time overutilized; bad variants are bad input.
BOOST_AUTO_TEST_CASE(compare_tells_identical_from_changed)
{
	auto parse = [](const support::ToolResult &r) {
		BOOST_REQUIRE_MESSAGE(r.exit_status == 0, r.err);
		rapidjson::Document doc;
		doc.Parse(r.out.c_str());
		BOOST_REQUIRE(!doc.HasParseError());
		return doc;
	};
	auto metric = [](const rapidjson::Document &doc, const std::string &name) -> const rapidjson::Value & {
		BOOST_REQUIRE_EQUAL(doc["scenarios"].Size(), 1u);
		for (const auto &m : doc["scenarios"][0]["metrics"].GetArray())
			if (name == m["name"].GetString())
				return m;
		BOOST_FAIL("no metric " << name);
		static rapidjson::Value none;
		return none;
	};
	const auto same = parse(test::run_cli({"compare", "--json", "--duration", "1s", "--repeat", "3"}));
	BOOST_TEST(same["repeat"].GetUint() == 3u);
	for (const auto &m : same["scenarios"][0]["metrics"].GetArray())
		BOOST_TEST(m["verdict"].GetString() == std::string("identical"), m["name"].GetString());
	BOOST_TEST(metric(same, "energy_j")["a"]["values"].Size() == 3u);

	const auto eas = parse(test::run_cli({"compare", "--json", "--duration", "2s", "--repeat", "5", "--b-sysctl",
					      "kernel.sched_energy_aware=0"}));
	BOOST_TEST(eas["b"][1].GetString() == std::string("kernel.sched_energy_aware=0"));
	// (energy no longer: with kernel time, EAS's saving on 2 s of the
	// default scenario is within the seeds' noise; docs/kernel-time.md)
	// (and the time overutilized where only EAS moves the flag)
	const bool overutilized_by_eas = test::overutilized_only_with_eas();
	for (const auto *name : {"kernel_blocks_per_wakeup", "overutilized_percent"}) {
		if (std::string(name) == "overutilized_percent" && !overutilized_by_eas)
			continue;
		const auto &m = metric(eas, name);
		BOOST_TEST(m["verdict"].GetString() == std::string("changed"), name);
		BOOST_TEST(m["p"].GetDouble() < 0.01, name);
	}
	// without EAS the root domain is never marked overutilized (6.1's
	// set_rd_overutilized_status() asks sched_energy_enabled() first);
	// 5.10's fair.c raises the flag with EAS off too, as with it
	for (const auto &v : metric(eas, "overutilized_percent")["b"]["values"].GetArray()) {
		if (overutilized_by_eas)
			BOOST_TEST(v.GetDouble() == 0.0);
		else
			BOOST_TEST(v.GetDouble() > 0.0);
	}

	auto text = test::run_cli({"compare", "--duration", "500ms", "--repeat", "2", "--b-feature", "UTIL_EST=off"});
	BOOST_TEST(text.exit_status == 0, text.err);
	BOOST_TEST(text.out.find("B: --feature UTIL_EST=off") != std::string::npos, text.out);
	BOOST_TEST(text.out.find("\n  energy_j ") != std::string::npos, text.out);
	// the kernel each variant ran, as its runs' reports name it
	BOOST_TEST(text.out.find("  A: (the defaults)\n     kernel: Linux ") != std::string::npos, text.out);

	auto one = test::run_cli({"compare", "--repeat", "1"});
	BOOST_TEST(one.exit_status == 2);
	BOOST_TEST(one.err.find("--repeat 1: at least 2 runs per variant") != std::string::npos, one.err);
	auto bad = test::run_cli({"compare", "--duration", "100ms", "--repeat", "2", "--b-sysctl", "kernel.nonsense=1"});
	BOOST_TEST(bad.exit_status == 2);
	BOOST_TEST(bad.err.find("variant B seed 1") != std::string::npos, bad.err);
	BOOST_TEST(bad.err.find("kernel.nonsense") != std::string::npos, bad.err);
	BOOST_TEST(std::count(bad.err.begin(), bad.err.end(), '\n') == 1, bad.err);
}

// A metric a board cannot have is n/a, not 0: db845c's CPUs have no energy
// model, so its energy is not compared (a sum over nothing would read as a
// saving). Thermal pressure is compared only where some run had any.
BOOST_AUTO_TEST_CASE(compare_says_what_a_board_cannot_measure)
{
	const auto db845c = test::run_cli({"compare", "--board", "db845c", "--duration", "200ms", "--repeat", "2",
					   "--b-sysctl", "kernel.sched_energy_aware=0"});
	BOOST_REQUIRE_MESSAGE(db845c.exit_status == 0, db845c.err);
	BOOST_TEST(db845c.out.find("\n  energy_j                  n/a (CPUs without an energy model)\n") !=
			   std::string::npos,
		   db845c.out);
	BOOST_TEST(db845c.out.find("thermal_") == std::string::npos, db845c.out);
	const auto json = test::run_cli({"compare", "--board", "db845c", "--duration", "200ms", "--repeat", "2", "--json"});
	rapidjson::Document doc;
	doc.Parse(json.out.c_str());
	BOOST_REQUIRE(!doc.HasParseError());
	const auto &scenario = doc["scenarios"][0];
	BOOST_TEST(scenario["not_measured"][0].GetString() == std::string("energy_j"));
	for (const auto &m : scenario["metrics"].GetArray())
		BOOST_TEST(std::string(m["name"].GetString()).find("energy") == std::string::npos);

	// HiKey960's big cluster capped: the kernel's thermal pressure and its
	// PELT average, which sched_thermal_decay_shift changes
	const auto capped = test::run_cli({"compare", "--board", "hikey960", "--workload", "fixed-work:threads=8,work=1s",
					   "--thermal-cap", "4-7=903MHz@100ms", "--repeat", "2", "--b-cmdline",
					   "sched_thermal_decay_shift=4"});
	BOOST_REQUIRE_MESSAGE(capped.exit_status == 0, capped.err);
	BOOST_TEST(capped.out.find("\n  thermal_pressure_avg ") != std::string::npos, capped.out);
	BOOST_TEST(capped.out.find("\n  thermal_load_avg ") != std::string::npos, capped.out);
}

// A suite file's scenarios with the same A/B, a table each; the built-in
// default suite loads. A suite scenario's own --cmdline joins the
// variant's (one kernel command line).
BOOST_AUTO_TEST_CASE(compare_runs_a_suite)
{
	const auto path = temp_path("suite.json");
	{
		std::ofstream out(path);
		out << R"({"name": "two", "scenarios": [
			// comments and trailing commas, as rt-app files have them
			{"name": "light", "board": "odroid-xu3", "workload": "periodic:count=2", "duration": "300ms",
			 "cmdline": "sched_thermal_decay_shift=2"},
			{"name": "hackbench", "board": "hikey960", "workload": "hackbench:groups=1,loops=10"},
		]})";
	}
	auto r = test::run_cli({"compare", "--suite", path.string(), "--repeat", "2", "--json", "--b-cmdline",
				"sched_thermal_decay_shift=3"});
	std::filesystem::remove(path);
	BOOST_REQUIRE_MESSAGE(r.exit_status == 0, r.err);
	rapidjson::Document doc;
	doc.Parse(r.out.c_str());
	BOOST_REQUIRE(!doc.HasParseError());
	BOOST_TEST(doc["suite"].GetString() == std::string("two"));
	BOOST_REQUIRE_EQUAL(doc["scenarios"].Size(), 2u);
	BOOST_TEST(doc["scenarios"][0]["name"].GetString() == std::string("light"));
	BOOST_TEST(doc["scenarios"][1]["board"].GetString() == std::string("hikey960"));
	bool completion = false;
	for (const auto &m : doc["scenarios"][1]["metrics"].GetArray())
		completion |= m["name"].GetString() == std::string("completion_s");
	BOOST_TEST(completion);	// hackbench is finite

	// the built-in suite: every scenario runs; A against itself is identical
	auto builtin = test::run_cli({"compare", "--suite", "default", "--repeat", "2", "--json"});
	BOOST_REQUIRE_MESSAGE(builtin.exit_status == 0, builtin.err);
	rapidjson::Document all;
	all.Parse(builtin.out.c_str());
	BOOST_REQUIRE(!all.HasParseError());
	BOOST_TEST(all["scenarios"].Size() == 10u);
	for (const auto &sc : all["scenarios"].GetArray())
		for (const auto &m : sc["metrics"].GetArray())
			BOOST_TEST(m["verdict"].GetString() == std::string("identical"), sc["name"].GetString());

	auto both = test::run_cli({"compare", "--suite", "default", "--board", "hikey960"});
	BOOST_TEST(both.exit_status == 2);
	BOOST_TEST(both.err.find("--suite and --board") != std::string::npos, both.err);
	auto missing = test::run_cli({"compare", "--suite", "no-such-suite"});
	BOOST_TEST(missing.exit_status == 2);
	BOOST_TEST(missing.err.find("no such suite file, and no built-in suite of that name (built in: default)") !=
			   std::string::npos,
		   missing.err);
}

// compare --cover-letter: the seeds' table (benchmark; without: mean,
// RSD; with: mean (delta), RSD), every line within 72 columns, the means
// the JSON of the same runs gives, and the command that reproduces it.
BOOST_AUTO_TEST_CASE(compare_prints_the_cover_letters_table)
{
	const std::initializer_list<std::string> runs = {"compare", "--b-sysctl", "kernel.sched_energy_aware=0",
							 "--repeat", "2", "--duration", "300ms"};
	std::vector<std::string> cover(runs), json(runs);
	cover.insert(cover.end(), {"--cover-letter", "--cover-metric", "energy_j", "--cover-metric", "migrations"});
	json.push_back("--json");
	const auto table = test::run_cli(cover);
	BOOST_REQUIRE_MESSAGE(table.exit_status == 0, table.err);
	std::istringstream lines(table.out);
	for (std::string line; std::getline(lines, line);)
		BOOST_TEST(line.size() <= 72u, line);
	BOOST_TEST(table.out.find("| benchmark ") != std::string::npos, table.out);
	BOOST_TEST(table.out.find("| Without ") != std::string::npos, table.out);
	BOOST_TEST(table.out.find("*RSD: Relative Standard Deviation (std dev / mean)") != std::string::npos,
		   table.out);
	BOOST_TEST(table.out.find("2 runs each (seeds 1-2).") != std::string::npos, table.out);
	BOOST_TEST(table.out.find("  $ sched-harness compare --b-sysctl kernel.sched_energy_aware=0 \\\n") !=
			   std::string::npos,
		   table.out);

	const auto numbers = test::run_cli(json);
	BOOST_REQUIRE_MESSAGE(numbers.exit_status == 0, numbers.err);
	rapidjson::Document doc;
	doc.Parse(numbers.out.c_str());
	BOOST_REQUIRE(!doc.HasParseError());
	for (const auto &m : doc["scenarios"][0]["metrics"].GetArray()) {
		if (m["name"].GetString() != std::string("migrations"))
			continue;
		// the tables' rule: whole above 1000, two decimals above 10, else four
		const auto shown = [](double v) {
			return fmt::format(fmt::runtime(std::abs(v) >= 1000 ? "{:.0f}" : std::abs(v) >= 10 ? "{:.2f}" : "{:.4f}"), v);
		};
		const auto a = shown(m["a"]["mean"].GetDouble());
		const auto b = shown(m["b"]["mean"].GetDouble()) + " (";
		const auto row = table.out.find("| migrations ");
		BOOST_REQUIRE(row != std::string::npos);
		const auto line = table.out.substr(row, table.out.find('\n', row) - row);
		BOOST_TEST(line.find(" " + a + " |") != std::string::npos, line << " (A mean " << a << ")");
		BOOST_TEST(line.find(" " + b) != std::string::npos, line << " (B mean " << b << ")");
	}

	cover.push_back("--json");
	BOOST_TEST(test::run_cli(cover).exit_status == 2);
	auto bad = test::run_cli({"compare", "--cover-letter", "--cover-metric", "no_such_metric"});
	BOOST_TEST(bad.exit_status == 2);
	BOOST_TEST(bad.err.find("--cover-metric no_such_metric: no such metric") != std::string::npos, bad.err);
}

BOOST_AUTO_TEST_SUITE_END()
