// SPDX-License-Identifier: GPL-2.0
//
// A patch is named as on the list: its mail's Subject without the
// "[PATCH v2 3/7]" tag, folded lines joined; a plain diff has none.
#include "temp_files.h"

#include "harness/image/patch_subject.h"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <string>

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

BOOST_AUTO_TEST_SUITE_END()
