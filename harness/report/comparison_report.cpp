// SPDX-License-Identifier: GPL-2.0
#include "harness/report/comparison_report.h"

#include "harness/report/tables.h"

#include <fmt/format.h>
#include <algorithm>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace sh::report {

using experiment::ComparedMetric;
using experiment::ComparisonPlan;
using experiment::ScenarioComparison;

namespace {

// Why a metric's verdict deserves a second look, A's then B's.
std::vector<std::string> warnings_of(const ComparedMetric &row)
{
	std::vector<std::string> warnings;
	for (int side = 0; side < 2; side++) {
		const char name = side ? 'B' : 'A';
		const auto &s = side ? row.c.b : row.c.a;
		if (row.constant[side])
			warnings.push_back(fmt::format("{} gave {} for every seed", name, format_value(s.mean)));
		if (const auto &f = side ? row.c.b_fragile : row.c.a_fragile)
			warnings.push_back(fmt::format("{} looks bimodal or has outliers (min {}, max {}), and the "
						       "verdict rests on one run: without seed {} ({}) it would be {}",
						       name, format_value(s.min), format_value(s.max), f->index + 1,
						       format_value(f->value), stats::to_string(f->verdict_without)));
	}
	return warnings;
}

void write_metric(JsonWriter &w, const ComparedMetric &row)
{
	w.StartObject();
	w.Key("name"), write_string(w, row.metric->name);
	w.Key("unit"), write_string(w, row.metric->unit);
	for (int side = 0; side < 2; side++) {
		w.Key(side ? "b" : "a");
		w.StartObject();
		write_summary(w, side ? row.c.b : row.c.a, row.values[side]);
		w.EndObject();
	}
	write_delta(w, row.c);
	w.Key("p");
	if (row.c.p)
		w.Double(*row.c.p);
	else
		w.Null();
	w.Key("verdict"), write_string(w, std::string(stats::to_string(row.c.verdict)));
	w.Key("warnings");
	w.StartArray();
	for (const auto &warning : warnings_of(row))
		write_string(w, warning);
	w.EndArray();
	w.EndObject();
}

void write_scenario(JsonWriter &w, const ScenarioComparison &result)
{
	w.StartObject();
	w.Key("name"), write_string(w, result.name);
	w.Key("board"), write_string(w, result.board);
	w.Key("workload"), write_string(w, result.workload);
	w.Key("duration_s"), w.Double(result.seconds);
	w.Key("distinct_fingerprints_a"), w.Uint(static_cast<unsigned>(result.fingerprints[0].size()));
	w.Key("distinct_fingerprints_b"), w.Uint(static_cast<unsigned>(result.fingerprints[1].size()));
	w.Key("seeds_deciding_alike"), w.Uint(static_cast<unsigned>(result.same_runs));
	w.Key("metrics");
	w.StartArray();
	for (const auto &row : result.metrics)
		write_metric(w, row);
	w.EndArray();
	w.Key("not_measured");
	w.StartArray();
	for (const auto *m : result.not_measured)
		write_string(w, m->name);
	w.EndArray();
	w.EndObject();
}

std::string decisions(const ScenarioComparison &result, unsigned repeat)
{
	if (result.same_runs == repeat)
		return "the same for every seed";
	if (result.same_runs == 0)
		return "differ for every seed";
	return fmt::format("differ for {} of {} seeds", repeat - result.same_runs, repeat);
}

std::string metric_line(const ComparedMetric &row)
{
	auto cell = [](const stats::Summary &s) {
		return fmt::format("{} ± {} ({:.1f}%)", format_value(s.mean), format_value(s.sd), s.rsd_percent());
	};
	return fmt::format("  {:<25} {:>26} {:>26} {} {:>8}  {}{}\n", row.metric->name, cell(row.c.a), cell(row.c.b),
			   format_delta_percent(row.c), format_p(row.c.p), stats::to_string(row.c.verdict),
			   absolute_delta_note(row.c));
}

} // namespace

std::string comparison_json(const ComparisonPlan &plan, std::span<const ScenarioComparison> results)
{
	rapidjson::StringBuffer buf;
	JsonWriter w(buf);
	w.StartObject();
	w.Key("suite"), write_string(w, plan.suite);
	w.Key("repeat"), w.Uint(plan.repeat);
	w.Key("alpha"), w.Double(plan.alpha);
	for (int side = 0; side < 2; side++) {
		const auto &variant = plan.variants[side];
		w.Key(side ? "b" : "a");
		w.StartArray();
		for (const auto &a : variant.args)
			write_string(w, a);
		w.EndArray();
		w.Key(side ? "b_kernel" : "a_kernel");
		if (variant.kernel.empty())
			w.Null();
		else
			write_string(w, variant.image_id);
		if (!results.empty()) {
			w.Key(side ? "b_kernel_ran" : "a_kernel_ran");
			write_string(w, results.front().kernels[side]);
		}
	}
	w.Key("scenarios");
	w.StartArray();
	for (const auto &result : results)
		write_scenario(w, result);
	w.EndArray();
	w.EndObject();
	return std::string(buf.GetString()) + "\n";
}

std::string comparison_csv(std::span<const ScenarioComparison> results)
{
	std::string text = "scenario,board,workload,metric,unit,a_mean,a_sd,a_rsd_percent,b_mean,b_sd,"
			   "b_rsd_percent,delta,delta_percent,p,verdict\n";
	for (const auto &result : results)
		for (const auto &row : result.metrics)
			text += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(result.name),
					    csv_field(result.board), csv_field(result.workload), row.metric->name,
					    row.metric->unit, row.c.a.mean, row.c.a.sd, row.c.a.rsd_percent(), row.c.b.mean,
					    row.c.b.sd, row.c.b.rsd_percent(), csv_delta(row.c),
					    row.c.p ? fmt::format("{}", *row.c.p) : "", stats::to_string(row.c.verdict));
	return text;
}

namespace {

// Words of `text` after `lead`, folded before column 72 onto lines
// indented by four; a command's lines end in a shell's continuation.
std::string folded(const std::string &lead, const std::string &text, bool command)
{
	constexpr std::size_t width = 72;
	const std::string continuation = command ? " \\" : "";
	std::string out, line = lead;
	bool line_has_word = false;
	std::size_t start = 0;
	while (start <= text.size()) {
		auto end = text.find(' ', start);
		if (end == std::string::npos)
			end = text.size();
		const auto word = text.substr(start, end - start);
		start = end + 1;
		if (word.empty())
			continue;
		if (line_has_word && line.size() + 1 + word.size() + continuation.size() > width) {
			out += line + continuation + "\n";
			line = "    ";
			line_has_word = false;
		}
		line += (line_has_word ? " " : "") + word;
		line_has_word = true;
	}
	return out + line + "\n";
}

std::string rsd_text(const stats::Summary &s)
{
	return fmt::format("{:.2f}%", s.rsd_percent());
}

} // namespace

std::string comparison_cover_letter(const ComparisonPlan &plan, std::span<const ScenarioComparison> results,
				    std::span<const std::string> metrics, const std::string &command)
{
	std::string text;
	for (const auto &result : results) {
		struct Row {
			std::string name, a_mean, a_rsd, b_mean, b_rsd;
		};
		std::vector<Row> rows;
		for (const auto &wanted : metrics) {
			const auto row = std::find_if(result.metrics.begin(), result.metrics.end(),
						      [&](const ComparedMetric &m) { return m.metric->name == wanted; });
			if (row == result.metrics.end()) {
				rows.push_back({wanted, "n/a", "", "n/a", ""});
				continue;
			}
			const auto &c = row->c;
			rows.push_back({wanted, format_value(c.a.mean), rsd_text(c.a),
					c.delta_percent ? fmt::format("{} ({:+.1f}%)", format_value(c.b.mean), *c.delta_percent)
							: fmt::format("{} ({:+})", format_value(c.b.mean), c.delta),
					rsd_text(c.b)});
		}
		// widths: the cells' own, the header's at least
		std::size_t w0 = 9, w1 = 6, w2 = 6, w3 = 6, w4 = 6;
		for (const auto &r : rows) {
			w0 = std::max(w0, r.name.size());
			w1 = std::max(w1, r.a_mean.size());
			w2 = std::max(w2, r.a_rsd.size());
			w3 = std::max(w3, r.b_mean.size());
			w4 = std::max(w4, r.b_rsd.size());
		}
		const auto rule = [&](bool split) {
			return fmt::format("+{}+{}{}{}+{}{}{}+\n", std::string(w0 + 2, '-'), std::string(w1 + 2, '-'),
					   split ? "+" : "-", std::string(w2 + 2, '-'), std::string(w3 + 2, '-'),
					   split ? "+" : "-", std::string(w4 + 2, '-'));
		};
		if (!result.name.empty())
			text += fmt::format("{}\n", result.name);
		text += rule(false);
		text += fmt::format("| {:<{}} | {:<{}} | {:<{}} |\n", "", w0, "Without", w1 + w2 + 3, "With",
				    w3 + w4 + 3);
		text += rule(true);
		text += fmt::format("| {:<{}} | {:>{}} | {:>{}} | {:>{}} | {:>{}} |\n", "benchmark", w0, "Mean", w1,
				    "RSD*", w2, "Mean", w3, "RSD*", w4);
		text += rule(true);
		for (const auto &r : rows)
			text += fmt::format("| {:<{}} | {:>{}} | {:>{}} | {:>{}} | {:>{}} |\n", r.name, w0, r.a_mean,
					    w1, r.a_rsd, w2, r.b_mean, w3, r.b_rsd, w4);
		text += rule(true);
		text += "\n";
	}
	text += "*RSD: Relative Standard Deviation (std dev / mean)\n\n";
	const auto &first = results.front();
	text += folded("Without: ", plan.variants[0].described() + ", " + first.kernels[0] + ".", false);
	text += folded("With: ", plan.variants[1].described() + ", " + first.kernels[1] + ".", false);
	std::string where = results.size() == 1
				    ? fmt::format("{} on {}, {} s", first.workload, first.board, first.seconds)
				    : fmt::format("the {} scenarios of suite {}", results.size(), plan.suite);
	text += folded("Measured: ", fmt::format("sched-harness (simulated), {}, {} runs each (seeds 1-{}).",
					       where, plan.repeat, plan.repeat),
		       false);
	text += folded("  $ ", command, true);
	return text;
}

std::string comparison_text(const ComparisonPlan &plan, std::span<const ScenarioComparison> results)
{
	std::string text = fmt::format("sched-harness compare: {}{} runs per variant and scenario (seeds 1-{})\n",
				       plan.suite.empty() ? "" : fmt::format("suite {}, ", plan.suite), plan.repeat,
				       plan.repeat);
	for (int side = 0; side < 2; side++) {
		text += fmt::format("  {}: {}\n", side ? 'B' : 'A', plan.variants[side].described());
		if (!results.empty())
			text += fmt::format("     kernel: {}\n", results.front().kernels[side]);
	}
	std::vector<std::string> warnings;
	for (const auto &result : results) {
		text += fmt::format("\n{}{} on {}, {} s\n  decisions (fingerprints): {}; distinct runs A {}, B {}\n",
				    result.name.empty() ? "" : result.name + ": ", result.workload, result.board,
				    result.seconds, decisions(result, plan.repeat), result.fingerprints[0].size(),
				    result.fingerprints[1].size());
		text += fmt::format("  {:<25} {:>26} {:>26} {:>9} {:>8}  {}\n", "metric", "A mean ± sd (RSD)",
				    "B mean ± sd (RSD)", "delta", "p", "verdict");
		for (const auto &row : result.metrics) {
			text += metric_line(row);
			for (const auto &warning : warnings_of(row))
				warnings.push_back(fmt::format("{}{}: {}", result.name.empty() ? "" : result.name + ", ",
							       row.metric->name, warning));
		}
		for (const auto *m : result.not_measured)
			if (m->absent)
				text += fmt::format("  {:<25} {:>26}\n", m->name, fmt::format("n/a ({})", m->absent));
	}
	if (!warnings.empty()) {
		text += "\nWarnings (a variant whose seeds all give one value has no noise to test against; Welch's t "
			"test assumes roughly normal values, so a bimodal variant is named when one seed decides its "
			"verdict):\n";
		for (const auto &warning : warnings)
			text += fmt::format("  {}\n", warning);
	}
	text += fmt::format("\nverdicts: Welch's t test, two-sided, alpha {}; identical: each seed gave the same "
			    "value under A and B\n",
			    plan.alpha);
	return text;
}

} // namespace sh::report
