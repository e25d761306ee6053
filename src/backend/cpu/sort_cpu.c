/* sort_cpu.c: the coherence sort's host side: the GPU merge sort's algorithm on the shared
 * network code, a radix sort and the CPU backend's sort stage (the options' names: names.c).
 * Written twice, on purpose: the per-element code (keys, sortkey.h; the sorting network and
 * merge path, sort_net.h) is shared, but sort.cu's drivers are block frames (a tile in shared
 * memory, __syncthreads between merge steps, a warp's 32-way search per block), which
 * kernels/core/warp.h's warp shim does not model, and its radix sort is CUB's, which has no
 * CPU twin: here the merge sort's passes run tile by tile and the radix sort is our own. */
#include "sort_cpu.h"

#include <stdlib.h>
#include <string.h>

/* ---- merge sort: kernels/frames/sort.cu's kernels, thread by thread ------------------------------- */

/* srk_msort_block on one tile of SR_SORT_TILE elements (padded with sentinels). */
static void sr_msort_tile(sr_kv *tile, sr_kv *out)
{
    for (uint32_t t = 0; t < SR_SORT_BLOCK; t++) sr_kv_sort_items(tile + t * SR_SORT_ITEMS);
    for (uint32_t run = SR_SORT_ITEMS; run < SR_SORT_TILE; run *= 2u) {
        for (uint32_t t = 0; t < SR_SORT_BLOCK; t++) {
            const uint32_t d0 = t * SR_SORT_ITEMS, pair = d0 & ~(2u * run - 1u), d = d0 - pair;
            const sr_kv *a = tile + pair, *b = a + run;
            const uint32_t ai = sr_merge_path(a, run, b, run, d);
            const uint32_t ae = d + SR_SORT_ITEMS == 2u * run ? run : sr_merge_path(a, run, b, run, d + SR_SORT_ITEMS);
            const uint32_t bi = d - ai, be = d + SR_SORT_ITEMS - ae;
            sr_merge_chunk(a + ai, ae - ai, b + bi, be - bi, out + d0);
        }
        memcpy(tile, out, sizeof(sr_kv) * SR_SORT_TILE);
    }
}

/* srk_msort_partition + srk_msort_merge for output tile `blk` of the pass over runs of `run`. */
static void sr_msort_merge_tile(const sr_kv *src, sr_kv *dst, uint32_t n, uint32_t run, uint32_t blk, sr_kv *tile)
{
    const uint32_t g0 = blk * SR_SORT_TILE;
    const sr_merge_pair m = sr_merge_pair_at(n, run, g0);
    const sr_kv *a = src + m.base, *b = a + m.la;
    const uint32_t total = m.la + m.lb, d1 = total - m.diag < SR_SORT_TILE ? total : m.diag + SR_SORT_TILE;
    const uint32_t a0 = sr_merge_path(a, m.la, b, m.lb, m.diag);
    const uint32_t a1 = d1 == total ? m.la : sr_merge_path(a, m.la, b, m.lb, d1);
    const uint32_t b0 = m.diag - a0, na = a1 - a0, cnt = d1 - m.diag;
    for (uint32_t i = 0; i < cnt; i++) tile[i] = i < na ? a[a0 + i] : b[b0 + i - na];
    for (uint32_t t = 0; t < SR_SORT_BLOCK; t++) {
        const uint32_t d = t * SR_SORT_ITEMS;
        if (d >= cnt) break;
        const uint32_t de = d + SR_SORT_ITEMS < cnt ? d + SR_SORT_ITEMS : cnt;
        const uint32_t ai = sr_merge_path(tile, na, tile + na, cnt - na, d);
        const uint32_t ae = sr_merge_path(tile, na, tile + na, cnt - na, de);
        const uint32_t bi = d - ai, be = de - ae;
        sr_kv x[SR_SORT_ITEMS];
        sr_merge_chunk(tile + ai, ae - ai, tile + na + bi, be - bi, x);
        memcpy(dst + g0 + d, x, sizeof(sr_kv) * (de - d));
    }
}

void sr_merge_sort_cpu(const uint32_t *keys_in, const uint32_t *vals_in, uint32_t *keys_out, uint32_t *vals_out,
                       uint32_t n, sr_kv *tmp)
{
    if (n == 0) return;
    const int64_t tiles = (int64_t)((n + SR_SORT_TILE - 1u) / SR_SORT_TILE);
    sr_kv *buf[2] = { tmp, tmp + n };
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t blk = 0; blk < tiles; blk++) {
        sr_kv tile[SR_SORT_TILE], out[SR_SORT_TILE];
        const uint32_t base = (uint32_t)blk * SR_SORT_TILE;
        for (uint32_t i = 0; i < SR_SORT_TILE; i++)
            tile[i] = base + i < n ? sr_kv_make(keys_in[base + i], vals_in[base + i]) : SR_KV_SENTINEL;
        sr_msort_tile(tile, out);
        for (uint32_t i = 0; i < SR_SORT_TILE && base + i < n; i++) buf[0][base + i] = tile[i];
    }
    int cur = 0;
    for (uint64_t run = SR_SORT_TILE; run < n; run *= 2u) {
        const sr_kv *src = buf[cur];
        sr_kv *dst = buf[1 - cur];
#pragma omp parallel for schedule(dynamic, 4)
        for (int64_t blk = 0; blk < tiles; blk++) {
            sr_kv tile[SR_SORT_TILE];
            sr_msort_merge_tile(src, dst, n, (uint32_t)run, (uint32_t)blk, tile);
        }
        cur = 1 - cur;
    }
    for (uint32_t i = 0; i < n; i++) {
        keys_out[i] = sr_kv_key(buf[cur][i]);
        vals_out[i] = sr_kv_val(buf[cur][i]);
    }
}

/* ---- radix sort -------------------------------------------------------------------------- */

void sr_radix_sort_cpu(uint32_t *keys, uint32_t *vals, uint32_t n, uint32_t *tmp_keys, uint32_t *tmp_vals)
{
    uint32_t *src_k = keys, *src_v = vals, *dst_k = tmp_keys, *dst_v = tmp_vals;
    for (uint32_t shift = 0; shift < 32u; shift += 8u) {
        uint32_t count[257];
        memset(count, 0, sizeof count);
        for (uint32_t i = 0; i < n; i++) count[((src_k[i] >> shift) & 0xffu) + 1u]++;
        for (uint32_t d = 0; d < 256u; d++) count[d + 1u] += count[d];
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t at = count[(src_k[i] >> shift) & 0xffu]++;
            dst_k[at] = src_k[i];
            dst_v[at] = src_v[i];
        }
        uint32_t *t = src_k; src_k = dst_k; dst_k = t;
        t = src_v; src_v = dst_v; dst_v = t;
    }
    /* Four passes: the result is back in keys/vals. */
}

/* ---- the CPU backend's sort stage ---------------------------------------------------------- */

void sr_cpu_sorter_free(sr_cpu_sorter *s)
{
    free(s->keys); free(s->vals); free(s->tmp_keys); free(s->tmp_vals); free(s->key_pix); free(s->tmp);
    memset(s, 0, sizeof *s);
}

static sr_status sr_cpu_sorter_reserve(sr_cpu_sorter *s, uint32_t capacity, sr_error *err)
{
    if (s->keys && s->capacity >= capacity) return SR_OK;
    sr_cpu_sorter_free(s);
    const size_t n = capacity ? capacity : 1u;
    s->keys = (uint32_t *)malloc(n * sizeof(uint32_t));
    s->vals = (uint32_t *)malloc(n * sizeof(uint32_t));
    s->tmp_keys = (uint32_t *)malloc(n * sizeof(uint32_t));
    s->tmp_vals = (uint32_t *)malloc(n * sizeof(uint32_t));
    s->key_pix = (uint32_t *)malloc(n * sizeof(uint32_t));
    s->tmp = (sr_kv *)malloc(2u * n * sizeof(sr_kv));
    if (!s->keys || !s->vals || !s->tmp_keys || !s->tmp_vals || !s->key_pix || !s->tmp) {
        sr_cpu_sorter_free(s);
        return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for sorting %u rays", capacity);
    }
    s->capacity = capacity;
    return SR_OK;
}

sr_status sr_cpu_sort_prepare(sr_cpu_sorter *s, int key, const sr_params *p, const uint32_t *stencil,
                              uint32_t capacity, sr_error *err)
{
    sr_status st = sr_cpu_sorter_reserve(s, capacity, err);
    if (st) return st;
    const sr_sort_box box = sr_sort_box_of(&p->scene);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)p->n; i++)
        if ((stencil[i >> 5] >> (i & 31)) & 1u)
            s->key_pix[p->ray.pixel[i]] = sr_sort_ray_key(p, (uint32_t)i, key, &box);
    return SR_OK;
}

sr_status sr_cpu_sort_pool(sr_cpu_sorter *s, int algo, int key, const sr_params *p, sr_ray_soa dst,
                           uint32_t capacity, sr_error *err)
{
    sr_status st = sr_cpu_sorter_reserve(s, capacity, err);
    if (st) return st;
    if (algo != SR_SORT_MERGE && algo != SR_SORT_RADIX)
        return sr_fail(err, SR_ERR_RUNTIME, "sort algorithm %d is not merge or radix", algo);
    const uint32_t n = p->n;
    const sr_sort_box box = sr_sort_box_of(&p->scene);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        s->keys[i] = key == SR_SORT_KEY_MATERIAL ? s->key_pix[p->ray.pixel[i]]
                                                 : sr_sort_ray_key(p, (uint32_t)i, key, &box);
        s->vals[i] = (uint32_t)i;
    }
    if (algo == SR_SORT_MERGE) sr_merge_sort_cpu(s->keys, s->vals, s->keys, s->vals, n, s->tmp);
    else sr_radix_sort_cpu(s->keys, s->vals, n, s->tmp_keys, s->tmp_vals);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++) sr_ray_copy(dst, (uint32_t)i, p->ray, s->vals[i]);
    return SR_OK;
}
