// SPDX-License-Identifier: GPL-2.0
//
// The pieces of an experiment's tables (compare, sweep): values and p
// values as a table prints them, a summary over runs as JSON, CSV fields.
#pragma once

#include "harness/stats/stats.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace sh::report {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// A string of any length (embedded NULs too) as a JSON string.
inline void write_string(JsonWriter &w, std::string_view s)
{
	w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// A value for a table: 4 significant digits or so, no exponent.
std::string format_value(double v);
// A p value for a table: "<0.0001", "0.0123", or "-" for none.
std::string format_p(const std::optional<double> &p);
// A change's percentage for a table, 9 wide: "  +12.34%", or "      n/a"
// when the reference's mean is 0.
std::string format_delta_percent(const stats::Comparison &c);
// The absolute change where the percentage is n/a, after a table's row:
// " (+10.20 from 0)"; empty otherwise, or when nothing changed.
std::string absolute_delta_note(const stats::Comparison &c);
// The change as JSON members: delta (absolute) and delta_percent (null
// when the reference's mean is 0).
void write_delta(JsonWriter &w, const stats::Comparison &c);
// The change as two CSV fields, "delta,delta_percent" (empty when the
// reference's mean is 0).
std::string csv_delta(const stats::Comparison &c);
// A metric's summary over runs as JSON members, in the object the writer
// is in: mean, sd, rsd_percent, min, max and every run's value.
void write_summary(JsonWriter &w, const stats::Summary &s,
		   std::span<const double> values);

// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line
// break, its quotes doubled.
std::string csv_field(std::string_view s);

} // namespace sh::report
