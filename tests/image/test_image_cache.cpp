// SPDX-License-Identifier: GPL-2.0
//
// The image cache as kernel list and kernel prune see it, on images made by
// hand in a cache of the test's own (a manifest, a last-used stamp, the
// libraries as links to the build's own): what each image's state is, that
// prune removes the images that cannot load before any that can and then
// keeps the most recently used, and that naming or running an image records
// its use, even where the stamp cannot be written. Seconds: nothing is
// compiled.
#include "harness/image/image.h"
#include "support.h"
#include "temp_files.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>

using namespace sh;
namespace fs = std::filesystem;

namespace {

using test::temp_path;

// An image as the cache holds it, made by hand.
struct FakeImage {
	std::string id;				// 16 hex digits, the directory's name
	fs::path tree = test::kernel_tree();	// the build's own: never gone
	std::vector<fs::path> patches{};
	std::vector<std::string> flavours{"arm64", "arm"};	// their libraries, links to the build's
	std::string failed{};			// a flavour whose build failed
	std::string created = "2026-01-01T00:00:00Z";
	std::chrono::hours used_ago{0};		// the last-used stamp's age
};

// The build's own kernel libraries (the binary's sibling directory): an
// image of them runs as the build's kernel does.
fs::path own_library(const std::string &flavour)
{
	return fs::path(SH_TEST_HARNESS_BIN).parent_path().parent_path() / "kernel-shim" /
	       (flavour == "arm" ? "libksched_arm.so" : "libksched.so");
}

std::string json_strings(const std::vector<std::string> &v)
{
	std::string out;
	for (const auto &s : v)
		out += fmt::format("{}\"{}\"", out.empty() ? "" : ", ", s);
	return "[" + out + "]";
}

fs::path make_image(const fs::path &cache, const FakeImage &image)
{
	const auto dir = cache / "images" / image.id;
	fs::create_directories(dir);
	std::vector<std::string> patches;
	for (const auto &p : image.patches)
		patches.push_back(p.string());
	std::ofstream(dir / "manifest.json") << fmt::format(
		R"({{"id": "{}", "tree": "{}", "patches": {}, "files": [], "flavours": {}, "recompiled": [], )"
		R"("config": [], "created": "{}"}})",
		image.id, image.tree.string(), json_strings(patches), json_strings(image.flavours), image.created);
	for (const auto &f : image.flavours)
		fs::create_symlink(own_library(f), dir / own_library(f).filename());
	if (!image.failed.empty())
		std::ofstream(dir / ("failed-" + image.failed)) << "kernel/sched/fair.c:1:1: error: expected ';'\n";
	std::ofstream(dir / "last-used").close();
	fs::last_write_time(dir / "last-used", fs::file_time_type::clock::now() - image.used_ago);
	return dir;
}

// The ids kernel list shows, in its order.
std::vector<std::string> listed_ids(const std::string &list)
{
	std::vector<std::string> ids;
	std::istringstream lines(list);
	for (std::string line; std::getline(lines, line);)
		if (!line.empty() && line[0] != ' ')
			ids.push_back(line.substr(0, line.find(' ')));
	return ids;
}

// The line kernel list shows for the image, and the one below it.
std::string listed(const std::string &list, const std::string &id)
{
	const auto at = list.find(id + "  ");
	if (at == std::string::npos)
		return "";
	const auto end = list.find('\n', list.find('\n', at) + 1);
	return list.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The test's own cache, for every sched-harness it runs; removed after.
struct Cache {
	fs::path dir = temp_path("image-cache");
	Cache() { ::setenv("SCHED_HARNESS_CACHE", dir.c_str(), 1); }
	~Cache()
	{
		::unsetenv("SCHED_HARNESS_CACHE");
		fs::remove_all(dir);
	}
};

} // namespace

BOOST_AUTO_TEST_SUITE(image_cache)

// Each state kernel list can give, with why, most recently used first: an
// image whose tree is gone (a finished bisect's checkout), whose patch is
// gone, whose arm flavour failed to compile, that has no flavour yet, and
// whose manifest is unreadable.
BOOST_AUTO_TEST_CASE(list_marks_images_that_cannot_load)
{
	const Cache cache;
	const auto patch = temp_path("kept.patch");
	std::ofstream(patch) << "--- a/x\n+++ b/x\n";
	const auto gone_tree = temp_path("bisect/trees/0123abcd");	// never made
	const auto gone_patch = temp_path("deleted.patch");
	make_image(cache.dir, {.id = "00000000000000a1", .patches = {patch}, .used_ago = std::chrono::hours(1)});
	make_image(cache.dir, {.id = "00000000000000a2", .tree = gone_tree, .flavours = {"arm64"},
			       .used_ago = std::chrono::hours(2)});
	make_image(cache.dir, {.id = "00000000000000a3", .patches = {gone_patch}, .used_ago = std::chrono::hours(3)});
	make_image(cache.dir, {.id = "00000000000000a4", .patches = {patch}, .flavours = {"arm64"}, .failed = "arm",
			       .used_ago = std::chrono::hours(4)});
	make_image(cache.dir, {.id = "00000000000000a5", .patches = {patch}, .flavours = {},
			       .used_ago = std::chrono::hours(5)});
	const auto broken = make_image(cache.dir, {.id = "00000000000000a6", .used_ago = std::chrono::hours(6)});
	std::ofstream(broken / "manifest.json") << "{\"id\": ";

	const auto list = test::run_cli({"kernel", "list"});
	BOOST_REQUIRE_MESSAGE(list.exit_status == 0, list.err);
	BOOST_TEST(listed_ids(list.out) == (std::vector<std::string>{"00000000000000a1", "00000000000000a2",
								       "00000000000000a3", "00000000000000a4",
								       "00000000000000a5", "00000000000000a6"}),
		   list.out);
	const auto ok = listed(list.out, "00000000000000a1");
	BOOST_TEST(ok.starts_with("00000000000000a1  ok          used "), ok);
	BOOST_TEST(ok.find("arm64+arm") != std::string::npos, ok);
	BOOST_TEST(ok.find("\n ") == std::string::npos, ok);	// no reason line
	const auto stale_tree = listed(list.out, "00000000000000a2");
	BOOST_TEST(stale_tree.starts_with("00000000000000a2  stale "), stale_tree);
	BOOST_TEST(stale_tree.find("its tree " + gone_tree.string() +
				   " is gone: it cannot be built again, and its arm flavour can never be") !=
			   std::string::npos,
		   stale_tree);
	const auto stale_patch = listed(list.out, "00000000000000a3");
	BOOST_TEST(stale_patch.find("stale") != std::string::npos, stale_patch);
	BOOST_TEST(stale_patch.find("its patch " + gone_patch.string() + " is gone: it cannot be built again") !=
			   std::string::npos,
		   stale_patch);
	BOOST_TEST(stale_patch.find("can never be") == std::string::npos, stale_patch);	// both flavours built
	const auto failed = listed(list.out, "00000000000000a4");
	BOOST_TEST(failed.starts_with("00000000000000a4  failed "), failed);
	BOOST_TEST(failed.find("the arm flavour did not compile: kernel/sched/fair.c:1:1: error: expected ';'") !=
			   std::string::npos,
		   failed);
	const auto incomplete = listed(list.out, "00000000000000a5");
	BOOST_TEST(incomplete.starts_with("00000000000000a5  incomplete "), incomplete);
	BOOST_TEST(incomplete.find("its arm64 and arm flavours are built when a board first needs them") !=
			   std::string::npos,
		   incomplete);
	const auto broken_line = listed(list.out, "00000000000000a6");
	BOOST_TEST(broken_line.starts_with("00000000000000a6  broken "), broken_line);
	BOOST_TEST(broken_line.find("a broken manifest") != std::string::npos, broken_line);
	fs::remove(patch);
}

// The user's report: prune --keep kept a bisect's images and failed builds,
// used last, and removed the one real image. Those go first whatever their
// use; then the most recently used images are kept, however old their build.
BOOST_AUTO_TEST_CASE(prune_removes_images_that_cannot_load_first_then_keeps_the_most_recently_used)
{
	const Cache cache;
	// the real image: built first, used recently
	make_image(cache.dir, {.id = "00000000000000b1", .created = "2026-01-01T00:00:00Z",
			       .used_ago = std::chrono::hours(2)});
	// built last, used long ago
	make_image(cache.dir, {.id = "00000000000000b2", .created = "2026-03-01T00:00:00Z",
			       .used_ago = std::chrono::hours(48)});
	// a bisect's step and a failed build, used most recently
	make_image(cache.dir, {.id = "00000000000000b3", .tree = temp_path("bisect/trees/feed"),
			       .created = "2026-02-01T00:00:00Z", .used_ago = std::chrono::hours(0)});
	make_image(cache.dir, {.id = "00000000000000b4", .flavours = {}, .failed = "arm64",
			       .created = "2026-02-02T00:00:00Z", .used_ago = std::chrono::hours(1)});

	auto exists = [&](const std::string &id) { return fs::exists(cache.dir / "images" / id); };
	const auto two = test::run_cli({"kernel", "prune", "--keep", "2"});
	BOOST_REQUIRE_MESSAGE(two.exit_status == 0, two.err);
	BOOST_TEST(two.out.find("removed 2 images (2 that cannot load: failed, stale or broken; 0 least recently "
				"used)") != std::string::npos,
		   two.out);
	BOOST_TEST(!exists("00000000000000b3"));
	BOOST_TEST(!exists("00000000000000b4"));
	BOOST_TEST(exists("00000000000000b1"));
	BOOST_TEST(exists("00000000000000b2"));

	const auto one = test::run_cli({"kernel", "prune", "--keep", "1"});
	BOOST_REQUIRE_MESSAGE(one.exit_status == 0, one.err);
	BOOST_TEST(one.out.find("removed 1 image (0 that cannot load: failed, stale or broken; 1 least recently "
				"used)") != std::string::npos,
		   one.out);
	BOOST_TEST(one.out.find("kept the 1 most recently used") != std::string::npos, one.out);
	BOOST_TEST(exists("00000000000000b1"));		// used 2 hours ago
	BOOST_TEST(!exists("00000000000000b2"));	// built last, used 2 days ago
}

// prune removes the extracted tarballs (trees/tarball-HASH) and the
// builds of another series (builds/linux-SERIES-HASH) no kept image was
// made from, never the packages scripts/fetch-kernel.sh fetched into
// trees/ (linux-source-SERIES_VERSION: a tree is fetched, not rebuilt).
BOOST_AUTO_TEST_CASE(prune_keeps_fetched_trees_and_removes_unused_series_builds)
{
	const Cache cache;
	const auto fetched = cache.dir / "trees" / "linux-source-7.3_7.3.4-1~bpo13+1" / "usr" / "src";
	const auto extracted = cache.dir / "trees" / "tarball-00000000000000aa";
	const auto build = cache.dir / "builds" / "linux-6.12-00000000000000bb";
	for (const auto &dir : {fetched, extracted, build})
		fs::create_directories(dir);
	std::ofstream(fetched / "linux-source-7.3.tar.xz") << "a tarball";
	std::ofstream(build.string() + ".lock") << "";
	const auto pruned = test::run_cli({"kernel", "prune"});
	BOOST_REQUIRE_MESSAGE(pruned.exit_status == 0, pruned.err);
	BOOST_TEST(fs::exists(fetched / "linux-source-7.3.tar.xz"));
	BOOST_TEST(!fs::exists(extracted));
	BOOST_TEST(!fs::exists(build));
	BOOST_TEST(!fs::exists(build.string() + ".lock"));
}

// The trees the builds share (sources/NAME-KEY, cmake/KernelTree.cmake)
// stay while their tarball is as it was extracted; one whose tarball is
// gone or changed is removed, and so is one a configure that died left
// half extracted (.tmp.PID).
BOOST_AUTO_TEST_CASE(prune_removes_shared_trees_whose_tarball_changed)
{
	const Cache cache;
	const auto tarball = cache.dir / "linux-source-6.1.tar.xz";
	fs::create_directories(cache.dir);
	std::ofstream(tarball) << "a tarball";
	struct stat st {};
	BOOST_REQUIRE(::stat(tarball.c_str(), &st) == 0);
	auto extracted = [&](const std::string &name, const std::string &stamp) {
		const auto dir = cache.dir / "sources" / name;
		fs::create_directories(dir / "linux-source-6.1");
		std::ofstream(dir / ".extracted") << tarball.string() << '\n' << stamp << '\n';
		return dir;
	};
	const auto current = extracted("linux-source-6.1-00000000000000a1",
				       fmt::format("{}@{}", st.st_size, static_cast<long long>(st.st_mtim.tv_sec)));
	const auto changed = extracted("linux-source-6.1-00000000000000a2",
				       fmt::format("{}@{}", st.st_size + 1, static_cast<long long>(st.st_mtim.tv_sec)));
	const auto dead = cache.dir / "sources" / "linux-source-6.1-00000000000000a3.tmp.999999999";
	fs::create_directories(dead / "linux-source-6.1");
	const auto pruned = test::run_cli({"kernel", "prune"});
	BOOST_REQUIRE_MESSAGE(pruned.exit_status == 0, pruned.err);
	BOOST_TEST(fs::exists(current / "linux-source-6.1"));
	BOOST_TEST(!fs::exists(changed));
	BOOST_TEST(!fs::exists(dead));
	fs::remove(tarball);
	BOOST_REQUIRE(test::run_cli({"kernel", "prune"}).exit_status == 0);
	BOOST_TEST(!fs::exists(current));
}

// An image's library cut short (a node lost mid-copy of a shared cache, a
// full disk) was listed "ok" and the run died of SIGBUS without a word;
// one changed in place would have run as if built. Each is checked against
// the sum recorded when it was built: kernel list names the short one, and
// a run removes either, says why, builds the flavour again and runs.
BOOST_AUTO_TEST_CASE(a_damaged_library_is_rebuilt_not_loaded)
{
	const Cache cache;
	// an image of the build's own tree, nothing changed: linked, not compiled (a second)
	const auto built = test::run_cli({"--arch", "arm64", "kernel", "build", "--tree", test::kernel_tree().string()});
	BOOST_REQUIRE_MESSAGE(built.exit_status == 0, built.err);
	const auto ids = listed_ids(test::run_cli({"kernel", "list"}).out);
	BOOST_REQUIRE_EQUAL(ids.size(), 1u);
	const auto id = ids.front();
	const auto library = cache.dir / "images" / id / "libksched.so";
	BOOST_REQUIRE(fs::exists(library.string() + ".sum"));
	const auto size = fs::file_size(library);
	fs::resize_file(library, size / 2);

	const auto list = test::run_cli({"kernel", "list"});
	BOOST_REQUIRE_MESSAGE(list.exit_status == 0, list.err);
	BOOST_TEST(listed(list.out, id).find(fmt::format("libksched.so has {} bytes of the {} built", size / 2, size)) !=
		   std::string::npos,
		   list.out);

	auto run = [&] { return test::run_cli({"--kernel", id, "run", "--board", "hikey", "--duration", "50ms"}); };
	const auto short_run = run();
	BOOST_TEST(short_run.exit_status == 0, short_run.err);
	BOOST_TEST(short_run.err.find(fmt::format("image {}: libksched.so has {} bytes of the {} built: removed, its "
						  "arm64 flavour is built again",
						  id, size / 2, size)) != std::string::npos,
		   short_run.err);
	BOOST_TEST(fs::file_size(library) == size);
	BOOST_TEST(fs::file_size(library) > size / 2);

	// the same size, one byte changed: only its content tells
	{
		std::fstream bytes(library, std::ios::in | std::ios::out | std::ios::binary);
		bytes.seekg(4096);
		const char was = static_cast<char>(bytes.get());
		bytes.seekp(4096);
		bytes.put(static_cast<char>(was ^ 0x5a));
	}
	const auto changed_run = run();
	BOOST_TEST(changed_run.exit_status == 0, changed_run.err);
	BOOST_TEST(changed_run.err.find("libksched.so is not the library built (its content changed): removed") !=
		   std::string::npos,
		   changed_run.err);
	const auto again = run();
	BOOST_TEST(again.exit_status == 0, again.err);
	BOOST_TEST(again.err.find("removed") == std::string::npos, again.err);
}

// Naming an image runs it (--kernel ID), and stamps it: it is listed first
// now. A stamp that cannot be written (a link to nowhere, as a read-only
// cache would refuse it) does not fail the run.
BOOST_AUTO_TEST_CASE(a_run_records_its_images_use)
{
	const Cache cache;
	make_image(cache.dir, {.id = "00000000000000c1", .used_ago = std::chrono::hours(1)});
	const auto old = make_image(cache.dir, {.id = "00000000000000c2", .used_ago = std::chrono::hours(5)});
	auto first = [] {
		const auto list = test::run_cli({"kernel", "list"});
		BOOST_REQUIRE_MESSAGE(list.exit_status == 0, list.err);
		return listed_ids(list.out).at(0);
	};
	BOOST_TEST(first() == "00000000000000c1");
	const auto ran = test::run_cli({"--kernel", "00000000000000c2", "run", "--board", "hikey", "--duration", "50ms"});
	BOOST_REQUIRE_MESSAGE(ran.exit_status == 0, ran.err);
	BOOST_TEST(ran.out.find("image 00000000000000c2") != std::string::npos, ran.out);
	BOOST_TEST(first() == "00000000000000c2");

	fs::remove(old / "last-used");
	fs::create_symlink(temp_path("no-such-dir") / "last-used", old / "last-used");
	const auto unstamped = test::run_cli({"--kernel", old.string(), "run", "--board", "hikey", "--duration", "50ms"});
	BOOST_TEST(unstamped.exit_status == 0, unstamped.err);
	BOOST_TEST(!fs::exists(temp_path("no-such-dir")));
}

BOOST_AUTO_TEST_SUITE_END()
