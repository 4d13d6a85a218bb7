// SPDX-License-Identifier: GPL-2.0
//
// sweep: one scenario over a grid of parameter values (hyperfine's
// --parameter-list/--parameter-scan), each point run N times (seeds 1..N)
// and each metric summarised per point and tested against a baseline point
// (Welch's t test, runs paired by seed as compare pairs them), as perf stat
// --repeat --table would.
#pragma once

#include "harness/suite/metrics.h"
#include "harness/experiment/plan.h"
#include "harness/stats/stats.h"

#include <rapidjson/document.h>

#include <iosfwd>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sh::experiment {

using suite::Metric;

// The largest grid: points x repeats is the number of processes run.
inline constexpr std::size_t max_sweep_points = 10000;

struct Param {
	std::string name;
	std::vector<std::string> values;
};

// A point of the grid: each parameter's value.
using Point = std::map<std::string, std::string>;

// Every combination of the parameters' values, the last varying fastest.
// Throws Error past max_sweep_points.
std::vector<Point> grid_of(std::span<const Param> params);

// The options every point runs, naming parameters as {NAME}: the
// scenario's and kernel's run options, and the image (`default`: the
// build's own kernel).
struct SweepOptions {
	std::vector<std::string> scenario;
	std::vector<std::string> kernel;
	std::optional<std::string> image;
};

// A point's runs: its label ("a=1 b=x"), run options and image.
struct SweepPoint {
	Point values;
	std::string label;
	std::vector<std::string> args;
	std::vector<std::string> global;	// --kernel DIR
	std::string image_id;
	// the kernel's version its runs reported ("6.12.118"; record_kernels()):
	// a sweep over trees shows it beside each point
	std::string kernel;
};

struct SweepPlan {
	std::vector<Param> params;
	std::vector<SweepPoint> points;
	std::size_t baseline = 0;
	unsigned repeat = 5;
	double alpha = 0.01;

	// Seed by seed over the grid, so that the runs a worker takes
	// together are spread over the points.
	Plan runs() const;
	// The report of a point's run with a seed, among runs()'s.
	const rapidjson::Document &report(std::span<const rapidjson::Document> reports, std::size_t point,
					  unsigned seed) const
	{
		return reports[(seed - 1) * points.size() + point];
	}
};

// The grid's points with the options substituted, each image resolved
// once (its build's progress on `err`). Throws Error for a {NAME} no
// parameter defines, a parameter no option names, an image that does not
// resolve.
std::vector<SweepPoint> sweep_points(std::span<const Param> params, std::span<const Point> grid,
				     const SweepOptions &options, std::ostream &err);

// Each point's kernel version as its first run reported it.
void record_kernels(SweepPlan &plan, std::span<const rapidjson::Document> reports);

// Whether the points ran kernels of more than one version (a sweep over
// trees): the tables then have a column naming each point's.
bool kernels_differ(const SweepPlan &plan);

struct SweepCell {
	std::vector<double> values;	// by seed
	stats::Summary summary;
	stats::Comparison vs_baseline;
};
struct SweepRow {
	const Metric *metric;
	std::vector<SweepCell> cells;	// by point
};

// The metrics of `shown` that every run of every point has, summarised;
// unless the user `asked` for them, those only_when_nonzero that are 0 in
// every run are left out.
std::vector<SweepRow> summarise_sweep(const SweepPlan &plan, std::span<const Metric *const> shown,
				      std::span<const rapidjson::Document> reports, bool asked);

} // namespace sh::experiment
