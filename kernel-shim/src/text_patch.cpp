// Patching the shim's own code at run time (kshim/api.h's
// shim_text_patch()), as the kernel's text_poke() patches its text for
// static keys: when a profile is taken (glue/cost.c), the block counter's
// callback becomes a jump to the profiling one, or each site of the
// counter in a register a call to it.
//
// A region of its own is made writable and not executable while it is
// written: valgrind drops what it translated of a region that loses
// PROT_EXEC, so a run under callgrind sees the patched code too. The
// sites share their pages with other code, which may be running (the
// patch's caller): those stay executable, and valgrind is told by its
// client request.
#include <kshim/api.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define SH_VALGRIND_DISCARD(addr, len) VALGRIND_DISCARD_TRANSLATIONS(addr, len)
#else
// without valgrind's headers there is no valgrind to tell
#define SH_VALGRIND_DISCARD(addr, len) ((void)(addr), (void)(len))
#endif

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace {

// Writes len bytes at addr, inside [start, start + size), which is
// writable with `writable` meanwhile and executable again after.
int write_code(std::uintptr_t start, std::size_t size, int writable, void *addr, const void *bytes,
	       unsigned long len)
{
	auto *const base = reinterpret_cast<void *>(start);
	if (mprotect(base, size, writable))
		return -errno;
	std::memcpy(addr, bytes, len);
	if (mprotect(base, size, PROT_READ | PROT_EXEC))
		return -errno;
	__builtin___clear_cache(static_cast<char *>(addr), static_cast<char *>(addr) + len);
	return 0;
}

} // namespace

extern "C" int shim_text_patch(void *addr, unsigned long region, const void *bytes, unsigned long len)
{
	const auto page = sysconf(_SC_PAGESIZE);
	const auto at = reinterpret_cast<std::uintptr_t>(addr);
	const auto start = at & ~static_cast<std::uintptr_t>(region - 1);
	if (page <= 0 || region % static_cast<unsigned long>(page) || at + len > start + region)
		return -EINVAL;
	return write_code(start, region, PROT_READ | PROT_WRITE, addr, bytes, len);
}

extern "C" int shim_text_patch_live(void *addr, const void *bytes, unsigned long len)
{
	const auto page = sysconf(_SC_PAGESIZE);
	if (page <= 0)
		return -EINVAL;
	const auto mask = static_cast<std::uintptr_t>(page) - 1;
	const auto at = reinterpret_cast<std::uintptr_t>(addr);
	const auto start = at & ~mask;
	const auto end = (at + len + mask) & ~mask;
	if (const int err = write_code(start, end - start, PROT_READ | PROT_WRITE | PROT_EXEC, addr, bytes, len))
		return err;
	SH_VALGRIND_DISCARD(addr, len);
	return 0;
}
