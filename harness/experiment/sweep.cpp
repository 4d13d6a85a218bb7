// SPDX-License-Identifier: GPL-2.0
#include "harness/experiment/sweep.h"

#include <algorithm>

#include "harness/image/image.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <regex>
#include <set>

namespace sh::experiment {

std::vector<Point> grid_of(std::span<const Param> params)
{
	std::vector<Point> points(1);
	for (const auto &param : params) {
		if (points.size() * param.values.size() > max_sweep_points)
			throw Error(fmt::format("the grid has more than {} points", max_sweep_points));
		std::vector<Point> next;
		for (const auto &point : points)
			for (const auto &value : param.values) {
				next.push_back(point);
				next.back()[param.name] = value;
			}
		points = std::move(next);
	}
	return points;
}

namespace {

// `text` with each {NAME} replaced by the point's value; the names
// substituted are added to `used`. A {NAME} that is no parameter is an error.
std::string substitute(const std::string &text, const Point &point, std::set<std::string> &used)
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
			throw Error(fmt::format("\"{}\" names {{{}}}, which no --param defines", text, name));
		used.insert(name);
		out += text.substr(last, static_cast<std::size_t>(m.position(0)) - last) + value->second;
		last = static_cast<std::size_t>(m.position(0) + m.length(0));
	}
	return out + text.substr(last);
}

std::string point_label(std::span<const Param> params, const Point &point)
{
	std::vector<std::string> parts;
	for (const auto &p : params)
		parts.push_back(fmt::format("{}={}", p.name, point.at(p.name)));
	return fmt::format("{}", fmt::join(parts, " "));
}

// Resolved once per distinct name: an image may be built.
class Images {
public:
	explicit Images(std::ostream &err) : err_(err) {}

	const std::filesystem::path &resolve(const std::string &name)
	{
		auto &dir = dirs_[name];
		if (!dir.empty())
			return dir;
		try {
			dir = image::resolve(name, err_);
		} catch (const std::invalid_argument &e) {
			throw Error(fmt::format("--kernel {}: {}", name, e.what()));
		} catch (const image::BadPatch &e) {
			throw Error(fmt::format("--kernel {}: {}", name, e.what()));
		}
		return dir;
	}

private:
	std::ostream &err_;
	std::map<std::string, std::filesystem::path> dirs_;
};

} // namespace

std::vector<SweepPoint> sweep_points(std::span<const Param> params, std::span<const Point> grid,
				     const SweepOptions &options, std::ostream &err)
{
	std::vector<SweepPoint> points;
	std::set<std::string> used;
	Images images(err);
	for (const auto &point : grid) {
		SweepPoint p{point, point_label(params, point), {}, {}, {}, {}};
		std::vector<std::string> run_args;
		for (const auto &a : options.scenario)
			run_args.push_back(substitute(a, point, used));
		for (const auto &a : options.kernel)
			run_args.push_back(substitute(a, point, used));
		append_run_args(p.args, run_args);
		if (options.image) {
			const auto name = substitute(*options.image, point, used);
			// "default", or the build's own series by name: the build's own kernel
			if (!image::names_own_kernel(name)) {
				const auto &dir = images.resolve(name);
				p.global = {"--kernel", dir.string()};
				p.image_id = image::read_manifest(dir).id;
			}
		}
		points.push_back(std::move(p));
	}
	for (const auto &param : params)
		if (!used.count(param.name))
			throw Error(fmt::format("--param {}: no option names {{{}}}", param.name, param.name));
	return points;
}

void record_kernels(SweepPlan &plan, std::span<const rapidjson::Document> reports)
{
	for (std::size_t i = 0; i < plan.points.size(); i++)
		plan.points[i].kernel = plan.report(reports, i, 1)["kernel"].GetString();
}

bool kernels_differ(const SweepPlan &plan)
{
	return std::any_of(plan.points.begin(), plan.points.end(),
			   [&](const SweepPoint &p) { return p.kernel != plan.points.front().kernel; });
}

Plan SweepPlan::runs() const
{
	Plan plan;
	for (unsigned seed = 1; seed <= repeat; seed++)
		for (const auto &p : points) {
			Run run{fmt::format("point {} seed {}", p.label, seed), {"--seed", std::to_string(seed)}, p.global};
			append_run_args(run.args, p.args);
			plan.push_back(std::move(run));
		}
	return plan;
}

std::vector<SweepRow> summarise_sweep(const SweepPlan &plan, std::span<const Metric *const> shown,
				      std::span<const rapidjson::Document> reports, bool asked)
{
	std::vector<SweepRow> rows;
	for (const auto *m : shown) {
		SweepRow row{m, std::vector<SweepCell>(plan.points.size())};
		bool complete = true;
		for (std::size_t i = 0; i < plan.points.size() && complete; i++)
			for (unsigned seed = 1; seed <= plan.repeat && complete; seed++) {
				if (const auto v = m->read(plan.report(reports, i, seed)))
					row.cells[i].values.push_back(*v);
				else
					complete = false;
			}
		if (!complete)
			continue;	// a metric is shown when every run of every point has it
		if (!asked && m->only_when_nonzero &&
		    std::all_of(row.cells.begin(), row.cells.end(), [](const SweepCell &c) {
			    return std::all_of(c.values.begin(), c.values.end(), [](double v) { return v == 0; });
		    }))
			continue;
		for (auto &cell : row.cells) {
			cell.summary = stats::summarize(cell.values);
			cell.vs_baseline = stats::compare(row.cells[plan.baseline].values, cell.values, plan.alpha);
		}
		rows.push_back(std::move(row));
	}
	return rows;
}

} // namespace sh::experiment
