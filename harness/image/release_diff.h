// SPDX-License-Identifier: GPL-2.0
//
// What differs between two kernels' compiled sources, where no history
// lies between them (two releases' tarballs): the files each compiles
// from its tree (kshim/upstream_files.h, `kernel info`), compared by
// hash and grouped by subsystem, and in each changed C file the functions
// whose text differs. A bisection over releases ends its search here.
#pragma once

#include "harness/image/image.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sh::image {

// A kernel as compiled: its tree and the tree-relative files it compiles,
// with the sha256 of each.
struct CompiledKernel {
	std::filesystem::path tree;
	std::map<std::string, std::string> files;	// path -> sha256
};

// The build's own kernel (no manifest), or an image of another series;
// the files of every flavour built so far. Throws std::invalid_argument
// for an image of the build's series (patches, --tree: `kernel info`
// under it names its changed files).
CompiledKernel compiled_kernel(const std::optional<Manifest> &image);

// The functions of a C file by name, with their text (header and body):
// kernel style, a definition's body opens with "{" alone at the start of a
// line and closes with "}" alone. A name defined twice (#ifdef branches)
// has both texts. Not a C parser: a macro that defines a function is
// named by the macro and its first argument (SYSCALL_DEFINE1(nice, ...)).
std::map<std::string, std::string> functions_of(const std::string &c_source);

struct SubsystemDifference {
	std::string subsystem;	// "scheduler", "energy model", "cpufreq", "OPP", "cpuidle", "thermal", ...
	std::vector<std::string> changed, added, removed;	// tree-relative paths
	// per changed C file, the functions whose text differs, those only in
	// the newer and those only in the older
	struct FileFunctions {
		std::string file;
		std::vector<std::string> changed, added, removed;
	};
	std::vector<FileFunctions> functions;
	std::size_t unchanged = 0;	// files of the subsystem both compile alike
};

// The subsystem a compiled file belongs to, by its directory.
std::string subsystem_of(const std::string &path);

// The subsystems whose compiled files differ from `older` to `newer`, in a
// fixed order (scheduler, energy model, cpufreq, OPP, cpuidle, thermal,
// topology, other).
std::vector<SubsystemDifference> compiled_differences(const CompiledKernel &older, const CompiledKernel &newer);

} // namespace sh::image
