// SPDX-License-Identifier: GPL-2.0
//
// The statistics behind `compare`: summaries, Welch's t test against a
// published example, the verdicts and the bimodality warning.
#include "harness/stats/stats.h"

#include <boost/test/unit_test.hpp>
#include <ostream>
#include <vector>

namespace sh::stats {
std::ostream &operator<<(std::ostream &os, Verdict v)
{
	return os << to_string(v);
}
} // namespace sh::stats

using namespace sh;
namespace tt = boost::test_tools;

BOOST_AUTO_TEST_SUITE(stats_suite)

BOOST_AUTO_TEST_CASE(summary_is_perf_stat_s)
{
	const std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};
	const auto s = stats::summarize(v);
	BOOST_TEST(s.n == 8u);
	BOOST_TEST(s.mean == 5.0);
	BOOST_TEST(s.sd == 2.1380899, tt::tolerance(1e-6));	// sample sd (n - 1)
	BOOST_TEST(s.rsd_percent() == 42.761798, tt::tolerance(1e-6));
	BOOST_TEST(s.min == 2.0);
	BOOST_TEST(s.max == 9.0);
}

// Wikipedia's "Welch's t-test", example 1: t = -2.46, df = 24.99, p = 0.021
// (p checked by integrating Student's t density independently: 0.021378).
BOOST_AUTO_TEST_CASE(welch_matches_the_published_example)
{
	const std::vector<double> a{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4};
	const std::vector<double> b{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4};
	const auto c = stats::compare(a, b, 0.05);
	BOOST_REQUIRE(c.p.has_value());
	BOOST_TEST(*c.p == 0.021378, tt::tolerance(1e-4));
	BOOST_TEST(c.verdict == stats::Verdict::changed);
	BOOST_TEST(stats::compare(a, b, 0.01).verdict == stats::Verdict::no_evidence);
	BOOST_TEST(*c.delta_percent > 0);
}

BOOST_AUTO_TEST_CASE(verdicts_without_noise)
{
	const std::vector<double> a{3, 4, 5}, same{3, 4, 5}, shifted{4, 5, 6}, one{7, 7, 7}, other{8, 8, 8};
	BOOST_TEST(stats::compare(a, same, 0.01).verdict == stats::Verdict::identical);
	BOOST_TEST(!stats::compare(a, same, 0.01).p.has_value());
	BOOST_TEST(stats::compare(one, one, 0.01).verdict == stats::Verdict::identical);
	// every run differs by the same amount and neither side varies: changed outright
	BOOST_TEST(stats::compare(one, other, 0.01).verdict == stats::Verdict::changed);
	BOOST_TEST(*stats::compare(one, other, 0.01).delta_percent == 100.0 / 7.0, tt::tolerance(1e-9));
	// noise on one side: tested
	const auto c = stats::compare(a, shifted, 0.01);
	BOOST_REQUIRE(c.p.has_value());
	BOOST_TEST(c.verdict == stats::Verdict::no_evidence);
}

// A's mean 0 (migrations of one pinned task, the time overutilized with
// EAS off): no percentage (it was +0.00 %, beside the verdict changed),
// the absolute change B - A instead.
BOOST_AUTO_TEST_CASE(delta_from_a_zero_mean_is_absolute_only)
{
	const std::vector<double> zero{0, 0, 0}, some{10, 10.5, 10.1};
	const auto c = stats::compare(zero, some, 0.01);
	BOOST_TEST(!c.delta_percent.has_value());
	BOOST_TEST(c.delta == 10.2, tt::tolerance(1e-9));
	BOOST_TEST(c.verdict == stats::Verdict::changed);
	const auto none = stats::compare(zero, zero, 0.01);
	BOOST_TEST(!none.delta_percent.has_value());
	BOOST_TEST(none.delta == 0.0);
	// from a nonzero mean: both, and the percentage of |A|
	const std::vector<double> negative{-4, -4, -4}, less{-2, -2, -2};
	const auto up = stats::compare(negative, less, 0.01);
	BOOST_TEST(up.delta == 2.0);
	BOOST_TEST(*up.delta_percent == 50.0, tt::tolerance(1e-9));
	BOOST_TEST(*stats::compare(some, zero, 0.01).delta_percent == -100.0, tt::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(bimodality_is_flagged)
{
	const std::vector<double> two_clusters{1.0, 1.1, 0.9, 1.05, 5.0, 5.1, 4.9, 5.05};
	const std::vector<double> bell{4.8, 4.9, 5.0, 5.0, 5.0, 5.1, 5.2, 5.0, 4.95, 5.05};
	BOOST_TEST(stats::bimodal(two_clusters));
	// hikey960's default scenario, seeds 0-9 (one seed ran its LITTLE CPUs faster)
	BOOST_TEST(stats::bimodal(std::vector<double>{4.60, 5.37, 4.53, 4.55, 4.57, 4.59, 4.64, 4.58, 4.60, 4.60}));
	BOOST_TEST(!stats::bimodal(bell));
	BOOST_TEST(!stats::bimodal(std::vector<double>{1, 2, 3, 9}));	// too few to say
	BOOST_TEST(!stats::bimodal(std::vector<double>{2, 2, 2, 2, 2}));
	// one value apart among five: not enough to call it an outlier
	BOOST_TEST(!stats::bimodal(std::vector<double>{5.0, 5.1, 5.05, 4.95, 7.0}));
	BOOST_TEST(stats::bimodal(std::vector<double>{5.0, 5.1, 7.05, 6.95, 5.05}));
}

// A bimodal variant is worth a warning only when one run decides the verdict.
BOOST_AUTO_TEST_CASE(a_bimodal_variant_is_fragile_only_when_one_run_decides)
{
	// B's outlier (seed 8) hides a change: its variance is the outlier's
	const std::vector<double> a{4.60, 4.61, 4.59, 4.60, 4.62, 4.58, 4.60, 4.61, 4.59, 4.60};
	const std::vector<double> b_outlier{4.70, 4.71, 4.69, 4.70, 4.72, 4.68, 4.70, 3.00, 4.69, 4.71};
	const auto c = stats::compare(a, b_outlier, 0.01);
	BOOST_TEST(c.b_bimodal);
	BOOST_TEST(c.verdict == stats::Verdict::no_evidence);
	BOOST_TEST_REQUIRE(c.b_fragile.has_value());
	BOOST_TEST(c.b_fragile->index == 7u);
	BOOST_TEST(c.b_fragile->value == 3.00);
	BOOST_TEST(c.b_fragile->verdict_without == stats::Verdict::changed);
	BOOST_TEST(!c.a_fragile.has_value());

	// two clusters far from A: every run leaves it changed
	const std::vector<double> b_clusters{6.0, 6.1, 5.9, 6.05, 6.0, 8.0, 8.1, 7.9, 8.05, 8.0};
	const auto far = stats::compare(a, b_clusters, 0.01);
	BOOST_TEST(far.b_bimodal);
	BOOST_TEST(far.verdict == stats::Verdict::changed);
	BOOST_TEST(!far.b_fragile.has_value());
}

BOOST_AUTO_TEST_SUITE_END()
