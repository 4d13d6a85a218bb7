// SPDX-License-Identifier: GPL-2.0
#include "harness/experiment/check.h"

#include <fmt/format.h>

#include <algorithm>

namespace sh::experiment {

std::vector<const suite::Scenario *> checked_scenarios(const suite::Suite &suite)
{
	std::vector<const suite::Scenario *> checked;
	for (const auto &s : suite.scenarios)
		if (!s.expect.empty())
			checked.push_back(&s);
	return checked;
}

namespace {

bool has_relative(const suite::Scenario &s)
{
	return std::ranges::any_of(s.expect, [](const auto &a) { return a.relative; });
}

} // namespace

bool needs_baseline(std::span<const suite::Scenario *const> checked)
{
	return std::ranges::any_of(checked, [](const auto *s) { return has_relative(*s); });
}

CheckPlan plan_check(std::vector<const suite::Scenario *> checked, const std::vector<std::string> &common,
		     std::vector<unsigned> seeds, const std::string &baseline_kernel)
{
	CheckPlan plan{{}, std::move(checked), std::move(seeds), {}, {}};
	const bool several = plan.seeds.size() > 1;
	auto label = [&](const suite::Scenario &s, unsigned seed, const char *what) {
		return fmt::format("scenario {}{}{}", s.name, several ? fmt::format(" seed {}", seed) : "", what);
	};
	for (const auto *s : plan.checked) {
		auto &runs = plan.run_of.emplace_back();
		for (const unsigned seed : plan.seeds) {
			Run run{label(*s, seed, ""), s->run_args};
			append_run_args(run.args, {"--seed", std::to_string(seed)});
			append_run_args(run.args, common);
			runs.push_back(plan.runs.size());
			plan.runs.push_back(std::move(run));
		}
	}
	plan.baseline_of.resize(plan.checked.size());
	for (std::size_t i = 0; i < plan.checked.size(); i++) {
		if (!has_relative(*plan.checked[i]))
			continue;
		auto &baselines = plan.baseline_of[i].emplace();
		for (std::size_t k = 0; k < plan.seeds.size(); k++) {
			baselines.push_back(plan.runs.size());
			plan.runs.push_back(Run{label(*plan.checked[i], plan.seeds[k], " (baseline)"),
						plan.runs[plan.run_of[i][k]].args, {"--kernel", baseline_kernel}});
		}
	}
	return plan;
}

std::vector<ScenarioChecked> evaluate_check(const suite::Suite &suite, const CheckPlan &plan,
					    std::span<const rapidjson::Document> runs)
{
	std::vector<ScenarioChecked> results;
	for (std::size_t i = 0; i < plan.checked.size(); i++) {
		const auto &s = *plan.checked[i];
		ScenarioChecked result{&s, {}};
		for (const auto &a : s.expect) {
			auto &checked = result.expectations.emplace_back();
			for (std::size_t k = 0; k < plan.seeds.size(); k++) {
				const auto *baseline = plan.baseline_of[i] ? &runs[(*plan.baseline_of[i])[k]] : nullptr;
				try {
					checked.by_seed.push_back(suite::evaluate(a, runs[plan.run_of[i][k]], baseline));
				} catch (const suite::Error &e) {
					throw suite::Error(fmt::format("{}: scenario \"{}\": {}", suite.source, s.name, e.what()));
				}
				checked.holds &= checked.by_seed.back().holds;
			}
			result.passed &= checked.holds;
		}
		results.push_back(std::move(result));
	}
	return results;
}

} // namespace sh::experiment
