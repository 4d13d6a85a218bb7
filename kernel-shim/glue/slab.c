// SPDX-License-Identifier: GPL-2.0
/*
 * The slab allocator's entry points, on the host allocator. Caches are not
 * modelled: kmalloc_caches stays empty and every size goes to shim_alloc(),
 * which zeroes for __GFP_ZERO as kzalloc() expects.
 */
#include <linux/radix-tree.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <linux/string.h>
#include <linux/memblock.h>
#include <linux/overflow.h>
#include <kshim/compat/isolation.h>
#include <kshim/kernel-version.h>

#include "shim.h"

struct kmem_cache *
kmalloc_caches[NR_KMALLOC_TYPES][KMALLOC_SHIFT_HIGH + 1] __ro_after_init;
EXPORT_SYMBOL(kmalloc_caches);

static void *shim_kmalloc(size_t size, gfp_t flags)
{
	return shim_alloc(size ? size : 1, !!(flags & __GFP_ZERO));
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
/* 6.10 renamed the entry points *_noprof (allocation profiling hooks). */
void *__kmalloc_noprof(size_t size, gfp_t flags)
{
	return shim_kmalloc(size, flags);
}

void *__kmalloc_node_noprof(DECL_BUCKET_PARAMS(size, b), gfp_t flags, int node)
{
	return shim_kmalloc(size, flags);
}

void *__kmalloc_cache_noprof(struct kmem_cache *s, gfp_t flags, size_t size)
{
	return shim_kmalloc(size, flags);
}

void *__kmalloc_cache_node_noprof(struct kmem_cache *s, gfp_t gfpflags, int node, size_t size)
{
	return shim_kmalloc(size, gfpflags);
}

#elif KSHIM_KERNEL_GE(6, 1, 0)
void *__kmalloc(size_t size, gfp_t flags)
{
	return shim_kmalloc(size, flags);
}

void *__kmalloc_node(size_t size, gfp_t flags, int node)
{
	return shim_kmalloc(size, flags);
}

void *kmalloc_trace(struct kmem_cache *s, gfp_t flags, size_t size)
{
	return shim_kmalloc(size, flags);
}

void *kmalloc_node_trace(struct kmem_cache *s, gfp_t gfpflags, int node, size_t size)
{
	return shim_kmalloc(size, gfpflags);
}

#else
/*
 * Before 6.1, without NUMA __kmalloc_node() is __kmalloc() inline; a
 * constant size goes to its size class's cache (kmalloc_classes, below).
 */
void *__kmalloc(size_t size, gfp_t flags)
{
	return shim_kmalloc(size, flags);
}
#endif

void kfree(const void *ptr)
{
	if (!ZERO_OR_NULL_PTR(ptr))
		shim_free(ptr);
}
EXPORT_SYMBOL(kfree);

/* mm/util.c: nothing here is in .rodata's sense constant, so the
 * const variants copy and free like the others. */
void kfree_const(const void *x)
{
	kfree(x);
}

const char *kstrdup_const(const char *s, gfp_t gfp)
{
	return kstrdup(s, gfp);
}

/* mm/util.c */
char *kstrdup(const char *s, gfp_t gfp)
{
	size_t len;
	char *copy;

	if (!s)
		return NULL;
	len = strlen(s) + 1;
	copy = shim_kmalloc(len, gfp);
	memcpy(copy, s, len);
	return copy;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
void *kmemdup_noprof(const void *src, size_t len, gfp_t gfp)
#else
void *kmemdup(const void *src, size_t len, gfp_t gfp)
#endif
{
	void *p = shim_kmalloc(len, gfp);

	memcpy(p, src, len);
	return p;
}

/* mm/util.c */
void *kmemdup_array(const void *src, size_t count, size_t element_size, gfp_t gfp)
{
	return kmemdup(src, size_mul(count, element_size), gfp);
}

/* mm/memblock.c: boot-time allocations (7.x's isolcpus= and nohz_full=
 * masks) come from the same allocator, zeroed as memblock's are. */
void *__memblock_alloc_or_panic(phys_addr_t size, phys_addr_t align, const char *func)
{
	void *p = shim_kmalloc(size, GFP_KERNEL | __GFP_ZERO);

	if (!p)
		panic("%s: failed to allocate %llu bytes\n", func, (unsigned long long)size);
	return p;
}

/* memblock_free() takes the pointer from 5.16 (before, a physical
 * address); nothing of an older tree's compiled files frees memblock
 * memory */
#if KSHIM_KERNEL_GE(5, 16, 0)
void memblock_free(void *ptr, size_t size)
{
	kfree(ptr);
}
#endif

#if KSHIM_HAS_HOUSEKEEPING_UPDATE
/* mm/vmstat.c */
void vmstat_flush_workqueue(void)
{
	KSHIM_UNREACHABLE_HOUSEKEEPING(vmstat_flush_workqueue);
}
#endif

/* mm/slab_common.c: the allocator is up from the start here */
bool slab_is_available(void)
{
	return true;
}

/*
 * lib/radix-tree.c's node cache, which lib/xarray.c allocates from (the
 * OPP library keeps its configurations' ids in an xarray): nodes from the
 * host allocator, zeroed as the cache's constructor leaves them.
 */
struct kmem_cache {
	unsigned int size;
	bool zeroed;	/* its constructor leaves objects zeroed */
};

static struct kmem_cache radix_tree_nodes = { .size = sizeof(struct radix_tree_node), .zeroed = true };
struct kmem_cache *radix_tree_node_cachep = &radix_tree_nodes;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
void *kmem_cache_alloc_lru_noprof(struct kmem_cache *s, struct list_lru *lru, gfp_t flags)
#else
void *kmem_cache_alloc_lru(struct kmem_cache *s, struct list_lru *lru, gfp_t flags)
#endif
{
	return shim_kmalloc(s->size, flags | __GFP_ZERO);
}

#if KSHIM_KERNEL_LT(6, 1, 0)
/*
 * Before 6.1, without CONFIG_TRACING, kmalloc() of a constant size goes
 * to its size class's cache, kmalloc_caches[kmalloc_type()][index],
 * through kmem_cache_alloc(): create_kmalloc_caches() (mm/slab_common.c)
 * made them at kmem_cache_init(), before any allocation. Here they are
 * made when the image is loaded, each of its class's size (kmalloc_info:
 * 96 and 192 bytes at 1 and 2, 2^index from 3 on), one per index shared
 * by every type.
 */
static struct kmem_cache kmalloc_classes[KMALLOC_SHIFT_HIGH + 1];

static void __attribute__((constructor)) kshim_create_kmalloc_caches(void)
{
	int type, index;

	for (index = 1; index <= KMALLOC_SHIFT_HIGH; index++) {
		kmalloc_classes[index].size = index == 1 ? 96 : index == 2 ? 192 : 1U << index;
		for (type = 0; type < NR_KMALLOC_TYPES; type++)
			kmalloc_caches[type][index] = &kmalloc_classes[index];
	}
}

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags)
{
	return shim_kmalloc(s->size, s->zeroed ? flags | __GFP_ZERO : flags);
}
#endif

void radix_tree_node_rcu_free(struct rcu_head *head)
{
	kfree(container_of(head, struct radix_tree_node, rcu_head));
}
