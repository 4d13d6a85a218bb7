// SPDX-License-Identifier: GPL-2.0
//
// Every board of the kernel tree whose CPUs carry capacity-dmips-mhz
// boots and shows through the command a user types (`platform show FILE`):
// the kernel's topology, energy model and EAS verdict, and the board power
// model, whose shipped default is skipped with its reason where it cannot
// apply, never a refusal of the board.
#include "dts_corpus.h"
#include "support.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <mutex>

using namespace sh;

BOOST_AUTO_TEST_SUITE(corpus)

BOOST_AUTO_TEST_CASE(every_board_with_capacity_dmips_mhz_shows)
{
	const auto tree = test::kernel_tree();
	const auto corpus = test::dts_corpus(tree);
	BOOST_TEST_REQUIRE(corpus.candidates.size() > 100u);

	std::vector<std::string> failures;
	std::size_t shown = 0, power_skipped = 0;
	std::mutex lock;
	test::in_parallel(corpus.candidates.size(), [&](std::size_t i) {
		const auto &file = corpus.candidates[i];
		bool carries = false;
		try {
			const auto p = test::load(file);
			carries = std::any_of(p.cpus.begin(), p.cpus.end(),
					      [](const auto &c) { return c.capacity_dmips_mhz.has_value(); });
		} catch (const dts::Error &e) {
			std::lock_guard guard(lock);
			failures.emplace_back(e.what());
			return;
		}
		if (!carries)
			return;
		const auto r = test::run_cli({"platform", "show", file.string()});
		std::lock_guard guard(lock);
		if (r.exit_status != 0) {
			failures.push_back(fmt::format("{}: exit {}: {}", file.string(), r.exit_status, r.err));
			return;
		}
		shown++;
		power_skipped += r.out.find("does not apply to it") != std::string::npos;
	});

	std::sort(failures.begin(), failures.end());
	for (const auto &f : failures)
		BOOST_ERROR(f);
	BOOST_TEST_MESSAGE("corpus: platform show on " << shown << " boards whose CPUs carry capacity-dmips-mhz ("
		<< power_skipped << " with their shipped board power file skipped), of " << corpus.all_sources
		<< " .dts files in " << tree.string());
	BOOST_TEST(failures.empty());
	BOOST_TEST(shown > 100u);
}

BOOST_AUTO_TEST_SUITE_END()
