// SPDX-License-Identifier: GPL-2.0
#include "dts/blob.h"
#include "dts/input_file.h"

#include "dts/platform.h"
#include "support/tools.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <array>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <libfdt.h>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unistd.h>
#include <vector>
#include <cstdlib>

#ifndef SCHED_HARNESS_CPP
#define SCHED_HARNESS_CPP "cpp"
#endif
#ifndef SCHED_HARNESS_DTC
#define SCHED_HARNESS_DTC "dtc"
#endif

namespace sh::dts {

namespace {

// The C preprocessor's and dtc's time together (SCHED_HARNESS_DT_TIMEOUT
// changes it): a command answers within 10 s on any device tree.
constexpr unsigned tool_budget_seconds = 8;

std::vector<char> read_file(const std::filesystem::path &file)
{
	try {
		const auto bytes = read_input_file(file, "device tree");
		return {bytes.begin(), bytes.end()};
	} catch (const std::runtime_error &e) {
		throw Error(e.what());
	}
}

bool has_fdt_magic(const std::vector<char> &bytes)
{
	return bytes.size() >= sizeof(fdt32_t) &&
	       fdt_magic(bytes.data()) == FDT_MAGIC;
}

// The first line of a tool's diagnostics that says what went wrong: cpp
// prints "file:line:col: error: ...", dtc "Error: file:line.col-col ..." or
// "ERROR (check): ...". Warnings are not the reason for a failure.
std::string first_error_line(const std::string &diagnostics)
{
	std::string fallback;
	std::size_t pos = 0;
	while (pos < diagnostics.size()) {
		auto end = diagnostics.find('\n', pos);
		if (end == std::string::npos)
			end = diagnostics.size();
		std::string line = diagnostics.substr(pos, end - pos);
		pos = end + 1;
		if (line.empty())
			continue;
		if (fallback.empty())
			fallback = line;
		if (line.find("error") != std::string::npos ||
		    line.find("Error") != std::string::npos ||
		    line.find("ERROR") != std::string::npos)
			return line;
	}
	return fallback.empty() ? "failed without a message" : fallback;
}

// fdt_overlay_apply() only says FDT_ERR_NOTFOUND: name the label or
// target-path of the overlay that the base lacks, so that the message says
// which node is at fault. `overlay` must be the blob as it was before the
// failed apply, which damages it.
std::string missing_target(const void *base, const void *overlay)
{
	const int symbols = fdt_path_offset(base, "/__symbols__");
	const int fixups = fdt_path_offset(overlay, "/__fixups__");
	if (fixups >= 0) {
		int prop;
		fdt_for_each_property_offset(prop, overlay, fixups) {
			const char *label = nullptr;
			int len = 0;
			const auto *uses = static_cast<const char *>(
				fdt_getprop_by_offset(overlay, prop, &label, &len));
			if (!label || (symbols >= 0 && fdt_getprop(base, symbols, label, nullptr)))
				continue;
			// Each use is "node:property:offset"; the first one says where.
			std::string use = uses && len > 0 ? std::string(uses, strnlen(uses, len)) : "";
			use = use.substr(0, use.rfind(':'));
			if (auto colon = use.rfind(':'); colon != std::string::npos)
				use = fmt::format("{} ({})", use.substr(0, colon), use.substr(colon + 1));
			return fmt::format("label {}, used by {}, is not in the base tree", label, use);
		}
	}
	int fragment;
	fdt_for_each_subnode(fragment, overlay, 0) {
		int len = 0;
		const auto *path = static_cast<const char *>(fdt_getprop(overlay, fragment, "target-path", &len));
		if (!path || len <= 0)
			continue;
		const std::string target(path, strnlen(path, static_cast<std::size_t>(len)));
		if (fdt_path_offset_namelen(base, target.c_str(), static_cast<int>(target.size())) < 0)
			return fmt::format("target-path {} of /{} is not in the base tree", target,
					   fdt_get_name(overlay, fragment, nullptr));
	}
	return "";
}

// Deeper overlays are refused: fdt_overlay_apply() recurses once per level.
constexpr int max_overlay_depth = 256;

// Each use a __fixups__ property lists ("path:property:offset", NUL
// separated) is where fdt_overlay_apply() writes the label's phandle:
// libfdt 1.6.1 reads the offset with strtoul() into 32 bits and checks
// offset + 4 against the property's length in 32 bits, so an offset near
// 2^32 wrapped past the check and it wrote outside the blob; so did a
// negative one, which strtoul() takes and wraps. A use whose
// node or property the overlay lacks is left to libfdt (FDT_ERR_BADOVERLAY).
void check_external_fixups(const void *fdto, const std::string &origin)
{
	const int fixups = fdt_path_offset(fdto, "/__fixups__");
	if (fixups < 0)
		return;
	int prop;
	fdt_for_each_property_offset(prop, fdto, fixups) {
		const char *label = nullptr;
		int len = 0;
		const auto *uses = static_cast<const char *>(fdt_getprop_by_offset(fdto, prop, &label, &len));
		if (!uses || !label || len <= 0)
			continue;
		for (std::string_view rest(uses, static_cast<std::size_t>(len)); !rest.empty();) {
			const auto end = rest.find('\0');
			const auto use = rest.substr(0, end);
			rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
			const auto last = use.rfind(':');
			const auto first = last == std::string_view::npos ? last : use.rfind(':', last - 1);
			if (first == std::string_view::npos || first == 0)
				continue;	// libfdt refuses it
			const std::string path(use.substr(0, first));
			const std::string name(use.substr(first + 1, last - first - 1));
			// read as libfdt reads it, with strtoul(): which takes
			// leading blanks and a sign, and wraps a negative number
			// ("-4" is 2^64 - 4, and 2^32 - 4 in libfdt's 32 bits)
			const std::string digits(use.substr(last + 1));
			char *digits_end = nullptr;
			errno = 0;
			const unsigned long offset = std::strtoul(digits.c_str(), &digits_end, 10);
			const bool out_of_range = errno == ERANGE;
			if (digits_end == digits.c_str() || *digits_end != '\0')
				continue;	// libfdt refuses it (FDT_ERR_BADOVERLAY)
			const bool negative = digits.find('-') != std::string::npos && offset != 0;
			const int node = fdt_path_offset(fdto, path.c_str());
			int prop_len = 0;
			if (node < 0 || !fdt_getprop(fdto, node, name.c_str(), &prop_len))
				continue;
			if (negative || out_of_range || prop_len < 4 || offset > static_cast<unsigned long>(prop_len - 4))
				throw Error(fmt::format("{}: corrupt overlay: __fixups__ {} names offset {} of property {} of "
							"{}, which has {} bytes",
							origin, label, digits, name, path, prop_len));
		}
	}
}

// What fdt_overlay_apply() (libfdt 1.6.1, Debian 12's) trusts in an
// overlay without checking: its depth, and that each offset its
// __local_fixups__ lists lies inside the property it names
// (overlay_update_local_node_references() reads and rewrites the phandle
// there: a hostile .dtbo made it read and write out of bounds; later
// libfdt checks it too). Throws Error naming the node and property.
void check_overlay(const void *fdto, const std::string &origin)
{
	int depth = 0;
	for (int node = 0; node >= 0; node = fdt_next_node(fdto, node, &depth))
		if (depth > max_overlay_depth)
			throw Error(fmt::format("{}: overlay nests deeper than {} levels", origin, max_overlay_depth));
	check_external_fixups(fdto, origin);
	const int fixups = fdt_path_offset(fdto, "/__local_fixups__");
	if (fixups < 0)
		return;
	// the fixups' tree mirrors the overlay's: walked in parallel
	std::vector<std::pair<int, int>> pending{{fixups, 0}};
	while (!pending.empty()) {
		const auto [fixup_node, tree_node] = pending.back();
		pending.pop_back();
		int prop;
		fdt_for_each_property_offset(prop, fdto, fixup_node) {
			const char *name = nullptr;
			int len = 0;
			const auto *offsets = static_cast<const fdt32_t *>(fdt_getprop_by_offset(fdto, prop, &name, &len));
			if (!offsets || !name)
				continue;
			int tree_len = 0;
			if (!fdt_getprop(fdto, tree_node, name, &tree_len))
				continue;	// libfdt refuses it (FDT_ERR_BADOVERLAY)
			for (int i = 0; i + 4 <= len; i += 4) {
				const auto offset = fdt32_ld(offsets + i / 4);
				if (tree_len < 4 || offset > static_cast<std::uint32_t>(tree_len - 4))
					throw Error(fmt::format("{}: corrupt overlay: __local_fixups__ names offset {} of "
								"property {} of {}, which has {} bytes",
								origin, offset, name,
								fdt_get_name(fdto, tree_node, nullptr), tree_len));
			}
		}
		int sub;
		fdt_for_each_subnode(sub, fdto, fixup_node) {
			const char *sub_name = fdt_get_name(fdto, sub, nullptr);
			const int tree_sub = sub_name ? fdt_subnode_offset(fdto, tree_node, sub_name) : -1;
			if (tree_sub >= 0)
				pending.emplace_back(sub, tree_sub);
		}
	}
}

} // namespace

FdtBlob::FdtBlob(std::vector<char> bytes, std::string origin)
	: bytes_(std::move(bytes)), origin_(std::move(origin))
{
}

FdtBlob FdtBlob::load(const std::filesystem::path &file,
		      const std::filesystem::path &kernel_tree)
{
	auto bytes = read_file(file);
	if (!has_fdt_magic(bytes))
		return compile(file, kernel_tree);
	FdtBlob blob(std::move(bytes), file.string());
	blob.check();
	return blob;
}

FdtBlob FdtBlob::from_bytes(std::vector<char> bytes, std::string origin)
{
	FdtBlob blob(std::move(bytes), std::move(origin));
	blob.check();
	return blob;
}

namespace {

// libfdt 1.6.1's fdt_check_full() reads the root node's name through
// fdt_get_name() without checking for NULL, which it returns for a name
// it cannot read: a hostile blob crashes it (found by fuzz_device_tree).
// The same lookup, checked, first.
int check_root_name(const void *fdt)
{
	int offset, next = 0;
	std::uint32_t tag;
	do {
		offset = next;
		tag = fdt_next_tag(fdt, offset, &next);
	} while (tag == FDT_NOP && next >= 0);
	if (next < 0 || tag != FDT_BEGIN_NODE)
		return 0;	// fdt_check_full() says what is wrong
	int len = 0;
	return fdt_get_name(fdt, offset, &len) ? 0 : len;
}

} // namespace

void FdtBlob::check() const
{
	if (bytes_.size() < sizeof(struct fdt_header))
		throw Error(fmt::format("{}: not a device-tree blob: {} bytes is shorter than its header",
					origin_, bytes_.size()));
	int err = fdt_check_header(bytes_.data());
	if (err == 0 && fdt_totalsize(bytes_.data()) > bytes_.size())
		err = -FDT_ERR_TRUNCATED;
	if (err == 0 && (err = check_root_name(bytes_.data())) != 0)
		throw Error(fmt::format("{}: corrupt device-tree blob: its root node's name cannot be read ({}; a "
					"version {} blob)",
					origin_, fdt_strerror(err), fdt_version(bytes_.data())));
	if (err == 0)
		err = fdt_check_full(bytes_.data(), bytes_.size());
	if (err != 0)
		throw Error(fmt::format("{}: corrupt device-tree blob: {}", origin_,
					fdt_strerror(err)));
}

namespace {

std::string bytes_of(const std::filesystem::path &file)
{
	const auto v = read_file(file);
	return {v.begin(), v.end()};
}

// What identifies a tool's version without running it: its resolved path,
// size and modification time.
std::string tool_identity(const std::string &name)
{
	const char *path_env = std::getenv("PATH");
	std::string_view dirs = path_env ? path_env : "/usr/bin:/bin";
	while (!dirs.empty()) {
		const auto colon = dirs.find(':');
		const std::filesystem::path candidate = std::filesystem::path(dirs.substr(0, colon)) / name;
		std::error_code ec;
		if (std::filesystem::is_regular_file(candidate, ec)) {
			const auto size = std::filesystem::file_size(candidate, ec);
			const auto mtime = std::filesystem::last_write_time(candidate, ec).time_since_epoch().count();
			return fmt::format("{} {} {}", candidate.string(), size, mtime);
		}
		dirs = colon == std::string_view::npos ? std::string_view{} : dirs.substr(colon + 1);
	}
	return name;
}

// The files a cpp depfile (-MD) names, after the target.
std::vector<std::string> depfile_inputs(const std::string &text)
{
	std::vector<std::string> files;
	std::string word;
	bool target = true;
	for (std::size_t i = 0; i <= text.size(); i++) {
		const char c = i < text.size() ? text[i] : ' ';
		if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
			word += ' ';	// an escaped space in a path
			i++;
		} else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
			i++;
		} else if (c == ' ' || c == '\n' || c == '\t') {
			if (!word.empty() && !target)
				files.push_back(word);
			if (!word.empty() && word.back() == ':')
				target = false;
			word.clear();
		} else {
			word += c;
		}
	}
	return files;
}

// A compiled blob from the cache when the source, every file it included
// and the tools are those it was compiled from (ccache's "direct mode").
// The entry's index file: one line per input, "hash path".
std::optional<std::vector<char>> cached_blob(const std::filesystem::path &entry)
try {
	std::ifstream index(entry / "inputs");
	if (!index)
		return std::nullopt;
	std::string line;
	while (std::getline(index, line)) {
		const auto space = line.find(' ');
		if (space == std::string::npos)
			return std::nullopt;
		std::error_code ec;
		const std::filesystem::path input = line.substr(space + 1);
		if (!std::filesystem::is_regular_file(input, ec) ||
		    fmt::format("{:016x}", support::content_hash(bytes_of(input))) != line.substr(0, space))
			return std::nullopt;
	}
	auto blob = read_file(entry / "blob.dtb");
	if (blob.empty())
		return std::nullopt;
	return blob;
} catch (const Error &) {
	return std::nullopt;	// an entry half gone: compile again
}

void store_blob(const std::filesystem::path &entry, const std::vector<char> &blob, const std::string &depfile)
try {
	std::error_code ec;
	const auto work = std::filesystem::path(entry.string() + fmt::format(".tmp.{}", ::getpid()));
	std::filesystem::remove_all(work, ec);
	std::filesystem::create_directories(work, ec);
	if (ec)
		return;		// no cache (a read-only home): compile each time
	std::string index;
	for (const auto &input : depfile_inputs(depfile))
		index += fmt::format("{:016x} {}\n", support::content_hash(bytes_of(input)),
				     std::filesystem::absolute(input).lexically_normal().string());
	std::ofstream(work / "inputs") << index;
	std::ofstream(work / "blob.dtb", std::ios::binary).write(blob.data(), static_cast<std::streamsize>(blob.size()));
	std::filesystem::remove_all(entry, ec);
	std::filesystem::rename(work, entry, ec);
	if (ec)
		std::filesystem::remove_all(work, ec);
} catch (const std::exception &) {
	// an input gone meanwhile, a full disk: the blob is simply not cached
}

} // namespace

// Kbuild's cmd_dtc: "$(CPP) -nostdinc -I $(DTC_INCLUDE) -undef -D__DTS__
// -x assembler-with-cpp" then "$(DTC) -b 0 -i $(dir $<) -i $(DTC_INCLUDE)".
// dtc understands cpp's line markers, so its messages name the original
// file and line. Compiled blobs are cached by their inputs' content.
FdtBlob FdtBlob::compile(const std::filesystem::path &source,
			 const std::filesystem::path &kernel_tree)
{
	const auto dir = std::filesystem::absolute(source).parent_path().string();
	const auto prefixes = (kernel_tree / "scripts/dtc/include-prefixes").string();
	support::TempDir scratch;
	const auto preprocessed = (scratch.path() / "source.dts.tmp").string();
	const auto compiled = (scratch.path() / "blob.dtb").string();
	const auto depfile = (scratch.path() / "source.d").string();

	const std::vector<std::string> cpp{
		std::string(SCHED_HARNESS_CPP), std::string("-nostdinc"),
		"-I" + dir, "-I" + prefixes, "-I" + (kernel_tree / "include").string(),
		std::string("-undef"), std::string("-D__DTS__"),
		std::string("-x"), std::string("assembler-with-cpp"),
		std::string("-MD"), std::string("-MF"), depfile,
		std::string("-o"), preprocessed, source.string(),
	};
	const std::vector<std::string> dtc{
		std::string(SCHED_HARNESS_DTC), std::string("-q"), std::string("-@"),
		std::string("-I"), std::string("dts"), std::string("-O"), std::string("dtb"),
		std::string("-b"), std::string("0"),
		std::string("-i"), dir, std::string("-i"), prefixes,
		std::string("-o"), compiled, preprocessed,
	};

	// the cache entry: the commands (but the scratch names), the tools, the source
	std::uint64_t key = support::content_hash(tool_identity(SCHED_HARNESS_CPP) + "\n" + tool_identity(SCHED_HARNESS_DTC));
	for (const auto &argv : {cpp, dtc})
		for (const auto &arg : argv)
			if (!arg.starts_with(scratch.path().string()))
				key = support::content_hash(arg + '\0', key);
	key = support::content_hash(std::filesystem::absolute(source).string(), key);
	const auto entry = support::cache_dir() / "dtb" / fmt::format("{:016x}", key);
	if (auto blob = cached_blob(entry)) {
		FdtBlob cached(std::move(*blob), source.string());
		cached.check();
		return cached;
	}

	// A board is compiled in milliseconds; the bounds stop an input that
	// makes the tools run away (an #include of /dev/zero, dtc looping on a
	// hostile #*-cells) with a message instead of a machine out of memory.
	// The two tools share one time budget, so that a command on any input
	// answers within 10 s; their memory is bounded well above what a board
	// takes (a few MiB) and low enough that cpp reading /dev/zero runs out
	// of it in a fraction of that budget (2 GiB took 4 s, and more than 8 s
	// on a loaded machine).
	support::ToolLimits limits{tool_budget_seconds, 512ULL << 20, 256ULL << 20};
	if (const char *env = std::getenv("SCHED_HARNESS_DT_TIMEOUT"); env && *env) {
		unsigned seconds = 0;
		const auto [ptr, ec] = std::from_chars(env, env + std::strlen(env), seconds);
		if (ec != std::errc() || *ptr || seconds == 0)
			throw Error(fmt::format("SCHED_HARNESS_DT_TIMEOUT={}: expected a number of seconds", env));
		limits.seconds = seconds;
	}
	// Runs one tool in what is left of the budget (whole seconds, at least
	// one); on failure, its first error line, or the limits when it died
	// without a word.
	const auto budget = limits.seconds;
	const auto started = std::chrono::steady_clock::now();
	auto bounded = [&](const std::vector<std::string> &argv, const char *what, const char *failed) {
		const auto spent = std::chrono::ceil<std::chrono::seconds>(std::chrono::steady_clock::now() - started);
		limits.seconds = static_cast<unsigned>(
			std::max<std::chrono::seconds::rep>(1, static_cast<std::chrono::seconds::rep>(budget) - spent.count()));
		auto r = support::run_tool(argv, limits);
		if (r.timed_out)
			throw Error(fmt::format("{}: {} did not finish within {} s: stopped (a hostile input?)",
						source.string(), what, budget));
		if (!r.ok())
			throw Error(fmt::format("{}: {}: {}", source.string(), failed,
						r.err.empty() ? fmt::format("killed (limit of {} MiB of memory or {} MiB "
									    "of output?)",
									    limits.memory_bytes >> 20,
									    limits.file_bytes >> 20)
							      : first_error_line(r.err)));
	};
	bounded(cpp, "the C preprocessor", "preprocessing failed");
	bounded(dtc, "dtc", "dtc");

	FdtBlob blob(read_file(compiled), source.string());
	blob.check();
	store_blob(entry, blob.bytes_, bytes_of(depfile));
	return blob;
}

void FdtBlob::apply_overlay(FdtBlob overlay)
{
	// An overlay is fragments, each with an __overlay__ node; a plain tree
	// (a .dtso without /plugin;) would apply as nothing at all.
	bool has_fragment = false;
	const void *o = overlay.bytes_.data();
	int node = 0;
	fdt_for_each_subnode(node, o, 0)
		has_fragment |= fdt_subnode_offset(o, node, "__overlay__") >= 0;
	if (!has_fragment)
		throw Error(fmt::format("{}: not an overlay: no fragment with an __overlay__ node (a source needs "
					"/plugin/; and its changes in &label {{ ... }}; blocks)",
					overlay.origin()));
	check_overlay(o, overlay.origin());
	// fdt_overlay_apply() grows the base in place: give it room for
	// everything the overlay could add.
	std::vector<char> grown(bytes_.size() + overlay.size() + 4096);
	const std::vector<char> pristine = overlay.bytes_;
	int err = fdt_open_into(bytes_.data(), grown.data(), static_cast<int>(grown.size()));
	if (err == 0)
		err = fdt_overlay_apply(grown.data(), overlay.bytes_.data());
	if (err != 0) {
		std::string hint;
		if (err == -FDT_ERR_NOTFOUND) {
			auto what = missing_target(bytes_.data(), pristine.data());
			if (what.empty())
				what = "a target label or path of the overlay is not in the base tree";
			if (!what.starts_with("target-path"))
				what += "; a base .dtb must be built with dtc -@ for label targets";
			hint = fmt::format(" ({})", what);
		} else if (err == -FDT_ERR_BADOVERLAY) {
			hint = " (not an overlay: compile it with /plugin/)";
		}
		throw Error(fmt::format("{}: overlay does not apply to {}: {}{}", overlay.origin_,
					origin_, fdt_strerror(err), hint));
	}
	fdt_pack(grown.data());
	grown.resize(fdt_totalsize(grown.data()));
	bytes_ = std::move(grown);
}

} // namespace sh::dts
