// SPDX-License-Identifier: GPL-2.0
/*
 * lib/idr.c's IDA, the stand-in: the lowest free id in a range, from a
 * growable bitmap hung on the xarray's head (lib/xarray.c, which the real
 * IDA is built on, is not compiled). The thermal core numbers its zones
 * and cooling devices with it.
 */
#include <linux/idr.h>
#include <linux/bitmap.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "shim.h"

struct ida_bits {
	unsigned int nbits;
	unsigned long bits[];
};

int ida_alloc_range(struct ida *ida, unsigned int min, unsigned int max, gfp_t gfp)
{
	struct ida_bits *ids = ida->xa.xa_head;
	unsigned int id;

	if ((int)max < 0)
		max = INT_MAX;
	if (min > max)
		return -ENOSPC;
	id = ids ? find_next_zero_bit(ids->bits, ids->nbits, min) : min;
	if (ids && id < ids->nbits) {
		if (id > max)
			return -ENOSPC;
		__set_bit(id, ids->bits);
		return id;
	}
	id = max_t(unsigned int, id, min);
	if (id > max)
		return -ENOSPC;
	if (!ids || id >= ids->nbits) {
		unsigned int nbits = round_up(id + 1, BITS_PER_LONG * 4);
		struct ida_bits *grown = kzalloc(struct_size(grown, bits, BITS_TO_LONGS(nbits)), gfp);

		if (!grown)
			return -ENOMEM;
		grown->nbits = nbits;
		if (ids) {
			bitmap_copy(grown->bits, ids->bits, ids->nbits);
			kfree(ids);
		}
		ida->xa.xa_head = ids = grown;
	}
	__set_bit(id, ids->bits);
	return id;
}

void ida_free(struct ida *ida, unsigned int id)
{
	struct ida_bits *ids = ida->xa.xa_head;

	if (WARN(!ids || id >= ids->nbits || !test_bit(id, ids->bits),
		 "ida_free called for id=%d which is not allocated.\n", id))
		return;
	__clear_bit(id, ids->bits);
}

void ida_destroy(struct ida *ida)
{
	kfree(ida->xa.xa_head);
	ida->xa.xa_head = NULL;
}
