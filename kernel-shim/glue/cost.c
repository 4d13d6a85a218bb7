// SPDX-License-Identifier: GPL-2.0
/*
 * The counter behind kshim/cost.h. GCC calls __sanitizer_cov_trace_pc() at
 * the head of every basic block of the instrumented objects (the tree's
 * files and the export units; kernel-shim/CMakeLists.txt), as a KCOV
 * kernel does; or, with the counter in a register
 * (KSHIM_BLOCK_COUNTER_REGISTER, cmake/BlockCounter.cmake), each call is an
 * add to %r15 instead. This file is not instrumented.
 */
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/threads.h>
#include <linux/types.h>
#include <linux/math64.h>
#include <kshim/compat/stdarg.h>
#include <linux/string.h>
#include <linux/stringify.h>

#include <kshim/block_counter.h>
#include <kshim/cost.h>
#include <kshim/sched.h>
#include "shim.h"

struct cpu_cost {
	u64 ps_per_block;
	struct kshim_cost_counts counts;
	/*
	 * The CPU's own clock (kshim_cpu_clock()): clock_ns when its counted
	 * code had taken clock_ps, advancing with what it takes since; never
	 * behind the harness's time.
	 */
	u64 ps_total;
	u64 clock_ns, clock_ps;
	/* A harness time the clock was found at or past: it never goes back,
	 * so at that time it need not be looked at again. */
	u64 caught_up_at;
	u64 spin_ns;		/* waiting for locks others held (kshim_lock_wait()) */
} ____cacheline_aligned;

static struct cpu_cost cpu_cost[NR_CPUS];
#if defined(KSHIM_BLOCK_COUNTER_NONE)
/* Nothing counts: a baseline build (cmake/BlockCounter.cmake). */
static inline u64 blocks_executed(void)
{
	return 0;
}
#elif defined(KSHIM_BLOCK_COUNTER_REGISTER)
static inline u64 blocks_executed(void)
{
	return kshim_blocks_register();
}
#else
/* What every basic block adds one to; hidden: the x86-64 callback below
 * adds to it by its address relative to its own. */
u64 kshim_blocks_executed __attribute__((visibility("hidden")));

static inline u64 blocks_executed(void)
{
	return kshim_blocks_executed;
}
#endif
/*
 * The blocks since the last mark ran on credit_cpu as cost_kind: the
 * callback only counts, and each change of CPU, kind or rate credits the
 * blocks before it (kshim_cost_mark()), at one multiplication each.
 */
static u64 credited;
static int credit_cpu;
static int cost_kind;		/* the kind counted now; NONE: nothing */

/*
 * The profile (kshim_cost_profile_start()): kernel-time blocks by the site
 * that executed them, the return address of the callback. An open-addressed
 * table: an image has some 15,000 instrumented sites, and a site that finds
 * the table full is counted as lost rather than growing it from here.
 */
#define PROFILE_BITS	17
#define PROFILE_SIZE	(1UL << PROFILE_BITS)

static struct kshim_cost_site profile[PROFILE_SIZE];
static unsigned long long profile_lost;

/* General registers only: with the counter in a register it runs from a
 * call written over a site, which saves only those. */
static void notrace __maybe_unused __attribute__((target("general-regs-only"))) profile_site(unsigned long pc)
{
	unsigned long i = (pc * 0x9E3779B97F4A7C15UL) >> (64 - PROFILE_BITS);
	unsigned long probes;

	if (cost_kind == KSHIM_COST_NONE)
		return;
	for (probes = 0; probes < PROFILE_SIZE; probes++, i = (i + 1) & (PROFILE_SIZE - 1)) {
		struct kshim_cost_site *site = &profile[i];

		if (site->pc == pc) {
			site->blocks++;
			return;
		}
		if (!site->pc) {
			site->pc = pc;
			site->blocks = 1;
			return;
		}
	}
	profile_lost++;
}

#if defined(KSHIM_BLOCK_COUNTER_NONE)
static int patch_callback(void)
{
	return -EOPNOTSUPP;
}
#elif defined(KSHIM_BLOCK_COUNTER_REGISTER)
/*
 * Each site is "addq $1, %r15" in seven bytes, listed in sh_block_sites
 * relative to its entry (kernel-shim/plugin/block_counter.cpp). A profile
 * writes over each a call to the trampoline and a two-byte nop, as ftrace
 * writes its calls over the nops __mcount_loc lists. The compiler saw an
 * add that clobbers the flags: the trampoline adds the block itself and
 * saves every register the C below may use (the sites' objects keep no
 * red zone, so the call's push overwrites nothing).
 */
extern const s32 __start_sh_block_sites[] __attribute__((weak, visibility("hidden")));
extern const s32 __stop_sh_block_sites[] __attribute__((weak, visibility("hidden")));

/* The trampoline returns to the nop after its call; the site is named by
 * the instruction after the seven bytes, as the call counter's profile
 * names it by its call's return address: the block's first instruction. */
static void notrace __used __attribute__((target("general-regs-only"))) site_profiled(unsigned long ret)
{
	profile_site(ret + 2);
}

void kshim_block_site_trampoline(void);

asm(	".pushsection .text.kshim_block_site_trampoline, \"ax\", @progbits\n"
	"	.type kshim_block_site_trampoline, @function\n"
	"kshim_block_site_trampoline:\n"
	"	.cfi_startproc\n"
	"	addq $1, %r15\n"
	"	pushq %rax\n"
	"	pushq %rcx\n"
	"	pushq %rdx\n"
	"	pushq %rsi\n"
	"	pushq %rdi\n"
	"	pushq %r8\n"
	"	pushq %r9\n"
	"	pushq %r10\n"
	"	pushq %r11\n"
	"	pushq %rbp\n"
	"	.cfi_adjust_cfa_offset 80\n"
	"	.cfi_rel_offset %rbp, 0\n"
	"	movq %rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	movq 80(%rbp), %rdi\n"
	"	andq $-16, %rsp\n"
	"	call site_profiled\n"
	"	movq %rbp, %rsp\n"
	"	.cfi_def_cfa_register %rsp\n"
	"	popq %rbp\n"
	"	popq %r11\n"
	"	popq %r10\n"
	"	popq %r9\n"
	"	popq %r8\n"
	"	popq %rdi\n"
	"	popq %rsi\n"
	"	popq %rdx\n"
	"	popq %rcx\n"
	"	popq %rax\n"
	"	.cfi_adjust_cfa_offset -80\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size kshim_block_site_trampoline, . - kshim_block_site_trampoline\n"
	"	.popsection\n");

static const unsigned char site_add[7] = { 0x49, 0x81, 0xc7, 0x01, 0x00, 0x00, 0x00 };

static int patch_callback(void)
{
	const s32 *entry;

	for (entry = __start_sh_block_sites; entry < __stop_sh_block_sites; entry++) {
		unsigned char *site = (unsigned char *)entry + *entry;
		long rel = (long)((unsigned char *)kshim_block_site_trampoline - (site + 5));
		unsigned char call[7] = { 0xe8, 0, 0, 0, 0, 0x66, 0x90 };
		int i, err;

		if (site[0] == 0xe8)
			continue;	/* patched by an earlier profile */
		if (memcmp(site, site_add, sizeof(site_add)) || rel != (s32)rel)
			return -EINVAL;
		for (i = 0; i < 4; i++)
			call[1 + i] = (unsigned char)((unsigned long)rel >> (8 * i));
		err = shim_text_patch_live(site, call, sizeof(call));
		if (err)
			return err;
	}
	return 0;
}
#elif defined(__x86_64__)
void __sanitizer_cov_trace_pc(void);

/* The callback while a profile is taken: the instrumented site calls the
 * callback, whose patched entry jumps here, so the return address is the
 * site's. */
static void notrace __used trace_pc_profiled(void)
{
	kshim_blocks_executed++;
	profile_site((unsigned long)__builtin_return_address(0));
}

/*
 * Without a profile the callback only counts: two instructions at every
 * basic block of kernel code. kshim_cost_profile_start() patches its entry
 * into a jump to trace_pc_profiled(), as the kernel's static keys patch
 * their sites (arch/x86/kernel/jump_label.c) rather than test a flag at
 * each. The callback has a page of its own, so that making the page
 * writable for the patch stops no other code. Its unwind entry (.cfi_*)
 * lets backtrace() step out of it: the watchdog names a spinning kernel
 * function from a signal that lands, most often, in this callback.
 */
#define CALLBACK_PAGE	4096

asm(	".pushsection .text.kshim_cost_callback, \"ax\", @progbits\n"
	"	.balign " __stringify(CALLBACK_PAGE) "\n"
	"	.globl __sanitizer_cov_trace_pc\n"
	"	.type __sanitizer_cov_trace_pc, @function\n"
	"__sanitizer_cov_trace_pc:\n"
	"	.cfi_startproc\n"
	"	addq $1, kshim_blocks_executed(%rip)\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size __sanitizer_cov_trace_pc, . - __sanitizer_cov_trace_pc\n"
	"	.balign " __stringify(CALLBACK_PAGE) ", 0xcc\n"
	"	.popsection\n");

/* jmp rel32 to trace_pc_profiled(), over the callback's addq */
static int patch_callback(void)
{
	unsigned char *site = (unsigned char *)__sanitizer_cov_trace_pc;
	long rel = (long)((unsigned char *)trace_pc_profiled - (site + 5));
	unsigned char jmp[5] = { 0xe9 };
	int i;

	if (site[0] == 0xe9)
		return 0;
	if (rel != (s32)rel)
		return -ERANGE;
	for (i = 0; i < 4; i++)
		jmp[1 + i] = (unsigned char)((unsigned long)rel >> (8 * i));
	return shim_text_patch(site, CALLBACK_PAGE, jmp, sizeof(jmp));
}
#else
void __sanitizer_cov_trace_pc(void);

static bool profiling;

void notrace __sanitizer_cov_trace_pc(void)
{
	kshim_blocks_executed++;
	if (unlikely(profiling))
		profile_site((unsigned long)__builtin_return_address(0));
}

static int patch_callback(void)
{
	profiling = true;
	return 0;
}
#endif

int kshim_cost_profile_start(void)
{
	memset(profile, 0, sizeof(profile));
	profile_lost = 0;
	return patch_callback();
}

unsigned long kshim_cost_profile_read(struct kshim_cost_site *out, unsigned long max,
			       unsigned long long *lost)
{
	unsigned long i, n = 0;

	for (i = 0; i < PROFILE_SIZE; i++) {
		if (!profile[i].pc)
			continue;
		if (n < max)
			out[n] = profile[i];
		n++;
	}
	*lost = profile_lost;
	return n;
}

static u64 clock_of(struct cpu_cost *c)
{
	return c->clock_ns + div_u64(c->ps_total - c->clock_ps, 1000);
}

/* A CPU that runs kernel code now starts no earlier than the harness's
 * time (a PELT-only build has no clock: its code takes no time). */
static void catch_up(struct cpu_cost *c)
{
#ifdef KSHIM_SCHED_FULL
	u64 now = kshim_now_ns;
#else
	u64 now = 0;
#endif

	if (now == c->caught_up_at)
		return;
	if (clock_of(c) < now) {
		c->clock_ns = now;
		c->clock_ps = c->ps_total;
	}
	c->caught_up_at = now;
}

void kshim_cost_mark(void)
{
	u64 now = blocks_executed();
	u64 n = now - credited;

#ifdef KSHIM_BLOCK_COUNTER_REGISTER
	/*
	 * Behind the last mark: code outside the project that had saved
	 * %r15 before it restored it on its way out (a test framework
	 * between two test cases). What ran since its save was credited up
	 * to the last mark; nothing was run since.
	 */
	if (now < credited)
		n = 0;
#endif

	if (n && cost_kind != KSHIM_COST_NONE) {
		struct cpu_cost *c = &cpu_cost[credit_cpu];
		u64 ps = n * c->ps_per_block;

		c->counts.blocks[cost_kind] += n;
		c->counts.ps[cost_kind] += ps;
		c->ps_total += ps;
	}
	credited = now;
	credit_cpu = shim_cpu;
	catch_up(&cpu_cost[credit_cpu]);
}

unsigned long long kshim_cpu_clock(int cpu)
{
	struct cpu_cost *c = &cpu_cost[cpu];

	kshim_cost_mark();
	catch_up(c);
	return clock_of(c);
}

/* The CPU cannot go on before t (an IPI sent at t reaches it; a lock is
 * free at t): its clock moves there, if it is behind. */
static u64 wait_until(int cpu, u64 t)
{
	struct cpu_cost *c = &cpu_cost[cpu];
	u64 now = kshim_cpu_clock(cpu);

	if (now >= t)
		return 0;
	c->clock_ns = t;
	c->clock_ps = c->ps_total;
	return t - now;
}

void kshim_cpu_clock_raise(int cpu, unsigned long long t)
{
	wait_until(cpu, t);
}

/*
 * Spinlocks in simulated time (the fake arch's arch_spin_lock()): each
 * CPU's kernel code runs to the end of its entry before another's, so a
 * lock is never found held; but when the last holder let it go at a time
 * later than the taker's clock, the taker spins until then. The first to
 * run (in the harness's order) wins.
 */
static int spinlocks_held;	/* by any CPU: one host thread runs them all */
static bool timed;		/* some CPU's code takes time */

void kshim_lock_wait(const unsigned long long *free_at)
{
#ifdef KSHIM_SCHED_FULL
	if (cost_kind != KSHIM_COST_NONE && timed && !spinlocks_held) {
		kshim_entry_interleave();
		kshim_take_due_interrupts(kshim_cpu_clock(shim_cpu));
	}
#endif
	spinlocks_held++;
	if (cost_kind == KSHIM_COST_NONE)
		return;
	cpu_cost[shim_cpu].spin_ns += wait_until(shim_cpu, *free_at);
}

void kshim_lock_release(unsigned long long *free_at)
{
	spinlocks_held--;
	if (cost_kind == KSHIM_COST_NONE)
		return;
	*free_at = kshim_cpu_clock(shim_cpu);
}

unsigned long long kshim_cpu_spin_ns(int cpu)
{
	return cpu_cost[cpu].spin_ns;
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
	timed |= ps_per_block != 0;
}

int kshim_cost_counts_blocks(void)
{
#ifdef KSHIM_BLOCK_COUNTER_NONE
	return 0;
#else
	return 1;
#endif
}

int kshim_cost_timed(void)
{
	return timed;
}

void kshim_cost_read(int cpu, struct kshim_cost_counts *out)
{
	kshim_cost_mark();
	*out = cpu_cost[cpu].counts;
	out->blocks[KSHIM_COST_NONE] = 0;
	out->ps[KSHIM_COST_NONE] = 0;
}
