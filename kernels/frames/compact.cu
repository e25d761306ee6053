/* compact.cu: ballot partitioning of live rays into the other half of the ping-pong pool,
 * and the small kernels around it (new stencil, live counts). */
#include "launch.h"
#include "stencil.cuh"

/* The grid-stride form over *live_n slots, a tile of SR_COMPACT_TILE slots per block pass:
 * 1. two warps read the tile's 64 stencil words and warp-scan their popcounts into each
 *    word's offset; thread 0 reserves the tile's range with ONE atomicAdd (per 2048 slots:
 *    the global counter is no bottleneck; measured against CUB in bench --micro);
 * 2. the moves go one thread per LIVE ray, not one per slot: thread t of the tile's live
 *    rays finds its word by a binary search over the 64 offsets and its lane as the
 *    (t - offset)-th set bit of that word (__fns), which is the ballot partition's rank
 *    popc(m & lanemask_lt) turned around. A sparse tile keeps every lane busy instead of
 *    a warp per word with a lane or two live; writes are coalesced. The words are kept in
 *    shared memory from step 1, so this step reads no stencil. A thread moves
 *    RAYS rays at once (below), all their fields loaded before any is stored.
 * The block's loop test is uniform (n is read once), so __syncthreads inside it is safe.
 * Not shared with the CPU (backend_cpu.c's sr_cpu_ballot_partition, a warp per word): this is a
 * block's frame, not a warp's (shared memory, __syncthreads, a scan across two warps, one
 * reservation per 2048-slot tile), and kernels/core/warp.h's shim models a warp only. Both
 * give each live ray base + its rank among the live rays before it; which base a word or
 * tile gets depends on timing on either backend, and nothing a ray computes depends on its
 * slot, so the images do not. */
#define SR_COMPACT_TILE (SR_COMPACT_BLOCK * 8u)
#define SR_TILE_WORDS (SR_COMPACT_TILE / 32u)
/* RAYS: live rays a thread moves at once, every field of all of them loaded before any is
 * stored. Two put twice the loads in flight where many rays move (bench --micro on the H200:
 * random half-live slots 180 -> 160 us), but their registers halve the blocks a SM, which
 * costs sparse pools more than it saves (1 % live: 28.6 -> 33.9 us; four a thread: 155 us
 * half-live, 51 us at 1 %). The launcher picks by the forecast share of live slots. */
template <uint32_t RAYS>
__device__ __forceinline__ void sr_compact_live(sr_ray_soa src, sr_ray_soa dst, const uint32_t *stencil,
                                                const uint32_t *live_n, uint32_t *counter)
{
    __shared__ uint32_t word_offset[SR_TILE_WORDS + 1u], tile_word[SR_TILE_WORDS];
    __shared__ uint32_t half_total[2];
    __shared__ uint32_t tile_base;
    const uint32_t n = *live_n, stride = gridDim.x * SR_COMPACT_TILE;
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    for (uint32_t first = blockIdx.x * SR_COMPACT_TILE; first < n; first += stride) {
        if (warp < SR_TILE_WORDS / 32u) {
            const uint32_t slot0 = first + threadIdx.x * 32u;   /* this thread's word */
            uint32_t word = slot0 < n ? stencil[slot0 >> 5] : 0u;
            if (slot0 < n && n - slot0 < 32u) word &= (1u << (n - slot0)) - 1u;   /* stale bits */
            const uint32_t c = (uint32_t)__popc(word);
            uint32_t x = c;
            for (uint32_t off = 1; off < 32u; off <<= 1) {
                const uint32_t y = __shfl_up_sync(SR_FULL_MASK, x, off);
                if (lane >= off) x += y;
            }
            word_offset[threadIdx.x] = x - c;   /* within the half; the second half adds below */
            tile_word[threadIdx.x] = word;
            if (lane == 31u) half_total[warp] = x;
        }
        __syncthreads();
        if (threadIdx.x >= 32u && threadIdx.x < SR_TILE_WORDS) word_offset[threadIdx.x] += half_total[0];
        if (threadIdx.x == 0) {
            const uint32_t total = half_total[0] + half_total[1];
            word_offset[SR_TILE_WORDS] = total;
            tile_base = total ? atomicAdd(counter, total) : 0u;
        }
        __syncthreads();
        const uint32_t total = word_offset[SR_TILE_WORDS];
        for (uint32_t t0 = threadIdx.x; t0 < total; t0 += RAYS * SR_COMPACT_BLOCK) {
            sr_ray_slot v[RAYS];
#pragma unroll
            for (uint32_t u = 0; u < RAYS; u++) {
                const uint32_t t = t0 + u * SR_COMPACT_BLOCK;
                if (t >= total) break;
                uint32_t lo = 0, hi = SR_TILE_WORDS - 1u;   /* the last word whose offset is <= t */
                while (lo < hi) {
                    const uint32_t mid = (lo + hi + 1u) >> 1;
                    if (word_offset[mid] <= t) lo = mid; else hi = mid - 1u;
                }
                const uint32_t bit = __fns(tile_word[lo], 0u, (int)(t - word_offset[lo]) + 1);
                v[u] = sr_ray_fetch(src, first + lo * 32u + bit);
            }
#pragma unroll
            for (uint32_t u = 0; u < RAYS; u++) {
                const uint32_t t = t0 + u * SR_COMPACT_BLOCK;
                if (t >= total) break;
                sr_ray_put(dst, tile_base + t, &v[u]);
            }
        }
        __syncthreads();   /* shared offsets are reused by the next tile */
    }
}
extern "C" __global__ void srk_compact_live(sr_ray_soa src, sr_ray_soa dst, const uint32_t *stencil,
                                            const uint32_t *live_n, uint32_t *counter)
{
    sr_compact_live<1u>(src, dst, stencil, live_n, counter);
}
extern "C" __global__ void srk_compact_live_pairs(sr_ray_soa src, sr_ray_soa dst, const uint32_t *stencil,
                                                  const uint32_t *live_n, uint32_t *counter)
{
    sr_compact_live<2u>(src, dst, stencil, live_n, counter);
}

/* After srk_compact_live: the first *new_n bits set and the rest of the `words` the
 * compaction covered (the host's forecast, within the stencil's `stencil_words`) cleared, as
 * the CPU backend clears the old count's words: the Whitted split appends rays past the new
 * count and ORs in their bits, so no stale bit may stay there. The old count zeroed, ready to
 * be the next compaction's counter. */
extern "C" __global__ void srk_stencil_prefix_live(uint32_t *stencil, uint32_t words, uint32_t stencil_words,
                                                   const uint32_t *new_n, uint32_t *old_n)
{
    const uint32_t live = *new_n, stride = gridDim.x * blockDim.x, live_words = (live + 31u) / 32u;
    if (live_words > words) words = live_words;   /* (a short forecast: the count is the device's) */
    if (words > stencil_words) words = stencil_words;
    for (uint32_t w = blockIdx.x * blockDim.x + threadIdx.x; w < words; w += stride)
        stencil[w] = sr_stencil_prefix_word(w, live);
    if (blockIdx.x == 0 && threadIdx.x == 0) *old_n = 0;
}

extern "C" __global__ void srk_stencil_prefix(uint32_t *stencil, uint32_t words, const uint32_t *live_dev,
                                              uint32_t live_host, uint32_t *n_out)
{
    const uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (n_out && w == 0) *n_out = live_host;
    if (w >= words) return;
    stencil[w] = sr_stencil_prefix_word(w, live_dev ? *live_dev : live_host);
}

extern "C" __global__ void srk_count_live(const uint32_t *stencil, const uint32_t *flags, uint32_t n, uint32_t *out)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t c = 0;
    if (stencil) {
        if (i < (n + 31u) / 32u) c = (uint32_t)__popc(stencil[i]);      /* one word per thread */
    } else {
        c = (uint32_t)__popc(__ballot_sync(SR_FULL_MASK, i < n && flags[i] != 0)) * ((threadIdx.x & 31u) == 0);
    }
    for (int off = 16; off > 0; off >>= 1) c += __shfl_down_sync(SR_FULL_MASK, c, off);
    if ((threadIdx.x & 31u) == 0 && c) atomicAdd(out, c);
}

extern "C" cudaError_t sr_launch_compact_live(sr_ray_soa src, sr_ray_soa dst, uint32_t *stencil, uint32_t *live_n,
                                              uint32_t *counter, uint32_t expected, float live_share,
                                              uint32_t stencil_words, cudaStream_t stream)
{
    const uint32_t grid = (expected + SR_COMPACT_TILE - 1u) / SR_COMPACT_TILE;
    void (*const compact)(sr_ray_soa, sr_ray_soa, const uint32_t *, const uint32_t *, uint32_t *) =
        live_share >= SR_COMPACT_PAIRS_FROM ? srk_compact_live_pairs : srk_compact_live;
    compact<<<grid ? grid : 1u, SR_COMPACT_BLOCK, 0, stream>>>(src, dst, stencil, live_n, counter);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    const uint32_t words = (expected + 31u) / 32u, prefix_grid = (words + 255u) / 256u;
    srk_stencil_prefix_live<<<prefix_grid ? prefix_grid : 1u, 256, 0, stream>>>(stencil, words, stencil_words, counter, live_n);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_stencil_prefix(uint32_t *stencil, uint32_t words, const uint32_t *live_dev,
                                                uint32_t live_host, uint32_t *n_out, cudaStream_t stream)
{
    if (words == 0) return cudaSuccess;
    srk_stencil_prefix<<<(words + 255u) / 256u, 256, 0, stream>>>(stencil, words, live_dev, live_host, n_out);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_count_live(const uint32_t *stencil, const uint32_t *flags, uint32_t n,
                                            uint32_t *out, cudaStream_t stream)
{
    const uint32_t threads = stencil ? (n + 31u) / 32u : n;
    if (threads == 0) return cudaSuccess;
    srk_count_live<<<(threads + 255u) / 256u, 256, 0, stream>>>(stencil, flags, n, out);
    return cudaGetLastError();
}

/* *dst = value (the live count after the Whitted split's appends, set before a compaction). */
extern "C" __global__ void srk_set_count(uint32_t *dst, uint32_t value) { *dst = value; }

extern "C" cudaError_t sr_launch_set_count(uint32_t *dst, uint32_t value, cudaStream_t stream)
{
    srk_set_count<<<1, 1, 0, stream>>>(dst, value);
    return cudaGetLastError();
}
