// SPDX-License-Identifier: GPL-2.0
#include "harness/experiment/bisect.h"
#include "harness/image/patch_file.h"
#include "harness/suite/suite.h"

#include "support/tools.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string_view>

namespace sh::experiment {

namespace {

// `sched-harness check` and `compare` say it: this status and "--kernel X
// does not build: " on stderr when an image lacked a flavour that did not
// compile.
constexpr int exit_unbuildable = 125;

// The first line of a message (a build's error goes on with its log).
std::string first_line(std::string text)
{
	if (const auto nl = text.find('\n'); nl != std::string::npos)
		text.resize(nl);
	return text;
}

// A step whose image does not build (thrown within the search only).
struct Unbuildable {
	std::string why;
};

// One bisection's state: the images built and the steps found unbuildable,
// by step.
class Bisection {
public:
	Bisection(const Host &host, const Steps &steps, const Predicate &predicate,
		  const std::function<void(const StepTested &)> &tested)
		: host_(host), steps_(steps), predicate_(predicate), tested_(tested)
	{
	}

	Outcome run();

private:
	StepTested test(std::size_t n);
	std::optional<StepTested> first_buildable_between(std::size_t good, std::size_t bad);
	Verdict judge(std::size_t n);
	Verdict checked(std::size_t n, const std::string &image);
	Verdict compared(std::size_t n, const std::string &image);
	std::string image_of(std::size_t n);
	void skip_if_unbuildable(std::size_t n, const support::ToolResult &r);
	std::vector<std::string> command(std::vector<std::string> args, const std::string &step) const;

	const Host &host_;
	const Steps &steps_;
	const Predicate &predicate_;
	const std::function<void(const StepTested &)> &tested_;
	std::map<std::size_t, std::string> images_;
	std::map<std::size_t, std::string> unbuildable_;	// why
};

Outcome Bisection::run()
{
	using Kind = Outcome::Kind;
	const std::size_t last = steps_.count();
	// a series judged by a comparison has its reference by definition good
	if (steps_.history || !predicate_.expect.empty()) {
		const auto reference = test(0);
		if (!reference.verdict)
			return {Kind::reference_unbuildable, 0, 0, reference.unbuildable, {}};
		if (reference.verdict->bad)
			return {Kind::reference_bad, 0, 0, {}, {}};
	}
	const auto whole = test(last);
	if (!whole.verdict)
		return {Kind::whole_unbuildable, 0, last, whole.unbuildable, {}};
	if (!whole.verdict->bad)
		return {Kind::whole_good, 0, 0, {}, {}};
	std::size_t good = 0, first_bad = last;
	std::string why = whole.verdict->why;
	while (first_bad - good > 1) {
		const auto tested = first_buildable_between(good, first_bad);
		if (!tested)
			return {Kind::untestable, good, first_bad, {}, {}};
		if (tested->verdict->bad) {
			first_bad = tested->n;
			why = tested->verdict->why;
		} else {
			good = tested->n;
		}
	}
	return {Kind::found, good, first_bad, why, images_[first_bad]};
}

// The middle step between good and bad, or the nearest one that builds:
// upwards first, then downwards.
std::optional<StepTested> Bisection::first_buildable_between(std::size_t good, std::size_t bad)
{
	const std::size_t mid = good + (bad - good) / 2;
	std::vector<std::size_t> order;
	for (std::size_t n = mid; n < bad; n++)
		order.push_back(n);
	for (std::size_t n = mid; n-- > good + 1;)
		order.push_back(n);
	for (const auto n : order)
		if (auto result = test(n); result.verdict)
			return result;
	return std::nullopt;
}

StepTested Bisection::test(std::size_t n)
{
	StepTested result{n, std::nullopt, {}};
	try {
		result.verdict = judge(n);
	} catch (const Unbuildable &u) {
		result.unbuildable = u.why;
	}
	tested_(result);
	return result;
}

Verdict Bisection::judge(std::size_t n)
{
	const auto image = image_of(n);
	if (!predicate_.expect.empty())
		return checked(n, image);
	if (n == 0)
		return {false, ""};	// the reference
	return compared(n, image);
}

// The image of step n; a step that does not apply or compile throws
// Unbuildable, the next time too.
std::string Bisection::image_of(std::size_t n)
{
	if (n == 0 && !steps_.history)
		return "";	// the build's own kernel
	if (unbuildable_.count(n))
		throw Unbuildable{unbuildable_[n]};
	if (!images_.count(n)) {
		try {
			// the flavours the suite's boards need are built by its runs
			images_[n] = steps_.kernel ? steps_.kernel(n) : image::build(steps_.recipe(n), host_.err, {}).manifest.id;
		} catch (const image::BadPatch &e) {
			unbuildable_[n] = first_line(e.what());
			throw Unbuildable{unbuildable_[n]};
		}
	}
	return images_[n];
}

// A run of the image that found it does not build (a flavour a board
// needed did not compile) makes the step unbuildable.
void Bisection::skip_if_unbuildable(std::size_t n, const support::ToolResult &r)
{
	if (r.exit_status != exit_unbuildable)
		return;
	constexpr std::string_view marker = "does not build: ";
	std::string why = r.err;
	if (const auto at = why.rfind(marker); at != std::string::npos)
		why.erase(0, at + marker.size());
	why = first_line(why);
	// compare runs both kernels: the good commit's image may be the one
	// lacking a flavour that its own step (never run alone) did not need
	if (n != 0 && images_.count(0) && !images_[0].empty() &&
	    r.err.find(fmt::format("--kernel {} does not build: ", images_[0])) != std::string::npos)
		throw BisectError(fmt::format("the good commit does not build: {}", why));
	unbuildable_[n] = why;
	throw Unbuildable{why};
}

// This program with `args`, then --jobs when the predicate has it, and
// the engine of step `step`.
std::vector<std::string> Bisection::command(std::vector<std::string> args, const std::string &step) const
{
	std::vector<std::string> argv = host_.self;
	argv.insert(argv.end(), args.begin(), args.end());
	if (predicate_.jobs)
		argv.insert(argv.end(), {"--jobs", std::to_string(*predicate_.jobs)});
	if (predicate_.engine) {
		const auto engine = predicate_.engine(step);
		argv.insert(argv.end(), engine.begin(), engine.end());
	}
	return argv;
}

// Bad when the expectations fail; why: each assertion that failed, with its
// scenario and what was measured (check's KTAP: the subtest, the case's
// diagnostics, its "not ok" line).
Verdict Bisection::checked(std::size_t n, const std::string &image)
{
	std::vector<std::string> args;
	if (!image.empty())	// none: the build's own kernel
		args = {"--kernel", image};
	args.insert(args.end(), {"check", predicate_.expect});
	const auto r = support::run_tool(command(std::move(args), fmt::format("check-{}", n)));
	skip_if_unbuildable(n, r);
	if (r.exit_status != 0 && r.exit_status != 1)
		throw BisectError(fmt::format("check with {} patches: {}", n, r.err));
	std::string failed, scenario;
	std::vector<std::string> measured;
	std::istringstream lines(r.out);
	for (std::string line; std::getline(lines, line);) {
		if (line.starts_with("    # Subtest: ")) {
			scenario = line.substr(15);
		} else if (line.starts_with("    # ")) {
			measured.push_back(line.substr(6));
		} else if (line.starts_with("    not ok ")) {
			// "not ok 2 energy_j <= 0.05": the expectation after the case's number
			auto expectation = line.substr(11);
			expectation.erase(0, expectation.find(' ') + 1);
			failed += fmt::format("{}{}: {} ({})", failed.empty() ? "" : "; ", scenario, expectation,
					      fmt::join(measured, ", "));
			measured.clear();
		} else if (line.starts_with("    ok ")) {
			measured.clear();
		}
	}
	return {r.exit_status == 1, failed};
}

// Bad when the suite's outcome differs from the reference's; why: the
// scenarios' decisions and metrics that changed.
Verdict Bisection::compared(std::size_t n, const std::string &image)
{
	const unsigned repeat = predicate_.repeat();
	// a release of the build's own series is the build's own kernel, by name
	std::vector<std::string> args{"compare", "--json", "--suite", predicate_.suite, "--repeat",
				      std::to_string(repeat), "--b-kernel", image.empty() ? image::own_series() : image};
	if (const auto reference = image_of(0); !reference.empty())
		args.insert(args.end(), {"--a-kernel", reference});
	const auto r = support::run_tool(command(std::move(args), fmt::format("compare-{}", n)));
	skip_if_unbuildable(n, r);
	if (r.exit_status != 0)
		throw BisectError(fmt::format("compare with {} patches: {}", n, r.err));
	rapidjson::Document doc;
	doc.Parse(r.out.c_str());
	if (doc.HasParseError())
		throw std::runtime_error("bisect: compare printed no JSON");
	std::string changed;
	for (const auto &sc : doc["scenarios"].GetArray()) {
		const std::string name = sc["name"].GetString();
		if (predicate_.decisions && sc["seeds_deciding_alike"].GetUint() != repeat)
			changed += fmt::format("{}{}: decisions differ for {} of {} seeds", changed.empty() ? "" : "; ",
					       name, repeat - sc["seeds_deciding_alike"].GetUint(), repeat);
		for (const auto &m : sc["metrics"].GetArray())
			if (m["verdict"].GetString() == std::string("changed"))
				changed += fmt::format("{}{}: {} {}", changed.empty() ? "" : "; ", name, m["name"].GetString(),
						       m["delta_percent"].IsNull()
							       ? fmt::format("{:+} from 0", m["delta"].GetDouble())
							       : fmt::format("{:+.2f}%", m["delta_percent"].GetDouble()));
	}
	return {!changed.empty(), changed};
}

// A file's patches: it is split at a "From " line after a blank one once
// the part before holds a diff.
std::vector<std::string> patches_in(std::istream &in)
{
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
	return parts;
}

} // namespace

Steps patch_series(const std::vector<std::string> &files, const std::filesystem::path &scratch)
{
	std::vector<std::filesystem::path> patches;
	for (const auto &file : files) {
		std::ifstream in(file, std::ios::binary);
		if (!in)
			throw BisectError(fmt::format("--patch {}: cannot read it", file));
		const auto parts = patches_in(in);
		if (parts.size() == 1) {
			patches.emplace_back(file);
			continue;
		}
		for (const auto &part : parts) {
			const auto path = scratch / fmt::format("{:04}-{}", patches.size() + 1,
								std::filesystem::path(file).filename().string());
			std::ofstream(path, std::ios::binary) << part;
			patches.push_back(path);
		}
	}
	Steps steps{false, false, {"(unpatched)"}, {}, {}};
	for (const auto &p : patches)
		steps.names.push_back(image::patch_subject(p).value_or(p.filename().string()));
	steps.recipe = [patches](std::size_t n) {
		return image::Recipe{{}, {patches.begin(), patches.begin() + static_cast<long>(n)}, {}};
	};
	return steps;
}

Steps git_history(const std::filesystem::path &git, const std::string &good, const std::string &bad,
		  const std::filesystem::path &scratch)
{
	std::vector<std::string> commits;
	try {
		commits.push_back(image::git_tree(git, good, scratch / "trees").second);
		image::git_tree(git, bad, scratch / "trees");	// names a bad ref now, not after a build
	} catch (const image::BadPatch &e) {
		throw BisectError(e.what());
	}
	if (support::run_tool(std::vector<std::string>{"git", "-C", git.string(), "merge-base", "--is-ancestor", good,
							   bad})
		    .exit_status != 0)
		throw BisectError(fmt::format("bisect: {} is not an ancestor of {} in {}", good, bad, git.string()));
	const auto log = support::run_tool(std::vector<std::string>{"git", "-C", git.string(), "log", "--first-parent",
								"--reverse", "--format=%H %s", good + ".." + bad});
	if (log.exit_status != 0)
		throw BisectError(fmt::format("git log {}..{} in {}: {}", good, bad, git.string(), log.err));
	Steps steps{true, false, {fmt::format("{} (good)", commits[0].substr(0, 12))}, {}, {}};
	std::istringstream lines(log.out);
	for (std::string line; std::getline(lines, line);) {
		commits.push_back(line.substr(0, line.find(' ')));
		steps.names.push_back(line.substr(0, 12) + line.substr(std::min(line.size(), std::size_t{40})));
	}
	steps.recipe = [git, commits, trees = scratch / "trees"](std::size_t n) {
		return image::Recipe{image::git_tree(git, commits[n], trees).first, {}, {}};
	};
	return steps;
}

Outcome bisect(const Host &host, const Steps &steps, const Predicate &predicate,
	       const std::function<void(const StepTested &)> &tested)
{
	return Bisection(host, steps, predicate, tested).run();
}

namespace {

// MAJOR.MINOR as numbers, for release order (6.12 after 6.9).
std::pair<unsigned, unsigned> series_number(const std::string &series)
{
	const auto dot = series.find('.');
	return {static_cast<unsigned>(std::stoul(series.substr(0, dot))),
		static_cast<unsigned>(std::stoul(series.substr(dot + 1)))};
}

} // namespace

Steps releases(const std::vector<std::string> &series, std::ostream &log)
{
	if (series.size() < 2)
		throw BisectError("--trees: at least two releases, oldest first (6.1,6.12,7.3)");
	for (std::size_t i = 0; i < series.size(); i++) {
		if (!image::is_series_name(series[i]))
			throw BisectError(fmt::format("--trees: \"{}\" is not a kernel series (MAJOR.MINOR: 6.1, 6.12, 7.3)",
						      series[i]));
		if (i > 0 && series_number(series[i]) <= series_number(series[i - 1]))
			throw BisectError(fmt::format("--trees: {} after {}: give each release once, oldest first",
						      series[i], series[i - 1]));
	}
	// what --kernel names for each release, or why it does not build
	struct Release {
		std::string kernel, unbuildable;
	};
	std::vector<Release> resolved;
	Steps steps{true, true, {}, {}, {}};
	for (const auto &s : series) {
		if (image::names_own_kernel(s)) {
			steps.names.push_back(fmt::format("Linux {} (the build's own)", image::own_version()));
			resolved.push_back({"", ""});
			continue;
		}
		try {
			const auto image = image::series_image(s, log, {});
			steps.names.push_back(fmt::format("Linux {} ({})", image.manifest.version, image.manifest.package));
			resolved.push_back({image.dir.string(), ""});
		} catch (const image::BadPatch &e) {
			steps.names.push_back(fmt::format("Linux {}", s));
			resolved.push_back({"", first_line(e.what())});
		} catch (const std::invalid_argument &e) {
			throw BisectError(fmt::format("--trees {}: {}", s, e.what()));
		}
	}
	steps.kernel = [resolved](std::size_t n) {
		if (!resolved[n].unbuildable.empty())
			throw image::BadPatch(resolved[n].unbuildable);
		return resolved[n].kernel;
	};
	return steps;
}

namespace {

// The functions a run's kernel profile names (`run --kernel-profile=N`:
// "  BLOCKS  SHARE%  FUNCTION" lines), all of those that ran.
std::set<std::string> profiled_functions(const std::string &report)
{
	static const std::regex line(R"(^\s+[0-9]+\s+[0-9.]+%\s+(\S+)\s*$)");
	std::set<std::string> functions;
	std::istringstream lines(report);
	bool in_profile = false;
	for (std::string text; std::getline(lines, text);) {
		if (text.find("functions that ran most blocks") != std::string::npos) {
			in_profile = true;
			continue;
		}
		std::smatch m;
		if (in_profile && std::regex_match(text, m, line))
			functions.insert(m[1].str());
		else if (in_profile)
			in_profile = false;
	}
	return functions;
}

// The compiled files of step n's kernel: the build's own, or its image's.
image::CompiledKernel compiled_of(const Steps &steps, std::size_t n)
{
	const auto kernel = steps.kernel(n);
	if (kernel.empty())
		return image::compiled_kernel(std::nullopt);
	return image::compiled_kernel(image::read_manifest(kernel));
}

} // namespace

ReleaseInterval release_interval(const Host &host, const Steps &steps, const Predicate &predicate, std::size_t good,
				 std::size_t bad)
{
	if (!steps.releases)
		throw std::logic_error("release_interval() of steps that are not releases");
	ReleaseInterval interval;
	try {
		interval.differences = image::compiled_differences(compiled_of(steps, good), compiled_of(steps, bad));
	} catch (const std::invalid_argument &e) {
		throw BisectError(e.what());
	}
	// the scenarios the predicate ran, each once more on both releases
	// with every function it ran profiled
	suite::Suite suite;
	try {
		suite = suite::load(predicate.expect.empty() ? predicate.suite : predicate.expect);
	} catch (const std::exception &e) {
		interval.not_profiled = fmt::format("the suite does not load here: {}", e.what());
		return interval;
	}
	constexpr std::size_t most_scenarios = 12;
	for (const auto &scenario : suite.scenarios) {
		if (!predicate.expect.empty() && scenario.expect.empty())
			continue;	// check runs only the scenarios with expectations
		if (interval.scenarios_profiled == most_scenarios)
			break;
		bool profiled = false;
		for (const auto n : {good, bad}) {
			std::vector<std::string> argv = host.self;
			if (const auto kernel = steps.kernel(n); !kernel.empty())
				argv.insert(argv.end(), {"--kernel", kernel});
			// every function that ran (a run's functions number hundreds)
			argv.insert(argv.end(), {"run", "--kernel-profile=100000"});
			argv.insert(argv.end(), scenario.run_args.begin(), scenario.run_args.end());
			const auto r = support::run_tool(argv);
			if (r.exit_status != 0) {
				interval.not_profiled = fmt::format("{} did not run: {}", scenario.name, first_line(failure_message(r.err)));
				continue;
			}
			const auto ran = profiled_functions(r.out);
			interval.ran.insert(ran.begin(), ran.end());
			profiled = true;
		}
		interval.scenarios_profiled += profiled;
	}
	return interval;
}

} // namespace sh::experiment
