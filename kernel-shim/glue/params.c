// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel command line, as init/main.c hands it out: early_param()
 * handlers first (parse_early_param()), then module parameters of built-in
 * code (the __param section) and the __setup() handlers
 * (obsolete_checksetup()) found in the .init.setup section the compiled
 * files filled (kernel-shim/kernel.ld); kernel/params.c splits the words. A parameter no handler
 * takes would become an environment variable of init on a real kernel;
 * here it is an error, so that a typo cannot go unnoticed.
 */
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include <asm/setup.h>

#include <kshim/sched.h>
#include <kshim/compat/sched_debug.h>
#include "shim.h"

extern const struct obs_kernel_param kshim_setup_start[], kshim_setup_end[];

/* The architecture's (arch/FLAVOUR/include/uapi/asm/setup.h, whose value
 * kernel-shim/arch/generate.sh writes where asm-generic's 512 would be):
 * arm64 2048, ARMv7 1024. */
unsigned int kshim_cmdline_size(void)
{
	return COMMAND_LINE_SIZE;
}

const char *kshim_sched_verbose_param(void)
{
	return KSHIM_SCHED_VERBOSE_PARAM;
}

/* parameq(): dashes and underscores are the same in parameter names. */
static bool name_matches(const char *param, const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char a = param[i] == '-' ? '_' : param[i];
		char b = name[i] == '-' ? '_' : name[i];

		if (a != b)
			return false;
	}
	return true;
}

/* do_early_param(): the name before '=' equals the entry's exactly. */
static bool run_early(char *param, char *val)
{
	const struct obs_kernel_param *p;
	bool taken = false;

	for (p = kshim_setup_start; p < kshim_setup_end; p++) {
		if (!p->early || strlen(p->str) != strlen(param) ||
		    !name_matches(param, p->str, strlen(param)))
			continue;
		if (p->setup_func(val))
			pr_warn("Malformed early option '%s'\n", param);
		taken = true;
	}
	return taken;
}

/* obsolete_checksetup(): the entry's string is a prefix of "name=value". */
static bool run_setup(char *line)
{
	const struct obs_kernel_param *p;
	bool had_early = false;

	for (p = kshim_setup_start; p < kshim_setup_end; p++) {
		size_t n = strlen(p->str);

		if (strlen(line) < n || !name_matches(line, p->str, n))
			continue;
		if (p->early) {
			if (line[n] == '\0' || line[n] == '=')
				had_early = true;
		} else if (p->setup_func(line + n)) {
			return true;
		}
	}
	return had_early;
}

extern const struct kernel_param __start___param[], __stop___param[];

struct cmdline_parse {
	const char **unknown;
};

/* do_early_param()'s callback: every early_param() of that name runs. */
static int early_option(char *param, char *val, const char *unused, void *arg)
{
	run_early(param, val);
	return 0;
}

/*
 * unknown_bootoption(): a parameter that is no module parameter goes to
 * the __setup() handlers as "name=value" (repair_env_string() puts the
 * '=' back that parse_args() took out).
 */
static int setup_option(char *param, char *val, const char *unused, void *arg)
{
	struct cmdline_parse *parse = arg;

	if (val)
		val[-1] = '=';
	if (run_setup(param))
		return 0;
	if (!*parse->unknown)
		*parse->unknown = param;
	return -ENOENT;
}

/*
 * start_kernel()'s two passes over the command line, with kernel/params.c's
 * parse_args(): parse_early_param() (early_param() handlers), then the
 * module parameters of built-in code (module_param(): cpuidle.off=,
 * cpuidle.governor=, ...) and the __setup() handlers. A parameter nothing
 * takes is -ENOENT with *unknown set; a value its parameter refuses is that
 * parameter's error, which parse_args() has printed.
 */
int kshim_parse_cmdline(char *cmdline, const char **unknown)
{
	struct cmdline_parse parse = { .unknown = unknown };
	char copy[COMMAND_LINE_SIZE];
	char *err;

	if (!cmdline)
		return 0;
	if (strscpy(copy, cmdline, sizeof(copy)) < 0)
		return -E2BIG;

	parse_args("early options", copy, NULL, 0, 0, 0, NULL, early_option);
	*unknown = NULL;
	err = parse_args("Booting kernel", cmdline, __start___param,
			 __stop___param - __start___param, -1, -1, &parse, setup_option);
	return IS_ERR(err) ? PTR_ERR(err) : 0;
}

const char *kshim_setup_name(int index)
{
	if (index < 0 || index >= kshim_setup_end - kshim_setup_start)
		return NULL;
	return kshim_setup_start[index].str;
}
