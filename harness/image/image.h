// SPDX-License-Identifier: GPL-2.0
//
// Kernel images: the kernel side (upstream objects, fake arch, glue and
// the C++ runtime: libksched.so and libksched_arm.so) built for the tree
// with a patch series applied, cached by content and loaded by the one
// sched-harness binary at run time (--kernel).
//
// An image is built from this build's own compile and link commands
// (compile_commands.json, link.txt) and named by what it compiles: the
// files this build reads from its tree (the sources and every header their
// depfiles list) that the image's tree and patches change, byte for byte.
// The patches go into an overlay of the tree that copies only the files
// they touch (the rest are symlinks into the tree, which is never
// written); only the objects whose preprocessed input changes are compiled
// again, every other object is this build's own. Then the images link as
// the build links them, and their undefined symbols are checked against
// the glue's lists. Another tree of the series (--tree: a checkout, a
// commit of a git history) is a set of changed files like a patch.
//
// An image holds a library per kernel flavour, each built when first
// needed: a patch run on an arm64 board compiles nothing for the arm
// flavour. The id names the kernel (tree, patches, options), not the
// flavours built so far.
//
// An image of another series (--kernel 6.12 in a 6.1 build) cannot reuse
// this build's commands: the series' files, flags and glue differ
// (cmake/series/). It is built by a build of its own in the cache: this
// source tree configured against the series' tree (as scripts/build.sh
// with SH_KERNEL=SERIES would), only the kernel libraries compiled. The
// harness loads it as it loads any image: the extern "C"/C++ API between
// harness and kernel side is the same source, and nothing the harness
// compiles in depends on the tree's series but SH_KERNEL_SCHEDULER, which
// every brought-up series has.
#pragma once

#include "harness/image/patch_file.h"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sh::image {

// The build itself failed (a missing build directory, a tool that is not
// there): not the user's patch.
class BuildError : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// A build that ran out of space (the compiler's, the linker's or the
// cache's own writes): neither the patch's fault nor the tool's. Names the
// cache and its free space; nothing of the build is kept as an image or
// as the patch's failure, and the same build succeeds once there is room.
class CacheFull : public BuildError {
public:
	using BuildError::BuildError;
};

struct Manifest {
	std::string id;
	std::string tree;			// the tree the patches apply to
	std::vector<std::string> patches;	// their file names, in order
	std::vector<std::string> files;		// the files read that differ from the build's tree
	std::vector<std::string> flavours;	// the flavours built so far (arm64, arm)
	std::vector<std::string> recompiled;	// objects compiled again ("arm64: kernel/sched/fair.c.o")
	std::vector<std::string> config;	// --config NAME=VALUE, in order
	std::string created;			// UTC, ISO 8601
	// An image of another series (series_image()); all empty otherwise.
	std::string series;			// "6.12"
	std::string version;			// its tree's, from the Makefile: "6.12.118"
	std::string package;			// where the tree came from: "linux-source-6.12 6.12.118-1"
	std::string tarball;			// the tarball its tree was extracted from
	std::string build;			// the build directory that compiles it (tree is its kernel/...)

	bool of_series() const { return !series.empty(); }
};

struct Image {
	std::filesystem::path dir;	// holds manifest.json and the flavours' libksched.so, libksched_arm.so
	Manifest manifest;
	bool cached = false;		// built before, taken from the cache
};

// $SCHED_HARNESS_CACHE, else $XDG_CACHE_HOME/sched-harness, else
// ~/.cache/sched-harness.
std::filesystem::path cache_dir();

// What an image is made of.
struct Recipe {
	std::filesystem::path tree;			// empty: the build's own tree
	std::vector<std::filesystem::path> patches;	// applied in order
	// Kconfig options set on top of the build's configuration, as they
	// would be in .config (no Kconfig dependency resolution: an option
	// whose code needs glue the build lacks fails the symbol check)
	std::vector<std::pair<std::string, std::string>> config;
};

// "NAME=VALUE" (CONFIG_ optional) as a config entry of a Recipe; BadPatch
// for a malformed one.
std::pair<std::string, std::string> parse_config(const std::string &assignment);

// The kernel flavours of this build, by the name boards give them.
inline const std::vector<std::string> every_flavour{"arm64", "arm"};

// Builds (or finds in the cache) the image of the tree with the patches
// applied in order (unified diffs, git format-patch files, mbox series),
// with the libraries of `flavours` (none: the patches are applied and the
// image named, its flavours left to add_flavour()). Progress goes to `log`.
Image build(const Recipe &recipe, std::ostream &log, const std::vector<std::string> &flavours = every_flavour);

// The image in `dir` with the library of `flavour` too, built from the
// tree, patches and options its manifest names. Throws BadPatch when that
// flavour does not compile, std::invalid_argument when the tree or a patch
// is gone or changed since (the image's id would differ).
Image add_flavour(const std::filesystem::path &dir, const std::string &flavour, std::ostream &log);

// The file name of a flavour's library in an image: libksched.so, libksched_arm.so.
std::string library_of(const std::string &flavour);

// The files this build reads from its kernel tree, relative to it: what a
// tree given to build() must hold (the rest of it does not matter).
std::vector<std::string> read_files();

// Whether `dir` looks like a kernel tree (a Makefile and kernel/sched/).
bool is_kernel_tree(const std::filesystem::path &dir);

// The directories of read_files() (two levels deep) from a tar archive of
// a kernel tree (any compression tar reads), extracted once under `under`
// (named by the archive's content): a tree for build().
std::filesystem::path tarball_tree(const std::filesystem::path &tarball, const std::filesystem::path &under);

// The files of a git commit that this build's images can read (the
// directories of read_files() at that commit), extracted under `under`
// (git archive): a tree for build(). Throws BadPatch for a ref git does
// not know. Returns the directory and the full commit id.
std::pair<std::filesystem::path, std::string> git_tree(const std::filesystem::path &git_dir,
							 const std::string &ref,
							 const std::filesystem::path &under);

// What `kernel list` says of an image. ok and incomplete images load: every
// board runs them, now or once its flavour is built. The others are pruned
// before any of those: a stale image may still run the flavours it has,
// but its tree or patches are gone, so it cannot be built again nor given
// another flavour (most are a finished bisect's steps).
enum class State {
	ok,		// every flavour built, its tree and patches still there
	incomplete,	// a flavour not built yet: built from its tree and patches when a board needs it
	failed,		// a flavour did not compile (recorded by the build): its boards never run it
	stale,		// its tree or a patch is gone (a bisect's checkout, a deleted patch): it cannot be
			// built again, nor a flavour it lacks
	broken,		// its manifest cannot be read
};
std::string_view to_string(State state);

// An image in the cache as `kernel list` shows it and prune ranks it.
struct Listed {
	Image image;	// a broken one: its manifest's id is the directory's name, the rest empty
	// When it was last built, named (--kernel, compare's --b-kernel, ...)
	// or loaded for a run: its `last-used` stamp's mtime (an image from
	// before the stamps: its manifest's)
	std::chrono::system_clock::time_point last_used;
	State state = State::ok;
	std::string why;	// what failed or is missing, unless ok

	// Every board can run it (a flavour it lacks can still be built).
	bool loadable() const { return state == State::ok || state == State::incomplete; }
};

// The images in the cache, most recently used first.
std::vector<Listed> list();

struct Pruned {
	std::size_t unloadable = 0;	// failed, stale or broken
	std::size_t unused = 0;		// loadable, beyond the `keep` most recently used
	std::size_t kept = 0;
};

// Removes first every image that is not loadable() (failed, stale,
// broken), then all but the `keep` most recently used of the rest; then
// the scratch of interrupted builds, and the extracted tarballs no kept
// image was built from (removing one that is its tree would leave it
// stale).
Pruned prune(std::size_t keep);

// Whether `what` is spelled as a kernel series: MAJOR.MINOR ("6.12", "7.3").
bool is_series_name(std::string_view what);

// The series of this build's own tree ("6.1").
std::string own_series();

// The version of this build's own tree ("6.1.192").
std::string own_version();

// Whether --kernel `what` is this build's own kernel: its series by name
// ("6.1" in a 6.1 build), or "default". Such a kernel runs without an image.
bool names_own_kernel(std::string_view what);

// The tarball of the Linux `series` tree, found as scripts/build.sh finds
// it: /usr/src/linux-source-SERIES.tar.xz, else the newest (by Debian's
// version order) that scripts/fetch-kernel.sh fetched into the cache's
// trees/. Throws std::invalid_argument naming scripts/fetch-kernel.sh
// SERIES when there is none.
std::filesystem::path series_tarball(const std::string &series);

// The image of the Linux `series` tree (another series than the build's),
// with the libraries of `flavours` (none: the image is recorded, its
// flavours built when a board needs them, by add_flavour()). The first
// image of a series configures a build of it in the cache
// (builds/linux-SERIES-...: the tree extracted, this source tree
// configured against it) and compiles the flavours' kernel libraries
// there; later ones find the image, or, when this build's kernel side
// changed since, compile only what changed. Throws std::invalid_argument
// for a series not brought up or whose tree is absent, BadPatch when the
// build fails (the build's log named).
Image series_image(const std::string &series, std::ostream &log, const std::vector<std::string> &flavours = {});

// What --kernel names: an image by its id (or a unique prefix) or its
// directory, or a kernel tree or a patch to build one from (BadPatch when
// it does not apply; its flavours are built when a board needs them), or a
// kernel series (series_image(); the build's own series is
// own_kernel_dir()). Throws std::invalid_argument when it is none of these. Records the
// image's use (list(), prune()), as build() and add_flavour() do. An
// image's libraries are checked against their sums first
// (drop_damaged_libraries()).
std::filesystem::path resolve(const std::string &what, std::ostream &log);

// Records a library's size, content hash and mtime beside it (LIBRARY.sum), as
// an image's build does before the library is renamed into the image.
void write_library_sum(const std::filesystem::path &library);

// Removes each library of the image in `dir` that is not what its sum
// records (cut short, changed), saying so on `log`: its flavour is then
// built again when a board needs it, as a flavour not built yet is, and
// never loaded as it is (the loader maps it: a short file was SIGBUS).
// The bytes are hashed only when the file was written since its sum.
void drop_damaged_libraries(const std::filesystem::path &dir, std::ostream &log);

Manifest read_manifest(const std::filesystem::path &dir);

// The image this process runs (the global --kernel, which re-runs the
// command with $SCHED_HARNESS_IMAGE naming it), with its directory; nullopt
// for the build's own kernel.
std::optional<Image> image_in_use();
// An image as a report's heading names it: "image ID (patches: a.patch,
// b.patch; config: HZ=1000)", "image ID (Linux 6.12's own build, from
// linux-source-6.12 6.12.118-1)".
std::string describe(const Manifest &manifest);

// Where this build's own kernel side is (an image directory for --kernel:
// its libksched.so and libksched_arm.so).
std::filesystem::path own_kernel_dir();

} // namespace sh::image
