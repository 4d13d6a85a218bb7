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

#include "harness/cli/experiment_options.h"
#include "harness/experiment/bisect.h"
#include "harness/image/image.h"
#include "kernel-shim/kernel.h"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ostream>
#include <unistd.h>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

constexpr const char *usage =
	"usage: sched-harness bisect (--patch FILE... | --tree GITDIR --good REF --bad REF | --trees S1,S2,...)\n"
	"                            (--expect SUITE | --suite SUITE [--decisions])\n\n"
	"Finds the first patch of a series, or the first commit of a git history, after which\n"
	"the behaviour changes: each prefix of the series (each commit) is a kernel image, and it\n"
	"is bad when the expectations fail (--expect) or the suite's outcome differs from the\n"
	"unpatched kernel's (the good commit's) (--suite). A prefix or commit that does not build\n"
	"is skipped. Prints the first bad patch or commit; exit 0 when one is found, 1 when all\n"
	"are good.\n"
	"--trees 6.1,6.12,7.3: the first release (each series' image: --kernel SERIES) at which the\n"
	"expectations fail or the outcome differs from the first release's; then, as no history lies\n"
	"between two releases' tarballs, the compiled files that differ between the last good and the\n"
	"first bad, by subsystem, with the changed functions the scenarios' runs executed.\n"
	"'git bisect run sched-harness --kernel . check SUITE' in a kernel checkout works too\n"
	"(exit 0 good, 1 bad, 125 when the commit does not build).\n";

po::options_description bisect_options()
{
	po::options_description options("bisect options");
	options.add_options()
		("help,h", "show this help")
		("patch", po::value<std::vector<std::string>>()->value_name("FILE")->composing(),
		 "the series, in order: patch files, or an mbox/format-patch --stdout file holding several")
		("tree", po::value<std::string>()->value_name("GITDIR"),
		 "instead of a series: the commits of this git repository's kernel tree from --good to --bad "
		 "(first-parent history; the repository's checkout is not touched)")
		("trees", po::value<std::string>()->value_name("S1,S2,..."),
		 "instead of a series: kernel releases by series, oldest first (6.1,6.12,7.3), each its "
		 "series' image (as --kernel SERIES builds it; the build's own series its own kernel)")
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
	options.add(engine_options());
	return options;
}

void check_choices(const po::variables_map &vm)
{
	if (vm.count("patch") + vm.count("tree") + vm.count("trees") != 1)
		throw UsageError{"bisect: give the series (--patch FILE...), a git history (--tree GITDIR --good REF "
				 "--bad REF) or releases (--trees 6.1,6.12,7.3)"};
	if (vm.count("tree") && (!vm.count("good") || !vm.count("bad")))
		throw UsageError{"bisect --tree: give --good REF and --bad REF"};
	if (vm.count("expect") == vm.count("suite"))
		throw UsageError{"bisect: give one predicate, --expect SUITE or --suite SUITE"};
}

// Where the series' split patches and the commits' trees go while the
// command runs.
struct Scratch {
	std::filesystem::path dir = image::cache_dir() / "bisect" / std::to_string(::getpid());
	Scratch() { std::filesystem::create_directories(dir); }
	Scratch(const Scratch &) = delete;
	~Scratch() { std::error_code ec; std::filesystem::remove_all(dir, ec); }
};

experiment::Steps steps_of(const po::variables_map &vm, const std::filesystem::path &scratch, std::ostream &err)
{
	try {
		if (vm.count("trees")) {
			std::vector<std::string> series;
			const auto text = vm["trees"].as<std::string>();
			for (std::size_t start = 0;;) {
				const auto comma = text.find(',', start);
				series.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
				if (comma == std::string::npos)
					break;
				start = comma + 1;
			}
			return experiment::releases(series, err);
		}
		if (vm.count("tree"))
			return experiment::git_history(vm["tree"].as<std::string>(), vm["good"].as<std::string>(),
						       vm["bad"].as<std::string>(), scratch);
		return experiment::patch_series(vm["patch"].as<std::vector<std::string>>(), scratch);
	} catch (const experiment::BisectError &e) {
		throw UsageError{e.what()};
	}
}

experiment::Predicate predicate_of(const po::variables_map &vm, unsigned jobs)
{
	experiment::Predicate predicate;
	if (vm.count("expect"))
		predicate.expect = vm["expect"].as<std::string>();
	else
		predicate.suite = vm["suite"].as<std::string>();
	predicate.decisions = vm["decisions"].as<bool>();
	predicate.repeat = [&vm] { return bounded_option(vm, "repeat", 100000); };
	if (vm.count("jobs"))
		predicate.jobs = jobs;
	const auto engine = engine_of(vm);
	if (engine.collect || engine.detach || engine.kind == experiment::EngineOptions::Kind::list)
		throw UsageError{"bisect: each step waits for its runs; --engine slurm (not list, --detach or --collect) "
				 "runs them elsewhere"};
	// a step's runs elsewhere, or kept (--engine-dir) for a bisect started again
	if (engine.kind != experiment::EngineOptions::Kind::local || !engine.dir.empty())
		predicate.engine = [&vm, dir = engine.dir](const std::string &step) { return engine_args(vm, dir / step); };
	return predicate;
}

// What the steps are called: patch, commit, release.
std::string unit_of(const experiment::Steps &steps)
{
	return steps.releases ? "release" : steps.history ? "commit" : "patch";
}

std::string heading(const experiment::Steps &steps, const experiment::Predicate &predicate)
{
	const std::size_t count = steps.count();
	const std::string reference = steps.releases  ? "the first release's"
				      : steps.history ? "the good commit's"
						      : "the unpatched kernel's";
	return fmt::format(
		"bisect: {} {}{} {}, bad when {}\n", count, unit_of(steps),
		count == 1 ? "" : unit_of(steps) == "patch" ? "es" : "s",
		steps.releases	? fmt::format("after {}", steps.names[0])
		: steps.history ? "of the history"
				: fmt::format("on Linux {} (the build's own tree)", kshim::build_info().version),
		!predicate.expect.empty() ? fmt::format("the expectations of {} fail", predicate.expect)
		: predicate.decisions ? fmt::format("a decision of {} differs from {}", predicate.suite, reference)
				      : fmt::format("a metric of {} changes beyond noise from {}", predicate.suite, reference));
}

std::string step_line(const experiment::Steps &steps, const experiment::StepTested &step)
{
	const auto &name = steps.names[step.n];
	if (!step.verdict)
		return fmt::format("  {:>3}/{} {:<40} skipped — it does not build: {}\n", step.n, steps.count(), name,
				   step.unbuildable);
	return fmt::format("  {:>3}/{} {:<40} {}{}\n", step.n, steps.count(), name, step.verdict->bad ? "bad" : "good",
			   step.verdict->why.empty() ? "" : " — " + step.verdict->why);
}

// An image as bisect names it: its id (a release's image is its directory).
std::string image_name(const std::string &image)
{
	const std::filesystem::path dir(image);
	if (std::filesystem::exists(dir / "manifest.json"))
		return image::read_manifest(dir).id;
	return image;
}

// Up to `most` names, then how many more.
std::string some_of(const std::vector<std::string> &names, std::size_t most)
{
	if (names.size() <= most)
		return fmt::format("{}", fmt::join(names, ", "));
	return fmt::format("{}, ... ({} more)", fmt::join(names.begin(), names.begin() + static_cast<long>(most), ", "),
			   names.size() - most);
}

// A path without the subsystem's directory: fair.c for kernel/sched/fair.c
// in the scheduler's list.
std::string short_path(const std::string &path)
{
	const auto slash = path.rfind('/');
	return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Where a bisection over releases ends: what differs between the last
// good release and the first bad in what they compile, by subsystem, and
// which changed functions the scenarios' runs executed.
std::string release_interval_text(const Context &ctx, const experiment::Steps &steps,
				  const experiment::Predicate &predicate, std::size_t good, std::size_t bad)
{
	const auto interval = experiment::release_interval(local_host(ctx), steps, predicate, good, bad);
	std::string text = fmt::format(
		"between {} and {}: two releases' tarballs, no history between them to bisect (to go on, bisect the "
		"commits between them in a git checkout of one series with 'bisect --tree' in a build of that "
		"series). The files they compile from their trees ('kernel info' lists them; include/'s headers, "
		"such as energy_model.h's inlines, are not among them) differ, by subsystem:\n",
		steps.names[good], steps.names[bad]);
	const bool profiled = interval.scenarios_profiled > 0;
	for (const auto &d : interval.differences) {
		std::vector<std::string> files;
		for (const auto &f : d.changed)
			files.push_back(short_path(f));
		for (const auto &f : d.added)
			files.push_back(short_path(f) + " (new)");
		for (const auto &f : d.removed)
			files.push_back(short_path(f) + " (gone)");
		text += fmt::format("  {}: {} file{} differ{} (the newer compiles {}): {}\n", d.subsystem, files.size(),
				    files.size() == 1 ? "" : "s", files.size() == 1 ? "s" : "",
				    d.changed.size() + d.added.size() + d.unchanged, some_of(files, 10));
		// with profiles: the files whose changed functions ran, each with
		// them; the others in one line
		std::vector<std::string> quiet;
		for (const auto &f : d.functions) {
			std::vector<std::string> ran;
			for (const auto &name : f.changed)
				if (interval.ran.count(name))
					ran.push_back(name);
			const auto news = f.added.size() + f.removed.size() == 0
						  ? std::string()
						  : fmt::format("; {} new, {} gone", f.added.size(), f.removed.size());
			if (profiled && ran.empty()) {
				quiet.push_back(short_path(f.file));
			} else if (profiled) {
				text += fmt::format("    {}: {} of its {} changed function{} ran: {}{}\n", short_path(f.file),
						    ran.size(), f.changed.size(), f.changed.size() == 1 ? "" : "s", some_of(ran, 16),
						    news);
			} else if (f.changed.size() + f.added.size() + f.removed.size() > 0) {
				text += fmt::format("    {}: {} function{} changed: {}{}\n", short_path(f.file), f.changed.size(),
						    f.changed.size() == 1 ? "" : "s", some_of(f.changed, 12), news);
			}
		}
		if (!quiet.empty())
			text += fmt::format("    changed, but none of their changed functions ran: {}\n", some_of(quiet, 12));
	}
	if (profiled)
		text += fmt::format("\"ran\": executed by the runs of the {} scenario{} on either release (their kernel "
				    "profiles; a function inlined into its caller is counted as the caller, so a changed "
				    "inline may be missing); functions are compared by their text{}\n",
				    interval.scenarios_profiled, interval.scenarios_profiled == 1 ? "" : "s",
				    interval.not_profiled.empty() ? "" : "; " + interval.not_profiled);
	else
		text += fmt::format("the changed functions are all those whose text differs, not only those the runs "
				    "executed (no profile: {})\n",
				    interval.not_profiled);
	return text;
}

// Prints the steps (`out`) and how the bisection ended; the exit status.
int finish(const Context &ctx, std::string out, const experiment::Steps &steps, const experiment::Predicate &predicate,
	   const experiment::Outcome &outcome)
{
	using Kind = experiment::Outcome::Kind;
	const bool history = steps.history;
	const std::string unit = unit_of(steps);
	const std::string plural = unit == "patch" ? "es" : "s";
	const std::string reference = steps.releases  ? "the first release"
				      : history	       ? "the good commit"
							: "the unpatched kernel";
	switch (outcome.kind) {
	case Kind::reference_unbuildable:
		ctx.out << out;
		throw UsageError{fmt::format("{} does not build: {}", reference, outcome.why)};
	case Kind::reference_bad:
		ctx.out << out << fmt::format("{} is bad already: nothing to bisect\n", reference);
		return 1;
	case Kind::whole_unbuildable:
		ctx.out << out;
		throw UsageError{fmt::format("the {} does not build: {}",
					     steps.releases ? "last release" : history ? "bad commit" : "whole series",
					     outcome.why)};
	case Kind::whole_good:
		ctx.out << out << fmt::format(
			"the whole {} is good: {} with all {} {}{}\n",
			steps.releases ? "range of releases" : history ? "history" : "series",
			!predicate.expect.empty() ? fmt::format("every expectation of {} holds", predicate.expect)
			: predicate.decisions	  ? fmt::format("no decision of {} differs from {}'s", predicate.suite, reference)
						  : fmt::format("no metric of {} changes beyond noise from {}'s", predicate.suite,
								reference),
			steps.count(), unit, steps.count() == 1 ? "" : plural);
		return 1;
	case Kind::untestable:
		out += fmt::format("the first bad {} is one of {} to {} ({} of {}): those between do not build\n", unit,
				   steps.names[outcome.good + 1], steps.names[outcome.first_bad], outcome.good + 1,
				   outcome.first_bad);
		break;
	case Kind::found:
		out += fmt::format("first bad {}: {} ({} of {}){}: {}\n", unit, steps.names[outcome.first_bad],
				   outcome.first_bad, steps.count(),
				   outcome.image.empty() ? "" : fmt::format(", image {}", image_name(outcome.image)),
				   outcome.why);
		if (steps.releases)
			out += release_interval_text(ctx, steps, predicate, outcome.good, outcome.first_bad);
		break;
	}
	ctx.out << out;
	return exit_ok;
}

} // namespace

int bisect_command(const Context &ctx, const std::vector<std::string> &args)
{
	const auto options = bisect_options();
	po::options_description hidden;
	po::positional_options_description positional;
	auto parsed = parse_subcommand(ctx, args, options, hidden, positional, usage);
	if (!parsed)
		return exit_ok;
	const auto &vm = *parsed;
	const unsigned jobs = jobs_option(vm);
	check_choices(vm);
	const Scratch scratch;
	const auto steps = steps_of(vm, scratch.dir, ctx.err);
	if (steps.count() == 0)
		throw UsageError{"bisect: nothing between good and bad"};
	const auto predicate = predicate_of(vm, jobs);
	std::string out = heading(steps, predicate);
	try {
		const auto outcome = experiment::bisect(local_host(ctx), steps, predicate, [&](const auto &step) {
			out += step_line(steps, step);
		});
		return finish(ctx, std::move(out), steps, predicate, outcome);
	} catch (const experiment::BisectError &e) {
		throw UsageError{e.what()};
	}
}

} // namespace sh::cli
