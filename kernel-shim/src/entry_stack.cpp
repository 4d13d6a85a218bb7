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
//
// While a group runs, timer interrupts of later instants join it
// (set_entry_admission() in kernel.h): whenever every entry waits at a clock
// of at least t, the harness may start the interrupt due first, before t,
// on a stack of its own, so that it runs beside the entries whose code, by
// their clocks, still runs then.
#include "kernel-shim/kernel.h"
#include <kshim/api.h>
#include <kshim/cost.h>

#include <boost/context/detail/fcontext.hpp>

#include "fiber_switch.h"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace {

constexpr std::size_t stack_size = 256 * 1024;	// as the idle stacks'

namespace fcontext = boost::context::detail;

struct Entry {
	int cpu = 0;
	void (*fn)(int cpu) = nullptr;
	fcontext::fcontext_t context = nullptr;	// where the entry waits, once started
	bool started = false;
	bool finished = false;
	unsigned long long clock = 0;		// its CPU's clock where it waits
	std::exception_ptr fault;
};

constexpr unsigned long long never = std::numeric_limits<unsigned long long>::max();

struct Group {
	// a deque: an admitted entry must not move those that wait
	std::deque<Entry> entries;
	Entry *running = nullptr;
	// the running entry lets the runner admit another from this clock on
	unsigned long long admission_from = never;
	// Each CPU's part in the group, for questions asked at every lock:
	// none, an entry not ended, an ended one.
	enum Part : unsigned char { none, waiting, ended_entry };
	std::vector<Part> part;
	void take_part(int cpu)
	{
		const auto c = static_cast<std::size_t>(cpu);
		if (c >= part.size())
			part.resize(c + 1, none);
		part[c] = waiting;
	}
	Part part_of(int cpu) const
	{
		const auto c = static_cast<std::size_t>(cpu);
		return c < part.size() ? part[c] : none;
	}
	// No entry joins any more: the group admits none, or an entry ended
	// (what it left, its CPU's reschedule, the thread it woke, the loop
	// takes only after the group).
	bool closed = false;
	fcontext::fcontext_t runner = nullptr;	// the caller's stack, while an entry runs
	const void *runner_bottom = nullptr;
	std::size_t runner_size = 0;
};

// One group at a time: an entry of a group starts no other.
Group *group;
sh::kshim::EntryAdmission admission;
unsigned long long yields;	// entries that let an earlier one go first
unsigned long long joined;	// entries admitted into a running group
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
	group->runner = sh::kshim::fiber::jump(group->runner, nullptr).fctx;
	finish_switch(fake, &group->runner_bottom, &group->runner_size);
}

// An entry's first frame. It must not return: it ends by switching back
// for good.
void run_entry(fcontext::transfer_t from)
{
	sh::kshim::fiber::take_blocks();
	group->runner = from.fctx;
	finish_switch(nullptr, &group->runner_bottom, &group->runner_size);
	Entry *self = group->running;
	try {
		self->fn(self->cpu);
	} catch (...) {
		self->fault = std::current_exception();
	}
	self->finished = true;
	group->part[static_cast<std::size_t>(self->cpu)] = Group::ended_entry;
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
		if (!next || e.clock < next->clock || (e.clock == next->clock && e.cpu < next->cpu))
			next = &e;
	}
	return next;
}

} // namespace

extern "C" {

void shim_entries_run(const int *cpus, int n, void (*fn)(int cpu), int admit)
{
	if (group)
		throw std::logic_error("an entry of a concurrent group started another group");
	// One group at a time, so one is kept: a run starts groups at most
	// interrupts and wake-ups, and a new one's deque and parts cost
	// allocations each time.
	static Group g;
	g.entries.clear();
	std::fill(g.part.begin(), g.part.end(), Group::none);
	g.running = nullptr;
	g.admission_from = never;
	g.runner = nullptr;
	g.runner_bottom = nullptr;
	g.runner_size = 0;
	g.closed = !admit;
	g.entries.resize(static_cast<std::size_t>(n));
	for (int i = 0; i < n; i++) {
		g.entries[static_cast<std::size_t>(i)].cpu = cpus[i];
		g.entries[static_cast<std::size_t>(i)].fn = fn;
		g.take_part(cpus[i]);
	}
	group = &g;
	// whatever ends the run (a fault, in an entry or in the admission)
	// leaves no group behind
	struct Ended {
		~Ended() { group = nullptr; }
	} ended;
	while (Entry *e = next_entry(g)) {
		if (admission && !g.closed) {
			const auto before = g.entries.size();
			g.admission_from = admission(e->clock);
			if (g.entries.size() != before)
				continue;	// the admitted entry may be the earliest now
		}
		g.running = e;
		char *stack = stack_of(e->cpu);
		if (!e->started) {
			e->started = true;
			e->context = fcontext::make_fcontext(stack + stack_size, stack_size, run_entry);
		}
		void *fake = start_switch(stack, stack_size);
		e->context = sh::kshim::fiber::jump(e->context, nullptr).fctx;
		finish_switch(fake);
		g.running = nullptr;
		if (e->finished) {
			g.closed = true;
			g.admission_from = never;
		}
		// A kernel fault ends the run: the other entries are left where
		// they wait (holding no spinlock), so that nothing runs on after
		// it and the first fault is the one reported.
		if (e->fault)
			std::rethrow_exception(e->fault);
	}
}

void shim_entries_add(int cpu, void (*fn)(int cpu))
{
	if (!group || group->running)
		throw std::logic_error("an entry was admitted outside a group's admission");
	joined++;
	auto &e = group->entries.emplace_back();
	e.cpu = cpu;
	e.fn = fn;
	group->take_part(cpu);
}

int shim_entries_admitting(void)
{
	return admission != nullptr;
}

int shim_entries_active(void)
{
	return group != nullptr;
}

int shim_entry_running_on(int cpu)
{
	return group && group->running && group->running->cpu == cpu;
}

int shim_entry_in_group(int cpu)
{
	return group && group->part_of(cpu) != Group::none;
}

int shim_entry_suspended(int cpu)
{
	return group && group->part_of(cpu) == Group::waiting &&
	       !(group->running && group->running->cpu == cpu);
}

int shim_entry_should_yield(unsigned long long clock)
{
	const Entry *self = group->running;
	if (clock >= group->admission_from)
		return 1;
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

unsigned long long shim_entries_joined(void)
{
	return joined;
}

void shim_entry_yield(unsigned long long clock)
{
	yields++;
	group->running->clock = clock;
	to_runner();
}

} // extern "C"

namespace sh::kshim {

void set_entry_admission(EntryAdmission admit)
{
	admission = std::move(admit);
}

} // namespace sh::kshim
