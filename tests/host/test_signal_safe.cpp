// SPDX-License-Identifier: GPL-2.0
//
// The pieces a fatal signal's handler reports and cleans up with
// (support/signal_safe.h): each must do what its normal-context
// counterpart (fmt, std::filesystem::remove_all(), run_tool()) does.
#include "support/signal_safe.h"
#include "temp_files.h"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace sh;

BOOST_AUTO_TEST_SUITE(host)

BOOST_AUTO_TEST_CASE(text_is_formatted_as_fmt_formats_it)
{
	support::SignalSafeText text;
	text << "pc ";
	text.hex(0xffff800008123abcULL) << " cpu ";
	text.decimal(0) << " events ";
	text.decimal(18446744073709551615ULL) << " at ";
	text.seconds(499'836'499, 6) << " ";
	text.seconds(499'836'500, 6) << " ";
	text.seconds(2'000'000'000, 0) << " ";
	text.seconds(-1'500'000, 3);
	BOOST_TEST(text.view() == "pc 0xffff800008123abc cpu 0 events 18446744073709551615 at 0.499836 0.499837 2 -0.002");
	text.clear();
	text.hex(0);
	BOOST_TEST(text.view() == "0x0");
}

BOOST_AUTO_TEST_CASE(text_that_does_not_fit_is_cut)
{
	support::SignalSafeText text;
	const std::string line(1000, 'x');
	for (int i = 0; i < 5; i++)
		text << line;
	BOOST_TEST(text.view().size() == 2048u);
	BOOST_TEST(text.view().find_first_not_of('x') == std::string_view::npos);
}

BOOST_AUTO_TEST_CASE(tree_is_removed_without_following_links)
{
	const auto root = test::temp_path("tree");
	const auto outside = test::temp_path("outside");
	std::filesystem::create_directories(outside);
	std::ofstream(outside / "kept") << "kept";
	// deeper and wider than one getdents64() buffer
	auto dir = root;
	for (int depth = 0; depth < 6; depth++) {
		dir /= "d" + std::to_string(depth);
		std::filesystem::create_directories(dir);
		for (int i = 0; i < 60; i++)
			std::ofstream(dir / ("a-file-with-a-long-name-" + std::to_string(i))) << i;
	}
	std::filesystem::create_directory_symlink(outside, root / "link");
	support::remove_tree_signal_safe(root.c_str());
	BOOST_TEST(!std::filesystem::exists(root));
	BOOST_TEST(std::filesystem::exists(outside / "kept"));
	support::remove_tree_signal_safe(root.c_str());	// gone already: nothing to do
	std::filesystem::remove_all(outside);
}

BOOST_AUTO_TEST_CASE(tool_output_is_read)
{
	char sh[4096];
	support::find_in_path("sh", sh, sizeof sh);
	BOOST_REQUIRE(sh[0] == '/');
	const char *const argv[] = {sh, "-c", "echo first; echo second >&2; echo third", nullptr};
	char out[64];
	BOOST_TEST(support::run_and_read_signal_safe(argv, out, sizeof out, 10'000));
	BOOST_TEST(std::string(out) == "first\nthird\n");
	// cut to the buffer
	char small[4];
	BOOST_TEST(support::run_and_read_signal_safe(argv, small, sizeof small, 10'000));
	BOOST_TEST(std::string(small) == "fir");
	const char *const failing[] = {sh, "-c", "echo partial; exit 1", nullptr};
	BOOST_TEST(!support::run_and_read_signal_safe(failing, out, sizeof out, 10'000));
	BOOST_TEST(std::string(out) == "partial\n");
	const char *const missing[] = {"/nonexistent/addr2line", nullptr};
	BOOST_TEST(!support::run_and_read_signal_safe(missing, out, sizeof out, 10'000));
	BOOST_TEST(std::string(out).empty());
}

BOOST_AUTO_TEST_CASE(tool_that_does_not_finish_is_killed)
{
	char sh[4096];
	support::find_in_path("sh", sh, sizeof sh);
	const char *const argv[] = {sh, "-c", "echo started; exec sleep 60", nullptr};
	char out[64];
	const auto start = std::chrono::steady_clock::now();
	BOOST_TEST(!support::run_and_read_signal_safe(argv, out, sizeof out, 300));
	const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
	BOOST_TEST(std::string(out) == "started\n");
	BOOST_TEST(seconds < 5.0);
}

BOOST_AUTO_TEST_CASE(program_not_in_path_is_not_found)
{
	char path[4096];
	support::find_in_path("sched-harness-no-such-tool", path, sizeof path);
	BOOST_TEST(path[0] == '\0');
}

BOOST_AUTO_TEST_SUITE_END()
