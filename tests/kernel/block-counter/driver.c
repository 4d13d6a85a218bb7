// SPDX-License-Identifier: GPL-2.0
/*
 * Runs each shape over inputs and prints the blocks each call counted:
 * with COUNT_REGISTER from %r15 (the plugin's adds), otherwise from the
 * trace-pc callback below.
 */
#include <stdio.h>

#include "shapes.h"

#ifdef COUNT_REGISTER
static unsigned long long blocks(void)
{
	unsigned long long n;

	__asm__ volatile("movq %%r15, %0" : "=r"(n) : : "memory");
	return n;
}
#else
static unsigned long long counted;

void __sanitizer_cov_trace_pc(void)
{
	counted++;
}

static unsigned long long blocks(void)
{
	__asm__ volatile("" : : : "memory");
	return counted;
}
#endif

#define COUNT(call)							\
	do {								\
		unsigned long long before = blocks();			\
		int result = (call);					\
		printf("%s = %d: %llu blocks\n", #call, result, blocks() - before); \
	} while (0)

int main(void)
{
	static const int a[] = { 4, 7, 2, 9, 6, 1, 8, 3, -1, 5, 10, 12 };
	static const int sorted[] = { 1, 3, 4, 8, 9, 15, 20, 21, 33, 40 };
	int i;

	for (i = 0; i <= 12; i++)
		COUNT(shape_loops(a, i));
	for (i = 0; i < 16; i++)
		COUNT(shape_switch(i * 37 - 3));
	COUNT(shape_switch(200 * 7 + 4));
	for (i = 0; i < 12; i++)
		COUNT(shape_recursion(i));
	for (i = 0; i < 10; i++)
		COUNT(shape_tail(i));
	for (i = 0; i < 42; i += 3)
		COUNT(shape_search(sorted, 10, i));
	return 0;
}
