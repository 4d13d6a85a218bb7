// SPDX-License-Identifier: GPL-2.0
#include "harness/sim/power_model.h"

#include "harness/workload/workload.h"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

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
	rapidjson::Document doc;
	const auto s = text.str();
	doc.Parse<rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag | rapidjson::kParseIterativeFlag>(
		s.c_str(), s.size());
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
		} else if (key == "domains" && m.value.IsArray()) {
			for (rapidjson::SizeType i = 0; i < m.value.Size(); i++) {
				const auto &d = m.value[i];
				const auto where = fmt::format("{}: domains[{}]", name, i);
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
						if (f.value.IsNumber())
							dom.static_all_mw = milliwatts(f.value, at);
						else
							dom.static_mw = per_opp(f.value, at);
					} else if (field == "idle_mw" && f.value.IsObject()) {
						for (const auto &s : f.value.GetObject())
							dom.idle_mw[s.name.GetString()] =
								milliwatts(s.value, fmt::format("{}.{}", at, s.name.GetString()));
					} else if (field == "cluster_off" && f.value.IsArray()) {
						for (const auto &s : f.value.GetArray()) {
							if (!s.IsString())
								throw PowerModelError(fmt::format("{}: expected idle state names", at));
							dom.cluster_off.push_back(s.GetString());
						}
					} else {
						throw PowerModelError(fmt::format(
							"{}: unknown or mistyped (cpus: \"0-3\", dynamic_mw and static_mw: "
							"{{\"kHz\": mW}}, static_mw also a number, idle_mw: {{\"state\": mW}}, "
							"cluster_off: [\"state\"])",
							at));
					}
				}
				if (dom.cpus.empty())
					throw PowerModelError(fmt::format("{}: needs \"cpus\"", where));
				model.domains.push_back(std::move(dom));
			}
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
		} else {
			throw PowerModelError(fmt::format("{}: \"{}\": unknown or mistyped (source: a string, domains: "
							  "an array, package_budget_mw: a number, smt_speed: an array "
							  "of 1 to 64 speeds)",
							  name, key));
		}
	}
	return model;
}

} // namespace sh::sim
