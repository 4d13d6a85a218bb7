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
