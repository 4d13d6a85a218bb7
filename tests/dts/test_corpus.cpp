// SPDX-License-Identifier: GPL-2.0
//
// The kernel tree's own boards as a corpus: every .dts under
// arch/arm/boot/dts and arch/arm64/boot/dts whose CPUs carry
// capacity-dmips-mhz must load without error.
#include "dts_corpus.h"
#include "support.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <mutex>

using namespace sh;

BOOST_AUTO_TEST_SUITE(corpus)

BOOST_AUTO_TEST_CASE(every_board_with_capacity_dmips_mhz_loads)
{
	const auto tree = test::kernel_tree();
	const auto corpus = test::dts_corpus(tree);
	BOOST_TEST_REQUIRE(corpus.candidates.size() > 100u);

	std::vector<std::string> failures;
	std::size_t with_capacity = 0;
	std::mutex lock;
	test::in_parallel(corpus.candidates.size(), [&](std::size_t i) {
		try {
			auto p = test::load(corpus.candidates[i]);
			const bool carries = std::any_of(p.cpus.begin(), p.cpus.end(), [](const auto &c) {
				return c.capacity_dmips_mhz.has_value();
			});
			std::lock_guard guard(lock);
			with_capacity += carries;
		} catch (const dts::Error &e) {
			std::lock_guard guard(lock);
			failures.emplace_back(e.what());
		}
	});

	std::sort(failures.begin(), failures.end());
	for (const auto &f : failures)
		BOOST_ERROR(f);
	BOOST_TEST_MESSAGE("corpus: " << with_capacity << " boards whose CPUs carry capacity-dmips-mhz "
		"loaded (" << corpus.candidates.size() << " candidates of " << corpus.all_sources
		<< " .dts files in " << tree.string() << ")");
	BOOST_TEST(failures.empty());
	BOOST_TEST(with_capacity > 100u);
}

BOOST_AUTO_TEST_SUITE_END()
