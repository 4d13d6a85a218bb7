// SPDX-License-Identifier: GPL-2.0
/*
 * Until kernel/sched/topology.c is compiled in, there are no sched domains
 * to rebuild: arch_topology.c's update_topology_flags_workfn() and the
 * energy model ask for a rebuild after boot, and the request is counted so
 * a test can see it was made. topology.c's own functions replace these (a
 * duplicate definition is a link error, so the two cannot coexist).
 */
#include <linux/sched/topology.h>

#include <kshim/api.h>

static unsigned int rebuild_requests;

void partition_sched_domains(int ndoms_new, cpumask_var_t doms_new[],
			     struct sched_domain_attr *dattr_new)
{
	rebuild_requests++;
}

void rebuild_sched_domains_energy(void)
{
	rebuild_requests++;
}

unsigned int kshim_sched_domain_rebuilds(void)
{
	return rebuild_requests;
}
