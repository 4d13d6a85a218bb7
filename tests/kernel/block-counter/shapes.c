// SPDX-License-Identifier: GPL-2.0
/*
 * Control flow of the shapes kernel code has (loops with break and
 * continue, a switch with fall-through, goto to a common exit, recursion,
 * tail calls, cold paths, code inlined in several places), for
 * block-counter-plugin.sh: compiled once with trace-pc's calls and once
 * with the plugin's adds, each run must count the same blocks.
 */
#include "shapes.h"

static inline int clamp(int v, int lo, int hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

int shape_loops(const int *a, int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++) {
		if (a[i] < 0)
			break;
		if (a[i] & 1)
			continue;
		s += clamp(a[i], 2, 6);
	}
	while (s > 10)
		s -= 3;
	return s;
}

int shape_switch(int k)
{
	int r = 0;

	switch (k % 7) {
	case 0:
		r += 1;
		/* fall through */
	case 1:
		r += 2;
		break;
	case 2:
	case 3:
		r = clamp(k, 5, 9);
		break;
	case 4:
		if (__builtin_expect(k > 100, 0))
			goto out;
		r = 7;
		break;
	default:
		r = -1;
	}
	r *= 2;
out:
	return r;
}

int shape_recursion(int n)
{
	if (n <= 1)
		return n;
	return shape_recursion(n - 1) + shape_recursion(n - 2);
}

static int __attribute__((noinline)) tail_b(int x);

static int __attribute__((noinline)) tail_a(int x)
{
	if (x <= 0)
		return 0;
	return tail_b(x - 1);
}

static int __attribute__((noinline)) tail_b(int x)
{
	if (x & 1)
		return tail_a(x - 1) + 1;
	return tail_a(x - 1);
}

int shape_tail(int x)
{
	return tail_a(x);
}

int shape_search(const int *a, int n, int key)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (a[mid] == key)
			return mid;
		if (a[mid] < key)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}
