// SPDX-License-Identifier: GPL-2.0
//
// The kernel tree's own boards as a corpus: every .dts under
// arch/arm/boot/dts and arch/arm64/boot/dts whose CPUs carry
// capacity-dmips-mhz must load without error.
//
// Compiling all ~2300 sources would take minutes, so a cheap textual pass
// first keeps the files whose include closure mentions capacity-dmips-mhz;
// the loaded Platform then decides whether the CPUs really carry it.
#include "support.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using namespace sh;

namespace {

class IncludeScanner {
public:
	explicit IncludeScanner(fs::path tree) : tree_(std::move(tree)) {}

	// Whether the file or anything it includes mentions the property.
	bool mentions(const fs::path &file, std::string_view needle)
	{
		std::vector<fs::path> seen;
		return mentions(file, needle, seen);
	}

private:
	bool mentions(const fs::path &file, std::string_view needle, std::vector<fs::path> &seen)
	{
		if (std::find(seen.begin(), seen.end(), file) != seen.end())
			return false;
		seen.push_back(file);
		const auto &text = read(file);
		if (text.find(needle) != std::string::npos)
			return true;
		static const std::regex include(R"(^\s*(?:#include|/include/)\s*["<]([^">]+)[">])",
						std::regex::multiline);
		for (auto it = std::sregex_iterator(text.begin(), text.end(), include);
		     it != std::sregex_iterator(); ++it) {
			auto target = resolve(file, (*it)[1].str());
			if (target && mentions(*target, needle, seen))
				return true;
		}
		return false;
	}

	std::optional<fs::path> resolve(const fs::path &from, const std::string &name)
	{
		for (const auto &dir : {from.parent_path(), tree_ / "scripts/dtc/include-prefixes"}) {
			std::error_code ec;
			auto candidate = fs::weakly_canonical(dir / name, ec);
			if (!ec && fs::is_regular_file(candidate))
				return candidate;
		}
		return std::nullopt;	// dt-bindings headers and the like
	}

	const std::string &read(const fs::path &file)
	{
		auto it = cache_.find(file);
		if (it != cache_.end())
			return it->second;
		std::ifstream in(file);
		std::ostringstream text;
		text << in.rdbuf();
		return cache_.emplace(file, text.str()).first->second;
	}

	fs::path tree_;
	std::map<fs::path, std::string> cache_;
};

} // namespace

BOOST_AUTO_TEST_SUITE(corpus)

BOOST_AUTO_TEST_CASE(every_board_with_capacity_dmips_mhz_loads)
{
	const auto tree = test::kernel_tree();
	IncludeScanner scanner(tree);
	std::vector<fs::path> candidates;
	std::size_t all_sources = 0;
	for (const char *arch : {"arch/arm/boot/dts", "arch/arm64/boot/dts"}) {
		for (const auto &entry : fs::recursive_directory_iterator(tree / arch)) {
			if (entry.path().extension() != ".dts")
				continue;
			all_sources++;
			if (scanner.mentions(fs::weakly_canonical(entry.path()), "capacity-dmips-mhz"))
				candidates.push_back(entry.path());
		}
	}
	std::sort(candidates.begin(), candidates.end());
	BOOST_TEST_REQUIRE(candidates.size() > 100u);

	std::vector<std::string> failures;
	std::size_t with_capacity = 0;
	std::mutex lock;
	std::atomic<std::size_t> next = 0;
	auto worker = [&] {
		for (std::size_t i; (i = next++) < candidates.size();) {
			try {
				auto p = test::load(candidates[i]);
				const bool carries = std::any_of(p.cpus.begin(), p.cpus.end(), [](const auto &c) {
					return c.capacity_dmips_mhz.has_value();
				});
				std::lock_guard guard(lock);
				with_capacity += carries;
			} catch (const dts::Error &e) {
				std::lock_guard guard(lock);
				failures.emplace_back(e.what());
			}
		}
	};
	{
		std::vector<std::jthread> pool;
		for (unsigned n = std::max(2u, std::thread::hardware_concurrency()); n > 0; n--)
			pool.emplace_back(worker);
	}

	std::sort(failures.begin(), failures.end());
	for (const auto &f : failures)
		BOOST_ERROR(f);
	BOOST_TEST_MESSAGE("corpus: " << with_capacity << " boards whose CPUs carry capacity-dmips-mhz "
		"loaded (" << candidates.size() << " candidates of " << all_sources
		<< " .dts files in " << tree.string() << ")");
	BOOST_TEST(failures.empty());
	BOOST_TEST(with_capacity > 100u);
}

BOOST_AUTO_TEST_SUITE_END()
