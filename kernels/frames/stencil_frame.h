/* stencil_frame.h: the per-stage kernel frame, written once for both backends as a warp body
 * (kernels/core/warp.h): the GPU runs it as a warp of threads (bounce.cu's stage kernels,
 * the micro-benchmark's), the CPU as a loop over 32 lanes per warp, a warp per OpenMP
 * iteration (backend_cpu.c's sr_cpu_stencil_frame).
 *
 * Slot i, thread i and stencil bit i are one index, so a warp's ballot word lines up with its
 * stencil word. GPU launches cover whole warps whose words exist (pools are allocated in
 * multiples of SR_POOL_ALIGN), so every lane of a warp can take part in the shuffle and the
 * ballot; the CPU runs every word of [0, n) the same way.
 *
 * The stage is a callable returning whether the ray lives on: on the GPU any functor (a
 * template parameter, so each kernel inlines its own stage); in C, which has no templates, a
 * function pointer and its context (sr_stage_ref). SR_STAGE_TEMPLATE, SR_STAGE_T and
 * SR_STAGE_CALL are that difference and nothing else. */
#ifndef SR_STENCIL_FRAME_H
#define SR_STENCIL_FRAME_H

#include "../core/warp.h"

#ifdef __CUDACC__
#define SR_STAGE_TEMPLATE template <typename Stage>
#define SR_STAGE_T const Stage &
#define SR_STAGE_CALL(stage, i) (stage)(i)
#else
typedef bool (*sr_stage_fn)(const void *ctx, uint32_t slot);
typedef struct sr_stage_ref { sr_stage_fn fn; const void *ctx; } sr_stage_ref;
#define SR_STAGE_TEMPLATE
#define SR_STAGE_T sr_stage_ref
#define SR_STAGE_CALL(stage, i) (stage).fn((stage).ctx, (i))
#endif

/* Is ray i live in its warp's word? */
#define SR_STENCIL_TEST(word, i) ((((word) >> ((i) & 31u)) & 1u) != 0u)

/* Ballot write-back of the warp's stencil word k: every lane votes its alive flag; the leader
 * writes the new word, and only if it changed (one writer per word). Every lane must reach
 * this (no early return after the test). Returns the ballot. */
SR_WARP_FN uint32_t sr_stencil_write_back(uint32_t *stencil, uint32_t k, uint32_t word, SR_LANE_IN(bool, alive))
{
    const uint32_t m = sr_warp_ballot(alive);
    if (SR_LEADER && m != word) stencil[k] = m;
    return m;
}

/* The kernel frame of the warp whose lanes hold slots i (i & 31 the lane): the warp's word read
 * once (by the leader, given to every lane); a warp whose word is 0 leaves at once, all lanes
 * together (a uniform exit, so no ballot is left waiting); otherwise each live lane runs
 * `stage(i)`, and every lane reaches the ballot write-back. With `count`, the leader adds the
 * word's live rays to it first (the rays entering intersect). */
SR_STAGE_TEMPLATE
SR_WARP_FN void sr_stencil_frame(uint32_t *stencil, SR_LANE_IN(uint32_t, i), SR_STAGE_T stage, uint32_t *count)
{
    const uint32_t word = sr_warp_load(stencil, SR_UNIFORM(i) >> 5);
    if (word == 0) return;
    if (count && SR_LEADER) sr_atomic_add(count, sr_popc(word));
    SR_LANE_VAR(bool, alive);
    SR_FOR_LANES {
        SR_L(alive) = SR_STENCIL_TEST(word, SR_L(i));
        if (SR_L(alive)) SR_L(alive) = SR_STAGE_CALL(stage, SR_L(i));
    }
    sr_stencil_write_back(stencil, SR_UNIFORM(i) >> 5, word, alive);
}

#endif
