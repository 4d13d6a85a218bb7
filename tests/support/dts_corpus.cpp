// SPDX-License-Identifier: GPL-2.0
#include "dts_corpus.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>

namespace fs = std::filesystem;

namespace sh::test {

namespace {

// Whether a source or anything it includes mentions a word. Each file is
// read and scanned once: a .dtsi shared by a hundred boards is not scanned
// again for each of them.
class IncludeScanner {
public:
	IncludeScanner(fs::path tree, std::string needle) : tree_(std::move(tree)), needle_(std::move(needle)) {}

	bool mentions(const fs::path &file)
	{
		if (auto known = verdicts_.find(file); known != verdicts_.end())
			return known->second;
		verdicts_[file] = false;	// an include cycle ends here
		bool found = false;
		const auto text = read(file);
		if (text.find(needle_) != std::string::npos)
			found = true;
		for (const auto &name : includes(text)) {
			if (found)
				break;
			if (auto target = resolve(file, name))
				found = mentions(*target);
		}
		verdicts_[file] = found;
		return found;
	}

private:
	// The names of `#include "x"`, `#include <x>` and `/include/ "x"` lines.
	static std::vector<std::string> includes(const std::string &text)
	{
		std::vector<std::string> names;
		std::istringstream lines(text);
		for (std::string line; std::getline(lines, line);) {
			std::string_view rest(line);
			auto skip_blanks = [&] {
				while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
					rest.remove_prefix(1);
			};
			skip_blanks();
			bool directive = false;
			for (std::string_view word : {"#include", "/include/"})
				if (rest.starts_with(word)) {
					rest.remove_prefix(word.size());
					directive = true;
				}
			if (!directive)
				continue;
			skip_blanks();
			if (rest.empty() || (rest.front() != '"' && rest.front() != '<'))
				continue;
			rest.remove_prefix(1);
			const auto end = rest.find_first_of("\">");
			if (end != std::string_view::npos && end > 0)
				names.emplace_back(rest.substr(0, end));
		}
		return names;
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

	static std::string read(const fs::path &file)
	{
		std::ifstream in(file);
		std::ostringstream text;
		text << in.rdbuf();
		return text.str();
	}

	fs::path tree_;
	std::string needle_;
	std::map<fs::path, bool> verdicts_;
};

} // namespace

DtsCorpus dts_corpus(const fs::path &tree)
{
	IncludeScanner scanner(tree, "capacity-dmips-mhz");
	DtsCorpus corpus;
	for (const char *arch : {"arch/arm/boot/dts", "arch/arm64/boot/dts"}) {
		for (const auto &entry : fs::recursive_directory_iterator(tree / arch)) {
			if (entry.path().extension() != ".dts")
				continue;
			corpus.all_sources++;
			if (scanner.mentions(fs::weakly_canonical(entry.path())))
				corpus.candidates.push_back(entry.path());
		}
	}
	std::sort(corpus.candidates.begin(), corpus.candidates.end());
	return corpus;
}

void in_parallel(std::size_t count, const std::function<void(std::size_t)> &one)
{
	std::atomic<std::size_t> next = 0;
	std::vector<std::jthread> pool;
	for (unsigned n = std::max(2u, std::thread::hardware_concurrency()); n > 0; n--)
		pool.emplace_back([&] {
			for (std::size_t i; (i = next++) < count;)
				one(i);
		});
}

} // namespace sh::test
