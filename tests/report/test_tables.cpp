// SPDX-License-Identifier: GPL-2.0
//
// compare's and sweep's tables (text, JSON, CSV) from a comparison whose
// reference mean is 0: the percentage is n/a (null in JSON, empty in
// CSV), the absolute change is given (delta in JSON and CSV, after the
// verdict in text), and the text's columns stay aligned.
#include "harness/experiment/comparison.h"
#include "harness/suite/metrics.h"
#include "harness/experiment/sweep.h"
#include "harness/report/comparison_report.h"
#include "harness/report/sweep_report.h"

#include <boost/test/unit_test.hpp>
#include <rapidjson/document.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

using namespace sh;

namespace {

const suite::Metric *metric(std::string_view name)
{
	const auto *m = suite::find_metric(name);
	if (!m)
		BOOST_FAIL("no metric " << name);
	return m;
}

// The line of `text` that starts with `start` after its indentation.
std::string line_of(const std::string &text, const std::string &start)
{
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);)
		if (line.find_first_not_of(' ') != std::string::npos &&
		    line.compare(line.find_first_not_of(' '), start.size(), start) == 0)
			return line;
	BOOST_FAIL("no line " << start << " in:\n" << text);
	return "";
}

const std::vector<double> zeros{0, 0, 0}, migrations{10, 10.5, 11}, energy_a{1.0, 1.1, 0.9},
	energy_b{1.2, 1.3, 1.1};

experiment::ComparedMetric compared(const char *name, const std::vector<double> &a, const std::vector<double> &b)
{
	return {metric(name), {a, b}, stats::compare(a, b, 0.01), {}};
}

} // namespace

BOOST_AUTO_TEST_SUITE(report)

BOOST_AUTO_TEST_CASE(compare_tables_from_a_zero_mean)
{
	experiment::ComparisonPlan plan;
	plan.repeat = 3;
	experiment::ScenarioComparison result;
	result.board = "hikey960";
	result.workload = "periodic";
	result.seconds = 1;
	result.same_runs = 0;
	result.metrics = {compared("energy_j", energy_a, energy_b), compared("migrations", zeros, migrations)};
	const std::vector<experiment::ScenarioComparison> results{result};

	const auto text = sh::report::comparison_text(plan, results);
	const auto energy = line_of(text, "energy"), moved = line_of(text, "migrations");
	BOOST_TEST(energy.find("  +20.00% ") != std::string::npos, energy);
	BOOST_TEST(moved.find("      n/a ") != std::string::npos, moved);
	BOOST_TEST(moved.find("+0.00") == std::string::npos, moved);
	// aligned: the p column starts where the percentage's row has it
	BOOST_TEST(moved.find(" n/a ") + 4 == energy.find("% ") + 1, text);
	BOOST_TEST(moved.ends_with("changed (+10.50 from 0)"), moved);

	rapidjson::Document doc;
	doc.Parse(sh::report::comparison_json(plan, results).c_str());
	BOOST_TEST_REQUIRE(!doc.HasParseError());
	const auto &m = doc["scenarios"][0]["metrics"];
	BOOST_TEST(m[0]["delta"].GetDouble() == 0.2, boost::test_tools::tolerance(1e-9));
	BOOST_TEST(m[0]["delta_percent"].GetDouble() == 20.0, boost::test_tools::tolerance(1e-9));
	BOOST_TEST(m[1]["delta"].GetDouble() == 10.5, boost::test_tools::tolerance(1e-9));
	BOOST_TEST(m[1]["delta_percent"].IsNull());

	const auto csv = sh::report::comparison_csv(results);
	BOOST_TEST(csv.substr(0, csv.find('\n')) == "scenario,board,workload,metric,unit,a_mean,a_sd,a_rsd_percent,b_mean,"
						   "b_sd,b_rsd_percent,delta,delta_percent,p,verdict");
	const auto row = line_of(csv, ",hikey960,periodic,migrations,");
	BOOST_TEST(std::count(row.begin(), row.end(), ',') == 14, row);
	BOOST_TEST(row.find(",10.5,,") != std::string::npos, row);	// delta, then no percentage
}

BOOST_AUTO_TEST_CASE(sweep_tables_from_a_zero_baseline)
{
	experiment::SweepPlan plan;
	plan.params = {{"n", {"1", "4"}}};
	plan.points = {{{{"n", "1"}}, "n=1", {}, {}, {}}, {{{"n", "4"}}, "n=4", {}, {}, {}}};
	plan.repeat = 3;
	std::vector<experiment::SweepRow> rows;
	for (const auto &[name, base, other] :
	     {std::tuple{"energy_j", energy_a, energy_b}, std::tuple{"migrations", zeros, migrations}}) {
		experiment::SweepRow row{metric(name), {}};
		for (const auto *values : {&base, &other})
			row.cells.push_back({*values, stats::summarize(*values), stats::compare(base, *values, 0.01)});
		rows.push_back(std::move(row));
	}
	const sh::report::SweepScenario scenario{"hikey960", "periodic", "1 s", ""};

	const auto text = sh::report::sweep_text(plan, scenario, rows);
	const auto tables = text.find("\nmigrations");
	const auto energy = line_of(text.substr(0, tables), "4 "), moved = line_of(text.substr(tables), "4 ");
	BOOST_TEST(energy.find("  +20.00% ") != std::string::npos, energy);
	BOOST_TEST(moved.find("      n/a ") != std::string::npos, moved);
	BOOST_TEST(moved.find(" n/a ") + 4 == energy.find("% ") + 1, text);
	BOOST_TEST(moved.ends_with("changed (+10.50 from 0)"), moved);

	std::vector<rapidjson::Document> reports(6);
	for (auto &r : reports)
		r.Parse(R"({"fingerprint": "f"})");
	rapidjson::Document doc;
	doc.Parse(sh::report::sweep_json(plan, scenario, rows, reports).c_str());
	BOOST_TEST_REQUIRE(!doc.HasParseError());
	const auto &point = doc["points"][1]["metrics"];
	BOOST_TEST(point[0]["delta_percent"].GetDouble() == 20.0, boost::test_tools::tolerance(1e-9));
	BOOST_TEST(point[1]["delta"].GetDouble() == 10.5, boost::test_tools::tolerance(1e-9));
	BOOST_TEST(point[1]["delta_percent"].IsNull());
	BOOST_TEST(doc["points"][0]["metrics"][1]["delta_percent"].IsNull());	// the baseline's own 0
	BOOST_TEST(doc["points"][0]["metrics"][1]["delta"].GetDouble() == 0.0);

	const auto csv = sh::report::sweep_csv(plan, rows);
	BOOST_TEST(csv.substr(0, csv.find('\n')) == "n,metric,unit,n,mean,sd,rsd_percent,min,max,delta,delta_percent,p,verdict");
	const auto row = line_of(csv, "4,migrations,");
	BOOST_TEST(std::count(row.begin(), row.end(), ',') == 12, row);
	BOOST_TEST(row.find(",10.5,,") != std::string::npos, row);
}

BOOST_AUTO_TEST_SUITE_END()
