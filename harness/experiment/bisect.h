// SPDX-License-Identifier: GPL-2.0
//
// Bisection: which patch of a series, or which commit of a git history,
// changes the behaviour. Each step (a prefix of the series, a commit) is a
// kernel image (harness/image), judged by a predicate run as a child
// process: `check` of an expectations file, or `compare` of a suite
// against the reference (the unpatched kernel, the good commit). A step
// whose image does not build is skipped, as git bisect skips a commit.
#pragma once

#include "harness/experiment/runner.h"
#include "harness/image/image.h"
#include "harness/image/release_diff.h"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace sh::experiment {

// What cannot be bisected as asked (a file that cannot be read, refs git
// does not know, a good commit that does not build, a predicate's command
// that failed): bad input, as the message says.
class BisectError : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// The steps of a bisection: names[0] the reference, names[n] the n-th patch
// or commit; recipe(n) the kernel of step n. Releases (--trees) are
// steps too: each its series' image, the reference tested as a history's.
struct Steps {
	bool history = false;	// commits of a git history (or releases), not patches of a series
	bool releases = false;	// releases of the kernel, one series each (history is set too)
	std::vector<std::string> names;
	std::function<image::Recipe(std::size_t)> recipe;
	// releases: what --kernel names for step n ("" the build's own
	// kernel); throws image::BadPatch when the release does not build
	std::function<std::string(std::size_t)> kernel;

	std::size_t count() const { return names.size() - 1; }	// the reference not counted
};

// The patches of the files, in order; a file holding several (an mbox
// series, git format-patch --stdout) is split into files under `scratch`.
// Throws BisectError for a file that cannot be read.
Steps patch_series(const std::vector<std::string> &files, const std::filesystem::path &scratch);
// The first-parent commits of `git` after `good` up to `bad`, the good
// commit the reference; their trees are extracted under `scratch`. Throws
// BisectError for refs git does not know or a bad that does not follow good.
Steps git_history(const std::filesystem::path &git, const std::string &good, const std::string &bad,
		  const std::filesystem::path &scratch);

// Releases of the kernel by series (6.1, 6.12, 7.3), oldest first, the
// first the reference; each step the series' image (series_image(),
// configured now, its flavours compiled when its runs first need them),
// the build's own series its own kernel. Throws BisectError for a name that
// is not a series, one given twice or out of release order, a series not
// brought up or whose tree is not on this machine.
Steps releases(const std::vector<std::string> &series, std::ostream &log);

// When a step is bad.
struct Predicate {
	std::string expect;	// `check` of these expectations fails; or, when empty:
	std::string suite;	// `compare` of this suite against the reference differs
	bool decisions = false;	// with suite: any decision of any seed, not only a metric beyond noise
	// with suite: seeds per variant, asked for when a comparison first
	// runs (so that its command reports a bad value where it always did)
	std::function<unsigned()> repeat;
	std::optional<unsigned> jobs;	// passed on to check and compare
	// the engine options of a step's check or compare (engine.h): its
	// runs' directory is named for the step
	std::function<std::vector<std::string>(const std::string &step)> engine;
};

struct Verdict {
	bool bad = false;
	std::string why;	// the failed expectations, the metrics that changed
};

// A step tested: its verdict, or nullopt and why it does not build.
struct StepTested {
	std::size_t n = 0;
	std::optional<Verdict> verdict;
	std::string unbuildable;
};

struct Outcome {
	enum class Kind {
		found,			// first_bad is the first bad step
		reference_unbuildable,	// why
		reference_bad,
		whole_unbuildable,	// why
		whole_good,
		untestable,		// the first bad is in (good, first_bad]: those between do not build
	};
	Kind kind = Kind::found;
	std::size_t good = 0, first_bad = 0;
	std::string why;	// found: the first bad step's verdict; *_unbuildable: why
	std::string image;	// found: the first bad step's image
};

// Bisects `steps` on `predicate`, the runs started on `host`; `tested`
// hears each step as it is decided. Throws BisectError.
Outcome bisect(const Host &host, const Steps &steps, const Predicate &predicate,
	       const std::function<void(const StepTested &)> &tested);

// Where a bisection over releases ends: two releases' tarballs, no history
// between them. What differs in what they compile, by subsystem
// (image::compiled_differences()), and the kernel functions the
// predicate's scenarios ran on either release (their kernel profiles,
// `run --kernel-profile`), to tell the changed functions the runs went
// through from the others.
struct ReleaseInterval {
	std::vector<image::SubsystemDifference> differences;
	std::set<std::string> ran;	// functions, as compiled: one inlined counts as its caller
	std::size_t scenarios_profiled = 0;
	std::string not_profiled;	// why no profile was taken, when none was
};
ReleaseInterval release_interval(const Host &host, const Steps &steps, const Predicate &predicate, std::size_t good,
				 std::size_t bad);

} // namespace sh::experiment
