// SPDX-License-Identifier: GPL-2.0
#include "harness/report/tables.h"

#include <fmt/format.h>

#include <cmath>

namespace sh::report {

std::string format_value(double v)
{
	const double a = std::abs(v);
	if (a >= 1000)
		return fmt::format("{:.0f}", v);
	if (a >= 10)
		return fmt::format("{:.2f}", v);
	return fmt::format("{:.4f}", v);
}

std::string format_p(const std::optional<double> &p)
{
	if (!p)
		return "-";
	return *p < 0.0001 ? "<0.0001" : fmt::format("{:.4f}", *p);
}

std::string format_delta_percent(const stats::Comparison &c)
{
	if (!c.delta_percent)
		return fmt::format("{:>9}", "n/a");
	return fmt::format("{:>+8.2f}%", *c.delta_percent);
}

std::string absolute_delta_note(const stats::Comparison &c)
{
	if (c.delta_percent || c.delta == 0)
		return "";
	return fmt::format(" ({}{} from 0)", c.delta > 0 ? "+" : "", format_value(c.delta));
}

void write_delta(JsonWriter &w, const stats::Comparison &c)
{
	w.Key("delta"), w.Double(c.delta);
	w.Key("delta_percent");
	if (c.delta_percent)
		w.Double(*c.delta_percent);
	else
		w.Null();
}

std::string csv_delta(const stats::Comparison &c)
{
	return fmt::format("{},{}", c.delta, c.delta_percent ? fmt::format("{}", *c.delta_percent) : "");
}

void write_summary(JsonWriter &w, const stats::Summary &s,
		   std::span<const double> values)
{
	w.Key("mean"), w.Double(s.mean);
	w.Key("sd"), w.Double(s.sd);
	w.Key("rsd_percent"), w.Double(s.rsd_percent());
	w.Key("min"), w.Double(s.min);
	w.Key("max"), w.Double(s.max);
	w.Key("values");
	w.StartArray();
	for (const double v : values)
		w.Double(v);
	w.EndArray();
}

std::string csv_field(std::string_view s)
{
	if (s.find_first_of(",\"\r\n") == std::string_view::npos)
		return std::string(s);
	std::string out = "\"";
	for (const char c : s)
		out += c == '"' ? std::string("\"\"") : std::string(1, c);
	return out + "\"";
}

} // namespace sh::report
