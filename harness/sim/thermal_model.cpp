// SPDX-License-Identifier: GPL-2.0
#include "harness/sim/thermal_model.h"

#include "dts/input_file.h"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace sh::sim::thermal {

namespace {

constexpr double ns_per_s = 1e9;

double number(std::string_view text, std::string_view what)
{
	double v = 0;
	const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
	if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
		throw Error(fmt::format("{}: '{}' is not a number", what, text));
	return v;
}

// The physical checks every source of parameters passes.
void check(const RcOverride &o, std::string_view where)
{
	if (o.resistance_k_per_w && !(*o.resistance_k_per_w > 0))
		throw Error(fmt::format("{}: the thermal resistance r must be > 0 K/W", where));
	if (o.capacitance_j_per_k && !(*o.capacitance_j_per_k > 0))
		throw Error(fmt::format("{}: the thermal capacitance c must be > 0 J/K", where));
	for (const auto &t : {o.ambient_c, o.initial_c})
		if (t && (*t < -273.15 || *t > 1000))
			throw Error(fmt::format("{}: a temperature of {} C is outside -273.15..1000", where, *t));
}

void set(RcOverride &o, std::string_view key, double value, std::string_view where)
{
	if (key == "r")
		o.resistance_k_per_w = value;
	else if (key == "c")
		o.capacitance_j_per_k = value;
	else if (key == "ambient")
		o.ambient_c = value;
	else if (key == "initial")
		o.initial_c = value;
	else
		throw Error(fmt::format("{}: unknown parameter '{}' (r, c, ambient, initial)", where, key));
}

} // namespace

void RcOverride::apply_to(RcParams &p) const
{
	if (resistance_k_per_w)
		p.resistance_k_per_w = *resistance_k_per_w;
	if (capacitance_j_per_k)
		p.capacitance_j_per_k = *capacitance_j_per_k;
	if (ambient_c)
		p.ambient_c = *ambient_c;
	if (initial_c)
		p.initial_c = initial_c;
}

void RcOverride::merge(const RcOverride &later)
{
	for (auto [mine, theirs] : {std::pair{&resistance_k_per_w, &later.resistance_k_per_w},
				    std::pair{&capacitance_j_per_k, &later.capacitance_j_per_k},
				    std::pair{&ambient_c, &later.ambient_c}, std::pair{&initial_c, &later.initial_c}})
		if (*theirs)
			*mine = *theirs;
}

RcParams ModelConfig::params_for(std::string_view zone) const
{
	RcParams p;
	all.apply_to(p);
	if (auto it = zones.find(zone); it != zones.end())
		it->second.apply_to(p);
	return p;
}

void ModelConfig::add_option(std::string_view spec)
{
	const auto where = fmt::format("--thermal-model {}", spec);
	if (spec == "off" || spec == "on") {
		enabled = spec == "on";
		return;
	}
	RcOverride o;
	std::string zone;
	if (auto colon = spec.find(':'); colon != std::string_view::npos) {
		zone = spec.substr(0, colon);
		spec.remove_prefix(colon + 1);
		if (zone.empty())
			throw Error(fmt::format("{}: no zone name before ':'", where));
	}
	while (!spec.empty()) {
		const auto comma = spec.find(',');
		const auto item = spec.substr(0, comma);
		const auto eq = item.find('=');
		if (eq == std::string_view::npos)
			throw Error(fmt::format("{}: '{}' is not NAME=VALUE", where, item));
		set(o, item.substr(0, eq), number(item.substr(eq + 1), where), where);
		spec.remove_prefix(comma == std::string_view::npos ? spec.size() : comma + 1);
	}
	check(o, where);
	(zone.empty() ? all : zones[zone]).merge(o);
}

void ModelConfig::add_file(const std::filesystem::path &file)
{
	std::string text;
	try {
		text = read_input_file(file, "thermal file");
	} catch (const std::runtime_error &e) {
		throw Error(e.what());
	}
	rapidjson::Document doc;
	doc.Parse<rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag>(text.c_str());
	if (doc.HasParseError())
		throw Error(fmt::format("{}: offset {}: {}", file.string(), doc.GetErrorOffset(),
					rapidjson::GetParseError_En(doc.GetParseError())));
	if (!doc.IsObject())
		throw Error(fmt::format("{}: a thermal file is a JSON object", file.string()));
	auto params = [&](const rapidjson::Value &v, const std::string &where) {
		RcOverride o;
		for (const auto &m : v.GetObject()) {
			const std::string key = m.name.GetString();
			if (key == "zones" && &v == &doc)
				continue;
			if (!m.value.IsNumber())
				throw Error(fmt::format("{}: \"{}\" must be a number", where, key));
			set(o, key, m.value.GetDouble(), where);
		}
		check(o, where);
		return o;
	};
	all.merge(params(doc, file.string()));
	if (doc.HasMember("zones")) {
		const auto &z = doc["zones"];
		if (!z.IsObject())
			throw Error(fmt::format("{}: \"zones\" must be an object of zone names", file.string()));
		for (const auto &m : z.GetObject()) {
			const auto where = fmt::format("{}: zones.{}", file.string(), m.name.GetString());
			if (!m.value.IsObject())
				throw Error(fmt::format("{}: must be an object", where));
			zones[m.name.GetString()].merge(params(m.value, where));
		}
	}
}

Zone::Zone(std::string name, std::vector<unsigned> cpus, RcParams params, std::vector<TripLevel> trips,
	   std::int64_t start_ns, std::int64_t sample_period_ns)
	: name_(std::move(name)), cpus_(std::move(cpus)), params_(params), trips_(std::move(trips)),
	  tau_s_(params.resistance_k_per_w * params.capacitance_j_per_k),
	  temperature_c_(params.initial_c.value_or(params.ambient_c)), start_ns_(start_ns), since_ns_(start_ns),
	  min_c_(temperature_c_), max_c_(temperature_c_), sample_period_ns_(sample_period_ns),
	  next_sample_ns_(start_ns)
{
	// trips at one temperature (zones sharing a network often repeat
	// theirs) are one level: the time above it is computed once
	for (const auto &trip : trips_) {
		auto level = std::ranges::find(levels_, trip.temperature_c);
		if (level == levels_.end())
			level = levels_.insert(level, trip.temperature_c);
		trip_level_.push_back(static_cast<std::size_t>(level - levels_.begin()));
	}
	above_ns_.assign(levels_.size(), 0);
}

double Zone::steady_state_c() const
{
	return params_.ambient_c + static_cast<double>(power_uw_) * 1e-6 * params_.resistance_k_per_w;
}

void Zone::set_power(std::uint64_t microwatts, std::int64_t t)
{
	if (microwatts == power_uw_)
		return;
	advance(t);
	power_uw_ = microwatts;
}

double Zone::temperature_at(std::int64_t t)
{
	advance(t);
	return temperature_c_;
}

double Zone::mean_c() const
{
	const double span_s = static_cast<double>(since_ns_ - start_ns_) / ns_per_s;
	return span_s > 0 ? integral_c_s_ / span_s : temperature_c_;
}

// Over [since, t] the power is constant: T moves monotonically from
// T0 towards T_ss, so its extremes are at the ends, and it crosses a
// level at most once, at t0 - tau ln((level - T_ss) / (T0 - T_ss)).
double Zone::peek(std::int64_t t) const
{
	if (t <= since_ns_)
		return temperature_c_;
	const double ss = steady_state_c();
	return ss + (temperature_c_ - ss) * std::exp(-static_cast<double>(t - since_ns_) / ns_per_s / tau_s_);
}

void Zone::advance(std::int64_t t)
{
	if (t <= since_ns_)
		return;
	const double ss = steady_state_c();
	const double t0 = temperature_c_;
	const double dt_s = static_cast<double>(t - since_ns_) / ns_per_s;
	const double decay = std::exp(-dt_s / tau_s_);
	const double t1 = ss + (t0 - ss) * decay;
	auto at = [&](std::int64_t when) {
		return ss + (t0 - ss) * std::exp(-static_cast<double>(when - since_ns_) / ns_per_s / tau_s_);
	};
	for (; next_sample_ns_ <= t; next_sample_ns_ += sample_period_ns_)
		samples_.push_back(next_sample_ns_ <= since_ns_ ? t0 : at(next_sample_ns_));
	for (std::size_t i = 0; i < levels_.size(); i++) {
		const double level = levels_[i];
		const bool above0 = t0 >= level, above1 = t1 >= level;
		if (above0 && above1) {
			above_ns_[i] += t - since_ns_;
		} else if (above0 != above1) {
			const double cross_s = -tau_s_ * std::log((level - ss) / (t0 - ss));
			const auto cross_ns = std::clamp<std::int64_t>(std::llround(cross_s * ns_per_s), 0, t - since_ns_);
			above_ns_[i] += above0 ? cross_ns : (t - since_ns_) - cross_ns;
		}
	}
	integral_c_s_ += ss * dt_s + (t0 - ss) * tau_s_ * (1 - decay);
	energy_j_ += static_cast<double>(power_uw_) * 1e-6 * dt_s;
	min_c_ = std::min(min_c_, t1);
	max_c_ = std::max(max_c_, t1);
	temperature_c_ = t1;
	since_ns_ = t;
}

} // namespace sh::sim::thermal
