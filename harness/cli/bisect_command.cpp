// SPDX-License-Identifier: GPL-2.0
//
// sched-harness bisect (--patch FILE... | --tree GITDIR --good REF --bad REF)
//                      (--expect SUITE | --suite SUITE [--decisions])
//
// Which patch of a series, or which commit of a git history, changes the
// behaviour: the series' prefixes (the commits) are kernel images (kernel
// build), bisected on a predicate — an expectations file that starts
// failing (check), or a suite whose outcome against the unpatched kernel
// (the good commit's) changes (compare: a metric beyond noise, or with
// --decisions any decision of any seed). Each step costs the image of a
// prefix or commit (only the objects whose input differs from the build's
// are compiled) and the runs.
#include "harness/cli/cli.h"

#include "support/tools.h"
#include "harness/cli/experiment_options.h"
#include "harness/experiment/metrics.h"
#include "harness/experiment/runner.h"
#include "harness/report/tables.h"
#include "harness/image/image.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <fstream>
#include <functional>
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
		("tree", po::value<std::string>()->value_name("GITDIR"),
		 "instead of a series: the commits of this git repository's kernel tree from --good to --bad "
		 "(first-parent history; the repository's checkout is not touched)")
		("good", po::value<std::string>()->value_name("REF"), "with --tree: a commit that behaves as expected")
		("bad", po::value<std::string>()->value_name("REF"), "with --tree: a later commit that does not")
		("expect", po::value<std::string>()->value_name("SUITE"),
		 "bad: the suite's expectations fail with the prefix applied (as 'check')")
		("suite", po::value<std::string>()->value_name("SUITE"),
		 "bad: the suite's outcome changes against the unpatched kernel (as 'compare')")
		("decisions", po::bool_switch(),
		 "with --suite: bad when any decision of any seed differs (fingerprints), not only a metric "
		 "beyond noise")
		("repeat", po::value<Unsigned>()->default_value(Unsigned{3}, "3")->value_name("N"), "with --suite: seeds per variant")
		("jobs", po::value<Unsigned>()->value_name("J"), "runs at once, each its own process (default: the machine's cores)");
	po::options_description hidden;
	po::positional_options_description positional;
	auto parsed = parse_subcommand(
		ctx, args, options, hidden, positional,
		"usage: sched-harness bisect (--patch FILE... | --tree GITDIR --good REF --bad REF)\n"
		"                            (--expect SUITE | --suite SUITE [--decisions])\n\n"
		"Finds the first patch of a series, or the first commit of a git history, after which\n"
		"the behaviour changes: each prefix of the series (each commit) is a kernel image, and it\n"
		"is bad when the expectations fail (--expect) or the suite's outcome differs from the\n"
		"unpatched kernel's (the good commit's) (--suite). A prefix or commit that does not build\n"
		"is skipped. Prints the first bad patch or commit; exit 0 when one is found, 1 when all\n"
		"are good.\n"
		"'git bisect run sched-harness --kernel . check SUITE' in a kernel checkout works too\n"
		"(exit 0 good, 1 bad, 125 when the commit does not build).\n");
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	const unsigned jobs = jobs_option(vm);
	if (vm.count("patch") == vm.count("tree"))
		throw UsageError{"bisect: give the series (--patch FILE...) or a git history (--tree GITDIR --good REF "
				 "--bad REF)"};
	if (vm.count("tree") && (!vm.count("good") || !vm.count("bad")))
		throw UsageError{"bisect --tree: give --good REF and --bad REF"};
	if (vm.count("expect") == vm.count("suite"))
		throw UsageError{"bisect: give one predicate, --expect SUITE or --suite SUITE"};
	const auto scratch = image::cache_dir() / "bisect" / std::to_string(::getpid());
	std::filesystem::create_directories(scratch);
	struct RemoveScratch {
		std::filesystem::path dir;
		~RemoveScratch() { std::error_code ec; std::filesystem::remove_all(dir, ec); }
	} remove_scratch{scratch};

	// The steps: names[0] the reference (the unpatched kernel, the good
	// commit), names[n] the n-th patch or commit; recipe(n) its kernel.
	std::vector<std::string> names;
	std::function<image::Recipe(std::size_t)> recipe;
	std::vector<std::filesystem::path> series;
	std::vector<std::string> commits;
	const bool history = vm.count("tree") > 0;
	if (history) {
		const std::filesystem::path git = vm["tree"].as<std::string>();
		const auto good = vm["good"].as<std::string>(), bad = vm["bad"].as<std::string>();
		try {
			commits.push_back(image::git_tree(git, good, scratch / "trees").second);
			image::git_tree(git, bad, scratch / "trees");	// names a bad ref now, not after a build
		} catch (const image::BadPatch &e) {
			throw UsageError{e.what()};
		}
		if (support::run_tool(std::vector<std::string>{"git", "-C", git.string(), "merge-base", "--is-ancestor", good,
							   bad})
			    .exit_status != 0)
			throw UsageError{fmt::format("bisect: {} is not an ancestor of {} in {}", good, bad, git.string())};
		const auto log = support::run_tool(std::vector<std::string>{"git", "-C", git.string(), "log", "--first-parent",
									"--reverse", "--format=%H %s", good + ".." + bad});
		if (log.exit_status != 0)
			throw UsageError{fmt::format("git log {}..{} in {}: {}", good, bad, git.string(), log.err)};
		names.push_back(fmt::format("{} (good)", commits[0].substr(0, 12)));
		std::istringstream lines(log.out);
		for (std::string line; std::getline(lines, line);) {
			commits.push_back(line.substr(0, line.find(' ')));
			names.push_back(line.substr(0, 12) + line.substr(std::min(line.size(), std::size_t{40})));
		}
		recipe = [&, git](std::size_t n) {
			return image::Recipe{image::git_tree(git, commits[n], scratch / "trees").first, {}, {}};
		};
	} else {
		series = split_series(vm["patch"].as<std::vector<std::string>>(), scratch);
		names.push_back("(unpatched)");
		for (const auto &p : series)
			names.push_back(p.filename().string());
		recipe = [&](std::size_t n) {
			return image::Recipe{{}, {series.begin(), series.begin() + static_cast<long>(n)}, {}};
		};
	}
	const std::size_t steps = names.size() - 1;
	if (steps == 0)
		throw UsageError{"bisect: nothing between good and bad"};
	const auto self = self_command(ctx);
	const std::string jobs_argument = vm.count("jobs") ? std::to_string(jobs) : "";

	std::map<std::size_t, std::string> ids;	// prefix length -> image
	std::map<std::size_t, std::string> unbuildable;	// prefix length -> why
	// The image of the first n patches; a prefix that does not apply or
	// compile is skipped, as git bisect skips a commit (exit 125).
	struct Unbuildable {
		std::string why;
	};
	auto image_of = [&](std::size_t n) -> std::string {
		if (n == 0 && !history)
			return "";	// the build's own kernel
		if (unbuildable.count(n))
			throw Unbuildable{unbuildable[n]};
		if (!ids.count(n)) {
			try {
				// the flavours the suite's boards need are built by its runs
				ids[n] = image::build(recipe(n), ctx.err, {}).manifest.id;
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
	// A run of the image that found it does not build (exit 125: a flavour
	// a board needed did not compile) makes the prefix unbuildable.
	auto skip_if_unbuildable = [&](std::size_t n, const support::ToolResult &r) {
		if (r.exit_status != exit_unbuildable)
			return;
		constexpr std::string_view marker = "does not build: ";
		std::string why = r.err;
		if (const auto at = why.rfind(marker); at != std::string::npos)
			why.erase(0, at + marker.size());
		if (const auto nl = why.find('\n'); nl != std::string::npos)
			why.resize(nl);
		// compare runs both kernels: the good commit's image may be the one
		// lacking a flavour that its own step (never run alone) did not need
		if (n != 0 && ids.count(0) && !ids[0].empty() &&
		    r.err.find(fmt::format("--kernel {} does not build: ", ids[0])) != std::string::npos)
			throw UsageError{fmt::format("the good commit does not build: {}", why)};
		unbuildable[n] = why;
		throw Unbuildable{why};
	};
	// whether the kernel with the first n patches is bad, and why
	auto bad = [&](std::size_t n) -> std::pair<bool, std::string> {
		const auto id = image_of(n);
		std::vector<std::string> argv = self;
		if (vm.count("expect")) {
			if (!id.empty())
				argv.insert(argv.end(), {"--kernel", id});
			argv.insert(argv.end(), {"check", vm["expect"].as<std::string>()});
			if (!jobs_argument.empty())
				argv.insert(argv.end(), {"--jobs", jobs_argument});
			const auto r = support::run_tool(argv);
			skip_if_unbuildable(n, r);
			if (r.exit_status != 0 && r.exit_status != 1)
				throw UsageError{fmt::format("check with {} patches: {}", n, r.err)};
			std::string failed;
			std::istringstream lines(r.out);
			for (std::string line; std::getline(lines, line);)
				if (line.starts_with("    not ok "))
					failed += (failed.empty() ? "" : "; ") + line.substr(11);
			return {r.exit_status == 1, failed};
		}
		if (n == 0)
			return {false, ""};	// the reference
		argv.insert(argv.end(), {"compare", "--json", "--suite", vm["suite"].as<std::string>(), "--repeat",
					 std::to_string(bounded_option(vm, "repeat", 100000)), "--b-kernel", id});
		if (const auto reference = image_of(0); !reference.empty())
			argv.insert(argv.end(), {"--a-kernel", reference});
		if (!jobs_argument.empty())
			argv.insert(argv.end(), {"--jobs", jobs_argument});
		const auto r = support::run_tool(argv);
		skip_if_unbuildable(n, r);
		if (r.exit_status != 0)
			throw UsageError{fmt::format("compare with {} patches: {}", n, r.err)};
		rapidjson::Document doc;
		doc.Parse(r.out.c_str());
		if (doc.HasParseError())
			throw std::runtime_error("bisect: compare printed no JSON");
		std::string changed;
		const unsigned repeat = bounded_option(vm, "repeat", 100000);
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

	const std::string unit = history ? "commit" : "patch";
	const std::string reference = history ? "the good commit's" : "the unpatched kernel's";
	std::string out = fmt::format(
		"bisect: {} {}{}, bad when {}\n", steps, unit, steps == 1 ? "" : history ? "s" : "es",
		vm.count("expect") ? fmt::format("the expectations of {} fail", vm["expect"].as<std::string>())
		: vm["decisions"].as<bool>()
			? fmt::format("a decision of {} differs from {}", vm["suite"].as<std::string>(), reference)
			: fmt::format("a metric of {} changes beyond noise from {}", vm["suite"].as<std::string>(), reference));
	// a prefix: bad, good, or nullopt when it does not build (skipped)
	auto step = [&](std::size_t n) -> std::optional<std::pair<bool, std::string>> {
		try {
			const auto [is_bad, why] = bad(n);
			out += fmt::format("  {:>3}/{} {:<40} {}{}\n", n, steps, names[n], is_bad ? "bad" : "good",
					   why.empty() ? "" : " — " + why);
			return std::pair{is_bad, why};
		} catch (const Unbuildable &u) {
			out += fmt::format("  {:>3}/{} {:<40} skipped — it does not build: {}\n", n, steps, names[n], u.why);
			return std::nullopt;
		}
	};
	if (history || vm.count("expect")) {
		const auto first = step(0);
		if (!first) {
			ctx.out << out;
			throw UsageError{fmt::format("the good commit does not build: {}", unbuildable[0])};
		}
		if (first->first) {
			ctx.out << out << fmt::format("{} is bad already: nothing to bisect\n",
						      history ? "the good commit" : "the unpatched kernel");
			return 1;
		}
	}
	const auto whole = step(steps);
	if (!whole) {
		ctx.out << out;
		throw UsageError{fmt::format("the {} does not build: {}", history ? "bad commit" : "whole series",
					     unbuildable[steps])};
	}
	const auto [whole_bad, whole_why] = *whole;
	if (!whole_bad) {
		ctx.out << out << fmt::format("the whole {} is good: no {} changes the behaviour\n",
					      history ? "history" : "series", unit);
		return 1;
	}
	std::size_t good = 0, first_bad = steps;
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
			out += fmt::format("the first bad {} is one of {} to {} ({} of {}): those between do not build\n",
					   unit, names[good + 1], names[first_bad], good + 1, first_bad);
			ctx.out << out;
			return exit_ok;
		}
		if (tested->second.first) {
			first_bad = tested->first;
			why = tested->second.second;
		} else {
			good = tested->first;
		}
	}
	out += fmt::format("first bad {}: {} ({} of {}), image {}: {}\n", unit, names[first_bad], first_bad, steps,
			   ids[first_bad], why);
	ctx.out << out;
	return exit_ok;
}

} // namespace sh::cli
