/* wave.cu: the wave mask's kernel (policy in wave.h), one launch per sample.
 *
 * One thread per slot of the tiled image: stencil test, generate, bounce in registers while
 * the warp is dense, ballot write-back. A warp that turns sparse moves its live rays into the
 * queue by ballot partitioning (one atomicAdd per warp, rank = popc(ballot & lanemask_lt))
 * and writes back an empty word. The queue is cut into 32-ray chunks; the warp whose rays
 * complete a chunk owns it and bounces it next, the same way, so rays of sparse warps run
 * again in dense warps while the first rays still fill the GPU, and nothing is contended.
 * The last warp to finish runs the last, partial chunk to its end.
 *
 * A queue entry is published by its stencil bit: the writer stores the ray, fences, then sets
 * the bit; a chunk's owner waits until the word is full before it reads the rays (the other
 * writers have reserved their entries and are storing them, so the wait is short). */
#include "launch.h"
#include "stages.h"
#include "stencil.cuh"
#include "wave.h"

#ifndef SR_WAVE_MIN_BLOCKS
#define SR_WAVE_MIN_BLOCKS 8   /* 64 registers: measured faster than the compiler's 82 (README) */
#endif
#define SR_TOMBSTONE 0xffu     /* a queue entry of a warp that found the queue full: no ray */
#define SR_NO_CHUNK 0xffffffffu

template <bool PATH>
__device__ __forceinline__ bool sr_wave_trace(const sr_params *p, uint32_t i, uint32_t bounce)
{
    return PATH ? sr_stage_trace_path(p, i, bounce) : sr_stage_trace_whitted(p, i, bounce);
}

__device__ __forceinline__ uint32_t sr_volatile(const uint32_t *x) { return *(const volatile uint32_t *)x; }

/* Bounce the warp's live lanes while at least dense_min are alive (all the way when
 * `finish`); returns the final ballot. Rays entering intersect are counted per bounce in
 * shared memory (one add per warp while its lanes share a bounce, as in round 0). */
template <bool PATH>
__device__ __forceinline__ uint32_t sr_wave_bounce(const sr_params *p, uint32_t i, bool &alive, uint32_t &bounce,
                                                   uint32_t dense_min, bool finish, uint32_t *hist)
{
    uint32_t m = __ballot_sync(SR_FULL_MASK, alive);
    while (m != 0 && (finish || (uint32_t)__popc(m) >= dense_min)) {
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
    return m;
}

/* The kernel frame of one warp over one stencil word: the stencil test (the caller loaded
 * `word`), the bounces, the ballot write-back through the single exit. Without QUEUE the
 * warp runs until every path has ended. Returns the queue chunk this warp's push completed
 * (it owns it), or SR_NO_CHUNK. */
template <bool PATH, bool QUEUE>
__device__ __forceinline__ uint32_t sr_wave_warp(const sr_params *p, uint32_t *stencil, uint32_t i, uint32_t word,
                                                 bool alive, uint32_t bounce, const sr_wave_args &w, bool finish,
                                                 uint32_t *hist)
{
    const uint32_t lane = threadIdx.x & 31u;
    uint32_t owned = SR_NO_CHUNK;
    const uint32_t m = sr_wave_bounce<PATH>(p, i, alive, bounce, w.dense_min, finish || !QUEUE, hist);
    if (QUEUE && m != 0) {   /* sparse: ballot partitioning into the queue (warp-uniform) */
        const uint32_t c = (uint32_t)__popc(m), rank = (uint32_t)__popc(m & sr_lanemask_lt(lane));
        uint32_t base = 0;
        if (lane == 0) base = atomicAdd(&w.ctl[SR_WAVE_QCOUNT], c);
        base = __shfl_sync(SR_FULL_MASK, base, 0);
        const bool fits = base + c <= w.capacity;   /* else tombstones; the rays stay here */
        const uint32_t to = base + rank;
        if (alive && to < w.capacity) {
            if (fits) sr_ray_copy(w.pool[1], to, p->ray, i);
            w.pool[1].bounce[to] = fits ? (uint8_t)bounce : (uint8_t)SR_TOMBSTONE;
            __threadfence();
        }
        __syncwarp();
        if (lane == 0 && base < w.capacity) {   /* publish: set the entries' stencil bits */
            const uint32_t n = min(c, w.capacity - base), s = base & 31u;
            const uint64_t bits = (n == 32u ? 0xffffffffull : ((1ull << n) - 1ull)) << s;
            atomicOr(&w.stencil[base >> 5], (uint32_t)bits);
            if (bits >> 32) atomicOr(&w.stencil[(base >> 5) + 1u], (uint32_t)(bits >> 32));
        }
        const uint32_t end = min(base + c, w.capacity);
        if ((end & ~31u) > base) owned = (end >> 5) - 1u;   /* crossed a chunk's end */
        if (fits) alive = false;   /* moved: this slot no longer holds a live ray */
        else sr_wave_bounce<PATH>(p, i, alive, bounce, w.dense_min, true, hist);
    }
    sr_stencil_write_back(stencil, i, word, alive);
    return owned;
}

/* Queue chunk k: wait until its `expect` bits are published, then bounce it. */
template <bool PATH>
__device__ __forceinline__ uint32_t sr_wave_chunk(const sr_params *q, const sr_wave_args &w, uint32_t k,
                                                  uint32_t expect, bool finish, uint32_t *hist)
{
    const uint32_t lane = threadIdx.x & 31u, i = k * 32u + lane;
    uint32_t word = 0;
    if (lane == 0) {
        while ((word = sr_volatile(&w.stencil[k])) != expect) __nanosleep(32);
        __threadfence();
    }
    word = __shfl_sync(SR_FULL_MASK, word, 0);   /* the stencil test's word */
    bool alive = SR_STENCIL_TEST(word, i);
    const uint32_t bounce = alive ? (uint32_t)__ldcg(&q->ray.bounce[i]) : 0u;
    if (bounce == SR_TOMBSTONE) alive = false;
    return sr_wave_warp<PATH, true>(q, w.stencil, i, word, alive, bounce, w, finish, hist);
}

template <bool PATH, bool QUEUE>
__device__ __forceinline__ void sr_wave(const sr_params *p, const sr_params *q, const sr_wave_args &w)
{
    __shared__ uint32_t hist[SR_MAX_DEPTH];
    for (uint32_t k = threadIdx.x; k < SR_MAX_DEPTH; k += blockDim.x) hist[k] = 0;
    __syncthreads();
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31u;
    uint32_t *stencil = w.first[w.parity];
    const uint32_t word = sr_stencil_load(stencil, i);
    /* Next sample's stencil, refilled now: this one ends empty. */
    if (lane == 0) w.first[w.parity ^ 1u][i >> 5] = SR_FULL_MASK;
    bool alive = SR_STENCIL_TEST(word, i);
    if (alive) alive = sr_stage_generate_tiled(p, i, w.tiled);
    uint32_t owned = sr_wave_warp<PATH, QUEUE>(p, stencil, i, word, alive, 0u, w, false, hist);
    if (QUEUE) {
        while (owned != SR_NO_CHUNK) owned = sr_wave_chunk<PATH>(q, w, owned, SR_FULL_MASK, false, hist);
        /* The last warp to finish: nobody can queue more, so the partial last chunk (if
         * any) runs to its end here. */
        uint32_t last = 0;
        if (lane == 0) last = atomicAdd(&w.ctl[SR_WAVE_QDONE], 1u) + 1u == w.slots / 32u;
        if (__shfl_sync(SR_FULL_MASK, last, 0)) {
            __threadfence();
            const uint32_t n = min(sr_volatile(&w.ctl[SR_WAVE_QCOUNT]), w.capacity);
            if (n & 31u) sr_wave_chunk<PATH>(q, w, n >> 5, (1u << (n & 31u)) - 1u, true, hist);
        }
    }
    __syncthreads();
    for (uint32_t k = threadIdx.x; k < SR_MAX_DEPTH; k += blockDim.x)
        if (hist[k]) atomicAdd(&p->ray_count[k], hist[k]);
}

/* p: round 0's pool; q: the same with the queue as its pool (no copy of either is made). */
#define SR_WAVE_KERNEL(NAME, PATH, QUEUE)                                                              \
    extern "C" __global__ void __launch_bounds__(SR_WAVE_BLOCK, SR_WAVE_MIN_BLOCKS)                    \
        NAME(const __grid_constant__ sr_params p, const __grid_constant__ sr_params q,                 \
             const __grid_constant__ sr_wave_args w)                                                   \
    {                                                                                                  \
        sr_wave<PATH, QUEUE>(&p, &q, w);                                                               \
    }
SR_WAVE_KERNEL(srk_wave, false, true)
SR_WAVE_KERNEL(srk_wave_path, true, true)
SR_WAVE_KERNEL(srk_wave_depth1, false, false)   /* depth 1: no ray outlives its first bounce */
SR_WAVE_KERNEL(srk_wave_depth1_path, true, false)

extern "C" cudaError_t sr_launch_wave(const sr_params *p, const sr_wave_args *w, cudaStream_t stream)
{
    const bool path = p->scene.integrator == SR_INTEGRATOR_PATH, queue = p->scene.max_depth > 1u;
    const uint32_t grid = w->slots / SR_WAVE_BLOCK;   /* slots: a multiple of SR_POOL_ALIGN */
    sr_params q = *p;
    q.ray = w->pool[1];
    if (queue && path) srk_wave_path<<<grid, SR_WAVE_BLOCK, 0, stream>>>(*p, q, *w);
    else if (queue) srk_wave<<<grid, SR_WAVE_BLOCK, 0, stream>>>(*p, q, *w);
    else if (path) srk_wave_depth1_path<<<grid, SR_WAVE_BLOCK, 0, stream>>>(*p, q, *w);
    else srk_wave_depth1<<<grid, SR_WAVE_BLOCK, 0, stream>>>(*p, q, *w);
    return cudaGetLastError();
}
