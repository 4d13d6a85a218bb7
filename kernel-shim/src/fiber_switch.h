// SPDX-License-Identifier: GPL-2.0
//
// AddressSanitizer follows a change of stacks only when told, before and
// after each switch (its fake stacks, the current stack's bounds); without
// the sanitizer these are nothing. Shared by the stacks that switch with
// Boost.Context's fcontext: the idle calls' (idle_stack.cpp) and the
// concurrent entries' (entry_stack.cpp).
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)	// the sanitizer build (SH_SANITIZE)
#include <sanitizer/common_interface_defs.h>
#define SH_ASAN_FIBERS 1
#endif

namespace sh::kshim::fiber {

inline void *start_switch(const void *bottom, std::size_t size)
{
	void *fake = nullptr;
#ifdef SH_ASAN_FIBERS
	__sanitizer_start_switch_fiber(&fake, bottom, size);
#else
	(void)bottom, (void)size;
#endif
	return fake;
}

inline void finish_switch(void *fake, const void **from_bottom = nullptr, std::size_t *from_size = nullptr)
{
#ifdef SH_ASAN_FIBERS
	__sanitizer_finish_switch_fiber(fake, from_bottom, from_size);
#else
	(void)fake, (void)from_bottom, (void)from_size;
#endif
}

} // namespace sh::kshim::fiber
