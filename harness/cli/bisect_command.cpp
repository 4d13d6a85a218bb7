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

#include <ostream>
#include <unistd.h>

namespace po = boost::program_options;

namespace sh::cli {

namespace {

constexpr const char *usage =
	"usage: sched-harness bisect (--patch FILE... | --tree GITDIR --good REF --bad REF)\n"
	"                            (--expect SUITE | --suite SUITE [--decisions])\n\n"
	"Finds the first patch of a series, or the first commit of a git history, after which\n"
	"the behaviour changes: each prefix of the series (each commit) is a kernel image, and it\n"
	"is bad when the expectations fail (--expect) or the suite's outcome differs from the\n"
	"unpatched kernel's (the good commit's) (--suite). A prefix or commit that does not build\n"
	"is skipped. Prints the first bad patch or commit; exit 0 when one is found, 1 when all\n"
	"are good.\n"
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
	if (vm.count("patch") == vm.count("tree"))
		throw UsageError{"bisect: give the series (--patch FILE...) or a git history (--tree GITDIR --good REF "
				 "--bad REF)"};
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

experiment::Steps steps_of(const po::variables_map &vm, const std::filesystem::path &scratch)
{
	try {
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
	if (engine.kind != experiment::EngineOptions::Kind::local)
		predicate.engine = [&vm, dir = engine.dir](const std::string &step) { return engine_args(vm, dir / step); };
	return predicate;
}

std::string heading(const experiment::Steps &steps, const experiment::Predicate &predicate)
{
	const std::size_t count = steps.count();
	const std::string reference = steps.history ? "the good commit's" : "the unpatched kernel's";
	return fmt::format(
		"bisect: {} {}{} {}, bad when {}\n", count, steps.history ? "commit" : "patch",
		count == 1 ? "" : steps.history ? "s" : "es",
		steps.history ? "of the history" : fmt::format("on Linux {} (the build's own tree)", kshim::build_info().version),
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

// Prints the steps (`out`) and how the bisection ended; the exit status.
int finish(const Context &ctx, std::string out, const experiment::Steps &steps, const experiment::Predicate &predicate,
	   const experiment::Outcome &outcome)
{
	using Kind = experiment::Outcome::Kind;
	const bool history = steps.history;
	const std::string unit = history ? "commit" : "patch";
	switch (outcome.kind) {
	case Kind::reference_unbuildable:
		ctx.out << out;
		throw UsageError{fmt::format("the good commit does not build: {}", outcome.why)};
	case Kind::reference_bad:
		ctx.out << out << fmt::format("{} is bad already: nothing to bisect\n",
					      history ? "the good commit" : "the unpatched kernel");
		return 1;
	case Kind::whole_unbuildable:
		ctx.out << out;
		throw UsageError{fmt::format("the {} does not build: {}", history ? "bad commit" : "whole series",
					     outcome.why)};
	case Kind::whole_good:
		ctx.out << out << fmt::format(
			"the whole {} is good: {} with all {} {}{}\n", history ? "history" : "series",
			!predicate.expect.empty() ? fmt::format("every expectation of {} holds", predicate.expect)
			: predicate.decisions	  ? fmt::format("no decision of {} differs from {}", predicate.suite,
								history ? "the good commit's" : "the unpatched kernel's")
						  : fmt::format("no metric of {} changes beyond noise from {}", predicate.suite,
								history ? "the good commit's" : "the unpatched kernel's"),
			steps.count(), unit, steps.count() == 1 ? "" : history ? "s" : "es");
		return 1;
	case Kind::untestable:
		out += fmt::format("the first bad {} is one of {} to {} ({} of {}): those between do not build\n", unit,
				   steps.names[outcome.good + 1], steps.names[outcome.first_bad], outcome.good + 1,
				   outcome.first_bad);
		break;
	case Kind::found:
		out += fmt::format("first bad {}: {} ({} of {}), image {}: {}\n", unit, steps.names[outcome.first_bad],
				   outcome.first_bad, steps.count(), outcome.image, outcome.why);
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
	const auto steps = steps_of(vm, scratch.dir);
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
