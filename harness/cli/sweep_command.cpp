// SPDX-License-Identifier: GPL-2.0
//
// sched-harness sweep --param NAME=VALUES [--param ...] [scenario and kernel options with {NAME}]
//
// One scenario over a grid of parameter values (hyperfine's
// --parameter-list/--parameter-scan): every option may name a parameter as
// {NAME}, each point of the grid (the product of the parameters' values)
// runs N times with seeds 1..N, every run its own `sched-harness run
// --json` process, and each metric is summarised per point as perf stat
// --repeat --table would (mean, sd, RSD) and compared with a baseline point
// (Welch's t test, runs paired by seed as compare pairs them).
#include "harness/cli/cli.h"

#include "harness/cli/experiment_options.h"
#include "harness/suite/metrics.h"
#include "harness/experiment/runner.h"
#include "harness/experiment/sweep.h"
#include "harness/report/sweep_report.h"
#include "harness/report/plot.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <charconv>
#include <map>
#include <ostream>
#include <regex>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

using experiment::max_sweep_points;
using experiment::Param;

bool valid_name(std::string_view name)
{
	static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
	return std::regex_match(name.begin(), name.end(), identifier);
}

// An integer with an optional unit after it ("50ms" -> 50, "ms").
std::optional<std::pair<long long, std::string>> integer_with_unit(std::string_view text)
{
	long long v = 0;
	const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
	if (ec != std::errc() || end == text.data())
		return std::nullopt;
	return std::pair{v, std::string(end, text.data() + text.size())};
}

// NAME=V1,V2,... or NAME=FROM..TO[/STEP]: integers with one unit ("50ms..1000ms/50ms").
Param parse_param(const std::string &text)
{
	const auto eq = text.find('=');
	if (eq == std::string::npos)
		throw UsageError{fmt::format("--param {}: expected NAME=V1,V2,... or NAME=FROM..TO/STEP", text)};
	Param param{text.substr(0, eq), {}};
	if (!valid_name(param.name))
		throw UsageError{fmt::format("--param {}: \"{}\" is not a name (letters, digits, _)", text, param.name)};
	const std::string values = text.substr(eq + 1);
	if (const auto dots = values.find(".."); dots != std::string::npos) {
		const auto slash = values.find('/', dots);
		const auto from = integer_with_unit(values.substr(0, dots));
		const auto to = integer_with_unit(values.substr(dots + 2, slash == std::string::npos ? std::string::npos
												   : slash - dots - 2));
		const auto step = slash == std::string::npos ? std::optional(std::pair<long long, std::string>{1, ""})
							     : integer_with_unit(values.substr(slash + 1));
		if (!from || !to || !step)
			throw UsageError{fmt::format("--param {}: a range is FROM..TO or FROM..TO/STEP of integers, "
						     "with one unit (50ms..1000ms/50ms)",
						     text)};
		const auto &unit = from->second;
		if (to->second != unit || (!step->second.empty() && step->second != unit))
			throw UsageError{fmt::format("--param {}: FROM, TO and STEP must have the same unit", text)};
		if (step->first <= 0 || to->first < from->first)
			throw UsageError{fmt::format("--param {}: the range must rise by a positive step", text)};
		for (long long v = from->first; v <= to->first; v += step->first) {
			param.values.push_back(fmt::format("{}{}", v, unit));
			if (param.values.size() > max_sweep_points)
				throw UsageError{fmt::format("--param {}: more than {} values", text, max_sweep_points)};
			if (v > to->first - step->first)
				break;	// the next step would pass TO (or overflow)
		}
	} else {
		std::string value;
		for (std::size_t start = 0;;) {
			const auto comma = values.find(',', start);
			param.values.push_back(values.substr(start, comma == std::string::npos ? comma : comma - start));
			if (comma == std::string::npos)
				break;
			start = comma + 1;
		}
		for (const auto &v : param.values)
			if (v.empty())
				throw UsageError{fmt::format("--param {}: an empty value", text)};
	}
	return param;
}

po::options_description sweep_options()
{
	po::options_description options("sweep options");
	options.add_options()
		("help,h", "show this help")
		("param", po::value<std::vector<std::string>>()->value_name("NAME=VALUES")->composing(),
		 "a parameter and its values: V1,V2,... or a range FROM..TO/STEP of integers with an "
		 "optional unit (50ms..1000ms/50ms); other options use it as {NAME}. Repeatable: the "
		 "points are every combination, the last parameter varying fastest")
		("repeat", po::value<Unsigned>()->default_value(Unsigned{5}, "5")->value_name("N"),
		 "runs per point, with seeds 1..N")
		("jobs", po::value<Unsigned>()->value_name("J"),
		 "runs at once, each its own process (default: the machine's cores)")
		("baseline", po::value<std::string>()->value_name("NAME=V,..."),
		 "the point the others are compared with (default: the first)")
		("metric", po::value<std::vector<std::string>>()->value_name("NAME")->composing(),
		 ("a metric to show; repeatable (default: those compare shows, where the workload has them): " +
		  suite::run_metric_names() + " (docs/reference.md says what each is)")
			 .c_str())
		("alpha", po::value<double>()->default_value(0.01),
		 "significance level of the t test against the baseline: p below it is a change")
		("kernel", po::value<std::string>()->value_name("ID|DIR|TREE|PATCH"),
		 "the kernel image each run boots, as the global --kernel takes it; may name a parameter, "
		 "e.g. --param k=default,my.patch --kernel {k}, where 'default' is the build's own kernel; "
		 "default: the build's own. Given after 'sweep' it is this option; the global --kernel "
		 "(before 'sweep') runs the whole sweep with its kernel, and the two together are refused")
		("cmdline", po::value<std::string>()->value_name("ARGS"), "kernel command line")
		("sysctl", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
		 "a sysctl; repeatable")
		("feature", po::value<std::vector<std::string>>()->value_name("NAME=on|off")->composing(),
		 "a scheduler feature; repeatable")
		("json", po::bool_switch(), "print the sweep as JSON (every run's value too)")
		("csv", po::bool_switch(), "print one CSV row per point and metric")
		("plot", po::value<std::string>()->value_name("FILE"),
		 "also draw each metric's mean ± sd against the first parameter (one line per value of the "
		 "second), as SVG (FILE.svg) or PNG (FILE.png), with gnuplot");
	options.add(scenario_options());
	options.add(engine_options());
	return options;
}

std::vector<Param> params_of(const po::variables_map &vm)
{
	std::vector<Param> params;
	for (const auto &text : vm["param"].as<std::vector<std::string>>()) {
		params.push_back(parse_param(text));
		for (std::size_t i = 0; i + 1 < params.size(); i++)
			if (params[i].name == params.back().name)
				throw UsageError{fmt::format("--param {}: given twice", params.back().name)};
	}
	return params;
}

std::vector<const suite::Metric *> shown_metrics(const po::variables_map &vm)
{
	std::vector<const suite::Metric *> shown;
	if (!vm.count("metric")) {
		for (const auto &m : suite::run_metrics())
			if (m.compared)
				shown.push_back(&m);
		return shown;
	}
	for (const auto &name : vm["metric"].as<std::vector<std::string>>()) {
		if (const auto *m = suite::find_metric(name))
			shown.push_back(m);
		else if (const auto now = suite::renamed_metric(name))
			throw UsageError{fmt::format("--metric {}: the metric is now called {}", name, *now)};
		else
			throw UsageError{fmt::format("--metric {}: no such metric ({})", name, suite::run_metric_names())};
	}
	return shown;
}

// --baseline NAME=V,...: the first point with these values; else the first.
std::size_t baseline_of(const po::variables_map &vm, std::span<const experiment::Point> points)
{
	if (!vm.count("baseline"))
		return 0;
	std::map<std::string, std::string> wanted;
	const auto text = vm["baseline"].as<std::string>();
	for (std::size_t start = 0;;) {
		const auto comma = text.find(',', start);
		const auto part = text.substr(start, comma == std::string::npos ? comma : comma - start);
		const auto eq = part.find('=');
		if (eq == std::string::npos)
			throw UsageError{fmt::format("--baseline {}: expected NAME=VALUE,...", text)};
		wanted[part.substr(0, eq)] = part.substr(eq + 1);
		if (comma == std::string::npos)
			break;
		start = comma + 1;
	}
	const auto it = std::find_if(points.begin(), points.end(), [&](const auto &point) {
		return std::all_of(wanted.begin(), wanted.end(), [&](const auto &kv) {
			const auto v = point.find(kv.first);
			return v != point.end() && v->second == kv.second;
		});
	});
	if (it == points.end())
		throw UsageError{fmt::format("--baseline {}: no point of the grid has these values", text)};
	return static_cast<std::size_t>(it - points.begin());
}

// The scenario as the reports name it; where a parameter varies a part of
// it, the values the points ran with, in the grid's order (the first and
// the last of many).
report::SweepScenario scenario_named(const experiment::SweepPlan &plan, std::span<const rapidjson::Document> reports)
{
	auto named = [&](auto value_of) {
		std::vector<std::string> values;
		for (std::size_t i = 0; i < plan.points.size(); i++) {
			auto v = value_of(plan.report(reports, i, 1));
			if (std::find(values.begin(), values.end(), v) == values.end())
				values.push_back(std::move(v));
		}
		if (values.size() > 3)
			return fmt::format("{} ... {} ({} values)", values.front(), values.back(), values.size());
		return fmt::format("{}", fmt::join(values, " | "));
	};
	return {named([](const rapidjson::Document &r) { return std::string(r["board"].GetString()); }),
		named([](const rapidjson::Document &r) { return std::string(r["workload"].GetString()); }),
		named([](const rapidjson::Document &r) {
			return fmt::format("{} s", r["duration_ns"].GetDouble() / 1e9);
		}),
		named([](const rapidjson::Document &r) { return experiment::kernel_ran(r); })};
}

// --kernel, or --image as it was called before (still taken, with a word).
std::optional<std::string> kernel_of(const Context &ctx, const po::variables_map &vm)
{
	if (vm.count("image") && vm.count("kernel"))
		throw UsageError{"--image and --kernel: --image is the old name of --kernel, give one"};
	if (vm.count("image")) {
		ctx.err << "sched-harness sweep: --image is now --kernel\n";
		return vm["image"].as<std::string>();
	}
	if (vm.count("kernel"))
		return vm["kernel"].as<std::string>();
	return std::nullopt;
}

// The plan and the metrics to show, from the options, checked in the order
// a user reads them; the images the points name are resolved (built if
// need be) last.
struct SweepSetup {
	experiment::SweepPlan plan;
	std::vector<const suite::Metric *> shown;
};

SweepSetup setup_of(const Context &ctx, const po::variables_map &vm)
{
	if (!vm.count("param"))
		throw UsageError{"sweep needs a --param NAME=VALUES (see sweep --help)"};
	SweepSetup setup;
	auto &plan = setup.plan;
	plan.repeat = bounded_option(vm, "repeat", 100000);
	if (plan.repeat < 1)
		throw UsageError{"--repeat 0: at least 1 run per point"};
	plan.alpha = vm["alpha"].as<double>();
	if (!(plan.alpha > 0 && plan.alpha < 1))
		throw UsageError{fmt::format("--alpha {}: a probability between 0 and 1", plan.alpha)};
	if (vm["json"].as<bool>() && vm["csv"].as<bool>())
		throw UsageError{"--json and --csv: choose one"};
	plan.params = params_of(vm);
	try {
		const auto grid = experiment::grid_of(plan.params);
		setup.shown = shown_metrics(vm);
		plan.baseline = baseline_of(vm, grid);
		experiment::SweepOptions options{scenario_args(vm), variant_args(vm, ""), std::nullopt};
		options.image = kernel_of(ctx, vm);
		plan.points = experiment::sweep_points(plan.params, grid, options, ctx.err);
	} catch (const experiment::Error &e) {
		throw UsageError{e.what()};
	}
	return setup;
}

} // namespace

int sweep_command(const Context &ctx, const std::vector<std::string> &args)
{
	const auto options = sweep_options();
	po::options_description hidden;
	hidden.add_options()("image", po::value<std::string>(), "the old name of --kernel");
	po::positional_options_description positional;
	auto parsed = parse_subcommand(
		ctx, args, options, hidden, positional,
		"usage: sched-harness sweep --param NAME=VALUES [--param ...] [--repeat N] [--jobs J]\n"
		"              [scenario and kernel options naming {NAME}] [--kernel ID] [--baseline NAME=V] [--json|--csv]\n"
		"              [--plot FILE]\n\n"
		"Runs a scenario at every point of a grid of parameter values, N times each (seeds 1..N),\n"
		"each run its own process, and prints per point and metric mean ± sd (RSD) and the change\n"
		"from the baseline point with Welch's t test p, as perf stat --repeat --table would.\n"
		"Examples: the thermal-pressure averaging period, EAS on and off on three boards:\n"
		"  sched-harness sweep --param shift=0..4 --cmdline sched_thermal_decay_shift={shift} \\\n"
		"      --board hikey960 --workload fixed-work:threads=8,work=30s --thermal-model r=4,c=1\n"
		"  sched-harness sweep --param board=odroid-xu3,hikey960,juno --param eas=1,0 \\\n"
		"      --board {board} --sysctl kernel.sched_energy_aware={eas}\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	const auto engine = engine_of(vm);
	auto [plan, shown] = setup_of(ctx, vm);
	std::vector<rapidjson::Document> reports;
	try {
		auto executed = experiment::execute(local_host(ctx), plan.runs(), engine);
		if (!executed)
			return exit_ok;	// runs elsewhere; --collect prints the table
		reports = std::move(*executed);
	} catch (const experiment::RunFailed &failure) {
		return report_failure(ctx, "sweep", failure);
	}
	experiment::record_kernels(plan, reports);
	const auto rows = experiment::summarise_sweep(plan, shown, reports, vm.count("metric") > 0);
	const auto scenario = scenario_named(plan, reports);
	if (vm.count("plot")) {
		try {
			report::draw(report::sweep_plot(plan, scenario, rows), vm["plot"].as<std::string>());
		} catch (const report::PlotError &e) {
			throw UsageError{e.what()};
		}
	}
	if (vm["json"].as<bool>())
		ctx.out << report::sweep_json(plan, scenario, rows, reports);
	else if (vm["csv"].as<bool>())
		ctx.out << report::sweep_csv(plan, rows);
	else
		ctx.out << report::sweep_text(plan, scenario, rows);
	return exit_ok;
}

} // namespace sh::cli
