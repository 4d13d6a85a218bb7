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
		     const std::string &baseline_kernel)
{
	CheckPlan plan{{}, std::move(checked), {}};
	for (const auto *s : plan.checked) {
		Run run{fmt::format("scenario {}", s->name), s->run_args};
		append_run_args(run.args, common);
		plan.runs.push_back(std::move(run));
	}
	plan.baseline_of.resize(plan.checked.size());
	for (std::size_t i = 0; i < plan.checked.size(); i++) {
		if (!has_relative(*plan.checked[i]))
			continue;
		plan.baseline_of[i] = plan.runs.size();
		plan.runs.push_back(Run{fmt::format("scenario {} (baseline)", plan.checked[i]->name), plan.runs[i].args,
					{"--kernel", baseline_kernel}});
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
		const auto *baseline = plan.baseline_of[i] ? &runs[*plan.baseline_of[i]] : nullptr;
		for (const auto &a : s.expect) {
			try {
				result.evaluations.push_back(suite::evaluate(a, runs[i], baseline));
			} catch (const suite::Error &e) {
				throw suite::Error(fmt::format("{}: scenario \"{}\": {}", suite.source, s.name, e.what()));
			}
			result.passed &= result.evaluations.back().holds;
		}
		results.push_back(std::move(result));
	}
	return results;
}

} // namespace sh::experiment
