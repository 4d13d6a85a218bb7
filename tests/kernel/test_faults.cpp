// SPDX-License-Identifier: GPL-2.0
//
// Kernel faults become failures that say where: WARN with file and line,
// BUG() and deadlocks as KernelFault naming the kernel function.
#include "fault_driver.h"

#include "kernel-shim/kernel.h"

#include <boost/test/unit_test.hpp>

using namespace sh;

BOOST_AUTO_TEST_SUITE(kernel_faults)

BOOST_AUTO_TEST_CASE(printk_formats_like_the_kernel)
{
	fault_driver_printk();
	const auto &log = kshim::kernel_log();
	BOOST_REQUIRE(!log.empty());
	BOOST_TEST(log.back().text == "fault_driver: abc cpus 0-3,6, 42x 7%");
	BOOST_TEST(log.back().level == 6);	// KERN_INFO
}

// pr_cont() fragments join their line until one ends it, as printk joins
// them (the scheduler's sched-domain dump is written so); a fragment after
// the line ended stands alone, at no level.
BOOST_AUTO_TEST_CASE(pr_cont_joins_the_line_it_continues)
{
	const auto before = kshim::kernel_log().size();
	fault_driver_printk_cont();
	const auto &log = kshim::kernel_log();
	BOOST_REQUIRE(log.size() == before + 3);
	BOOST_TEST(log[before].text == "fault_driver: groups: 0:{ span=0 }, 4:{ span=4 }");
	BOOST_TEST(log[before].level == 6);
	BOOST_TEST(log[before + 1].text == " alone");
	BOOST_TEST(log[before + 1].level == -1);
	BOOST_TEST(log[before + 2].text == "fault_driver: next");
}

BOOST_AUTO_TEST_CASE(warn_is_recorded_with_file_and_line)
{
	const auto before = kshim::kernel_warnings().size();
	const int line = fault_driver_warn(42);
	const auto &warnings = kshim::kernel_warnings();
	BOOST_REQUIRE(warnings.size() == before + 1);
	const auto &w = warnings.back();
	BOOST_TEST(w.file.ends_with("tests/kernel/fault_driver.c"), w.file);
	BOOST_TEST(w.line == line);
	BOOST_TEST(w.text == "fault_driver: value 42");
	BOOST_TEST(w.function == "fault_driver_warn");
}

BOOST_AUTO_TEST_CASE(bug_is_a_fault_naming_file_line_and_function)
{
	try {
		fault_driver_bug();
		BOOST_FAIL("BUG() returned");
	} catch (const kshim::KernelFault &e) {
		const std::string what = e.what();
		BOOST_TEST(what.find("BUG: failure at") != std::string::npos, what);
		BOOST_TEST(what.find("fault_driver.c") != std::string::npos, what);
		BOOST_TEST(what.find("fault_driver_bug()") != std::string::npos, what);
	}
}

BOOST_AUTO_TEST_CASE(lock_taken_twice_is_a_deadlock)
{
	BOOST_CHECK_EXCEPTION(fault_driver_deadlock(), kshim::KernelFault, [](const auto &e) {
		return std::string(e.what()).find("deadlock") != std::string::npos;
	});
}

BOOST_AUTO_TEST_SUITE_END()
