// SPDX-License-Identifier: GPL-2.0
//
// A patch is named as on the list: its mail's Subject without the
// "[PATCH v2 3/7]" tag, folded lines joined; a plain diff has none.
#include "temp_files.h"

#include "harness/image/patch_file.h"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

using namespace sh;

BOOST_AUTO_TEST_SUITE(image)

BOOST_AUTO_TEST_CASE(patches_are_named_by_their_subject)
{
	const auto mail = test::temp_path("mail.patch"), plain = test::temp_path("plain.diff");
	std::ofstream(mail) << "From 1234 Mon Sep 17 00:00:00 2001\n"
			       "From: A Developer <a@example.org>\n"
			       "Subject: [RFC PATCH v2 3/7] sched/fair: Remove the energy margin\n"
			       " in feec()\n"
			       "\n"
			       "Subject: not the header's\n"
			       "---\n";
	std::ofstream(plain) << "--- a/kernel/sched/fair.c\n+++ b/kernel/sched/fair.c\n";
	BOOST_TEST(sh::image::patch_subject(mail).value_or("") == "sched/fair: Remove the energy margin in feec()");
	BOOST_TEST(sh::image::patch_name(mail) == "sched/fair: Remove the energy margin in feec()");
	BOOST_TEST(!sh::image::patch_subject(plain).has_value());
	BOOST_TEST(sh::image::patch_name(plain) == plain.string());
	BOOST_TEST(!sh::image::patch_subject(test::temp_path("missing.patch")).has_value());
	std::filesystem::remove(mail);
	std::filesystem::remove(plain);
}

// A folded line of blanks alone (threw std::out_of_range from substr()
// before: fuzz_patch's input), a CRLF mail, a header without a Subject.
BOOST_AUTO_TEST_CASE(patch_subjects_of_odd_headers)
{
	using sh::image::patch_subject_of;
	BOOST_TEST(patch_subject_of("Subject: [PATCH] sched: x\n \t\n y\n\n").value_or("") == "sched: x y");
	BOOST_TEST(patch_subject_of("From: a\r\nSubject: [PATCH 1/2] sched: crlf\r\n\r\nSubject: no\r\n").value_or("") ==
		   "sched: crlf");
	BOOST_TEST(!patch_subject_of("From: a\n\nSubject: in the body\n").has_value());
	BOOST_TEST(!patch_subject_of("Subject: [PATCH]\n").has_value());
	BOOST_TEST(!patch_subject_of("").has_value());
}

// The files a diff touches, as patch -p1 names them: each once, a rename's
// both names, no /dev/null; a path without a leading directory, one that
// leaves the tree and a text without a diff are BadPatch naming the file.
BOOST_AUTO_TEST_CASE(files_a_patch_touches)
{
	using sh::image::BadPatch;
	using sh::image::touched_files;
	const std::vector<std::string> files = touched_files("--- a/kernel/sched/a.c\t2024-01-01\n"
							     "+++ b/kernel/sched/b.c\r\n"
							     "@@ -1 +1 @@\n-x\n+y\n"
							     "--- /dev/null\n+++ b/kernel/sched/new.h\n"
							     "--- a/kernel/sched/b.c\n+++ b/kernel/sched/b.c\n",
							     "x.patch");
	BOOST_TEST(files == (std::vector<std::string>{"kernel/sched/b.c", "kernel/sched/a.c", "kernel/sched/new.h"}),
		   boost::test_tools::per_element());
	auto refused = [](std::string_view patch) {
		try {
			touched_files(patch, "x.patch");
		} catch (const BadPatch &e) {
			return std::string(e.what());
		}
		return std::string("accepted");
	};
	BOOST_TEST(refused("--- fair.c\n+++ fair.c\n") ==
		   "x.patch: \"fair.c\": a path without a leading directory (expected a/... b/..., as git and diff "
		   "-ru give)");
	BOOST_TEST(refused("--- a/../etc/passwd\n+++ b/../etc/passwd\n") == "x.patch: \"../etc/passwd\" leaves the tree");
	BOOST_TEST(refused("Subject: nothing\n\ntext\n") == "x.patch: no unified diff in it (no ---/+++ lines)");
}

BOOST_AUTO_TEST_SUITE_END()
