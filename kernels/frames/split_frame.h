/* split_frame.h: the stage masks' Whitted shade with the split (kernels/integrators/whitted.h),
 * written once for both backends as a warp body (kernels/core/warp.h): the GPU runs it as a
 * warp of threads (bounce.cu), the CPU as a loop over 32 lanes per warp (backend_cpu.c).
 *
 * Each live lane shades its ray; the rays the warp's glass hits spawn are appended to the
 * pool by ballot partitioning: m = ballot(spawns), one atomicAdd of popc(m) on the launch's
 * append counter for the warp's base, each lane's ray at split_base + base + popc(m &
 * lanemask_lt), and their stencil bits (or flags) set. split_base is past the launch's last
 * word, so no warp of this launch reads or writes back the words the appends touch; the next
 * bounce's launches cover them. Rays past the pool's end (split_end) are dropped and counted. */
#ifndef SR_SPLIT_FRAME_H
#define SR_SPLIT_FRAME_H

#include "../core/warp.h"
#include "stencil_frame.h"
#include "../integrators/stages.h"

SR_WARP_FN void sr_split_append(const sr_params *p, uint32_t *stencil, uint32_t *flags, SR_LANE_IN(bool, spawns),
                                SR_LANE_IN(sr_ray, spawn))
{
    const uint32_t m = sr_warp_ballot(spawns);
    if (m == 0) return;
    const uint32_t c = sr_popc(m);
    const uint32_t base = p->split_base + sr_warp_atomic_add(&p->split[SR_SPLIT_APPENDED], c);
    const uint32_t room = base < p->split_end ? p->split_end - base : 0u, fit = c < room ? c : room;
    SR_FOR_LANES {
        const uint32_t k = sr_popc(m & sr_lanemask_lt(lane));
        if (SR_L(spawns) && k < fit) {
            sr_ray_store(p->ray, base + k, &SR_L(spawn));
            if (flags) flags[base + k] = 1u;
        }
    }
    if (SR_LEADER && fit < c) sr_split_drop(p, c - fit);
    if (SR_LEADER && stencil && fit) {   /* publish: set the appended rays' stencil bits */
        const uint32_t s = base & 31u;
        const uint64_t bits = (fit == 32u ? 0xffffffffull : ((1ull << fit) - 1ull)) << s;
        sr_atomic_or(&stencil[base >> 5], (uint32_t)bits);
        if (bits >> 32) sr_atomic_or(&stencil[(base >> 5) + 1u], (uint32_t)(bits >> 32));
    }
}

/* The shade stage under the stencil (the stencil frame's test and ballot write-back), with
 * the appends. Lanes hold slots i of one word. */
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
    sr_split_append(p, stencil, NULL, spawns, spawn);
    sr_stencil_write_back(stencil, SR_UNIFORM(i) >> 5, word, alive);
}

/* The same under the flags mask: slots i < p->n whose flag is set. */
SR_WARP_FN void sr_split_shade_flags(const sr_params *p, uint32_t *flags, SR_LANE_IN(uint32_t, i), uint32_t bounce)
{
    SR_LANE_VAR(bool, spawns);
    SR_LANE_VAR(sr_ray, spawn);
    SR_FOR_LANES {
        SR_L(spawns) = false;
        if (SR_L(i) < p->n && flags[SR_L(i)] != 0u)
            flags[SR_L(i)] = sr_stage_shade_whitted_split(p, SR_L(i), bounce, &SR_L(spawn), &SR_L(spawns)) ? 1u : 0u;
    }
    sr_split_append(p, NULL, flags, spawns, spawn);
}

#endif
