/* stencil.cuh: the kernel frame. Slot i, thread i and stencil bit i are one index, so a
 * warp's ballot word lines up with its stencil word. Launches cover whole warps whose words
 * exist (pools are allocated in multiples of SR_POOL_ALIGN), so every lane of a warp can take
 * part in the shuffle and the ballot. */
#ifndef SR_STENCIL_CUH
#define SR_STENCIL_CUH

#include "../core/compat.h"
#include "launch.h"

#define SR_FULL_MASK 0xffffffffu

/* This block's copy of the ray counts (launch.h); blocks of a 2D grid (the wave mask's in
 * launch order) are numbered row by row. */
__device__ __forceinline__ uint32_t *sr_count_copy(uint32_t *ray_count)
{
    return ray_count + ((blockIdx.y * gridDim.x + blockIdx.x) % SR_COUNT_COPIES) * SR_MAX_DEPTH;
}

/* The warp's stencil word: read once by lane 0, broadcast to the other lanes. */
__device__ __forceinline__ uint32_t sr_stencil_load(const uint32_t *stencil, uint32_t i)
{
    uint32_t word = 0;
    if ((threadIdx.x & 31u) == 0) word = stencil[i >> 5];
    return __shfl_sync(SR_FULL_MASK, word, 0);
}

/* Is ray i live in its warp's word? */
#define SR_STENCIL_TEST(word, i) ((((word) >> ((i) & 31u)) & 1u) != 0u)

/* Ballot write-back: every lane votes its alive flag; lane 0 writes the warp's new word, and
 * only if it changed. Every lane must reach this (no early return after the test). */
__device__ __forceinline__ uint32_t sr_stencil_write_back(uint32_t *stencil, uint32_t i, uint32_t word, bool alive)
{
    const uint32_t m = __ballot_sync(SR_FULL_MASK, alive);
    if ((threadIdx.x & 31u) == 0 && m != word) stencil[i >> 5] = m;
    return m;
}

/* The kernel frame, written once for every stencil-masked kernel (the stage launches, their
 * grid-stride forms and the micro-benchmark's): the warp's word read once; a warp whose word
 * is 0 leaves at once, all lanes together (a uniform exit, so no ballot is left waiting);
 * otherwise each live lane runs `stage(i)` (a callable returning whether the ray lives on),
 * and every lane reaches the ballot write-back. With `count`, lane 0 adds the word's live
 * rays to it first. */
template <typename Stage>
__device__ __forceinline__ void sr_stencil_frame(uint32_t *stencil, uint32_t i, const Stage &stage, uint32_t *count)
{
    const uint32_t word = sr_stencil_load(stencil, i);
    if (word == 0) return;
    if (count && (threadIdx.x & 31u) == 0) atomicAdd(count, (unsigned)__popc(word));
    bool alive = SR_STENCIL_TEST(word, i);
    if (alive) alive = stage(i);
    sr_stencil_write_back(stencil, i, word, alive);
}

/* The same frame over slots [0, n) as a grid-stride loop over the resident grid. The loop test
 * is on the warp's first slot, so a warp enters and leaves together and its ballot stays
 * whole. */
template <typename Stage>
__device__ __forceinline__ void sr_stencil_frame_loop(uint32_t *stencil, uint32_t n, const Stage &stage, uint32_t *count)
{
    const uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; (i & ~31u) < n; i += stride)
        sr_stencil_frame(stencil, i, stage, count);
}

#endif
