// SPDX-License-Identifier: GPL-2.0
#include "sched/image/image.h"

#include "dts/tools.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
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
	const char *undefined_list;	// kernel-shim/glue/undefined-<series>[-arm].txt
};
const Flavour flavours[] = {
	{"arm64", "ksched", "ksched_kernel", "undefined-" SH_IMAGE_KERNEL_SERIES ".txt"},
	{"arm", "ksched_arm", "ksched_arm_kernel", "undefined-" SH_IMAGE_KERNEL_SERIES "-arm.txt"},
};

std::string read_file(const fs::path &path)
{
	std::ifstream in(path, std::ios::binary);
	if (!in)
		throw BuildError(fmt::format("cannot read {}", path.string()));
	std::ostringstream s;
	s << in.rdbuf();
	return s.str();
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
	for (unsigned char c : bytes) {
		h ^= c;
		h *= 0x100000001b3ULL;
	}
	return h;
}

void replace_all(std::string &s, std::string_view from, std::string_view to)
{
	for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
		s.replace(at, from.size(), to);
}

// `cd DIR && COMMAND` through the shell; the result of the tool.
dts::ToolResult shell(const fs::path &dir, const std::string &command)
{
	const std::vector<std::string> argv{"/bin/sh", "-c",
					    fmt::format("cd '{}' && {}", dir.string(), command)};
	return dts::run_tool(argv);
}

// The tree's files a patch changes: the paths of its "+++ b/..." lines
// (of "--- a/..." for a deleted file), one leading component stripped as
// with patch -p1.
std::vector<std::string> touched_files(const std::string &patch, const fs::path &name)
{
	std::vector<std::string> files;
	std::istringstream in(patch);
	std::string line, previous;
	auto strip = [&](std::string path) {
		if (const auto tab = path.find('\t'); tab != std::string::npos)
			path.resize(tab);
		while (!path.empty() && (path.back() == '\r' || path.back() == ' '))
			path.pop_back();
		const auto slash = path.find('/');
		if (slash == std::string::npos)
			throw BadPatch(fmt::format("{}: \"{}\": a path without a leading directory (expected a/... b/..., "
						   "as git and diff -ru give)",
						   name.string(), path));
		return path.substr(slash + 1);
	};
	while (std::getline(in, line)) {
		if (line.starts_with("+++ ") && previous.starts_with("--- ")) {
			auto target = line.substr(4);
			if (target.starts_with("/dev/null"))
				target = previous.substr(4);
			const auto rel = strip(target);
			if (rel.find("..") != std::string::npos)
				throw BadPatch(fmt::format("{}: \"{}\" leaves the tree", name.string(), rel));
			files.push_back(rel);
		}
		previous = line;
	}
	if (files.empty())
		throw BadPatch(fmt::format("{}: no unified diff in it (no ---/+++ lines)", name.string()));
	return files;
}

// overlay/dir becomes a real directory holding a symlink to each entry of
// tree/dir (nothing when the tree has no such directory: a new one).
void make_real_dir(const fs::path &overlay_dir, const fs::path &tree_dir)
{
	if (fs::is_symlink(overlay_dir))
		fs::remove(overlay_dir);
	if (fs::is_directory(overlay_dir))
		return;
	fs::create_directories(overlay_dir);
	if (!fs::is_directory(tree_dir))
		return;
	for (const auto &entry : fs::directory_iterator(tree_dir))
		fs::create_symlink(entry.path(), overlay_dir / entry.path().filename());
}

// overlay/rel becomes a copy of tree/rel that patch can write, its parent
// directories real ones; everything else stays a symlink into the tree.
void own_file(const fs::path &overlay, const fs::path &tree, const fs::path &rel)
{
	fs::path o = overlay, t = tree;
	make_real_dir(o, t);
	for (const auto &part : rel.parent_path()) {
		o /= part;
		t /= part;
		make_real_dir(o, t);
	}
	o /= rel.filename();
	t /= rel.filename();
	if (fs::is_symlink(o)) {
		fs::remove(o);
		if (fs::exists(t))
			fs::copy_file(t, o);
	}
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
std::string preprocessed(const CompileCommand &c, const std::string &command)
{
	std::string cmd = command;
	replace_all(cmd, " -o " + c.output + " ", " -o /dev/stdout ");
	replace_all(cmd, " -c ", " -E -P ");
	const auto r = shell(c.directory, cmd);
	if (r.exit_status != 0)
		throw BadPatch(fmt::format("{} does not preprocess:\n{}", c.file.string(), r.err));
	return r.out;
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
	strings("recompiled", m.recompiled);
	w.Key("created"), w.String(m.created.c_str());
	w.EndObject();
	write_file(dir / "manifest.json", std::string(buf.GetString()) + "\n");
}

} // namespace

fs::path cache_dir()
{
	if (const char *env = std::getenv("SCHED_HARNESS_CACHE"); env && *env)
		return env;
	if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
		return fs::path(xdg) / "sched-harness";
	if (const char *home = std::getenv("HOME"); home && *home)
		return fs::path(home) / ".cache" / "sched-harness";
	return fs::temp_directory_path() / "sched-harness-cache";
}

Manifest read_manifest(const fs::path &dir)
{
	const auto text = read_file(dir / "manifest.json");
	rapidjson::Document doc;
	doc.Parse(text.c_str());
	if (doc.HasParseError() || !doc.IsObject())
		throw BuildError(fmt::format("{}: a broken manifest", (dir / "manifest.json").string()));
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
	m.created = doc["created"].GetString();
	return m;
}

Image build(const std::vector<fs::path> &patches, std::ostream &log)
{
	if (!fs::exists(build_dir / "compile_commands.json"))
		throw BuildError(fmt::format("{} has no compile_commands.json: images are built from this build's own "
					     "commands",
					     build_dir.string()));
	// The id: this build's images (what unpatched objects and the glue
	// are) and the patches, byte for byte.
	std::uint64_t id_hash = fnv1a(SH_IMAGE_KERNEL_SERIES);
	for (const auto &f : flavours)
		id_hash = fnv1a(read_file(build_dir / "kernel-shim" / fmt::format("lib{}.so", f.library)), id_hash);
	std::vector<std::string> patch_texts;
	std::vector<std::string> files;
	for (const auto &p : patches) {
		if (!fs::is_regular_file(p))
			throw BadPatch(fmt::format("{}: no such patch file", p.string()));
		patch_texts.push_back(read_file(p));
		id_hash = fnv1a(patch_texts.back(), id_hash);
		for (auto &f : touched_files(patch_texts.back(), p))
			if (std::find(files.begin(), files.end(), f) == files.end())
				files.push_back(std::move(f));
	}
	const auto id = fmt::format("{:016x}", id_hash);
	const auto dir = cache_dir() / "images" / id;
	if (fs::exists(dir / "manifest.json"))
		return {dir, read_manifest(dir), true};

	// each build in its own work directory: two builds of one image do not
	// collide, the first to finish provides it
	const auto work = cache_dir() / "images" / fmt::format("{}.tmp.{}", id, ::getpid());
	fs::remove_all(work);
	fs::create_directories(work);
	const auto overlay = work / "tree";
	Manifest manifest;
	manifest.id = id;
	manifest.tree = kernel_tree.string();
	for (const auto &p : patches)
		manifest.patches.push_back(fs::absolute(p).string());
	manifest.files = files;

	// The overlay: a copy of each file the patches touch, symlinks for the rest.
	for (const auto &f : files)
		own_file(overlay, kernel_tree, f);
	for (std::size_t i = 0; i < patches.size(); i++) {
		const auto r = dts::run_tool(std::vector<std::string>{
			"patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch", "-r", "-", "-d",
			overlay.string(), "-i", fs::absolute(patches[i]).string()});
		if (r.exit_status != 0) {
			fs::remove_all(work);
			auto what = r.out + r.err;
			while (!what.empty() && what.back() == '\n')
				what.pop_back();
			replace_all(what, "\n", "; ");
			throw BadPatch(fmt::format("{} does not apply to {}: {}", patches[i].string(), kernel_tree.string(),
						   what));
		}
	}
	log << fmt::format("kernel build: {} patch{} on {}, touching {}\n", patches.size(),
			   patches.size() == 1 ? "" : "es", kernel_tree.string(), fmt::join(files, ", "));

	std::set<std::string> patched_paths;	// as the build's commands and depfiles name them
	for (const auto &f : files)
		patched_paths.insert((kernel_tree / f).string());
	const std::string tree_prefix = kernel_tree.string() + "/", overlay_prefix = overlay.string() + "/";
	const auto commands = compile_commands();

	for (const auto &flavour : flavours) {
		const std::string objects_dir = fmt::format("CMakeFiles/{}.dir/", flavour.objects);
		const std::string runtime_dir = fmt::format("CMakeFiles/{}.dir/", flavour.library);
		std::map<std::string, std::string> replaced;	// object as link.txt names it -> the image's
		std::vector<fs::path> kernel_objects;
		bool upstream_changed = false;
		for (const auto &c : commands) {
			if (!c.output.starts_with(objects_dir))
				continue;
			const auto object = c.directory / c.output;
			kernel_objects.push_back(object);
			const auto depfile = read_file(fs::path(object.string() + ".d"));
			const bool affected = std::any_of(patched_paths.begin(), patched_paths.end(), [&](const auto &p) {
				return c.file.string() == p || depfile.find(p) != std::string::npos;
			});
			if (!affected)
				continue;
			std::string command = c.command;
			replace_all(command, tree_prefix, overlay_prefix);
			command += fmt::format(" -fmacro-prefix-map={}={}", overlay_prefix, tree_prefix);
			// a change the compiler does not see (a comment) recompiles nothing
			if (preprocessed(c, command) == preprocessed(c, c.command + fmt::format(
										       " -fmacro-prefix-map={}={}",
										       overlay_prefix, tree_prefix)))
				continue;
			upstream_changed = true;
			const auto out = work / "obj" / flavour.name / c.output;
			fs::create_directories(out.parent_path());
			replace_all(command, " -o " + c.output + " ", " -o " + out.string() + " ");
			log << fmt::format("kernel build: {}: compiling {}\n", flavour.name,
					   fs::relative(c.file, source_root).string());
			const auto r = shell(c.directory, command);
			if (r.exit_status != 0) {
				fs::remove_all(work);
				throw BadPatch(fmt::format("{} does not compile with the patches ({} flavour):\n{}",
							   c.file.string(), flavour.name, r.err));
			}
			replaced[c.output] = out.string();
			kernel_objects.back() = out;
			manifest.recompiled.push_back(fmt::format("{}: {}", flavour.name, c.output.substr(objects_dir.size())));
		}
		// kernel info lists the patched files' hashes (the runtime's generated header)
		if (upstream_changed) {
			const auto generated = build_dir / "kernel-shim" / fmt::format("generated-{}", flavour.name);
			auto header = read_file(generated / "kshim" / "upstream_files.h");
			for (const auto &f : files) {
				const auto r = dts::run_tool(std::vector<std::string>{"cmake", "-E", "sha256sum", (overlay / f).string()});
				const auto at = header.find(fmt::format("{{\"{}\", \"", f));
				if (r.exit_status != 0 || at == std::string::npos)
					continue;	// a file the build does not list (a header)
				const auto hash_at = at + f.size() + 6;
				header.replace(hash_at, 64, r.out.substr(0, 64));
			}
			const auto gen = work / fmt::format("generated-{}", flavour.name);
			fs::create_directories(gen / "kshim");
			write_file(gen / "kshim" / "upstream_files.h", header);
			for (const auto &c : commands) {
				if (c.output != runtime_dir + "src/info.cpp.o")
					continue;
				std::string command = c.command;
				replace_all(command, "-I" + generated.string(), "-I" + gen.string());
				const auto out = work / "obj" / flavour.name / c.output;
				fs::create_directories(out.parent_path());
				replace_all(command, " -o " + c.output + " ", " -o " + out.string() + " ");
				const auto r = shell(c.directory, command);
				if (r.exit_status != 0)
					throw BuildError(fmt::format("the runtime's info.cpp does not compile:\n{}", r.err));
				replaced[c.output] = out.string();
			}
		}
		// the undefined symbols of the objects, against the glue's list
		std::string check = fmt::format("CC='{}' '{}' '{}'", SH_IMAGE_C_COMPILER,
						(source_root / "kernel-shim" / "check-undefined.sh").string(),
						(source_root / "kernel-shim" / "glue" / flavour.undefined_list).string());
		for (const auto &o : kernel_objects)
			check += " '" + o.string() + "'";
		if (const auto r = shell(build_dir, check); r.exit_status != 0) {
			fs::remove_all(work);
			throw BadPatch(fmt::format("the patched kernel needs symbols the glue does not provide "
						   "({} flavour):\n{}{}",
						   flavour.name, r.out, r.err));
		}
		// link as the build links, with the image's objects
		auto link = read_file(build_dir / "kernel-shim" / "CMakeFiles" / fmt::format("{}.dir", flavour.library) /
				      "link.txt");
		while (!link.empty() && (link.back() == '\n' || link.back() == '\r'))
			link.pop_back();
		link += " ";
		for (const auto &[from, to] : replaced)
			replace_all(link, " " + from + " ", " " + to + " ");
		const auto so = fmt::format("lib{}.so", flavour.library);
		replace_all(link, " -o " + so + " ", " -o " + (work / so).string() + " ");
		if (const auto r = shell(build_dir / "kernel-shim", link); r.exit_status != 0) {
			fs::remove_all(work);
			throw BuildError(fmt::format("linking the {} image failed:\n{}", flavour.name, r.err));
		}
	}
	manifest.created = now_utc();
	write_manifest(work, manifest);
	std::error_code ec;
	fs::rename(work, dir, ec);
	if (ec) {	// another build of the same image finished first
		fs::remove_all(work);
		if (!fs::exists(dir / "manifest.json"))
			throw BuildError(fmt::format("cannot store the image in {}: {}", dir.string(), ec.message()));
	}
	log << fmt::format("kernel build: image {} ({} object{} compiled again)\n", id, manifest.recompiled.size(),
			   manifest.recompiled.size() == 1 ? "" : "s");
	return {dir, read_manifest(dir), false};
}

std::vector<Image> list()
{
	std::vector<Image> images;
	const auto root = cache_dir() / "images";
	if (!fs::is_directory(root))
		return images;
	for (const auto &entry : fs::directory_iterator(root))
		if (entry.path().filename().string().find(".tmp") == std::string::npos &&
		    fs::exists(entry.path() / "manifest.json"))
			images.push_back({entry.path(), read_manifest(entry.path()), true});
	std::sort(images.begin(), images.end(),
		  [](const Image &a, const Image &b) { return a.manifest.created > b.manifest.created; });
	return images;
}

fs::path resolve(const std::string &id_or_dir)
{
	if (fs::exists(fs::path(id_or_dir) / "libksched.so"))
		return fs::absolute(id_or_dir);
	std::vector<fs::path> matches;
	for (const auto &image : list())
		if (image.manifest.id.starts_with(id_or_dir) && !id_or_dir.empty())
			matches.push_back(image.dir);
	if (matches.size() == 1)
		return matches.front();
	if (matches.empty())
		throw std::invalid_argument(fmt::format("--kernel {}: no such image in {} ('sched-harness kernel list'), "
							"and no directory with a libksched.so",
							id_or_dir, (cache_dir() / "images").string()));
	throw std::invalid_argument(fmt::format("--kernel {}: {} images start with it", id_or_dir, matches.size()));
}

} // namespace sh::image
