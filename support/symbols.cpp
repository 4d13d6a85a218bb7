// SPDX-License-Identifier: GPL-2.0
#include "support/symbols.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>

namespace sh::support {

namespace {

template <typename T> bool read_at(const std::vector<char> &bytes, std::uint64_t offset, T &out)
{
	if (offset > bytes.size() || bytes.size() - offset < sizeof(T))
		return false;
	std::memcpy(&out, bytes.data() + offset, sizeof(T));
	return true;
}

// A frame no symbol covers, as the kernel prints one: its offset.
std::string offset_text(std::uintptr_t offset)
{
	char text[32];
	std::snprintf(text, sizeof(text), "0x%lx", static_cast<unsigned long>(offset));
	return text;
}

} // namespace

ElfSymbols::ElfSymbols(const std::filesystem::path &file)
{
	std::ifstream in(file, std::ios::binary);
	const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
	Elf64_Ehdr eh;
	if (!read_at(bytes, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr))
		return;
	std::vector<Elf64_Shdr> sections(eh.e_shnum);
	for (unsigned i = 0; i < eh.e_shnum; i++)
		if (!read_at(bytes, eh.e_shoff + i * sizeof(Elf64_Shdr), sections[i]))
			return;
	for (const auto &symtab : sections) {
		if (symtab.sh_type != SHT_SYMTAB || symtab.sh_link >= sections.size())
			continue;
		const auto &strtab = sections[symtab.sh_link];
		for (std::uint64_t off = 0; off + sizeof(Elf64_Sym) <= symtab.sh_size; off += sizeof(Elf64_Sym)) {
			Elf64_Sym sym;
			if (!read_at(bytes, symtab.sh_offset + off, sym))
				break;
			if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value || sym.st_name >= strtab.sh_size)
				continue;
			const char *name = bytes.data() + strtab.sh_offset + sym.st_name;
			const auto room = strtab.sh_size - sym.st_name;
			functions_.push_back({sym.st_value, sym.st_size, std::string(name, strnlen(name, room))});
		}
	}
	std::sort(functions_.begin(), functions_.end(),
		  [](const Function &a, const Function &b) { return a.start < b.start; });
}

std::string_view ElfSymbols::function_at(std::uint64_t offset) const
{
	auto it = std::upper_bound(functions_.begin(), functions_.end(), offset,
				   [](std::uint64_t o, const Function &f) { return o < f.start; });
	if (it == functions_.begin())
		return {};
	--it;
	if (offset >= it->start + std::max<std::uint64_t>(it->size, 1))
		return {};
	return it->name;
}

namespace {

// One table per object, read once: a trace asks for thousands of stacks.
// Called with the lock held.
const ElfSymbols &symbols_of(const char *object)
{
	static std::map<std::string, std::unique_ptr<ElfSymbols>> tables;
	auto &table = tables[object];
	if (!table)
		table = std::make_unique<ElfSymbols>(object);
	return *table;
}

std::mutex symbols_lock;

} // namespace

std::optional<std::string> function_at_address(std::uintptr_t address, std::string_view object_prefix)
{
	Dl_info info;
	if (!dladdr(reinterpret_cast<void *>(address), &info) || !info.dli_fname)
		return std::nullopt;
	if (!std::filesystem::path(info.dli_fname).filename().string().starts_with(object_prefix))
		return std::nullopt;
	const auto offset = address - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
	const std::lock_guard guard(symbols_lock);
	const auto name = symbols_of(info.dli_fname).function_at(offset);
	return name.empty() ? offset_text(offset) : std::string(name);
}

std::vector<std::string> stack_functions(std::string_view object_prefix, std::size_t max)
{
	void *frames[64];
	const int depth = backtrace(frames, 64);
	std::vector<std::string> out;
	for (int i = 1; i < depth && out.size() < max; i++) {
		// a return address: the call is the byte before it
		const auto address = reinterpret_cast<std::uintptr_t>(frames[i]) - 1;
		if (auto name = function_at_address(address, object_prefix))
			out.push_back(std::move(*name));
	}
	return out;
}

} // namespace sh::support
