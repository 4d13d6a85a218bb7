// SPDX-License-Identifier: GPL-2.0
//
// sched-harness bisect --patch FILE... (--expect SUITE | --suite SUITE [--decisions])
//
// Which patch of a series changes the behaviour: the series' prefixes are
// kernel images (kernel build), bisected on a predicate — an expectations
// file that starts failing (check), or a suite whose outcome against the
// unpatched kernel changes (compare: a metric beyond noise, or with
// --decisions any decision of any seed). Each step costs the image of a
// prefix (only the objects its patches change are compiled) and the runs.
#include "harness/cli/cli.h"

#include "dts/tools.h"
#include "harness/cli/runs.h"
#include "sched/image/image.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

// The patches of the files given, in order; a file holding several (an
// mbox series, git format-patch --stdout) is split at its "From " lines.
std::vector<std::filesystem::path> split_series(const std::vector<std::string> &files,
						 const std::filesystem::path &scratch)
{
	std::vector<std::filesystem::path> patches;
	for (const auto &file : files) {
		std::ifstream in(file, std::ios::binary);
		if (!in)
			throw UsageError{fmt::format("--patch {}: cannot read it", file)};
		std::vector<std::string> parts(1);
		std::string line;
		bool blank_before = true;
		while (std::getline(in, line)) {
			if (line.starts_with("From ") && blank_before && !parts.back().empty() &&
			    parts.back().find("\n+++ ") != std::string::npos)
				parts.emplace_back();
			parts.back() += line + "\n";
			blank_before = line.empty();
		}
		if (parts.size() == 1) {
			patches.emplace_back(file);
			continue;
		}
		for (std::size_t i = 0; i < parts.size(); i++) {
			const auto path = scratch / fmt::format("{:04}-{}", patches.size() + 1,
								std::filesystem::path(file).filename().string());
			std::ofstream(path, std::ios::binary) << parts[i];
			patches.push_back(path);
		}
	}
	return patches;
}

} // namespace

int bisect_command(const Context &ctx, const std::vector<std::string> &args)
{
	po::options_description options("bisect options");
	options.add_options()
		("help,h", "show this help")
		("patch", po::value<std::vector<std::string>>()->value_name("FILE")->composing(),
		 "the series, in order: patch files, or an mbox/format-patch --stdout file holding several")
		("expect", po::value<std::string>()->value_name("SUITE"),
		 "bad: the suite's expectations fail with the prefix applied (as 'check')")
		("suite", po::value<std::string>()->value_name("SUITE"),
		 "bad: the suite's outcome changes against the unpatched kernel (as 'compare')")
		("decisions", po::bool_switch(),
		 "with --suite: bad when any decision of any seed differs (fingerprints), not only a metric "
		 "beyond noise")
		("repeat", po::value<unsigned>()->default_value(3)->value_name("N"), "with --suite: seeds per variant")
		("jobs", po::value<unsigned>()->value_name("J"), "runs at once");
	po::options_description hidden;
	po::positional_options_description positional;
	auto parsed = parse_subcommand(
		ctx, args, options, hidden, positional,
		"usage: sched-harness bisect --patch FILE... (--expect SUITE | --suite SUITE [--decisions])\n\n"
		"Finds the first patch of a series after which the behaviour changes: each prefix of the\n"
		"series is a kernel image, and a prefix is bad when the expectations fail (--expect) or\n"
		"the suite's outcome differs from the unpatched kernel's (--suite). Prints the first bad\n"
		"patch; exit 0 when one is found, 1 when the whole series is good.\n"
		"Over git history instead, 'git bisect run' with a script that builds the tree\n"
		"(scripts/build.sh, KERNEL_SRC=...) and runs 'sched-harness check' works the same way.\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	if (!vm.count("patch"))
		throw UsageError{"bisect: give the series (--patch FILE...)"};
	if (vm.count("expect") == vm.count("suite"))
		throw UsageError{"bisect: give one predicate, --expect SUITE or --suite SUITE"};
	const auto scratch = image::cache_dir() / "bisect" / std::to_string(::getpid());
	std::filesystem::create_directories(scratch);
	const auto series = split_series(vm["patch"].as<std::vector<std::string>>(), scratch);
	const auto self = self_command(ctx);
	const std::string jobs = std::to_string(vm.count("jobs") ? vm["jobs"].as<unsigned>() : 0);

	std::map<std::size_t, std::string> ids;	// prefix length -> image
	std::map<std::size_t, std::string> unbuildable;	// prefix length -> why
	// The image of the first n patches; a prefix that does not apply or
	// compile is skipped, as git bisect skips a commit (exit 125).
	struct Unbuildable {
		std::string why;
	};
	auto image_of = [&](std::size_t n) -> std::string {
		if (n == 0)
			return "";
		if (unbuildable.count(n))
			throw Unbuildable{unbuildable[n]};
		if (!ids.count(n)) {
			const std::vector<std::filesystem::path> prefix(series.begin(), series.begin() + static_cast<long>(n));
			try {
				ids[n] = image::build(prefix, ctx.err).manifest.id;
			} catch (const image::BadPatch &e) {
				std::string why = e.what();
				if (const auto nl = why.find('\n'); nl != std::string::npos)
					why.resize(nl);
				unbuildable[n] = why;
				throw Unbuildable{why};
			}
		}
		return ids[n];
	};
	// whether the kernel with the first n patches is bad, and why
	auto bad = [&](std::size_t n) -> std::pair<bool, std::string> {
		const auto id = image_of(n);
		std::vector<std::string> argv = self;
		if (vm.count("expect")) {
			if (!id.empty())
				argv.insert(argv.end(), {"--kernel", id});
			argv.insert(argv.end(), {"check", vm["expect"].as<std::string>()});
			if (jobs != "0")
				argv.insert(argv.end(), {"--jobs", jobs});
			const auto r = dts::run_tool(argv);
			if (r.exit_status != 0 && r.exit_status != 1)
				throw UsageError{fmt::format("check with {} patches: {}", n, r.err)};
			std::string failed;
			std::istringstream lines(r.out);
			for (std::string line; std::getline(lines, line);)
				if (line.starts_with("    not ok "))
					failed += (failed.empty() ? "" : "; ") + line.substr(11);
			return {r.exit_status == 1, failed};
		}
		if (id.empty())
			return {false, ""};	// the unpatched kernel is the reference
		argv.insert(argv.end(), {"compare", "--json", "--suite", vm["suite"].as<std::string>(), "--repeat",
					 std::to_string(vm["repeat"].as<unsigned>()), "--b-kernel", id});
		if (jobs != "0")
			argv.insert(argv.end(), {"--jobs", jobs});
		const auto r = dts::run_tool(argv);
		if (r.exit_status != 0)
			throw UsageError{fmt::format("compare with {} patches: {}", n, r.err)};
		rapidjson::Document doc;
		doc.Parse(r.out.c_str());
		if (doc.HasParseError())
			throw std::runtime_error("bisect: compare printed no JSON");
		std::string changed;
		const unsigned repeat = vm["repeat"].as<unsigned>();
		for (const auto &sc : doc["scenarios"].GetArray()) {
			const std::string name = sc["name"].GetString();
			if (vm["decisions"].as<bool>() && sc["seeds_deciding_alike"].GetUint() != repeat)
				changed += fmt::format("{}{}: decisions differ for {} of {} seeds", changed.empty() ? "" : "; ",
						       name, repeat - sc["seeds_deciding_alike"].GetUint(), repeat);
			for (const auto &m : sc["metrics"].GetArray())
				if (m["verdict"].GetString() == std::string("changed"))
					changed += fmt::format("{}{}: {} {:+.2f}%", changed.empty() ? "" : "; ", name,
							       m["name"].GetString(), m["delta_percent"].GetDouble());
		}
		return {!changed.empty(), changed};
	};

	std::string out = fmt::format("bisect: {} patch{}, bad when {}\n", series.size(), series.size() == 1 ? "" : "es",
				      vm.count("expect") ? fmt::format("the expectations of {} fail", vm["expect"].as<std::string>())
				      : vm["decisions"].as<bool>()
					      ? fmt::format("a decision of {} differs from the unpatched kernel's",
							    vm["suite"].as<std::string>())
					      : fmt::format("a metric of {} changes beyond noise from the unpatched kernel's",
							    vm["suite"].as<std::string>()));
	// a prefix: bad, good, or nullopt when it does not build (skipped)
	auto step = [&](std::size_t n) -> std::optional<std::pair<bool, std::string>> {
		const auto name = n ? series[n - 1].filename().string() : std::string("(unpatched)");
		try {
			const auto [is_bad, why] = bad(n);
			out += fmt::format("  {:>3}/{} {:<40} {}{}\n", n, series.size(), name, is_bad ? "bad" : "good",
					   why.empty() ? "" : " — " + why);
			return std::pair{is_bad, why};
		} catch (const Unbuildable &u) {
			out += fmt::format("  {:>3}/{} {:<40} skipped — it does not build: {}\n", n, series.size(), name,
					   u.why);
			return std::nullopt;
		}
	};
	if (vm.count("expect") && step(0)->first) {
		ctx.out << out << "the unpatched kernel is bad already: nothing to bisect\n";
		return 1;
	}
	const auto whole = step(series.size());
	if (!whole) {
		ctx.out << out;
		throw UsageError{fmt::format("the whole series does not build: {}", unbuildable[series.size()])};
	}
	const auto [whole_bad, whole_why] = *whole;
	if (!whole_bad) {
		ctx.out << out << "the whole series is good: no patch changes the behaviour\n";
		std::filesystem::remove_all(scratch);
		return 1;
	}
	std::size_t good = 0, first_bad = series.size();
	std::string why = whole_why;
	while (first_bad - good > 1) {
		// the middle prefix, or the nearest one that builds
		const std::size_t mid = good + (first_bad - good) / 2;
		std::vector<std::size_t> order;
		for (std::size_t n = mid; n < first_bad; n++)
			order.push_back(n);
		for (std::size_t n = mid; n-- > good + 1;)
			order.push_back(n);
		std::optional<std::pair<std::size_t, std::pair<bool, std::string>>> tested;
		for (const auto n : order)
			if (auto result = step(n); result) {
				tested.emplace(n, *result);
				break;
			}
		if (!tested) {
			out += fmt::format("the first bad patch is one of {} to {} ({} of {}): the prefixes between "
					   "do not build\n",
					   series[good].filename().string(), series[first_bad - 1].filename().string(),
					   good + 1, first_bad);
			ctx.out << out;
			std::filesystem::remove_all(scratch);
			return exit_ok;
		}
		if (tested->second.first) {
			first_bad = tested->first;
			why = tested->second.second;
		} else {
			good = tested->first;
		}
	}
	out += fmt::format("first bad patch: {} ({} of {}), image {}: {}\n", series[first_bad - 1].filename().string(),
			   first_bad, series.size(), ids[first_bad], why);
	ctx.out << out;
	std::filesystem::remove_all(scratch);
	return exit_ok;
}

} // namespace sh::cli
