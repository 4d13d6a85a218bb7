// SPDX-License-Identifier: GPL-2.0
//
// sched-harness bisect end to end: the first patch of a series, or the
// first commit of a kernel tree's history, whose kernel image changes the
// scheduler's decisions or breaks a suite's expectations. Each builds
// kernel images: minutes.
#include "patches.h"
#include "support.h"
#include "temp_files.h"
#include "tree_features.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <string>
#include <vector>

using namespace sh;

namespace {

using test::migration_cost_line;
using test::one_line_patch;
using test::replaced;
using test::temp_path;

} // namespace

BOOST_AUTO_TEST_SUITE(experiment)

// bisect over a series given as one mbox (git format-patch --stdout): a
// comment, the migration cost, another comment. The overloaded symmetric
// scenario's decisions change with the second patch only; a series of
// comments is good throughout (exit 1).
BOOST_AUTO_TEST_CASE(bisect_finds_the_planted_patch)
{
	const auto cache = temp_path("bisect-cache");
	::setenv("SCHED_HARNESS_CACHE", cache.c_str(), 1);
	auto mail = [](int n, const std::string &subject, const std::string &diff) {
		return fmt::format("From {:040x} Mon Sep 17 00:00:00 2001\nFrom: Test <t@example.org>\n"
				   "Subject: [PATCH {}/3] {}\n\n---\n{}\n",
				   n, n, subject, diff);
	};
	const auto first = one_line_patch("kernel/sched/fair.c", " * CFS operations on generic schedulable entities:",
					  " * CFS operations on generic schedulable entities (1):");
	const auto cost = one_line_patch("kernel/sched/fair.c",
					 migration_cost_line(),
					 replaced(migration_cost_line(), "500000UL;", "0UL;"));
	const auto third = one_line_patch("kernel/sched/fair.c", " * CFS operations on tasks:",
					  " * CFS operations on tasks (3):");
	const auto series = temp_path("series.mbox"), comments = temp_path("comments.mbox"),
		   suite = temp_path("lb.json");
	std::ofstream(series) << mail(1, "a comment", first) << mail(2, "the migration cost", cost)
			      << mail(3, "another comment", third);
	std::ofstream(comments) << mail(1, "a comment", first) << mail(2, "another comment", third);
	std::ofstream(suite) << R"({"name": "lb", "scenarios": [{"name": "hikey-overloaded", "board": "hikey",
		"workload": "periodic:count=12,period=16ms,duty=60%", "duration": "1s"}]})";

	auto found = test::run_cli({"bisect", "--patch", series.string(), "--suite", suite.string(), "--decisions",
				    "--repeat", "2"});
	BOOST_TEST(found.exit_status == 0, found.err);
	BOOST_TEST(found.out.find("bisect: 3 patches on Linux " + std::string(SH_TEST_KERNEL_VERSION) + " (the build's own tree), bad when") != std::string::npos, found.out);
	// a patch named by its subject, as on the list
	BOOST_TEST(found.out.find("first bad patch: the migration cost (2 of 3)") != std::string::npos, found.out);
	// locally with --engine-dir: each step's reports kept in a directory of
	// its own, and a bisect started again runs none of them
	const auto kept = temp_path("bisect-kept");
	const std::vector<std::string> keeping{"bisect", "--patch", series.string(), "--suite", suite.string(),
					       "--decisions", "--repeat", "2", "--engine-dir", kept.string()};
	auto first_time = test::run_cli(keeping);
	BOOST_TEST(first_time.exit_status == 0, first_time.err);
	BOOST_TEST(first_time.out == found.out);
	auto reports = [&] {	// each kept report, with when it was written
		std::map<std::string, std::filesystem::file_time_type> written;
		for (const auto &entry : std::filesystem::recursive_directory_iterator(kept))
			if (entry.path().extension() == ".json" && entry.path().parent_path().filename() == "reports")
				written[entry.path().string()] = entry.last_write_time();
		return written;
	};
	const auto before = reports();
	BOOST_TEST(!before.empty());
	auto again = test::run_cli(keeping);
	BOOST_TEST(again.exit_status == 0, again.err);
	BOOST_TEST(again.out == found.out);
	BOOST_TEST((reports() == before), "a bisect started again ran a step's runs again");
	std::filesystem::remove_all(kept);

	auto clean = test::run_cli({"bisect", "--patch", comments.string(), "--suite", suite.string(), "--decisions",
				    "--repeat", "2"});
	BOOST_TEST(clean.exit_status == 1, clean.err);
	BOOST_TEST(clean.out.find("the whole series is good: no decision of " + suite.string() +
				  " differs from the unpatched kernel's with all 2 patches\n") != std::string::npos,
		   clean.out);

	// a prefix that does not compile is skipped, as git bisect skips
	// (a semicolon removed, put back by the next patch)
	const auto broken = one_line_patch("kernel/sched/fair.c",
					   migration_cost_line(),
					   replaced(migration_cost_line(), "500000UL;", "500000UL"));
	std::string mended;	// the same hunk reversed
	std::istringstream lines(broken);
	for (std::string line; std::getline(lines, line);) {
		if (line.starts_with("-") && !line.starts_with("---"))
			line[0] = '+';
		else if (line.starts_with("+") && !line.starts_with("+++"))
			line[0] = '-';
		mended += line + "\n";
	}
	const auto gap = temp_path("gap.mbox");
	std::ofstream(gap) << mail(1, "a comment", first) << mail(2, "a typo", broken) << mail(3, "the fix", mended)
			   << mail(4, "the migration cost", cost);
	auto skipped = test::run_cli({"bisect", "--patch", gap.string(), "--suite", suite.string(), "--decisions",
				      "--repeat", "2"});
	BOOST_TEST(skipped.exit_status == 0, skipped.err);
	BOOST_TEST(skipped.out.find("skipped — it does not build") != std::string::npos, skipped.out);
	BOOST_TEST(skipped.out.find("first bad patch: the migration cost (4 of 4)") != std::string::npos, skipped.out);
	std::filesystem::remove(gap);

	auto neither = test::run_cli({"bisect", "--patch", series.string()});
	BOOST_TEST(neither.exit_status == 2);
	std::filesystem::remove_all(cache);
	for (const auto &p : {series, comments, suite})
		std::filesystem::remove(p);
	::unsetenv("SCHED_HARNESS_CACHE");
}

// bisect over git history (--tree GITDIR --good --bad) and git bisect run
// with `--kernel . check`: a repository holding the files the kernel side
// reads (kernel files) gets a commit that does not compile, its fix, a
// comment, EAS off by default (topology.c) and another comment. The
// expectations of the EAS small-task suite fail from the fourth commit on;
// the broken commit is skipped (exit 125 from check).
BOOST_AUTO_TEST_CASE(bisect_over_git_history)
{
	const auto cache = temp_path("git-cache"), repo = temp_path("git-tree");
	::setenv("SCHED_HARNESS_CACHE", cache.c_str(), 1);
	const auto files = test::run_cli({"kernel", "files"});
	BOOST_REQUIRE_MESSAGE(files.exit_status == 0, files.err);
	std::istringstream names(files.out + "Makefile\n");
	for (std::string name; std::getline(names, name);) {
		std::filesystem::create_directories((repo / name).parent_path());
		std::filesystem::copy_file(std::filesystem::path(SH_TEST_KERNEL_TREE) / name, repo / name);
	}
	auto git = [&](std::vector<std::string> args) {
		std::vector<std::string> argv{"git", "-C", repo.string(), "-c", "user.name=t", "-c", "user.email=t@e"};
		argv.insert(argv.end(), args.begin(), args.end());
		auto r = support::run_tool(argv);
		BOOST_REQUIRE_MESSAGE(r.exit_status == 0, fmt::format("git {}: {}", fmt::join(args, " "), r.err));
		return r.out;
	};
	// replaces one whole line of the file and commits
	auto commit = [&](const std::string &rel, const std::string &from, const std::string &to,
			  const std::string &subject) {
		std::ifstream in(repo / rel);
		std::string text, line;
		bool found = false;
		while (std::getline(in, line)) {
			found |= line == from;
			text += (line == from ? to : line) + "\n";
		}
		BOOST_REQUIRE_MESSAGE(found, rel << " has no line " << from);
		std::ofstream(repo / rel) << text;
		git({"commit", "-q", "-a", "-m", subject});
	};
	git({"init", "-q"});
	git({"add", "-A"});
	git({"commit", "-q", "-m", "base"});
	// the tree's definition of the sysctl (static from 6.1, global in 5.10:
	// test::sched_energy_aware_definition()); the typo drops its ';'
	const std::string eas = test::sched_energy_aware_definition(1), typo = eas.substr(0, eas.size() - 1);
	commit("kernel/sched/topology.c", eas, typo, "a typo");
	commit("kernel/sched/topology.c", typo, eas, "the fix");
	commit("kernel/sched/fair.c", " * CFS operations on generic schedulable entities:",
	       " * CFS operations on generic schedulable entities (a comment):", "a comment");
	commit("kernel/sched/topology.c", eas, test::sched_energy_aware_definition(0), "EAS off by default");
	commit("kernel/sched/fair.c", " * CFS operations on tasks:",
	       " * CFS operations on tasks (another):", "another comment");
	const auto culprit = git({"rev-parse", "HEAD~1"}).substr(0, 12);
	const auto suite = test::fixture("suite/eas-small-task.json").string();

	auto found = test::run_cli({"bisect", "--tree", repo.string(), "--good", "HEAD~5", "--bad", "HEAD", "--expect",
				    suite});
	BOOST_TEST(found.exit_status == 0, found.err);
	BOOST_TEST(found.out.find("bisect: 5 commits") != std::string::npos, found.out);
	BOOST_TEST(found.out.find("first bad commit: " + culprit + " EAS off by default (4 of 5)") != std::string::npos,
		   found.out);
	// why: the scenario, the expectation that failed and what was measured
	BOOST_TEST(found.out.find(": small-task-goes-little: task_cpu_share(periodic-0, cpus 0-3) >= 0.9 "
				  "(task_cpu_share: measured ") != std::string::npos,
		   found.out);
	BOOST_TEST(git({"status", "--porcelain"}).empty());	// the checkout is not touched

	// the culprit as a tarball is the same image: named by what it compiles
	const auto id_at = found.out.find(", image ");
	BOOST_REQUIRE(id_at != std::string::npos);
	const auto culprit_image = found.out.substr(id_at + 8, 16);
	const auto tarball = temp_path("tree.tar.gz");
	git({"archive", "--format=tar.gz", "--prefix=linux-test/", "-o", tarball.string(), "HEAD~1"});
	auto from_tarball = test::run_cli({"kernel", "build", "--tarball", tarball.string()});
	BOOST_TEST(from_tarball.exit_status == 0, from_tarball.err);
	BOOST_TEST(from_tarball.out == culprit_image + "\n", from_tarball.out);
	std::filesystem::remove(tarball);

	// the same through git bisect run, with the tree checked out at each step
	git({"bisect", "start", "HEAD", "HEAD~5"});
	const auto run = git({"bisect", "run", SH_TEST_HARNESS_BIN, "--kernel", ".", "check", suite});
	BOOST_TEST(run.find(culprit) != std::string::npos, run);
	BOOST_TEST(run.find("is the first bad commit") != std::string::npos, run);
	git({"bisect", "reset"});

	// the broken commit itself: exit 125, the compiler's message naming the tree's file
	git({"checkout", "-q", "HEAD~4"});
	auto skip = test::run_cli({"--kernel", repo.string(), "check", suite});
	BOOST_TEST(skip.exit_status == 125, skip.err);
	BOOST_TEST(skip.err.find((repo / "kernel/sched/topology.c").string()) != std::string::npos, skip.err);
	auto no_tree = test::run_cli({"kernel", "build", "--tree", cache.string()});
	BOOST_TEST(no_tree.exit_status == 2);
	BOOST_TEST(no_tree.err.find("not a kernel tree") != std::string::npos, no_tree.err);
	auto no_ref = test::run_cli({"bisect", "--tree", repo.string(), "--good", "nosuchref", "--bad", "HEAD",
				     "--expect", suite});
	BOOST_TEST(no_ref.exit_status == 2);
	BOOST_TEST(no_ref.err.find("no commit nosuchref") != std::string::npos, no_ref.err);
	std::filesystem::remove_all(repo);
	std::filesystem::remove_all(cache);
	::unsetenv("SCHED_HARNESS_CACHE");
}

BOOST_AUTO_TEST_SUITE_END()
