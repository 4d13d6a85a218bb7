// SPDX-License-Identifier: GPL-2.0
#include "harness/report/sweep_plot.h"

#include "dts/tools.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>

namespace sh::report {

namespace {

// x values as numbers when all are a number followed by one unit
// ("50ms", "100ms"): the axis is then numeric, labelled with the unit.
std::optional<std::pair<std::vector<double>, std::string>> numeric_axis(const std::vector<std::string> &values)
{
	std::vector<double> xs;
	std::optional<std::string> unit;
	for (const auto &v : values) {
		double x = 0;
		const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
		if (ec != std::errc() || end == v.data() || !std::isfinite(x))
			return std::nullopt;
		const std::string rest(end, v.data() + v.size());
		if (unit && *unit != rest)
			return std::nullopt;
		unit = rest;
		xs.push_back(x);
	}
	return std::pair{xs, unit.value_or("")};
}

} // namespace

std::string gnuplot_quoted(const std::string &s)
{
	std::string out = "\"";
	for (const char c : s) {
		if (c == '"' || c == '\\')
			out += '\\';
		if (c == '\n')
			out += "\\n";
		else
			out += c;
	}
	return out + "\"";
}

std::string gnuplot_terminal(const std::filesystem::path &file, int width, int height)
{
	const auto ext = file.extension().string();
	if (ext == ".svg")
		return fmt::format("set terminal svg size {},{} dynamic enhanced font 'sans,11' background '#ffffff'\n",
				   width, height);
	if (ext == ".png")
		return fmt::format("set terminal png size {},{} font 'sans,10'\n", width, height);
	throw PlotError(fmt::format("{}: a plot is written as .svg or .png", file.string()));
}

void run_gnuplot(const std::string &script, const std::filesystem::path &file)
{
	dts::TempDir dir;
	const auto path = dir.path() / "plot.gp";
	{
		std::ofstream out(path);
		out << script;
		if (!out)
			throw PlotError(fmt::format("{}: cannot write the gnuplot script", path.string()));
	}
	std::error_code ec;
	std::filesystem::remove(file, ec);
	dts::ToolResult result;
	try {
		result = dts::run_tool(std::vector<std::string>{"gnuplot", path.string()}, {.seconds = 60});
	} catch (const std::exception &e) {
		throw PlotError(fmt::format("plots need gnuplot (apt-get install gnuplot-nox): {}", e.what()));
	}
	if (result.exit_status == 127 || (result.exit_status == -1 && !result.timed_out))
		throw PlotError("plots need gnuplot (apt-get install gnuplot-nox)");
	if (!result.ok() || !std::filesystem::exists(file) || std::filesystem::file_size(file) == 0)
		throw PlotError(fmt::format("{}: gnuplot failed{}: {}", file.string(),
					    result.timed_out ? " (timed out)" : "", result.err));
}

void draw(const SweepPlot &plot, const std::filesystem::path &file)
{
	const int panels = static_cast<int>(plot.panels.size());
	if (panels == 0)
		throw PlotError(fmt::format("{}: no metric to plot", file.string()));
	std::string script = gnuplot_terminal(file, 900, 60 + 260 * panels);
	script += fmt::format("set output {}\n", gnuplot_quoted(file.string()));
	script += "set grid\nset key outside right top\nset bars small\n";
	const auto axis = numeric_axis(plot.x_values);
	const auto x_label = axis && !axis->second.empty() ? fmt::format("{} ({})", plot.x_name, axis->second)
							    : plot.x_name;
	if (!axis)
		script += "set offsets 0.5, 0.5, 0, 0\n";
	script += fmt::format("set multiplot layout {},1 title {}\n", panels, gnuplot_quoted(plot.title));
	for (int p = 0; p < panels; p++) {
		const auto &panel = plot.panels[static_cast<std::size_t>(p)];
		// a data block per panel, one index (two blank lines apart) per series
		script += fmt::format("$panel{} << EOD\n", p);
		for (const auto &series : panel.series) {
			for (std::size_t x = 0; x < series.size(); x++) {
				if (axis)
					script += fmt::format("{} {} {}\n", axis->first[x], series[x].first, series[x].second);
				else
					script += fmt::format("{} {} {} {}\n", x, series[x].first, series[x].second,
							      gnuplot_quoted(plot.x_values[x]));
			}
			script += "\n\n";
		}
		script += "EOD\n";
		script += fmt::format("set xlabel {}\nset ylabel {}\n", gnuplot_quoted(x_label),
				      gnuplot_quoted(panel.y_label));
		std::string command = "plot ";
		for (std::size_t s = 0; s < panel.series.size(); s++) {
			const auto title = plot.series_name.empty()
				? std::string("notitle")
				: "title " + gnuplot_quoted(fmt::format("{}={}", plot.series_name, plot.series_values[s]));
			command += fmt::format("{}$panel{} index {} using 1:2:3{} with yerrorlines {}", s ? ", " : "", p, s,
					       axis ? "" : ":xtic(4)", title);
		}
		script += command + "\n";
	}
	script += "unset multiplot\n";
	run_gnuplot(script, file);
}

} // namespace sh::report
