// SPDX-License-Identifier: GPL-2.0
//
// Images of another series (--kernel 6.12 in a 6.1 build): built by a
// build of their own in the cache, loaded by this build's harness, named
// in every heading by their tree's version; a sweep and a compare over
// trees; a bisect over releases. They need another brought-up series'
// tree on this machine: without one they exit 77, which CTest reports as
// skipped, saying which tree is missing (never a pass that tested
// nothing). The series builds live in a cache kept in the build directory
// (SH_TEST_SERIES_CACHE): the first run compiles each series' kernel side
// (one to two minutes), later runs find it.
#include "support.h"

#include "harness/image/image.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace sh;
namespace fs = std::filesystem;

namespace {

constexpr int exit_skipped = 77;	// SKIP_RETURN_CODE (tests/image/CMakeLists.txt)

[[noreturn]] void skip(const std::string &why)
{
	std::cout << "skipped: " << why << std::endl;
	std::exit(exit_skipped);
}

std::vector<std::string> brought_up()
{
	std::vector<std::string> series;
	std::istringstream words(SH_TEST_BROUGHT_UP);
	for (std::string s; words >> s;)
		series.push_back(s);
	return series;
}

// The cache these tests build series in: kept in the build directory, or
// where $SH_TEST_SERIES_CACHE says (scripts/test.sh: one for every tree's
// suite, so that a series is compiled once per run, not once per suite),
// with the trees scripts/fetch-kernel.sh fetched into the user's cache
// (5.10, 7.3) reachable from it.
void use_series_cache()
{
	const auto user_trees = support::cache_dir() / "trees";
	const char *shared = std::getenv("SH_TEST_SERIES_CACHE");
	const fs::path cache = shared && *shared ? fs::path(shared) : fs::path(SH_TEST_SERIES_CACHE);
	fs::create_directories(cache);
	std::error_code made_meanwhile;	// by a test case running beside this one
	if (fs::is_directory(user_trees) && !fs::exists(fs::symlink_status(cache / "trees")))
		fs::create_symlink(user_trees, cache / "trees", made_meanwhile);
	::setenv("SCHED_HARNESS_CACHE", cache.c_str(), 1);
}

// The first brought-up series other than the build's own whose tree is on
// this machine (in `wanted` when given), else skip() naming what is missing.
std::string other_series(const std::vector<std::string> &wanted = {})
{
	std::vector<std::string> missing;
	for (const auto &series : wanted.empty() ? brought_up() : wanted) {
		if (series == image::own_series())
			continue;
		try {
			image::series_tarball(series);
			return series;
		} catch (const std::invalid_argument &e) {
			missing.push_back(e.what());
		}
	}
	std::string why = "no other brought-up series' tree on this machine";
	for (const auto &m : missing)
		why += "; " + m;
	skip(why);
}

bool has(const std::string &text, const std::string &part)
{
	return text.find(part) != std::string::npos;
}

std::string fingerprint(const std::string &report)
{
	static const std::regex line(R"(Fingerprint: ([0-9a-f]{16}))");
	std::smatch m;
	return std::regex_search(report, m, line) ? m[1].str() : "";
}

} // namespace

BOOST_AUTO_TEST_SUITE(series_images)

// `kernel build --series S` builds S's kernel side in a build of its own,
// a second call finds the image; --kernel S runs it with S's version in
// every heading and the same decisions each time; the build's own series
// by name is the build's own kernel.
BOOST_AUTO_TEST_CASE(an_image_of_another_series_is_built_once_and_named_by_its_tree)
{
	use_series_cache();
	const auto series = other_series();
	BOOST_TEST_MESSAGE("series " << series << " beside the build's " << image::own_series());

	const auto first = test::run_cli({"kernel", "build", "--series", series});
	BOOST_REQUIRE_MESSAGE(first.exit_status == 0, first.err);
	const auto id = first.out.substr(0, first.out.find('\n'));
	BOOST_TEST(id.size() == 16u, first.out);

	// the second use compiles nothing: the image is in the cache
	const auto again = test::run_cli({"kernel", "build", "--series", series});
	BOOST_REQUIRE_MESSAGE(again.exit_status == 0, again.err);
	BOOST_TEST(again.out == first.out);
	BOOST_TEST(!has(again.err, "kernel build:"), again.err);

	const auto listed = test::run_cli({"kernel", "list"});
	BOOST_TEST(has(listed.out, id + "  ok"), listed.out);
	BOOST_TEST(has(listed.out, "Linux " + series + "."), listed.out);

	// kernel info names the image's tree and version, not the build's
	const auto info = test::run_cli({"--kernel", series, "kernel", "info"});
	BOOST_REQUIRE_MESSAGE(info.exit_status == 0, info.err);
	BOOST_TEST(has(info.out, "Version      Linux " + series + "."), info.out);
	BOOST_TEST(has(info.out, "Image        " + id), info.out);
	BOOST_TEST(!has(info.out, "Kernel tree  " + test::kernel_tree().string() + "\n"), info.out);

	// a run's heading; the same decisions twice (same inputs, same bytes)
	const auto run = test::run_cli({"--kernel", series, "run", "--duration", "500ms"});
	BOOST_REQUIRE_MESSAGE(run.exit_status == 0, run.err);
	BOOST_TEST(has(run.out, "Linux " + series + "."), run.out);
	BOOST_TEST(has(run.out, "image " + id + " (Linux " + series + "'s own build"), run.out);
	const auto rerun = test::run_cli({"--kernel", series, "run", "--duration", "500ms"});
	BOOST_TEST(rerun.out == run.out);

	// the build's own series by name: the build's own kernel, no image
	const auto own = test::run_cli({"--kernel", image::own_series(), "run", "--duration", "500ms"});
	const auto plain = test::run_cli({"run", "--duration", "500ms"});
	BOOST_REQUIRE_MESSAGE(own.exit_status == 0, own.err);
	BOOST_TEST(own.out == plain.out);
	BOOST_TEST(fingerprint(own.out) != fingerprint(run.out), "the two trees decide alike: " << own.out);
}

// A sweep over trees prints one row per tree with its version, and the
// plot; compare puts two trees side by side.
BOOST_AUTO_TEST_CASE(sweep_and_compare_over_trees)
{
	use_series_cache();
	const auto series = other_series();
	const auto own = image::own_series();
	const auto sweep = test::run_cli({"sweep", "--param", "tree=" + own + "," + series, "--kernel", "{tree}",
					  "--repeat", "2", "--duration", "500ms", "--metric", "energy_j"});
	BOOST_REQUIRE_MESSAGE(sweep.exit_status == 0, sweep.err);
	BOOST_TEST(has(sweep.out, "  tree  kernel"), sweep.out);
	const std::regex own_row("\n  " + std::regex_replace(own, std::regex(R"(\.)"), R"(\.)") +
				 " +Linux " + std::regex_replace(SH_TEST_KERNEL_VERSION, std::regex(R"(\.)"), R"(\.)") +
				 " .*baseline\n");
	BOOST_TEST(std::regex_search(sweep.out, own_row), sweep.out);
	const std::regex other_row("\n  " + std::regex_replace(series, std::regex(R"(\.)"), R"(\.)") + " +Linux " +
				   std::regex_replace(series, std::regex(R"(\.)"), R"(\.)") + R"(\.[0-9]+ )");
	BOOST_TEST(std::regex_search(sweep.out, other_row), sweep.out);

	const auto compare = test::run_cli({"compare", "--a-kernel", own, "--b-kernel", series, "--repeat", "2",
					    "--duration", "500ms"});
	BOOST_REQUIRE_MESSAGE(compare.exit_status == 0, compare.err);
	BOOST_TEST(has(compare.out, "  A: --kernel " + own + "\n     kernel: Linux " + SH_TEST_KERNEL_VERSION +
					    " (the build's own)"),
		   compare.out);
	BOOST_TEST(has(compare.out, "     kernel: Linux " + series + "."), compare.out);
	BOOST_TEST(has(compare.out, "decisions (fingerprints): differ for every seed"), compare.out);
}

// Over 6.1 and a later tree: the default scenario's energy-model energy
// (6.1: 0.87 J over 2 s) rises past 1 J from 6.12 on (EEVDF's stacking
// of wake-ups, docs/guide-kernels.md), so bisect names the later release
// and the interval's scheduler files, with find_energy_efficient_cpu()
// among the changed functions the runs executed. Then the small-task
// expectation, which holds on every brought-up tree (measured).
BOOST_AUTO_TEST_CASE(bisect_names_the_release_where_an_expectation_stops_holding)
{
	use_series_cache();
	for (const auto *needed : {"6.1"})
		if (std::string(needed) != image::own_series())
			other_series({needed});
	const auto later = other_series({"6.12", "7.3"});
	const auto bisect = test::run_cli({"bisect", "--trees", "6.1," + later, "--expect",
					   test::fixture("suite/default-energy-6.1.json").string()});
	BOOST_REQUIRE_MESSAGE(bisect.exit_status == 0, bisect.out << bisect.err);
	BOOST_TEST(has(bisect.out, "first bad release: Linux " + later + "."), bisect.out);
	BOOST_TEST(has(bisect.out, "em_energy_j <= 1"), bisect.out);
	BOOST_TEST(has(bisect.out, "no history between them"), bisect.out);
	BOOST_TEST(has(bisect.out, "\n  scheduler: "), bisect.out);
	const std::regex fair_ran(R"(\n    fair\.c: [0-9]+ of its [0-9]+ changed functions ran: [^\n]*find_energy_efficient_cpu)");
	BOOST_TEST(std::regex_search(bisect.out, fair_ran), bisect.out);
	BOOST_TEST(has(bisect.out, "executed by the runs of the 1 scenario"), bisect.out);

	const auto small = test::run_cli({"bisect", "--trees", "6.1," + later, "--expect",
					  test::fixture("suite/eas-small-task.json").string()});
	BOOST_TEST(small.exit_status == 1, small.out << small.err);
	BOOST_TEST(has(small.out, "the whole range of releases is good: every expectation"), small.out);
}

// What cannot be: a series not brought up, the build's own as an image,
// a tree that is not on this machine (in a cache that has none).
BOOST_AUTO_TEST_CASE(series_that_cannot_be_images_are_refused)
{
	const auto empty = fs::temp_directory_path() / fmt::format("sh-series-empty-{}", ::getpid());
	fs::create_directories(empty);
	::setenv("SCHED_HARNESS_CACHE", empty.c_str(), 1);
	const auto not_up = test::run_cli({"--kernel", "9.99", "run"});
	BOOST_TEST(not_up.exit_status == 2);
	BOOST_TEST(has(not_up.err, "Linux 9.99 is not brought up"), not_up.err);

	const auto own = test::run_cli({"kernel", "build", "--series", image::own_series()});
	BOOST_TEST(own.exit_status == 2);
	BOOST_TEST(has(own.err, "this build's own series"), own.err);

	const auto order = test::run_cli({"bisect", "--trees", "7.3,6.1", "--expect",
					  test::fixture("suite/eas-small-task.json").string()});
	BOOST_TEST(order.exit_status == 2);
	BOOST_TEST(has(order.err, "oldest first"), order.err);

	// a brought-up series whose tree is neither installed nor fetched (into this empty cache)
	std::string absent;
	for (const auto &series : brought_up())
		if (series != image::own_series() &&
		    !fs::exists(fs::path("/usr/src") / fmt::format("linux-source-{}.tar.xz", series)))
			absent = series;
	if (absent.empty()) {	// the rest was tested: say what was not
		fs::remove_all(empty);
		BOOST_TEST_MESSAGE("every brought-up series' tree is installed in /usr/src: no absent tree to refuse");
		return;
	}
	const auto missing = test::run_cli({"--kernel", absent, "run"});
	fs::remove_all(empty);
	BOOST_TEST(missing.exit_status == 2);
	BOOST_TEST(has(missing.err, "scripts/fetch-kernel.sh " + absent), missing.err);
}

BOOST_AUTO_TEST_SUITE_END()
