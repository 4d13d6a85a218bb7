/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHAPES_H
#define SHAPES_H
int shape_loops(const int *a, int n);
int shape_switch(int k);
int shape_recursion(int n);
int shape_tail(int x);
int shape_search(const int *a, int n, int key);
#endif
