// SPDX-License-Identifier: GPL-2.0
#include "harness/sim/power_model.h"

#include "harness/workload/workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace sh::sim {

namespace {

// The most a file may hold: a board's power model is a few kilobytes.
constexpr std::uintmax_t max_file_bytes = 1 << 20;

double milliwatts(const rapidjson::Value &v, const std::string &where)
{
	if (!v.IsNumber() || !std::isfinite(v.GetDouble()) || v.GetDouble() < 0 || v.GetDouble() > 1e6)
		throw PowerModelError(fmt::format("{}: expected milliwatts, a number from 0 to 1000000", where));
	return v.GetDouble();
}

unsigned khz_key(const std::string &key, const std::string &where)
{
	unsigned khz = 0;
	const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), khz);
	if (ec != std::errc() || end != key.data() + key.size() || khz == 0)
		throw PowerModelError(fmt::format("{}: \"{}\" is not a frequency in kHz", where, key));
	return khz;
}

std::map<unsigned, double> per_opp(const rapidjson::Value &v, const std::string &where)
{
	if (!v.IsObject())
		throw PowerModelError(fmt::format("{}: expected {{\"kHz\": mW, ...}}", where));
	std::map<unsigned, double> out;
	for (const auto &m : v.GetObject()) {
		const std::string key = m.name.GetString();
		out[khz_key(key, where)] = milliwatts(m.value, fmt::format("{}.{}", where, key));
	}
	return out;
}

// A number, {"kHz": mW, ...} or {"per_volt_cubed": mW}.
OppFigure opp_figure(const rapidjson::Value &v, const std::string &where)
{
	OppFigure f;
	if (v.IsNumber()) {
		f.all_mw = milliwatts(v, where);
	} else if (v.IsObject() && v.MemberCount() == 1 && v.MemberBegin()->name == "per_volt_cubed") {
		f.per_volt_cubed_mw = milliwatts(v.MemberBegin()->value, where + ".per_volt_cubed");
	} else if (v.IsObject() && v.HasMember("per_volt_cubed")) {
		throw PowerModelError(fmt::format("{}: per_volt_cubed stands alone (c x V^3 at every OPP)", where));
	} else {
		if (!v.IsObject())
			throw PowerModelError(fmt::format(
				"{}: expected mW, {{\"kHz\": mW, ...}} or {{\"per_volt_cubed\": mW}}", where));
		f.per_khz_mw = per_opp(v, where);
	}
	return f;
}

std::vector<std::string> state_names(const rapidjson::Value &v, const std::string &where)
{
	if (!v.IsArray())
		throw PowerModelError(fmt::format("{}: expected [\"idle state\", ...]", where));
	std::vector<std::string> out;
	for (const auto &s : v.GetArray()) {
		if (!s.IsString())
			throw PowerModelError(fmt::format("{}: expected idle state names", where));
		out.push_back(s.GetString());
	}
	return out;
}

std::map<std::string, double> per_state(const rapidjson::Value &v, const std::string &where)
{
	if (!v.IsObject())
		throw PowerModelError(fmt::format("{}: expected {{\"idle state\": mW, ...}}", where));
	std::map<std::string, double> out;
	for (const auto &s : v.GetObject())
		out[s.name.GetString()] = milliwatts(s.value, fmt::format("{}.{}", where, s.name.GetString()));
	return out;
}

PowerModel::Domain::TemperatureScale temperature_scale(const rapidjson::Value &v, const std::string &where)
{
	PowerModel::Domain::TemperatureScale t;
	if (!v.IsObject())
		throw PowerModelError(fmt::format("{}: expected {{\"zone\": name, \"polynomial\": [a0, a1, ...]}}", where));
	for (const auto &m : v.GetObject()) {
		const std::string key = m.name.GetString();
		if (key == "zone" && m.value.IsString() && m.value.GetStringLength() > 0) {
			t.zones.push_back(m.value.GetString());
		} else if (key == "zone" && m.value.IsArray() && !m.value.Empty() && m.value.Size() <= 8) {
			for (const auto &z : m.value.GetArray()) {
				if (!z.IsString() || z.GetStringLength() == 0)
					throw PowerModelError(fmt::format("{}.zone: expected thermal zones' names", where));
				t.zones.push_back(z.GetString());
			}
		} else if (key == "polynomial" && m.value.IsArray() && !m.value.Empty() && m.value.Size() <= 8) {
			for (const auto &a : m.value.GetArray()) {
				if (!a.IsNumber() || !std::isfinite(a.GetDouble()))
					throw PowerModelError(fmt::format("{}.polynomial: expected numbers", where));
				t.polynomial.push_back(a.GetDouble());
			}
		} else {
			throw PowerModelError(fmt::format("{}.{}: unknown or mistyped (zone: a thermal zone's name, or "
							  "1 to 8 names, the first the board has; polynomial: 1 to 8 "
							  "coefficients, a0 first, of T in C)",
							  where, key));
		}
	}
	if (t.zones.empty() || t.polynomial.empty())
		throw PowerModelError(fmt::format("{}: needs \"zone\" and \"polynomial\"", where));
	return t;
}

PowerModel::Domain domain(const rapidjson::Value &d, const std::string &where)
{
	if (!d.IsObject())
		throw PowerModelError(fmt::format("{}: expected an object", where));
	PowerModel::Domain dom;
	for (const auto &f : d.GetObject()) {
		const std::string field = f.name.GetString();
		const auto at = fmt::format("{}.{}", where, field);
		if (field == "cpus" && f.value.IsString()) {
			try {
				const auto cpus = workload::parse_cpu_list(f.value.GetString(), at);
				dom.cpus.assign(cpus.begin(), cpus.end());
			} catch (const workload::Error &e) {
				throw PowerModelError(e.what());
			}
		} else if (field == "dynamic_mw") {
			dom.dynamic_mw = per_opp(f.value, at);
		} else if (field == "static_mw") {
			dom.static_mw = opp_figure(f.value, at);
		} else if (field == "core_static_mw") {
			dom.core_static_mw = opp_figure(f.value, at);
		} else if (field == "cluster_mw") {
			dom.cluster_mw = opp_figure(f.value, at);
		} else if (field == "temperature_scale") {
			dom.temperature = temperature_scale(f.value, at);
		} else if (field == "idle_mw") {
			dom.idle_mw = per_state(f.value, at);
		} else if (field == "cluster_idle_mw") {
			dom.cluster_idle_mw = per_state(f.value, at);
		} else if (field == "cluster_off") {
			dom.cluster_off = state_names(f.value, at);
		} else if (field == "core_off") {
			dom.core_off = state_names(f.value, at);
		} else {
			throw PowerModelError(fmt::format(
				"{}: unknown or mistyped (cpus: \"0-3\"; dynamic_mw: {{\"kHz\": mW}}; static_mw, "
				"core_static_mw, cluster_mw: mW, {{\"kHz\": mW}} or {{\"per_volt_cubed\": mW}}; "
				"temperature_scale: {{\"zone\", \"polynomial\"}}; idle_mw, cluster_idle_mw: "
				"{{\"state\": mW}}; cluster_off, core_off: [\"state\"])",
				at));
		}
	}
	if (dom.cpus.empty())
		throw PowerModelError(fmt::format("{}: needs \"cpus\"", where));
	if (dom.temperature && dom.static_mw.empty() && dom.core_static_mw.empty())
		throw PowerModelError(fmt::format("{}: temperature_scale scales static_mw and core_static_mw; "
						  "there are neither",
						  where));
	return dom;
}

// {"us": 1.5, "source": "..."} or {"unsourced": "..."}: a figure without
// its source is refused, and so is a source without its figure.
HardwareLatency hardware_latency(const rapidjson::Value &v, const std::string &where)
{
	const auto text = [&](const char *key) {
		if (!v[key].IsString() || v[key].GetStringLength() == 0)
			throw PowerModelError(fmt::format("{}.{}: expected a non-empty string", where, key));
		return std::string(v[key].GetString());
	};
	if (v.IsObject() && v.MemberCount() == 1 && v.HasMember("unsourced"))
		return {std::nullopt, text("unsourced")};
	if (!v.IsObject() || v.MemberCount() != 2 || !v.HasMember("us") || !v.HasMember("source"))
		throw PowerModelError(fmt::format("{}: expected {{\"us\": microseconds, \"source\": \"the "
						  "publication and its conditions\"}} or {{\"unsourced\": \"what was "
						  "looked for\"}}",
						  where));
	const auto &us = v["us"];
	// the same bound as --ipi-latency's
	if (!us.IsNumber() || !std::isfinite(us.GetDouble()) || us.GetDouble() < 0 || us.GetDouble() > 10000)
		throw PowerModelError(fmt::format("{}.us: expected microseconds, from 0 to 10000", where));
	return {std::llround(us.GetDouble() * 1000), text("source")};
}

HardwareLatencies hardware_latencies(const rapidjson::Value &v, const std::string &where)
{
	if (!v.IsObject())
		throw PowerModelError(fmt::format("{}: expected {{\"ipi\": ..., \"irq_entry\": ..., "
						  "\"wfi_exit\": ...}}",
						  where));
	HardwareLatencies out;
	std::vector<std::string> missing;
	for (auto [key, latency] : {std::pair{"ipi", &out.ipi}, std::pair{"irq_entry", &out.irq_entry},
				    std::pair{"wfi_exit", &out.wfi_exit}}) {
		if (!v.HasMember(key)) {
			missing.emplace_back(key);
			continue;
		}
		*latency = hardware_latency(v[key], fmt::format("{}.{}", where, key));
	}
	if (!missing.empty())
		throw PowerModelError(fmt::format("{}: no {} (give each its figure and source, or say "
						  "{{\"unsourced\": \"...\"}})",
						  where, fmt::join(missing, ", ")));
	if (v.MemberCount() != 3)
		throw PowerModelError(fmt::format("{}: unknown member (ipi, irq_entry, wfi_exit)", where));
	return out;
}

PowerModel::BogoUnits bogo_units(const rapidjson::Value &v, const std::string &where)
{
	PowerModel::BogoUnits b;
	bool cpu = false, khz = false;
	if (!v.IsObject())
		throw PowerModelError(fmt::format("{}: expected {{\"cpu\": N, \"khz\": F, \"busy_cost\": C}}", where));
	for (const auto &m : v.GetObject()) {
		const std::string key = m.name.GetString();
		if (key == "cpu" && m.value.IsUint() && m.value.GetUint() < 4096) {
			b.cpu = m.value.GetUint();
			cpu = true;
		} else if (key == "khz" && m.value.IsUint() && m.value.GetUint() > 0) {
			b.khz = m.value.GetUint();
			khz = true;
		} else if (key == "busy_cost" && m.value.IsNumber() && m.value.GetDouble() >= 0.001 &&
			   m.value.GetDouble() <= 1e6) {
			b.busy_cost = m.value.GetDouble();
		} else {
			throw PowerModelError(fmt::format("{}.{}: unknown or mistyped (cpu: a CPU number, khz: one of "
							  "its OPPs, busy_cost: its busy cost there, from 0.001 to 1000000)",
							  where, key));
		}
	}
	// (without khz: the CPU's highest OPP, where a legacy table's
	// capacity is 1024)
	(void)khz;
	if (!cpu || b.busy_cost <= 0)
		throw PowerModelError(fmt::format("{}: needs \"cpu\" and \"busy_cost\"", where));
	return b;
}

} // namespace

PowerModel load_power_model(const std::filesystem::path &file)
{
	const auto name = file.string();
	std::error_code ec;
	const auto size = std::filesystem::file_size(file, ec);
	if (ec)
		throw PowerModelError(fmt::format("{}: cannot read the board power file: {}", name, ec.message()));
	if (size > max_file_bytes)
		throw PowerModelError(fmt::format("{}: {} bytes; a board power file is at most {}", name, size,
						  max_file_bytes));
	std::ifstream in(file);
	std::stringstream text;
	text << in.rdbuf();
	if (!in)
		throw PowerModelError(fmt::format("{}: cannot read the board power file", name));
	return parse_power_model(text.str(), name);
}

PowerModel parse_power_model(std::string_view text, const std::string &name)
{
	rapidjson::Document doc;
	doc.Parse<rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag | rapidjson::kParseIterativeFlag>(
		text.data(), text.size());
	if (doc.HasParseError())
		throw PowerModelError(fmt::format("{}: offset {}: {}", name, doc.GetErrorOffset(),
						  rapidjson::GetParseError_En(doc.GetParseError())));
	if (!doc.IsObject())
		throw PowerModelError(fmt::format("{}: expected an object {{\"source\": ..., \"domains\": [...]}}", name));
	PowerModel model;
	for (const auto &m : doc.GetObject()) {
		const std::string key = m.name.GetString();
		if (key == "source" && m.value.IsString()) {
			model.source = m.value.GetString();
		} else if (key == "compatible" && m.value.IsArray()) {
			for (const auto &c : m.value.GetArray()) {
				if (!c.IsString() || c.GetStringLength() == 0)
					throw PowerModelError(fmt::format("{}: compatible: expected the boards' compatible "
									  "strings",
									  name));
				model.compatible.push_back(c.GetString());
			}
		} else if (key == "bogo_units") {
			model.bogo_units = bogo_units(m.value, fmt::format("{}: bogo_units", name));
		} else if (key == "domains" && m.value.IsArray()) {
			for (rapidjson::SizeType i = 0; i < m.value.Size(); i++)
				model.domains.push_back(domain(m.value[i], fmt::format("{}: domains[{}]", name, i)));
		} else if (key == "package_budget_mw") {
			model.package_budget_mw = milliwatts(m.value, fmt::format("{}: package_budget_mw", name));
			if (*model.package_budget_mw <= 0)
				throw PowerModelError(fmt::format("{}: package_budget_mw: a budget must be above 0 mW",
								  name));
		} else if (key == "smt_speed" && m.value.IsArray() && !m.value.Empty() && m.value.Size() <= 64) {
			for (rapidjson::SizeType i = 0; i < m.value.Size(); i++) {
				const auto &s = m.value[i];
				// the board counts speed in 1/1024ths
				if (!s.IsNumber() || !(s.GetDouble() >= 1.0 / 1024 && s.GetDouble() <= 1))
					throw PowerModelError(fmt::format("{}: smt_speed[{}]: expected a speed from 1/1024 "
									  "(the model's resolution) to 1",
									  name, i));
				model.smt_speed.push_back(s.GetDouble());
			}
		} else if (key == "latencies") {
			model.latencies = hardware_latencies(m.value, fmt::format("{}: latencies", name));
		} else {
			throw PowerModelError(fmt::format("{}: \"{}\": unknown or mistyped (source: a string, compatible: "
							  "an array of strings, bogo_units: an object, domains: an "
							  "array, package_budget_mw: a number, smt_speed: an array of "
							  "1 to 64 speeds, latencies: an object)",
							  name, key));
		}
	}
	return model;
}

std::optional<std::pair<std::string, PowerModel>> shipped_power_model_for(std::span<const std::string> compatible)
{
	for (const auto &c : compatible)
		for (const auto &file : shipped_power_models()) {
			auto model = parse_power_model(file.text, fmt::format("{} (built in)", file.name));
			if (std::ranges::find(model.compatible, c) != model.compatible.end())
				return std::pair{std::string(file.name), std::move(model)};
		}
	return std::nullopt;
}

} // namespace sh::sim
