// SPDX-License-Identifier: GPL-2.0
#include "harness/experiment/comparison.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace sh::experiment {

std::string Variant::described() const
{
	std::vector<std::string> all;
	if (!kernel.empty())	// an image by its id; the build's own kernel as named (its series)
		all = {"--kernel", image_id.empty() ? kernel.back() : image_id};
	all.insert(all.end(), args.begin(), args.end());
	if (all.empty())
		return "(the defaults)";
	std::vector<std::string> quoted;
	for (const auto &a : all)
		quoted.push_back(a.find(' ') == std::string::npos ? a : fmt::format("'{}'", a));
	return fmt::format("{}", fmt::join(quoted, " "));
}

Plan ComparisonPlan::runs() const
{
	const std::string described[2] = {variants[0].described(), variants[1].described()};
	Plan plan;
	for (const auto &sc : scenarios) {
		for (unsigned seed = 1; seed <= repeat; seed++) {
			for (int side = 0; side < 2; side++) {
				Run run{fmt::format("{}variant {} seed {} ({})",
						    sc.name.empty() ? "" : "scenario " + sc.name + ", ", side ? 'B' : 'A',
						    seed, described[side]),
					{"--seed", std::to_string(seed)},
					variants[side].kernel};
				append_run_args(run.args, sc.args);
				append_run_args(run.args, variants[side].args);
				plan.push_back(std::move(run));
			}
		}
	}
	return plan;
}

namespace {

ComparedMetric compare_metric(const Metric &m, const std::array<std::vector<const rapidjson::Document *>, 2> &runs,
			      double alpha)
{
	ComparedMetric row{&m, {}, {}, {}};
	for (int side = 0; side < 2; side++)
		for (const auto *run : runs[side])
			if (auto v = m.read(*run))
				row.values[side].push_back(*v);
	if (row.values[0].size() != runs[0].size() || row.values[1].size() != runs[1].size())
		return row;
	row.c = stats::compare(row.values[0], row.values[1], alpha);
	for (int side = 0; side < 2; side++) {
		const auto &s = side ? row.c.b : row.c.a;
		row.constant[side] = s.constant() && row.c.verdict != stats::Verdict::identical;
	}
	return row;
}

ScenarioComparison compare_scenario(const ComparisonPlan &plan, const Scenario &scenario,
				    std::span<const rapidjson::Document> reports)
{
	// this scenario's runs: 2 x repeat, A and B interleaved
	std::array<std::vector<const rapidjson::Document *>, 2> runs;
	for (std::size_t i = 0; i < reports.size(); i++)
		runs[i % 2].push_back(&reports[i]);
	ScenarioComparison result;
	const auto &first = *runs[0].front();
	result.name = scenario.name;
	result.board = first["board"].GetString();
	result.workload = first["workload"].GetString();
	result.seconds = first["duration_ns"].GetDouble() / 1e9;
	for (const auto &m : suite::run_metrics()) {
		if (!m.compared)
			continue;
		auto row = compare_metric(m, runs, plan.alpha);
		// not a metric of this workload (completion time of an endless one)
		if (row.values[0].size() != plan.repeat || row.values[1].size() != plan.repeat) {
			result.not_measured.push_back(&m);
			continue;
		}
		if (m.only_when_nonzero && row.c.a.constant() && row.c.b.constant() && row.c.a.mean == 0 &&
		    row.c.b.mean == 0)
			continue;
		result.metrics.push_back(std::move(row));
	}
	for (int side = 0; side < 2; side++) {
		result.kernels[side] = kernel_ran(*runs[side].front());
		for (const auto *run : runs[side])
			result.fingerprints[side].insert((*run)["fingerprint"].GetString());
	}
	for (std::size_t i = 0; i < plan.repeat; i++)
		result.same_runs += std::string((*runs[0][i])["fingerprint"].GetString()) ==
				    (*runs[1][i])["fingerprint"].GetString();
	return result;
}

} // namespace

std::vector<ScenarioComparison> compare_reports(const ComparisonPlan &plan,
						 std::span<const rapidjson::Document> reports)
{
	std::vector<ScenarioComparison> results;
	const std::size_t per_scenario = 2 * static_cast<std::size_t>(plan.repeat);
	for (std::size_t k = 0; k < plan.scenarios.size(); k++)
		results.push_back(compare_scenario(plan, plan.scenarios[k], reports.subspan(k * per_scenario, per_scenario)));
	return results;
}

} // namespace sh::experiment
