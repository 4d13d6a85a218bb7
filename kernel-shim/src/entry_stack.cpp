// SPDX-License-Identifier: GPL-2.0
//
// CPUs entering the kernel at one instant (their timer interrupts) run
// concurrently in simulated time: each CPU's entry runs on a stack of its
// own, and at each outermost spinlock acquisition (glue/cpu.c's
// kshim_entry_interleave()) the CPU whose clock is earliest goes on, ties
// to the lower CPU. An entry suspended there holds no spinlock, so the
// acquisitions of the group happen in clock order and a lock still means
// mutual exclusion; what one CPU reads between its acquisitions is what
// the others had done up to theirs (docs/kernel-time.md).
//
// The stacks switch with Boost.Context's fcontext, as the idle stacks do
// (src/idle_stack.cpp, which says why not the fiber class); a kernel fault
// (an exception) on an entry's stack is caught there and rethrown by the
// runner on the caller's stack at once.
#include <kshim/api.h>
#include <kshim/cost.h>

#include <boost/context/detail/fcontext.hpp>

#include "fiber_switch.h"

#include <cstddef>
#include <exception>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace {

constexpr std::size_t stack_size = 256 * 1024;	// as the idle stacks'

namespace fcontext = boost::context::detail;

struct Entry {
	int cpu = 0;
	fcontext::fcontext_t context = nullptr;	// where the entry waits, once started
	bool started = false;
	bool finished = false;
	unsigned long long clock = 0;		// its CPU's clock where it waits
	std::exception_ptr fault;
};

struct Group {
	void (*fn)(int cpu) = nullptr;
	std::vector<Entry> entries;
	Entry *running = nullptr;
	fcontext::fcontext_t runner = nullptr;	// the caller's stack, while an entry runs
	const void *runner_bottom = nullptr;
	std::size_t runner_size = 0;
};

// One group at a time: an entry of a group starts no other.
Group *group;
unsigned long long yields;	// entries that let an earlier one go first
// Stacks are kept from group to group: one per CPU taking part.
std::vector<std::unique_ptr<char[]>> stacks;

char *stack_of(int cpu)
{
	const auto index = static_cast<std::size_t>(cpu);
	if (index >= stacks.size())
		stacks.resize(index + 1);
	if (!stacks[index])
		stacks[index] = std::make_unique_for_overwrite<char[]>(stack_size);
	return stacks[index].get();
}

using sh::kshim::fiber::finish_switch;
using sh::kshim::fiber::start_switch;

// From an entry's stack back to the runner's.
void to_runner()
{
	void *fake = start_switch(group->runner_bottom, group->runner_size);
	group->runner = fcontext::jump_fcontext(group->runner, nullptr).fctx;
	finish_switch(fake, &group->runner_bottom, &group->runner_size);
}

// An entry's first frame. It must not return: it ends by switching back
// for good.
void run_entry(fcontext::transfer_t from)
{
	group->runner = from.fctx;
	finish_switch(nullptr, &group->runner_bottom, &group->runner_size);
	Entry *self = group->running;
	try {
		group->fn(self->cpu);
	} catch (...) {
		self->fault = std::current_exception();
	}
	self->finished = true;
	to_runner();
	std::terminate();	// a finished entry is never resumed
}

// The entry that goes on next: the earliest clock, ties to the lower CPU.
Entry *next_entry(Group &g)
{
	Entry *next = nullptr;
	for (auto &e : g.entries) {
		if (e.finished)
			continue;
		if (!e.started)
			e.clock = kshim_cpu_clock(e.cpu);
		if (!next || e.clock < next->clock)
			next = &e;
	}
	return next;
}

} // namespace

extern "C" {

void shim_entries_run(const int *cpus, int n, void (*fn)(int cpu))
{
	if (group)
		throw std::logic_error("an entry of a concurrent group started another group");
	Group g;
	g.fn = fn;
	g.entries.resize(static_cast<std::size_t>(n));
	for (int i = 0; i < n; i++)
		g.entries[static_cast<std::size_t>(i)].cpu = cpus[i];
	group = &g;
	while (Entry *e = next_entry(g)) {
		g.running = e;
		char *stack = stack_of(e->cpu);
		if (!e->started) {
			e->started = true;
			e->context = fcontext::make_fcontext(stack + stack_size, stack_size, run_entry);
		}
		void *fake = start_switch(stack, stack_size);
		e->context = fcontext::jump_fcontext(e->context, nullptr).fctx;
		finish_switch(fake);
		g.running = nullptr;
		// A kernel fault ends the run: the other entries are left where
		// they wait (holding no spinlock), so that nothing runs on after
		// it and the first fault is the one reported.
		if (e->fault) {
			group = nullptr;
			std::rethrow_exception(e->fault);
		}
	}
	group = nullptr;
}

int shim_entry_running_on(int cpu)
{
	return group && group->running && group->running->cpu == cpu;
}

int shim_entry_suspended(int cpu)
{
	if (!group)
		return 0;
	for (const auto &e : group->entries)
		if (e.cpu == cpu && &e != group->running && !e.finished)
			return 1;
	return 0;
}

int shim_entry_should_yield(unsigned long long clock)
{
	const Entry *self = group->running;
	for (const auto &e : group->entries) {
		if (&e == self || e.finished)
			continue;
		const auto other = e.started ? e.clock : kshim_cpu_clock(e.cpu);
		if (other < clock || (other == clock && e.cpu < self->cpu))
			return 1;
	}
	return 0;
}

unsigned long long shim_entry_yields(void)
{
	return yields;
}

void shim_entry_yield(unsigned long long clock)
{
	yields++;
	group->running->clock = clock;
	to_runner();
}

} // extern "C"
