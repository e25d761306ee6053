/* sort_net.h: the per-element code of the coherence sort's merge sort, shared by the
 * GPU merge sort (kernels/frames/sort.cu) and its CPU driver (src/backend/cpu/sort_cpu.c), so that a CPU test runs
 * exactly the code the GPU runs.
 *
 * An element is a (key, value) pair packed into 64 bits, key high. Comparing packed words
 * orders by key and breaks ties by value: a total order, so every split of the merges gives
 * the same output, and for distinct values that are the input positions (ray slots) it is
 * what a stable sort gives (CUB's radix sort included). The sentinel (all ones) pads runs;
 * it is not less than any element, and a real element equal to it is the same 64 bits, so
 * emitting one for the other changes nothing.
 *
 * The vector merge network: two sorted 4-vectors a and b become the lowest four (a) and the
 * highest four (b) of the eight with two vector compare-and-swaps, a = min(a, reverse(b)),
 * b = max(b, reverse(a)) (each a bitonic 4-sequence then), and a 4-element bitonic clean of
 * each. A thread merges two sorted streams with it: emit a, fetch the next vector from the
 * stream with the smaller head into a, merge with b (which carries the highest four), and so
 * on; a stream that has run out yields sentinels, so the other one's remainder follows. */
#ifndef SR_SORT_NET_H
#define SR_SORT_NET_H

#include "../core/compat.h"

typedef uint64_t sr_kv;
#define SR_KV_SENTINEL 0xffffffffffffffffull

/* Elements per thread in the merge sort: a thread sorts this many in registers first, and
 * each merge step emits this many: 8 or 16. */
#ifndef SR_SORT_ITEMS
#define SR_SORT_ITEMS 8u
#endif
#define SR_SORT_VECS (SR_SORT_ITEMS / 4u)
/* Threads per block, and the tile a block sorts first and emits per global merge pass. */
#define SR_SORT_BLOCK 256u
#define SR_SORT_TILE (SR_SORT_BLOCK * SR_SORT_ITEMS)

#if defined(__CUDA_ARCH__)
#  define SR_SORT_UNROLL _Pragma("unroll")
#else
#  define SR_SORT_UNROLL
#endif

SR_HD sr_kv sr_kv_make(uint32_t key, uint32_t val) { return ((sr_kv)key << 32) | (sr_kv)val; }
SR_HD uint32_t sr_kv_key(sr_kv x) { return (uint32_t)(x >> 32); }
SR_HD uint32_t sr_kv_val(sr_kv x) { return (uint32_t)x; }

/* Compare-and-swap: afterwards *lo <= *hi (a min and a max: no branch on the GPU). */
SR_HD void sr_kv_cas(sr_kv *lo, sr_kv *hi)
{
    const sr_kv a = *lo, b = *hi;
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
}

/* A 4-vector of elements; on the GPU it lives in registers (indices are constants). */
typedef struct sr_kv4 {
    sr_kv x[4];
} sr_kv4;

/* Sort one 4-vector: the optimal 5-comparator network. */
SR_HD void sr_kv4_sort(sr_kv4 *v)
{
    sr_kv_cas(&v->x[0], &v->x[1]);
    sr_kv_cas(&v->x[2], &v->x[3]);
    sr_kv_cas(&v->x[0], &v->x[2]);
    sr_kv_cas(&v->x[1], &v->x[3]);
    sr_kv_cas(&v->x[1], &v->x[2]);
}

/* Sort a bitonic 4-vector (up then down, or down then up): two half-cleaner stages. */
SR_HD void sr_kv4_bitonic_clean(sr_kv4 *v)
{
    sr_kv_cas(&v->x[0], &v->x[2]);
    sr_kv_cas(&v->x[1], &v->x[3]);
    sr_kv_cas(&v->x[0], &v->x[1]);
    sr_kv_cas(&v->x[2], &v->x[3]);
}

/* The merge step of two sorted 4-vectors: a = min(a, reverse(b)), b = max(b, reverse(a)) (one
 * vector compare-and-swap of a against b reversed), then sort each vector internally. After
 * it a holds the lowest four of the eight and b the highest four, both sorted. */
SR_HD void sr_kv4_merge(sr_kv4 *a, sr_kv4 *b)
{
    SR_SORT_UNROLL
    for (int i = 0; i < 4; i++) sr_kv_cas(&a->x[i], &b->x[3 - i]);
    sr_kv4_bitonic_clean(a);
    sr_kv4_bitonic_clean(b);
}

/* Load 4 elements run[at .. at+4) of a run of `len` elements; past its end, sentinels. */
SR_HD sr_kv4 sr_kv4_load(const sr_kv *run, uint32_t len, uint32_t at)
{
    sr_kv4 v;
    SR_SORT_UNROLL
    for (uint32_t i = 0; i < 4u; i++) v.x[i] = at + i < len ? run[at + i] : SR_KV_SENTINEL;
    return v;
}

/* Sort SR_SORT_ITEMS elements in place, in registers on the GPU (written out per size, so
 * that every index is a constant): sort each 4-vector, then merge them with the network; for
 * 16, the two sorted 8-runs are merged bitonically (the first against the second reversed,
 * a half-cleaner, then each vector cleaned). */
SR_HD void sr_kv_sort_items(sr_kv *x)
{
    sr_kv4 v[SR_SORT_VECS];
    SR_SORT_UNROLL
    for (uint32_t k = 0; k < SR_SORT_VECS; k++) {
        SR_SORT_UNROLL
        for (uint32_t i = 0; i < 4u; i++) v[k].x[i] = x[4u * k + i];
        sr_kv4_sort(&v[k]);
    }
#if SR_SORT_ITEMS == 8
    sr_kv4_merge(&v[0], &v[1]);
#elif SR_SORT_ITEMS == 16
    sr_kv4_merge(&v[0], &v[1]);
    sr_kv4_merge(&v[2], &v[3]);
    SR_SORT_UNROLL
    for (int i = 0; i < 4; i++) {
        sr_kv_cas(&v[0].x[i], &v[3].x[3 - i]);
        sr_kv_cas(&v[1].x[i], &v[2].x[3 - i]);
    }
    SR_SORT_UNROLL
    for (int i = 0; i < 4; i++) {
        sr_kv_cas(&v[0].x[i], &v[1].x[i]);
        sr_kv_cas(&v[2].x[i], &v[3].x[i]);
    }
    SR_SORT_UNROLL
    for (int k = 0; k < 4; k++) sr_kv4_bitonic_clean(&v[k]);
#else
#error "SR_SORT_ITEMS must be 8 or 16"
#endif
    SR_SORT_UNROLL
    for (uint32_t k = 0; k < SR_SORT_VECS; k++) {
        SR_SORT_UNROLL
        for (uint32_t i = 0; i < 4u; i++) x[4u * k + i] = v[k].x[i];
    }
}

/* Merge path: how many of the first `diag` elements of merge(a[0..la), b[0..lb)) come from a
 * (a first on ties). A binary search along the cross diagonal: log2(min(la, lb)) steps. */
SR_HD uint32_t sr_merge_path(const sr_kv *a, uint32_t la, const sr_kv *b, uint32_t lb, uint32_t diag)
{
    uint32_t lo = diag > lb ? diag - lb : 0u, hi = diag < la ? diag : la;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2u;
        if (a[mid] <= b[diag - 1u - mid]) lo = mid + 1u;
        else hi = mid;
    }
    return lo;
}

/* Merge path for a warp, 32 probes a round: a round narrows [lo, hi] (the answer's range,
 * sr_merge_path's bounds to start) 32-fold, so a search along a long diagonal in global memory
 * waits for log32 rather than log2 dependent loads. Lane j probes the predicate of the search,
 * a[i] <= b[diag-1-i], at i = lo + (j+1)*step - 1; it falls from true to false along the
 * diagonal, so the lanes where it holds are a prefix, and their count narrows the range. */
SR_HD bool sr_merge_path_probe(const sr_kv *a, const sr_kv *b, uint32_t diag, uint32_t lo, uint32_t hi, uint32_t step,
                               uint32_t lane)
{
    const uint64_t i = (uint64_t)lo + (uint64_t)(lane + 1u) * step - 1u;
    return i < hi && a[i] <= b[diag - 1u - (uint32_t)i];
}

SR_HD void sr_merge_path_narrow(uint32_t *lo, uint32_t *hi, uint32_t step, uint32_t count)
{
    const uint64_t first_false = (uint64_t)*lo + (uint64_t)(count + 1u) * step - 1u;   /* lane `count`'s probe */
    const uint64_t past_true = (uint64_t)*lo + (uint64_t)count * step;
    if (first_false < *hi) *hi = (uint32_t)first_false;
    *lo = past_true < *hi ? (uint32_t)past_true : *hi;
}

/* The merge of one pass that output position `pos` belongs to: the pass merges the sorted runs
 * of `run` elements pairwise (runs 2j and 2j+1 of n elements, the last ones short or absent);
 * a = [base, base+la) and b = [base+la, base+la+lb), and pos is output `diag` of their merge. */
typedef struct sr_merge_pair {
    uint32_t base, la, lb, diag;
} sr_merge_pair;

SR_HD sr_merge_pair sr_merge_pair_at(uint32_t n, uint32_t run, uint32_t pos)
{
    sr_merge_pair m;
    const uint64_t width = 2ull * run, base = (uint64_t)pos / width * width, rest = (uint64_t)n - base;
    const uint64_t la = rest < run ? rest : run, lb = rest - la < run ? rest - la : run;
    m.base = (uint32_t)base;
    m.la = (uint32_t)la;
    m.lb = (uint32_t)lb;
    m.diag = (uint32_t)((uint64_t)pos - base);
    return m;
}

/* One thread's merge step: the la + lb <= SR_SORT_ITEMS elements of the sorted runs a[0..la)
 * and b[0..lb), merged into out[0..la+lb) (the rest of out gets sentinels), with the vector
 * network: merge the first vectors of a and b, emit the low one, then repeatedly fetch the
 * next vector from the stream with the smaller head and merge it with the carried high one.
 * An exhausted stream yields sentinels, so the other's remainder is appended in order. The
 * stream choice is a select, not a branch. */
SR_HD void sr_merge_chunk(const sr_kv *a, uint32_t la, const sr_kv *b, uint32_t lb, sr_kv *out)
{
    sr_kv4 lo = sr_kv4_load(a, la, 0), hi = sr_kv4_load(b, lb, 0);
    uint32_t ia = 4u, ib = 4u;
    sr_kv4_merge(&lo, &hi);
    SR_SORT_UNROLL
    for (uint32_t i = 0; i < 4u; i++) out[i] = lo.x[i];
    SR_SORT_UNROLL
    for (uint32_t v = 1; v < SR_SORT_VECS; v++) {
        const sr_kv ha = ia < la ? a[ia] : SR_KV_SENTINEL, hb = ib < lb ? b[ib] : SR_KV_SENTINEL;
        const bool from_a = ha <= hb;
        lo = sr_kv4_load(from_a ? a : b, from_a ? la : lb, from_a ? ia : ib);
        ia += from_a ? 4u : 0u;
        ib += from_a ? 0u : 4u;
        sr_kv4_merge(&lo, &hi);
        SR_SORT_UNROLL
        for (uint32_t i = 0; i < 4u; i++) out[4u * v + i] = lo.x[i];
    }
}

#endif
