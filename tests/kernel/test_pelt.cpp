// SPDX-License-Identifier: GPL-2.0
//
// kernel/sched/pelt.c, compiled unchanged, driven through pelt_driver.c with
// a synthetic clock on the odroid-xu3 board, and checked against a
// floating-point PELT model written here from the definition:
//
//   - time is cut into periods of 1024 us (1024 * 1024 ns);
//   - the signal is a geometric average of "running" over those periods:
//     the current (partial) period weighs 1, the period n periods ago y^n,
//     with y^32 = 0.5; it is normalised by the same sum for a CPU that ran
//     forever, so an always-running entity tends to 1024;
//   - invariance: running time counts as the work it did, i.e. scaled by
//     capacity/1024 * cur_freq/max_freq; when the CPU goes idle the
//     scaled clock catches up with wall time so the idle time a
//     max-capacity CPU would have had counts as idle -- unless the CPU was
//     saturated, in which case there was no such idle time (it is lost).
//
// Each run is sampled every millisecond (and at the end of each phase);
// mean and max absolute errors against the model are bounded in every run.
#include "framework_register.h"
#include "pelt_driver.h"
#include "support.h"

#include "kernel-shim/kernel.h"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace sh;
namespace bdata = boost::unit_test::data;

namespace {

constexpr double kScale = 1024.0;		// SCHED_CAPACITY_SCALE
constexpr double kPeriod = 1024.0 * 1024.0;	// ns
constexpr double kMs = 1e6;			// ns
// The tolerances, in capacity units.
constexpr double kMeanTol = 0.02 * kScale;
constexpr double kMaxTol = 0.05 * kScale;
constexpr double kTol = 0.02 * kScale;

// odroid-xu3 (arch/arm/boot/dts/exynos5422-cpus.dtsi, exynos5800.dtsi):
// CPUs 0-3 are the A7 cluster, 4-7 the A15 cluster.
constexpr unsigned long kLittleCpus = 0x0f, kBigCpus = 0xf0;
constexpr unsigned long kLittleMaxKhz = 1400000, kBigMaxKhz = 2000000;

const double kY = std::pow(0.5, 1.0 / 32.0);
// Weight of all completed periods of an always-running history, in ns.
const double kHistory = kPeriod * kY / (1.0 - kY);

// One PELT signal from the definition above, on its own clock.
class GeometricAverage {
public:
	// @value (0..1) held for @dt ns of this signal's clock.
	void advance(double dt, double value)
	{
		while (dt > 0) {
			double left = kPeriod - pos_;

			if (dt >= left) {
				sum_ = (sum_ + value * left) * kY;
				pos_ = 0;
				dt -= left;
			} else {
				sum_ += value * dt;
				pos_ += dt;
				dt = 0;
			}
		}
	}
	// 0..1
	double avg() const { return sum_ / (kHistory + pos_); }

private:
	double sum_ = 0, pos_ = 0;
};

enum class State { idle, cfs, rt };

// The model of one CPU: scaled clock (with idle catch-up) for the task
// signals, wall clock for thermal pressure.
class Model {
public:
	explicit Model(double speed) : speed_(speed) {}

	void advance(double dt, State s, double pressure)
	{
		bool running = s != State::idle;
		double dtau = running ? dt * speed_ : dt;

		wall_ += dt;
		tau_ += dtau;
		cfs_.advance(dtau, s == State::cfs);
		rt_.advance(dtau, s == State::rt);
		thermal_.advance(dt, pressure / kScale);
	}

	void enter_idle()
	{
		// Saturated: within one part in 1024 of always-running.
		bool saturated = cfs_.avg() + rt_.avg() >= 1023.0 / 1024.0;

		if (saturated) {
			lost_ = wall_ - tau_;
		} else {
			// the caught-up time is idle time of the task signals
			double jump = wall_ - lost_ - tau_;

			cfs_.advance(jump, 0);
			rt_.advance(jump, 0);
			tau_ += jump;
		}
	}

	double cfs() const { return cfs_.avg() * kScale; }
	double rt() const { return rt_.avg() * kScale; }
	double thermal() const { return thermal_.avg() * kScale; }

private:
	double speed_;
	double wall_ = 0, tau_ = 0, lost_ = 0;
	GeometricAverage cfs_, rt_, thermal_;
};

struct Sample {
	double t_ms;
	pelt_drv_sample k;
	double m_cfs, m_rt, m_thermal;
};

struct Errors {
	double mean = 0, max = 0;
};

// One CPU's rq in the kernel and in the model, run side by side.
class Rig {
public:
	Rig(unsigned cpu, double freq_ratio) : cpu_(cpu)
	{
		auto k = kshim::snapshot();
		BOOST_TEST_REQUIRE(cpu < k.cpus.size());
		capacity_ = k.cpus[cpu].capacity;
		model_.emplace_back(capacity_ / kScale * freq_ratio);
		drv_ = pelt_drv_new(cpu);
	}
	~Rig() { pelt_drv_free(drv_); }
	Rig(const Rig &) = delete;
	Rig &operator=(const Rig &) = delete;

	unsigned long capacity() const { return capacity_; }

	void set_state(State s)
	{
		if (s == state_)
			return;
		pelt_drv_set_state(drv_, s == State::cfs ? PELT_DRV_CFS :
					 s == State::rt ? PELT_DRV_RT : PELT_DRV_IDLE);
		if (s == State::idle)
			model().enter_idle();
		state_ = s;
	}

	void set_pressure(unsigned long p)
	{
		pressure_ = p;
		pelt_drv_set_thermal_pressure(drv_, p);
	}

	// @ns in the current state, sampled at every whole millisecond and at
	// the end.
	void run(double ns)
	{
		// whole ns, as the kernel's clocks: no float residue to loop on
		unsigned long long end = now_ + static_cast<unsigned long long>(std::llround(ns));
		const unsigned long long ms = 1000000;

		while (now_ < end) {
			unsigned long long next = std::min(end, (now_ / ms + 1) * ms);
			unsigned long long dt = next - now_;

			pelt_drv_advance(drv_, dt);
			model().advance(double(dt), state_, pressure_);
			now_ = next;
			sample();
		}
	}
	void run_ms(double ms) { run(ms * kMs); }

	// Runs @cycles periods of @period_ms: running (in @s) for @run_ms, then
	// idle.
	void periodic(State s, double period_ms, double run_ms, int cycles)
	{
		for (int i = 0; i < cycles; i++) {
			set_state(s);
			this->run_ms(run_ms);
			set_state(State::idle);
			this->run_ms(period_ms - run_ms);
		}
	}

	const std::vector<Sample> &samples() const { return samples_; }
	const Sample &last() const { return samples_.back(); }
	pelt_drv_sample kernel_now() const
	{
		pelt_drv_sample s;
		pelt_drv_read(drv_, &s);
		return s;
	}

private:
	Model &model() { return model_.front(); }
	void sample()
	{
		Sample s{double(now_) / kMs, {}, model().cfs(), model().rt(), model().thermal()};
		pelt_drv_read(drv_, &s.k);
		samples_.push_back(s);
	}

	unsigned cpu_;
	unsigned long capacity_ = 0;
	std::vector<Model> model_;	// one; a vector for the deferred construction
	pelt_drv *drv_ = nullptr;
	State state_ = State::idle;
	unsigned long pressure_ = 0;
	unsigned long long now_ = 0;
	std::vector<Sample> samples_;
};

template <typename F>
Errors errors(const std::vector<Sample> &samples, F signal)
{
	Errors e;

	for (const auto &s : samples) {
		auto [kernel, model] = signal(s);
		double err = std::fabs(kernel - model);

		e.mean += err;
		e.max = std::max(e.max, err);
	}
	if (!samples.empty())
		e.mean /= samples.size();
	return e;
}

auto se_util = [](const Sample &s) {
	return std::pair<double, double>(s.k.se_util_avg, s.m_cfs);
};
auto rt_util = [](const Sample &s) {
	return std::pair<double, double>(s.k.rt_util_avg, s.m_rt);
};
auto thermal_load = [](const Sample &s) {
	return std::pair<double, double>(s.k.thermal_load_avg, s.m_thermal);
};

// Case (4), applied to every run: the whole trace against the model.
template <typename F>
void check_model(const Rig &rig, F signal, const char *what)
{
	Errors e = errors(rig.samples(), signal);

	BOOST_TEST_MESSAGE(what << ": " << rig.samples().size() << " samples, mean |err| "
			   << e.mean << ", max |err| " << e.max);
	BOOST_TEST(e.mean <= kMeanTol);
	BOOST_TEST(e.max <= kMaxTol);
}

// The fair task's cfs_rq holds only it, from the same start: the upstream
// __update_load_avg_cfs_rq() must then agree with __update_load_avg_se()
// on every sample -- util and runnable exactly (the same sums), load up to
// rounding (the cfs_rq decays weight * sum, the se decays sum and multiplies
// by the weight after); util_avg never exceeds SCHED_CAPACITY_SCALE.
void check_cfs_rq(const Rig &rig)
{
	int util = 0, runnable = 0, over = 0;
	double load = 0;

	for (const auto &s : rig.samples()) {
		util += s.k.cfs_util_avg != s.k.se_util_avg;
		runnable += s.k.cfs_runnable_avg != s.k.se_runnable_avg;
		load = std::max(load, std::fabs(double(s.k.cfs_load_avg) - s.k.se_load_avg));
		over += s.k.se_util_avg > kScale || s.k.rt_util_avg > kScale;
	}
	BOOST_TEST_MESSAGE("cfs_rq vs se: max |load_avg difference| " << load);
	BOOST_TEST(util == 0);
	BOOST_TEST(runnable == 0);
	BOOST_TEST(load <= 2.0);
	BOOST_TEST(over == 0);
}

// Steady state of a periodic run: the samples of the last @period_ms.
struct Window {
	double kmin = 1e9, kmax = -1e9, kmean = 0;
	double mmin = 1e9, mmax = -1e9, mmean = 0;
};

Window last_period(const Rig &rig, double period_ms)
{
	Window w;
	int n = 0;
	double end = rig.last().t_ms;

	for (const auto &s : rig.samples()) {
		// (end - period, end]: each phase of one period exactly once
		if (s.t_ms <= end - period_ms + 1e-6)
			continue;
		w.kmin = std::min(w.kmin, double(s.k.se_util_avg));
		w.kmax = std::max(w.kmax, double(s.k.se_util_avg));
		w.kmean += s.k.se_util_avg;
		w.mmin = std::min(w.mmin, s.m_cfs);
		w.mmax = std::max(w.mmax, s.m_cfs);
		w.mmean += s.m_cfs;
		n++;
	}
	w.kmean /= n;
	w.mmean /= n;
	return w;
}

// Boots odroid-xu3 once for the process (the kernel keeps global state).
// Boost.Test calls it: its %r15 back after the kernel's boot
struct BootOdroid {
	BootOdroid()
	{
		sh::test::FrameworkRegister framework;
		kshim::boot(test::load_board("odroid-xu3"));
	}
};

// Every case starts at max frequency on both clusters.
struct MaxFreq {
	MaxFreq()
	{
		pelt_drv_set_freq(kLittleCpus, kLittleMaxKhz, kLittleMaxKhz);
		pelt_drv_set_freq(kBigCpus, kBigMaxKhz, kBigMaxKhz);
	}
	~MaxFreq()
	{
		pelt_drv_set_freq(kLittleCpus, kLittleMaxKhz, kLittleMaxKhz);
		pelt_drv_set_freq(kBigCpus, kBigMaxKhz, kBigMaxKhz);
	}
};

} // namespace

BOOST_TEST_GLOBAL_FIXTURE(BootOdroid);

BOOST_FIXTURE_TEST_SUITE(pelt, MaxFreq)

BOOST_AUTO_TEST_CASE(board_capacities)
{
	// The invariance cases below rely on these (kernel-computed) values.
	auto k = kshim::snapshot();
	BOOST_TEST_REQUIRE(k.cpus.size() == 8u);
	BOOST_TEST(k.cpus[4].capacity == 1024u);
	BOOST_TEST(k.cpus[0].capacity == 377u);
	BOOST_TEST(k.cpus[4].freq_scale == 1024u);
	BOOST_TEST(k.cpus[0].freq_scale == 1024u);
}

// (1) An always-running entity on the big CPU at max frequency tends to 1024.
BOOST_AUTO_TEST_CASE(always_running_converges)
{
	BOOST_TEST_CONTEXT("cpu 4, max frequency, always running 400 ms")
	{
		Rig rig(4, 1.0);

		rig.set_state(State::cfs);
		rig.run_ms(400);
		const auto &k = rig.last().k;
		BOOST_TEST_MESSAGE("util_avg after 400 ms: kernel " << k.se_util_avg
				   << ", model " << rig.last().m_cfs);
		BOOST_TEST(k.se_util_avg <= kScale);
		BOOST_TEST(k.se_util_avg >= kScale - kTol);
		BOOST_TEST(std::fabs(k.se_util_avg - rig.last().m_cfs) <= kTol);
		// always runnable: load (nice 0) and runnable follow util
		BOOST_TEST(std::fabs(double(k.se_load_avg) - k.se_util_avg) <= 1.0);
		BOOST_TEST(std::fabs(double(k.se_runnable_avg) - k.se_util_avg) <= 1.0);
		check_model(rig, se_util, "se util_avg");
		check_cfs_rq(rig);
	}
}

// (2) Half-life: from steady state, 32 periods of sleep halve util_avg.
// 32 PELT periods are 32 * 1024 * 1024 ns = 33.55 ms: the 1024 us period
// of pelt.c is 1.024 ms of 1024 ns "us". Sleeping a round 32 ms would
// decay by y^30.5 (to ~529), not by half.
BOOST_AUTO_TEST_CASE(half_life)
{
	BOOST_TEST_CONTEXT("cpu 4, max frequency, run 400 ms then sleep 2 x 32 periods")
	{
		Rig rig(4, 1.0);

		rig.set_state(State::cfs);
		rig.run_ms(400);
		double before = rig.last().k.se_util_avg;
		rig.set_state(State::idle);
		rig.run(32 * kPeriod);
		double one = rig.last().k.se_util_avg;
		rig.run(32 * kPeriod);
		double two = rig.last().k.se_util_avg;

		BOOST_TEST_MESSAGE("util_avg: " << before << " -> " << one << " -> " << two);
		BOOST_TEST(std::fabs(one - before / 2) <= kTol);
		BOOST_TEST(std::fabs(one - 512.0) <= kTol);
		BOOST_TEST(std::fabs(two - 256.0) <= kTol);
		check_model(rig, se_util, "se util_avg");
		check_cfs_rq(rig);
	}
}

// (3) A periodic task (16 ms period) settles around duty * 1024 with the
// model's swing.
BOOST_DATA_TEST_CASE(periodic_duty, bdata::make({25, 50, 75}), duty)
{
	BOOST_TEST_CONTEXT("cpu 4, max frequency, period 16 ms, duty " << duty << "%")
	{
		Rig rig(4, 1.0);

		rig.periodic(State::cfs, 16, 16 * duty / 100.0, 40);
		Window w = last_period(rig, 16);
		BOOST_TEST_MESSAGE("steady state: kernel min/mean/max " << w.kmin << "/" << w.kmean
				   << "/" << w.kmax << ", model " << w.mmin << "/" << w.mmean
				   << "/" << w.mmax);
		BOOST_TEST(std::fabs(w.kmean - kScale * duty / 100.0) <= kTol);
		BOOST_TEST(std::fabs(w.kmin - w.mmin) <= kTol);
		BOOST_TEST(std::fabs(w.kmax - w.mmax) <= kTol);
		// the swing exceeds the tolerances, so the min/max checks above
		// would catch a signal stuck flat at the mean
		BOOST_TEST(w.kmax - w.kmin >= 2 * kTol);
		check_model(rig, se_util, "se util_avg");
		check_cfs_rq(rig);
	}
}

// (4) Irregular run/sleep phases, not aligned to ms or periods, on both
// clusters and at two frequencies: the model bounds hold through every
// transition.
BOOST_DATA_TEST_CASE(irregular_against_model,
		     bdata::make({4u, 0u}) * bdata::make({1.0, 0.5}), cpu, ratio)
{
	BOOST_TEST_CONTEXT("cpu " << cpu << ", frequency " << ratio << " x max")
	{
		unsigned long bits = cpu >= 4 ? kBigCpus : kLittleCpus;
		unsigned long max = cpu >= 4 ? kBigMaxKhz : kLittleMaxKhz;

		pelt_drv_set_freq(bits, static_cast<unsigned long>(max * ratio), max);
		Rig rig(cpu, ratio);
		std::mt19937 rng(cpu * 10 + int(ratio * 4));
		std::uniform_real_distribution<double> run(0.1, 25.0), sleep(0.1, 20.0);

		for (double t = 0; t < 1000 * kMs;) {
			double r = run(rng) * kMs, s = sleep(rng) * kMs;

			rig.set_state(State::cfs);
			rig.run(r);
			rig.set_state(State::idle);
			rig.run(s);
			t += r + s;
		}
		check_model(rig, se_util, "se util_avg");
		check_cfs_rq(rig);
	}
}

// (5) Frequency invariance on CPU 4 (topology_set_freq_scale()).
//
// In 6.1 the contributions are not scaled; the pelt clock is
// (update_rq_clock_pelt()). Running time at half frequency counts half,
// and the idle entry gives the difference back as idle time, so:
//   - a task running 50% of wall time at half frequency did the work of
//     25% at max frequency: util ~256 (512 at max frequency);
//   - a fixed amount of work per period gives the same util at any
//     frequency;
//   - an always-running task has no idle time to give back: it accrues
//     half as fast (512 after two wall half-lives) but still tends to
//     1024 -- not to 512 as the issue expected.
BOOST_DATA_TEST_CASE(frequency_invariance, bdata::make({2000000ul, 1000000ul}), khz)
{
	double ratio = double(khz) / kBigMaxKhz;

	BOOST_TEST_CONTEXT("cpu 4 at " << khz << " kHz, 50% wall duty, 16 ms period")
	{
		pelt_drv_set_freq(kBigCpus, khz, kBigMaxKhz);
		BOOST_TEST(kshim::snapshot().cpus[4].freq_scale == std::lround(kScale * ratio));
		Rig rig(4, ratio);

		rig.periodic(State::cfs, 16, 8, 40);
		Window w = last_period(rig, 16);
		BOOST_TEST_MESSAGE("steady mean: kernel " << w.kmean << ", model " << w.mmean);
		BOOST_TEST(std::fabs(w.kmean - 0.5 * ratio * kScale) <= kTol);
		check_model(rig, se_util, "se util_avg");
		check_cfs_rq(rig);
	}
	BOOST_TEST_CONTEXT("cpu 4 at " << khz << " kHz, 4 ms of max-frequency work every 16 ms")
	{
		pelt_drv_set_freq(kBigCpus, khz, kBigMaxKhz);
		Rig rig(4, ratio);

		rig.periodic(State::cfs, 16, 4 / ratio, 40);
		Window w = last_period(rig, 16);
		BOOST_TEST_MESSAGE("steady mean: kernel " << w.kmean << ", model " << w.mmean);
		BOOST_TEST(std::fabs(w.kmean - 256.0) <= kTol);
		check_model(rig, se_util, "se util_avg");
	}
	BOOST_TEST_CONTEXT("cpu 4 at " << khz << " kHz, always running")
	{
		pelt_drv_set_freq(kBigCpus, khz, kBigMaxKhz);
		Rig rig(4, ratio);

		rig.set_state(State::cfs);
		// one half-life of pelt time
		rig.run(32 * kPeriod / ratio);
		double half = rig.last().k.se_util_avg;
		rig.run_ms(800);
		double end = rig.last().k.se_util_avg;
		BOOST_TEST_MESSAGE("util_avg after one pelt half-life " << half
				   << ", after 800 ms more " << end);
		BOOST_TEST(std::fabs(half - 512.0) <= kTol);
		BOOST_TEST(end >= kScale - kTol);
		check_model(rig, se_util, "se util_avg");
	}
}

// (6) Capacity invariance on CPU 0 (capacity 377): as (5), the capacity
// scales the pelt clock.
BOOST_DATA_TEST_CASE(capacity_invariance, bdata::make({25, 50, 75}), duty)
{
	BOOST_TEST_CONTEXT("cpu 0, max frequency, period 16 ms, duty " << duty << "%")
	{
		Rig rig(0, 1.0);
		BOOST_TEST_REQUIRE(rig.capacity() == 377u);

		rig.periodic(State::cfs, 16, 16 * duty / 100.0, 40);
		Window w = last_period(rig, 16);
		BOOST_TEST_MESSAGE("steady mean: kernel " << w.kmean << ", model " << w.mmean
				   << ", expected " << 377.0 * duty / 100.0);
		BOOST_TEST(std::fabs(w.kmean - 377.0 * duty / 100.0) <= kTol);
		BOOST_TEST(std::fabs(w.kmin - w.mmin) <= kTol);
		BOOST_TEST(std::fabs(w.kmax - w.mmax) <= kTol);
		check_model(rig, se_util, "se util_avg");
		check_cfs_rq(rig);
	}
}

BOOST_AUTO_TEST_CASE(capacity_always_running)
{
	BOOST_TEST_CONTEXT("cpu 0, max frequency, always running")
	{
		Rig rig(0, 1.0);

		rig.set_state(State::cfs);
		rig.run(32 * kPeriod * kScale / 377.0);
		double half = rig.last().k.se_util_avg;
		rig.run_ms(1500);
		double end = rig.last().k.se_util_avg;
		BOOST_TEST_MESSAGE("util_avg after one pelt half-life " << half
				   << ", after 1500 ms more " << end);
		BOOST_TEST(std::fabs(half - 512.0) <= kTol);
		BOOST_TEST(end >= kScale - kTol);
		check_model(rig, se_util, "se util_avg");
	}
}

// (7) update_rt_rq_load_avg(running=1) follows the same curve as the se.
BOOST_DATA_TEST_CASE(rt_rq, bdata::make({100, 50}), duty)
{
	BOOST_TEST_CONTEXT("cpu 4, max frequency, rt duty " << duty << "%, 16 ms period")
	{
		Rig rig(4, 1.0);

		if (duty == 100) {
			rig.set_state(State::rt);
			rig.run_ms(400);
		} else {
			rig.periodic(State::rt, 16, 16 * duty / 100.0, 25);
		}
		const auto &k = rig.last().k;
		BOOST_TEST_MESSAGE("rt util_avg: kernel " << k.rt_util_avg << ", model "
				   << rig.last().m_rt);
		BOOST_TEST(std::fabs(k.rt_util_avg - rig.last().m_rt) <= kTol);
		if (duty == 100)
			BOOST_TEST(k.rt_util_avg >= kScale - kTol);
		// the fair task never ran
		BOOST_TEST(k.se_util_avg == 0u);
		check_model(rig, rt_util, "rt util_avg");
		check_cfs_rq(rig);
	}
}

BOOST_AUTO_TEST_CASE(rt_matches_se)
{
	// Same clock, same pattern: the rt_rq signal and the se signal are
	// the same sums, sample for sample.
	Rig a(4, 1.0), b(4, 1.0);

	a.periodic(State::cfs, 16, 5, 10);
	b.periodic(State::rt, 16, 5, 10);
	BOOST_TEST_REQUIRE(a.samples().size() == b.samples().size());
	int differ = 0;
	for (size_t i = 0; i < a.samples().size(); i++)
		differ += a.samples()[i].k.se_util_avg != b.samples()[i].k.rt_util_avg;
	BOOST_TEST(differ == 0);
}

// (8) update_thermal_load_avg() with a constant pressure tends to it, and
// decays by half in 32 periods once the pressure is gone.
BOOST_DATA_TEST_CASE(thermal_pressure, bdata::make({300ul, 700ul}), pressure)
{
	BOOST_TEST_CONTEXT("cpu 4, thermal pressure " << pressure)
	{
		Rig rig(4, 1.0);

		rig.set_pressure(pressure);
		rig.run_ms(400);
		double steady = rig.last().k.thermal_load_avg;
		rig.set_pressure(0);
		rig.run(32 * kPeriod);
		double half = rig.last().k.thermal_load_avg;
		BOOST_TEST_MESSAGE("thermal load_avg: " << steady << " -> " << half);
		BOOST_TEST(steady <= double(pressure));
		BOOST_TEST(steady >= pressure - kTol);
		BOOST_TEST(std::fabs(half - pressure / 2.0) <= kTol);
		check_model(rig, thermal_load, "thermal load_avg");
	}
}

BOOST_AUTO_TEST_SUITE_END()
