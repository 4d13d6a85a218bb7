// SPDX-License-Identifier: GPL-2.0
//
// A change of stacks with Boost.Context's fcontext, shared by the idle
// calls' stacks (idle_stack.cpp) and the concurrent entries'
// (entry_stack.cpp). AddressSanitizer follows one only when told, before
// and after each switch (its fake stacks, the current stack's bounds);
// without the sanitizer these are nothing. The block counter in %r15
// (kshim/block_counter.h) goes across with the switch: fcontext restores
// the %r15 the other stack had when it left.
#pragma once

#include <kshim/block_counter.h>

#include <boost/context/detail/fcontext.hpp>
#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)	// the sanitizer build (SH_SANITIZE)
#include <sanitizer/common_interface_defs.h>
#define SH_ASAN_FIBERS 1
#endif

namespace sh::kshim::fiber {

namespace fcontext = boost::context::detail;

#ifdef KSHIM_BLOCK_COUNTER_REGISTER
inline unsigned long long carried_blocks;
// At a new stack's first frame, and after each switch.
inline void take_blocks() { kshim_blocks_register_set(carried_blocks); }
#else
inline void take_blocks() {}
#endif

// fcontext's jump_fcontext(), the block counter carried over
inline fcontext::transfer_t jump(fcontext::fcontext_t to, void *data)
{
#ifdef KSHIM_BLOCK_COUNTER_REGISTER
	carried_blocks = kshim_blocks_register();
#endif
	const fcontext::transfer_t from = fcontext::jump_fcontext(to, data);
	take_blocks();
	return from;
}

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
