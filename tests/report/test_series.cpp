// SPDX-License-Identifier: GPL-2.0
//
// run --series and plot end to end: the run sampled over time into a CSV
// file, drawn as a plot, without changing the run; and their bad input.
#include "support.h"
#include "temp_files.h"
#include "tree_features.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

using namespace sh;

namespace {

using test::temp_path;

} // namespace

BOOST_AUTO_TEST_SUITE(report)

// run --series samples the run over time and --plot draws it; sampling
// only reads (the report is byte for byte the one without), and the
// samples agree with the report's time averages: HiKey960 under full load
// reaches its trip, and the thermal pressure's sampled mean is the
// report's average (arch_scale_thermal_pressure(), rq->avg_thermal).
BOOST_AUTO_TEST_CASE(run_series_and_plot_observe_without_changing_the_run)
{
	const auto csv = temp_path("series.csv"), svg = temp_path("run.svg");
	const std::initializer_list<std::string> scenario = {"run", "--json", "--board", "hikey960", "--workload",
							     "fixed-work:threads=8,work=1000s", "--duration", "30s"};
	std::vector<std::string> observed(scenario);
	observed.insert(observed.end(), {"--series", csv.string(), "--plot", svg.string()});
	const auto with = test::run_cli(observed), without = test::run_cli(scenario);
	BOOST_REQUIRE_MESSAGE(with.exit_status == 0, with.err);
	BOOST_REQUIRE_MESSAGE(without.exit_status == 0, without.err);
	BOOST_TEST((with.out == without.out));
	rapidjson::Document report;
	report.Parse(with.out.c_str());
	BOOST_REQUIRE(!report.HasParseError());

	std::ifstream in(csv);
	std::string header;
	std::getline(in, header);
	std::vector<std::string> columns;
	{
		std::istringstream h(header);
		for (std::string c; std::getline(h, c, ',');)
			columns.push_back(c);
	}
	BOOST_REQUIRE_EQUAL(columns.size(), 1u + 8 * 6 + report["thermal_zones"].Size());
	BOOST_TEST(columns[0] == "time_s");
	BOOST_TEST(columns[1] == "cpu0_util");
	BOOST_TEST(columns[5] == "cpu0_thermal_avg");
	std::vector<std::vector<double>> rows;
	for (std::string line; std::getline(in, line);) {
		std::vector<double> row;
		std::istringstream l(line);
		for (std::string x; std::getline(l, x, ',');)
			row.push_back(std::stod(x));
		BOOST_REQUIRE_EQUAL(row.size(), columns.size());
		rows.push_back(std::move(row));
	}
	std::filesystem::remove(csv);
	// 30 s / 30 ms, and the start
	BOOST_REQUIRE_EQUAL(rows.size(), 1001u);
	BOOST_TEST(rows[1][0] == 0.03);
	BOOST_TEST(rows.back()[0] == 30.0);
	auto mean = [&](std::size_t column) {
		double sum = 0;
		for (const auto &r : rows)
			sum += r[column];
		return sum / static_cast<double>(rows.size());
	};
	// Before 6.9 (5.10, 6.1) the cooling device sets the thermal pressure,
	// which the scheduler averages (rq->avg_thermal); from 6.9 the policy
	// limit is the pressure itself (cpufreq_get_pressure()), not averaged
	const bool thermal_pressure = test::pressure_from_cooling_device();
	for (const unsigned cpu : {0u, 4u}) {
		const auto &c = report["cpus"][cpu];
		const std::size_t base = 1 + 6 * cpu;
		if (thermal_pressure) {
			BOOST_TEST(c["thermal_pressure_avg"].GetDouble() > 1.0, cpu);	// the trip was reached
			BOOST_TEST(mean(base + 3) == c["thermal_pressure_avg"].GetDouble(),
				   boost::test_tools::tolerance(0.03));
			BOOST_TEST(mean(base + 4) == c["thermal_load_avg"].GetDouble(), boost::test_tools::tolerance(0.03));
		} else {
			BOOST_TEST(c["cpufreq_pressure_avg"].GetDouble() > 1.0, cpu);
			BOOST_TEST(mean(base + 5) == c["cpufreq_pressure_avg"].GetDouble(),
				   boost::test_tools::tolerance(0.03));
		}
		BOOST_TEST(rows.back()[base] > 1000.0);	// util_avg of a CPU busy for 30 s
	}
	const std::size_t zone = 1 + 8 * 6;
	BOOST_TEST(mean(zone) == report["thermal_zones"][0]["mean_c"].GetDouble(), boost::test_tools::tolerance(0.01));

	std::ifstream plot(svg);
	const std::string text((std::istreambuf_iterator<char>(plot)), std::istreambuf_iterator<char>());
	std::filesystem::remove(svg);
	BOOST_TEST(text.size() > 50000u);
	for (const char *label : {"utilisation (util_avg)", "frequency (MHz)", "temperature (°C)",
				  "thermal pressure (capacity)", thermal_pressure ? "CPU4-7 PELT average" : "CPU4-7 cpufreq",
				  "time (s)"})
		BOOST_TEST(text.find(label) != std::string::npos, label);
}

BOOST_AUTO_TEST_CASE(run_series_bad_input_is_status_2)
{
	struct Case {
		std::vector<std::string> args;
		std::string message;
	} cases[] = {
		{{"--sample-period", "1ms"}, "--sample-period: for --plot or --series"},
		{{"--plot", test::temp_path("run.pdf").string()},
		 test::temp_path("run.pdf").string() + ": a plot is written as .svg or .png"},
		{{"--series", "/nonexistent-dir/s.csv"}, "--series /nonexistent-dir/s.csv: cannot write it"},
		{{"--series", test::temp_path("s.csv").string(), "--sample-period", "0"}, "--sample-period 0: must be positive"},
		{{"--series", test::temp_path("s.csv").string(), "--sample-period", "500ns"}, "--sample-period 500ns: at least 1us"},
		{{"--series", test::temp_path("s.csv").string(), "--sample-period", "1us", "--duration", "100s"},
		 "--sample-period: 100000000 samples; at most 10000000"},
	};
	for (const auto &c : cases) {
		std::vector<std::string> argv{"run"};
		if (std::find(c.args.begin(), c.args.end(), "--duration") == c.args.end())
			argv.insert(argv.end(), {"--duration", "100ms"});
		argv.insert(argv.end(), c.args.begin(), c.args.end());
		const auto r = test::run_cli(argv);
		BOOST_TEST(r.exit_status == 2, c.message << ": " << r.err);
		BOOST_TEST(r.err.find(c.message) != std::string::npos, c.message << " not in: " << r.err);
	}
}

BOOST_AUTO_TEST_SUITE_END()
