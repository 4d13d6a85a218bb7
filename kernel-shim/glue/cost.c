// SPDX-License-Identifier: GPL-2.0
/*
 * The counter behind kshim/cost.h. GCC calls __sanitizer_cov_trace_pc() at
 * the head of every basic block of the instrumented objects (the tree's
 * files and the export units; kernel-shim/CMakeLists.txt), as a KCOV
 * kernel does. This file is not instrumented.
 */
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/threads.h>
#include <linux/types.h>
#include <linux/stdarg.h>

#include <kshim/cost.h>
#include "shim.h"

struct cpu_cost {
	u64 ps_per_block;
	struct kshim_cost_counts counts;
} ____cacheline_aligned;

static struct cpu_cost cpu_cost[NR_CPUS];
static u64 blocks_executed;
/*
 * The blocks since the last mark ran on credit_cpu as cost_kind: the
 * callback only counts, and each change of CPU, kind or rate credits the
 * blocks before it (kshim_cost_mark()), at one multiplication each.
 */
static u64 credited;
static int credit_cpu;
static int cost_kind;		/* the kind counted now; NONE: nothing */

void notrace __sanitizer_cov_trace_pc(void);
void notrace __sanitizer_cov_trace_pc(void)
{
	blocks_executed++;
}

void kshim_cost_mark(void)
{
	u64 n = blocks_executed - credited;

	if (n && cost_kind != KSHIM_COST_NONE) {
		struct cpu_cost *c = &cpu_cost[credit_cpu];

		c->counts.blocks[cost_kind] += n;
		c->counts.ps[cost_kind] += n * c->ps_per_block;
	}
	credited = blocks_executed;
	credit_cpu = shim_cpu;
}

int kshim_cost_enter(int kind)
{
	int previous = cost_kind;

	if (previous != KSHIM_COST_NONE && previous != kind) {
		kshim_cost_mark();
		cost_kind = kind;
		cpu_cost[shim_cpu].counts.entries[kind]++;
	}
	return previous;
}

void kshim_cost_leave(int previous)
{
	if (previous != cost_kind) {
		kshim_cost_mark();
		cost_kind = previous;
	}
}

int kshim_cost_begin(int kind)
{
	int previous = cost_kind;

	kshim_cost_mark();
	cost_kind = kind;
	return previous;
}

void kshim_cost_end(int previous)
{
	kshim_cost_mark();
	cost_kind = previous;
}

void kshim_cost_set_rate(int cpu, unsigned long long ps_per_block)
{
	kshim_cost_mark();
	cpu_cost[cpu].ps_per_block = ps_per_block;
}

void kshim_cost_read(int cpu, struct kshim_cost_counts *out)
{
	kshim_cost_mark();
	*out = cpu_cost[cpu].counts;
	out->blocks[KSHIM_COST_NONE] = 0;
	out->ps[KSHIM_COST_NONE] = 0;
}

unsigned long long kshim_cost_blocks_executed(void)
{
	return blocks_executed;
}
