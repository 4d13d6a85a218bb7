// SPDX-License-Identifier: GPL-2.0
//
// Every bad input is a dts::Error whose one-line message names the file and
// the DT node (or dtc's file:line), so that a user can go and fix it; and
// the command prints it as one line on stderr, with exit status 2.
#include "print_values.h"
#include "support.h"

#include "dts/blob.h"
#include "support/tools.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <boost/test/unit_test.hpp>
#include <fmt/format.h>
#include <unistd.h>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <libfdt.h>
#include <string>
#include <vector>

using namespace sh;

namespace {

bool contains(const std::string &text, std::string_view part)
{
	return text.find(part) != std::string::npos;
}

// The message load() throws; fails the test when it does not throw.
std::string error_of(const std::filesystem::path &file,
		     std::initializer_list<std::filesystem::path> overlays = {})
{
	try {
		test::load(file, overlays);
	} catch (const dts::Error &e) {
		std::string msg = e.what();
		// Printed as one line by the command.
		BOOST_TEST(!contains(msg, "\n"), msg);
		return msg;
	}
	BOOST_FAIL(file << " loaded without error");
	return {};
}

// A message names the file as given, and the node as "path: what".
void check_names(const std::string &msg, const std::filesystem::path &file,
		 const std::string &node, std::string_view what)
{
	BOOST_TEST_CONTEXT(msg) {
		BOOST_TEST(contains(msg, file.string()));
		BOOST_TEST(contains(msg, ": " + node + ": "));
		BOOST_TEST(contains(msg, what));
	}
}

std::vector<char> read_bytes(const std::filesystem::path &file)
{
	std::ifstream in(file, std::ios::binary);
	return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::filesystem::path &file, const std::vector<char> &bytes)
{
	std::ofstream out(file, std::ios::binary);
	out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
	BOOST_TEST_REQUIRE(out.good());
}

void put_be32(std::vector<char> &bytes, std::size_t at, std::uint32_t value)
{
	for (int i = 0; i < 4; i++)
		bytes[at + static_cast<std::size_t>(i)] = static_cast<char>(value >> (24 - 8 * i));
}

std::uint32_t get_be32(const std::vector<char> &bytes, std::size_t at)
{
	std::uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
	return v;
}

// struct fdt_header: magic, totalsize, off_dt_struct, ...
constexpr std::size_t fdt_totalsize_at = 4;
constexpr std::size_t fdt_off_dt_struct_at = 8;
constexpr std::size_t fdt_size_dt_struct_at = 36;
constexpr std::size_t fdt_version_at = 20;
constexpr std::size_t fdt_last_comp_version_at = 24;

// A valid blob of a fixture, compiled with dtc.
std::vector<char> valid_blob(const support::TempDir &dir, const std::string &fixture, bool symbols = true)
{
	const auto out = dir.path() / "valid.dtb";
	std::vector<std::string> argv{"dtc", "-q"};
	if (symbols)
		argv.push_back("-@");
	for (const char *arg : {"-I", "dts", "-O", "dtb", "-o"})
		argv.push_back(arg);
	argv.push_back(out.string());
	argv.push_back(test::fixture(fixture).string());
	auto result = support::run_tool(argv);
	BOOST_TEST_REQUIRE(result.ok(), result.err);
	return read_bytes(out);
}

struct NodeError {
	const char *fixture;
	const char *node;
	const char *what;
};

// One fixture per error path of the readers; each names the node at fault.
constexpr NodeError node_errors[] = {
	// cpus.cpp
	{"err-no-cpus.dts", "/", "no /cpus node"},
	{"err-no-cpu-node.dts", "/cpus", "no CPU node"},
	{"err-cpu-no-reg.dts", "/cpus/cpu@1", "CPU node has no reg"},
	{"err-cpu-reg-cells.dts", "/cpus/cpu@0", "reg has 3 cells, not a multiple of #address-cells = 2"},
	{"err-cpu-duplicate-reg.dts", "/cpus/cpu@1", "duplicate reg: /cpus/cpu@0 has the same hardware id"},
	{"err-cell-size.dts", "/cpus/cpu@0", "capacity-dmips-mhz should be one 32-bit cell, it is 8 bytes"},
	{"err-opp-dangling.dts", "/cpus/cpu@0",
	 "operating-points-v2 refers to phandle 0x42, which no node has"},
	{"err-opp-no-hz.dts", "/opp-table/opp-2000000000", "OPP has no opp-hz"},
	{"err-opp-hz-32bit.dts", "/opp-table/opp-1000000000",
	 "opp-hz is 4 bytes, not a list of 64-bit values"},
	{"err-legacy-odd.dts", "/cpus/cpu@0", "operating-points should be <kHz uV> pairs"},
	{"err-map-dangling.dts", "/cpus/cpu-map/cluster0/core1",
	 "cpu refers to phandle 0x99, which no node has"},
	{"err-map-not-cpu.dts", "/cpus/cpu-map/cluster0/core1",
	 "cpu points at /cpus/l2-cache, which is not a CPU node"},
	{"err-map-core-at-top.dts", "/cpus/cpu-map/core0", "cpu-map children should be clusters"},
	{"err-map-mixed-cluster.dts", "/cpus/cpu-map/cluster0", "non-leaf cluster with core0"},
	{"err-map-core-no-cpu.dts", "/cpus/cpu-map/cluster0/core1", "leaf core without a cpu phandle"},
	{"err-map-threads-and-cpu.dts", "/cpus/cpu-map/cluster0/core0", "core has both threads and a cpu"},
	{"err-map-twice.dts", "/cpus/cpu-map/cluster0/core1",
	 "/cpus/cpu@0 is already placed at /cpus/cpu-map/cluster0/core0"},
	// thermal.cpp
	{"err-trip-no-temp.dts", "/thermal-zones/cpu-thermal/trips/cpu-crit", "trip has no temperature"},
	{"err-trip-no-hysteresis.dts", "/thermal-zones/cpu-thermal/trips/cpu-crit",
	 "trip has no hysteresis"},
	{"err-trip-type.dts", "/thermal-zones/cpu-thermal/trips/cpu-warm", "unknown trip type \"warm\""},
	{"err-trip-no-type.dts", "/thermal-zones/cpu-thermal/trips/cpu-alert", "trip has no type"},
	{"err-map-foreign-trip.dts", "/thermal-zones/cpu-thermal/cooling-maps/map0",
	 "trip points at /thermal-zones/gpu-thermal/trips/gpu-alert, which is not a trip of this zone"},
	{"err-sensor-no-cells.dts", "/thermal-zones/cpu-thermal",
	 "thermal-sensors refers to /adc, which has no #thermal-sensor-cells"},
	{"err-cooling-cut-short.dts", "/thermal-zones/cpu-thermal/cooling-maps/map0",
	 "cooling-device is cut short: /cpus/cpu@0 needs 2 argument cells"},
	{"err-cooling-cells-count.dts", "/thermal-zones/cpu-thermal/cooling-maps/map0",
	 "cooling-device: 0xffffffff (cell 3 of 3) is no node's phandle; the entry before it took 1 argument cell "
	 "(#cooling-cells of /cpus/cpu@0): does that count match the entries?"},
};

} // namespace

BOOST_AUTO_TEST_SUITE(errors)

BOOST_AUTO_TEST_SUITE(input_files)

BOOST_AUTO_TEST_CASE(missing_file)
{
	const auto file = test::fixture("dts/no-such-board.dts");
	auto msg = error_of(file);
	BOOST_TEST(msg == file.string() + ": no such file");
}

BOOST_AUTO_TEST_CASE(directory)
{
	const auto dir = test::fixture("dts");
	auto msg = error_of(dir);
	BOOST_TEST(msg == dir.string() + ": is a directory, not a device tree");
}

// dtc reports the token after the missing ';': line 13 of the fixture,
// through cpp's line markers, not of the preprocessed temporary.
BOOST_AUTO_TEST_CASE(dtc_syntax_error)
{
	const auto file = test::fixture("dts/err-syntax.dts");
	auto msg = error_of(file);
	BOOST_TEST_CONTEXT(msg) {
		BOOST_TEST(msg.starts_with(file.string() + ": dtc: "));
		BOOST_TEST(contains(msg, file.string() + ":13."));
		BOOST_TEST(contains(msg, "syntax error"));
		BOOST_TEST(!contains(msg, "source.dts.tmp"));
	}
}

BOOST_AUTO_TEST_CASE(cpp_missing_include)
{
	const auto file = test::fixture("dts/err-include.dts");
	auto msg = error_of(file);
	BOOST_TEST_CONTEXT(msg) {
		BOOST_TEST(msg.starts_with(file.string() + ": preprocessing failed: "));
		// cpp's own file:line:col.
		BOOST_TEST(contains(msg, "err-include.dts:5:"));
		BOOST_TEST(contains(msg, "dt-bindings/sh-test/no-such-header.h"));
	}
}

// Hostile device trees: a runaway preprocessor or dtc is stopped by the
// limits the tools run under, a cyclic cache chain is refused, a deep tree
// is walked without a depth limit.
BOOST_AUTO_TEST_CASE(cpp_reading_dev_zero_is_stopped_by_its_memory_limit)
{
	const auto file = test::fixture("dts/err-include-dev-zero.dts");
	auto msg = error_of(file);
	BOOST_TEST_CONTEXT(msg) {
		BOOST_TEST(msg.starts_with(file.string() + ": preprocessing failed: "));
		BOOST_TEST(contains(msg, "out of memory"));
	}
}

BOOST_AUTO_TEST_CASE(dtc_that_loops_is_stopped_by_its_time_limit)
{
	::setenv("SCHED_HARNESS_DT_TIMEOUT", "2", 1);
	const auto file = test::fixture("dts/err-dtc-hang.dts");
	auto msg = error_of(file);
	::unsetenv("SCHED_HARNESS_DT_TIMEOUT");
	BOOST_TEST(msg == file.string() + ": dtc did not finish within 2 s: stopped (a hostile input?)");
}

// Without SCHED_HARNESS_DT_TIMEOUT: the tools' budget answers within 10 s
// (it was 60 s, which a user took for a hang).
BOOST_AUTO_TEST_CASE(dtc_that_loops_is_answered_within_10_s)
{
	::unsetenv("SCHED_HARNESS_DT_TIMEOUT");
	const auto file = test::fixture("dts/err-dtc-hang.dts");
	const auto start = std::chrono::steady_clock::now();
	auto msg = error_of(file);
	const auto took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
	BOOST_TEST(msg == file.string() + ": dtc did not finish within 8 s: stopped (a hostile input?)");
	BOOST_TEST(took < 10.0, took << " s");
}

// sched-harness ended by SIGTERM while dtc loops: its temporary
// directories are gone and dtc is stopped with it.
BOOST_AUTO_TEST_CASE(signal_removes_temporary_dirs_and_stops_the_tool)
{
	const auto tmp = std::filesystem::temp_directory_path() / fmt::format("sh-signal-test.{}", ::getpid());
	std::filesystem::remove_all(tmp);
	std::filesystem::create_directories(tmp);
	// dtc's command line names its output in the scratch directory; the
	// pattern's [.] keeps it from matching its own text in /proc
	const auto tools = fmt::format("$(grep -las '{}/sched-harness[.].*/blob[.]dtb' /proc/[0-9]*/cmdline | wc -l)",
				       tmp.string());
	const auto script = fmt::format(
		"export TMPDIR='{0}' SCHED_HARNESS_CACHE='{0}/cache' SCHED_HARNESS_DT_TIMEOUT=60; "
		"'{1}' platform show '{2}' 2>/dev/null & pid=$!; "
		"for i in $(seq 100); do [ {3} -gt 0 ] && break; sleep 0.1; done; "
		"echo during {3}; kill -TERM $pid; wait $pid; echo status $?; "
		"sleep 0.5; echo after $(ls '{0}' | grep -c sched-harness) {3}",
		tmp.string(), SH_TEST_HARNESS_BIN, test::fixture("dts/err-dtc-hang.dts").string(), tools);
	const auto r = support::run_tool(std::vector<std::string>{"/bin/sh", "-c", script});
	BOOST_TEST_MESSAGE(r.out);
	BOOST_TEST(r.out.find("during 1") != std::string::npos, r.out);	// dtc runs
	BOOST_TEST(r.out.find("status 143") != std::string::npos, r.out);	// 128 + SIGTERM
	BOOST_TEST(r.out.find("after 0 0") != std::string::npos, r.out);	// no directory, no dtc
	std::filesystem::remove_all(tmp);
}

BOOST_AUTO_TEST_CASE(cyclic_cache_chain)
{
	const auto file = test::fixture("dts/err-cache-cycle.dts");
	auto msg = error_of(file);
	check_names(msg, file, "/cpus/l3-cache",
		    "next-level-cache leads back to /cpus/l2-cache: the cache chain of /cpus/cpu@0 is a cycle");
}

// 100 levels: the glue's of_find_node_by_phandle() kept a stack of 64 and
// overran it (reported as an oops); it now walks the parent links.
BOOST_AUTO_TEST_CASE(deep_tree_boots)
{
	const auto file = test::fixture("dts/deep-tree.dts");
	const auto r = test::run_cli({"platform", "show", file.string()});
	BOOST_TEST(r.exit_status == 0, r.err);
	BOOST_TEST(contains(r.out, "Board       deep"), r.out);
}

BOOST_AUTO_TEST_SUITE_END() // input_files

BOOST_AUTO_TEST_SUITE(blobs)

BOOST_AUTO_TEST_CASE(truncated_blob)
{
	support::TempDir dir;
	auto bytes = valid_blob(dir, "dts/cpus-big-little.dts");
	bytes.resize(bytes.size() / 2);
	const auto file = dir.path() / "truncated.dtb";
	write_bytes(file, bytes);
	auto msg = error_of(file);
	BOOST_TEST(msg == file.string() + ": corrupt device-tree blob: FDT_ERR_TRUNCATED");
}

BOOST_AUTO_TEST_CASE(shorter_than_header)
{
	support::TempDir dir;
	auto bytes = valid_blob(dir, "dts/cpus-big-little.dts");
	bytes.resize(16);	// the magic survives: read as a blob, not as a source
	const auto file = dir.path() / "stub.dtb";
	write_bytes(file, bytes);
	auto msg = error_of(file);
	BOOST_TEST_CONTEXT(msg) {
		BOOST_TEST(msg.starts_with(file.string() + ": not a device-tree blob"));
		BOOST_TEST(contains(msg, "16 bytes is shorter than its header"));
	}
}

BOOST_AUTO_TEST_CASE(totalsize_beyond_the_file)
{
	support::TempDir dir;
	auto bytes = valid_blob(dir, "dts/cpus-big-little.dts");
	put_be32(bytes, fdt_totalsize_at, static_cast<std::uint32_t>(bytes.size()) + 4096);
	const auto file = dir.path() / "bad-totalsize.dtb";
	write_bytes(file, bytes);
	auto msg = error_of(file);
	BOOST_TEST(msg == file.string() + ": corrupt device-tree blob: FDT_ERR_TRUNCATED");
}

// Header intact, structure block overwritten: fdt_check_full() must catch
// it before any reader walks it.
BOOST_AUTO_TEST_CASE(garbage_structure_block)
{
	support::TempDir dir;
	auto bytes = valid_blob(dir, "dts/cpus-big-little.dts");
	const auto off = get_be32(bytes, fdt_off_dt_struct_at);
	const auto size = get_be32(bytes, fdt_size_dt_struct_at);
	BOOST_TEST_REQUIRE(off + size <= bytes.size());
	for (std::uint32_t i = 0; i < size; i++)
		bytes[off + i] = static_cast<char>(0xa5);
	const auto file = dir.path() / "garbage.dtb";
	write_bytes(file, bytes);
	auto msg = error_of(file);
	BOOST_TEST_CONTEXT(msg) {
		BOOST_TEST(msg.starts_with(file.string() + ": corrupt device-tree blob: FDT_ERR_"));
	}
}

// A blob older than version 16 holds each node's full path as its name, so
// libfdt's fdt_get_name() refuses a root named "" (FDT_ERR_BADSTRUCTURE)
// and returns NULL, which libfdt 1.6.1's own fdt_check_full() then reads:
// a crash reported as an oops (exit 3) until the loader checked the root's
// name itself (found by fuzz_device_tree).
BOOST_AUTO_TEST_CASE(old_version_blob_with_an_unreadable_root_name)
{
	support::TempDir dir;
	auto bytes = valid_blob(dir, "dts/cpus-big-little.dts");
	put_be32(bytes, fdt_version_at, 15);
	put_be32(bytes, fdt_last_comp_version_at, 2);
	const auto file = dir.path() / "v15.dtb";
	write_bytes(file, bytes);
	BOOST_TEST(error_of(file) == file.string() + ": corrupt device-tree blob: its root node's name cannot be read "
						     "(FDT_ERR_BADSTRUCTURE; a version 15 blob)");
}

BOOST_AUTO_TEST_SUITE_END() // blobs

BOOST_AUTO_TEST_CASE(node_errors_name_file_and_node)
{
	for (const auto &e : node_errors) {
		BOOST_TEST_CONTEXT(e.fixture) {
			const auto file = test::fixture(std::string("dts/") + e.fixture);
			check_names(error_of(file), file, e.node, e.what);
		}
	}
}

// The message starts with "file: node: ", nothing before.
BOOST_AUTO_TEST_CASE(node_error_format)
{
	const auto file = test::fixture("dts/err-cpu-no-reg.dts");
	BOOST_TEST(error_of(file) ==
		   file.string() + ": /cpus/cpu@1: CPU node has no reg (its hardware id)");
}

BOOST_AUTO_TEST_SUITE(overlays)

BOOST_AUTO_TEST_CASE(target_label_absent_from_base)
{
	const auto base = test::fixture("dts/fw-qcom.dts");
	const auto overlay = test::fixture("dts/err-overlay-target.dtso");
	auto msg = error_of(base, {overlay});
	BOOST_TEST_CONTEXT(msg) {
		BOOST_TEST(msg.starts_with(overlay.string() + ": overlay does not apply to " +
					   base.string() + ": "));
		BOOST_TEST(contains(msg, "FDT_ERR_NOTFOUND"));
		// The label at fault, and where the overlay uses it.
		BOOST_TEST(contains(msg, "no_such_cpu"));
		BOOST_TEST(contains(msg, "/fragment@0"));
	}
}

// A __fixups__ use past its property's end was an oops inside libfdt
// (exit 3): now bad input naming the use.
BOOST_AUTO_TEST_CASE(fixup_outside_its_property)
{
	const auto base = test::fixture("dts/fw-qcom.dts");
	const auto overlay = test::fixture("dts/err-overlay-fixup-offset.dtso");
	BOOST_TEST(error_of(base, {overlay}) ==
		   overlay.string() + ": corrupt overlay: __fixups__ cpu0 names offset 4294967292 of property "
				      "sh-test of /fragment@0/__overlay__, which has 8 bytes");
}

// The same use with its offset written as libfdt's strtoul() also reads
// it: negative (wrapped to 2^32 - 4, an oops in memcpy, exit 3), and with
// a blank and a plus sign before it.
BOOST_AUTO_TEST_CASE(fixup_offset_negative_or_signed)
{
	const auto base = test::fixture("dts/fw-qcom.dts");
	const auto negative = test::fixture("dts/err-overlay-fixup-negative.dtso");
	BOOST_TEST(error_of(base, {negative}) ==
		   negative.string() + ": corrupt overlay: __fixups__ cpu0 names offset -4 of property "
				       "sh-test of /fragment@0/__overlay__, which has 8 bytes");
	const auto signed_ = test::fixture("dts/err-overlay-fixup-signed.dtso");
	BOOST_TEST(error_of(base, {signed_}) ==
		   signed_.string() + ": corrupt overlay: __fixups__ cpu0 names offset  +4294967292 of property "
				      "sh-test of /fragment@0/__overlay__, which has 8 bytes");
}

BOOST_AUTO_TEST_CASE(target_path_absent_from_base)
{
	const auto base = test::fixture("dts/fw-qcom.dts");
	const auto overlay = test::fixture("dts/err-overlay-path.dtso");
	auto msg = error_of(base, {overlay});
	BOOST_TEST(msg == overlay.string() + ": overlay does not apply to " + base.string() +
				  ": FDT_ERR_NOTFOUND (target-path /soc/nowhere of /fragment@0 is not in "
				  "the base tree)");
}

// A .dtb built without -@ has no __symbols__: no label can be targeted.
BOOST_AUTO_TEST_CASE(base_blob_without_symbols)
{
	support::TempDir dir;
	const auto base = dir.path() / "fw-qcom-nosymbols.dtb";
	write_bytes(base, valid_blob(dir, "dts/fw-qcom.dts", false));
	const auto overlay = test::fixture("dts/fw-qcom-opp.dtso");
	auto msg = error_of(base, {overlay});
	BOOST_TEST_CONTEXT(msg) {
		BOOST_TEST(msg.starts_with(overlay.string() + ": overlay does not apply to " +
					   base.string() + ": "));
		BOOST_TEST(contains(msg, "dtc -@"));
		BOOST_TEST(contains(msg, "cpu0"));
	}
}

BOOST_AUTO_TEST_CASE(broken_overlay_source)
{
	// The overlay's own syntax error names the overlay, not the board.
	const auto overlay = test::fixture("dts/err-syntax.dts");
	auto msg = error_of(test::fixture("dts/fw-qcom.dts"), {overlay});
	BOOST_TEST(msg.starts_with(overlay.string() + ": dtc: "), msg);
}

// A source without /plugin/ compiles to a plain tree that changed nothing
// when applied, silently.
BOOST_AUTO_TEST_CASE(overlay_without_plugin)
{
	const auto overlay = test::fixture("dts/err-overlay-no-plugin.dtso");
	auto msg = error_of(test::fixture("dts/fw-qcom.dts"), {overlay});
	BOOST_TEST(msg == overlay.string() + ": not an overlay: no fragment with an __overlay__ node (a source needs "
				  "/plugin/; and its changes in &label { ... }; blocks)");
}

// A .dtbo whose __local_fixups__ points past its property: libfdt 1.6.1's
// fdt_overlay_apply() read and rewrote the phandle out of bounds (found by
// tests/fuzz/fuzz_device_tree); it is refused before it is applied, naming
// the offset and the property. The same overlay intact applies.
BOOST_AUTO_TEST_CASE(overlay_local_fixup_outside_its_property)
{
	support::TempDir dir;
	const auto base = test::fixture("dts/cpus-big-little.dts");
	auto bytes = valid_blob(dir, "dts/overlay-local-phandle.dtso");
	const auto file = dir.path() / "fixups.dtbo";
	write_bytes(file, bytes);
	BOOST_CHECK_NO_THROW(test::load(base, {file}));
	const int fixup = fdt_path_offset(bytes.data(), "/__local_fixups__/fragment@0/__overlay__/second");
	BOOST_TEST_REQUIRE(fixup >= 0);
	BOOST_TEST_REQUIRE(fdt_setprop_inplace_u32(bytes.data(), fixup, "link", 0x100000) == 0);
	write_bytes(file, bytes);
	BOOST_TEST(error_of(base, {file}) == file.string() +
						": corrupt overlay: __local_fixups__ names offset 1048576 of property "
						"link of second, which has 4 bytes");
}

BOOST_AUTO_TEST_SUITE_END() // overlays

// What a user sees: status 2, one line on stderr, nothing on stdout.
BOOST_AUTO_TEST_CASE(cli_reports_one_line)
{
	support::TempDir dir;
	auto bytes = valid_blob(dir, "dts/cpus-big-little.dts");
	bytes.resize(bytes.size() / 2);
	const auto truncated = dir.path() / "truncated.dtb";
	write_bytes(truncated, bytes);

	struct Case {
		std::filesystem::path file;
		std::string mentions;
	};
	const std::array cases{
		Case{test::fixture("dts/no-such-board.dts"), "no such file"},
		Case{test::fixture("dts/err-syntax.dts"), "err-syntax.dts:13."},
		Case{test::fixture("dts/err-opp-dangling.dts"), "/cpus/cpu@0: operating-points-v2"},
		Case{test::fixture("dts/err-trip-type.dts"), "/thermal-zones/cpu-thermal/trips/cpu-warm"},
		Case{truncated, "FDT_ERR_TRUNCATED"},
	};
	for (const auto &c : cases) {
		BOOST_TEST_CONTEXT(c.file) {
			auto r = test::run_cli({"platform", "show", c.file.string()});
			BOOST_TEST(r.exit_status == 2);
			BOOST_TEST(r.out.empty(), r.out);
			BOOST_TEST(r.err.starts_with("sched-harness: error: "), r.err);
			BOOST_TEST(r.err.ends_with("\n"));
			BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
			BOOST_TEST(contains(r.err, c.file.string()), r.err);
			BOOST_TEST(contains(r.err, c.mentions), r.err);
		}
	}
}

BOOST_AUTO_TEST_CASE(cli_bad_overlay)
{
	const auto overlay = test::fixture("dts/err-overlay-target.dtso");
	auto r = test::run_cli({"platform", "show", test::fixture("dts/fw-qcom.dts").string(),
				"--overlay", overlay.string()});
	BOOST_TEST(r.exit_status == 2);
	BOOST_TEST(r.out.empty(), r.out);
	BOOST_TEST(r.err.starts_with("sched-harness: error: " + overlay.string()), r.err);
	BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
}

BOOST_AUTO_TEST_SUITE_END() // errors

// Compiled sources are cached by the content of the source and of every
// file it includes: an edited include is compiled again (and an error in
// it reported), and the edit undone finds the first entry.
BOOST_AUTO_TEST_CASE(compiled_blobs_follow_their_includes)
{
	support::TempDir dir;
	::setenv("SCHED_HARNESS_CACHE", (dir.path() / "cache").c_str(), 1);
	const auto dts_file = dir.path() / "board.dts", dtsi = dir.path() / "part.dtsi";
	std::ofstream(dts_file) << "/dts-v1/;\n#include \"part.dtsi\"\n/ { model = \"m\"; };\n";
	auto model = [&] {
		const auto blob = dts::FdtBlob::load(dts_file, test::kernel_tree());
		const auto *value = static_cast<const char *>(fdt_getprop(blob.data(), 0, "compatible", nullptr));
		return std::string(value ? value : "");
	};
	std::ofstream(dtsi) << "/ { compatible = \"first\"; };\n";
	BOOST_TEST(model() == "first");
	BOOST_TEST(model() == "first");	// from the cache
	std::ofstream(dtsi) << "/ { compatible = \"second\"; };\n";
	BOOST_TEST(model() == "second");
	std::ofstream(dtsi) << "/ { compatible = ; };\n";
	BOOST_CHECK_THROW(model(), dts::Error);
	std::ofstream(dtsi) << "/ { compatible = \"first\"; };\n";
	BOOST_TEST(model() == "first");
	std::size_t entries = 0;
	for ([[maybe_unused]] const auto &e : std::filesystem::directory_iterator(dir.path() / "cache" / "dtb"))
		entries++;
	BOOST_TEST(entries == 1u);	// one source, one entry: replaced as its inputs change
	::unsetenv("SCHED_HARNESS_CACHE");
}
