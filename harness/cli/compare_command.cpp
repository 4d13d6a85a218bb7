// SPDX-License-Identifier: GPL-2.0
//
// sched-harness compare [scenario] [--repeat N] [--jobs J] [--a-OPTION ...] [--b-OPTION ...]
//
// A/B of two variants of the kernel's options (--cmdline, --sysctl,
// --feature) on one scenario: every run is its own `sched-harness run
// --json` process (kernel globals are per process), seeds 1..N per
// variant, and each metric is summarised and tested as perf stat --repeat
// and a Welch t test would.
#include "harness/cli/cli.h"

#include "harness/cli/experiment_options.h"
#include "harness/experiment/metrics.h"
#include "harness/experiment/runner.h"
#include "harness/report/tables.h"
#include "harness/stats/stats.h"
#include "harness/suite/suite.h"
#include "harness/image/image.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <ostream>
#include <set>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

std::string describe(const std::vector<std::string> &args)
{
	if (args.empty())
		return "(the defaults)";
	std::vector<std::string> quoted;
	for (const auto &a : args)
		quoted.push_back(a.find(' ') == std::string::npos ? a : fmt::format("'{}'", a));
	return fmt::format("{}", fmt::join(quoted, " "));
}

} // namespace

int compare_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description options("compare options");
	options.add_options()
		("help,h", "show this help")
		("suite", po::value<std::string>()->value_name("S"),
		 "compare every scenario of a suite (a JSON file, or the built-in default) instead of one")
		("repeat", po::value<Unsigned>()->default_value(Unsigned{5}, "5")->value_name("N"),
		 "runs per variant, with seeds 1..N")
		("jobs", po::value<Unsigned>()->value_name("J"),
		 "runs at once, each its own process (default: the machine's cores)")
		("alpha", po::value<double>()->default_value(0.01),
		 "significance level of the t test: p below it is a change")
		("cmdline", po::value<std::string>()->value_name("ARGS"), "kernel command line of both variants")
		("sysctl", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
		 "a sysctl of both variants; repeatable")
		("feature", po::value<std::vector<std::string>>()->value_name("NAME=on|off")->composing(),
		 "a scheduler feature of both variants; repeatable")
		("a-kernel", po::value<std::string>()->value_name("ID|DIR|TREE|PATCH"),
		 "variant A's kernel: an image (sched-harness kernel build), or a kernel tree or patch to "
		 "build one from; default: the build's own")
		("b-kernel", po::value<std::string>()->value_name("ID|DIR|TREE|PATCH"), "variant B's kernel")
		("a-cmdline", po::value<std::string>()->value_name("ARGS"), "added to variant A's command line")
		("a-sysctl", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
		 "a sysctl of variant A only")
		("a-feature", po::value<std::vector<std::string>>()->value_name("NAME=on|off")->composing(),
		 "a scheduler feature of variant A only")
		("b-cmdline", po::value<std::string>()->value_name("ARGS"), "added to variant B's command line")
		("b-sysctl", po::value<std::vector<std::string>>()->value_name("NAME=VALUE")->composing(),
		 "a sysctl of variant B only")
		("b-feature", po::value<std::vector<std::string>>()->value_name("NAME=on|off")->composing(),
		 "a scheduler feature of variant B only")
		("json", po::bool_switch(), "print the comparison as JSON")
		("csv", po::bool_switch(), "print one CSV row per metric");
	options.add(scenario_options());
	po::options_description hidden;
	po::positional_options_description positional;
	auto parsed = parse_subcommand(
		ctx, args, options, hidden, positional,
		"usage: sched-harness compare [--board B] [--workload W] [--duration T] | [--suite S]  [--repeat N] [--jobs J]\n"
		"              [--a-sysctl|--a-feature|--a-cmdline ...] [--b-sysctl|--b-feature|--b-cmdline ...]\n"
		"              [--json|--csv]\n\n"
		"Runs a scenario (or each of a suite's) N times (seeds 1..N) under two variants of the\n"
		"kernel's options, A and B,\n"
		"each run its own process, and prints per metric mean ± sd, RSD, the change from A to B,\n"
		"Welch's t test p and a verdict (changed, no evidence, identical). Warns when a variant\n"
		"gives the same value for every seed (its seeds are not independent samples) or when its\n"
		"values look bimodal. Example: the effect of EAS on the default scenario:\n"
		"  sched-harness compare --b-sysctl kernel.sched_energy_aware=0\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	const unsigned jobs = jobs_option(vm);
	const unsigned repeat = bounded_option(vm, "repeat", 100000);
	if (repeat < 2)
		throw UsageError{fmt::format("--repeat {}: at least 2 runs per variant", repeat)};
	const double alpha = vm["alpha"].as<double>();
	if (!(alpha > 0 && alpha < 1))
		throw UsageError{fmt::format("--alpha {}: a probability between 0 and 1", alpha)};
	if (vm["json"].as<bool>() && vm["csv"].as<bool>())
		throw UsageError{"--json and --csv: choose one"};

	// The scenarios: what both variants run.
	struct Scenario {
		std::string name;
		std::vector<std::string> args;
	};
	std::vector<Scenario> scenarios;
	std::string suite_name;
	if (vm.count("suite")) {
		if (const auto given = given_scenario_options(vm); !given.empty())
			throw UsageError{fmt::format("--suite and --{}: a suite names its scenarios", given.front())};
		try {
			const auto suite = suite::load(vm["suite"].as<std::string>());
			suite_name = suite.name;
			for (const auto &sc : suite.scenarios)
				scenarios.push_back({sc.name, sc.run_args});
		} catch (const suite::Error &e) {
			throw UsageError{e.what()};
		}
	} else {
		auto one = scenario_args(vm);
		scenarios.push_back({"", std::move(one)});
	}

	std::vector<std::string> variant[2] = {variant_args(vm, "a-"), variant_args(vm, "b-")};
	// a variant's kernel image: the tool's global --kernel, in front of `run`
	std::vector<std::string> kernel[2];
	for (int side = 0; side < 2; side++) {
		const auto key = std::string(side ? "b" : "a") + "-kernel";
		if (vm.count(key)) {
			try {
				kernel[side] = {"--kernel", image::resolve(vm[key].as<std::string>(), ctx.err).string()};
			} catch (const std::invalid_argument &e) {
				throw UsageError{fmt::format("--{}: {}", key, e.what())};
			} catch (const image::BadPatch &e) {
				throw UsageError{fmt::format("--{}: {}", key, e.what())};
			}
		}
	}
	// each variant as the user would write it (the image by its id)
	std::string described[2];
	for (int side = 0; side < 2; side++) {
		std::vector<std::string> all;
		if (!kernel[side].empty())
			all = {"--kernel", image::read_manifest(kernel[side][1]).id};
		all.insert(all.end(), variant[side].begin(), variant[side].end());
		described[side] = describe(all);
	}
	// Every scenario, seed and variant (A and B interleaved, so that a
	// partial result is never lopsided): one process each.
	std::vector<experiment::Run> specs;
	for (const auto &sc : scenarios) {
		for (unsigned seed = 1; seed <= repeat; seed++) {
			for (int side = 0; side < 2; side++) {
				experiment::Run spec{fmt::format("{}variant {} seed {} ({})",
							 sc.name.empty() ? "" : "scenario " + sc.name + ", ",
							 side ? 'B' : 'A', seed, described[side]),
					     {"--seed", std::to_string(seed)},
					     kernel[side]};
				experiment::append_run_args(spec.args, sc.args);
				experiment::append_run_args(spec.args, variant[side]);
				specs.push_back(std::move(spec));
			}
		}
	}
	std::vector<rapidjson::Document> reports;
	try {
		reports = experiment::run_locally(local_host(ctx), specs, jobs);
	} catch (const experiment::RunFailed &failure) {
		return report_failure(ctx, "compare", failure);
	}

	struct Row {
		const experiment::Metric *metric;
		std::vector<double> a, b;
		stats::Comparison c;
		std::vector<std::string> warnings;
	};
	struct Result {
		std::string name, board, workload;
		double seconds = 0;
		std::set<std::string> fingerprints[2];
		std::size_t same_runs = 0;	// seeds whose A and B runs decided alike (fingerprints)
		std::vector<Row> rows;
	};
	std::vector<Result> results;
	for (std::size_t k = 0; k < scenarios.size(); k++) {
		// this scenario's runs: 2 x repeat, A and B interleaved
		std::vector<const rapidjson::Document *> runs[2];
		for (std::size_t i = 0; i < 2 * static_cast<std::size_t>(repeat); i++)
			runs[i % 2].push_back(&reports[k * 2 * repeat + i]);
		Result result;
		const auto &first = *runs[0].front();
		result.name = scenarios[k].name;
		result.board = first["board"].GetString();
		result.workload = first["workload"].GetString();
		result.seconds = first["duration_ns"].GetDouble() / 1e9;
		for (const auto &m : experiment::run_metrics()) {
			Row row{&m, {}, {}, {}, {}};
			for (int side = 0; side < 2; side++)
				for (const auto *run : runs[side])
					if (auto v = m.read(*run))
						(side ? row.b : row.a).push_back(*v);
			if (row.a.size() != repeat || row.b.size() != repeat)
				continue;	// not a metric of this workload (completion time of an endless one)
			row.c = stats::compare(row.a, row.b, alpha);
			for (int side = 0; side < 2; side++) {
				const char name = side ? 'B' : 'A';
				const auto &s = side ? row.c.b : row.c.a;
				if (s.constant() && row.c.verdict != stats::Verdict::identical)
					row.warnings.push_back(fmt::format("{} gave {} for every seed", name, report::format_value(s.mean)));
				if (side ? row.c.b_bimodal : row.c.a_bimodal)
					row.warnings.push_back(fmt::format("{} looks bimodal or has outliers (min {}, max {})",
									   name, report::format_value(s.min), report::format_value(s.max)));
			}
			result.rows.push_back(std::move(row));
		}
		for (int side = 0; side < 2; side++)
			for (const auto *run : runs[side])
				result.fingerprints[side].insert((*run)["fingerprint"].GetString());
		for (std::size_t i = 0; i < repeat; i++)
			result.same_runs += std::string((*runs[0][i])["fingerprint"].GetString()) ==
					    (*runs[1][i])["fingerprint"].GetString();
		results.push_back(std::move(result));
	}

	if (vm["json"].as<bool>()) {
		rapidjson::StringBuffer buf;
		rapidjson::Writer<rapidjson::StringBuffer> w(buf);
		auto str = [&](const std::string &s) { w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size())); };
		auto summary = [&](const stats::Summary &s, const std::vector<double> &values) {
			w.StartObject();
			report::write_summary(w, s, values);
			w.EndObject();
		};
		w.StartObject();
		w.Key("suite"), str(suite_name);
		w.Key("repeat"), w.Uint(repeat);
		w.Key("alpha"), w.Double(alpha);
		for (int side = 0; side < 2; side++) {
			w.Key(side ? "b" : "a");
			w.StartArray();
			for (const auto &a : variant[side])
				str(a);
			w.EndArray();
			w.Key(side ? "b_kernel" : "a_kernel");
			if (kernel[side].empty())
				w.Null();
			else
				str(image::read_manifest(kernel[side][1]).id);
		}
		w.Key("scenarios");
		w.StartArray();
		for (const auto &result : results) {
			w.StartObject();
			w.Key("name"), str(result.name);
			w.Key("board"), str(result.board);
			w.Key("workload"), str(result.workload);
			w.Key("duration_s"), w.Double(result.seconds);
			w.Key("distinct_fingerprints_a"), w.Uint(static_cast<unsigned>(result.fingerprints[0].size()));
			w.Key("distinct_fingerprints_b"), w.Uint(static_cast<unsigned>(result.fingerprints[1].size()));
			w.Key("seeds_deciding_alike"), w.Uint(static_cast<unsigned>(result.same_runs));
			w.Key("metrics");
			w.StartArray();
			for (const auto &row : result.rows) {
				w.StartObject();
				w.Key("name"), str(row.metric->name);
				w.Key("unit"), str(row.metric->unit);
				w.Key("a"), summary(row.c.a, row.a);
				w.Key("b"), summary(row.c.b, row.b);
				w.Key("delta_percent"), w.Double(row.c.delta_percent);
				w.Key("p");
				if (row.c.p)
					w.Double(*row.c.p);
				else
					w.Null();
				w.Key("verdict"), str(std::string(stats::to_string(row.c.verdict)));
				w.Key("warnings");
				w.StartArray();
				for (const auto &warning : row.warnings)
					str(warning);
				w.EndArray();
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
		std::string text = "scenario,board,workload,metric,unit,a_mean,a_sd,a_rsd_percent,b_mean,b_sd,"
				   "b_rsd_percent,delta_percent,p,verdict\n";
		for (const auto &result : results)
			for (const auto &row : result.rows)
				text += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", report::csv_field(result.name),
						    report::csv_field(result.board), report::csv_field(result.workload), row.metric->name,
						    row.metric->unit, row.c.a.mean, row.c.a.sd, row.c.a.rsd_percent(),
						    row.c.b.mean, row.c.b.sd, row.c.b.rsd_percent(), row.c.delta_percent,
						    row.c.p ? fmt::format("{}", *row.c.p) : "",
						    stats::to_string(row.c.verdict));
		ctx.out << text;
		return exit_ok;
	}

	std::string text = fmt::format("sched-harness compare: {}{} runs per variant and scenario (seeds 1-{})\n",
				       suite_name.empty() ? "" : fmt::format("suite {}, ", suite_name), repeat, repeat);
	for (int side = 0; side < 2; side++)
		text += fmt::format("  {}: {}\n", side ? 'B' : 'A', described[side]);
	std::vector<std::string> warnings;
	for (const auto &result : results) {
		text += fmt::format("\n{}{} on {}, {} s\n  decisions (fingerprints): {}; distinct runs A {}, B {}\n",
				    result.name.empty() ? "" : result.name + ": ", result.workload, result.board,
				    result.seconds,
				    result.same_runs == repeat ? "the same for every seed"
				    : result.same_runs == 0    ? "differ for every seed"
							       : fmt::format("differ for {} of {} seeds", repeat - result.same_runs, repeat),
				    result.fingerprints[0].size(), result.fingerprints[1].size());
		text += fmt::format("  {:<22} {:>26} {:>26} {:>9} {:>8}  {}\n", "metric", "A mean ± sd (RSD)",
				    "B mean ± sd (RSD)", "delta", "p", "verdict");
		for (const auto &row : result.rows) {
			auto cell = [](const stats::Summary &s) {
				return fmt::format("{} ± {} ({:.1f}%)", report::format_value(s.mean), report::format_value(s.sd), s.rsd_percent());
			};
			const auto name = row.metric->unit[0] ? fmt::format("{} ({})", row.metric->name, row.metric->unit)
							      : std::string(row.metric->name);
			text += fmt::format("  {:<22} {:>26} {:>26} {:>+8.2f}% {:>8}  {}\n", name, cell(row.c.a),
					    cell(row.c.b), row.c.delta_percent, report::format_p(row.c.p),
					    stats::to_string(row.c.verdict));
			for (const auto &warning : row.warnings)
				warnings.push_back(fmt::format("{}{}: {}", result.name.empty() ? "" : result.name + ", ",
							       row.metric->name, warning));
		}
	}
	if (!warnings.empty()) {
		text += "\nWarnings (a variant whose seeds all give the same value has no noise to test against):\n";
		for (const auto &warning : warnings)
			text += fmt::format("  {}\n", warning);
	}
	text += fmt::format("\nverdicts: Welch's t test, two-sided, alpha {}; identical: each seed gave the same "
			    "value under A and B\n",
			    alpha);
	ctx.out << text;
	return exit_ok;
}

} // namespace sh::cli
