/* split_frame.h: the stage masks' Whitted shade with the split (kernels/integrators/whitted.h),
 * written once for both backends as a warp body (kernels/core/warp.h): the GPU runs it as a
 * warp of threads (bounce.cu), the CPU as a loop over 32 lanes per warp (backend_cpu.c).
 *
 * Each live lane shades its ray; the rays the warp's glass hits spawn are placed by ballot
 * partitioning (m = ballot(spawns), rank k = popc(m & lanemask_lt)): the first ones in the
 * word's own free slots (its dead lanes', the k-th spawn in the k-th free slot), set by the
 * warp's write-back; the rest appended to the pool, one atomicAdd of their count on the
 * launch's append counter for the warp's base, each at split_base + base + its rank among
 * them, and their stencil bits (or flags) set. split_base is past the launch's last word, so
 * no warp of this launch reads or writes back the words the appends touch; the next bounce's
 * launches cover them. Rays past the pool's end (split_end) are dropped and counted. */
#ifndef SR_SPLIT_FRAME_H
#define SR_SPLIT_FRAME_H

#include "../core/warp.h"
#include "stencil_frame.h"
#include "../integrators/stages.h"

/* The n-th (from 0) set bit of x, which has more than n. */
SR_WARP_FN uint32_t sr_nth_bit(uint32_t x, uint32_t n)
{
#ifdef __CUDA_ARCH__
    return (uint32_t)__fns(x, 0u, (int)n + 1);
#else
    for (; n; n--) x &= x - 1u;
    return (uint32_t)__builtin_ctz(x);
#endif
}

/* Places the warp's spawned rays: first in the word's free slots (lanes whose ray died or
 * never lived, below p->n), the k-th spawn (by lane) in the k-th free slot, so that a pool
 * without compaction does not grow while its words have room; the rest appended past the
 * launch's slots by ballot partitioning, their stencil bits (or flags) set. Returns the
 * word's bits that now hold a spawned ray (the caller's write-back sets them). */
SR_WARP_FN uint32_t sr_split_place(const sr_params *p, uint32_t *stencil, uint32_t *flags, SR_LANE_IN(uint32_t, i),
                                   uint32_t alive, SR_LANE_IN(bool, spawns), SR_LANE_IN(sr_ray, spawn))
{
    const uint32_t m = sr_warp_ballot(spawns);
    if (m == 0) return 0u;
    SR_LANE_VAR(bool, inside);
    SR_FOR_LANES SR_L(inside) = SR_L(i) < p->n;
    const uint32_t free_m = ~alive & sr_warp_ballot(inside), nfree = sr_popc(free_m), c = sr_popc(m);
    const uint32_t here = c < nfree ? c : nfree, over = c - here;
    const uint32_t placed = here == nfree ? free_m : free_m & ((1u << sr_nth_bit(free_m, here)) - 1u);
    uint32_t base = 0u, fit = 0u;
    if (over) {   /* the appends: one atomicAdd for the warp */
        base = p->split_base + sr_warp_atomic_add(&p->split[SR_SPLIT_APPENDED], over);
        const uint32_t room = base < p->split_end ? p->split_end - base : 0u;
        fit = over < room ? over : room;
    }
    SR_FOR_LANES {
        if (!SR_L(spawns)) continue;
        const uint32_t k = sr_popc(m & sr_lanemask_lt(lane));
        uint32_t to;
        if (k < here) to = (SR_L(i) & ~31u) + sr_nth_bit(free_m, k);
        else if (k - here < fit) to = base + (k - here);
        else continue;   /* dropped (counted below) */
        sr_ray_store(p->ray, to, &SR_L(spawn));
        if (flags) flags[to] = 1u;
    }
    if (SR_LEADER && fit < over) sr_split_drop(p, over - fit);
    if (SR_LEADER && stencil && fit) {   /* publish the appended rays: their stencil bits */
        const uint32_t s = base & 31u;
        const uint64_t bits = (fit == 32u ? 0xffffffffull : ((1ull << fit) - 1ull)) << s;
        sr_atomic_or(&stencil[base >> 5], (uint32_t)bits);
        if (bits >> 32) sr_atomic_or(&stencil[(base >> 5) + 1u], (uint32_t)(bits >> 32));
    }
    return placed;
}

/* The shade stage under the stencil (the stencil frame's test and ballot write-back, the word
 * the live rays' and the spawned rays' placed here). Lanes hold slots i of one word. */
SR_WARP_FN void sr_split_shade_stencil(const sr_params *p, uint32_t *stencil, SR_LANE_IN(uint32_t, i), uint32_t bounce)
{
    const uint32_t word = sr_warp_load(stencil, SR_UNIFORM(i) >> 5);
    if (word == 0) return;
    SR_LANE_VAR(bool, alive);
    SR_LANE_VAR(bool, spawns);
    SR_LANE_VAR(sr_ray, spawn);
    SR_FOR_LANES {
        SR_L(spawns) = false;
        SR_L(alive) = SR_STENCIL_TEST(word, SR_L(i));
        if (SR_L(alive)) SR_L(alive) = sr_stage_shade_whitted_split(p, SR_L(i), bounce, &SR_L(spawn), &SR_L(spawns));
    }
    const uint32_t m = sr_warp_ballot(alive);
    const uint32_t next = m | sr_split_place(p, stencil, (uint32_t *)0, i, m, spawns, spawn);
    if (SR_LEADER && next != word) stencil[SR_UNIFORM(i) >> 5] = next;
}

/* The same under the flags mask: slots i < p->n whose flag is set. */
SR_WARP_FN void sr_split_shade_flags(const sr_params *p, uint32_t *flags, SR_LANE_IN(uint32_t, i), uint32_t bounce)
{
    SR_LANE_VAR(bool, alive);
    SR_LANE_VAR(bool, spawns);
    SR_LANE_VAR(sr_ray, spawn);
    SR_FOR_LANES {
        SR_L(spawns) = false;
        SR_L(alive) = SR_L(i) < p->n && flags[SR_L(i)] != 0u;
        if (SR_L(alive)) {
            SR_L(alive) = sr_stage_shade_whitted_split(p, SR_L(i), bounce, &SR_L(spawn), &SR_L(spawns));
            flags[SR_L(i)] = SR_L(alive) ? 1u : 0u;
        }
    }
    sr_split_place(p, (uint32_t *)0, flags, i, sr_warp_ballot(alive), spawns, spawn);
}

#endif
