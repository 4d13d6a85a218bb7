// SPDX-License-Identifier: GPL-2.0
#include "harness/report/plot.h"

#include "support/tools.h"

#include <fmt/format.h>

#include <algorithm>
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
		return fmt::format("set terminal svg size {},{} dynamic noenhanced font 'sans,11' background '#ffffff'\n",
				   width, height);
	if (ext == ".png")
		return fmt::format("set terminal png size {},{} noenhanced font 'sans,10'\n", width, height);
	throw PlotError(fmt::format("{}: a plot is written as .svg or .png", file.string()));
}

void run_gnuplot(const std::string &script, const std::filesystem::path &file)
{
	support::TempDir dir;
	const auto path = dir.path() / "plot.gp";
	{
		std::ofstream out(path);
		out << script;
		if (!out)
			throw PlotError(fmt::format("{}: cannot write the gnuplot script", path.string()));
	}
	std::error_code ec;
	std::filesystem::remove(file, ec);
	support::ToolResult result;
	try {
		result = support::run_tool(std::vector<std::string>{"gnuplot", path.string()}, {.seconds = 60});
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
	script += "set grid\nset key outside right top\nset bars small\nset lmargin 12\nset rmargin 22\n";
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

namespace {

// One line of a run panel: a title and a value per sample.
struct Line {
	std::string title;
	std::vector<double> values;
};

std::string cpu_range(const std::vector<unsigned> &cpus)
{
	if (cpus.size() == 1)
		return fmt::format("CPU{}", cpus[0]);
	bool contiguous = true;
	for (std::size_t i = 1; i < cpus.size(); i++)
		contiguous &= cpus[i] == cpus[i - 1] + 1;
	if (contiguous)
		return fmt::format("CPU{}-{}", cpus.front(), cpus.back());
	std::string s = "CPU";
	for (std::size_t i = 0; i < cpus.size(); i++)
		s += fmt::format("{}{}", i ? "," : "", cpus[i]);
	return s;
}

// The frequency domains' CPUs, or each CPU alone when the board has none.
std::vector<std::vector<unsigned>> domains_of(const sim::Result &r)
{
	std::vector<std::vector<unsigned>> domains;
	for (const auto &d : r.domains)
		if (!d.cpus.empty())
			domains.push_back(d.cpus);
	if (domains.empty())
		for (unsigned c = 0; c < r.series.cpus.size(); c++)
			domains.push_back({c});
	return domains;
}

template <typename Field>
std::vector<double> mean_over(const sim::Result &r, const std::vector<unsigned> &cpus, Field field)
{
	std::vector<double> out(r.series.time_ns.size(), 0.0);
	for (const unsigned c : cpus) {
		const auto &values = r.series.cpus[c].*field;
		for (std::size_t i = 0; i < out.size(); i++)
			out[i] += values[i] / static_cast<double>(cpus.size());
	}
	return out;
}

} // namespace

void draw_run(const sim::Result &r, const std::filesystem::path &file)
{
	const auto &series = r.series;
	if (series.time_ns.empty())
		throw PlotError(fmt::format("{}: the run has no samples to plot", file.string()));
	using Cpu = sim::Series::Cpu;
	struct Panel {
		std::string y_label;
		std::vector<Line> lines;
	};
	std::vector<Panel> panels;
	const auto domains = domains_of(r);

	Panel util{"utilisation (util_avg)", {}};
	if (series.cpus.size() <= 16) {
		for (std::size_t c = 0; c < series.cpus.size(); c++)
			util.lines.push_back({fmt::format("CPU{}", c), mean_over(r, {static_cast<unsigned>(c)}, &Cpu::util)});
	} else {
		for (const auto &d : domains)
			util.lines.push_back({cpu_range(d) + " mean", mean_over(r, d, &Cpu::util)});
	}
	panels.push_back(std::move(util));

	Panel freq{"frequency (MHz)", {}};
	for (const auto &d : domains) {
		auto khz = mean_over(r, {d.front()}, &Cpu::khz);
		for (auto &v : khz)
			v /= 1000;
		freq.lines.push_back({cpu_range(d), std::move(khz)});
	}
	panels.push_back(std::move(freq));

	if (!series.zone_temperature_c.empty()) {
		Panel temp{"temperature (°C)", {}};
		for (std::size_t z = 0; z < series.zone_temperature_c.size(); z++)
			temp.lines.push_back({z < r.thermal_zones.size() ? r.thermal_zones[z].name : fmt::format("zone {}", z),
					      series.zone_temperature_c[z]});
		panels.push_back(std::move(temp));
	}

	Panel pressure{"thermal pressure (capacity)", {}};
	for (const auto &d : domains) {
		const unsigned first = d.front();
		const struct {
			std::vector<unsigned> Cpu::*field;
			const char *what;
		} kinds[] = {{&Cpu::thermal_pressure, "instantaneous"},
			     {&Cpu::thermal_avg, "PELT average"},
			     {&Cpu::cpufreq_pressure, "cpufreq"}};
		for (const auto &k : kinds) {
			const auto &values = series.cpus[first].*k.field;
			if (std::any_of(values.begin(), values.end(), [](unsigned v) { return v != 0; }))
				pressure.lines.push_back({fmt::format("{} {}", cpu_range(d), k.what),
							  mean_over(r, {first}, k.field)});
		}
	}
	if (!pressure.lines.empty())
		panels.push_back(std::move(pressure));

	std::string script = gnuplot_terminal(file, 1000, 60 + 240 * static_cast<int>(panels.size()));
	script += fmt::format("set output {}\n", gnuplot_quoted(file.string()));
	// the panels' plot areas aligned whatever their keys' widths
	script += "set grid\nset key outside right top\nset lmargin 10\nset rmargin 26\nset xlabel \"time (s)\"\n";
	script += fmt::format("set xrange [0:{}]\n", static_cast<double>(series.time_ns.back()) / 1e9);
	script += fmt::format("set multiplot layout {},1 title {}\n", panels.size(),
			      gnuplot_quoted(fmt::format("{} on {} ({}), {}", r.workload, r.board, r.kernel,
							 r.eas ? "EAS" : "no EAS")));
	for (std::size_t p = 0; p < panels.size(); p++) {
		const auto &panel = panels[p];
		script += fmt::format("$run{} << EOD\n", p);
		for (std::size_t i = 0; i < series.time_ns.size(); i++) {
			script += fmt::format("{}", static_cast<double>(series.time_ns[i]) / 1e9);
			for (const auto &line : panel.lines)
				script += fmt::format(" {}", line.values[i]);
			script += "\n";
		}
		script += "EOD\n";
		script += fmt::format("set ylabel {}\n", gnuplot_quoted(panel.y_label));
		std::string command = "plot ";
		for (std::size_t l = 0; l < panel.lines.size(); l++)
			command += fmt::format("{}$run{} using 1:{} with steps title {}", l ? ", " : "", p, l + 2,
					       gnuplot_quoted(panel.lines[l].title));
		script += command + "\n";
	}
	script += "unset multiplot\n";
	run_gnuplot(script, file);
}

std::string series_csv(const sim::Result &r)
{
	const auto &series = r.series;
	std::string text = "time_s";
	for (std::size_t c = 0; c < series.cpus.size(); c++)
		text += fmt::format(",cpu{0}_util,cpu{0}_khz,cpu{0}_capacity,cpu{0}_thermal_pressure,cpu{0}_thermal_avg,"
				    "cpu{0}_cpufreq_pressure",
				    c);
	for (std::size_t z = 0; z < series.zone_temperature_c.size(); z++)
		text += fmt::format(",{}_temperature_c", z < r.thermal_zones.size() ? r.thermal_zones[z].name
										     : fmt::format("zone{}", z));
	text += "\n";
	for (std::size_t i = 0; i < series.time_ns.size(); i++) {
		text += fmt::format("{}", static_cast<double>(series.time_ns[i]) / 1e9);
		for (const auto &cpu : series.cpus)
			text += fmt::format(",{},{},{},{},{},{}", cpu.util[i], cpu.khz[i], cpu.capacity[i],
					    cpu.thermal_pressure[i], cpu.thermal_avg[i], cpu.cpufreq_pressure[i]);
		for (const auto &zone : series.zone_temperature_c)
			text += fmt::format(",{:.3f}", zone[i]);
		text += "\n";
	}
	return text;
}

} // namespace sh::report
