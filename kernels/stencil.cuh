/* stencil.cuh: the kernel frame. Slot i, thread i and stencil bit i are one index, so a
 * warp's ballot word lines up with its stencil word. Launches cover whole warps whose words
 * exist (pools are allocated in multiples of SR_POOL_ALIGN), so every lane of a warp can take
 * part in the shuffle and the ballot. */
#ifndef SR_STENCIL_CUH
#define SR_STENCIL_CUH

#include "compat.h"

#define SR_FULL_MASK 0xffffffffu

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

#endif
