// SPDX-License-Identifier: GPL-2.0
//
// The block counter in a register (kshim/block_counter.h): a GCC plugin
// that turns each call GCC's -fsanitize-coverage=trace-pc put at the head
// of a basic block into one add to %r15, which every object of the project
// leaves alone (-ffixed-r15, cmake/BlockCounter.cmake).
//
// It runs right after the sanitizer-coverage pass and replaces that pass's
// calls one for one, so the blocks counted are the sites trace-pc made:
// what a run counts is the same with either counter. A call costs a call,
// a return, the registers it clobbers and a read-modify-write of one
// counter in memory, a chain through memory at every few kernel
// instructions; the add costs one instruction and a dependency on the
// register.
//
// The add says it clobbers memory, as the call may write any: without
// that, the late ipa-modref summaries of the functions compiled first say
// they write no memory, and the functions that call them, optimised with
// that knowledge, compile to other blocks (fair.c's select_task_rq_fair()
// had five more, and booting odroid-xu3 ran 147 blocks more). Keeping the
// compiler's view of the code as the call left it keeps the blocks.
//
// Each add is seven bytes (its immediate in 32 bits), so that a profile
// (kshim_cost_profile_start()) can write a call over it, and each site's
// address goes into the section sh_block_sites, relative to the entry, as
// the kernel's __mcount_loc lists ftrace's sites.
// GCC's headers, in the order they need one another
#include <gcc-plugin.h>
#include <plugin-version.h>
#include <tree.h>
#include <tree-pass.h>
#include <context.h>
#include <function.h>
#include <basic-block.h>
#include <tree-ssa-alias.h>
#include <gimple-expr.h>
#include <gimple.h>
#include <gimple-iterator.h>
#include <ssa.h>
#include <diagnostic-core.h>

int plugin_is_GPL_compatible;

namespace {

// addq $1, %r15 with a 32-bit immediate (REX.W+B 81 /0 id): seven bytes
constexpr char site_template[] =
	"1:\t.byte 0x49, 0x81, 0xc7, 0x01, 0x00, 0x00, 0x00\n"
	"\t.pushsection sh_block_sites, \"a\"\n"
	"\t.balign 4\n"
	"\t.long 1b - .\n"
	"\t.popsection";

const pass_data block_counter_pass_data = {
	GIMPLE_PASS,
	"sh_block_counter",
	OPTGROUP_NONE,
	TV_NONE,
	PROP_cfg | PROP_ssa,
	0, 0, 0,
	TODO_update_ssa_only_virtuals,
};

gasm *counter_add()
{
	vec<tree, va_gc> *clobbers = nullptr;
	vec_safe_push(clobbers, build_tree_list(NULL_TREE, build_string(2, "cc")));
	vec_safe_push(clobbers, build_tree_list(NULL_TREE, build_string(6, "memory")));
	gasm *add = gimple_build_asm_vec(site_template, nullptr, nullptr, clobbers, nullptr);
	gimple_asm_set_volatile(add, true);
	return add;
}

struct block_counter_pass : gimple_opt_pass {
	explicit block_counter_pass(gcc::context *ctx) : gimple_opt_pass(block_counter_pass_data, ctx) {}

	// one instance after each of the coverage pass's
	opt_pass *clone() override { return new block_counter_pass(m_ctxt); }

	unsigned int execute(function *fn) override
	{
		basic_block bb;
		FOR_EACH_BB_FN(bb, fn) {
			for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
				gimple *call = gsi_stmt(gsi);

				if (!gimple_call_builtin_p(call, BUILT_IN_SANITIZER_COV_TRACE_PC))
					continue;
				// the call leaves the chain of memory states, and
				// the add (a memory clobber) takes its place when
				// the pass's TODO renames them
				gasm *add = counter_add();
				// where the call was, in the same inlined scope
				// (--kernel-profile names the function inlined)
				gimple_set_location(add, gimple_location(call));
				gimple_set_block(add, gimple_block(call));
				unlink_stmt_vdef(call);
				gsi_replace(&gsi, add, false);
				release_defs(call);
			}
		}
		return 0;
	}
};

} // namespace

int plugin_init(plugin_name_args *info, plugin_gcc_version *version)
{
	if (!plugin_default_version_check(version, &gcc_version)) {
		error("%s: built for GCC %s, loaded by GCC %s", info->base_name,
		      gcc_version.basever, version->basever);
		return 1;
	}
	// after every instance of the coverage pass (-O1 and up, -Og)
	register_pass_info pass{
		.pass = new block_counter_pass(g),
		.reference_pass_name = "sancov",
		.ref_pass_instance_number = 0,
		.pos_op = PASS_POS_INSERT_AFTER,
	};
	register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, nullptr, &pass);
	return 0;
}
