// SPDX-License-Identifier: GPL-2.0
//
// What two releases' compiled sources differ in (image/release_diff):
// the functions of a kernel-style C file, the subsystem of a file, and
// the differences of two small trees made here.
#include "harness/image/release_diff.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace sh;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_SUITE(release_diff)

BOOST_AUTO_TEST_CASE(functions_of_kernel_style_c)
{
	const std::string source = "// SPDX\n#include <linux/sched.h>\n\n"
				   "static const struct x table[] = {\n\t{ 1 },\n};\n\n"
				   "/*\n * A comment.\n */\n"
				   "static unsigned long\n"
				   "cpu_util(int cpu, struct task_struct *p)\n{\n\treturn 0;\n}\n\n"
				   "#ifdef CONFIG_SMP\nvoid helper(void)\n{\n}\n#else\nvoid helper(void)\n{\n\tx();\n}\n#endif\n\n"
				   "SYSCALL_DEFINE1(nice, int, increment)\n{\n\treturn 0;\n}\n"
				   "static struct ops o = {\n\t.f = f,\n};\n";
	const auto functions = image::functions_of(source);
	BOOST_TEST(functions.size() == 3u);
	BOOST_TEST(functions.count("cpu_util") == 1u);
	BOOST_TEST(functions.count("helper") == 1u);	// both #ifdef branches, one name
	BOOST_TEST(functions.at("helper").find("x();") != std::string::npos);
	BOOST_TEST(functions.count("SYSCALL_DEFINE1(nice)") == 1u);
	BOOST_TEST(functions.at("cpu_util").starts_with("static unsigned long cpu_util(int cpu"));
}

BOOST_AUTO_TEST_CASE(subsystems_by_directory)
{
	BOOST_TEST(image::subsystem_of("kernel/sched/fair.c") == "scheduler");
	BOOST_TEST(image::subsystem_of("kernel/power/energy_model.c") == "energy model");
	BOOST_TEST(image::subsystem_of("drivers/cpufreq/cpufreq.c") == "cpufreq");
	BOOST_TEST(image::subsystem_of("drivers/opp/core.c") == "OPP");
	BOOST_TEST(image::subsystem_of("drivers/cpuidle/governors/menu.c") == "cpuidle");
	BOOST_TEST(image::subsystem_of("drivers/thermal/thermal_core.c") == "thermal");
	BOOST_TEST(image::subsystem_of("drivers/base/arch_topology.c") == "topology");
	BOOST_TEST(image::subsystem_of("lib/bitmap.c") == "other");
}

// Two trees of three files: one changed (a function changed, one added),
// one the same, one only in the newer; grouped by subsystem in order.
BOOST_AUTO_TEST_CASE(differences_of_two_trees)
{
	const auto root = fs::temp_directory_path() / fmt::format("sh-release-diff-{}", ::getpid());
	auto write = [](const fs::path &path, const std::string &text) {
		fs::create_directories(path.parent_path());
		std::ofstream(path) << text;
	};
	write(root / "a/kernel/sched/fair.c", "int f(void)\n{\n\treturn 1;\n}\n\nint g(void)\n{\n\treturn 0;\n}\n");
	write(root / "b/kernel/sched/fair.c",
	      "int f(void)\n{\n\treturn 2;\n}\n\nint g(void)\n{\n\treturn 0;\n}\n\nint h(void)\n{\n}\n");
	image::CompiledKernel older{root / "a", {{"kernel/sched/fair.c", "1"}, {"drivers/opp/core.c", "2"}}};
	image::CompiledKernel newer{root / "b",
				    {{"kernel/sched/fair.c", "3"}, {"drivers/opp/core.c", "2"}, {"drivers/thermal/thermal_trip.c", "4"}}};
	const auto differences = image::compiled_differences(older, newer);
	fs::remove_all(root);
	BOOST_REQUIRE(differences.size() == 2u);	// OPP is the same
	BOOST_TEST(differences[0].subsystem == "scheduler");
	BOOST_TEST(differences[0].changed == std::vector<std::string>{"kernel/sched/fair.c"});
	BOOST_REQUIRE(differences[0].functions.size() == 1u);
	BOOST_TEST(differences[0].functions[0].changed == std::vector<std::string>{"f"});
	BOOST_TEST(differences[0].functions[0].added == std::vector<std::string>{"h"});
	BOOST_TEST(differences[1].subsystem == "thermal");
	BOOST_TEST(differences[1].added == std::vector<std::string>{"drivers/thermal/thermal_trip.c"});
}

BOOST_AUTO_TEST_SUITE_END()
