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
#include "harness/experiment/metrics.h"
#include "harness/experiment/runner.h"
#include "harness/report/tables.h"
#include "harness/report/plot.h"
#include "harness/stats/stats.h"
#include "harness/image/image.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <map>
#include <ostream>
#include <regex>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

// The largest grid: points x repeats is the number of processes run.
constexpr std::size_t max_points = 10000;

struct Param {
	std::string name;
	std::vector<std::string> values;
};

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
			if (param.values.size() > max_points)
				throw UsageError{fmt::format("--param {}: more than {} values", text, max_points)};
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

// `text` with each {NAME} replaced by the point's value; the names
// substituted are added to `used`. A {NAME} that is no parameter is an error.
std::string substitute(const std::string &text, const std::map<std::string, std::string> &point,
		       std::set<std::string> &used)
{
	static const std::regex placeholder(R"(\{([A-Za-z_][A-Za-z0-9_]*)\})");
	std::string out;
	auto it = std::sregex_iterator(text.begin(), text.end(), placeholder);
	std::size_t last = 0;
	for (; it != std::sregex_iterator(); ++it) {
		const auto &m = *it;
		const auto name = m[1].str();
		const auto value = point.find(name);
		if (value == point.end())
			throw UsageError{fmt::format("\"{}\" names {{{}}}, which no --param defines", text, name)};
		used.insert(name);
		out += text.substr(last, static_cast<std::size_t>(m.position(0)) - last) + value->second;
		last = static_cast<std::size_t>(m.position(0) + m.length(0));
	}
	return out + text.substr(last);
}

std::string point_label(const std::vector<Param> &params, const std::map<std::string, std::string> &point)
{
	std::vector<std::string> parts;
	for (const auto &p : params)
		parts.push_back(fmt::format("{}={}", p.name, point.at(p.name)));
	return fmt::format("{}", fmt::join(parts, " "));
}

} // namespace

int sweep_command(const Context &ctx, const std::vector<std::string> &args)
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
		 "a metric to show (default: all the workload has): energy, energy model estimate, completion time, throughput, "
		 "wake-up latency p50, wake-up latency p99, migrations, context switches, overutilized; "
		 "repeatable")
		("alpha", po::value<double>()->default_value(0.01),
		 "significance level of the t test against the baseline: p below it is a change")
		("image", po::value<std::string>()->value_name("ID|DIR|TREE|PATCH"),
		 "the kernel image each run boots (as the global --kernel; may name a parameter, e.g. "
		 "--param k=default,my.patch --image {k}, where 'default' is the build's own kernel); "
		 "default: the build's own")
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
	po::options_description hidden;
	po::positional_options_description positional;
	auto parsed = parse_subcommand(
		ctx, args, options, hidden, positional,
		"usage: sched-harness sweep --param NAME=VALUES [--param ...] [--repeat N] [--jobs J]\n"
		"              [scenario and kernel options naming {NAME}] [--baseline NAME=V] [--json|--csv] [--plot FILE]\n\n"
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
	const unsigned jobs = jobs_option(vm);
	if (!vm.count("param"))
		throw UsageError{"sweep needs a --param NAME=VALUES (see sweep --help)"};
	const unsigned repeat = bounded_option(vm, "repeat", 100000);
	if (repeat < 1)
		throw UsageError{"--repeat 0: at least 1 run per point"};
	const double alpha = vm["alpha"].as<double>();
	if (!(alpha > 0 && alpha < 1))
		throw UsageError{fmt::format("--alpha {}: a probability between 0 and 1", alpha)};
	if (vm["json"].as<bool>() && vm["csv"].as<bool>())
		throw UsageError{"--json and --csv: choose one"};

	std::vector<Param> params;
	for (const auto &text : vm["param"].as<std::vector<std::string>>()) {
		params.push_back(parse_param(text));
		for (std::size_t i = 0; i + 1 < params.size(); i++)
			if (params[i].name == params.back().name)
				throw UsageError{fmt::format("--param {}: given twice", params.back().name)};
	}
	// every combination, the last parameter varying fastest
	std::vector<std::map<std::string, std::string>> points(1);
	for (const auto &param : params) {
		if (points.size() * param.values.size() > max_points)
			throw UsageError{fmt::format("the grid has more than {} points", max_points)};
		std::vector<std::map<std::string, std::string>> next;
		for (const auto &point : points)
			for (const auto &value : param.values) {
				next.push_back(point);
				next.back()[param.name] = value;
			}
		points = std::move(next);
	}

	std::vector<const experiment::Metric *> shown;
	if (vm.count("metric")) {
		for (const auto &name : vm["metric"].as<std::vector<std::string>>()) {
			const auto all = experiment::run_metrics();
			const auto it = std::find_if(all.begin(), all.end(), [&](const experiment::Metric &m) { return name == m.name; });
			if (it == all.end())
				throw UsageError{fmt::format("--metric {}: no such metric (see sweep --help)", name)};
			shown.push_back(&*it);
		}
	} else {
		for (const auto &m : experiment::run_metrics())
			shown.push_back(&m);
	}

	std::size_t baseline = 0;
	if (vm.count("baseline")) {
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
		baseline = static_cast<std::size_t>(it - points.begin());
	}

	// Each point's run arguments and kernel image, its parameters substituted.
	const auto scenario = scenario_args(vm);
	const auto kernel_options = variant_args(vm, "");
	struct Point {
		std::string label;
		std::vector<std::string> args;
		std::vector<std::string> global;	// --kernel DIR
		std::string image_id;
	};
	std::vector<Point> grid;
	std::set<std::string> used;
	std::map<std::string, std::filesystem::path> images;	// resolved once per distinct name
	for (const auto &point : points) {
		Point p{point_label(params, point), {}, {}, {}};
		std::vector<std::string> run_args;
		for (const auto &a : scenario)
			run_args.push_back(substitute(a, point, used));
		for (const auto &a : kernel_options)
			run_args.push_back(substitute(a, point, used));
		experiment::append_run_args(p.args, run_args);
		if (vm.count("image")) {
			const auto name = substitute(vm["image"].as<std::string>(), point, used);
			if (name == "default") {	// the build's own kernel
				grid.push_back(std::move(p));
				continue;
			}
			auto &dir = images[name];
			if (dir.empty()) {
				try {
					dir = image::resolve(name, ctx.err);
				} catch (const std::invalid_argument &e) {
					throw UsageError{fmt::format("--image {}: {}", name, e.what())};
				} catch (const image::BadPatch &e) {
					throw UsageError{fmt::format("--image {}: {}", name, e.what())};
				}
			}
			p.global = {"--kernel", dir.string()};
			p.image_id = image::read_manifest(dir).id;
		}
		grid.push_back(std::move(p));
	}
	for (const auto &param : params)
		if (!used.count(param.name))
			throw UsageError{fmt::format("--param {}: no option names {{{}}}", param.name, param.name)};

	// Seed by seed over the grid, so that the runs a worker takes together
	// are spread over the points.
	std::vector<experiment::Run> specs;
	for (unsigned seed = 1; seed <= repeat; seed++)
		for (const auto &p : grid) {
			experiment::Run spec{fmt::format("point {} seed {}", p.label, seed), {"--seed", std::to_string(seed)}, p.global};
			experiment::append_run_args(spec.args, p.args);
			specs.push_back(std::move(spec));
		}
	std::vector<rapidjson::Document> reports;
	try {
		reports = experiment::run_locally(local_host(ctx), specs, jobs);
	} catch (const experiment::RunFailed &failure) {
		return report_failure(ctx, "sweep", failure);
	}
	auto report = [&](std::size_t point, unsigned seed) -> const rapidjson::Document & {
		return reports[(seed - 1) * grid.size() + point];
	};

	// A metric is shown when every run of every point has it.
	struct Cell {
		std::vector<double> values;
		stats::Summary summary;
		stats::Comparison vs_baseline;
	};
	struct Row {
		const experiment::Metric *metric;
		std::vector<Cell> cells;	// per point
	};
	std::vector<Row> rows;
	for (const auto *m : shown) {
		Row row{m, std::vector<Cell>(grid.size())};
		bool complete = true;
		for (std::size_t i = 0; i < grid.size() && complete; i++)
			for (unsigned seed = 1; seed <= repeat && complete; seed++) {
				if (const auto v = m->read(report(i, seed)))
					row.cells[i].values.push_back(*v);
				else
					complete = false;
			}
		if (!complete)
			continue;
		for (auto &cell : row.cells) {
			cell.summary = stats::summarize(cell.values);
			cell.vs_baseline = stats::compare(row.cells[baseline].values, cell.values, alpha);
		}
		rows.push_back(std::move(row));
	}
	// the scenario as the reports name it, or as given when a parameter varies it
	const auto &first = report(0, 1);
	auto named = [&](const char *option, const char *key) {
		const auto given = vm[option].as<std::string>();
		return given.find('{') != std::string::npos ? given : std::string(first[key].GetString());
	};
	const std::string board = named("board", "board"), workload = named("workload", "workload");
	const std::string duration = vm.count("duration") && vm["duration"].as<std::string>().find('{') != std::string::npos
		? vm["duration"].as<std::string>()
		: fmt::format("{} s", first["duration_ns"].GetDouble() / 1e9);

	if (vm.count("plot")) {
		report::SweepPlot plot;
		plot.title = fmt::format("{} on {}, {} runs per point", workload, board, repeat);
		plot.x_name = params[0].name;
		plot.x_values = params[0].values;
		if (params.size() > 1) {
			plot.series_name = params[1].name;
			plot.series_values = params[1].values;
		}
		// points vary the last parameter fastest: point = x * (rest) + series * (after it) + ...
		std::size_t after_series = 1;
		for (std::size_t k = 2; k < params.size(); k++)
			after_series *= params[k].values.size();
		const std::size_t series_count = params.size() > 1 ? params[1].values.size() : 1;
		for (const auto &row : rows) {
			report::SweepPlot::Panel panel{row.metric->unit[0] ? fmt::format("{} ({})", row.metric->name,
											 row.metric->unit)
								   : std::string(row.metric->name),
						       {}};
			// further parameters: their first value (the plot shows two dimensions)
			for (std::size_t s = 0; s < series_count; s++) {
				std::vector<std::pair<double, double>> line;
				for (std::size_t x = 0; x < params[0].values.size(); x++) {
					const auto &c = row.cells[(x * series_count + s) * after_series].summary;
					line.emplace_back(c.mean, c.sd);
				}
				panel.series.push_back(std::move(line));
			}
			plot.panels.push_back(std::move(panel));
		}
		try {
			report::draw(plot, vm["plot"].as<std::string>());
		} catch (const report::PlotError &e) {
			throw UsageError{e.what()};
		}
	}

	if (vm["json"].as<bool>()) {
		rapidjson::StringBuffer buf;
		rapidjson::Writer<rapidjson::StringBuffer> w(buf);
		auto str = [&](const std::string &s) { w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size())); };
		w.StartObject();
		w.Key("board"), str(board);
		w.Key("workload"), str(workload);
		w.Key("duration"), str(duration);
		w.Key("repeat"), w.Uint(repeat);
		w.Key("alpha"), w.Double(alpha);
		w.Key("params");
		w.StartArray();
		for (const auto &p : params) {
			w.StartObject();
			w.Key("name"), str(p.name);
			w.Key("values");
			w.StartArray();
			for (const auto &v : p.values)
				str(v);
			w.EndArray();
			w.EndObject();
		}
		w.EndArray();
		w.Key("baseline"), w.Uint(static_cast<unsigned>(baseline));
		w.Key("points");
		w.StartArray();
		for (std::size_t i = 0; i < grid.size(); i++) {
			w.StartObject();
			w.Key("values");
			w.StartObject();
			for (const auto &p : params)
				w.Key(p.name.c_str()), str(points[i].at(p.name));
			w.EndObject();
			w.Key("image");
			if (grid[i].image_id.empty())
				w.Null();
			else
				str(grid[i].image_id);
			w.Key("fingerprints");
			w.StartArray();
			for (unsigned seed = 1; seed <= repeat; seed++)
				w.String(report(i, seed)["fingerprint"].GetString());
			w.EndArray();
			w.Key("metrics");
			w.StartArray();
			for (const auto &row : rows) {
				const auto &cell = row.cells[i];
				w.StartObject();
				w.Key("name"), str(row.metric->name);
				w.Key("unit"), str(row.metric->unit);
				report::write_summary(w, cell.summary, cell.values);
				w.Key("delta_percent"), w.Double(cell.vs_baseline.delta_percent);
				w.Key("p");
				if (cell.vs_baseline.p && i != baseline)
					w.Double(*cell.vs_baseline.p);
				else
					w.Null();
				w.Key("verdict"), str(i == baseline ? "baseline"
								    : std::string(stats::to_string(cell.vs_baseline.verdict)));
				w.EndObject();
			}
			w.EndArray();
			w.EndObject();
		}
		w.EndArray();
		w.EndObject();
		ctx.out << buf.GetString() << "\n";
		return exit_ok;
	}
	if (vm["csv"].as<bool>()) {
		std::string text;
		for (const auto &p : params)
			text += report::csv_field(p.name) + ",";
		text += "metric,unit,n,mean,sd,rsd_percent,min,max,delta_percent,p,verdict\n";
		for (const auto &row : rows)
			for (std::size_t i = 0; i < grid.size(); i++) {
				for (const auto &p : params)
					text += report::csv_field(points[i].at(p.name)) + ",";
				const auto &c = row.cells[i];
				text += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", row.metric->name, row.metric->unit,
						    c.summary.n, c.summary.mean, c.summary.sd, c.summary.rsd_percent(),
						    c.summary.min, c.summary.max, c.vs_baseline.delta_percent,
						    c.vs_baseline.p && i != baseline ? fmt::format("{}", *c.vs_baseline.p) : "",
						    i == baseline ? "baseline" : stats::to_string(c.vs_baseline.verdict));
			}
		ctx.out << text;
		return exit_ok;
	}

	std::vector<std::string> names;
	for (const auto &p : params)
		names.push_back(fmt::format("{} ({} values)", p.name, p.values.size()));
	std::string text = fmt::format(
		"sched-harness sweep: {} on {}, {}; {}: {} points, {} runs each (seeds 1-{})\n  baseline: {}\n",
		workload, board, duration, fmt::join(names, " x "), grid.size(), repeat,
		repeat, grid[baseline].label);
	// the parameters' columns, as wide as their longest value
	std::vector<std::size_t> widths;
	for (const auto &p : params) {
		std::size_t w = p.name.size();
		for (const auto &v : p.values)
			w = std::max(w, v.size());
		widths.push_back(w);
	}
	for (const auto &row : rows) {
		text += fmt::format("\n{}{}\n", row.metric->name,
				    row.metric->unit[0] ? fmt::format(" ({})", row.metric->unit) : std::string());
		std::string head = "  ";
		for (std::size_t k = 0; k < params.size(); k++)
			head += fmt::format("{:<{}}  ", params[k].name, widths[k]);
		text += head + fmt::format("{:>28} {:>9} {:>8}  {}\n", "mean ± sd (RSD)", "delta", "p", "verdict");
		for (std::size_t i = 0; i < grid.size(); i++) {
			const auto &c = row.cells[i];
			std::string line = "  ";
			for (std::size_t k = 0; k < params.size(); k++)
				line += fmt::format("{:<{}}  ", points[i].at(params[k].name), widths[k]);
			const auto cell = fmt::format("{} ± {} ({:.1f}%)", report::format_value(c.summary.mean),
						      report::format_value(c.summary.sd), c.summary.rsd_percent());
			if (i == baseline)
				line += fmt::format("{:>28} {:>9}", cell, "baseline");
			else
				line += fmt::format("{:>28} {:>+8.2f}% {:>8}  {}", cell, c.vs_baseline.delta_percent,
						    report::format_p(c.vs_baseline.p), stats::to_string(c.vs_baseline.verdict));
			text += line + "\n";
		}
	}
	text += fmt::format("\nverdicts against the baseline: Welch's t test, two-sided, alpha {}; identical: each "
			    "seed gave the same value\n",
			    alpha);
	ctx.out << text;
	return exit_ok;
}

} // namespace sh::cli
