/* wave.cu: the wave mask's two kernels (policy in wave.h).
 *
 * srk_wave_first*: round 0, one thread per slot of the tiled image. Stencil test, generate,
 *   bounce in registers while the warp is dense, ballot write-back.
 * srk_wave_tail*: every later round in ONE cooperative launch, so that the host neither
 *   launches bounces that have no rays nor waits to learn that: ballot-partition compaction,
 *   a grid-wide barrier, the round over the packed pool, a barrier, and so on until no ray
 *   is left. Resident blocks fetch stencil words from a counter, so warps whose paths run
 *   long do not hold up the others. */
#include <cooperative_groups.h>

#include "launch.h"
#include "stages.h"
#include "stencil.cuh"
#include "wave.h"

namespace cg = cooperative_groups;

#define SR_WAVE_WARPS (SR_WAVE_BLOCK / 32u)
#define SR_WAVE_TILE_WORDS 32u   /* compaction tile: 32 stencil words = 1024 slots */

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

/* The kernel frame of one warp over one stencil word: the stencil test (the caller loaded
 * `word`), the bounces, and the ballot write-back through the single exit. A lane's bounce
 * number travels with its ray; `finish` runs the warp until every path has ended, otherwise
 * it stops as soon as fewer than dense_min lanes are alive. */
template <bool PATH>
__device__ __forceinline__ void sr_wave_warp(const sr_params *p, uint32_t *stencil, uint32_t i, uint32_t word,
                                             bool alive, uint32_t bounce, uint32_t dense_min, bool finish,
                                             uint32_t *hist)
{
    uint32_t m = __ballot_sync(SR_FULL_MASK, alive);
    while (m != 0 && (finish || (uint32_t)__popc(m) >= dense_min)) {
        /* One shared add per warp when its lanes are at one bounce (always in round 0). */
        const uint32_t lead = __shfl_sync(SR_FULL_MASK, bounce, __ffs(m) - 1);
        if (__all_sync(SR_FULL_MASK, !alive || bounce == lead)) {
            if ((threadIdx.x & 31u) == 0) atomicAdd(&hist[lead], (uint32_t)__popc(m));
        } else if (alive) {
            atomicAdd(&hist[bounce], 1u);
        }
        if (alive) {
            alive = sr_wave_trace<PATH>(p, i, bounce);
            bounce++;
        }
        m = __ballot_sync(SR_FULL_MASK, alive);
    }
    if (alive) p->ray.bounce[i] = (uint8_t)bounce;
    sr_stencil_write_back(stencil, i, word, alive);
}

template <bool PATH>
__device__ __forceinline__ void sr_wave_first(sr_params p, sr_wave_args w)
{
    __shared__ uint32_t hist[SR_MAX_DEPTH];
    sr_wave_hist_clear(hist);
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0)
        for (int k = 0; k < 4; k++) w.ctl[k] = 0;   /* the tail's counters (it runs after us) */
    uint32_t *stencil = w.first[w.parity];
    const uint32_t word = sr_stencil_load(stencil, i);
    /* Next sample's round-0 stencil, refilled now: this one ends holding survivors. */
    if ((threadIdx.x & 31u) == 0) w.first[w.parity ^ 1u][i >> 5] = SR_FULL_MASK;
    if (word != 0) {   /* warp-uniform */
        bool alive = SR_STENCIL_TEST(word, i);
        if (alive) alive = sr_stage_generate_tiled(&p, i);
        sr_wave_warp<PATH>(&p, stencil, i, word, alive, 0u, w.dense_min, false, hist);
    }
    sr_wave_hist_flush(hist, p.ray_count);
}

/* Ballot partitioning of src's live rays (n slots under src_stencil) into dst, a tile of
 * 1024 slots per block pass: warp 0 scans the tile's 32 word counts and reserves the tile's
 * range with one atomicAdd; each warp moves its words' rays to base + popc(m & lanemask_lt);
 * warp 0 then sets the range's bits in dst_stencil (plain stores for words the range covers,
 * atomicOr for the two it may share with other tiles; dst_stencil is zero before). */
__device__ __forceinline__ void sr_wave_compact(sr_ray_soa src, const uint32_t *src_stencil, uint32_t n,
                                                sr_ray_soa dst, uint32_t *dst_stencil, uint32_t *counter)
{
    __shared__ uint32_t tile_word[SR_WAVE_TILE_WORDS], word_offset[SR_WAVE_TILE_WORDS];
    __shared__ uint32_t tile_base, tile_total;
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    for (uint32_t first = blockIdx.x * SR_WAVE_TILE_WORDS * 32u; first < n; first += gridDim.x * SR_WAVE_TILE_WORDS * 32u) {
        if (warp == 0) {
            const uint32_t slot0 = first + lane * 32u;
            uint32_t word = slot0 < n ? src_stencil[slot0 >> 5] : 0u;
            if (slot0 < n && n - slot0 < 32u) word &= (1u << (n - slot0)) - 1u;
            const uint32_t c = (uint32_t)__popc(word);
            uint32_t x = c;
            for (uint32_t off = 1; off < 32u; off <<= 1) {
                const uint32_t y = __shfl_up_sync(SR_FULL_MASK, x, off);
                if (lane >= off) x += y;
            }
            tile_word[lane] = word;
            word_offset[lane] = x - c;
            if (lane == 31u) {
                tile_total = x;
                tile_base = x ? atomicAdd(counter, x) : 0u;
            }
        }
        __syncthreads();
        const uint32_t base = tile_base, total = tile_total;
        for (uint32_t k = warp; k < SR_WAVE_TILE_WORDS; k += SR_WAVE_WARPS) {
            const uint32_t word = tile_word[k];
            if (word == 0) continue;   /* warp-uniform */
            const uint32_t i = first + k * 32u + lane;
            const bool alive = SR_STENCIL_TEST(word, i);
            const uint32_t m = __ballot_sync(SR_FULL_MASK, alive);
            if (alive) sr_ray_copy(dst, base + word_offset[k] + (uint32_t)__popc(m & sr_lanemask_lt(lane)), src, i);
        }
        if (warp == 0 && total) {
            const uint32_t end = base + total;
            for (uint32_t wd = (base >> 5) + lane; wd <= (end - 1u) >> 5; wd += 32u) {
                const uint32_t lo = max(base, wd * 32u), hi = min(end, wd * 32u + 32u);
                const uint32_t bits = (hi - lo == 32u ? SR_FULL_MASK : (1u << (hi - lo)) - 1u) << (lo - wd * 32u);
                if (bits == SR_FULL_MASK) dst_stencil[wd] = bits;
                else atomicOr(&dst_stencil[wd], bits);
            }
        }
        __syncthreads();   /* the shared tile is reused by the next pass */
    }
}

template <bool PATH>
__device__ __forceinline__ void sr_wave_tail(sr_params p, sr_wave_args w)
{
    __shared__ uint32_t hist[SR_MAX_DEPTH];
    __shared__ uint32_t fetched[SR_WAVE_WARPS];
    sr_wave_hist_clear(hist);
    cg::grid_group grid = cg::this_grid();
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const bool grid_first = blockIdx.x == 0 && threadIdx.x == 0;
    sr_ray_soa src = w.pool[0];
    const uint32_t *src_stencil = w.first[w.parity];
    uint32_t n = w.slots;
    for (uint32_t round = 1;; round++) {
        /* Counters: ctl[round & 1] counts this round's rays, ctl[2 + (round & 1)] hands out its
         * stencil words; both were zeroed a round ago (or by round 0's kernel). */
        uint32_t *live_count = &w.ctl[round & 1u], *next_word = &w.ctl[2u + (round & 1u)];
        uint32_t *stencil = w.stencil[round & 1u];
        sr_ray_soa pool = w.pool[round & 1u];
        sr_wave_compact(src, src_stencil, n, pool, stencil, live_count);
        grid.sync();
        const uint32_t live = *(volatile uint32_t *)live_count;
        /* The source's stencil is read for the last time above: zero it for its next turn as a
         * destination (round 0's stencil is refilled by round 0 instead). Last round's counters
         * are free now that every thread has read them. */
        if (round > 1)
            for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < (n + 31u) / 32u; k += gridDim.x * blockDim.x)
                ((uint32_t *)src_stencil)[k] = 0u;
        if (grid_first) { w.ctl[(round + 1u) & 1u] = 0; w.ctl[2u + ((round + 1u) & 1u)] = 0; }
        if (live == 0) break;
        const bool finish = sr_wave_finishes(round, live);
        sr_params q = p;
        q.ray = pool;
        const uint32_t words = (live + 31u) / 32u;
        for (;;) {
            if (lane == 0) fetched[warp] = atomicAdd(next_word, 1u);
            __syncwarp();
            const uint32_t wd = fetched[warp];
            __syncwarp();
            if (wd >= words) break;   /* warp-uniform */
            const uint32_t i = wd * 32u + lane;
            const uint32_t word = sr_stencil_load(stencil, i);
            const bool alive = SR_STENCIL_TEST(word, i);
            sr_wave_warp<PATH>(&q, stencil, i, word, alive, alive ? pool.bounce[i] : 0u, w.dense_min, finish, hist);
        }
        if (finish) break;   /* every path has ended; both stencils are zero again */
        grid.sync();
        src = pool;
        src_stencil = stencil;
        n = live;
    }
    sr_wave_hist_flush(hist, p.ray_count);
}

extern "C" __global__ void __launch_bounds__(SR_WAVE_BLOCK) srk_wave_first(sr_params p, sr_wave_args w) { sr_wave_first<false>(p, w); }
extern "C" __global__ void __launch_bounds__(SR_WAVE_BLOCK) srk_wave_first_path(sr_params p, sr_wave_args w) { sr_wave_first<true>(p, w); }
extern "C" __global__ void __launch_bounds__(SR_WAVE_BLOCK) srk_wave_tail(sr_params p, sr_wave_args w) { sr_wave_tail<false>(p, w); }
extern "C" __global__ void __launch_bounds__(SR_WAVE_BLOCK) srk_wave_tail_path(sr_params p, sr_wave_args w) { sr_wave_tail<true>(p, w); }

extern "C" cudaError_t sr_wave_tail_grid(int path, int device, uint32_t *grid)
{
    int per_sm = 0, sms = 0, coop = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, path ? (const void *)srk_wave_tail_path : (const void *)srk_wave_tail, SR_WAVE_BLOCK, 0);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device);
    if (e != cudaSuccess) return e;
    if (!coop || per_sm < 1) return cudaErrorNotSupported;
    *grid = (uint32_t)(per_sm * sms);
    return cudaSuccess;
}

extern "C" cudaError_t sr_launch_wave(const sr_params *p, const sr_wave_args *w, cudaStream_t stream)
{
    const bool path = p->scene.integrator == SR_INTEGRATOR_PATH;
    const uint32_t grid = w->slots / SR_WAVE_BLOCK;   /* slots: a multiple of SR_POOL_ALIGN */
    if (path) srk_wave_first_path<<<grid, SR_WAVE_BLOCK, 0, stream>>>(*p, *w);
    else srk_wave_first<<<grid, SR_WAVE_BLOCK, 0, stream>>>(*p, *w);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess || p->scene.max_depth <= 1) return e;   /* depth 1: nothing survives round 0 */
    sr_params pc = *p;
    sr_wave_args wc = *w;
    void *args[] = { &pc, &wc };
    return cudaLaunchCooperativeKernel(path ? (const void *)srk_wave_tail_path : (const void *)srk_wave_tail,
                                       dim3(w->tail_grid), dim3(SR_WAVE_BLOCK), args, 0, stream);
}
