// SPDX-License-Identifier: GPL-2.0
//
// Kernel images: the kernel side (upstream objects, fake arch, glue and
// the C++ runtime: libksched.so and libksched_arm.so) built for the tree
// with a patch series applied, cached by content and loaded by the one
// sched-harness binary at run time (--kernel).
//
// An image is built from this build's own compile and link commands
// (compile_commands.json, link.txt): the patches go into an overlay of the
// tree that copies only the files they touch (the rest are symlinks into
// the tree, which is never written), and only the objects whose
// preprocessed input the patches change are compiled again; every other
// object is this build's own. Then the images link as the build links
// them, and their undefined symbols are checked against the glue's lists.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace sh::image {

// A patch that does not apply, a patched file that does not compile: the
// user's input (the message names the file and the hunk, or the compiler's
// error).
class BadPatch : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

// The build itself failed (a missing build directory, a tool that is not
// there): not the user's patch.
class BuildError : public std::runtime_error {
public:
	using std::runtime_error::runtime_error;
};

struct Manifest {
	std::string id;
	std::string tree;			// the tree the patches apply to
	std::vector<std::string> patches;	// their file names, in order
	std::vector<std::string> files;		// the tree's files they change
	std::vector<std::string> recompiled;	// objects compiled again
	std::string created;			// UTC, ISO 8601
};

struct Image {
	std::filesystem::path dir;	// holds libksched.so, libksched_arm.so, manifest.json
	Manifest manifest;
	bool cached = false;		// built before, taken from the cache
};

// $SCHED_HARNESS_CACHE, else $XDG_CACHE_HOME/sched-harness, else
// ~/.cache/sched-harness.
std::filesystem::path cache_dir();

// Builds (or finds in the cache) the image of this build's tree with the
// patches applied in order (unified diffs, git format-patch files, mbox
// series). Progress goes to `log`.
Image build(const std::vector<std::filesystem::path> &patches, std::ostream &log);

// The images in the cache, newest first.
std::vector<Image> list();

// An image named by its id (or a unique prefix) or by its directory.
// Throws BadPatch-free std::invalid_argument naming what is there.
std::filesystem::path resolve(const std::string &id_or_dir);

Manifest read_manifest(const std::filesystem::path &dir);

} // namespace sh::image
