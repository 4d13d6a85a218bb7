// SPDX-License-Identifier: GPL-2.0
/*
 * Sysctls (kernel/sysctl.c, fs/proc/proc_sysctl.c): tables registered with
 * register_sysctl_init() are kept by path, and a write goes through the
 * table's own proc_handler with a kernel buffer, as a write to
 * /proc/sys/<path>/<name> would. The generic handlers below parse and
 * range-check one integer, which is what every scheduler sysctl holds.
 */
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/version.h>

#include <kshim/compat/sysctl.h>
#include <kshim/sched.h>
#include "shim.h"


/*
 * kernel/sysctl.c's shared bounds, which tables' extra1/extra2 point at
 * through SYSCTL_ZERO, SYSCTL_ONE, ... Their order is the tree's: 5.10's
 * are fs/proc/proc_sysctl.c's, -1 first; 6.1's kernel/sysctl.c's, 0 first
 * (bracketed: in 6.1, not in 5.10.262). sysctl_vals_check() reads every one back through the tree's
 * macros, so that a bound never silently takes another's value.
 */
#if KSHIM_KERNEL_GE(6, 1, 0)
const int sysctl_vals[] = { 0, 1, 2, 3, 4, 100, 200, 1000, 3000, INT_MAX, 65535, -1 };
#else
const int sysctl_vals[] = { -1, 0, 1, 2, 4, 100, 200, 1000, 3000, INT_MAX };
#endif

static int __init sysctl_vals_check(void)
{
#define BOUND(macro, v)	{ macro, v, #macro }
	static const struct {
		const void *bound;
		int value;
		const char *name;
	} bounds[] = {
		BOUND(SYSCTL_NEG_ONE, -1), BOUND(SYSCTL_ZERO, 0), BOUND(SYSCTL_ONE, 1),
		BOUND(SYSCTL_TWO, 2), BOUND(SYSCTL_FOUR, 4), BOUND(SYSCTL_ONE_HUNDRED, 100),
		BOUND(SYSCTL_TWO_HUNDRED, 200), BOUND(SYSCTL_ONE_THOUSAND, 1000),
		BOUND(SYSCTL_THREE_THOUSAND, 3000), BOUND(SYSCTL_INT_MAX, INT_MAX),
	};
#undef BOUND
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bounds); i++)
		WARN(*(const int *)bounds[i].bound != bounds[i].value,
		     "glue/sysctl.c: %s reads %d, not %d: sysctl_vals[] is not this tree's\n",
		     bounds[i].name, *(const int *)bounds[i].bound, bounds[i].value);
	return 0;
}
early_initcall(sysctl_vals_check);

/* kernel/sysctl.c's tables, and 5.10's sched_domain directories (below) */
struct registered_table {
	const char *path;
	kshim_registered_ctl_table *table;
	size_t size;
	const void *header;	/* register_sysctl_table()'s, which unregisters it */
};

static struct registered_table *tables;
static int nr_tables, max_tables;

/* Room for one more table: the registry grows as tables come (5.10's
 * debug.c registers one for every domain of every CPU). */
static struct registered_table *new_table(const char *path)
{
	if (nr_tables == max_tables) {
		int n = max_tables ? 2 * max_tables : 32;
		struct registered_table *grown = kmalloc_array(n, sizeof(*grown), GFP_KERNEL);

		if (WARN(!grown, "no memory for the sysctl table %s\n", path))
			return NULL;
		if (nr_tables)
			memcpy(grown, tables, nr_tables * sizeof(*grown));
		kfree(tables);
		tables = grown;
		max_tables = n;
	}
	memset(&tables[nr_tables], 0, sizeof(tables[nr_tables]));
	return &tables[nr_tables++];
}

#if KSHIM_SYSCTL_TABLE_SIZED
void __register_sysctl_init(const char *path, kshim_registered_ctl_table *table,
			    const char *table_name, size_t table_size)
#else
void __register_sysctl_init(const char *path, kshim_registered_ctl_table *table,
			    const char *table_name)
#endif
{
	struct registered_table *t = new_table(table_name);

	if (!t)
		return;
	t->path = path;
	t->table = table;
#if KSHIM_SYSCTL_TABLE_SIZED
	t->size = table_size;
#else
	for (t->size = 0; table[t->size].procname; t->size++)
		;
#endif
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

#if KSHIM_KERNEL_LT(6, 1, 0)
/* --- before the scheduler registered its own sysctls ------------------- */
/*
 * Until they moved into kernel/sched/ (5.13 to 5.19, each with its
 * register_sysctl_init(); all there in 6.1), the scheduler's sysctls were
 * entries of kernel/sysctl.c's kern_table, which is not compiled here: it
 * holds every subsystem's. Its scheduler entries as 5.10.262 declares them
 * (kernel/sysctl.c:185-191 and 1791-1999, with the harness's kconfig:
 * SCHED_DEBUG and SMP on, no SCHEDSTATS, NUMA_BALANCING, AUTOGROUP or
 * CFS_BANDWIDTH): the tree's variables and handlers, the same bounds.
 * Registered where sysctl_init() registers kern_table, at boot.
 */
#include <linux/sched/sysctl.h>

static int min_sched_granularity_ns = 100000;		/* 100 usecs */
static int max_sched_granularity_ns = NSEC_PER_SEC;	/* 1 second */
static int min_wakeup_granularity_ns;			/* 0 usecs */
static int max_wakeup_granularity_ns = NSEC_PER_SEC;	/* 1 second */
static int min_sched_tunable_scaling = SCHED_TUNABLESCALING_NONE;
static int max_sched_tunable_scaling = SCHED_TUNABLESCALING_END - 1;

static struct ctl_table kern_sched_table[] = {
	{ .procname = "sched_child_runs_first", .data = &sysctl_sched_child_runs_first,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = proc_dointvec },
	{ .procname = "sched_min_granularity_ns", .data = &sysctl_sched_min_granularity,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = sched_proc_update_handler,
	  .extra1 = &min_sched_granularity_ns, .extra2 = &max_sched_granularity_ns },
	{ .procname = "sched_latency_ns", .data = &sysctl_sched_latency,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = sched_proc_update_handler,
	  .extra1 = &min_sched_granularity_ns, .extra2 = &max_sched_granularity_ns },
	{ .procname = "sched_wakeup_granularity_ns", .data = &sysctl_sched_wakeup_granularity,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = sched_proc_update_handler,
	  .extra1 = &min_wakeup_granularity_ns, .extra2 = &max_wakeup_granularity_ns },
	{ .procname = "sched_tunable_scaling", .data = &sysctl_sched_tunable_scaling,
	  .maxlen = sizeof(enum sched_tunable_scaling), .mode = 0644,
	  .proc_handler = sched_proc_update_handler,
	  .extra1 = &min_sched_tunable_scaling, .extra2 = &max_sched_tunable_scaling },
	{ .procname = "sched_migration_cost_ns", .data = &sysctl_sched_migration_cost,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = proc_dointvec },
	{ .procname = "sched_nr_migrate", .data = &sysctl_sched_nr_migrate,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = proc_dointvec },
	{ .procname = "sched_rt_period_us", .data = &sysctl_sched_rt_period,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = sched_rt_handler,
	  .extra1 = SYSCTL_ONE, .extra2 = SYSCTL_INT_MAX },
	{ .procname = "sched_rt_runtime_us", .data = &sysctl_sched_rt_runtime,
	  .maxlen = sizeof(int), .mode = 0644, .proc_handler = sched_rt_handler,
	  .extra1 = SYSCTL_NEG_ONE, .extra2 = SYSCTL_INT_MAX },
	{ .procname = "sched_deadline_period_max_us", .data = &sysctl_sched_dl_period_max,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = proc_dointvec },
	{ .procname = "sched_deadline_period_min_us", .data = &sysctl_sched_dl_period_min,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = proc_dointvec },
	{ .procname = "sched_rr_timeslice_ms", .data = &sysctl_sched_rr_timeslice,
	  .maxlen = sizeof(int), .mode = 0644, .proc_handler = sched_rr_handler },
#ifdef CONFIG_UCLAMP_TASK
	{ .procname = "sched_util_clamp_min", .data = &sysctl_sched_uclamp_util_min,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = sysctl_sched_uclamp_handler },
	{ .procname = "sched_util_clamp_max", .data = &sysctl_sched_uclamp_util_max,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = sysctl_sched_uclamp_handler },
	{ .procname = "sched_util_clamp_min_rt_default",
	  .data = &sysctl_sched_uclamp_util_min_rt_default,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = sysctl_sched_uclamp_handler },
#endif
#if defined(CONFIG_ENERGY_MODEL) && defined(CONFIG_CPU_FREQ_GOV_SCHEDUTIL)
	{ .procname = "sched_energy_aware", .data = &sysctl_sched_energy_aware,
	  .maxlen = sizeof(unsigned int), .mode = 0644, .proc_handler = sched_energy_aware_handler,
	  .extra1 = SYSCTL_ZERO, .extra2 = SYSCTL_ONE },
#endif
	{ }
};

static int __init kern_sched_table_init(void)
{
	__register_sysctl_init("kernel", kern_sched_table, "kern_table");
	return 0;
}
early_initcall(kern_sched_table_init);

/*
 * fs/proc/proc_sysctl.c's register_sysctl_table() of a tree of
 * directories (5.10's kernel/sched/debug.c registers
 * kernel/sched_domain/cpuN/domainM/ with it): each directory's entries
 * kept under the directory's path, until unregister_sysctl_table() of the
 * header it returned. Returns 1 when the path is kept (by a table of the
 * directory's files), 0 when not, or an error.
 */
static int register_dir(const char *path, struct ctl_table *table, const void *header)
{
	struct registered_table *t;
	struct ctl_table *entry;
	size_t leaves = 0;
	int ret;

	for (entry = table; entry->procname; entry++) {
		char *child_path;

		if (!entry->child) {
			leaves++;
			continue;
		}
		child_path = kasprintf(GFP_KERNEL, "%s%s%s", path, *path ? "/" : "", entry->procname);
		if (!child_path)
			return -ENOMEM;
		ret = register_dir(child_path, entry->child, header);
		if (ret <= 0)
			kfree(child_path);	/* kept only by a table of files */
		if (ret < 0)
			return ret;
	}
	if (!leaves)
		return 0;
	/* a directory's files and subdirectories are not mixed in any table here */
	if (WARN(leaves != (size_t)(entry - table), "%s: files beside directories\n", path))
		return -EINVAL;
	t = new_table(path);
	if (!t)
		return -ENOMEM;
	t->path = path;
	t->table = table;
	t->size = leaves;
	t->header = header;
	return 1;
}

struct ctl_table_header *register_sysctl_table(struct ctl_table *table)
{
	struct ctl_table_header *header = kzalloc(sizeof(*header), GFP_KERNEL);

	if (!header)
		return NULL;
	if (register_dir("", table, header) < 0) {
		unregister_sysctl_table(header);
		return NULL;
	}
	return header;
}

void unregister_sysctl_table(struct ctl_table_header *header)
{
	int i, kept = 0;

	if (!header)
		return;
	for (i = 0; i < nr_tables; i++) {
		if (tables[i].header == header) {
			kfree(tables[i].path);
			continue;
		}
		tables[kept++] = tables[i];
	}
	nr_tables = kept;
	kfree(header);
}

/* one unsigned long, as the sched_domain tables hold */
int proc_doulongvec_minmax(struct ctl_table *table, int write, void *buffer, size_t *lenp,
			   loff_t *ppos)
{
	unsigned long *data = table->data, v;

	if (!data || table->maxlen != sizeof(unsigned long))
		return -EINVAL;
	if (!write)
		return read_value(buffer, lenp, ppos, "%llu\n", *data);
	if (kstrtoul(strim(buffer), 0, &v))
		return -EINVAL;
	if ((table->extra1 && v < *(unsigned long *)table->extra1) ||
	    (table->extra2 && v > *(unsigned long *)table->extra2))
		return -EINVAL;
	*data = v;
	*ppos += *lenp;
	return 0;
}

int proc_dostring(struct ctl_table *table, int write, void *buffer, size_t *lenp, loff_t *ppos)
{
	if (!write) {
		if (*ppos) {
			*lenp = 0;
			return 0;
		}
		*lenp = scnprintf(buffer, *lenp, "%s\n", (const char *)table->data);
		*ppos += *lenp;
		return 0;
	}
	strscpy(table->data, strim(buffer), table->maxlen);
	*ppos += *lenp;
	return 0;
}
#endif
