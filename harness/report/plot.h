// SPDX-License-Identifier: GPL-2.0
//
// Plots drawn with gnuplot (Debian's gnuplot-nox), as SVG or PNG by the
// output file's extension: a sweep's metrics against its first parameter,
// and a run over time (its Result::series).
#pragma once

#include "harness/sim/simulator.h"

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sh::report {

// gnuplot is missing or failed, or the file name is not .svg/.png.
struct PlotError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

struct SweepPlot {
	std::string title;
	std::string x_name;
	std::vector<std::string> x_values;	// numbers (with one unit) plot on a numeric axis
	std::string series_name;		// empty: one line per panel
	std::vector<std::string> series_values;
	struct Panel {
		std::string y_label;
		// per series, per x value: mean and standard deviation
		std::vector<std::vector<std::pair<double, double>>> series;
	};
	std::vector<Panel> panels;
};

// Writes `plot` to `file` (.svg or .png): one panel per metric, error bars
// of one standard deviation.
void draw(const SweepPlot &plot, const std::filesystem::path &file);

// A run over time: utilisation per CPU (per frequency domain beyond 16
// CPUs), each domain's clock, each thermal zone's temperature, and the
// thermal pressure the kernel held (instantaneous and PELT-averaged; 6.12's
// cpufreq pressure) when there was any. Needs result.series.
void draw_run(const sim::Result &result, const std::filesystem::path &file);

// result.series as CSV: time_s, then per CPU util, khz, capacity,
// thermal_pressure, thermal_avg, cpufreq_pressure, then each zone's
// temperature.
std::string series_csv(const sim::Result &result);

// Runs a gnuplot script that writes `file`; throws PlotError with gnuplot's
// message when it fails or writes nothing.
void run_gnuplot(const std::string &script, const std::filesystem::path &file);

// `s` inside a gnuplot double-quoted string.
std::string gnuplot_quoted(const std::string &s);

// The terminal line for `file`'s extension, sized width x height pixels.
std::string gnuplot_terminal(const std::filesystem::path &file, int width, int height);

} // namespace sh::report
