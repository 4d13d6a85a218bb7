// SPDX-License-Identifier: GPL-2.0
/*
 * The device-tree API (drivers/of/base.c, property.c) over a tree of the
 * kernel's own struct device_node, built from the board's blob by the C++
 * loader through kshim_of_new_node()/kshim_of_add_property(), the way
 * unflatten_device_tree() builds it at boot. Nodes are never freed
 * (CONFIG_OF_DYNAMIC is off, so of_node_get/put are no-ops).
 */
#include <linux/of.h>
#include <linux/cpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/hash.h>
#include <kshim/compat/of.h>
#include <kshim/kernel-version.h>

#include "shim.h"

struct device_node *of_root;
EXPORT_SYMBOL(of_root);

struct device_node *kshim_of_new_node(struct device_node *parent, const char *name,
				      const char *full_name)
{
	struct device_node *np = kzalloc(sizeof(*np), GFP_KERNEL);
	struct device_node **link;

	np->full_name = full_name;	/* the blob's, kept (kshim/api.h) */
	np->name = kstrdup(name, GFP_KERNEL);
	np->parent = parent;
	if (parent) {
		/* append: children stay in DT order, as unflatten does */
		for (link = &parent->child; *link; link = &(*link)->sibling)
			;
		*link = np;
	}
	return np;
}

void kshim_of_add_property(struct device_node *np, const char *name, const void *value, int length)
{
	struct property *pp = kzalloc(sizeof(*pp), GFP_KERNEL);
	struct property **link;

	/* into the blob, as populate_properties() points them */
	pp->name = (char *)name;
	pp->length = length;
	pp->value = (void *)value;
	for (link = &np->properties; *link; link = &(*link)->next)
		;
	*link = pp;
	if (length == 4 && (!strcmp(name, "phandle") || !strcmp(name, "linux,phandle")))
		np->phandle = be32_to_cpup(value);
	if (!strcmp(name, "name"))
		np->name = pp->value;
}

void kshim_of_set_root(struct device_node *root)
{
	of_root = root;
}

/* %pOF: the full path, built from the node names as the kernel prints it. */
int kshim_of_path(const struct device_node *np, char *buf, int size)
{
	int len;

	if (!np)
		return snprintf(buf, size, "(null)");
	if (!np->parent)
		return snprintf(buf, size, "/");
	len = np->parent->parent ? kshim_of_path(np->parent, buf, size) : 0;
	if (len >= size)
		return len;
	return len + snprintf(buf + len, size - len, "/%s", np->full_name);
}

bool of_node_name_eq(const struct device_node *np, const char *name)
{
	const char *node_name;
	size_t len;

	if (!np)
		return false;
	node_name = kbasename(np->full_name);
	len = strchrnul(node_name, '@') - node_name;
	return (strlen(name) == len) && (strncmp(node_name, name, len) == 0);
}

struct property *of_find_property(const struct device_node *np, const char *name, int *lenp)
{
	struct property *pp;

	if (!np)
		return NULL;
	for (pp = np->properties; pp; pp = pp->next) {
		if (of_prop_cmp(pp->name, name) == 0) {
			if (lenp)
				*lenp = pp->length;
			return pp;
		}
	}
	return NULL;
}

const void *of_get_property(const struct device_node *np, const char *name, int *lenp)
{
	struct property *pp = of_find_property(np, name, lenp);

	return pp ? pp->value : NULL;
}

struct device_node *of_get_next_child(const struct device_node *node, struct device_node *prev)
{
	if (!node)
		return NULL;
	return prev ? prev->sibling : node->child;
}

struct device_node *of_get_child_by_name(const struct device_node *node, const char *name)
{
	struct device_node *child;

	for_each_child_of_node(node, child)
		if (of_node_name_eq(child, name))
			break;
	return child;
}

static bool status_is(const struct device_node *np, const char *prefix, bool absent)
{
	const char *status = of_get_property(np, "status", NULL);

	if (!status)
		return absent;
	return !strncmp(status, prefix, strlen(prefix));
}

/* Children of /cpus named "cpu" or of device_type "cpu", not failed. */
struct device_node *of_get_next_cpu_node(struct device_node *prev)
{
	struct device_node *next;

	if (prev) {
		next = prev->sibling;
	} else {
		struct device_node *cpus = of_find_node_by_path("/cpus");

		next = cpus ? cpus->child : NULL;
	}
	for (; next; next = next->sibling) {
		const char *type = of_get_property(next, "device_type", NULL);

		if (status_is(next, "fail", false))
			continue;
		if (of_node_name_eq(next, "cpu") || (type && !strcmp(type, "cpu")))
			break;
	}
	return next;
}

struct device_node *of_find_node_opts_by_path(const char *path, const char **opts)
{
	struct device_node *np = of_root;
	const char *p = path;

	if (opts)
		*opts = NULL;
	if (!np || !path || path[0] != '/')
		return NULL;
	while (np && *p) {
		const char *end;
		struct device_node *child;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchrnul(p, '/');
		for (child = np->child; child; child = child->sibling) {
			const char *cname = child->full_name;
			size_t len = end - p;
			/* "name" matches "name@unit" when the path gives no unit */
			size_t clen = memchr(p, '@', len) ? strlen(cname) : strchrnul(cname, '@') - cname;

			if (clen == len && !strncmp(cname, p, len))
				break;
		}
		np = child;
		p = end;
	}
	return np;
}

/*
 * drivers/of/base.c's walk (__of_find_all_nodes()): depth first through
 * the parent links, so no depth of tree is too deep for it.
 */
static struct device_node *walk_next(struct device_node *prev)
{
	struct device_node *np = prev;

	if (np->child)
		return np->child;
	while (np->parent && !np->sibling)
		np = np->parent;
	return np->sibling;
}

/*
 * drivers/of/base.c's phandle cache: a direct-mapped table in front of the
 * walk of every node (each cooling map, OPP table and idle state is a
 * phandle). Nodes are never freed here, so an entry never goes stale.
 */
#define OF_PHANDLE_CACHE_BITS	7
static struct device_node *phandle_cache[1 << OF_PHANDLE_CACHE_BITS];

struct device_node *of_find_node_by_phandle(phandle handle)
{
	struct device_node **slot;
	struct device_node *np;

	if (!handle)
		return NULL;
	slot = &phandle_cache[hash_32(handle, OF_PHANDLE_CACHE_BITS)];
	if (*slot && (*slot)->phandle == handle)
		return *slot;
	for (np = of_root; np; np = walk_next(np))
		if (np->phandle == handle) {
			*slot = np;
			return np;
		}
	return NULL;
}

/*
 * Walks a phandle list ("<&a 1 2>, <0>, <&b 3>"): each entry is a phandle
 * and the number of cells its target's cells_name says (cell_count without
 * one); a 0 phandle is an entry of one cell. Stops at entry `index` (its
 * target and arguments into out_args; -ENOENT for a 0 phandle there), or
 * at the end: -ENOENT, and *count the number of entries. -EINVAL for a
 * dangling phandle or an entry past the end, as drivers/of/base.c says.
 */
static int walk_phandles(const struct device_node *np, const char *list_name, const char *cells_name,
			 int cell_count, int index, struct of_phandle_args *out_args, int *count)
{
	int size, cur = 0, pos = 0;
	const __be32 *list = of_get_property(np, list_name, &size);

	if (!list)
		return -ENOENT;
	size /= sizeof(*list);
	while (pos < size) {
		phandle ph = be32_to_cpup(list + pos++);
		struct device_node *target = NULL;
		u32 cells = 0;
		int i;

		if (ph) {
			target = of_find_node_by_phandle(ph);
			if (!target) {
				pr_err("%pOF: could not find phandle %d\n", np, ph);
				return -EINVAL;
			}
			if (cells_name) {
				if (of_property_read_u32(target, cells_name, &cells)) {
					pr_err("%pOF: could not get %s for %pOF\n", np, cells_name, target);
					return -EINVAL;
				}
			} else {
				cells = cell_count;
			}
			if (pos + (int)cells > size) {
				pr_err("%pOF: %s = %d found %d\n", np, cells_name, cells, size - pos);
				return -EINVAL;
			}
		}
		if (cur == index) {
			if (!target)
				return -ENOENT;
			if (out_args) {
				out_args->np = target;
				out_args->args_count = min_t(int, cells, MAX_PHANDLE_ARGS);
				for (i = 0; i < out_args->args_count; i++)
					out_args->args[i] = be32_to_cpup(list + pos + i);
			}
			return 0;
		}
		pos += cells;
		cur++;
	}
	if (count)
		*count = cur;
	return -ENOENT;
}

int __of_parse_phandle_with_args(const struct device_node *np, const char *list_name,
				 const char *cells_name, int cell_count, int index,
				 struct of_phandle_args *out_args)
{
	return walk_phandles(np, list_name, cells_name, cell_count, index, out_args, NULL);
}

#if KSHIM_KERNEL_LT(6, 1, 0)
/* drivers/of/base.c's before they became of.h's inlines over
 * __of_parse_phandle_with_args() (in 6.1, not in 5.10.262; bracketed) */
struct device_node *of_parse_phandle(const struct device_node *np, const char *phandle_name,
				     int index)
{
	struct of_phandle_args args;

	if (index < 0 || walk_phandles(np, phandle_name, NULL, 0, index, &args, NULL))
		return NULL;
	return args.np;
}

int of_parse_phandle_with_args(const struct device_node *np, const char *list_name,
			       const char *cells_name, int index, struct of_phandle_args *out_args)
{
	return walk_phandles(np, list_name, cells_name, cells_name ? -1 : 0, index, out_args, NULL);
}
#endif

/* How many entries the phandle list has, or -ENOENT/-EINVAL as parsing
 * it fails. */
int of_count_phandle_with_args(const struct device_node *np, const char *list_name,
			       const char *cells_name)
{
	int count = -ENOENT;
	int ret = walk_phandles(np, list_name, cells_name, 0, -1, NULL, &count);

	return ret == -ENOENT && count >= 0 ? count : ret;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
/* drivers/of/cpu.c (an inline of of_device.h in 6.1) */
struct device_node *of_cpu_device_node_get(int cpu)
{
	struct device *cpu_dev = get_cpu_device(cpu);

	return cpu_dev ? of_node_get(cpu_dev->of_node) : of_get_cpu_node(cpu, NULL);
}
#endif

/* The node after np in the kernel's allnodes order (depth first). */
static struct device_node *allnodes_next(struct device_node *np)
{
	if (np->child)
		return np->child;
	while (np && !np->sibling)
		np = np->parent;
	return np ? np->sibling : NULL;
}

struct device_node *of_find_node_by_name(struct device_node *from, const char *name)
{
	struct device_node *np = from ? allnodes_next(from) : of_root;

	for (; np; np = allnodes_next(np))
		if (of_node_name_eq(np, name))
			break;
	of_node_put(from);
	return np;
}

struct device_node *of_get_next_available_child(const struct device_node *node,
						struct device_node *prev)
{
	struct device_node *next = of_get_next_child(node, prev);

	while (next && !of_device_is_available(next))
		next = next->sibling;
	return next;
}

int of_property_read_variable_u32_array(const struct device_node *np, const char *propname,
					u32 *out_values, size_t sz_min, size_t sz_max)
{
	int len, i, count;
	const __be32 *val = of_get_property(np, propname, &len);

	if (!val)
		return -EINVAL;
	if (len < (int)(sz_min * sizeof(u32)))
		return -EOVERFLOW;
	count = len / sizeof(u32);
	if (sz_max && count > (int)sz_max)
		count = sz_max;
	for (i = 0; i < count; i++)
		out_values[i] = be32_to_cpup(val + i);
	return count;
}

/* drivers/of/property.c, of_find_property_value_of_size() */
static const void *value_of_size(const struct device_node *np, const char *propname,
				 u32 min, u32 max, size_t *len)
{
	struct property *prop = of_find_property(np, propname, NULL);

	if (!prop)
		return ERR_PTR(-EINVAL);
	if (!prop->value)
		return ERR_PTR(-ENODATA);
	if (prop->length < min)
		return ERR_PTR(-EOVERFLOW);
	if (max && prop->length > max)
		return ERR_PTR(-EOVERFLOW);
	if (len)
		*len = prop->length;
	return prop->value;
}

/* drivers/of/property.c, the same name */
int of_property_count_elems_of_size(const struct device_node *np, const char *propname,
				    int elem_size)
{
	struct property *prop = of_find_property(np, propname, NULL);

	if (!prop)
		return -EINVAL;
	if (!prop->value)
		return -ENODATA;
	if (prop->length % elem_size != 0) {
		pr_err("size of %s in node %pOF is not a multiple of %d\n", propname, np, elem_size);
		return -EINVAL;
	}
	return prop->length / elem_size;
}

int of_property_read_u32_index(const struct device_node *np, const char *propname,
			       u32 index, u32 *out_value)
{
	const u32 *val = value_of_size(np, propname, ((index + 1) * sizeof(*out_value)), 0, NULL);

	if (IS_ERR(val))
		return PTR_ERR(val);
	*out_value = be32_to_cpup(((__be32 *)val) + index);
	return 0;
}

int of_property_read_variable_u64_array(const struct device_node *np, const char *propname,
					u64 *out_values, size_t sz_min, size_t sz_max)
{
	size_t sz, count;
	const __be32 *val = value_of_size(np, propname, (sz_min * sizeof(*out_values)),
					  (sz_max * sizeof(*out_values)), &sz);

	if (IS_ERR(val))
		return PTR_ERR(val);
	if (!sz_max)
		sz = sz_min;
	else
		sz /= sizeof(*out_values);
	count = sz;
	while (count--) {
		*out_values++ = of_read_number(val, 2);
		val += 2;
	}
	return sz;
}

#if KSHIM_KERNEL_LT(6, 1, 0)
/* drivers/of/base.c's before of.h made it an inline (bracketed as above) */
int of_property_read_u64(const struct device_node *np, const char *propname, u64 *out_value)
{
	int ret = of_property_read_variable_u64_array(np, propname, out_value, 1, 0);

	return ret < 0 ? ret : 0;
}
#endif

/* drivers/of/property.c */
int of_property_match_string(const struct device_node *np, const char *propname,
			     const char *string)
{
	const struct property *prop = of_find_property(np, propname, NULL);
	const char *p, *end;
	size_t l;
	int i;

	if (!prop)
		return -EINVAL;
	if (!prop->value)
		return -ENODATA;
	p = prop->value;
	end = p + prop->length;
	for (i = 0; p < end; i++, p += l) {
		l = strnlen(p, end - p) + 1;
		if (p + l > end)
			return -EILSEQ;
		if (strcmp(string, p) == 0)
			return i;
	}
	return -ENODATA;
}

/* drivers/of/base.c: nodes are never freed, so no reference is taken */
struct device_node *of_get_parent(const struct device_node *node)
{
	return node ? node->parent : NULL;
}

/*
 * drivers/of/base.c, of_device_is_compatible(): non-zero when `compat` is
 * one of the node's compatible strings. The kernel scores the match (an
 * earlier string scores higher, type and name add to it); its callers
 * here (arm's topology.c) only test for non-zero.
 */
int of_device_is_compatible(const struct device_node *device, const char *compat)
{
	const char *cp;
	int len, score = 0;

	cp = of_get_property(device, "compatible", &len);
	if (!cp || !compat || !*compat)
		return 0;
	for (; len > 0; score++) {
		int l = strlen(cp) + 1;

		if (!strcasecmp(cp, compat))
			return INT_MAX / 2 - score * 4;
		cp += l;
		len -= l;
	}
	return 0;
}

/* Logical CPU numbers follow the order of CPU nodes (kshim_boot_early()). */
static struct device_node *cpu_nodes[NR_CPUS];

void kshim_of_map_cpus(unsigned int nr_cpus)
{
	struct device_node *np = NULL;
	unsigned int cpu = 0;

	while ((np = of_get_next_cpu_node(np)) && cpu < nr_cpus)
		cpu_nodes[cpu++] = np;
}

struct device_node *of_get_cpu_node(int cpu, unsigned int *thread)
{
	if (thread)
		*thread = 0;
	return cpu >= 0 && cpu < NR_CPUS ? cpu_nodes[cpu] : NULL;
}

int of_cpu_node_to_id(struct device_node *np)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (cpu_nodes[cpu] == np)
			return cpu;
	return -ENODEV;
}

struct device_node *of_find_next_cache_node(const struct device_node *np)
{
	struct device_node *child;
	struct of_phandle_args args;

	if (!__of_parse_phandle_with_args(np, "next-level-cache", NULL, 0, 0, &args))
		return args.np;
	if (!__of_parse_phandle_with_args(np, "l2-cache", NULL, 0, 0, &args))
		return args.np;
	/* arm64: an L2 described as a child "cache" node of the CPU */
	for_each_child_of_node(np, child) {
		const char *type = of_get_property(child, "device_type", NULL);

		if (type && !strcmp(type, "cache"))
			return child;
	}
	return NULL;
}

/* drivers/of/base.c: status absent, "okay" or "ok". */
bool of_device_is_available(const struct device_node *device)
{
	const char *status;

	if (!device)
		return false;
	status = of_get_property(device, "status", NULL);
	return !status || !strcmp(status, "okay") || !strcmp(status, "ok");
}

int of_property_read_string(const struct device_node *np, const char *propname,
			    const char **out_string)
{
	int len;
	const char *value = of_get_property(np, propname, &len);

	if (!value)
		return -EINVAL;
	if (strnlen(value, len) >= len)
		return -EILSEQ;
	*out_string = value;
	return 0;
}

/*
 * drivers/of/base.c, of_match_node(): the entry whose compatible matches
 * the node best. Differs: entries are matched on compatible only (the
 * kernel also scores type and name); the tables the compiled files pass
 * (dt_idle_states.c's arm,idle-state) give compatibles only.
 */
const struct of_device_id *of_match_node(const struct of_device_id *matches,
					 const struct device_node *node)
{
	const struct of_device_id *best = NULL;
	int best_score = 0;

	if (!matches || !node)
		return NULL;
	for (; matches->name[0] || matches->type[0] || matches->compatible[0]; matches++) {
		int score = of_device_is_compatible(node, matches->compatible);

		if (score > best_score) {
			best = matches;
			best_score = score;
		}
	}
	return best;
}

/* drivers/of/base.c: the root's entry in a match table (cpufreq-dt-platdev's
 * lists of boards, 7.x), through of_match_node() above */
const struct of_device_id *of_machine_get_match(const struct of_device_id *matches)
{
	return of_root ? of_match_node(matches, of_root) : NULL;
}

const void *of_machine_get_match_data(const struct of_device_id *matches)
{
	const struct of_device_id *match = of_machine_get_match(matches);

	return match ? match->data : NULL;
}

/* drivers/of/property.c: out of line from 7.x (an inline before) */
#if KSHIM_OF_PROPERTY_READ_BOOL_OUT_OF_LINE
bool of_property_read_bool(const struct device_node *np, const char *propname)
{
	return of_find_property(np, propname, NULL) != NULL;
}
#endif

/* drivers/of/base.c, of_get_cpu_state_node(): the domain's idle states
 * first (power-domains, PSCI's hierarchy), else cpu-idle-states. */
struct device_node *of_get_cpu_state_node(kshim_of_cpu_state_node_t *cpu_node, int index)
{
	struct of_phandle_args args;
	int err;

	err = of_parse_phandle_with_args(cpu_node, "power-domains",
					 "#power-domain-cells", 0, &args);
	if (!err) {
		struct device_node *state_node =
			of_parse_phandle(args.np, "domain-idle-states", index);

		of_node_put(args.np);
		if (state_node)
			return state_node;
	}
	return of_parse_phandle(cpu_node, "cpu-idle-states", index);
}
