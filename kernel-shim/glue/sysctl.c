// SPDX-License-Identifier: GPL-2.0
/*
 * Sysctls (kernel/sysctl.c, fs/proc/proc_sysctl.c): tables registered with
 * register_sysctl_init() are kept by path, and a write goes through the
 * table's own proc_handler with a kernel buffer, as a write to
 * /proc/sys/<path>/<name> would. The generic handlers below parse and
 * range-check one integer, which is what every scheduler sysctl holds.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/version.h>

#include <kshim/compat/sysctl.h>
#include <kshim/sched.h>
#include "shim.h"


/* kernel/sysctl.c: the shared bounds tables point extra1/extra2 at. */
const int sysctl_vals[] = { 0, 1, 2, 3, 4, 100, 200, 1000, 3000, INT_MAX, 65535, -1 };

#define KSHIM_MAX_SYSCTL_TABLES	32

static struct {
	const char *path;
	kshim_registered_ctl_table *table;
	size_t size;
} tables[KSHIM_MAX_SYSCTL_TABLES];
static int nr_tables;

#if KSHIM_SYSCTL_TABLE_SIZED
void __register_sysctl_init(const char *path, kshim_registered_ctl_table *table,
			    const char *table_name, size_t table_size)
#else
void __register_sysctl_init(const char *path, kshim_registered_ctl_table *table,
			    const char *table_name)
#endif
{
	if (WARN(nr_tables == KSHIM_MAX_SYSCTL_TABLES, "too many sysctl tables (%s)\n", table_name))
		return;
	tables[nr_tables].path = path;
	tables[nr_tables].table = table;
#if KSHIM_SYSCTL_TABLE_SIZED
	tables[nr_tables].size = table_size;
#else
	for (tables[nr_tables].size = 0; table[tables[nr_tables].size].procname; tables[nr_tables].size++)
		;
#endif
	nr_tables++;
}

/* "kernel.sched_energy_aware" or "kernel/sched_energy_aware". */
static kshim_registered_ctl_table *find_sysctl(const char *name)
{
	int i;

	for (i = 0; i < nr_tables; i++) {
		size_t n = strlen(tables[i].path);
		kshim_registered_ctl_table *t;

		if (strncmp(name, tables[i].path, n) || (name[n] != '.' && name[n] != '/'))
			continue;
		for (t = tables[i].table; t < tables[i].table + tables[i].size; t++)
			if (!strcmp(t->procname, name + n + 1))
				return t;
	}
	return NULL;
}

static char name_buf[64];

const char *kshim_sysctl_name(int index)
{
	int i;

	for (i = 0; i < nr_tables; i++) {
		kshim_registered_ctl_table *t;

		for (t = tables[i].table; t < tables[i].table + tables[i].size; t++) {
			if (index-- == 0) {
				snprintf(name_buf, sizeof(name_buf), "%s.%s", tables[i].path,
					 t->procname);
				return name_buf;
			}
		}
	}
	return NULL;
}

int kshim_sysctl_write(const char *name, const char *value)
{
	kshim_registered_ctl_table *t = find_sysctl(name);
	char buf[64];
	size_t len;
	loff_t pos = 0;

	if (!t)
		return -ENOENT;
	if (!(t->mode & 0222) || !t->proc_handler)
		return -EPERM;
	len = strscpy(buf, value, sizeof(buf));
	if ((ssize_t)len < 0)
		return -E2BIG;
	return t->proc_handler(t, 1, buf, &len, &pos);
}

int kshim_sysctl_read(const char *name, char *out, int size)
{
	kshim_registered_ctl_table *t = find_sysctl(name);
	size_t len = size;
	loff_t pos = 0;
	int ret;

	if (!t)
		return -ENOENT;
	if (!t->proc_handler)
		return -EPERM;
	ret = t->proc_handler(t, 0, out, &len, &pos);
	if (ret)
		return ret;
	out[min_t(size_t, len, size - 1)] = '\0';
	return 0;
}

/* --- the generic handlers, for one int or unsigned int ---------------- */

static int read_value(void *buffer, size_t *lenp, loff_t *ppos, const char *fmt, long long v)
{
	int n;

	if (*ppos) {
		*lenp = 0;
		return 0;
	}
	n = snprintf(buffer, *lenp, fmt, v);
	if (n < 0 || (size_t)n >= *lenp)
		return -EINVAL;
	*lenp = n;
	*ppos += n;
	return 0;
}

static int do_int(kshim_ctl_table *table, int write, void *buffer, size_t *lenp,
		  loff_t *ppos, bool check_range)
{
	int *data = table->data, v;

	if (!data || table->maxlen != sizeof(int))
		return -EINVAL;
	if (!write)
		return read_value(buffer, lenp, ppos, "%lld\n", *data);
	if (kstrtoint(strim(buffer), 0, &v))
		return -EINVAL;
	if (check_range && ((table->extra1 && v < *(int *)table->extra1) ||
			    (table->extra2 && v > *(int *)table->extra2)))
		return -EINVAL;
	*data = v;
	*ppos += *lenp;
	return 0;
}

static int do_uint(kshim_ctl_table *table, int write, void *buffer, size_t *lenp,
		   loff_t *ppos, bool check_range)
{
	unsigned int *data = table->data, v;

	if (!data || table->maxlen != sizeof(unsigned int))
		return -EINVAL;
	if (!write)
		return read_value(buffer, lenp, ppos, "%llu\n", *data);
	if (kstrtouint(strim(buffer), 0, &v))
		return -EINVAL;
	if (check_range && ((table->extra1 && v < *(unsigned int *)table->extra1) ||
			    (table->extra2 && v > *(unsigned int *)table->extra2)))
		return -EINVAL;
	*data = v;
	*ppos += *lenp;
	return 0;
}

int proc_dointvec(kshim_ctl_table *table, int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	return do_int(table, write, buffer, lenp, ppos, false);
}

int proc_dointvec_minmax(kshim_ctl_table *table, int write, void *buffer, size_t *lenp,
			 loff_t *ppos)
{
	return do_int(table, write, buffer, lenp, ppos, true);
}

int proc_douintvec(kshim_ctl_table *table, int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	return do_uint(table, write, buffer, lenp, ppos, false);
}

int proc_douintvec_minmax(kshim_ctl_table *table, int write, void *buffer, size_t *lenp,
			  loff_t *ppos)
{
	return do_uint(table, write, buffer, lenp, ppos, true);
}
