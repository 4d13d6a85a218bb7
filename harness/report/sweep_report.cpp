// SPDX-License-Identifier: GPL-2.0
#include "harness/report/sweep_report.h"

#include "harness/report/tables.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace sh::report {

using experiment::SweepPlan;
using experiment::SweepRow;

namespace {

void write_params(JsonWriter &w, const SweepPlan &plan)
{
	w.StartArray();
	for (const auto &p : plan.params) {
		w.StartObject();
		w.Key("name"), write_string(w, p.name);
		w.Key("values");
		w.StartArray();
		for (const auto &v : p.values)
			write_string(w, v);
		w.EndArray();
		w.EndObject();
	}
	w.EndArray();
}

void write_point_metric(JsonWriter &w, const SweepPlan &plan, const SweepRow &row, std::size_t i)
{
	const auto &cell = row.cells[i];
	w.StartObject();
	w.Key("name"), write_string(w, row.metric->name);
	w.Key("unit"), write_string(w, row.metric->unit);
	write_summary(w, cell.summary, cell.values);
	write_delta(w, cell.vs_baseline);
	w.Key("p");
	if (cell.vs_baseline.p && i != plan.baseline)
		w.Double(*cell.vs_baseline.p);
	else
		w.Null();
	w.Key("verdict"), write_string(w, i == plan.baseline ? "baseline"
							     : std::string(stats::to_string(cell.vs_baseline.verdict)));
	w.EndObject();
}

void write_point(JsonWriter &w, const SweepPlan &plan, std::span<const SweepRow> rows,
		 std::span<const rapidjson::Document> reports, std::size_t i)
{
	const auto &point = plan.points[i];
	w.StartObject();
	w.Key("values");
	w.StartObject();
	for (const auto &p : plan.params)
		w.Key(p.name.c_str()), write_string(w, point.values.at(p.name));
	w.EndObject();
	w.Key("kernel"), write_string(w, point.kernel);
	w.Key("image");
	if (point.image_id.empty())
		w.Null();
	else
		write_string(w, point.image_id);
	w.Key("fingerprints");
	w.StartArray();
	for (unsigned seed = 1; seed <= plan.repeat; seed++)
		w.String(plan.report(reports, i, seed)["fingerprint"].GetString());
	w.EndArray();
	w.Key("metrics");
	w.StartArray();
	for (const auto &row : rows)
		write_point_metric(w, plan, row, i);
	w.EndArray();
	w.EndObject();
}

// A metric's table: a row per point, the parameters' columns as wide as
// their longest value.
std::string metric_table(const SweepPlan &plan, const SweepRow &row, std::span<const std::size_t> widths)
{
	const auto &params = plan.params;
	// a sweep over trees: each point's kernel version, as its runs reported it
	const bool kernel_column = experiment::kernels_differ(plan);
	std::size_t kernel_width = 6;
	for (const auto &p : plan.points)
		kernel_width = std::max(kernel_width, p.kernel.size() + 6);
	std::string text = fmt::format("\n{}\n", row.metric->name);
	std::string head = "  ";
	for (std::size_t k = 0; k < params.size(); k++)
		head += fmt::format("{:<{}}  ", params[k].name, widths[k]);
	if (kernel_column)
		head += fmt::format("{:<{}}  ", "kernel", kernel_width);
	text += head + fmt::format("{:>28} {:>9} {:>8}  {}\n", "mean ± sd (RSD)", "delta", "p", "verdict");
	for (std::size_t i = 0; i < plan.points.size(); i++) {
		const auto &c = row.cells[i];
		std::string line = "  ";
		for (std::size_t k = 0; k < params.size(); k++)
			line += fmt::format("{:<{}}  ", plan.points[i].values.at(params[k].name), widths[k]);
		if (kernel_column)
			line += fmt::format("{:<{}}  ", "Linux " + plan.points[i].kernel, kernel_width);
		const auto cell = fmt::format("{} ± {} ({:.1f}%)", format_value(c.summary.mean),
					      format_value(c.summary.sd), c.summary.rsd_percent());
		if (i == plan.baseline)
			line += fmt::format("{:>28} {:>9}", cell, "baseline");
		else
			line += fmt::format("{:>28} {} {:>8}  {}{}", cell, format_delta_percent(c.vs_baseline),
					    format_p(c.vs_baseline.p), stats::to_string(c.vs_baseline.verdict),
					    absolute_delta_note(c.vs_baseline));
		text += line + "\n";
	}
	return text;
}

} // namespace

std::string sweep_json(const SweepPlan &plan, const SweepScenario &scenario, std::span<const SweepRow> rows,
		       std::span<const rapidjson::Document> reports)
{
	rapidjson::StringBuffer buf;
	JsonWriter w(buf);
	w.StartObject();
	w.Key("board"), write_string(w, scenario.board);
	w.Key("workload"), write_string(w, scenario.workload);
	w.Key("duration"), write_string(w, scenario.duration);
	w.Key("kernel"), write_string(w, scenario.kernel);
	w.Key("repeat"), w.Uint(plan.repeat);
	w.Key("alpha"), w.Double(plan.alpha);
	w.Key("params"), write_params(w, plan);
	w.Key("baseline"), w.Uint(static_cast<unsigned>(plan.baseline));
	w.Key("points");
	w.StartArray();
	for (std::size_t i = 0; i < plan.points.size(); i++)
		write_point(w, plan, rows, reports, i);
	w.EndArray();
	w.EndObject();
	return std::string(buf.GetString()) + "\n";
}

std::string sweep_csv(const SweepPlan &plan, std::span<const SweepRow> rows)
{
	std::string text;
	for (const auto &p : plan.params)
		text += csv_field(p.name) + ",";
	text += "metric,unit,n,mean,sd,rsd_percent,min,max,delta,delta_percent,p,verdict\n";
	for (const auto &row : rows)
		for (std::size_t i = 0; i < plan.points.size(); i++) {
			for (const auto &p : plan.params)
				text += csv_field(plan.points[i].values.at(p.name)) + ",";
			const auto &c = row.cells[i];
			text += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", row.metric->name, row.metric->unit,
					    c.summary.n, c.summary.mean, c.summary.sd, c.summary.rsd_percent(),
					    c.summary.min, c.summary.max, csv_delta(c.vs_baseline),
					    c.vs_baseline.p && i != plan.baseline ? fmt::format("{}", *c.vs_baseline.p) : "",
					    i == plan.baseline ? "baseline" : stats::to_string(c.vs_baseline.verdict));
		}
	return text;
}

std::string sweep_text(const SweepPlan &plan, const SweepScenario &scenario, std::span<const SweepRow> rows)
{
	std::vector<std::string> names;
	for (const auto &p : plan.params)
		names.push_back(fmt::format("{} ({} values)", p.name, p.values.size()));
	std::string text = fmt::format(
		"sched-harness sweep: {} on {}, {}; {}: {} points, {} runs each (seeds 1-{})\n  kernel: {}\n"
		"  baseline: {}\n",
		scenario.workload, scenario.board, scenario.duration, fmt::join(names, " x "), plan.points.size(),
		plan.repeat, plan.repeat, scenario.kernel, plan.points[plan.baseline].label);
	std::vector<std::size_t> widths;
	for (const auto &p : plan.params) {
		std::size_t w = p.name.size();
		for (const auto &v : p.values)
			w = std::max(w, v.size());
		widths.push_back(w);
	}
	for (const auto &row : rows)
		text += metric_table(plan, row, widths);
	text += fmt::format("\nverdicts against the baseline: Welch's t test, two-sided, alpha {}; identical: each "
			    "seed gave the same value\n",
			    plan.alpha);
	return text;
}

namespace {

// A sweep over trees along the x axis (--param tree=6.1,6.12,7.3 --kernel
// {tree}): each x value labelled with the kernel version its points ran,
// which also keeps "6.1" and "6.12" from being drawn as the numbers 6.1
// and 6.12 (or 6.9 after 6.12). `per_x` points share an x value.
void label_kernels_along_x(SweepPlot &plot, const SweepPlan &plan, std::size_t per_x)
{
	if (!experiment::kernels_differ(plan))
		return;
	std::vector<std::string> kernels(plot.x_values.size());
	for (std::size_t i = 0; i < plan.points.size(); i++) {
		auto &kernel = kernels[i / per_x];
		if (i % per_x == 0)
			kernel = plan.points[i].kernel;
		else if (kernel != plan.points[i].kernel)
			return;	// the kernel varies with another parameter too
	}
	for (std::size_t x = 0; x < kernels.size(); x++)
		plot.x_values[x] = fmt::format("{} (Linux {})", plot.x_values[x], kernels[x]);
}

} // namespace

SweepPlot sweep_plot(const SweepPlan &plan, const SweepScenario &scenario, std::span<const SweepRow> rows)
{
	const auto &params = plan.params;
	SweepPlot plot;
	plot.title = fmt::format("{} on {}, {} runs per point", scenario.workload, scenario.board, plan.repeat);
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
	label_kernels_along_x(plot, plan, series_count * after_series);
	for (const auto &row : rows) {
		SweepPlot::Panel panel{row.metric->unit[0] ? fmt::format("{} ({})", row.metric->name, row.metric->unit)
							   : std::string(row.metric->name),
				       {}};
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
	return plot;
}

} // namespace sh::report
