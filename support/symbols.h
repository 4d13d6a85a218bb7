// SPDX-License-Identifier: GPL-2.0
//
// Function names for addresses in a loaded shared object, from its ELF
// symbol table (.symtab, which has the static functions the dynamic one
// lacks: load_balance(), detach_tasks(), ...), as a stack trace names
// kernel frames. What ftrace's stacktrace option and the kernel's
// decode_stacktrace.sh (addr2line) print.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sh::support {

class ElfSymbols {
public:
	// Reads `file`'s function symbols; none when it cannot be read or has
	// no symbol table (a stripped file).
	explicit ElfSymbols(const std::filesystem::path &file);

	// The function holding `offset` (an address minus the object's load
	// base); empty when no symbol covers it.
	std::string_view function_at(std::uint64_t offset) const;
	bool empty() const { return functions_.empty(); }

private:
	struct Function {
		std::uint64_t start, size;
		std::string name;
	};
	std::vector<Function> functions_;	// by start
};

// The function holding `address` in a loaded shared object whose file name
// starts with `object_prefix`, or the offset in it that no symbol covers;
// nothing when no such object holds the address.
std::optional<std::string> function_at_address(std::uintptr_t address, std::string_view object_prefix);

// The functions of the calling thread's stack, innermost first, of the
// frames inside shared objects whose file name starts with `object_prefix`
// (libksched: the kernel image), at most `max` of them.
std::vector<std::string> stack_functions(std::string_view object_prefix, std::size_t max);

} // namespace sh::support
