// SPDX-License-Identifier: GPL-2.0
//
// The RC model against the ODE it solves, integrated independently with a
// small fixed step: temperature, mean, time above a trip, samples; then
// the parameters' sources (defaults, options, a file) and their errors.
#include "harness/sim/thermal_model.h"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace sh::sim::thermal;

namespace {

constexpr std::int64_t ms = 1'000'000;
constexpr std::int64_t s = 1'000'000'000;

// dT/dt = (P - (T - Ta) / R) / C, by RK4 at 1 ms
struct Reference {
	RcParams p;
	double t_c;
	double integral = 0;
	std::int64_t above = 0;
	explicit Reference(RcParams params) : p(params), t_c(params.initial_c.value_or(params.ambient_c)) {}
	void run(double watts, std::int64_t ns, double trip)
	{
		const double h = 1e-3;
		auto f = [&](double t) {
			return (watts - (t - p.ambient_c) / p.resistance_k_per_w) / p.capacitance_j_per_k;
		};
		for (std::int64_t i = 0; i < ns / ms; i++) {
			const double k1 = f(t_c), k2 = f(t_c + h / 2 * k1), k3 = f(t_c + h / 2 * k2), k4 = f(t_c + h * k3);
			const double next = t_c + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
			integral += (t_c + next) / 2 * h;
			if ((t_c + next) / 2 >= trip)
				above += ms;
			t_c = next;
		}
	}
};

} // namespace

BOOST_AUTO_TEST_SUITE(thermal_model)

BOOST_AUTO_TEST_CASE(closed_form_matches_the_ode)
{
	RcParams p;	// the defaults: 10 K/W, 2 J/K, 25 C
	Zone zone("soc", {0, 1}, p, {{"hot", "passive", 60.0}}, 0, s);
	Reference ref(p);
	// 5 W for 30 s, 0.5 W for 40 s, 7 W for 10 s: heats past 60 C, cools, heats
	std::int64_t t = 0;
	for (auto [watts, span] : {std::pair{5.0, 30 * s}, std::pair{0.5, 40 * s}, std::pair{7.0, 10 * s}}) {
		zone.set_power(static_cast<std::uint64_t>(watts * 1e6), t);
		ref.run(watts, span, 60.0);
		t += span;
		BOOST_TEST(zone.temperature_at(t) == ref.t_c, boost::test_tools::tolerance(1e-6));
	}
	BOOST_TEST(zone.mean_c() == ref.integral / 80.0, boost::test_tools::tolerance(1e-5));
	// the closed form's crossings against the 1 ms reference
	BOOST_TEST(std::abs(zone.time_above_ns(0) - ref.above) <= 2 * ms,
		   zone.time_above_ns(0) << " ns vs " << ref.above << " ns");
	BOOST_TEST(zone.time_above_ns(0) > 8 * s);
	BOOST_TEST(zone.min_c() == 25.0);
	BOOST_TEST(zone.max_c() > 60.0);
	// a sample each second from the start, the first at ambient
	BOOST_TEST(zone.samples().size() == 81u);
	BOOST_TEST(zone.samples().front() == 25.0);
	BOOST_TEST(zone.samples().back() == zone.temperature_at(t), boost::test_tools::tolerance(1e-9));
	BOOST_TEST(zone.energy_j() == 5.0 * 30 + 0.5 * 40 + 7.0 * 10, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(steady_state_and_time_constant)
{
	RcParams p;
	p.resistance_k_per_w = 8;
	p.capacitance_j_per_k = 2.5;
	p.ambient_c = 30;
	p.initial_c = 50;
	Zone zone("z", {0}, p, {}, 0, s);
	zone.set_power(4'000'000, 0);	// 4 W: T_ss = 30 + 32 = 62 C
	// after one time constant (20 s) 1 - 1/e of the way from 50 to 62
	BOOST_TEST(zone.temperature_at(20 * s) == 62 - 12 / std::exp(1.0), boost::test_tools::tolerance(1e-9));
	BOOST_TEST(zone.temperature_at(2000 * s) == 62.0, boost::test_tools::tolerance(1e-9));
	// a power change at the present time changes nothing already passed
	const double before = zone.temperature_at(2000 * s);
	zone.set_power(0, 2000 * s);
	BOOST_TEST(zone.temperature_at(2000 * s) == before);
}

BOOST_AUTO_TEST_CASE(parameters_from_options_and_files)
{
	ModelConfig config;
	BOOST_TEST(config.enabled);
	BOOST_TEST(config.params_for("any").resistance_k_per_w == 10.0);
	config.add_option("r=12,ambient=35");
	config.add_option("cpu0-thermal:c=4,initial=60");
	BOOST_TEST(config.params_for("gpu").resistance_k_per_w == 12.0);
	BOOST_TEST(config.params_for("gpu").capacitance_j_per_k == 2.0);
	BOOST_TEST(config.params_for("gpu").ambient_c == 35.0);
	BOOST_TEST(!config.params_for("gpu").initial_c);
	BOOST_TEST(config.params_for("cpu0-thermal").capacitance_j_per_k == 4.0);
	BOOST_TEST(config.params_for("cpu0-thermal").resistance_k_per_w == 12.0);
	BOOST_TEST(*config.params_for("cpu0-thermal").initial_c == 60.0);
	config.add_option("off");
	BOOST_TEST(!config.enabled);

	const auto file = std::filesystem::temp_directory_path() / ("thermal-" + std::to_string(getpid()) + ".json");
	std::ofstream(file) << R"({ // a board in a case
		"r": 6, "ambient": 20,
		"zones": {"soc-thermal": {"c": 9,},},
	})";
	ModelConfig from_file;
	from_file.add_file(file);
	BOOST_TEST(from_file.params_for("x").resistance_k_per_w == 6.0);
	BOOST_TEST(from_file.params_for("soc-thermal").capacitance_j_per_k == 9.0);
	BOOST_TEST(from_file.params_for("soc-thermal").ambient_c == 20.0);
	// an option given after the file wins
	from_file.add_option("soc-thermal:c=3");
	BOOST_TEST(from_file.params_for("soc-thermal").capacitance_j_per_k == 3.0);

	for (const char *bad : {"r=0", "c=-1", "r=abc", "q=1", "r", ":r=1", "ambient=-300", "r=nan", "r=1,,c=2"}) {
		ModelConfig c;
		bool thrown = false;
		try {
			c.add_option(bad);
		} catch (const Error &e) {
			thrown = true;
			BOOST_TEST(std::string(e.what()).find("--thermal-model") != std::string::npos, e.what());
		}
		BOOST_TEST(thrown, bad);
	}
	for (const char *bad : {R"({"r": "6"})", R"({"zones": [1]})", R"({"zones": {"z": {"r": -1}}})", "{", "[]",
				R"({"resistance": 1})"}) {
		std::ofstream(file) << bad;
		ModelConfig c;
		bool thrown = false;
		try {
			c.add_file(file);
		} catch (const Error &e) {
			thrown = true;
			BOOST_TEST(std::string(e.what()).find(file.string()) != std::string::npos, e.what());
		}
		BOOST_TEST(thrown, bad);
	}
	std::filesystem::remove(file);
	BOOST_CHECK_THROW(ModelConfig().add_file(file), Error);
}

BOOST_AUTO_TEST_SUITE_END()
