// Each CPU's idle call (idle.c's cpuidle_idle_call()) runs on a stack of
// its own, the idle task's: the wait for an interrupt at its bottom (WFI,
// a PSCI CPU_SUSPEND) returns to the harness, and the interrupt resumes
// it, so that the kernel code around the wait -- cpuidle_enter_state()'s
// residency accounting, the governor's reflect step -- runs unchanged, at
// the time it runs on the board.
//
// The switch is Boost.Context's fcontext (make_fcontext()/jump_fcontext(),
// the layer its fiber and continuation classes are built on): ucontext's
// swapcontext() saves and restores the signal mask, a system call each
// way, and the default scenario made 71,000 of them per simulated 10 s,
// as much system time as the whole simulation's user time. The fiber
// class itself is not used: destroying a suspended fiber unwinds its
// stack, and a call left waiting by an earlier boot must be dropped
// without running anything of it (6.12's scoped guards are cleanups).
#include <kshim/api.h>

#include <boost/context/detail/fcontext.hpp>

#include "fiber_switch.h"

#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <sys/mman.h>
#include <stdexcept>
#include <utility>
#include <vector>

namespace {

// Deeper than any kernel stack (16 KB on arm64): the code is built for the
// host, and a WARN's report or a fault's exception unwinds on this stack.
constexpr std::size_t stack_size = 256 * 1024;

namespace fcontext = boost::context::detail;

// A stack with an inaccessible page below it: kernel code that overflows
// it faults there, and is reported as an oops, rather than writing over
// whatever the heap put beneath. Not zeroed: a stack is written before it
// is read, and zeroing 256 KB per CPU was a page fault per 4 KB at every
// boot (fresh anonymous pages are touched only as the stack grows).
class GuardedStack {
public:
	GuardedStack()
	{
		void *map = mmap(nullptr, guard_size + stack_size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (map == MAP_FAILED)
			throw std::bad_alloc();
		mprotect(map, guard_size, PROT_NONE);
		base_ = static_cast<char *>(map);
	}
	~GuardedStack() { munmap(base_, guard_size + stack_size); }
	GuardedStack(const GuardedStack &) = delete;
	GuardedStack &operator=(const GuardedStack &) = delete;

	char *get() const { return base_ + guard_size; }	// the lowest usable byte

private:
	static constexpr std::size_t guard_size = 64 * 1024;	// any page size up to 64 KB
	char *base_;
};

struct IdleStack {
	fcontext::fcontext_t caller = nullptr;	// inside the call: where the harness switched from
	fcontext::fcontext_t call = nullptr;	// outside: where the call waits
	GuardedStack stack;
	void (*fn)(void *) = nullptr;
	void *arg = nullptr;
	bool returned = true;
	std::exception_ptr fault;
	// the caller's stack, as AddressSanitizer reports it on the first switch
	const void *caller_bottom = nullptr;
	std::size_t caller_size = 0;
};

using sh::kshim::fiber::finish_switch;
using sh::kshim::fiber::start_switch;

// How many idle calls run now, one inside another's caller.
int running_calls;

// The caller runs the idle call's stack until it yields or returns.
void switch_to_call(IdleStack &s)
{
	void *fake = start_switch(s.stack.get(), stack_size);
	running_calls++;
	s.call = sh::kshim::fiber::jump(s.call, &s).fctx;
	running_calls--;
	finish_switch(fake);
}

// By CPU; a CPU's stack is made the first time it idles.
std::vector<std::unique_ptr<IdleStack>> stacks;

[[gnu::noinline, gnu::cold]] IdleStack &new_stack_of(int cpu)
{
	if (cpu < 0)
		throw std::logic_error("idle stack of a negative CPU");
	const auto index = static_cast<std::size_t>(cpu);
	if (index >= stacks.size())
		stacks.resize(index + 1);
	if (!stacks[index])
		stacks[index] = std::make_unique<IdleStack>();
	return *stacks[index];
}

// Three times per idle call: the making of a stack stays out of line.
IdleStack &stack_of(int cpu)
{
	const auto index = static_cast<std::size_t>(cpu);
	if (index < stacks.size() && stacks[index]) [[likely]]
		return *stacks[index];
	return new_stack_of(cpu);
}

// The stack's first frame: runs one idle call after another. A kernel
// fault (an exception) is caught here and rethrown on the caller's stack:
// exceptions cannot cross a context switch. Between calls the stack waits
// here, switched out, and the next call resumes it (an fcontext's function
// must not return, and making a context per call was its own cost).
void run_call(fcontext::transfer_t from)
{
	sh::kshim::fiber::take_blocks();
	auto *s = static_cast<IdleStack *>(from.data);
	s->caller = from.fctx;
	finish_switch(nullptr, &s->caller_bottom, &s->caller_size);
	for (;;) {
		try {
			s->fn(s->arg);
		} catch (...) {
			s->fault = std::current_exception();
		}
		s->returned = true;
		void *fake = start_switch(s->caller_bottom, s->caller_size);
		s->caller = sh::kshim::fiber::jump(s->caller, s).fctx;
		finish_switch(fake, &s->caller_bottom, &s->caller_size);
	}
}

int back_in_caller(IdleStack &s)
{
	if (s.fault) {
		auto fault = std::exchange(s.fault, nullptr);
		s.returned = true;
		std::rethrow_exception(fault);
	}
	return s.returned ? 0 : 1;
}

} // namespace

extern "C" {

int shim_idle_stack_call(int cpu, void (*fn)(void *), void *arg)
{
	IdleStack &s = stack_of(cpu);
	// The stack waits between calls in run_call(); a call left waiting by
	// an earlier boot is dropped: the stack starts again, its frames are
	// overwritten, nothing of them runs.
	if (!s.call || !s.returned)
		s.call = fcontext::make_fcontext(s.stack.get() + stack_size, stack_size, run_call);
	s.fn = fn;
	s.arg = arg;
	s.returned = false;
	switch_to_call(s);
	return back_in_caller(s);
}

int shim_idle_stack_resume(int cpu)
{
	IdleStack &s = stack_of(cpu);
	if (s.returned)
		throw std::logic_error("resuming an idle call that is not waiting");
	switch_to_call(s);
	return back_in_caller(s);
}

int shim_idle_stack_running(void)
{
	return running_calls > 0;
}

void shim_idle_stack_yield(int cpu)
{
	IdleStack &s = stack_of(cpu);
	void *fake = start_switch(s.caller_bottom, s.caller_size);
	s.caller = sh::kshim::fiber::jump(s.caller, &s).fctx;
	finish_switch(fake, &s.caller_bottom, &s.caller_size);
}

} // extern "C"
