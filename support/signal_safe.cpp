// SPDX-License-Identifier: GPL-2.0
#include "support/signal_safe.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace sh::support {

SignalSafeText &SignalSafeText::operator<<(std::string_view text) noexcept
{
	const std::size_t room = sizeof(buffer_) - length_;
	const std::size_t n = text.size() < room ? text.size() : room;
	std::memcpy(buffer_ + length_, text.data(), n);
	length_ += n;
	return *this;
}

SignalSafeText &SignalSafeText::decimal(std::uint64_t value) noexcept
{
	char digits[20];
	int n = 0;
	do {
		digits[n++] = static_cast<char>('0' + value % 10);
		value /= 10;
	} while (value);
	char text[20];
	for (int i = 0; i < n; i++)
		text[i] = digits[n - 1 - i];
	return *this << std::string_view(text, static_cast<std::size_t>(n));
}

SignalSafeText &SignalSafeText::hex(std::uintptr_t value) noexcept
{
	char text[2 + 2 * sizeof value];
	int n = sizeof text;
	do {
		text[--n] = "0123456789abcdef"[value & 0xf];
		value >>= 4;
	} while (value);
	text[--n] = 'x';
	text[--n] = '0';
	return *this << std::string_view(text + n, sizeof text - static_cast<std::size_t>(n));
}

SignalSafeText &SignalSafeText::seconds(std::int64_t nanoseconds, int digits) noexcept
{
	if (nanoseconds < 0) {
		*this << "-";
		nanoseconds = -nanoseconds;
	}
	digits = digits < 0 ? 0 : digits > 9 ? 9 : digits;
	std::uint64_t unit = 1'000'000'000;
	for (int i = 0; i < digits; i++)
		unit /= 10;
	const auto ns = static_cast<std::uint64_t>(nanoseconds) + unit / 2;	// rounded
	decimal(ns / 1'000'000'000);
	if (!digits)
		return *this;
	*this << ".";
	std::uint64_t fraction = ns % 1'000'000'000;
	for (int i = 0; i < digits; i++) {
		fraction *= 10;
		const char digit = static_cast<char>('0' + fraction / 1'000'000'000);
		*this << std::string_view(&digit, 1);
		fraction %= 1'000'000'000;
	}
	return *this;
}

void SignalSafeText::write_to(int fd) const noexcept
{
	std::size_t done = 0;
	while (done < length_) {
		const ssize_t n = ::write(fd, buffer_ + done, length_ - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		done += static_cast<std::size_t>(n);
	}
}

namespace {

// The kernel's struct linux_dirent64, as getdents64(2) fills the buffer.
struct Dirent64 {
	std::uint64_t d_ino;
	std::int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[1];	// NUL-terminated, d_reclen long in all
};

constexpr int max_tree_depth = 32;

// Whether `name` is gone.
bool remove_at(int dir, const char *name, int depth) noexcept
{
	if (unlinkat(dir, name, 0) == 0 || errno == ENOENT)
		return true;
	if (depth >= max_tree_depth)
		return false;
	const int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	// entries removed while reading may move the rest: read again from
	// the start until a pass finds nothing left to remove
	for (bool removed = true; removed;) {
		removed = false;
		lseek(fd, 0, SEEK_SET);
		alignas(Dirent64) char buffer[1024];
		for (;;) {
			const long n = getdents64(fd, buffer, sizeof buffer);
			if (n <= 0)
				break;
			for (long at = 0; at < n;) {
				const auto *entry = reinterpret_cast<const Dirent64 *>(buffer + at);
				at += entry->d_reclen;
				if (!std::strcmp(entry->d_name, ".") || !std::strcmp(entry->d_name, ".."))
					continue;
				removed |= remove_at(fd, entry->d_name, depth + 1);
			}
		}
	}
	close(fd);
	return unlinkat(dir, name, AT_REMOVEDIR) == 0;
}

std::int64_t now_ms() noexcept
{
	timespec ts{};
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

} // namespace

void remove_tree_signal_safe(const char *path) noexcept
{
	if (path && *path)
		remove_at(AT_FDCWD, path, 0);
}

bool run_and_read_signal_safe(const char *const argv[], char *out, std::size_t capacity, int timeout_ms) noexcept
{
	if (capacity)
		out[0] = '\0';
	int pipe_fds[2];
	if (pipe(pipe_fds) != 0)
		return false;
	// _Fork(), not fork(): no atfork handlers, which may take locks
	const pid_t pid = _Fork();
	if (pid < 0) {
		close(pipe_fds[0]);
		close(pipe_fds[1]);
		return false;
	}
	if (pid == 0) {
		const int null = open("/dev/null", O_RDWR);
		dup2(null, STDIN_FILENO);
		dup2(null, STDERR_FILENO);
		dup2(pipe_fds[1], STDOUT_FILENO);
		execve(argv[0], const_cast<char *const *>(argv), environ);
		_exit(127);
	}
	close(pipe_fds[1]);
	std::size_t length = 0;
	const auto deadline = now_ms() + timeout_ms;
	bool timed_out = false;
	for (;;) {
		const auto left = deadline - now_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		pollfd wait_for{pipe_fds[0], POLLIN, 0};
		const int ready = poll(&wait_for, 1, static_cast<int>(left));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0) {
			timed_out = ready == 0;
			break;
		}
		char chunk[512];
		const ssize_t n = read(pipe_fds[0], chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n && length + 1 < capacity; i++)
			out[length++] = chunk[i];
	}
	if (capacity)
		out[length] = '\0';
	close(pipe_fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool dynamic_function_at_signal_safe(const char *file, std::uint64_t offset, char *out, std::size_t capacity) noexcept
{
	if (!capacity)
		return false;
	out[0] = '\0';
	const int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat info {};
	if (fstat(fd, &info) != 0 || info.st_size < static_cast<off_t>(sizeof(Elf64_Ehdr))) {
		close(fd);
		return false;
	}
	const auto size = static_cast<std::size_t>(info.st_size);
	void *map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	const auto *bytes = static_cast<const unsigned char *>(map);
	const auto *header = static_cast<const Elf64_Ehdr *>(map);
	auto within = [size](std::uint64_t at, std::uint64_t length) { return at <= size && length <= size - at; };
	bool found = false;
	if (!std::memcmp(header->e_ident, ELFMAG, SELFMAG) && header->e_ident[EI_CLASS] == ELFCLASS64 &&
	    header->e_shentsize == sizeof(Elf64_Shdr) &&
	    within(header->e_shoff, std::uint64_t{header->e_shnum} * sizeof(Elf64_Shdr))) {
		const auto *sections = reinterpret_cast<const Elf64_Shdr *>(bytes + header->e_shoff);
		for (unsigned i = 0; i < header->e_shnum && !found; i++) {
			const auto &symtab = sections[i];
			if (symtab.sh_type != SHT_DYNSYM || symtab.sh_link >= header->e_shnum ||
			    !within(symtab.sh_offset, symtab.sh_size))
				continue;
			const auto &strtab = sections[symtab.sh_link];
			if (!within(strtab.sh_offset, strtab.sh_size))
				continue;
			const auto *symbols = reinterpret_cast<const Elf64_Sym *>(bytes + symtab.sh_offset);
			for (std::uint64_t k = 0; k < symtab.sh_size / sizeof(Elf64_Sym); k++) {
				const auto &symbol = symbols[k];
				const auto type = ELF64_ST_TYPE(symbol.st_info);
				if ((type != STT_FUNC && type != STT_GNU_IFUNC) || symbol.st_shndx == SHN_UNDEF ||
				    offset < symbol.st_value ||
				    (symbol.st_size ? offset - symbol.st_value >= symbol.st_size : offset != symbol.st_value) ||
				    symbol.st_name >= strtab.sh_size)
					continue;
				const char *name = reinterpret_cast<const char *>(bytes + strtab.sh_offset + symbol.st_name);
				const std::size_t room = strtab.sh_size - symbol.st_name;
				std::size_t length = 0;
				while (length < room && length + 1 < capacity && name[length])
					length++;
				std::memcpy(out, name, length);
				out[length] = '\0';
				found = length > 0;
				break;
			}
		}
	}
	munmap(map, size);
	return found;
}

void find_in_path(const char *program, char *out, std::size_t capacity)
{
	if (capacity)
		out[0] = '\0';
	const char *path = std::getenv("PATH");
	std::string_view dirs(path && *path ? path : "/usr/bin:/bin");
	while (!dirs.empty()) {
		const auto colon = dirs.find(':');
		const auto dir = dirs.substr(0, colon);
		dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
		const std::string candidate = std::string(dir.empty() ? "." : dir) + "/" + program;
		if (candidate.size() < capacity && access(candidate.c_str(), X_OK) == 0) {
			std::memcpy(out, candidate.c_str(), candidate.size() + 1);
			return;
		}
	}
}

} // namespace sh::support
