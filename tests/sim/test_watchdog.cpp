// SPDX-License-Identifier: GPL-2.0
//
// The simulator's watchdog: kernel code that does not return to it is a
// kernel fault (exit 3) naming where it spins. The kernel that hangs is an
// image built from a patch: minutes.
#include "patches.h"
#include "support.h"
#include "temp_files.h"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

using namespace sh;

namespace {

using test::one_line_patch;
using test::temp_path;
using test::write;

} // namespace

BOOST_AUTO_TEST_SUITE(sim)

// Kernel code that never returns: a patch makes pick_next_task_fair() spin
// from 0.5 s of simulated time on. The watchdog (2 s here) stops the run
// as a kernel fault naming the function and its callers, so a sweep or a
// bisect carries on.
//
// On a board of six CPUs the same patch makes it recurse without end
// instead: the stack overflows, and the oops handler, on a stack of its
// own, names the overflow and the function (the image is built once, for
// both: minutes).
//
// The function that holds "int new_tasks;" is the fair class's pick
// (test::fair_pick(): pick_task_fair on 7.3).
BOOST_AUTO_TEST_CASE(patch_that_spins_in_pick_next_task_fair_is_a_kernel_hang)
{
	const auto cache = temp_path("spin-cache");
	::setenv("SCHED_HARNESS_CACHE", cache.c_str(), 1);
	const auto [pick, call] = test::fair_pick();
	const auto spin = write(temp_path("spin.patch"),
				one_line_patch("kernel/sched/fair.c", "\tint new_tasks;",
					       "\tint new_tasks; if (READ_ONCE(rq->clock) > 500000000ULL && nr_cpu_ids == 6) { "
					       "volatile char deep[256]; deep[0] = 0; if (" + call + ") "
					       "deep[1] = 1; } while (READ_ONCE(rq->clock) > 500000000ULL) cpu_relax();"));
	auto built = test::run_cli({"--arch", "arm64", "kernel", "build", "--patch", spin});
	BOOST_REQUIRE_MESSAGE(built.exit_status == 0, built.err);
	const auto id = built.out.substr(0, 16);
	const auto start = std::chrono::steady_clock::now();
	auto r = test::run_cli({"--kernel", id, "run", "--board", "hikey960", "--watchdog", "2"});
	const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
	BOOST_TEST(r.exit_status == 3, r.err);
	BOOST_TEST(r.err.find("sched-harness: kernel fault: kernel hang in " + pick + " (called from ") !=
			   std::string::npos,
		   r.err);
	// the spin starts when rq->clock passes 0.5 s; the report counts from
	// the run's start, which boot's own time precedes (by tree)
	std::smatch at;
	BOOST_TEST_REQUIRE(std::regex_search(r.err, at, std::regex(R"(no return to the simulator for 2 s \(simulated time ([0-9.]+) s)")),
			   r.err);
	const double t = std::stod(at[1]);
	BOOST_TEST((t > 0.45 && t < 0.55), "reported at " << t << " s");
	BOOST_TEST(seconds < 30.0, "the hang took " << seconds << " s to report");

	auto overflow = test::run_cli({"--kernel", id, "run", "--board", "rk3399", "--watchdog", "2"});
	BOOST_TEST(overflow.exit_status == 3, overflow.err);
	BOOST_TEST(overflow.err.find("sched-harness: kernel fault: Oops: kernel stack overflow (Segmentation fault) in " +
				     pick + "\n") != std::string::npos,
		   overflow.err);
	std::filesystem::remove_all(cache);
	::unsetenv("SCHED_HARNESS_CACHE");
}

BOOST_AUTO_TEST_SUITE_END()
