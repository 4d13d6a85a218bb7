// SPDX-License-Identifier: GPL-2.0
#include "support.h"
#include "tree_features.h"

#include <cstdio>

#include <vector>

namespace sh::test {

std::filesystem::path fixture(const std::string &relative)
{
	return std::filesystem::path(SH_TEST_FIXTURES) / relative;
}

std::filesystem::path kernel_tree()
{
	return SH_TEST_KERNEL_TREE;
}

bool tree_at_least(int major, int minor)
{
	int tree_major = 0, tree_minor = 0;

	std::sscanf(SH_TEST_KERNEL_VERSION, "%d.%d", &tree_major, &tree_minor);
	return tree_major != major ? tree_major > major : tree_minor >= minor;
}

std::string kernel_series()
{
	std::string version = SH_TEST_KERNEL_VERSION;
	auto first = version.find('.');
	auto second = version.find('.', first + 1);
	return version.substr(0, second);
}

dts::Platform load(const std::filesystem::path &file,
		   std::initializer_list<std::filesystem::path> overlays)
{
	dts::LoadOptions options;
	options.kernel_tree = kernel_tree();
	options.overlays.assign(overlays.begin(), overlays.end());
	return dts::load_platform(file, options);
}

dts::Platform load_board(const std::string &name,
			 std::initializer_list<std::filesystem::path> overlays)
{
	return load(dts::resolve_board(name, kernel_tree()), overlays);
}

support::ToolResult run_cli(std::initializer_list<std::string> args)
{
	return run_cli(std::span<const std::string>(args.begin(), args.size()));
}

support::ToolResult run_cli(std::span<const std::string> args)
{
	std::vector<std::string> argv{SH_TEST_HARNESS_BIN};
	argv.insert(argv.end(), args.begin(), args.end());
	return support::run_tool(argv);
}

} // namespace sh::test
