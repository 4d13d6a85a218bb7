// SPDX-License-Identifier: GPL-2.0
//
// What a fatal signal's handler may use (signal-safety(7)): text built in
// a fixed buffer, a directory tree removed with system calls alone, a
// host tool run and read with _Fork(), execve() and poll(). Nothing here
// allocates or takes a lock, so a fault inside malloc() or while a mutex
// is held is still reported. What needs the heap (finding a tool in PATH,
// listing the loaded objects) is done beforehand, outside the handler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sh::support {

// A line of text of bounded size; what does not fit is cut.
class SignalSafeText {
public:
	SignalSafeText &operator<<(std::string_view text) noexcept;
	SignalSafeText &operator<<(const char *text) noexcept { return *this << std::string_view(text ? text : "(null)"); }
	SignalSafeText &decimal(std::uint64_t value) noexcept;
	SignalSafeText &hex(std::uintptr_t value) noexcept;	// 0x-prefixed
	// `nanoseconds` as seconds with `digits` (0-9) decimals, rounded
	SignalSafeText &seconds(std::int64_t nanoseconds, int digits) noexcept;

	std::string_view view() const noexcept { return {buffer_, length_}; }
	void clear() noexcept { length_ = 0; }
	void write_to(int fd) const noexcept;

private:
	char buffer_[2048];
	std::size_t length_ = 0;
};

// Removes `path` and everything under it, with openat(), getdents64(),
// unlinkat() and a bounded depth; errors are ignored.
void remove_tree_signal_safe(const char *path) noexcept;

// Runs `argv` (argv[0] an absolute path) with standard input and error on
// /dev/null and puts its standard output, cut to `capacity` - 1 bytes and
// NUL-terminated, in `out`. The tool is killed after `timeout_ms`.
// Returns whether it ran and exited 0.
bool run_and_read_signal_safe(const char *const argv[], char *out, std::size_t capacity, int timeout_ms) noexcept;

// The name of the function of `file`'s dynamic symbol table (.dynsym)
// that covers `offset` (an address less the object's load bias), as
// dladdr() finds it, in `out`; false when none does or the file cannot be
// read. The file is mapped and scanned: no heap.
bool dynamic_function_at_signal_safe(const char *file, std::uint64_t offset, char *out, std::size_t capacity) noexcept;

// The absolute path of `program` in PATH, in `out` (empty when it is not
// found). Not for a handler: call it beforehand.
void find_in_path(const char *program, char *out, std::size_t capacity);

} // namespace sh::support
