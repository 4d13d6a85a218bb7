// SPDX-License-Identifier: GPL-2.0
#include "harness/experiment/plan.h"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

namespace sh::experiment {

namespace {

void write_strings(rapidjson::Writer<rapidjson::StringBuffer> &w, const std::vector<std::string> &strings)
{
	w.StartArray();
	for (const auto &s : strings)
		w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
	w.EndArray();
}

std::vector<std::string> read_strings(const rapidjson::Value &object, const char *key, std::size_t line)
{
	const auto member = object.FindMember(key);
	if (member == object.MemberEnd() || !member->value.IsArray())
		throw Error(fmt::format("plan line {}: \"{}\" is not an array of strings", line, key));
	std::vector<std::string> strings;
	for (const auto &v : member->value.GetArray()) {
		if (!v.IsString())
			throw Error(fmt::format("plan line {}: \"{}\" is not an array of strings", line, key));
		strings.emplace_back(v.GetString(), v.GetStringLength());
	}
	return strings;
}

} // namespace

std::string to_json_lines(std::span<const Run> plan)
{
	std::string text;
	for (const auto &run : plan) {
		rapidjson::StringBuffer buf;
		rapidjson::Writer<rapidjson::StringBuffer> w(buf);
		w.StartObject();
		w.Key("label"), w.String(run.label.c_str(), static_cast<rapidjson::SizeType>(run.label.size()));
		w.Key("args"), write_strings(w, run.args);
		w.Key("global"), write_strings(w, run.global);
		w.EndObject();
		text += buf.GetString();
		text += '\n';
	}
	return text;
}

Plan from_json_lines(std::string_view text)
{
	Plan plan;
	std::size_t number = 0;
	for (std::size_t start = 0; start < text.size();) {
		auto end = text.find('\n', start);
		if (end == std::string_view::npos)
			end = text.size();
		const std::string line(text.substr(start, end - start));
		start = end + 1;
		number++;
		if (line.find_first_not_of(" \t\r") == std::string::npos)
			continue;
		rapidjson::Document doc;
		doc.Parse(line.c_str());
		if (doc.HasParseError() || !doc.IsObject())
			throw Error(fmt::format("plan line {}: not a JSON object", number));
		const auto label = doc.FindMember("label");
		if (label == doc.MemberEnd() || !label->value.IsString())
			throw Error(fmt::format("plan line {}: \"label\" is not a string", number));
		plan.push_back({label->value.GetString(), read_strings(doc, "args", number),
				read_strings(doc, "global", number)});
	}
	return plan;
}

void append_run_args(std::vector<std::string> &args, const std::vector<std::string> &more)
{
	for (std::size_t i = 0; i < more.size(); i++) {
		if (more[i] == "--cmdline" && i + 1 < more.size()) {
			auto it = std::find(args.begin(), args.end(), "--cmdline");
			if (it != args.end() && it + 1 != args.end()) {
				*(it + 1) += " " + more[++i];
				continue;
			}
		}
		args.push_back(more[i]);
	}
}

std::string board_of(const std::vector<std::string> &args)
{
	std::string board = default_board;
	for (std::size_t i = 0; i + 1 < args.size(); i++)
		if (args[i] == "--board")
			board = args[i + 1];
	return board;
}

std::string kernel_ran(const rapidjson::Value &report)
{
	const std::string version = report["kernel"].GetString();
	if (report.HasMember("kernel_image") && report["kernel_image"].IsString())
		return fmt::format("Linux {}, {}", version, report["kernel_image"].GetString());
	return fmt::format("Linux {} (the build's own)", version);
}

} // namespace sh::experiment
