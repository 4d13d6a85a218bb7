// SPDX-License-Identifier: GPL-2.0
//
// sched-harness sweep end to end: a grid of parameter values substituted
// into the run's options, each point run over seeds 1..N, summarised and
// compared with a baseline point; its tables (text, CSV, JSON), its plot,
// and its bad input.
#include "run_json.h"
#include "support.h"

#include "dts/tools.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

using namespace sh;
using test::json_of;

namespace {

const rapidjson::Value &metric(const rapidjson::Value &point, const std::string &name)
{
	for (const auto &m : point["metrics"].GetArray())
		if (name == m["name"].GetString())
			return m;
	BOOST_FAIL("no metric " << name);
	throw;
}

std::filesystem::path temp_path(const std::string &name)
{
	return std::filesystem::temp_directory_path() / fmt::format("sh-test-sweep-{}-{}", ::getpid(), name);
}

} // namespace

BOOST_AUTO_TEST_SUITE(sweep)

// Two points, EAS on (the baseline) and off: each point's runs are the
// runs `run --seed S` gives, and EAS off changes energy and the time
// overutilized beyond the seeds' noise, as compare finds.
BOOST_AUTO_TEST_CASE(sweep_compares_each_point_with_the_baseline)
{
	const auto doc = json_of(test::run_cli({"sweep", "--json", "--param", "eas=1,0", "--sysctl",
					      "kernel.sched_energy_aware={eas}", "--duration", "2s", "--repeat", "4"}));
	BOOST_TEST(doc["repeat"].GetUint() == 4u);
	BOOST_TEST(doc["baseline"].GetUint() == 0u);
	const auto &points = doc["points"];
	BOOST_REQUIRE_EQUAL(points.Size(), 2u);
	BOOST_TEST(points[0]["values"]["eas"].GetString() == std::string("1"));
	BOOST_TEST(points[1]["values"]["eas"].GetString() == std::string("0"));
	BOOST_TEST(metric(points[0], "energy")["verdict"].GetString() == std::string("baseline"));
	BOOST_TEST(metric(points[0], "energy")["values"].Size() == 4u);
	for (const auto *name : {"energy", "overutilized"}) {
		const auto &m = metric(points[1], name);
		BOOST_TEST(m["verdict"].GetString() == std::string("changed"), name);
		BOOST_TEST(m["p"].GetDouble() < 0.01, name);
	}
	// a point's run with seed 2 is `run --seed 2` with the point's options
	auto run = json_of(test::run_cli({"run", "--json", "--duration", "2s", "--seed", "2", "--sysctl",
					"kernel.sched_energy_aware=0"}));
	BOOST_TEST(points[1]["fingerprints"][1].GetString() == std::string(run["fingerprint"].GetString()));
	BOOST_TEST(metric(points[1], "energy")["values"][1].GetDouble() == run["energy_j"].GetDouble());
}

// A range with a unit, a second parameter (the last varies fastest), a
// chosen baseline, CSV rows per point and metric; the text table names
// the baseline and every point.
BOOST_AUTO_TEST_CASE(sweep_grids_ranges_and_tables)
{
	auto csv = test::run_cli({"sweep", "--csv", "--param", "t=100ms..300ms/100ms", "--param", "n=2,4",
				  "--duration", "{t}", "--workload", "periodic:count={n}", "--repeat", "2",
				  "--metric", "energy", "--baseline", "t=200ms,n=4"});
	BOOST_REQUIRE_MESSAGE(csv.exit_status == 0, csv.err);
	// the same bytes again, whatever the number of runs at once
	auto again = test::run_cli({"sweep", "--csv", "--param", "t=100ms..300ms/100ms", "--param", "n=2,4",
				    "--duration", "{t}", "--workload", "periodic:count={n}", "--repeat", "2",
				    "--metric", "energy", "--baseline", "t=200ms,n=4", "--jobs", "1"});
	BOOST_TEST((again.out == csv.out));
	std::istringstream in(csv.out);
	std::vector<std::string> lines;
	for (std::string l; std::getline(in, l);)
		lines.push_back(l);
	BOOST_REQUIRE_EQUAL(lines.size(), 7u);	// the header, 3 x 2 points
	BOOST_TEST(lines[0] == "t,n,metric,unit,n,mean,sd,rsd_percent,min,max,delta_percent,p,verdict");
	const char *expected[] = {"100ms,2,", "100ms,4,", "200ms,2,", "200ms,4,", "300ms,2,", "300ms,4,"};
	for (int i = 0; i < 6; i++)
		BOOST_TEST(lines[static_cast<std::size_t>(i) + 1].rfind(expected[i], 0) == 0u, lines[i + 1]);
	BOOST_TEST(lines[4].ends_with(",baseline"), lines[4]);
	// energy grows with the duration and the number of tasks
	auto mean = [&](std::size_t line) {
		std::vector<std::string> fields;
		std::istringstream f(lines[line]);
		for (std::string x; std::getline(f, x, ',');)
			fields.push_back(x);
		return std::stod(fields[5]);
	};
	BOOST_TEST(mean(1) < mean(2));
	BOOST_TEST(mean(1) < mean(3));
	BOOST_TEST(mean(2) < mean(6));

	auto text = test::run_cli({"sweep", "--param", "eas=1,0", "--sysctl", "kernel.sched_energy_aware={eas}",
				   "--duration", "300ms", "--repeat", "2", "--metric", "energy"});
	BOOST_REQUIRE_MESSAGE(text.exit_status == 0, text.err);
	BOOST_TEST(text.out.find("eas (2 values): 2 points, 2 runs each (seeds 1-2)") != std::string::npos, text.out);
	BOOST_TEST(text.out.find("baseline: eas=1") != std::string::npos, text.out);
	BOOST_TEST(text.out.find("energy (J)") != std::string::npos, text.out);
	BOOST_TEST(text.out.find("migrations") == std::string::npos, text.out);
}

// --plot draws each metric against the first parameter, one line per
// value of the second: an SVG with both lines' titles and the axes'
// labels, and a PNG.
BOOST_AUTO_TEST_CASE(sweep_plots_svg_and_png)
{
	const auto svg = temp_path("plot.svg"), png = temp_path("plot.png");
	auto r = test::run_cli({"sweep", "--param", "n=2..6/2", "--param", "eas=1,0", "--workload",
				"periodic:count={n}", "--sysctl", "kernel.sched_energy_aware={eas}", "--duration",
				"200ms", "--repeat", "2", "--metric", "energy", "--metric", "migrations", "--plot",
				svg.string()});
	BOOST_REQUIRE_MESSAGE(r.exit_status == 0, r.err);
	std::ifstream in(svg);
	const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
	std::filesystem::remove(svg);
	BOOST_TEST(text.find("<svg") != std::string::npos);
	BOOST_TEST(text.size() > 10000u);
	for (const char *label : {"energy (J)", "migrations", "eas=1", "eas=0", ">n<"})
		BOOST_TEST(text.find(label) != std::string::npos, label);
	// the plotted lines: a path per series per panel, with many points
	BOOST_TEST(std::count(text.begin(), text.end(), 'L') > 20);

	r = test::run_cli({"sweep", "--param", "eas=1,0", "--sysctl", "kernel.sched_energy_aware={eas}", "--duration",
			   "200ms", "--repeat", "2", "--plot", png.string()});
	BOOST_REQUIRE_MESSAGE(r.exit_status == 0, r.err);
	BOOST_TEST(std::filesystem::file_size(png) > 5000u);
	std::ifstream bytes(png, std::ios::binary);
	char magic[4] = {};
	bytes.read(magic, 4);
	BOOST_TEST(std::string(magic + 1, 3) == "PNG");
	std::filesystem::remove(png);
}

BOOST_AUTO_TEST_CASE(sweep_bad_input_is_status_2)
{
	struct Case {
		std::vector<std::string> args;
		std::string message;
	} cases[] = {
		{{}, "sweep needs a --param NAME=VALUES"},
		{{"--param", "eas"}, "--param eas: expected NAME=V1,V2,..."},
		{{"--param", "1x=1,2", "--duration", "{1x}"}, "\"1x\" is not a name"},
		{{"--param", "t=5..1", "--duration", "{t}"}, "the range must rise by a positive step"},
		{{"--param", "t=1ms..5s", "--duration", "{t}"}, "FROM, TO and STEP must have the same unit"},
		{{"--param", "t=1..x", "--duration", "{t}"}, "a range is FROM..TO or FROM..TO/STEP of integers"},
		{{"--param", "t=1,,2", "--duration", "{t}"}, "--param t=1,,2: an empty value"},
		{{"--param", "t=1..100000", "--duration", "{t}"}, "more than 10000 values"},
		{{"--param", "t=1,2"}, "--param t: no option names {t}"},
		{{"--param", "t=1,2", "--duration", "{u}"}, "\"{u}\" names {u}, which no --param defines"},
		{{"--param", "t=1,2", "--param", "t=3", "--duration", "{t}"}, "--param t: given twice"},
		{{"--param", "t=1,2", "--duration", "{t}", "--baseline", "t=3"}, "--baseline t=3: no point of the grid"},
		{{"--param", "t=1,2", "--duration", "{t}", "--metric", "speed"}, "--metric speed: no such metric"},
		{{"--param", "t=1,2", "--duration", "{t}", "--repeat", "0"}, "--repeat 0: at least 1 run per point"},
		{{"--param", "t=1,2", "--duration", "{t}", "--plot", "/tmp/plot.txt"}, "a plot is written as .svg or .png"},
		// a point's bad value is the run's bad input, named by point and seed
		{{"--param", "t=100ms,-1s", "--duration", "{t}", "--repeat", "1"}, "point t=-1s seed 1: "},
	};
	for (const auto &c : cases) {
		std::vector<std::string> argv{"sweep"};
		argv.insert(argv.end(), c.args.begin(), c.args.end());
		const auto r = test::run_cli(argv);
		BOOST_TEST(r.exit_status == 2, c.message << ": " << r.err);
		BOOST_TEST(r.err.find(c.message) != std::string::npos, c.message << " not in: " << r.err);
		BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
	}
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(series)

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
	// 6.1's cooling device sets the thermal pressure, which the scheduler
	// averages (rq->avg_thermal); 6.12's policy limit is the pressure itself
	// (cpufreq_get_pressure()), not averaged
	const bool thermal_pressure = test::kernel_series() == "6.1";
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
		{{"--plot", "/tmp/run.pdf"}, "/tmp/run.pdf: a plot is written as .svg or .png"},
		{{"--series", "/nonexistent-dir/s.csv"}, "--series /nonexistent-dir/s.csv: cannot write it"},
		{{"--series", "/tmp/s.csv", "--sample-period", "0"}, "--sample-period 0: must be positive"},
		{{"--series", "/tmp/s.csv", "--sample-period", "500ns"}, "--sample-period 500ns: at least 1us"},
		{{"--series", "/tmp/s.csv", "--sample-period", "1us", "--duration", "100s"},
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

BOOST_AUTO_TEST_SUITE(experiments)

namespace {

std::filesystem::path source(const std::string &relative)
{
	return std::filesystem::path(SH_TEST_SOURCE_ROOT) / relative;
}

// Builds a patch's kernel image in a cache of the test's own: its id.
// the image of a patch, of the flavour the experiment's boards boot
std::string image_of(const std::string &patch, const std::string &arch)
{
	::setenv("SCHED_HARNESS_CACHE", temp_path("image-cache").c_str(), 1);
	auto built = test::run_cli({"--arch", arch, "kernel", "build", "--patch", source(patch).string()});
	BOOST_REQUIRE_MESSAGE(built.exit_status == 0, built.err);
	return built.out.substr(0, 16);
}

rapidjson::Document run_report(std::initializer_list<std::string> args)
{
	return json_of(test::run_cli(args));
}

} // namespace

// thermal/patches/thermal-pressure-average.patch on HiKey960 throttled
// under full load: "off" leaves the scheduler's average at 0, "instant"
// makes it the pressure itself, "pelt" is 6.1's own (the same run), and a
// decaying average over 250 ms sits near the pressure.
BOOST_AUTO_TEST_CASE(thermal_pressure_average_patch_sets_what_the_scheduler_sees)
{
	const auto id = image_of("thermal/patches/thermal-pressure-average.patch", "arm64");
	auto run = [&](const std::string &mode) {
		return run_report({"--kernel", id, "run", "--json", "--board", "hikey960", "--workload",
				   "fixed-work:threads=8,work=1000s", "--duration", "30s", "--cmdline",
				   "sched_thermal_avg=" + mode});
	};
	const auto off = run("off"), instant = run("instant"), pelt = run("pelt"), decay = run("250");
	const auto own = run_report({"run", "--json", "--board", "hikey960", "--workload",
				     "fixed-work:threads=8,work=1000s", "--duration", "30s"});
	BOOST_TEST(pelt["fingerprint"].GetString() == std::string(own["fingerprint"].GetString()));
	for (const unsigned cpu : {0u, 4u}) {
		const double pressure = off["cpus"][cpu]["thermal_pressure_avg"].GetDouble();
		BOOST_TEST(pressure > 1.0, cpu);
		BOOST_TEST(off["cpus"][cpu]["thermal_load_avg"].GetDouble() == 0.0, cpu);
		BOOST_TEST(instant["cpus"][cpu]["thermal_load_avg"].GetDouble() ==
				   instant["cpus"][cpu]["thermal_pressure_avg"].GetDouble(),
			   boost::test_tools::tolerance(0.02));
		BOOST_TEST(pelt["cpus"][cpu]["thermal_load_avg"].GetDouble() ==
				   own["cpus"][cpu]["thermal_load_avg"].GetDouble());
		BOOST_TEST(decay["cpus"][cpu]["thermal_load_avg"].GetDouble() ==
				   decay["cpus"][cpu]["thermal_pressure_avg"].GetDouble(),
			   boost::test_tools::tolerance(0.1));
	}
}

// sched/patches/feec-energy-margin.patch puts back the 6% margin: the
// kernel decides otherwise (its fingerprint) and moves tasks less often in
// the many-small-tasks scenario the margin was removed for; 6.1 itself
// passes the eas_behaviour-shaped suite, as the series reports.
BOOST_AUTO_TEST_CASE(feec_energy_margin_patch_is_the_before_kernel)
{
	const auto id = image_of("sched/patches/feec-energy-margin.patch", "arm");
	const auto before = run_report({"--kernel", id, "run", "--json", "--duration", "3s"});
	const auto after = run_report({"run", "--json", "--duration", "3s"});
	BOOST_TEST(before["fingerprint"].GetString() != std::string(after["fingerprint"].GetString()));
	BOOST_TEST(before["migrations"].GetUint64() < after["migrations"].GetUint64());
	auto check = test::run_cli({"check", source("scripts/experiments/eas-behaviour/suite.json").string()});
	BOOST_TEST(check.exit_status == 0, check.out << check.err);
	BOOST_TEST(std::count(check.out.begin(), check.out.end(), '\n') > 30u);
}

// sched/patches/turbosched.patch on the synthetic SMT server: with
// TURBO_SCHED the jitter tasks the workload classifies (sched_flags 0x80)
// wake on the cores the CPU-bound tasks keep busy, and the package budget
// (4 active cores hold 3.8 GHz) never has to lower the clock; without it
// (6.1's select_idle_sibling()) they wake idle cores. The build's own
// kernel does not know the flag: bad input, named.
BOOST_AUTO_TEST_CASE(turbosched_patch_packs_jitter_tasks_on_busy_cores)
{
	const auto id = image_of("sched/patches/turbosched.patch", "arm64");
	const auto board = temp_path("server.dts");
	const auto made = dts::run_tool(std::vector<std::string>{
		"bash", "-c",
		fmt::format("'{}' 8 4 > '{}'", source("scripts/experiments/turbosched/server-board.sh").string(),
			    board.string())});
	BOOST_REQUIRE_MESSAGE(made.exit_status == 0, made.err);
	const auto workload = temp_path("turbo-jitter.json");
	std::ofstream(workload) << R"({"global": {"duration": -1}, "tasks": {
		"cpu_bound": {"instance": 3, "loop": -1, "run": 100000},
		"jitter": {"instance": 3, "loop": -1, "sched_flags": 128, "run": 1000,
			   "timer": {"ref": "unique", "period": 10000}}}})";
	const auto power = source("scripts/experiments/turbosched/server-power.json").string();
	auto run = [&](const char *feature) {
		return run_report({"--kernel", id, "run", "--json", "--board", board.string(), "--board-power", power,
				   "--workload", workload.string(), "--duration", "2s", "--feature",
				   std::string("TURBO_SCHED=") + feature});
	};
	// the cores (4 threads each) a task ran on at all, and where it spent
	// most of its time
	auto cores_of = [](const rapidjson::Value &task) {
		std::set<unsigned> cores;
		for (const auto &c : task["cpus_used"].GetArray())
			cores.insert(c.GetUint() / 4);
		return cores;
	};
	auto main_core = [](const rapidjson::Value &task) {
		const auto &by_cpu = task["cpu_time_by_cpu_ns"];
		unsigned best = 0;
		for (unsigned c = 1; c < by_cpu.Size(); c++)
			if (by_cpu[c].GetInt64() > by_cpu[best].GetInt64())
				best = c;
		return best / 4;
	};
	const auto on = run("on"), off = run("off");
	for (const auto *r : {&on, &off}) {
		std::set<unsigned> busy_cores;
		for (const auto &t : (*r)["tasks"].GetArray())
			if (std::string(t["name"].GetString()).rfind("cpu_bound", 0) == 0)
				busy_cores.merge(cores_of(t));
		BOOST_REQUIRE_EQUAL(busy_cores.size(), 3u);
		for (const auto &t : (*r)["tasks"].GetArray()) {
			if (std::string(t["name"].GetString()).rfind("jitter", 0) != 0)
				continue;
			if (r == &on)
				BOOST_TEST(busy_cores.count(main_core(t)) == 1u, t["name"].GetString() << " packed");
			else
				BOOST_TEST(busy_cores.count(main_core(t)) == 0u, t["name"].GetString() << " on an idle core");
		}
	}
	BOOST_TEST(on["fingerprint"].GetString() != std::string(off["fingerprint"].GetString()));
	double below = 0;
	for (const auto &c : on["package_ceiling"].GetArray())
		if (c["khz"].GetUint() < 3800000)
			below += c["ns"].GetDouble();
	BOOST_TEST(below < 0.01 * on["simulated_ns"].GetDouble());

	const auto refused = test::run_cli({"run", "--board", board.string(), "--workload", workload.string(),
					     "--duration", "100ms"});
	BOOST_TEST(refused.exit_status == 2, refused.err);
	BOOST_TEST(refused.err.find("sched_flags 0x80 refused by sched_setattr(): -22") != std::string::npos,
		   refused.err);
}

BOOST_AUTO_TEST_SUITE_END()
