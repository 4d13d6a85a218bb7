// SPDX-License-Identifier: GPL-2.0
#include "harness/stats/stats.h"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace sh::stats {

double Summary::rsd_percent() const
{
	return mean == 0 ? 0 : 100.0 * sd / std::abs(mean);
}

Summary summarize(std::span<const double> values)
{
	Summary s;
	s.n = values.size();
	if (values.empty())
		return s;
	double sum = 0;
	for (double v : values)
		sum += v;
	s.mean = sum / static_cast<double>(s.n);
	double squares = 0;
	for (double v : values)
		squares += (v - s.mean) * (v - s.mean);
	s.sd = s.n > 1 ? std::sqrt(squares / static_cast<double>(s.n - 1)) : 0;
	const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
	s.min = *lo;
	s.max = *hi;
	return s;
}

bool bimodal(std::span<const double> values)
{
	const auto n = static_cast<double>(values.size());
	if (values.size() < 5)
		return false;
	const auto s = summarize(values);
	if (s.constant())
		return false;
	// Sarle's coefficient, where the sample is large enough for it
	if (values.size() >= 10) {
		double m2 = 0, m3 = 0, m4 = 0;
		for (double v : values) {
			const double d = v - s.mean;
			m2 += d * d;
			m3 += d * d * d;
			m4 += d * d * d * d;
		}
		m2 /= n;
		m3 /= n;
		m4 /= n;
		// sample skewness and excess kurtosis, bias-corrected
		const double g1 = m3 / std::pow(m2, 1.5);
		const double skew = g1 * std::sqrt(n * (n - 1)) / (n - 2);
		const double g2 = m4 / (m2 * m2) - 3;
		const double kurt = (n - 1) / ((n - 2) * (n - 3)) * ((n + 1) * g2 + 6);
		if ((skew * skew + 1) / (kurt + 3 * (n - 1) * (n - 1) / ((n - 2) * (n - 3))) > 5.0 / 9.0)
			return true;
	}
	// One empty gap wider than half the range: two clusters of two or
	// more values, or, among eight or more, an outlier. (Sarle's
	// coefficient misses two tight clusters in small samples: its
	// correction term dominates.)
	std::vector<double> sorted(values.begin(), values.end());
	std::sort(sorted.begin(), sorted.end());
	std::size_t at = 1;
	for (std::size_t i = 2; i < sorted.size(); i++)
		if (sorted[i] - sorted[i - 1] > sorted[at] - sorted[at - 1])
			at = i;
	if (sorted[at] - sorted[at - 1] <= 0.5 * (s.max - s.min))
		return false;
	const std::size_t smaller = std::min(at, sorted.size() - at);
	return smaller >= 2 || sorted.size() >= 8;
}

std::string_view to_string(Verdict v)
{
	switch (v) {
	case Verdict::identical:
		return "identical";
	case Verdict::changed:
		return "changed";
	case Verdict::no_evidence:
		return "no evidence";
	}
	return "?";
}

namespace {

Comparison test(std::span<const double> a, std::span<const double> b, double alpha)
{
	if (a.empty() || b.empty())
		throw std::invalid_argument("stats::compare: no values");
	Comparison c;
	c.a = summarize(a);
	c.b = summarize(b);
	c.delta = c.b.mean - c.a.mean;
	if (c.a.mean != 0)
		c.delta_percent = 100.0 * c.delta / std::abs(c.a.mean);
	// runs paired by seed gave the same values: nothing to test
	if (a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin())) {
		c.verdict = Verdict::identical;
		return c;
	}
	if (c.a.constant() && c.b.constant()) {
		c.verdict = c.a.mean == c.b.mean ? Verdict::identical : Verdict::changed;
		return c;
	}
	const double va = c.a.sd * c.a.sd / static_cast<double>(c.a.n);
	const double vb = c.b.sd * c.b.sd / static_cast<double>(c.b.n);
	if (c.a.n < 2 || c.b.n < 2 || va + vb == 0) {
		c.verdict = Verdict::no_evidence;
		return c;
	}
	const double t = (c.b.mean - c.a.mean) / std::sqrt(va + vb);
	// Welch–Satterthwaite degrees of freedom; a constant side adds none
	double den = 0;
	if (c.a.n > 1)
		den += va * va / static_cast<double>(c.a.n - 1);
	if (c.b.n > 1)
		den += vb * vb / static_cast<double>(c.b.n - 1);
	const double df = (va + vb) * (va + vb) / den;
	const boost::math::students_t dist(df);
	c.p = 2 * boost::math::cdf(boost::math::complement(dist, std::abs(t)));
	c.verdict = *c.p < alpha ? Verdict::changed : Verdict::no_evidence;
	return c;
}

std::vector<double> without(std::span<const double> values, std::size_t i)
{
	std::vector<double> rest(values.begin(), values.end());
	rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
	return rest;
}

// The first run of `side` whose seed, left out of both sides (runs are
// paired by seed) or of that side alone (unpaired), changes the verdict.
std::optional<Comparison::Fragile> fragile(std::span<const double> a, std::span<const double> b, int side,
					   double alpha, Verdict verdict)
{
	const auto values = side ? b : a;
	const bool paired = a.size() == b.size();
	for (std::size_t i = 0; i < values.size(); i++) {
		const auto rest_a = paired || !side ? without(a, i) : std::vector<double>(a.begin(), a.end());
		const auto rest_b = paired || side ? without(b, i) : std::vector<double>(b.begin(), b.end());
		const auto v = test(rest_a, rest_b, alpha).verdict;
		if (v != verdict)
			return Comparison::Fragile{i, values[i], v};
	}
	return std::nullopt;
}

} // namespace

Comparison compare(std::span<const double> a, std::span<const double> b, double alpha)
{
	auto c = test(a, b, alpha);
	c.a_bimodal = bimodal(a);
	c.b_bimodal = bimodal(b);
	if (c.a_bimodal)
		c.a_fragile = fragile(a, b, 0, alpha, c.verdict);
	if (c.b_bimodal)
		c.b_fragile = fragile(a, b, 1, alpha, c.verdict);
	return c;
}

} // namespace sh::stats
