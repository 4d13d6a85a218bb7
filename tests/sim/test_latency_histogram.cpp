// SPDX-License-Identifier: GPL-2.0
//
// The latency histogram against the exact nearest-rank percentiles of the
// same samples: never below, at most 1 % above; count, min and max exact;
// merging equals adding; its size does not grow with the samples.
#include "harness/sim/latency_histogram.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace sh;

namespace {

std::int64_t nearest_rank(std::vector<std::int64_t> v, double p)
{
	std::sort(v.begin(), v.end());
	const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size()) - 1e-9));
	return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

} // namespace

BOOST_AUTO_TEST_SUITE(latency_histogram)

BOOST_AUTO_TEST_CASE(percentiles_within_one_percent_above_the_exact_ones)
{
	std::mt19937_64 rng(42);
	std::lognormal_distribution<double> latency(std::log(50'000.0), 1.5);	// ns, over decades
	std::vector<std::int64_t> samples;
	sim::LatencyHistogram h;
	for (int i = 0; i < 100'000; i++) {
		const auto ns = i % 97 == 0 ? 0 : static_cast<std::int64_t>(latency(rng));
		samples.push_back(ns);
		h.add(ns);
	}
	for (const double p : {0.001, 0.01, 0.5, 0.9, 0.99, 0.999, 1.0}) {
		const auto exact = nearest_rank(samples, p);
		const auto got = h.percentile(p);
		BOOST_TEST_CONTEXT("p" << p * 100 << ": exact " << exact << ", histogram " << got) {
			BOOST_TEST(got >= exact);
			BOOST_TEST(static_cast<double>(got) <= std::ceil(static_cast<double>(exact) * 1.01) + 1);
		}
	}
	const auto s = h.summary();
	BOOST_TEST(s.count == samples.size());
	BOOST_TEST(s.min == *std::min_element(samples.begin(), samples.end()));
	BOOST_TEST(s.max == *std::max_element(samples.begin(), samples.end()));
	BOOST_TEST(h.percentile(0.005) == 0);	// the zeros (1 in 97) come first
}

BOOST_AUTO_TEST_CASE(merging_equals_adding)
{
	sim::LatencyHistogram a, b, both;
	for (std::int64_t ns = 1; ns < 5'000'000; ns = ns * 3 + 7) {
		(ns % 2 ? a : b).add(ns);
		both.add(ns);
	}
	sim::LatencyHistogram merged;
	merged += a;
	merged += b;
	for (const double p : {0.1, 0.5, 0.9, 1.0})
		BOOST_TEST(merged.percentile(p) == both.percentile(p));
	BOOST_TEST(merged.count() == both.count());
	BOOST_TEST(sim::LatencyHistogram().summary().count == 0u);
	BOOST_TEST(sim::LatencyHistogram().percentile(0.5) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
