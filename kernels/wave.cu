/* wave.cu: the wave mask's kernels (policy in wave.h).
 *
 * srk_wave_first*: round 0, one thread per slot of the tiled image: stencil test, generate,
 *   bounce in registers while the warp is dense, ballot write-back.
 * srk_wave_round*: round r >= 1 over the packed queue that round r - 1 filled. Warps fetch
 *   stencil words from a counter (so a warp whose paths run long holds up no block), bounce
 *   while dense, and the last round runs every path to its end.
 * A warp that turns sparse moves its live rays to the next round's queue by ballot
 * partitioning (one atomicAdd per warp, rank = popc(ballot & lanemask_lt)), sets their bits in
 * that queue's stencil and writes back an empty word: its slots no longer hold live rays.
 * Queue counts stay on the device; a round whose queue is empty exits at once. */
#include "launch.h"
#include "stages.h"
#include "stencil.cuh"
#include "wave.h"

#define SR_WAVE_WARPS (SR_WAVE_BLOCK / 32u)

template <bool PATH>
__device__ __forceinline__ bool sr_wave_trace(const sr_params *p, uint32_t i, uint32_t bounce)
{
    return PATH ? sr_stage_trace_path(p, i, bounce) : sr_stage_trace_whitted(p, i, bounce);
}

/* Rays entering intersect per bounce, summed per block in shared memory, then added to the
 * global counts once per block. */
__device__ __forceinline__ void sr_wave_hist_clear(uint32_t *hist)
{
    for (uint32_t k = threadIdx.x; k < SR_MAX_DEPTH; k += blockDim.x) hist[k] = 0;
    __syncthreads();
}
__device__ __forceinline__ void sr_wave_hist_flush(uint32_t *hist, uint32_t *ray_count)
{
    __syncthreads();
    for (uint32_t k = threadIdx.x; k < SR_MAX_DEPTH; k += blockDim.x)
        if (hist[k]) atomicAdd(&ray_count[k], hist[k]);
}

/* Where a warp's sparse survivors go: the next round's queue. */
typedef struct sr_wave_queue {
    sr_ray_soa pool;
    uint32_t *stencil;   /* zero where nothing was queued */
    uint32_t *count;
} sr_wave_queue;

/* The kernel frame of one warp over one stencil word: the stencil test (the caller loaded
 * `word`), the bounces, and the ballot write-back through the single exit. A lane's bounce
 * number travels with its ray. Without a queue (the last round) the warp runs until every
 * path has ended; otherwise it stops once fewer than dense_min lanes are alive and moves
 * them to the queue. */
template <bool PATH>
__device__ __forceinline__ void sr_wave_warp(const sr_params *p, uint32_t *stencil, uint32_t i, uint32_t word,
                                             bool alive, uint32_t bounce, uint32_t dense_min,
                                             const sr_wave_queue *next, uint32_t *hist)
{
    const uint32_t lane = threadIdx.x & 31u;
    uint32_t m = __ballot_sync(SR_FULL_MASK, alive);
    while (m != 0 && (!next || (uint32_t)__popc(m) >= dense_min)) {
        /* One shared add per warp when its lanes are at one bounce (always in round 0). */
        const uint32_t lead = __shfl_sync(SR_FULL_MASK, bounce, __ffs(m) - 1);
        if (__all_sync(SR_FULL_MASK, !alive || bounce == lead)) {
            if (lane == 0) atomicAdd(&hist[lead], (uint32_t)__popc(m));
        } else if (alive) {
            atomicAdd(&hist[bounce], 1u);
        }
        if (alive) {
            alive = sr_wave_trace<PATH>(p, i, bounce);
            bounce++;
        }
        m = __ballot_sync(SR_FULL_MASK, alive);
    }
    if (m != 0) {   /* sparse: ballot partitioning into the queue (warp-uniform branch) */
        const uint32_t c = (uint32_t)__popc(m);
        uint32_t base = 0;
        if (lane == 0) {
            base = atomicAdd(next->count, c);
            const uint32_t w0 = base >> 5, s = base & 31u;
            const uint64_t bits = (c == 32u ? 0xffffffffull : ((1ull << c) - 1ull)) << s;
            atomicOr(&next->stencil[w0], (uint32_t)bits);
            if (bits >> 32) atomicOr(&next->stencil[w0 + 1u], (uint32_t)(bits >> 32));
        }
        base = __shfl_sync(SR_FULL_MASK, base, 0);
        if (alive) {
            const uint32_t to = base + (uint32_t)__popc(m & sr_lanemask_lt(lane));
            sr_ray_copy(next->pool, to, p->ray, i);
            next->pool.bounce[to] = (uint8_t)bounce;
            alive = false;   /* moved: this slot no longer holds a live ray */
        }
    }
    sr_stencil_write_back(stencil, i, word, alive);
}

template <bool PATH>
__device__ __forceinline__ void sr_wave_first(const sr_params &p, const sr_wave_args &w)
{
    __shared__ uint32_t hist[SR_MAX_DEPTH];
    sr_wave_hist_clear(hist);
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t *stencil = w.first[w.parity];
    const uint32_t word = sr_stencil_load(stencil, i);
    /* Next sample's round-0 stencil, refilled now: this one ends empty. */
    if ((threadIdx.x & 31u) == 0) w.first[w.parity ^ 1u][i >> 5] = SR_FULL_MASK;
    if (word != 0) {   /* warp-uniform */
        bool alive = SR_STENCIL_TEST(word, i);
        if (alive) alive = sr_stage_generate_tiled(&p, i, w.tiled);
        sr_wave_queue next = { w.pool[1], w.stencil[1], &w.ctl[1] };
        sr_wave_warp<PATH>(&p, stencil, i, word, alive, 0u, w.dense_min, w.rounds ? &next : NULL, hist);
    }
    sr_wave_hist_flush(hist, p.ray_count);
}

template <bool PATH>
__device__ __forceinline__ void sr_wave_round(const sr_params &p0, const sr_wave_args &w, uint32_t round)
{
    __shared__ uint32_t hist[SR_MAX_DEPTH];
    __shared__ uint32_t fetched[SR_WAVE_WARPS];
    sr_wave_hist_clear(hist);
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    sr_params p = p0;
    p.ray = w.pool[round & 1u];
    uint32_t *stencil = w.stencil[round & 1u];
    const uint32_t words = (w.ctl[round] + 31u) / 32u;
    uint32_t *next_word = &w.ctl[SR_WAVE_ROUNDS_MAX + 1u + round];
    sr_wave_queue next = { w.pool[(round + 1u) & 1u], w.stencil[(round + 1u) & 1u], &w.ctl[round + 1u] };
    for (;;) {
        if (lane == 0) fetched[warp] = atomicAdd(next_word, 1u);
        __syncwarp();
        const uint32_t wd = fetched[warp];
        __syncwarp();
        if (wd >= words) break;   /* warp-uniform */
        const uint32_t i = wd * 32u + lane;
        const uint32_t word = sr_stencil_load(stencil, i);
        const bool alive = SR_STENCIL_TEST(word, i);
        sr_wave_warp<PATH>(&p, stencil, i, word, alive, alive ? p.ray.bounce[i] : 0u, w.dense_min,
                           round < w.rounds ? &next : NULL, hist);
    }
    sr_wave_hist_flush(hist, p.ray_count);
}

extern "C" __global__ void srk_wave_first(sr_params p, sr_wave_args w) { sr_wave_first<false>(p, w); }
extern "C" __global__ void srk_wave_first_path(sr_params p, sr_wave_args w) { sr_wave_first<true>(p, w); }
extern "C" __global__ void srk_wave_round(sr_params p, sr_wave_args w, uint32_t r) { sr_wave_round<false>(p, w, r); }
extern "C" __global__ void srk_wave_round_path(sr_params p, sr_wave_args w, uint32_t r) { sr_wave_round<true>(p, w, r); }

extern "C" cudaError_t sr_wave_resident_blocks(int path, int device, uint32_t *blocks)
{
    int per_sm = 0, sms = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, path ? (const void *)srk_wave_round_path : (const void *)srk_wave_round, SR_WAVE_BLOCK, 0);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e != cudaSuccess) return e;
    *blocks = (uint32_t)((per_sm > 0 ? per_sm : 1) * sms);
    return cudaSuccess;
}

extern "C" cudaError_t sr_launch_wave(const sr_params *p, const sr_wave_args *w, const uint32_t *round_grid,
                                      cudaStream_t stream)
{
    const bool path = p->scene.integrator == SR_INTEGRATOR_PATH;
    const uint32_t grid = w->slots / SR_WAVE_BLOCK;   /* slots: a multiple of SR_POOL_ALIGN */
    if (path) srk_wave_first_path<<<grid, SR_WAVE_BLOCK, 0, stream>>>(*p, *w);
    else srk_wave_first<<<grid, SR_WAVE_BLOCK, 0, stream>>>(*p, *w);
    cudaError_t e = cudaGetLastError();
    for (uint32_t r = 1; e == cudaSuccess && r <= w->rounds; r++) {
        if (path) srk_wave_round_path<<<round_grid[r], SR_WAVE_BLOCK, 0, stream>>>(*p, *w, r);
        else srk_wave_round<<<round_grid[r], SR_WAVE_BLOCK, 0, stream>>>(*p, *w, r);
        e = cudaGetLastError();
    }
    return e;
}
