// SPDX-License-Identifier: GPL-2.0
//
// Kernel images end to end: the build's kernel tree with patches or Kconfig
// options, compiled into the cache (only the objects whose input changes,
// only the flavours the boards need), listed, shown, pruned, and run with
// --kernel. Each builds kernel images: minutes.
#include "patches.h"
#include "support.h"
#include "temp_files.h"

#include <boost/test/unit_test.hpp>
#include <vector>
#include <cctype>

#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace sh;

namespace {

using test::migration_cost_line;
using test::one_line_patch;
using test::replaced;
using test::temp_path;
using test::write;

// The flavours an image's manifest lists, in order.
std::string flavours_of(const std::filesystem::path &dir)
{
	std::ostringstream text;
	text << std::ifstream(dir / "manifest.json").rdbuf();
	rapidjson::Document doc;
	doc.Parse(text.str().c_str());
	BOOST_REQUIRE_MESSAGE(!doc.HasParseError() && doc.IsObject(), dir);
	std::string flavours;
	for (const auto &f : doc["flavours"].GetArray())
		flavours += (flavours.empty() ? "" : " ") + std::string(f.GetString());
	return flavours;
}

// A header included relative to its includer ("../smpboot.h" from
// kernel/sched/core.c, which the depfile names kernel/sched/../smpboot.h;
// kernel/smp.c includes it as "smpboot.h"):
// the patched copy is the one compiled. In a cache of its own (the list
// and prune that follow count images), then back to `cache`.
void expect_relative_header_compiled(const std::filesystem::path &cache)
{
	const auto header = write(temp_path("smpboot.patch"),
				  one_line_patch("kernel/smpboot.h", "struct task_struct;",
						 "struct task_struct; struct sh_test_declared_in_smpboot_h;"));
	const auto header_cache = temp_path("header-cache");
	::setenv("SCHED_HARNESS_CACHE", header_cache.c_str(), 1);
	auto relative = test::run_cli({"kernel", "build", "--patch", header});
	::setenv("SCHED_HARNESS_CACHE", cache.c_str(), 1);
	BOOST_REQUIRE_MESSAGE(relative.exit_status == 0, relative.err);
	BOOST_TEST(relative.err.find("arm64: compiling sched/export/core_export.c") != std::string::npos,
		   relative.err);
	// core_export.c and kernel/smp.c (which includes "smpboot.h"), in both flavours
	BOOST_TEST(relative.err.find("(4 objects compiled again)") != std::string::npos, relative.err);
	std::filesystem::remove(header);
	std::filesystem::remove_all(header_cache);
}

// A patch that does not apply names the file and the hunk, one that does
// not compile the patched file as the patch names it; an image id that is
// not in the cache is bad input.
void expect_bad_patch_and_missing_image_refused()
{
	const auto bad = write(temp_path("bad.patch"),
			       "--- a/kernel/sched/fair.c\n+++ b/kernel/sched/fair.c\n@@ -1,3 +1,3 @@\n"
			       " no such line\n-in this file\n+at all\n");
	auto refused = test::run_cli({"kernel", "build", "--patch", bad});
	BOOST_TEST(refused.exit_status == 2);
	BOOST_TEST(refused.err.find("bad.patch does not apply") != std::string::npos, refused.err);
	BOOST_TEST(refused.err.find("Hunk #1 FAILED") != std::string::npos, refused.err);
	BOOST_TEST(refused.err.find("kernel/sched/fair.c") != std::string::npos, refused.err);
	BOOST_TEST(refused.err.find("it applies to none of the other brought-up trees here") != std::string::npos,
		   refused.err);
	// a patch written for another brought-up tree here (Debian's 6.12 for
	// the 6.1 build, 6.1 for the others, 5.10 included) names it: not a
	// feature of the tree, only another tree than the build's
	const std::string other = test::kernel_series() == "6.1" ? "6.12" : "6.1";
	const auto tarball = "/usr/src/linux-source-" + other + ".tar.xz";
	BOOST_REQUIRE_MESSAGE(std::filesystem::exists(tarball), tarball << " is not installed (scripts/setup.sh)");
	const auto theirs = support::run_tool(std::vector<std::string>{
		"tar", "-xJOf", tarball, "--occurrence=1", "linux-source-" + other + "/kernel/sched/fair.c"});
	BOOST_REQUIRE(theirs.exit_status == 0);
	const auto ours = test::read_file(test::kernel_tree() / "kernel/sched/fair.c");
	std::vector<std::string> lines;
	std::istringstream in(theirs.out);
	for (std::string line; std::getline(in, line);)
		lines.push_back(line);
	// their first line of code (an identifier starting it) that ours lacks,
	// with three lines of context
	std::size_t at = 3;
	while (at + 3 < lines.size() &&
	       (lines[at].empty() || !std::isalpha(static_cast<unsigned char>(lines[at][0])) ||
		ours.find(lines[at] + "\n") != std::string::npos))
		at++;
	BOOST_REQUIRE(at + 3 < lines.size());
	std::string foreign = fmt::format("--- a/kernel/sched/fair.c\n+++ b/kernel/sched/fair.c\n@@ -{},7 +{},7 @@\n",
					  at - 2, at - 2);
	for (std::size_t k = at - 3; k <= at + 3; k++)
		foreign += k == at ? fmt::format("-{}\n+{} /* theirs */\n", lines[k], lines[k]) : " " + lines[k] + "\n";
	const auto other_patch = write(temp_path("other.patch"), foreign);
	auto elsewhere = test::run_cli({"kernel", "build", "--patch", other_patch});
	BOOST_TEST(elsewhere.exit_status == 2);
	BOOST_TEST(elsewhere.err.find("other.patch does not apply") != std::string::npos, elsewhere.err);
	BOOST_TEST(elsewhere.err.find("; it applies to ") != std::string::npos, elsewhere.err);
	BOOST_TEST(elsewhere.err.find("Linux " + other + " (linux-source-" + other + ")") != std::string::npos,
		   elsewhere.err);
	// a patched file that does not compile is named as the patch names it,
	// not by the unpatched tree's path whose line says otherwise
	const auto typo = write(temp_path("typo.patch"),
				one_line_patch("kernel/sched/fair.c",
					       migration_cost_line(),
					       replaced(migration_cost_line(), "500000UL;", "500000UL typo;")));
	auto uncompiled = test::run_cli({"--arch", "arm64", "kernel", "build", "--patch", typo});
	BOOST_TEST(uncompiled.exit_status == 2);
	BOOST_TEST(uncompiled.err.find("\nkernel/sched/fair.c:") != std::string::npos, uncompiled.err);
	BOOST_TEST(uncompiled.err.find("/kernel/sched/fair.c:") == std::string::npos, uncompiled.err);
	// named by --kernel, the image is stored before its flavour is
	// compiled: the failure is recorded, for kernel list and prune
	auto unbuildable = test::run_cli({"--kernel", typo, "run", "--board", "hikey", "--duration", "100ms"});
	BOOST_TEST(unbuildable.exit_status == 125, unbuildable.err);
	auto listed = test::run_cli({"kernel", "list"});
	const auto failed = listed.out.find("  failed      used ");
	BOOST_TEST(failed != std::string::npos, listed.out);
	BOOST_TEST(listed.out.find("\n                  the arm64 flavour did not compile: ", failed) != std::string::npos,
		   listed.out);
	std::filesystem::remove(typo);
	auto missing = test::run_cli({"--kernel", "0123456789abcdef", "run"});
	BOOST_TEST(missing.exit_status == 2);
	BOOST_TEST(missing.err.find("no such image") != std::string::npos, missing.err);
	std::filesystem::remove(bad);
}

} // namespace

BOOST_AUTO_TEST_SUITE(image)

// Kernel images: a patch to fair.c becomes an image in the cache, loaded
// with --kernel. Only objects whose preprocessed input changes are
// compiled again (a comment: none; the migration cost: fair.c's export
// unit, per flavour), and only for the flavours the boards run need (the
// other when a board first needs it; not at all when the patch is gone);
// kernel info shows the patched bytes' hash; compare with --b-kernel finds
// the behaviour change in an overloaded scenario (every seed decides
// otherwise) and none with the comment-only image; a patch that does not
// apply is bad input naming the file and the hunk.
BOOST_AUTO_TEST_CASE(kernel_images_from_patches)
{
	const auto cache = temp_path("cache");
	::setenv("SCHED_HARNESS_CACHE", cache.c_str(), 1);
	auto manifest_flavours = [&](const std::string &image) { return flavours_of(cache / "images" / image); };

	const auto cost = write(temp_path("cost.patch"),
				one_line_patch("kernel/sched/fair.c",
					       migration_cost_line(),
					       replaced(migration_cost_line(), "500000UL;", "0UL;")));
	const auto comment = write(temp_path("comment.patch"),
				   one_line_patch("kernel/sched/fair.c",
						  " * CFS operations on generic schedulable entities:",
						  " * CFS operations on generic schedulable entities (comment):"));
	// a run on an arm64 board: the arm64 flavour only
	auto ran = test::run_cli({"--kernel", cost, "run", "--board", "hikey", "--duration", "100ms"});
	BOOST_REQUIRE_MESSAGE(ran.exit_status == 0, ran.err);
	BOOST_TEST(ran.err.find("arm64: compiling sched/export/fair_export.c") != std::string::npos, ran.err);
	BOOST_TEST(ran.err.find("arm: compiling") == std::string::npos, ran.err);
	BOOST_TEST(ran.err.find("arm64 flavour (1 object compiled again)") != std::string::npos, ran.err);
	// kernel build: every flavour, the image named as before
	auto built = test::run_cli({"kernel", "build", "--patch", cost});
	BOOST_REQUIRE_MESSAGE(built.exit_status == 0, built.err);
	const auto id = built.out.substr(0, 16);
	BOOST_TEST(ran.err.find("image " + id) != std::string::npos, ran.err);
	BOOST_TEST(built.err.find("arm: compiling sched/export/fair_export.c") != std::string::npos, built.err);
	BOOST_TEST(built.err.find("arm64: compiling") == std::string::npos, built.err);
	BOOST_TEST(built.err.find("arm flavour (1 object compiled again)") != std::string::npos, built.err);
	BOOST_TEST(manifest_flavours(id) == "arm64 arm");
	auto again = test::run_cli({"kernel", "build", "--patch", cost});
	BOOST_TEST(again.out == built.out);	// from the cache
	BOOST_TEST(again.err.find("compiling") == std::string::npos, again.err);
	auto quiet = test::run_cli({"--arch", "arm64", "kernel", "build", "--patch", comment});
	BOOST_REQUIRE_MESSAGE(quiet.exit_status == 0, quiet.err);
	BOOST_TEST(quiet.err.find("(0 objects compiled again)") != std::string::npos, quiet.err);
	const auto quiet_id = quiet.out.substr(0, 16);
	BOOST_TEST(manifest_flavours(quiet_id) == "arm64");

	expect_relative_header_compiled(cache);

	auto list = test::run_cli({"kernel", "list"});
	BOOST_TEST(list.out.find(id + "  ") != std::string::npos, list.out);
	BOOST_TEST(list.out.find(quiet_id + "  ") != std::string::npos, list.out);

	auto info = test::run_cli({"--kernel", id, "kernel", "info"});
	BOOST_REQUIRE_MESSAGE(info.exit_status == 0, info.err);
	auto plain = test::run_cli({"kernel", "info"});
	BOOST_TEST(info.out.find("Image        " + id) != std::string::npos, info.out);
	auto fair_line = [](const std::string &text) {
		const auto at = text.find("  kernel/sched/fair.c\n");
		return at == std::string::npos ? std::string() : text.substr(at - 64, 64);
	};
	BOOST_TEST(fair_line(info.out).size() == 64u);
	BOOST_TEST(fair_line(info.out) != fair_line(plain.out));

	// what ran is named: a run's heading, and both sides of a compare
	// under the global --kernel
	auto named = test::run_cli({"--kernel", id, "run", "--board", "hikey", "--duration", "100ms"});
	BOOST_TEST(named.out.find("'s scheduler, image " + id + " (patches: \"" + cost) != std::string::npos, named.out);
	auto both = test::run_cli({"--kernel", id, "compare", "--board", "hikey", "--duration", "100ms", "--repeat", "2"});
	for (const char *side : {"A", "B"})
		BOOST_TEST(both.out.find(fmt::format("  {}: --kernel {}\n     kernel: Linux ", side, id)) != std::string::npos,
			   both.out);

	auto compare = [&](const std::string &kernel) {
		auto r = test::run_cli({"compare", "--json", "--board", "hikey", "--workload",
					"periodic:count=12,period=16ms,duty=60%", "--duration", "1s", "--repeat", "2",
					"--b-kernel", kernel});
		BOOST_REQUIRE_MESSAGE(r.exit_status == 0, r.err);
		rapidjson::Document doc;
		doc.Parse(r.out.c_str());
		BOOST_REQUIRE(!doc.HasParseError());
		BOOST_TEST(doc["b_kernel"].GetString() == kernel);
		return doc["scenarios"][0]["seeds_deciding_alike"].GetUint();
	};
	BOOST_TEST(compare(id) == 0u);		// the migration cost changes load balancing
	BOOST_TEST(compare(quiet_id) == 2u);	// a comment changes nothing

	// the arm flavour of an image whose patch is gone cannot be built: said, not the build's own kernel run
	const auto kept = temp_path("comment.kept");
	std::filesystem::rename(comment, kept);
	auto gone = test::run_cli({"--kernel", quiet_id, "run", "--duration", "100ms"});
	std::filesystem::rename(kept, comment);
	BOOST_TEST(gone.exit_status == 2, gone.err);
	BOOST_TEST(gone.err.find("image " + quiet_id + " has no arm flavour yet, and its patch " + comment +
				 " is gone") != std::string::npos,
		   gone.err);
	BOOST_TEST(gone.out.empty(), gone.out);

	// compare builds the flavour its runs lack once, before them and in
	// view, not in its first child behind a still progress line
	auto lazy = test::run_cli({"compare", "--board", "odroid-xu3", "--duration", "200ms", "--repeat", "2",
				   "--b-kernel", quiet_id});
	BOOST_REQUIRE_MESSAGE(lazy.exit_status == 0, lazy.err);
	const auto flavour_built = "kernel build: image " + quiet_id + ", arm flavour (0 objects compiled again)\n";
	const auto first = lazy.err.find(flavour_built);
	BOOST_TEST(first == 0u, lazy.err);
	BOOST_TEST(lazy.err.find(flavour_built, first + 1) == std::string::npos, lazy.err);
	BOOST_TEST(manifest_flavours(quiet_id) == "arm64 arm");

	expect_bad_patch_and_missing_image_refused();

	// prune removes the typo's failed image first, then keeps the most
	// recently used (the comment's image, which the lazy compare ran)
	auto pruned = test::run_cli({"kernel", "prune", "--keep", "1"});
	BOOST_TEST(pruned.out.find("removed 2 images (1 that cannot load: failed, stale or broken; 1 least "
				   "recently used)") != std::string::npos,
		   pruned.out);
	auto left = test::run_cli({"kernel", "list"});
	BOOST_TEST(left.out.find(id) == std::string::npos, left.out);
	BOOST_TEST(left.out.find(quiet_id) != std::string::npos, left.out);
	BOOST_TEST(!std::filesystem::exists(cache / "images" / (".lock-" + id)));	// nor its builds' lock
	BOOST_TEST(std::filesystem::exists(cache / "images" / (".lock-" + quiet_id)));

	std::filesystem::remove_all(cache);
	for (const auto &p : {cost, comment})
		std::filesystem::remove(p);
	::unsetenv("SCHED_HARNESS_CACHE");
}

// kernel build --config: HZ=1000 on top of the build's configuration is an
// image whose tick is 1 ms (the arm flavour's multi_v7_defconfig has HZ=100);
// every object whose preprocessed input changes is compiled again. check's
// relative expectations compare it with the build's kernel. A malformed
// option is bad input.
BOOST_AUTO_TEST_CASE(kernel_image_with_config)
{
	const auto cache = temp_path("config-cache");
	::setenv("SCHED_HARNESS_CACHE", cache.c_str(), 1);
	// the default board's flavour (the other's code is the same)
	auto built = test::run_cli({"--arch", "arm", "kernel", "build", "--config", "HZ=1000", "--config", "SCHED_MC=n"});
	BOOST_REQUIRE_MESSAGE(built.exit_status == 0, built.err);
	const auto id = built.out.substr(0, 16);
	auto tick = [](const support::ToolResult &r) {
		BOOST_REQUIRE_MESSAGE(r.exit_status == 0, r.err);
		rapidjson::Document doc;
		doc.Parse(r.out.c_str());
		BOOST_REQUIRE(!doc.HasParseError());
		return doc["tick_ns"].GetInt64();
	};
	BOOST_TEST(tick(test::run_cli({"run", "--json", "--duration", "200ms"})) == 10'000'000);
	BOOST_TEST(tick(test::run_cli({"--kernel", id, "run", "--json", "--duration", "200ms"})) == 1'000'000);
	auto info = test::run_cli({"--kernel", id, "kernel", "info"});
	BOOST_TEST(info.out.find("config CONFIG_HZ=1000") != std::string::npos, info.out);

	// relative expectations: the build's kernel against itself changes
	// nothing; the HZ=1000 image takes several times the ticks (100 -> 1000
	// per second on the arm flavour). Its energy
	// and context switches move by about as much as one seed does from
	// another in this 1 s scenario (-1.0 .. +1.8 %, -5.2 .. -1.9 % over
	// seeds 0-4 on 6.1): the fixture bounds them, the test cannot say
	// which side of the bound a seed falls.
	const auto relative = test::fixture("suite/relative-energy.json").string();
	auto same = test::run_cli({"check", relative});
	BOOST_TEST(same.exit_status == 0, same.out + same.err);
	auto hz = test::run_cli({"--kernel", id, "check", relative});
	BOOST_TEST(hz.exit_status == 1, hz.out + hz.err);
	BOOST_TEST(hz.out.find("not ok 3 -1% <= change of ticks from the baseline <= +1%") != std::string::npos,
		   hz.out);
	BOOST_TEST(hz.out.find("# ticks: measured ") != std::string::npos, hz.out);
	auto reversed = test::run_cli({"check", relative, "--baseline", id});
	BOOST_TEST(reversed.exit_status == 1, reversed.out + reversed.err);
	for (const std::string bad : {"FOO", "hz=1", "HZ=1 0", "HZ=\"a\\\"", "SCHED_MX=n"}) {
		auto refused = test::run_cli({"kernel", "build", "--config", bad});
		BOOST_TEST(refused.exit_status == 2, bad);
		BOOST_TEST(refused.err.find("--config " + bad) != std::string::npos, refused.err);
	}
	// a typo of an option's name is not an image of the unchanged kernel
	BOOST_TEST(test::run_cli({"kernel", "build", "--config", "SCHED_MX=n"}).err.find("declares no such Kconfig "
											     "option") != std::string::npos);
	std::filesystem::remove_all(cache);
	::unsetenv("SCHED_HARNESS_CACHE");
}

BOOST_AUTO_TEST_SUITE_END()
