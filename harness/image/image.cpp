// SPDX-License-Identifier: GPL-2.0
#include "harness/image/image.h"
#include "harness/image/patch_file.h"

#include "support/tools.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <tuple>
#include <sstream>
#include <cerrno>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <optional>
#include <regex>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#ifndef SH_IMAGE_BUILD_DIR
#error "SH_IMAGE_BUILD_DIR: the build directory whose commands images reuse"
#endif

namespace fs = std::filesystem;

namespace sh::image {

namespace {

const fs::path build_dir = SH_IMAGE_BUILD_DIR;
const fs::path kernel_tree = SH_IMAGE_KERNEL_TREE;
const fs::path source_root = SH_IMAGE_SOURCE_ROOT;

// What one flavour's image is made of in this build (kernel-shim/CMakeLists.txt).
struct Flavour {
	const char *name;		// arm64, arm
	const char *library;		// ksched -> libksched.so
	const char *objects;		// its kernel objects' target
	const char *undefined_list;	// undefined-<series>[-pelt][-arm].txt (SH_SYMBOL_LISTS)
};
const Flavour flavours[] = {
	{"arm64", "ksched", "ksched_kernel", "undefined-" SH_IMAGE_KERNEL_SERIES ".txt"},
	{"arm", "ksched_arm", "ksched_arm_kernel", "undefined-" SH_IMAGE_KERNEL_SERIES "-arm.txt"},
};

// In one read of its size: a stream copy grows its buffer by doubling,
// copying a large file's bytes about twice over (the kernel libraries,
// 13 MB and 26 MB instrumented, were most of an image lookup's time under
// AddressSanitizer before library_identity()).
std::string read_file(const fs::path &path)
{
	std::ifstream in(path, std::ios::binary | std::ios::ate);
	if (!in)
		throw BuildError(fmt::format("cannot read {}", path.string()));
	const auto size = in.tellg();	// -1 where the file cannot seek (a pipe)
	if (size < 0)
		throw BuildError(fmt::format("cannot read {}: not a regular file", path.string()));
	std::string text(static_cast<std::size_t>(size), '\0');
	in.seekg(0);
	if (!in.read(text.data(), static_cast<std::streamsize>(text.size())))
		throw BuildError(fmt::format("cannot read {}", path.string()));
	return text;
}

// What names a linked library's content: its GNU build ID (a hash of the
// linked bytes, which Debian's toolchain writes by default) where it has
// one, else the bytes themselves. Every image lookup asks, so it must not
// read the whole library.
std::string library_identity(const fs::path &path)
{
	std::ifstream in(path, std::ios::binary);
	Elf64_Ehdr header{};
	if (!in.read(reinterpret_cast<char *>(&header), sizeof(header)))
		throw BuildError(fmt::format("cannot read {}", path.string()));
	if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
	    header.e_phentsize != sizeof(Elf64_Phdr))
		return read_file(path);
	for (unsigned i = 0; i < header.e_phnum; i++) {
		Elf64_Phdr segment{};
		in.seekg(static_cast<std::streamoff>(header.e_phoff + i * sizeof(segment)));
		if (!in.read(reinterpret_cast<char *>(&segment), sizeof(segment)))
			break;
		if (segment.p_type != PT_NOTE || segment.p_filesz > (1 << 16))
			continue;
		std::string notes(segment.p_filesz, '\0');
		in.seekg(static_cast<std::streamoff>(segment.p_offset));
		if (!in.read(notes.data(), static_cast<std::streamsize>(notes.size())))
			break;
		auto aligned = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };
		for (std::size_t at = 0; at + sizeof(Elf64_Nhdr) <= notes.size();) {
			Elf64_Nhdr note;
			std::memcpy(&note, notes.data() + at, sizeof(note));
			const auto name_at = at + sizeof(note), desc_at = name_at + aligned(note.n_namesz);
			if (desc_at + note.n_descsz > notes.size())
				break;
			if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == sizeof(ELF_NOTE_GNU) &&
			    std::memcmp(notes.data() + name_at, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) == 0)
				return "build-id " + notes.substr(desc_at, note.n_descsz);
			at = desc_at + aligned(note.n_descsz);
		}
	}
	return read_file(path);
}

void write_file(const fs::path &path, const std::string &text)
{
	std::ofstream out(path, std::ios::binary);
	out << text;
	if (!out)
		throw BuildError(fmt::format("cannot write {}", path.string()));
}

std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h = 0xcbf29ce484222325ULL)
{
	return support::content_hash(bytes, h);
}

void replace_all(std::string &s, std::string_view from, std::string_view to)
{
	for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
		s.replace(at, from.size(), to);
}

// `cd DIR && COMMAND` through the shell; the result of the tool.
support::ToolResult shell(const fs::path &dir, const std::string &command)
{
	const std::vector<std::string> argv{"/bin/sh", "-c",
					    fmt::format("cd '{}' && {}", dir.string(), command)};
	return support::run_tool(argv);
}

// The rest of the overlay around the patched files: each directory of a
// file read or patched (and each above it) a real one, its other entries
// symlinks into the tree. Real directories, so that an include relative to
// its file ("../smpboot.h" from kernel/sched/) climbs the overlay, not the
// tree behind a symlinked directory, and finds a patched copy; the files a
// patch deleted stay absent.
void fill_overlay(const fs::path &overlay, const fs::path &tree, const std::vector<std::string> &read,
		  const std::set<std::string> &patched)
{
	std::set<fs::path> real{fs::path()};
	auto add = [&](fs::path dir) {
		for (; !dir.empty() && real.insert(dir).second; dir = dir.parent_path())
			;
	};
	for (const auto &f : read)
		add(fs::path(f).parent_path());
	for (const auto &f : patched)
		add(fs::path(f).parent_path());
	for (const auto &dir : real) {
		fs::create_directories(overlay / dir);
		std::error_code ec;
		for (const auto &entry : fs::directory_iterator(tree / dir, ec)) {
			const auto rel = dir / entry.path().filename();
			if (!real.count(rel) && !patched.count(rel.string()) &&
			    !fs::exists(fs::symlink_status(overlay / rel)))
				fs::create_symlink(entry.path(), overlay / rel);
		}
	}
}

// An exclusive flock(2) on `path` while it lives (released if the process
// dies): the builds of one image take turns.
class FileLock {
public:
	explicit FileLock(const fs::path &path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644))
	{
		if (fd_ < 0)
			throw BuildError(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
		while (::flock(fd_, LOCK_EX) != 0) {
			if (errno == EINTR)
				continue;
			const int err = errno;
			::close(fd_);
			throw BuildError(fmt::format("cannot lock {}: {}", path.string(), std::strerror(err)));
		}
	}
	~FileLock() { ::close(fd_); }
	FileLock(const FileLock &) = delete;
	FileLock &operator=(const FileLock &) = delete;

private:
	int fd_;
};

// Its library's file name in a build or an image: libksched.so, libksched_arm.so.
std::string library_file(const Flavour &f)
{
	return fmt::format("lib{}.so", f.library);
}

// What a library of an image was when it was built: its size, content
// hash and modification time, beside it in LIBRARY.sum, written before the
// library is renamed into the image. A library cut short or changed since
// (a node lost mid-copy of a shared cache, a full disk) is then told from
// a good one: the loader mapped such a file and the run died of SIGBUS,
// without a word. An image from before the sums has none, and is trusted
// as before.
struct LibrarySum {
	std::uintmax_t size = 0;
	std::uint64_t hash = 0;
	std::int64_t mtime_ns = 0;
};

fs::path sum_file(const fs::path &library)
{
	return library.string() + ".sum";
}

std::optional<LibrarySum> recorded_sum(const fs::path &library)
{
	std::ifstream in(sum_file(library));
	LibrarySum sum;
	if (!(in >> sum.size >> std::hex >> sum.hash >> std::dec >> sum.mtime_ns))
		return std::nullopt;
	return sum;
}

// The file's size and modification time (what stat says), and its hash
// when `with_hash`.
std::optional<LibrarySum> sum_of(const fs::path &library, bool with_hash)
{
	struct stat st {};
	if (::stat(library.c_str(), &st) != 0)
		return std::nullopt;
	LibrarySum sum{static_cast<std::uintmax_t>(st.st_size), 0,
		       std::int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec};
	if (with_hash)
		sum.hash = fnv1a(read_file(library));
	return sum;
}

// Whether the library is as recorded; why not, else. Its size, and its
// bytes too when `whole` (a run about to load it) and the file was written
// since the sum: a library as the build left it is not read whole at
// every run (16 MB of hashing was a third of a short run's time).
std::optional<std::string> library_damage(const fs::path &library, bool whole)
{
	const auto sum = recorded_sum(library);
	if (!sum)
		return std::nullopt;
	const auto now = sum_of(library, false);
	if (!now)
		return fmt::format("{} cannot be read: {}", library.filename().string(), std::strerror(errno));
	if (now->size != sum->size)
		return fmt::format("{} has {} bytes of the {} built", library.filename().string(), now->size, sum->size);
	if (whole && now->mtime_ns != sum->mtime_ns && sum_of(library, true)->hash != sum->hash)
		return fmt::format("{} is not the library built (its content changed)", library.filename().string());
	return std::nullopt;
}

bool has_library(const fs::path &dir, const Flavour &f)
{
	const auto library = dir / library_file(f);
	return fs::exists(library) && !library_damage(library, false);
}

// An image's use is the mtime of this file in its directory: a stamp of
// its own, as the directory's mtime moves with its lock files and
// flavours, and the manifest's with each flavour built.
constexpr const char *last_used_stamp = "last-used";

// Stamps the image in `dir` as used now. Best effort: a run must not fail
// because its image's directory cannot be written (a read-only cache, a
// full disk); the image then ranks by its last stamp. One utimensat(2)
// when the stamp exists.
void record_use(const fs::path &dir) noexcept
{
	const auto stamp = dir / last_used_stamp;
	if (::utimensat(AT_FDCWD, stamp.c_str(), nullptr, 0) == 0 || errno != ENOENT)
		return;
	if (const int fd = ::open(stamp.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644); fd >= 0)
		::close(fd);	// created now: its mtime is the use
}

// A build of the flavour that failed (the patch does not compile for it)
// leaves this file in a stored image, holding the error; the next
// successful build of the flavour removes it. `kernel list` shows it.
std::string failure_file(const Flavour &f)
{
	return fmt::format("failed-{}", f.name);
}

struct CompileCommand {
	fs::path directory;
	std::string command;
	fs::path file;
	std::string output;	// as the command names it (relative to directory)
};

std::vector<CompileCommand> compile_commands()
{
	const auto text = read_file(build_dir / "compile_commands.json");
	rapidjson::Document doc;
	doc.Parse(text.c_str());
	if (doc.HasParseError() || !doc.IsArray())
		throw BuildError(fmt::format("{}: not a compilation database", (build_dir / "compile_commands.json").string()));
	std::vector<CompileCommand> commands;
	for (const auto &e : doc.GetArray()) {
		CompileCommand c{e["directory"].GetString(), e["command"].GetString(), e["file"].GetString(), {}};
		const auto o = c.command.find(" -o ");
		if (o == std::string::npos)
			continue;
		const auto start = o + 4;
		c.output = c.command.substr(start, c.command.find(' ', start) - start);
		commands.push_back(std::move(c));
	}
	return commands;
}

// The same compile with -E -P into `out`: what the compiler sees.
// Into a file of our own: with "-o /dev/stdout", a compiler that fails
// deletes its output file — as root, the system's /dev/stdout.
std::string preprocessed(const CompileCommand &c, const std::string &command)
{
	const support::TempDir scratch;
	const auto out = scratch.path() / "preprocessed.i";
	std::string cmd = command;
	replace_all(cmd, " -o " + c.output + " ", fmt::format(" -o '{}' ", out.string()));
	replace_all(cmd, " -c ", " -E -P ");
	const auto r = shell(c.directory, cmd);
	if (r.exit_status != 0)
		throw BadPatch(fmt::format("{} does not preprocess:\n{}", c.file.string(), r.err));
	return read_file(out);
}

std::string now_utc()
{
	return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::to_time_t(
							    std::chrono::system_clock::now())));
}

void write_manifest(const fs::path &dir, const Manifest &m)
{
	rapidjson::StringBuffer buf;
	rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
	auto strings = [&](const char *key, const std::vector<std::string> &v) {
		w.Key(key);
		w.StartArray();
		for (const auto &s : v)
			w.String(s.c_str());
		w.EndArray();
	};
	w.StartObject();
	w.Key("id"), w.String(m.id.c_str());
	w.Key("tree"), w.String(m.tree.c_str());
	strings("patches", m.patches);
	strings("files", m.files);
	strings("flavours", m.flavours);
	strings("recompiled", m.recompiled);
	strings("config", m.config);
	w.Key("created"), w.String(m.created.c_str());
	if (m.of_series()) {	// the other images' manifests stay as they were
		w.Key("series"), w.String(m.series.c_str());
		w.Key("version"), w.String(m.version.c_str());
		w.Key("package"), w.String(m.package.c_str());
		w.Key("tarball"), w.String(m.tarball.c_str());
		w.Key("build"), w.String(m.build.c_str());
	}
	w.EndObject();
	// readers never see half a manifest
	const auto staged = dir / fmt::format("manifest.json.{}", ::getpid());
	write_file(staged, std::string(buf.GetString()) + "\n");
	fs::rename(staged, dir / "manifest.json");
}


// The tree files an object's depfile names (absolute, as the build names them).
// The tree files an object reads, relative to the tree: its source and
// every file its depfile names there, normalised (a depfile names
// kernel/smpboot.h as kernel/sched/../smpboot.h).
std::set<std::string> tree_inputs(const CompileCommand &c, const std::string &tree_prefix)
{
	std::set<std::string> inputs;
	auto add = [&](const std::string &path) {
		const auto normal = fs::path(path).lexically_normal().string();
		if (normal.starts_with(tree_prefix))
			inputs.insert(normal.substr(tree_prefix.size()));
	};
	add(c.file.string());
	std::istringstream words(read_file(fs::path((c.directory / c.output).string() + ".d")));
	for (std::string w; words >> w;)
		add(w);
	return inputs;
}

// Whether the flavour's kernel objects include this compile command's output.
bool is_kernel_object(const CompileCommand &c)
{
	return std::any_of(std::begin(flavours), std::end(flavours), [&](const Flavour &f) {
		return c.output.starts_with(fmt::format("CMakeFiles/{}.dir/", f.objects));
	});
}

bool same_content(const fs::path &a, const fs::path &b)
{
	std::error_code ea, eb;
	const auto size_a = fs::file_size(a, ea), size_b = fs::file_size(b, eb);
	if (ea || eb)
		return static_cast<bool>(ea) == static_cast<bool>(eb);
	return size_a == size_b && read_file(a) == read_file(b);
}

std::string trim_output(std::string text)
{
	while (!text.empty() && text.back() == '\n')
		text.pop_back();
	return text;
}

// autoconf.h with the options set as scripts/kconfig/confdata.c writes
// them: y -> 1, m -> NAME_MODULE 1, n -> absent, else the value.
std::string with_config(const std::string &autoconf, const std::vector<std::pair<std::string, std::string>> &config)
{
	std::string out;
	std::istringstream lines(autoconf);
	for (std::string line; std::getline(lines, line);) {
		const bool set_here = std::any_of(config.begin(), config.end(), [&](const auto &option) {
			return line.starts_with("#define " + option.first + " ") ||
			       line.starts_with("#define " + option.first + "_MODULE ");
		});
		if (!set_here)
			out += line + "\n";
	}
	for (const auto &[name, value] : config) {
		if (value == "n")
			continue;
		out += value == "y" ? fmt::format("#define {} 1\n", name)
		       : value == "m" ? fmt::format("#define {}_MODULE 1\n", name)
				      : fmt::format("#define {} {}\n", name, value);
	}
	return out;
}

// The Kconfig symbols the tree declares ("config NAME" or "menuconfig NAME"
// in any Kconfig* file), as CONFIG_NAME.
std::set<std::string> kconfig_symbols(const fs::path &tree)
{
	std::set<std::string> symbols;
	std::error_code ec;
	for (auto it = fs::recursive_directory_iterator(tree, fs::directory_options::skip_permission_denied, ec);
	     !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
		if (!it->path().filename().string().starts_with("Kconfig") || !it->is_regular_file(ec))
			continue;
		std::ifstream in(it->path());
		for (std::string line; std::getline(in, line);) {
			std::istringstream words(line);
			std::string keyword, name, rest;
			if (words >> keyword >> name && (keyword == "config" || keyword == "menuconfig") && !(words >> rest))
				symbols.insert("CONFIG_" + name);
		}
	}
	return symbols;
}

// fn(item) for each item, on as many threads as the machine has CPUs.
template <typename T, typename Fn>
void for_each_parallel(std::vector<T> &items, Fn fn)
{
	std::atomic<std::size_t> next{0};
	auto worker = [&] {
		for (std::size_t i; (i = next++) < items.size();)
			fn(items[i]);
	};
	const auto n = std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), items.size());
	std::vector<std::jthread> threads;
	for (std::size_t t = 1; t < n; t++)
		threads.emplace_back(worker);
	worker();
}

} // namespace

fs::path cache_dir()
{
	return support::cache_dir();
}

Manifest read_manifest(const fs::path &dir)
{
	const auto text = read_file(dir / "manifest.json");
	rapidjson::Document doc;
	doc.Parse(text.c_str());
	if (doc.HasParseError() || !doc.IsObject())
		throw BuildError(fmt::format("{}: a broken manifest", (dir / "manifest.json").string()));
	// a member missing or of another type is a broken manifest too, not
	// a RapidJSON assertion (kernel list shows every image, broken or not)
	for (const char *key : {"id", "tree", "created"})
		if (!doc.HasMember(key) || !doc[key].IsString())
			throw BuildError(fmt::format("{}: a broken manifest (no \"{}\")", (dir / "manifest.json").string(), key));
	for (const char *key : {"series", "version", "package", "tarball", "build"})
		if (doc.HasMember(key) && !doc[key].IsString())
			throw BuildError(fmt::format("{}: a broken manifest (\"{}\" is not a string)",
						     (dir / "manifest.json").string(), key));
	for (const char *key : {"patches", "files", "recompiled", "flavours", "config"})
		if (doc.HasMember(key) && (!doc[key].IsArray() || !std::all_of(doc[key].Begin(), doc[key].End(),
									       [](const auto &v) { return v.IsString(); })))
			throw BuildError(fmt::format("{}: a broken manifest (\"{}\" is not a list of strings)",
						     (dir / "manifest.json").string(), key));
	Manifest m;
	auto strings = [&](const char *key) {
		std::vector<std::string> v;
		if (doc.HasMember(key))
			for (const auto &s : doc[key].GetArray())
				v.emplace_back(s.GetString());
		return v;
	};
	m.id = doc["id"].GetString();
	m.tree = doc["tree"].GetString();
	m.patches = strings("patches");
	m.files = strings("files");
	m.recompiled = strings("recompiled");
	m.flavours = strings("flavours");
	if (!doc.HasMember("flavours"))	// an image of a build before lazy flavours: both
		for (const auto &f : flavours)
			if (has_library(dir, f))
				m.flavours.emplace_back(f.name);
	m.config = strings("config");
	m.created = doc["created"].GetString();
	auto string = [&](const char *key) { return doc.HasMember(key) ? std::string(doc[key].GetString()) : ""; };
	m.series = string("series");
	m.version = string("version");
	m.package = string("package");
	m.tarball = string("tarball");
	m.build = string("build");
	return m;
}

std::optional<Image> image_in_use()
{
	const char *dir = std::getenv("SCHED_HARNESS_IMAGE");
	if (!dir || !*dir || !fs::exists(fs::path(dir) / "manifest.json"))
		return std::nullopt;
	return Image{dir, read_manifest(dir), true};
}

std::string describe(const Manifest &manifest)
{
	std::vector<std::string> parts;
	if (!manifest.patches.empty()) {
		std::vector<std::string> names;
		for (const auto &p : manifest.patches)
			names.push_back(fmt::format("\"{}\"", patch_name(p)));
		parts.push_back(fmt::format("patches: {}", fmt::join(names, ", ")));
	}
	if (!manifest.config.empty())
		parts.push_back(fmt::format("config: {}", fmt::join(manifest.config, " ")));
	if (manifest.of_series())
		parts.insert(parts.begin(), fmt::format("Linux {}'s own build, from {}", manifest.series, manifest.package));
	if (parts.empty())
		return fmt::format("image {}", manifest.id);
	return fmt::format("image {} ({})", manifest.id, fmt::join(parts, "; "));
}

std::pair<std::string, std::string> parse_config(const std::string &assignment)
{
	const auto eq = assignment.find('=');
	auto name = assignment.substr(0, eq);
	if (!name.starts_with("CONFIG_"))
		name = "CONFIG_" + name;
	const bool name_ok = name.size() > 7 && std::all_of(name.begin(), name.end(), [](char c) {
		return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
	});
	if (eq == std::string::npos || !name_ok)
		throw BadPatch(fmt::format("--config {}: expected NAME=VALUE with a Kconfig option's name "
					   "(CONFIG_HZ=250, SCHED_MC=n)",
					   assignment));
	const auto value = assignment.substr(eq + 1);
	const bool number = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
	const bool hex = value.size() > 2 && value.starts_with("0x") &&
			 value.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
	const bool string = value.size() >= 2 && value.front() == '"' && value.back() == '"' &&
			    value.find('"', 1) == value.size() - 1 && value.find('\\') == std::string::npos;
	if (value != "y" && value != "n" && value != "m" && !number && !hex && !string)
		throw BadPatch(fmt::format("--config {}: the value must be y, n, m, a number or a \"string\"", assignment));
	return {name, value};
}

namespace {

// Each kernel object's tree inputs (tree_inputs()), by its output as the
// build's commands name it.
std::map<std::string, std::set<std::string>> kernel_inputs(const std::vector<CompileCommand> &commands)
{
	const std::string tree_prefix = kernel_tree.lexically_normal().string() + "/";
	std::map<std::string, std::set<std::string>> inputs;
	for (const auto &c : commands)
		if (is_kernel_object(c))
			inputs.emplace(c.output, tree_inputs(c, tree_prefix));
	return inputs;
}

std::vector<std::string> files_read(const std::map<std::string, std::set<std::string>> &inputs)
{
	std::set<std::string> files;
	for (const auto &[object, read] : inputs)
		files.insert(read.begin(), read.end());
	return {files.begin(), files.end()};
}

// The build's compile commands and its kernel objects' inputs, read once:
// the build does not change under a running process, and a bisect asks
// at every step (each reads some hundred dependency files).
struct BuildInputs {
	std::vector<CompileCommand> commands;
	std::map<std::string, std::set<std::string>> inputs;	// per object
};

const BuildInputs &build_inputs()
{
	static const BuildInputs once = [] {
		auto commands = compile_commands();
		auto inputs = kernel_inputs(commands);
		return BuildInputs{std::move(commands), std::move(inputs)};
	}();
	return once;
}

} // namespace

std::vector<std::string> read_files()
{
	return files_read(build_inputs().inputs);
}

bool is_kernel_tree(const fs::path &dir)
{
	return fs::is_regular_file(dir / "Makefile") && fs::is_directory(dir / "kernel" / "sched");
}

static std::set<std::string> tree_directories()
{
	// the directories of the files read, two levels deep (include/linux,
	// kernel/sched, lib/...): a header a tree adds beside the others comes
	// with them
	std::set<std::string> dirs{"Makefile"};
	for (const auto &f : read_files()) {
		const fs::path rel(f);
		auto it = rel.begin();
		fs::path dir = *it++;
		if (it != rel.end() && std::next(it) != rel.end())
			dir /= *it;
		dirs.insert(dir.string());
	}
	return dirs;
}

fs::path tarball_tree(const fs::path &tarball, const fs::path &under)
{
	std::ifstream in(tarball, std::ios::binary);
	if (!in || !fs::is_regular_file(tarball))
		throw BadPatch(fmt::format("--tarball {}: cannot read it", tarball.string()));
	std::uint64_t hash = fnv1a("tarball");
	std::vector<char> chunk(1 << 20);
	while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)
		hash = fnv1a(std::string_view(chunk.data(), static_cast<std::size_t>(in.gcount())), hash);
	const auto dest = under / fmt::format("tarball-{:016x}", hash);
	if (fs::exists(dest / "Makefile"))
		return dest;
	// the top directory the tree is in (linux-6.1.y/, linux-source-6.1/)
	const auto list = shell(fs::current_path(), fmt::format("tar -tf '{}' | head -1", fs::absolute(tarball).string()));
	const auto first = trim_output(list.out);
	const auto top = first.substr(0, first.find('/'));
	if (first.empty() || first.find('/') == std::string::npos)
		throw BadPatch(fmt::format("--tarball {}: not a tar archive of a kernel tree in one directory{}",
					   tarball.string(), list.err.empty() ? "" : ": " + trim_output(list.err)));
	const auto work = under / fmt::format("tarball-{:016x}.tmp.{}", hash, ::getpid());
	fs::remove_all(work);
	fs::create_directories(work);
	std::string members;
	for (const auto &d : tree_directories())
		members += fmt::format(" '{}/{}'", top, d);
	// a directory this tree lacks is "not found in archive": the rest is extracted
	const auto r = shell(work, fmt::format("tar -xf '{}' --strip-components=1{}", fs::absolute(tarball).string(),
					       members));
	if (!is_kernel_tree(work)) {
		fs::remove_all(work);
		throw BadPatch(fmt::format("--tarball {}: no kernel tree in it ({}/Makefile, {}/kernel/sched/): {}",
					   tarball.string(), top, top, trim_output(r.err)));
	}
	std::error_code ec;
	fs::rename(work, dest, ec);
	if (ec)
		fs::remove_all(work);
	return dest;
}

std::pair<fs::path, std::string> git_tree(const fs::path &git_dir, const std::string &ref, const fs::path &under)
{
	const auto commit = support::run_tool(std::vector<std::string>{"git", "-C", git_dir.string(), "rev-parse",
								   "--verify", "--quiet", ref + "^{commit}"});
	if (commit.exit_status != 0)
		throw BadPatch(fmt::format("{}: no commit {} in it{}", git_dir.string(), ref,
					   commit.err.empty() ? "" : ": " + trim_output(commit.err)));
	const auto sha = trim_output(commit.out);
	const auto dest = under / sha;
	if (fs::exists(dest / "Makefile"))
		return {dest, sha};
	// the directories the tree needs; those the commit lacks are left out
	const auto dirs = tree_directories();
	std::vector<std::string> ls{"git", "-C", git_dir.string(), "ls-tree", "--name-only", sha, "--"};
	ls.insert(ls.end(), dirs.begin(), dirs.end());
	const auto present = support::run_tool(ls);
	if (present.exit_status != 0)
		throw BuildError(fmt::format("git ls-tree in {} failed: {}", git_dir.string(), present.err));
	std::string specs;
	std::istringstream names(present.out);
	for (std::string name; std::getline(names, name);)
		specs += " '" + name + "'";
	const auto work = under / fmt::format("{}.tmp.{}", sha, ::getpid());
	fs::remove_all(work);
	fs::create_directories(work);
	const auto r = shell(work, fmt::format("git -C '{}' archive --format=tar {} --{} | tar -x -f -",
					       fs::absolute(git_dir).string(), sha, specs));
	if (r.exit_status != 0) {
		fs::remove_all(work);
		throw BuildError(fmt::format("extracting {} of {} failed: {}", sha, git_dir.string(), r.err));
	}
	std::error_code ec;
	fs::rename(work, dest, ec);
	if (ec)
		fs::remove_all(work);	// extracted by another process meanwhile
	return {dest, sha};
}

namespace {

// The tree an image is of: the build's own, or --tree's.
fs::path image_tree(const Recipe &recipe)
{
	if (!recipe.tree.empty() && !is_kernel_tree(recipe.tree))
		throw BadPatch(fmt::format("--tree {}: not a kernel tree (no Makefile and kernel/sched/)",
					   recipe.tree.string()));
	std::error_code same_ec;
	return recipe.tree.empty() || fs::equivalent(recipe.tree, kernel_tree, same_ec) ? kernel_tree
											: fs::canonical(recipe.tree);
}

// The files the patches touch, each once, in the order first touched.
std::vector<std::string> files_patched(const std::vector<fs::path> &patches)
{
	std::vector<std::string> files;
	for (const auto &p : patches) {
		if (!fs::is_regular_file(p))
			throw BadPatch(fmt::format("{}: {}", p.string(),
						   fs::exists(p) ? "not a regular file (a patch is read whole)"
								 : "no such patch file"));
		for (auto &f : touched_files(read_file(p), p))
			if (std::find(files.begin(), files.end(), f) == files.end())
				files.push_back(std::move(f));
	}
	return files;
}

// What one build of an image works from: its tree, the overlay the patches
// change it in, what differs from the build's tree, the --config headers,
// and how the build's compile commands are rewritten for it.
struct ImageSources {
	fs::path base;				// the tree the image is of
	fs::path work;				// this build's own work directory
	fs::path overlay;			// work/tree: the patched files, then the rest
	std::vector<std::string> patch_files;	// files_patched()
	std::set<std::string> patched;		// the same, to look up
	std::set<std::string> changed_set;	// changed_files()
	std::vector<std::string> changed;	// the same, in order
	std::map<std::string, fs::path> config_dirs;	// flavour -> the image's generated include dir
	std::string config_bytes;		// the headers --config wrote, for the image's id
	std::string tree_prefix, overlay_prefix;	// the build's tree, the overlay, with their "/"
	// __FILE__ names the tree the image is of; the comparison with the
	// build's own input maps it to the build's tree
	std::string compile_map, compare_map;

	ImageSources(fs::path base_tree, fs::path work_dir, std::vector<std::string> files)
		: base(std::move(base_tree)), work(std::move(work_dir)), overlay(work / "tree"),
		  patch_files(std::move(files)), patched(patch_files.begin(), patch_files.end()),
		  tree_prefix(kernel_tree.string() + "/"), overlay_prefix(overlay.string() + "/"),
		  compile_map(fmt::format(" -fmacro-prefix-map={}={}/", overlay_prefix, base.string())),
		  compare_map(fmt::format(" -fmacro-prefix-map={}={}", overlay_prefix, tree_prefix))
	{
	}

	// A file as the image has it.
	fs::path file(const std::string &f) const { return patched.count(f) ? overlay / f : base / f; }
};

// GNU patch applying one patch to the files under dir, as git would
// (-p1), without asking, leaving backups or rejects.
support::ToolResult apply_patch(const fs::path &dir, const fs::path &patch)
{
	return support::run_tool(std::vector<std::string>{"patch", "-p1", "--batch", "--forward",
							   "--no-backup-if-mismatch", "-r", "-", "-d", dir.string(),
							   "-i", fs::absolute(patch).string()});
}

// The brought-up series' Debian kernel trees on this machine: the installed linux-source
// tarballs (/usr/src) and those scripts/fetch-kernel.sh fetched into the
// cache (trees/linux-source-SERIES_VERSION/usr/src/...), each with the
// name of its top folder and how to call it.
struct KnownTree {
	fs::path tarball;
	std::string folder, name;
};

std::vector<KnownTree> known_trees()
{
	std::vector<KnownTree> trees;
	const std::string brought_up = " " SH_IMAGE_BROUGHT_UP " ";
	auto add = [&](const fs::path &tarball, const std::string &version) {
		auto folder = tarball.filename().string();
		folder = folder.substr(0, folder.find(".tar"));
		const auto series = folder.substr(std::string_view("linux-source-").size());
		if (brought_up.find(" " + series + " ") == std::string::npos)
			return;
		trees.push_back({tarball, folder,
				 fmt::format("Linux {} ({}{})", series, folder, version.empty() ? "" : " " + version)});
	};
	std::error_code ec;
	for (const auto &entry : fs::directory_iterator("/usr/src", ec))
		if (entry.path().filename().string().starts_with("linux-source-") &&
		    entry.path().filename().string().ends_with(".tar.xz"))
			add(entry.path(), "");
	for (const auto &entry : fs::directory_iterator(cache_dir() / "trees", ec)) {
		const auto dir = entry.path().filename().string();
		const auto cut = dir.find('_');
		if (cut == std::string::npos)
			continue;
		const auto tarball = entry.path() / "usr/src" / (dir.substr(0, cut) + ".tar.xz");
		if (fs::exists(tarball) && std::none_of(trees.begin(), trees.end(), [&](const KnownTree &t) {
			    return t.folder == dir.substr(0, cut);
		    }))
			add(tarball, dir.substr(cut + 1));
	}
	std::sort(trees.begin(), trees.end(), [](const KnownTree &a, const KnownTree &b) { return a.name < b.name; });
	return trees;
}

// The known trees the patches apply to, in order, one after another: the
// files they touch taken out of each tarball and patched there.
std::vector<std::string> trees_taking(const std::vector<fs::path> &patches, const std::vector<std::string> &files,
				      const fs::path &own_tree)
{
	const auto trees = known_trees();
	std::vector<char> applies(trees.size(), 0);
	// one thread a tree: taking a file out of a tarball decompresses it
	// up to the file (--occurrence stops there), seconds each
	std::vector<std::thread> workers;
	for (std::size_t i = 0; i < trees.size(); i++) {
		if (own_tree.filename() == trees[i].folder)
			continue;
		workers.emplace_back([&, i] {
			const auto &tree = trees[i];
			const support::TempDir scratch;
			std::vector<std::string> tar{"tar", "-xJf", tree.tarball.string(), "-C", scratch.path().string(),
						     "--occurrence=1"};
			for (const auto &f : files)
				tar.push_back(tree.folder + "/" + f);
			// a file the tree lacks: the patch then fails to apply, as it should
			support::run_tool(tar);
			const auto dir = scratch.path() / tree.folder;
			fs::create_directories(dir);
			applies[i] = std::all_of(patches.begin(), patches.end(), [&](const fs::path &patch) {
				return apply_patch(dir, patch).exit_status == 0;
			});
		});
	}
	for (auto &w : workers)
		w.join();
	std::vector<std::string> taking;
	for (std::size_t i = 0; i < trees.size(); i++)
		if (applies[i])
			taking.push_back(trees[i].name);
	return taking;
}

// The overlay: a copy of each file the patches touch, patched; the rest of
// it (fill_overlay()) only when an object compiles.
void patch_overlay(const ImageSources &src, const std::vector<fs::path> &patches)
{
	for (const auto &f : src.patch_files) {
		const auto o = src.overlay / f;
		fs::create_directories(o.parent_path());
		if (fs::is_regular_file(src.base / f) && !fs::exists(o))
			fs::copy_file(src.base / f, o);
	}
	for (const auto &patch : patches) {
		const auto r = apply_patch(src.overlay, patch);
		if (r.exit_status != 0) {
			auto what = trim_output(r.out + r.err);
			replace_all(what, "\n", "; ");
			// the other trees here that take the series up to this patch
			std::vector<fs::path> upto(patches.begin(),
						   std::find(patches.begin(), patches.end(), patch) + 1);
			const auto taking = trees_taking(upto, src.patch_files, src.base);
			const auto elsewhere =
				taking.empty() ? std::string("; it applies to none of the other brought-up trees here")
					       : fmt::format("; it applies to {}", fmt::join(taking, ", "));
			throw BadPatch(fmt::format("{} does not apply to {}: {}{}", patch.string(), src.base.string(), what,
						   elsewhere));
		}
	}
}

// What the image changes: the files read that differ from the build's
// tree (a file the tree lacks counts as changed: its includer changed too).
// Files new beside them count too (a header a changed source includes
// now), as do the files the patches touch.
std::set<std::string> changed_files(const ImageSources &src, const std::vector<std::string> &read)
{
	std::set<std::string> changed;
	if (src.base != kernel_tree) {
		std::set<fs::path> dirs;
		for (const auto &f : read) {
			if (!same_content(kernel_tree / f, src.file(f)))
				changed.insert(f);
			dirs.insert(fs::path(f).parent_path());
		}
		for (const auto &d : dirs) {
			std::error_code ec;
			for (const auto &entry : fs::directory_iterator(src.base / d, ec))
				if (entry.is_regular_file() && !fs::exists(kernel_tree / d / entry.path().filename()))
					changed.insert((d / entry.path().filename()).string());
		}
	}
	for (const auto &f : src.patch_files)
		if (!same_content(kernel_tree / f, src.overlay / f))
			changed.insert(f);
	return changed;
}

// An option the tree does not declare would be defined and read by
// nothing: a typo must not build the unchanged kernel.
void check_declared(const Recipe &recipe, const fs::path &base)
{
	const auto declared = kconfig_symbols(base);
	for (const auto &[name, value] : recipe.config)
		if (!declared.count(name))
			throw BadPatch(fmt::format("--config {}={}: {} declares no such Kconfig option", name.substr(7),
						   value, base.string()));
}

// timeconst.h follows CONFIG_HZ, as Kbuild's filechk_gentimeconst.
std::string timeconst_header(const ImageSources &src, const std::string &hz)
{
	const auto r = shell(src.work, fmt::format("echo '{}' | bc -q '{}'", hz,
						   (src.base / "kernel" / "time" / "timeconst.bc").string()));
	if (r.exit_status != 0)
		throw BadPatch(fmt::format("--config CONFIG_HZ={}: timeconst.bc fails: {}", hz, r.err));
	return r.out;
}

// --config: each flavour's autoconf.h with the options set, where it
// changes, into src.config_dirs and src.config_bytes.
void configure(ImageSources &src, const Recipe &recipe)
{
	if (recipe.config.empty())
		return;
	check_declared(recipe, src.base);
	for (const auto &flavour : flavours) {
		const auto generated = build_dir / "kernel-shim" / fmt::format("arch-{}", flavour.name) / "include";
		const auto original = read_file(generated / "generated" / "autoconf.h");
		const auto configured = with_config(original, recipe.config);
		if (configured == original)
			continue;
		const auto dir = src.work / fmt::format("config-{}", flavour.name);
		fs::create_directories(dir / "generated");
		write_file(dir / "generated" / "autoconf.h", configured);
		src.config_bytes += configured;
		for (const auto &[name, value] : recipe.config) {
			if (name != "CONFIG_HZ")
				continue;
			const auto timeconst = timeconst_header(src, value);
			write_file(dir / "generated" / "timeconst.h", timeconst);
			src.config_bytes += timeconst;
		}
		src.config_dirs[flavour.name] = dir;
	}
}

// The image's id: the build's libraries, the configuration, and the
// content of each changed file.
std::string image_id(const ImageSources &src)
{
	std::uint64_t id_hash = fnv1a(SH_IMAGE_KERNEL_SERIES);
	for (const auto &f : flavours)
		id_hash = fnv1a(library_identity(build_dir / "kernel-shim" / library_file(f)), id_hash);
	id_hash = fnv1a(src.config_bytes, id_hash);
	for (const auto &f : src.changed) {
		id_hash = fnv1a(f + '\0', id_hash);
		id_hash = fnv1a(fs::exists(src.file(f)) ? read_file(src.file(f)) + '\1' : std::string("\2"), id_hash);
	}
	return fmt::format("{:016x}", id_hash);
}

// add_flavour() builds the image it was given, or nothing.
void check_same_image(const std::optional<std::string> &expected_id, const std::string &id,
		      const ImageSources &src, const Recipe &recipe)
{
	if (!expected_id || id == *expected_id)
		return;
	std::string sources = src.base.string();
	for (const auto &p : recipe.patches)
		sources += ", " + p.string();
	throw std::invalid_argument(fmt::format("image {}: what it was built from changed since ({}): build "
						"the image again",
						*expected_id, sources));
}

// The wanted flavours the image in `dir` has no library of yet.
std::vector<const Flavour *> missing_flavours(const fs::path &dir, const std::vector<std::string> &wanted)
{
	std::vector<const Flavour *> todo;
	for (const auto &f : flavours)
		if (std::find(wanted.begin(), wanted.end(), f.name) != wanted.end() && !has_library(dir, f))
			todo.push_back(&f);
	return todo;
}

Manifest new_manifest(const std::string &id, const ImageSources &src, const Recipe &recipe)
{
	Manifest manifest;
	manifest.id = id;
	manifest.tree = src.base.string();
	for (const auto &p : recipe.patches)
		manifest.patches.push_back(fs::absolute(p).string());
	manifest.files = src.changed;
	for (const auto &[name, value] : recipe.config)
		manifest.config.push_back(name + "=" + value);
	return manifest;
}

// The first line of a new image's build: its tree, patches, and up to 8 of
// the files it changes.
void log_new_image(std::ostream &log, const ImageSources &src, std::size_t n)
{
	const auto &changed = src.changed;
	std::string shown;
	for (std::size_t i = 0; i < changed.size() && i < 8; i++)
		shown += (i ? ", " : ": ") + changed[i];
	if (changed.size() > 8)
		shown += fmt::format(", ... ({} more)", changed.size() - 8);
	log << fmt::format("kernel build: {}{}; {} differ{} from {}{}\n", src.base.string(),
			   n ? fmt::format(" + {} patch{}", n, n == 1 ? "" : "es") : "",
			   changed.size() == 1 ? "1 file" : fmt::format("{} files", changed.size()),
			   changed.size() == 1 ? "s" : "", kernel_tree.string(), shown);
}

// One kernel object of one flavour the image may compile again.
struct Job {
	const Flavour *flavour;
	const CompileCommand *c;
	std::string command;
	fs::path out;
	bool compiled = false;
	std::string error;
};

// The objects the image changes, of every flavour, compile side by
// side: a one-file patch is one object per flavour, which one after
// the other left a core idle.
struct CompilePlan {
	std::vector<Job> jobs;
	std::map<const Flavour *, std::vector<fs::path>> objects_of;	// the flavour's kernel objects
};

// The flavour's objects whose inputs the image changes (all of them with
// --config), with their commands rewritten to compile from the overlay.
void plan_flavour(CompilePlan &plan, const Flavour &flavour, const ImageSources &src, const BuildInputs &build)
{
	const std::string objects_dir = fmt::format("CMakeFiles/{}.dir/", flavour.objects);
	// the flavour's generated headers, and the image's autoconf.h before them
	const auto generated_include = fmt::format("-I{}/kernel-shim/arch-{}/include ", build_dir.string(),
						   flavour.name);
	const bool configured = src.config_dirs.count(flavour.name) > 0;
	const auto config_include =
		configured ? fmt::format("-I{} {}", src.config_dirs.at(flavour.name).string(), generated_include)
			   : generated_include;
	auto &kernel_objects = plan.objects_of[&flavour];
	for (const auto &c : build.commands) {
		if (!c.output.starts_with(objects_dir))
			continue;
		kernel_objects.push_back(c.directory / c.output);
		const auto &read = build.inputs.at(c.output);
		const bool affected = configured || std::any_of(read.begin(), read.end(), [&](const auto &f) {
					      return src.changed_set.count(f) > 0;
				      });
		if (!affected)
			continue;
		// The tree's paths become the overlay's, but for the object's own
		// name: CMake names the object of a tree outside the build after
		// the tree's absolute path (CMakeFiles/x.dir/work/linux/...), which
		// contains the tree's prefix.
		const std::string output_arg = " -o " + c.output + " ", output_mark = " -o \x01 ";
		std::string command = c.command;
		replace_all(command, output_arg, output_mark);
		replace_all(command, src.tree_prefix, src.overlay_prefix);
		replace_all(command, generated_include, config_include);
		replace_all(command, output_mark, output_arg);
		plan.jobs.push_back({&flavour, &c, command, src.work / "obj" / flavour.name / c.output, false, {}});
	}
}

// The compiler's messages with each file the patches change named as the
// patches name it ("kernel/sched/fair.c:127:68: error: ..."), not by the
// unpatched tree's path it was copied from, whose line 127 says otherwise.
std::string as_patched(std::string messages, const ImageSources &src)
{
	for (const auto &f : src.patch_files) {
		replace_all(messages, (src.overlay / f).string(), f);
		replace_all(messages, (src.base / f).string(), f);
	}
	return messages;
}

// Compiles the job's object from the overlay, unless the compiler sees no
// change there (a comment): that recompiles nothing.
void compile_job(Job &job, const ImageSources &src, std::ostream &log, std::mutex &log_mutex)
{
	const auto &c = *job.c;
	try {
		if (preprocessed(c, job.command + src.compare_map) == preprocessed(c, c.command + src.compare_map))
			return;
	} catch (const BadPatch &e) {
		job.error = e.what();
		return;
	}
	job.compiled = true;
	fs::create_directories(job.out.parent_path());
	std::string command = job.command + src.compile_map;
	replace_all(command, " -o " + c.output + " ", " -o " + job.out.string() + " ");
	const auto line = fmt::format("kernel build: {}: compiling {}\n", job.flavour->name,
				      c.file.string().starts_with(src.tree_prefix)
					      ? c.file.string().substr(src.tree_prefix.size())
					      : fs::relative(c.file, source_root).string());
	{
		const std::lock_guard lock(log_mutex);
		log << line << std::flush;
	}
	if (const auto r = shell(c.directory, command); r.exit_status != 0)
		job.error = fmt::format("{} does not compile in the image ({} flavour):\n{}", c.file.string(),
					job.flavour->name, as_patched(r.err, src));
}

void compile_jobs(std::vector<Job> &jobs, const ImageSources &src, std::ostream &log)
{
	std::mutex log_mutex;
	for_each_parallel(jobs, [&](Job &job) { compile_job(job, src, log, log_mutex); });
}

// The flavour's objects compiled again, in place of the build's among its
// kernel objects and in the manifest; a compile's error thrown. Returns
// them by the object link.txt names.
std::map<std::string, std::string> take_compiled(const Flavour &flavour, CompilePlan &plan, const ImageSources &src,
						  Manifest &manifest)
{
	const std::string objects_dir = fmt::format("CMakeFiles/{}.dir/", flavour.objects);
	std::map<std::string, std::string> replaced;
	auto &kernel_objects = plan.objects_of[&flavour];
	for (auto &job : plan.jobs) {
		if (job.flavour != &flavour)
			continue;
		if (!job.error.empty()) {
			// the compiler's messages name the files of the tree, not the overlay
			replace_all(job.error, src.overlay_prefix, src.base.string() + "/");
			throw BadPatch(job.error);
		}
		if (!job.compiled)
			continue;
		replaced[job.c->output] = job.out.string();
		*std::find(kernel_objects.begin(), kernel_objects.end(), job.c->directory / job.c->output) = job.out;
		manifest.recompiled.push_back(fmt::format("{}: {}", flavour.name, job.c->output.substr(objects_dir.size())));
	}
	return replaced;
}

// kernel info lists the changed files' hashes (the runtime's generated
// table, a unit of its own: kernel-shim/src/upstream_files.h): the table
// with the image's, compiled into `replaced`.
void compile_upstream_files(const Flavour &flavour, const ImageSources &src, const BuildInputs &build,
			    std::map<std::string, std::string> &replaced)
{
	const std::string runtime_dir = fmt::format("CMakeFiles/{}.dir/", flavour.library);
	const auto generated = build_dir / "kernel-shim" / fmt::format("generated-{}", flavour.name);
	auto header = read_file(generated / "kshim" / "upstream_files.h");
	for (const auto &f : src.changed) {
		const auto r = support::run_tool(std::vector<std::string>{"cmake", "-E", "sha256sum", src.file(f).string()});
		const auto at = header.find(fmt::format("{{\"{}\", \"", f));
		if (r.exit_status != 0 || at == std::string::npos)
			continue;	// a file the build does not list (a header)
		const auto hash_at = at + f.size() + 6;
		header.replace(hash_at, 64, r.out.substr(0, 64));
	}
	const auto gen = src.work / fmt::format("generated-{}", flavour.name);
	fs::create_directories(gen / "kshim");
	write_file(gen / "kshim" / "upstream_files.h", header);
	for (const auto &c : build.commands) {
		if (c.output != runtime_dir + "src/upstream_files.cpp.o")
			continue;
		std::string command = c.command;
		replace_all(command, "-I" + generated.string(), "-I" + gen.string());
		const auto out = src.work / "obj" / flavour.name / c.output;
		fs::create_directories(out.parent_path());
		replace_all(command, " -o " + c.output + " ", " -o " + out.string() + " ");
		const auto r = shell(c.directory, command);
		if (r.exit_status != 0)
			throw BuildError(fmt::format("the runtime's upstream_files.cpp does not compile:\n{}", r.err));
		replaced[c.output] = out.string();
	}
}

// The undefined symbols of the objects, against the glue's list (a
// sanitizer build's objects call its runtime: the check leaves those calls
// out, as the build's own check does).
void check_undefined(const Flavour &flavour, const std::vector<fs::path> &kernel_objects)
{
	// the build's tree's version: a list recorded from another release of
	// the series tolerates symbols this one no longer needs, as the build's
	// own check does
	std::string check = fmt::format("CC='{}' SANITIZE={} KERNEL_VERSION='{}' KERNEL_LD='{}' '{}' '{}'",
					SH_IMAGE_C_COMPILER, SH_IMAGE_SANITIZE, SH_IMAGE_KERNEL_VERSION,
					(build_dir / "kernel-shim" / "kernel.ld").string(),
					(source_root / "kernel-shim" / "check-undefined.sh").string(),
					(fs::path(SH_IMAGE_SYMBOL_LISTS) / flavour.undefined_list).string());
	for (const auto &o : kernel_objects)
		check += " '" + o.string() + "'";
	if (const auto r = shell(build_dir, check); r.exit_status != 0)
		throw BadPatch(fmt::format("the image's kernel needs symbols the glue does not provide "
					   "({} flavour):\n{}{}",
					   flavour.name, r.out, r.err));
}

// Links as the build links, with the image's objects, into the work directory.
void link_library(const Flavour &flavour, const std::map<std::string, std::string> &replaced, const fs::path &work)
{
	auto link = trim_output(read_file(build_dir / "kernel-shim" / "CMakeFiles" /
					  fmt::format("{}.dir", flavour.library) / "link.txt"));
	while (!link.empty() && link.back() == '\r')
		link.pop_back();
	link += " ";
	// link.txt quotes the objects of the tree's files
	// ("CMakeFiles/x.dir/__/kernel/linux-source-5.10/kernel/sched/topology.c.o"),
	// not the glue's: an object found in neither form would link the
	// build's own, unchanged, in silence
	for (const auto &[from, to] : replaced) {
		const auto bare = " " + from + " ", quoted = " \"" + from + "\" ";
		if (link.find(bare) == std::string::npos && link.find(quoted) == std::string::npos)
			throw BuildError(fmt::format("linking the {} image: the build's link command has no object {}",
						     flavour.name, from));
		replace_all(link, bare, " '" + to + "' ");
		replace_all(link, quoted, " '" + to + "' ");
	}
	const auto so = library_file(flavour);
	replace_all(link, " -o " + so + " ", " -o " + (work / so).string() + " ");
	if (const auto r = shell(build_dir / "kernel-shim", link); r.exit_status != 0)
		throw BuildError(fmt::format("linking the {} image failed:\n{}", flavour.name, r.err));
}

void build_library(const Flavour &flavour, CompilePlan &plan, const ImageSources &src, const BuildInputs &build,
		   Manifest &manifest)
{
	auto replaced = take_compiled(flavour, plan, src, manifest);
	if (!replaced.empty())
		compile_upstream_files(flavour, src, build, replaced);
	check_undefined(flavour, plan.objects_of[&flavour]);
	link_library(flavour, replaced, src.work);
}

// A new image's directory, with its manifest, renamed into place in one
// step. The image holds its manifest and libraries, not the overlay and
// objects.
void store_image(const fs::path &images, const std::string &id, Manifest &manifest)
{
	const auto dir = images / id;
	manifest.created = now_utc();
	const auto stage = images / fmt::format("{}.tmp.{}", id, ::getpid());
	fs::remove_all(stage);
	fs::create_directories(stage);
	write_manifest(stage, manifest);
	std::error_code ec;
	fs::rename(stage, dir, ec);
	if (!ec)
		return;
	fs::remove_all(stage);
	// stored meanwhile by a build that did not hold the lock
	// (prune removed it): theirs, with what this one compiled
	if (!fs::exists(dir / "manifest.json"))
		throw BuildError(fmt::format("cannot store the image in {}: {}", dir.string(), ec.message()));
	auto theirs = read_manifest(dir);
	for (const auto &r : manifest.recompiled)
		if (std::find(theirs.recompiled.begin(), theirs.recompiled.end(), r) == theirs.recompiled.end())
			theirs.recompiled.push_back(r);
	manifest = std::move(theirs);
}

// The libraries built into the image, and its manifest with them.
void install_libraries(const std::vector<const Flavour *> &todo, const fs::path &work, const fs::path &dir,
		       Manifest &manifest)
{
	for (const auto *f : todo) {
		const auto so = library_file(*f);
		write_library_sum(work / so);
		fs::rename(sum_file(work / so), sum_file(dir / so));
		fs::rename(work / so, dir / so);
		std::error_code ec;
		fs::remove(dir / failure_file(*f), ec);	// it builds now
	}
	manifest.flavours.clear();
	for (const auto &f : flavours)
		if (has_library(dir, f))
			manifest.flavours.emplace_back(f.name);
	std::sort(manifest.recompiled.begin(), manifest.recompiled.end());
	write_manifest(dir, manifest);
}

void log_built(std::ostream &log, const std::string &id, const std::vector<const Flavour *> &todo,
	       const std::vector<Job> &jobs)
{
	std::string built;
	for (const auto *f : todo)
		built += fmt::format("{}{}", built.empty() ? "" : " and ", f->name);
	const auto compiled = std::count_if(jobs.begin(), jobs.end(), [](const Job &j) { return j.compiled; });
	if (todo.empty())
		log << fmt::format("kernel build: image {} (its flavours are built when a board needs them)\n", id);
	else
		log << fmt::format("kernel build: image {}, {} flavour{} ({} object{} compiled again)\n", id, built,
				   todo.size() == 1 ? "" : "s", compiled, compiled == 1 ? "" : "s");
}

// A tool's or our own failure for want of space, by the words strerror()
// gives ENOSPC: the compiler and the linker say only that.
bool out_of_space(std::string_view what)
{
	return what.find(std::strerror(ENOSPC)) != std::string_view::npos;
}

// The build's error, when it ran out of space, as CacheFull naming the
// cache and what is free on it now.
template <typename Build> auto space_checked(Build build)
{
	auto full = [](const std::string &what) {
		struct statvfs st {};
		const auto cache = cache_dir();
		const auto free_mb = ::statvfs(cache.c_str(), &st) == 0
					     ? fmt::format("{} MB free now", st.f_bavail * st.f_frsize / (1024 * 1024))
					     : std::string("its free space unknown");
		// the line that says so ("ld: final link failed: No space left on device")
		std::string_view said(what);
		const auto at = said.find(std::strerror(ENOSPC));
		if (at != std::string_view::npos) {
			const auto start = said.rfind('\n', at);
			said = said.substr(start == std::string_view::npos ? 0 : start + 1);
		}
		const auto first = said.substr(0, said.find('\n'));
		return CacheFull(fmt::format("kernel build: out of space ({}; the image cache {} has {}): free some "
					     "('sched-harness kernel prune' removes what no kept image needs) and "
					     "build again",
					     first, cache.string(), free_mb));
	};
	try {
		return build();
	} catch (const CacheFull &) {
		throw;
	} catch (const fs::filesystem_error &e) {
		if (e.code() == std::errc::no_space_on_device)
			throw full(e.what());
		throw;
	} catch (const std::runtime_error &e) {	// BadPatch, BuildError, a tool's error
		if (out_of_space(e.what()))
			throw full(e.what());
		throw;
	}
}

// The failed build of a flavour of a stored image, in its failure_file().
// Best effort: the build's own error is what the caller reports.
void record_failure(const fs::path &dir, const Flavour &flavour, const std::string &error) noexcept
{
	try {
		write_file(dir / failure_file(flavour), error + "\n");
	} catch (const std::exception &) {
	}
}

Image build_image(const Recipe &recipe, std::ostream &log, const std::vector<std::string> &wanted,
		  const std::optional<std::string> &expected_id)
{
	if (!fs::exists(build_dir / "compile_commands.json"))
		throw BuildError(fmt::format("{} has no compile_commands.json: images are built from this build's own "
					     "commands",
					     build_dir.string()));
	const auto &build = build_inputs();
	auto base = image_tree(recipe);
	auto patch_files = files_patched(recipe.patches);

	// each build in its own work directory: two builds of one image do not
	// collide, the first to finish provides it
	const auto images = cache_dir() / "images";
	const auto work = images / fmt::format("tmp.{}", ::getpid());
	fs::remove_all(work);
	fs::create_directories(work);
	const support::TempDir cleanup(work);	// removed on every exit, signals included
	ImageSources src(std::move(base), work, std::move(patch_files));

	const auto read = files_read(build.inputs);
	patch_overlay(src, recipe.patches);
	src.changed_set = changed_files(src, read);
	src.changed.assign(src.changed_set.begin(), src.changed_set.end());
	configure(src, recipe);
	const auto id = image_id(src);
	check_same_image(expected_id, id, src, recipe);
	const auto dir = images / id;
	if (fs::exists(dir / "manifest.json") && missing_flavours(dir, wanted).empty())
		return {dir, read_manifest(dir), true};
	// one build of an image at a time: a second waits and finds the first's libraries
	const FileLock lock(images / fmt::format(".lock-{}", id));
	const auto todo = missing_flavours(dir, wanted);
	const bool stored = fs::exists(dir / "manifest.json");
	if (stored && todo.empty())
		return {dir, read_manifest(dir), true};

	Manifest manifest = stored ? read_manifest(dir) : new_manifest(id, src, recipe);
	if (!stored)
		log_new_image(log, src, recipe.patches.size());
	CompilePlan plan;
	for (const auto *flavour : todo)
		plan_flavour(plan, *flavour, src, build);
	if (!plan.jobs.empty())
		fill_overlay(src.overlay, src.base, read, src.patched);
	compile_jobs(plan.jobs, src, log);
	for (const auto *flavour : todo) {
		try {
			build_library(*flavour, plan, src, build, manifest);
		} catch (const BadPatch &e) {
			// the same sources fail the same way next time: kernel list
			// says so, and prune removes the image first; not so a
			// full disk's
			if (stored && !out_of_space(e.what()))
				record_failure(dir, *flavour, e.what());
			throw;
		}
	}
	if (!stored)
		store_image(images, id, manifest);
	install_libraries(todo, work, dir, manifest);
	log_built(log, id, todo, plan.jobs);
	return {dir, read_manifest(dir), false};
}

} // namespace

Image build(const Recipe &recipe, std::ostream &log, const std::vector<std::string> &wanted)
{
	for (const auto &name : wanted)
		library_of(name);	// a flavour this build has
	auto image = space_checked([&] { return build_image(recipe, log, wanted, std::nullopt); });
	record_use(image.dir);
	return image;
}

Image add_flavour(const fs::path &dir, const std::string &flavour, std::ostream &log)
{
	library_of(flavour);
	const auto manifest = read_manifest(dir);
	if (manifest.of_series()) {
		if (!fs::is_regular_file(manifest.tarball))
			throw std::invalid_argument(fmt::format("image {} has no {} flavour yet, and its tree's tarball {} "
								"is gone: name the series again (--kernel {})",
								manifest.id, flavour, manifest.tarball, manifest.series));
		auto image = series_image(manifest.series, log, {flavour});
		if (image.manifest.id != manifest.id)
			throw std::invalid_argument(fmt::format(
				"image {} has no {} flavour yet, and what it was built from changed since (this build's "
				"kernel side, or the Linux {} tarball found): name the series again (--kernel {}), image {}",
				manifest.id, flavour, manifest.series, manifest.series, image.manifest.id));
		image.dir = dir;
		return image;
	}
	Recipe recipe;
	if (manifest.tree != kernel_tree.string()) {
		if (!is_kernel_tree(manifest.tree))
			throw std::invalid_argument(fmt::format("image {} has no {} flavour yet, and its tree {} is gone: "
								"build the image again",
								manifest.id, flavour, manifest.tree));
		recipe.tree = manifest.tree;
	}
	for (const auto &p : manifest.patches) {
		if (!fs::is_regular_file(p))
			throw std::invalid_argument(fmt::format("image {} has no {} flavour yet, and its patch {} is "
								"gone: build the image again",
								manifest.id, flavour, p));
		recipe.patches.emplace_back(p);
	}
	for (const auto &c : manifest.config)
		recipe.config.push_back(parse_config(c));
	auto image = space_checked([&] { return build_image(recipe, log, {flavour}, manifest.id); });
	image.dir = dir;	// the image the caller named (a symlink to it, say)
	record_use(image.dir);
	return image;
}

// Images of another series: a build of this source tree of their own.

bool is_series_name(std::string_view what)
{
	static const std::regex series(R"([0-9]+\.[0-9]+)");
	return std::regex_match(what.begin(), what.end(), series);
}

std::string own_series()
{
	static const std::regex major_minor(R"(^[0-9]+\.[0-9]+)");
	const std::string version = SH_IMAGE_KERNEL_VERSION;
	std::smatch m;
	return std::regex_search(version, m, major_minor) ? m.str() : version;
}

std::string own_version()
{
	return SH_IMAGE_KERNEL_VERSION;
}

bool names_own_kernel(std::string_view what)
{
	return what == "default" || what == own_series();
}

namespace {

// `dpkg --compare-versions a gt b`: Debian's version order, as
// scripts/build.sh chooses among the trees scripts/fetch-kernel.sh fetched
// (7.3.4-1~bpo13+1 after 7.3~rc7-1~exp1).
bool debian_version_greater(const std::string &a, const std::string &b)
{
	return support::run_tool(std::vector<std::string>{"dpkg", "--compare-versions", a, "gt", b}).exit_status == 0;
}

// What scripts/fetch-kernel.sh names a fetched package's folder in the
// cache: linux-source-SERIES_VERSION.
std::string fetched_prefix(const std::string &series)
{
	return fmt::format("linux-source-{}_", series);
}

} // namespace

fs::path series_tarball(const std::string &series)
{
	if (!is_series_name(series))
		throw std::invalid_argument(fmt::format("{}: not a kernel series (MAJOR.MINOR: 6.12, 7.3)", series));
	const auto file = fmt::format("linux-source-{}.tar.xz", series);
	if (const auto installed = fs::path("/usr/src") / file; fs::is_regular_file(installed))
		return installed;
	// trees/linux-source-SERIES_VERSION/usr/src/linux-source-SERIES.tar.xz,
	// the newest by Debian's version order (looked at in name order, so the
	// choice does not depend on the directory's)
	const auto trees = cache_dir() / "trees";
	const auto prefix = fetched_prefix(series);
	std::vector<std::pair<std::string, fs::path>> fetched;	// version, tarball
	std::error_code ec;
	for (const auto &entry : fs::directory_iterator(trees, ec)) {
		const auto name = entry.path().filename().string();
		const auto tarball = entry.path() / "usr" / "src" / file;
		if (name.starts_with(prefix) && fs::is_regular_file(tarball))
			fetched.emplace_back(name.substr(prefix.size()), tarball);
	}
	std::sort(fetched.begin(), fetched.end());
	const std::pair<std::string, fs::path> *newest = nullptr;
	for (const auto &candidate : fetched)
		if (!newest || debian_version_greater(candidate.first, newest->first))
			newest = &candidate;
	if (newest)
		return newest->second;
	throw std::invalid_argument(fmt::format(
		"no Linux {0} tree on this machine: /usr/src/{1} is not installed and scripts/fetch-kernel.sh has "
		"not fetched it into {2}; get it with scripts/fetch-kernel.sh {0} (or apt-get install "
		"linux-source-{0} where the machine's suites carry it)",
		series, file, trees.string()));
}

namespace {

// The entries of this build's CMakeCache.txt named, as NAME:TYPE=VALUE,
// sorted.
std::vector<std::string> own_cache_entries(const std::set<std::string> &names)
{
	std::vector<std::string> entries;
	std::ifstream in(build_dir / "CMakeCache.txt");
	for (std::string line; std::getline(in, line);) {
		const auto colon = line.find(':'), eq = line.find('=');
		if (colon == std::string::npos || eq == std::string::npos || eq < colon)
			continue;
		if (names.count(line.substr(0, colon)))
			entries.push_back(line);
	}
	std::sort(entries.begin(), entries.end());
	return entries;
}

// The options a series' build takes from this build's CMakeCache.txt, as
// NAME:TYPE=VALUE: the same compilers, build type, flags, sanitizers,
// defconfigs and symbol lists, so that its libraries are built as this
// build's are and load into this harness.
std::vector<std::string> inherited_cache_options()
{
	return own_cache_entries({"CMAKE_BUILD_TYPE", "CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER",
				  "CMAKE_C_COMPILER_LAUNCHER", "CMAKE_CXX_COMPILER_LAUNCHER", "CMAKE_C_FLAGS",
				  "CMAKE_CXX_FLAGS", "CMAKE_SHARED_LINKER_FLAGS", "SH_SANITIZE", "SH_ARM_DEFCONFIG",
				  "SH_ARM64_DEFCONFIG", "SH_SYMBOL_LISTS", "SH_SCHED_FULL"});
}

// Where this build extracts kernel tarballs (cmake/KernelTree.cmake), as
// -D options: the series' builds share its trees. Not among the options
// above, which name a build directory: where a tree is read from does not
// change what compiles from it.
std::vector<std::string> trees_dir_options()
{
	return own_cache_entries({"KERNEL_TREES_DIR"});
}

// A file's size and modification time: how KernelTree.cmake tells that a
// tarball changed (it extracts again), without reading 150 MB.
std::string file_stamp(const fs::path &path)
{
	struct stat st {};
	if (::stat(path.c_str(), &st) != 0)
		throw std::invalid_argument(fmt::format("{}: {}", path.string(), std::strerror(errno)));
	return fmt::format("{}@{}.{:09}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

// The build directory of a series' tree in the cache: one per source tree,
// tarball and inherited options, reused (incrementally) by every image of
// it, whatever this build's kernel side is at.
fs::path series_build_dir(const std::string &series, const fs::path &tarball)
{
	auto hash = fnv1a("series-build");
	hash = fnv1a(source_root.string() + '\0', hash);
	hash = fnv1a(fs::absolute(tarball).string() + '\0', hash);
	hash = fnv1a(file_stamp(tarball) + '\0', hash);
	for (const auto &option : inherited_cache_options())
		hash = fnv1a(option + '\0', hash);
	return cache_dir() / "builds" / fmt::format("linux-{}-{:016x}", series, hash);
}

// The image's id: its build directory (series, tarball, options) and this
// build's kernel libraries, whose API the harness calls: a change to the
// kernel side makes a new image, compiled from the same build directory.
std::string series_image_id(const fs::path &build)
{
	auto hash = fnv1a("series-image");
	hash = fnv1a(build.string() + '\0', hash);
	for (const auto &f : flavours)
		hash = fnv1a(library_identity(build_dir / "kernel-shim" / library_file(f)), hash);
	return fmt::format("{:016x}", hash);
}

// Where the series' build extracts its tree (cmake/KernelTree.cmake: the
// tarball's name without .tar.*, under kernel/).
fs::path series_tree(const fs::path &build, const fs::path &tarball)
{
	auto name = tarball.filename().string();
	return build / "kernel" / name.substr(0, name.find(".tar"));
}

// VERSION.PATCHLEVEL.SUBLEVEL EXTRAVERSION of a tree's Makefile, as
// cmake/KernelTree.cmake reads them.
std::string tree_version(const fs::path &tree)
{
	std::ifstream in(tree / "Makefile");
	std::map<std::string, std::string> fields;
	std::string line;
	for (int n = 0; n < 10 && std::getline(in, line); n++) {
		static const std::regex field(R"(^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION) = *(.*)$)");
		if (std::smatch m; std::regex_match(line, m, field))
			fields[m[1].str()] = m[2].str();
	}
	if (fields["VERSION"].empty() || fields["PATCHLEVEL"].empty())
		throw BuildError(fmt::format("{}: no VERSION and PATCHLEVEL", (tree / "Makefile").string()));
	auto version = fields["VERSION"] + "." + fields["PATCHLEVEL"];
	if (!fields["SUBLEVEL"].empty())
		version += "." + fields["SUBLEVEL"];
	return version + fields["EXTRAVERSION"];
}

// The Debian package a tarball is of, with its version: a fetched one's
// from its folder, an installed one's from dpkg; else the tarball.
std::string package_of(const std::string &series, const fs::path &tarball)
{
	const auto folder = tarball.parent_path().parent_path().parent_path().filename().string();
	if (folder.starts_with(fetched_prefix(series))) {
		auto package = folder;
		package[package.find('_')] = ' ';
		return package;
	}
	const auto name = fmt::format("linux-source-{}", series);
	const auto r = support::run_tool(std::vector<std::string>{"dpkg-query", "-W", "-f", "${Version}", name});
	if (r.exit_status == 0 && !r.out.empty())
		return fmt::format("{} {}", name, r.out);
	return tarball.string();
}

// The last lines of a build's log, for the error that names it.
std::string log_tail(const fs::path &log, std::size_t lines)
{
	std::ifstream in(log);
	std::vector<std::string> last;
	for (std::string line; std::getline(in, line);) {
		last.push_back(std::move(line));
		if (last.size() > lines)
			last.erase(last.begin());
	}
	return fmt::format("{}", fmt::join(last, "\n"));
}

double seconds_since(std::chrono::steady_clock::time_point start)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Configures the series' build directory once (extracting the tree), as
// scripts/build.sh would with SH_KERNEL=SERIES: this source tree, the
// tarball, no test programs.
void configure_series_build(const std::string &series, const fs::path &tarball, const fs::path &build,
			    std::ostream &log)
{
	const auto configured = build / ".sched-harness-configured";
	if (fs::exists(configured))
		return;
	fs::create_directories(build);
	const auto start = std::chrono::steady_clock::now();
	log << fmt::format("kernel build: Linux {}: configuring a build of its own in {} from {} (once)\n", series,
			   build.string(), tarball.string())
	    << std::flush;
	std::string command = fmt::format("cmake -S '{}' -B '{}' -DBUILD_TESTING=OFF -DKERNEL_SRC= -DKERNEL_TARBALL='{}'",
					  source_root.string(), build.string(), fs::absolute(tarball).string());
	for (const auto &option : inherited_cache_options())
		command += fmt::format(" '-D{}'", option);
	for (const auto &option : trees_dir_options())
		command += fmt::format(" '-D{}'", option);
	const auto log_file = build / "configure.log";
	if (shell(build, fmt::format("{} > '{}' 2>&1", command, log_file.string())).exit_status != 0)
		throw BadPatch(fmt::format("configuring Linux {}'s build in {} failed (its log: {}):\n{}", series,
					   build.string(), log_file.string(), log_tail(log_file, 15)));
	write_file(configured, tarball.string() + "\n");
	log << fmt::format("kernel build: Linux {}: configured in {:.0f} s\n", series, seconds_since(start)) << std::flush;
}

// Compiles the flavours' kernel libraries in the series' build (make's
// own dependencies: what changed since, or everything the first time),
// as many compilers at once as $CMAKE_BUILD_PARALLEL_LEVEL says, else
// the machine's cores.
void compile_series_flavours(const std::string &series, const fs::path &build,
			     const std::vector<const Flavour *> &todo, std::ostream &log)
{
	std::vector<std::string> targets, names;
	for (const auto *f : todo) {
		targets.emplace_back(f->library);
		names.emplace_back(f->name);
	}
	const char *level = std::getenv("CMAKE_BUILD_PARALLEL_LEVEL");
	const auto jobs = level && *level ? std::string(level)
					  : std::to_string(std::max(1u, std::thread::hardware_concurrency()));
	const auto log_file = build / fmt::format("build-{}.log", fmt::join(names, "-"));
	const auto start = std::chrono::steady_clock::now();
	log << fmt::format("kernel build: Linux {}: compiling the {} flavour{} in {} (-j{}; log: {})\n", series,
			   fmt::join(names, " and "), names.size() == 1 ? "" : "s", build.string(), jobs,
			   log_file.string())
	    << std::flush;
	const auto command = fmt::format("cmake --build '{}' -j {} --target {} > '{}' 2>&1", build.string(), jobs,
					 fmt::join(targets, " "), log_file.string());
	if (shell(build, command).exit_status != 0)
		throw BadPatch(fmt::format("Linux {}'s kernel side does not build in {} (its log: {}):\n{}", series,
					   build.string(), log_file.string(), log_tail(log_file, 15)));
	log << fmt::format("kernel build: Linux {}: compiled in {:.0f} s\n", series, seconds_since(start)) << std::flush;
}

// A series' image may be made: a series the build brings up (a PELT-only
// build's kernel side has another API: this harness cannot load it), not
// the build's own.
void check_series_wanted(const std::string &series)
{
	if (!is_series_name(series))
		throw std::invalid_argument(fmt::format("{}: not a kernel series (MAJOR.MINOR: 6.12, 7.3)", series));
	if (series == own_series())
		throw std::invalid_argument(fmt::format("Linux {} is this build's own series: its kernel is the build's "
							"own (no image)",
							series));
	const std::string brought_up = " " SH_IMAGE_BROUGHT_UP " ";
	if (brought_up.find(" " + series + " ") == std::string::npos)
		throw std::invalid_argument(fmt::format(
			"Linux {} is not brought up (brought up: {}): its build compiles PELT alone, whose kernel "
			"side this harness cannot load; build it on its own (SH_KERNEL={} scripts/build.sh, "
			"docs/new-tree.md)",
			series, SH_IMAGE_BROUGHT_UP, series));
}

} // namespace

namespace {

Image build_series_image(const std::string &series, std::ostream &log, const std::vector<std::string> &wanted);

} // namespace

Image series_image(const std::string &series, std::ostream &log, const std::vector<std::string> &wanted)
{
	return space_checked([&] { return build_series_image(series, log, wanted); });
}

namespace {

Image build_series_image(const std::string &series, std::ostream &log, const std::vector<std::string> &wanted)
{
	for (const auto &name : wanted)
		library_of(name);	// a flavour this build has
	check_series_wanted(series);
	const auto tarball = series_tarball(series);
	const auto build = series_build_dir(series, tarball);
	const auto id = series_image_id(build);
	const auto images = cache_dir() / "images";
	const auto dir = images / id;
	if (fs::exists(dir / "manifest.json") && missing_flavours(dir, wanted).empty()) {
		record_use(dir);
		return {dir, read_manifest(dir), true};
	}
	fs::create_directories(images);
	const FileLock lock(images / fmt::format(".lock-{}", id));
	const auto todo = missing_flavours(dir, wanted);
	const bool stored = fs::exists(dir / "manifest.json");
	if (stored && todo.empty()) {
		record_use(dir);
		return {dir, read_manifest(dir), true};
	}
	// the images of every revision of this build share the build directory
	fs::create_directories(build.parent_path());
	const FileLock build_lock(build.parent_path() / (build.filename().string() + ".lock"));
	configure_series_build(series, tarball, build, log);
	const auto tree = series_tree(build, tarball);
	if (!is_kernel_tree(tree))
		throw BuildError(fmt::format("{}: the tree {} configured against is not there", build.string(),
					     tree.string()));
	Manifest manifest;
	if (stored) {
		manifest = read_manifest(dir);
	} else {
		manifest.id = id;
		manifest.tree = tree.string();
		manifest.series = series;
		manifest.version = tree_version(tree);
		manifest.package = package_of(series, tarball);
		manifest.tarball = fs::absolute(tarball).string();
		manifest.build = build.string();
	}
	if (!todo.empty())
		compile_series_flavours(series, build, todo, log);
	const auto work = images / fmt::format("tmp.{}", ::getpid());
	fs::remove_all(work);
	fs::create_directories(work);
	const support::TempDir cleanup(work);
	for (const auto *f : todo)
		fs::copy_file(build / "kernel-shim" / library_file(*f), work / library_file(*f));
	if (!stored) {
		log << fmt::format("kernel build: image {}: Linux {} ({})\n", id, manifest.version, manifest.package);
		store_image(images, id, manifest);
	}
	install_libraries(todo, work, dir, manifest);
	record_use(dir);
	return {dir, read_manifest(dir), false};
}

} // namespace

std::string library_of(const std::string &flavour)
{
	for (const auto &f : flavours)
		if (flavour == f.name)
			return library_file(f);
	throw std::invalid_argument(fmt::format("no kernel flavour {} in this build (arm64, arm)", flavour));
}

std::string_view to_string(State state)
{
	switch (state) {
	case State::ok:
		return "ok";
	case State::incomplete:
		return "incomplete";
	case State::failed:
		return "failed";
	case State::stale:
		return "stale";
	case State::broken:
		return "broken";
	}
	return "?";
}

namespace {

std::chrono::system_clock::time_point mtime(const fs::path &path, bool &found)
{
	struct stat st {};
	found = ::stat(path.c_str(), &st) == 0;
	return std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
		std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
}

// The image's last use: its stamp, else (an image from before the stamps)
// its manifest's last write, which each flavour built rewrites.
std::chrono::system_clock::time_point last_used(const fs::path &dir)
{
	bool found = false;
	const auto stamped = mtime(dir / last_used_stamp, found);
	return found ? stamped : mtime(dir / "manifest.json", found);
}

std::string first_line(const std::string &text)
{
	return text.substr(0, text.find('\n'));
}

// What `kernel list` says of the image in `dir`.
Listed assess(const fs::path &dir)
{
	Listed listed{{dir, {}, true}, last_used(dir), State::ok, {}};
	try {
		listed.image.manifest = read_manifest(dir);
	} catch (const BuildError &e) {
		listed.image.manifest.id = dir.filename().string();
		listed.state = State::broken;
		listed.why = e.what();
		return listed;
	}
	const auto &m = listed.image.manifest;
	std::vector<std::string> failed, unbuilt, damaged;
	for (const auto &f : flavours) {
		if (has_library(dir, f))
			continue;
		if (const auto library = dir / library_file(f); fs::exists(library)) {
			if (const auto damage = library_damage(library, false))
				damaged.push_back(*damage);
			unbuilt.emplace_back(f.name);
		} else if (fs::exists(dir / failure_file(f))) {
			std::string error;
			try {
				error = first_line(read_file(dir / failure_file(f)));
			} catch (const BuildError &) {
			}
			failed.push_back(fmt::format("the {} flavour did not compile: {}", f.name, error));
		} else {
			unbuilt.emplace_back(f.name);
		}
	}
	// what a flavour is built from, as add_flavour() asks for it
	std::vector<std::string> gone;
	if (m.of_series()) {
		// its build directory (and the tree in it) is made again from the tarball
		if (!fs::is_regular_file(m.tarball))
			gone.push_back(fmt::format("its tree's tarball {}", m.tarball));
	} else if (m.tree != kernel_tree.string() && !is_kernel_tree(m.tree)) {
		gone.push_back(fmt::format("its tree {}", m.tree));
	}
	for (const auto &p : m.patches)
		if (!fs::is_regular_file(p))
			gone.push_back(fmt::format("its patch {}", p));
	if (!failed.empty()) {
		listed.state = State::failed;
		listed.why = fmt::format("{}", fmt::join(failed, "; "));
	} else if (!gone.empty()) {
		listed.state = State::stale;
		listed.why = fmt::format("{} {} gone: it cannot be built again{}", fmt::join(gone, ", "),
					 gone.size() == 1 ? "is" : "are",
					 unbuilt.empty() ? ""
							 : fmt::format(", and its {} flavour can never be",
								       fmt::join(unbuilt, " and ")));
	} else if (!unbuilt.empty()) {
		listed.state = State::incomplete;
		listed.why = fmt::format("{}its {} flavour{} built when a board first needs {}",
					 damaged.empty() ? "" : fmt::format("{}: ", fmt::join(damaged, "; ")),
					 fmt::join(unbuilt, " and "), unbuilt.size() == 1 ? " is" : "s are",
					 unbuilt.size() == 1 ? "it" : "them");
	}
	return listed;
}

} // namespace

std::vector<Listed> list()
{
	std::vector<Listed> images;
	const auto root = cache_dir() / "images";
	if (!fs::is_directory(root))
		return images;
	for (const auto &entry : fs::directory_iterator(root))
		if (entry.path().filename().string().find("tmp.") == std::string::npos &&
		    fs::exists(entry.path() / "manifest.json"))
			images.push_back(assess(entry.path()));
	// the same use (a stamp's mtime is as coarse as the file system's
	// clock): the newer build first, then by id, the same every time
	std::sort(images.begin(), images.end(), [](const Listed &a, const Listed &b) {
		return std::tie(b.last_used, b.image.manifest.created, a.image.manifest.id) <
		       std::tie(a.last_used, a.image.manifest.created, b.image.manifest.id);
	});
	return images;
}

Pruned prune(std::size_t keep)
{
	Pruned pruned;
	std::set<fs::path> trees_kept, builds_kept;
	for (const auto &listed : list()) {
		if (listed.loadable() && pruned.kept < keep) {
			pruned.kept++;
			std::error_code ec;
			trees_kept.insert(fs::weakly_canonical(listed.image.manifest.tree, ec));
			if (listed.image.manifest.of_series())
				builds_kept.insert(fs::weakly_canonical(listed.image.manifest.build, ec));
			continue;
		}
		fs::remove_all(listed.image.dir);
		(listed.loadable() ? pruned.unused : pruned.unloadable)++;
	}
	// scratch of builds no longer running (their pid is gone)
	for (const auto &root : {cache_dir() / "images", cache_dir() / "bisect", cache_dir() / "trees", cache_dir() / "builds",
				 cache_dir() / "sources"}) {
		std::error_code ec;
		for (const auto &entry : fs::directory_iterator(root, ec)) {
			const auto name = entry.path().filename().string();
			const auto dot = name.rfind('.');
			const auto pid = name.substr(dot == std::string::npos ? 0 : dot + 1);
			if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos)
				continue;
			if (!fs::exists(fs::path("/proc") / pid))
				fs::remove_all(entry.path());
		}
	}
	// the locks of images no longer there
	std::error_code ec;
	for (const auto &entry : fs::directory_iterator(cache_dir() / "images", ec)) {
		const auto name = entry.path().filename().string();
		if (name.starts_with(".lock-") && !fs::exists(entry.path().parent_path() / name.substr(6)))
			fs::remove(entry.path(), ec);
	}
	// the extracted tarballs (tarball_tree(): tarball-HASH) no kept image
	// is of: one that is would then be stale, and pruned first next time.
	// Not the packages scripts/fetch-kernel.sh fetched beside them
	// (linux-source-SERIES_VERSION): a tree is fetched, never rebuilt.
	for (const auto &entry : fs::directory_iterator(cache_dir() / "trees", ec)) {
		const auto name = entry.path().filename().string();
		if (!name.starts_with("tarball-") || name.find(".tmp.") != std::string::npos)
			continue;	// being extracted (or left by a process gone: above)
		std::error_code canonical_ec;
		if (!trees_kept.count(fs::weakly_canonical(entry.path(), canonical_ec)))
			fs::remove_all(entry.path());
	}
	// the trees extracted for the builds (cmake/KernelTree.cmake) whose
	// tarball is gone or changed: a build configured again extracts the
	// new one, under another name
	for (const auto &entry : fs::directory_iterator(cache_dir() / "sources", ec)) {
		std::ifstream in(entry.path() / ".extracted");
		std::string tarball, stamp;
		if (!std::getline(in, tarball) || !std::getline(in, stamp))
			continue;	// being extracted (or left by a process gone: above)
		struct stat st {};
		if (::stat(tarball.c_str(), &st) != 0 ||
		    stamp != fmt::format("{}@{}", st.st_size, static_cast<long long>(st.st_mtim.tv_sec)))
			fs::remove_all(entry.path());
	}
	// the builds of another series (series_image()) no kept image was
	// built by, with their locks: each is a tree extracted and compiled
	for (const auto &entry : fs::directory_iterator(cache_dir() / "builds", ec)) {
		if (!entry.is_directory() || entry.path().filename().string().find(".tmp.") != std::string::npos)
			continue;
		std::error_code canonical_ec;
		if (builds_kept.count(fs::weakly_canonical(entry.path(), canonical_ec)))
			continue;
		fs::remove_all(entry.path());
		fs::remove(entry.path().string() + ".lock", canonical_ec);
	}
	return pruned;
}

fs::path own_kernel_dir()
{
	return build_dir / "kernel-shim";
}

void write_library_sum(const fs::path &library)
{
	const auto sum = sum_of(library, true);
	if (!sum)
		throw BuildError(fmt::format("cannot read {}: {}", library.string(), std::strerror(errno)));
	write_file(sum_file(library), fmt::format("{} {:016x} {}\n", sum->size, sum->hash, sum->mtime_ns));
}

void drop_damaged_libraries(const fs::path &dir, std::ostream &log)
{
	for (const auto &f : flavours) {
		const auto library = dir / library_file(f);
		if (!fs::exists(library))
			continue;
		const auto damage = library_damage(library, true);
		if (!damage)
			continue;
		log << fmt::format("sched-harness: image {}: {}: removed, its {} flavour is built again when a board "
				   "needs it\n",
				   dir.filename().string(), *damage, f.name);
		std::error_code ec;
		fs::remove(library, ec);
		fs::remove(sum_file(library), ec);
	}
}

namespace {

// The image a run is about to load, its libraries checked first.
fs::path checked(const fs::path &dir, std::ostream &log)
{
	drop_damaged_libraries(dir, log);
	return dir;
}

} // namespace

fs::path resolve(const std::string &what, std::ostream &log)
{
	if (fs::exists(fs::path(what) / "manifest.json")) {
		record_use(what);
		return checked(fs::absolute(what), log);
	}
	if (fs::exists(fs::path(what) / "libksched.so"))
		return fs::absolute(what);	// a build's own kernel side: not an image of the cache
	std::vector<fs::path> matches;
	if (!what.empty() && what.find_first_not_of("0123456789abcdef") == std::string::npos)
		for (const auto &listed : list())
			if (listed.state != State::broken && listed.image.manifest.id.starts_with(what))
				matches.push_back(listed.image.dir);
	if (matches.size() > 1)
		throw std::invalid_argument(fmt::format("--kernel {}: {} images start with it", what, matches.size()));
	if (matches.size() == 1) {
		record_use(matches.front());
		return checked(matches.front(), log);
	}
	// a series by name (unless a file of that name is meant): its image,
	// or for the build's own series the build's own kernel side
	if (is_series_name(what) && !fs::exists(what))
		return names_own_kernel(what) ? own_kernel_dir() : checked(series_image(what, log, {}).dir, log);
	// the flavours are built by the process that boots a board
	if (is_kernel_tree(what))
		return checked(build({fs::path(what), {}, {}}, log, {}).dir, log);
	if (fs::is_regular_file(what))
		return checked(build({{}, {fs::path(what)}, {}}, log, {}).dir, log);
	throw std::invalid_argument(fmt::format("--kernel {}: no such image in {} ('sched-harness kernel list'), "
						"no image directory (with a manifest.json), kernel series (6.12), kernel "
						"tree or patch file",
						what, (cache_dir() / "images").string()));
}

} // namespace sh::image
