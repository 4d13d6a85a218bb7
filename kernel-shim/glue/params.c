// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel command line, as init/main.c hands it out: early_param()
 * handlers first (parse_early_param()), then the __setup() handlers
 * (obsolete_checksetup()), both found in the .init.setup section the
 * compiled files filled (kernel-shim/kernel.ld). A parameter no handler
 * takes would become an environment variable of init on a real kernel;
 * here it is an error, so that a typo cannot go unnoticed.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include <kshim/sched.h>
#include "shim.h"

/* arm64's COMMAND_LINE_SIZE */
#define KSHIM_CMDLINE_MAX	2048

extern const struct obs_kernel_param kshim_setup_start[], kshim_setup_end[];

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

/* next_arg() without quoting: the harness's command lines have none. */
static char *next_word(char **cursor)
{
	char *start = skip_spaces(*cursor), *end = start;

	if (!*start)
		return NULL;
	while (*end && !isspace(*end))
		end++;
	if (*end)
		*end++ = '\0';
	*cursor = end;
	return start;
}

int kshim_parse_cmdline(char *cmdline, const char **unknown)
{
	char *cursor, *word;
	char copy[KSHIM_CMDLINE_MAX];

	if (!cmdline)
		return 0;
	if (strscpy(copy, cmdline, sizeof(copy)) < 0)
		return -E2BIG;

	cursor = copy;
	while ((word = next_word(&cursor))) {
		char *eq = strchr(word, '=');
		char saved = 0;

		if (eq) {
			saved = *eq;
			*eq = '\0';
		}
		run_early(word, eq ? eq + 1 : NULL);
		if (eq)
			*eq = saved;
	}

	cursor = cmdline;
	while ((word = next_word(&cursor))) {
		if (!run_setup(word)) {
			*unknown = word;
			return -ENOENT;
		}
	}
	return 0;
}

const char *kshim_setup_name(int index)
{
	if (index < 0 || index >= kshim_setup_end - kshim_setup_start)
		return NULL;
	return kshim_setup_start[index].str;
}
