// Patching the shim's own code at run time (kshim/api.h's
// shim_text_patch()), as the kernel's text_poke() patches its text for
// static keys: the block counter's callback becomes a jump to the
// profiling one when a profile is taken (glue/cost.c).
//
// The region is made writable and not executable while it is written:
// valgrind drops what it translated of a region that loses PROT_EXEC, so
// a run under callgrind sees the patched code too.
#include <kshim/api.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

extern "C" int shim_text_patch(void *addr, unsigned long region, const void *bytes, unsigned long len)
{
	const auto page = sysconf(_SC_PAGESIZE);
	const auto at = reinterpret_cast<std::uintptr_t>(addr);
	const auto start = at & ~static_cast<std::uintptr_t>(region - 1);
	if (page <= 0 || region % static_cast<unsigned long>(page) || at + len > start + region)
		return -EINVAL;
	auto *const base = reinterpret_cast<void *>(start);
	if (mprotect(base, region, PROT_READ | PROT_WRITE))
		return -errno;
	std::memcpy(addr, bytes, len);
	if (mprotect(base, region, PROT_READ | PROT_EXEC))
		return -errno;
	__builtin___clear_cache(static_cast<char *>(addr), static_cast<char *>(addr) + len);
	return 0;
}
