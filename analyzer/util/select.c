/* SPDX-License-Identifier: MIT */
/*
 * select.c - Wirth's selection (N. Wirth, "Algorithms + Data Structures = Programs",
 * 1976, "Finding the median"): Hoare's partition, kept only on the side holding k.
 */
#include "select.h"

uint64_t u64_select(uint64_t *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;

	while (lo < hi) {
		uint64_t pivot = v[kk];
		ptrdiff_t i = lo, j = hi;

		/* v[kk] is in [lo, hi]: both scans stop at it (or before) on the first round */
		do {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i <= j) {
				uint64_t t = v[i];

				v[i++] = v[j];
				v[j--] = t;
			}
		} while (i <= j);
		/* v[lo..j] <= pivot <= v[i..hi], anything between is the pivot */
		if (j < kk)
			lo = i;
		if (kk < i)
			hi = j;
	}
	return v[kk];
}
