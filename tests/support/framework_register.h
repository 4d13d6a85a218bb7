// SPDX-License-Identifier: GPL-2.0
//
// Boost.Test's %r15 given back to it (test_main.cpp). With the block
// counter in %r15 (cmake/BlockCounter.cmake) the project's objects never
// save the register and kernel code adds to it, so code of the project
// that Boost.Test calls and that runs kernel code must return with the
// framework's value: each test case is wrapped by test_main.cpp; a global
// fixture that runs kernel code (its setup and teardown are called by the
// framework, not by a test case) holds one of these in its constructor
// and destructor.
#pragma once

#include <kshim/block_counter.h>

namespace sh::test {

#ifdef KSHIM_BLOCK_COUNTER_REGISTER
class FrameworkRegister {
public:
	FrameworkRegister() : saved_(kshim_blocks_register()) {}
	~FrameworkRegister() { kshim_blocks_register_set(saved_); }
	FrameworkRegister(const FrameworkRegister &) = delete;
	FrameworkRegister &operator=(const FrameworkRegister &) = delete;

private:
	unsigned long long saved_;
};
#else
struct FrameworkRegister {};
#endif

} // namespace sh::test
