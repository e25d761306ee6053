/* sort.cu: the coherence sort on the GPU. C++ only inside this file (for CUB); the
 * API is the extern "C" functions of sort.h.
 *
 * merge: a merge sort on the vector network of sort_net.h, over (key, value) pairs packed in
 * 64 bits. 1. srk_msort_block: a block sorts a tile of SR_SORT_TILE elements: each thread
 * sorts SR_SORT_ITEMS in registers, then merge steps over doubling runs in shared memory.
 * 2. Global passes merge runs pairwise until one is left. The classic scheme gives a run pair
 * to a thread or a block, so the last passes (a few huge merges) leave most of the GPU idle;
 * here every pass is split by merge path instead: srk_msort_merge gives every output tile of
 * every pass to its own block (n / SR_SORT_TILE blocks in every pass, whatever the run
 * length), which finds where its inputs start and end by a search along the tile's cross
 * diagonals (a warp's 32-way search), loads them coalesced into shared memory and splits them
 * again by merge path among its threads. Input and output swap every pass.
 * radix: CUB's DeviceRadixSort::SortPairs, the reference point. */
#include "sort.h"
#include "sort_net.h"
#include "sortkey.h"
#include "launch.h"

#include <cub/device/device_radix_sort.cuh>
#include <string.h>

#define SR_SORT_KEY_BLOCK 256u
/* Position i of a tile in the padded layout (one spare element after every SR_SORT_ITEMS). */
#define SR_SORT_PADDED(i) ((i) + (i) / SR_SORT_ITEMS)
/* Is slot i live? (a plain read: these loops are not warp-aligned) */
#define SR_SORT_STENCIL_BIT(stencil, i) ((((stencil)[(i) >> 5] >> ((i) & 31u)) & 1u) != 0u)

/* ---- merge sort --------------------------------------------------------------------------- */

/* Write a thread's SR_SORT_ITEMS elements from registers to tile[at..), stopping at `end`. */
__device__ __forceinline__ void sr_msort_put(sr_kv *tile, uint32_t at, uint32_t end, const sr_kv *x)
{
#pragma unroll
    for (uint32_t k = 0; k < SR_SORT_ITEMS; k++)
        if (at + k < end) tile[at + k] = x[k];
}

/* Store element i of a block's output: packed for the next pass, or as keys and values. */
__device__ __forceinline__ void sr_msort_store(sr_kv v, uint32_t g, sr_kv *packed, uint32_t *keys_out, uint32_t *vals_out)
{
    if (packed) {
        packed[g] = v;
    } else {
        keys_out[g] = sr_kv_key(v);
        vals_out[g] = sr_kv_val(v);
    }
}

/* One tile: load (padded with sentinels), sort SR_SORT_ITEMS per thread in registers, then
 * log2(SR_SORT_BLOCK) merge steps in shared memory, each thread emitting SR_SORT_ITEMS of its
 * run pair's output from its merge-path split (its neighbour's split is its end). */
extern "C" __global__ void __launch_bounds__(SR_SORT_BLOCK)
srk_msort_block(const uint32_t *keys, const uint32_t *vals, uint32_t n, sr_kv *packed, uint32_t *keys_out,
                uint32_t *vals_out)
{
    __shared__ sr_kv tile[SR_SORT_TILE];
    __shared__ uint32_t split[SR_SORT_BLOCK];
    const uint32_t t = threadIdx.x, base = blockIdx.x * SR_SORT_TILE;
#pragma unroll
    for (uint32_t k = 0; k < SR_SORT_ITEMS; k++) {
        const uint32_t i = k * SR_SORT_BLOCK + t, g = base + i;
        tile[i] = g < n ? sr_kv_make(keys[g], vals[g]) : SR_KV_SENTINEL;
    }
    __syncthreads();
    sr_kv x[SR_SORT_ITEMS];
#pragma unroll
    for (uint32_t k = 0; k < SR_SORT_ITEMS; k++) x[k] = tile[t * SR_SORT_ITEMS + k];
    sr_kv_sort_items(x);
    const uint32_t d0 = t * SR_SORT_ITEMS;
    for (uint32_t run = SR_SORT_ITEMS; run < SR_SORT_TILE; run *= 2u) {
        __syncthreads();                               /* everyone is done reading tile, split */
        sr_msort_put(tile, d0, SR_SORT_TILE, x);
        __syncthreads();
        const uint32_t pair = d0 & ~(2u * run - 1u), d = d0 - pair;
        const sr_kv *a = tile + pair, *b = a + run;
        split[t] = sr_merge_path(a, run, b, run, d);
        __syncthreads();
        const uint32_t ai = split[t], ae = d + SR_SORT_ITEMS == 2u * run ? run : split[t + 1];
        const uint32_t bi = d - ai, be = d + SR_SORT_ITEMS - ae;
        sr_merge_chunk(a + ai, ae - ai, b + bi, be - bi, x);
    }
    __syncthreads();
    sr_msort_put(tile, d0, SR_SORT_TILE, x);
    __syncthreads();
#pragma unroll
    for (uint32_t k = 0; k < SR_SORT_ITEMS; k++) {
        const uint32_t i = k * SR_SORT_BLOCK + t, g = base + i;
        if (g < n) sr_msort_store(tile[i], g, packed, keys_out, vals_out);
    }
}

/* Merge path along a diagonal in global memory, by a whole warp (sr_merge_path_probe): about
 * five rounds of dependent loads for a diagonal of millions, where a binary search takes 20. */
__device__ uint32_t sr_merge_path_warp(const sr_kv *a, uint32_t la, const sr_kv *b, uint32_t lb, uint32_t diag)
{
    const uint32_t lane = threadIdx.x & 31u;
    uint32_t lo = diag > lb ? diag - lb : 0u, hi = diag < la ? diag : la;
    while (lo < hi) {   /* lo, hi and step are the same in every lane */
        const uint32_t step = (hi - lo + 31u) / 32u;
        const bool holds = sr_merge_path_probe(a, b, diag, lo, hi, step, lane);
        sr_merge_path_narrow(&lo, &hi, step, (uint32_t)__popc(__ballot_sync(0xffffffffu, holds)));
    }
    return lo;
}

/* One output tile of a global pass. Warps 0 and 1 find where the tile's inputs start and end
 * in its run pair (merge path at its first and one-past-last outputs); the inputs (a slice of
 * each run, SR_SORT_TILE elements in all) are loaded coalesced into shared memory, split among
 * the threads by merge path again, merged by each thread with the vector network, and stored
 * coalesced. Every pass has n / SR_SORT_TILE such blocks, whatever its run length. */
extern "C" __global__ void __launch_bounds__(SR_SORT_BLOCK)
srk_msort_merge(const sr_kv *src, sr_kv *packed, uint32_t *keys_out, uint32_t *vals_out, uint32_t n, uint32_t run)
{
    __shared__ sr_kv tile[SR_SORT_TILE + SR_SORT_TILE / SR_SORT_ITEMS];   /* room for the padded output */
    __shared__ uint32_t split[SR_SORT_BLOCK], edge[2];
    const uint32_t t = threadIdx.x, g0 = blockIdx.x * SR_SORT_TILE;
    const sr_merge_pair m = sr_merge_pair_at(n, run, g0);
    const uint32_t total = m.la + m.lb, d1 = total - m.diag < SR_SORT_TILE ? total : m.diag + SR_SORT_TILE;
    const sr_kv *a = src + m.base, *b = a + m.la;
    if (t < 64u) {   /* warp-uniform: warp 0 the start, warp 1 the end */
        const uint32_t s = t < 32u ? sr_merge_path_warp(a, m.la, b, m.lb, m.diag)
                         : d1 == total ? m.la : sr_merge_path_warp(a, m.la, b, m.lb, d1);
        if ((t & 31u) == 0) edge[t >> 5] = s;
    }
    __syncthreads();
    const uint32_t a0 = edge[0], a1 = edge[1];
    const uint32_t b0 = m.diag - a0, na = a1 - a0, cnt = d1 - m.diag;
    for (uint32_t i = t; i < cnt; i += SR_SORT_BLOCK) tile[i] = i < na ? a[a0 + i] : b[b0 + i - na];
    __syncthreads();
    const uint32_t d = t * SR_SORT_ITEMS < cnt ? t * SR_SORT_ITEMS : cnt;
    const uint32_t de = d + SR_SORT_ITEMS < cnt ? d + SR_SORT_ITEMS : cnt;
    split[t] = sr_merge_path(tile, na, tile + na, cnt - na, d);
    __syncthreads();
    const uint32_t ai = split[t], ae = t + 1u < SR_SORT_BLOCK ? split[t + 1] : na;
    const uint32_t bi = d - ai, be = de - ae;
    sr_kv x[SR_SORT_ITEMS];
    if (d < cnt) sr_merge_chunk(tile + ai, ae - ai, tile + na + bi, be - bi, x);
    __syncthreads();
    /* Output through shared memory with one pad element per thread's run: thread t's items
     * start at t*(ITEMS+1), so the threads' writes fall in distinct banks, and the coalesced
     * read-out below in nearly distinct ones. */
    if (d < cnt) sr_msort_put(tile, SR_SORT_PADDED(d), SR_SORT_PADDED(d) + (de - d), x);
    __syncthreads();
    for (uint32_t i = t; i < cnt; i += SR_SORT_BLOCK)
        sr_msort_store(tile[SR_SORT_PADDED(i)], g0 + i, packed, keys_out, vals_out);
}

/* Temporary storage of the merge sort for n elements: two packed buffers. */
static size_t sr_msort_buffer(uint32_t n) { return ((size_t)n * sizeof(sr_kv) + 255u) & ~(size_t)255u; }
static size_t sr_msort_temp(uint32_t n) { return 2u * sr_msort_buffer(n); }

static cudaError_t sr_msort(void *temp, size_t temp_bytes, const uint32_t *keys_in, const uint32_t *vals_in,
                            uint32_t *keys_out, uint32_t *vals_out, uint32_t n, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (n > (1u << 31) || temp_bytes < sr_msort_temp(n)) return cudaErrorInvalidValue;
    const uint32_t tiles = (n + SR_SORT_TILE - 1u) / SR_SORT_TILE;
    if (tiles == 1) {   /* one block sorts it all */
        srk_msort_block<<<1, SR_SORT_BLOCK, 0, stream>>>(keys_in, vals_in, n, NULL, keys_out, vals_out);
        return cudaGetLastError();
    }
    sr_kv *buf[2];
    buf[0] = (sr_kv *)temp;
    buf[1] = (sr_kv *)((char *)temp + sr_msort_buffer(n));
    srk_msort_block<<<tiles, SR_SORT_BLOCK, 0, stream>>>(keys_in, vals_in, n, buf[0], NULL, NULL);
    cudaError_t e = cudaGetLastError();
    int cur = 0;
    for (uint64_t run = SR_SORT_TILE; e == cudaSuccess && run < n; run *= 2u) {
        const bool last = 2u * run >= n;
        srk_msort_merge<<<tiles, SR_SORT_BLOCK, 0, stream>>>(buf[cur], last ? NULL : buf[1 - cur], keys_out, vals_out,
                                                            n, (uint32_t)run);
        e = cudaGetLastError();
        cur = 1 - cur;
    }
    return e;
}

/* ---- the API ------------------------------------------------------------------------------ */

extern "C" cudaError_t sr_sort_temp_bytes(int algo, uint32_t n, size_t *bytes)
{
    *bytes = 0;
    if (algo == SR_SORT_MERGE) {
        *bytes = sr_msort_temp(n);
        return cudaSuccess;
    }
    if (algo != SR_SORT_RADIX) return cudaErrorInvalidValue;
    return cub::DeviceRadixSort::SortPairs(NULL, *bytes, (const uint32_t *)NULL, (uint32_t *)NULL,
                                           (const uint32_t *)NULL, (uint32_t *)NULL, (int64_t)(n ? n : 1u), 0, 32);
}

extern "C" cudaError_t sr_sort_pairs(int algo, void *temp, size_t temp_bytes, const uint32_t *keys_in,
                                     const uint32_t *vals_in, uint32_t *keys_out, uint32_t *vals_out, uint32_t n,
                                     cudaStream_t stream)
{
    if (algo == SR_SORT_MERGE) return sr_msort(temp, temp_bytes, keys_in, vals_in, keys_out, vals_out, n, stream);
    if (algo != SR_SORT_RADIX) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    cudaError_t e = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, vals_in, vals_out,
                                                    (int64_t)n, 0, 32, stream);
    return e != cudaSuccess ? e : cudaGetLastError();
}

/* ---- the ray-pool sort stage --------------------------------------------------------------- */

extern "C" cudaError_t sr_gpu_sorter_reserve(sr_gpu_sorter *s, uint32_t capacity)
{
    if (s->capacity >= capacity && s->temp) return cudaSuccess;
    sr_gpu_sorter_free(s);
    size_t merge_bytes = 0, radix_bytes = 0;
    cudaError_t e = sr_sort_temp_bytes(SR_SORT_MERGE, capacity, &merge_bytes);
    if (e == cudaSuccess) e = sr_sort_temp_bytes(SR_SORT_RADIX, capacity, &radix_bytes);
    s->temp_bytes = merge_bytes > radix_bytes ? merge_bytes : radix_bytes;
    const size_t words = (size_t)(capacity ? capacity : 1u) * sizeof(uint32_t);
    for (int h = 0; e == cudaSuccess && h < 2; h++) {
        e = cudaMalloc((void **)&s->keys[h], words);
        if (e == cudaSuccess) e = cudaMalloc((void **)&s->vals[h], words);
    }
    if (e == cudaSuccess) e = cudaMalloc((void **)&s->key_pix, words);
    if (e == cudaSuccess) e = cudaMalloc(&s->temp, s->temp_bytes);
    if (e != cudaSuccess) {
        sr_gpu_sorter_free(s);
        return e;
    }
    s->capacity = capacity;
    return cudaSuccess;
}

extern "C" void sr_gpu_sorter_free(sr_gpu_sorter *s)
{
    for (int h = 0; h < 2; h++) {
        cudaFree(s->keys[h]);
        cudaFree(s->vals[h]);
    }
    cudaFree(s->key_pix);
    cudaFree(s->temp);
    memset(s, 0, sizeof *s);
}

/* Keys by pixel, before compaction: a grid-stride loop over the live slots of the pool. */
extern "C" __global__ void srk_sort_prepare(sr_params p, int key, const uint32_t *stencil, const uint32_t *live_n,
                                            uint32_t *key_pix)
{
    const sr_sort_box box = sr_sort_box_of(&p.scene);
    const uint32_t n = *live_n, stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        if (SR_SORT_STENCIL_BIT(stencil, i)) key_pix[p.ray.pixel[i]] = sr_sort_ray_key(&p, i, key, &box);
}

/* keys[i], vals[i] = (the key of slot i, i) for i < m; the pad key past the live count. */
extern "C" __global__ void srk_sort_keys(sr_params p, int key, const uint32_t *live_n, const uint32_t *key_pix,
                                         uint32_t *keys, uint32_t *vals, uint32_t m)
{
    const sr_sort_box box = sr_sort_box_of(&p.scene);
    const uint32_t n = *live_n, stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += stride) {
        uint32_t k = SR_SORT_KEY_PAD;
        if (i < n) k = key_pix ? key_pix[p.ray.pixel[i]] : sr_sort_ray_key(&p, i, key, &box);
        keys[i] = k;
        vals[i] = i;
    }
}

/* dst slot i = src slot order[i] for i < m, src slot i past m (a short bound), i < *live_n. */
extern "C" __global__ void srk_sort_gather(sr_ray_soa src, sr_ray_soa dst, const uint32_t *order, uint32_t m,
                                           const uint32_t *live_n, uint32_t n_host)
{
    const uint32_t n = live_n ? *live_n : n_host, stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        sr_ray_copy(dst, i, src, i < m ? order[i] : i);
}

extern "C" cudaError_t sr_gpu_sort_prepare(sr_gpu_sorter *s, int key, const sr_params *p, const uint32_t *stencil,
                                           const uint32_t *live_n, uint32_t grid, cudaStream_t stream)
{
    if (!s->temp) return cudaErrorInvalidValue;   /* not reserved */
    srk_sort_prepare<<<grid ? grid : 1u, SR_SORT_KEY_BLOCK, 0, stream>>>(*p, key, stencil, live_n, s->key_pix);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_gpu_sort_pool(sr_gpu_sorter *s, int algo, int key, const sr_params *p, sr_ray_soa dst,
                                        const uint32_t *live_n, uint32_t m, uint32_t grid, cudaStream_t stream)
{
    if (!s->temp) return cudaErrorInvalidValue;   /* not reserved */
    cudaError_t e;
    if (m > s->capacity) m = s->capacity;
    if (m > 0) {
        srk_sort_keys<<<sr_grid_for(m, SR_SORT_KEY_BLOCK, 4096u), SR_SORT_KEY_BLOCK, 0, stream>>>(
            *p, key, live_n, key == SR_SORT_KEY_MATERIAL ? s->key_pix : NULL, s->keys[0], s->vals[0], m);
        if ((e = cudaGetLastError()) != cudaSuccess) return e;
        e = sr_sort_pairs(algo, s->temp, s->temp_bytes, s->keys[0], s->vals[0], s->keys[1], s->vals[1], m, stream);
        if (e != cudaSuccess) return e;
    }
    srk_sort_gather<<<grid ? grid : 1u, SR_SORT_KEY_BLOCK, 0, stream>>>(p->ray, dst, s->vals[1], m, live_n, 0);
    return cudaGetLastError();
}

/* ---- reordering by sorting the state itself (micro-benchmark) --------------------------------- */

struct sr_ray_rec {
#define SR_X_FIELD(type, name) type name;
    SR_RAY_FIELDS(SR_X_FIELD)
#undef SR_X_FIELD
};

extern "C" __global__ void srk_rec_pack(sr_ray_soa src, sr_ray_rec *rec, uint32_t n)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    sr_ray_rec r;
#define SR_X_PACK(type, name) r.name = src.name[i];
    SR_RAY_FIELDS(SR_X_PACK)
#undef SR_X_PACK
    rec[i] = r;
}

extern "C" __global__ void srk_rec_unpack(const sr_ray_rec *rec, sr_ray_soa dst, uint32_t n)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const sr_ray_rec r = rec[i];
#define SR_X_UNPACK(type, name) dst.name[i] = r.name;
    SR_RAY_FIELDS(SR_X_UNPACK)
#undef SR_X_UNPACK
}

static size_t sr_align256(size_t x) { return (x + 255u) & ~(size_t)255u; }

extern "C" cudaError_t sr_sort_records_temp_bytes(uint32_t n, size_t *bytes)
{
    size_t cub_bytes = 0;
    cudaError_t e = cub::DeviceRadixSort::SortPairs(NULL, cub_bytes, (const uint32_t *)NULL, (uint32_t *)NULL,
                                                    (const sr_ray_rec *)NULL, (sr_ray_rec *)NULL,
                                                    (int64_t)(n ? n : 1u), 0, 32);
    *bytes = sr_align256((size_t)n * 4u) + 2u * sr_align256((size_t)n * sizeof(sr_ray_rec)) + cub_bytes;
    return e;
}

extern "C" cudaError_t sr_sort_records(void *temp, size_t temp_bytes, const uint32_t *keys, sr_ray_soa src,
                                       sr_ray_soa dst, uint32_t n, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    char *at = (char *)temp;
    uint32_t *keys_out = (uint32_t *)at;
    at += sr_align256((size_t)n * 4u);
    sr_ray_rec *rec[2];
    rec[0] = (sr_ray_rec *)at;
    at += sr_align256((size_t)n * sizeof(sr_ray_rec));
    rec[1] = (sr_ray_rec *)at;
    at += sr_align256((size_t)n * sizeof(sr_ray_rec));
    const size_t used = (size_t)(at - (char *)temp);
    if (temp_bytes < used) return cudaErrorInvalidValue;
    srk_rec_pack<<<(n + 255u) / 256u, 256, 0, stream>>>(src, rec[0], n);
    cudaError_t e = cudaGetLastError();
    size_t cub_bytes = temp_bytes - used;
    if (e == cudaSuccess)
        e = cub::DeviceRadixSort::SortPairs(at, cub_bytes, keys, keys_out, rec[0], rec[1], (int64_t)n, 0, 32, stream);
    if (e != cudaSuccess) return e;
    srk_rec_unpack<<<(n + 255u) / 256u, 256, 0, stream>>>(rec[1], dst, n);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_sort_gather(sr_ray_soa src, sr_ray_soa dst, const uint32_t *order, uint32_t n,
                                      cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    srk_sort_gather<<<sr_grid_for(n, SR_SORT_KEY_BLOCK, 1u << 20), SR_SORT_KEY_BLOCK, 0, stream>>>(src, dst, order, n,
                                                                                               NULL, n);
    return cudaGetLastError();
}
