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
// A metric's summary over runs as JSON members, in the object the writer
// is in: mean, sd, rsd_percent, min, max and every run's value.
void write_summary(JsonWriter &w, const stats::Summary &s,
		   std::span<const double> values);

// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line
// break, its quotes doubled.
std::string csv_field(std::string_view s);

} // namespace sh::report
