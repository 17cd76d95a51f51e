/* SPDX-License-Identifier: MIT */
/*
 * select.h - the k-th smallest of an array in O(n), for a median where a sort would be
 * the only reason to sort (score's settle truth, every tick).
 */
#ifndef FRAMEANALYZE_SELECT_H
#define FRAMEANALYZE_SELECT_H

#include <stddef.h>
#include <stdint.h>

/*
 * The k-th smallest of v[0..n) (0-based; k < n, n <= PTRDIFF_MAX): what v[k] would be
 * after sorting v ascending. v is reordered.
 */
uint64_t u64_select(uint64_t *v, size_t n, size_t k);

#endif
