/* sortkey.h: the coherence key of a live ray, one 32-bit word that the sort stage
 * orders the compacted pool by, so that neighbouring rays (one warp) trace similar paths:
 *   dir-morton: direction octant in the high 3 bits, then a 29-bit Morton code of the ray's
 *               origin (the last hit point) quantised in the scene's bounds (the BVH root box;
 *               points outside it are clamped to its faces);
 *   material:   the material of the last hit in the high 14 bits, then the octant and the top
 *               15 bits of the same Morton code.
 * Keys only decide the order of the pool; the image does not depend on them. */
#ifndef SR_SORTKEY_H
#define SR_SORTKEY_H

#include "../core/raystate.h"
#include "../core/intersect.h"

/* --sort: which sort (none: the stage is off); --sort-key: which key. */
typedef enum sr_sort_algo { SR_SORT_NONE = 0, SR_SORT_MERGE, SR_SORT_RADIX, SR_SORT_ALGO_COUNT } sr_sort_algo;
typedef enum sr_sort_key { SR_SORT_KEY_DIR_MORTON = 0, SR_SORT_KEY_MATERIAL, SR_SORT_KEY_COUNT } sr_sort_key;

/* Pads a sorted range past the live rays: no live ray's key is this (sr_sort_key_live). */
#define SR_SORT_KEY_PAD 0xffffffffu

/* The box origins are quantised in, with 1/extent per axis (0 for a flat axis). */
typedef struct sr_sort_box {
    sr_vec3 lo, inv;
} sr_sort_box;

SR_HD float sr_sort_inv_extent(float lo, float hi) { return hi > lo ? 1.0f / (hi - lo) : 0.0f; }

/* The BVH root box; a scene without bounded prims (planes only) gets a box of side 2 around
 * the camera (any box gives a valid key). */
SR_HD sr_sort_box sr_sort_box_of(const sr_scene_view *s)
{
    sr_sort_box b;
    sr_vec3 lo, hi;
    if (s->node_count > 0) {
        lo = s->nodes[0].lo;
        hi = s->nodes[0].hi;
    } else {
        lo = sr_sub(s->camera.origin, sr_v3s(1.0f));
        hi = sr_add(s->camera.origin, sr_v3s(1.0f));
    }
    b.lo = lo;
    b.inv = sr_v3(sr_sort_inv_extent(lo.x, hi.x), sr_sort_inv_extent(lo.y, hi.y), sr_sort_inv_extent(lo.z, hi.z));
    return b;
}

/* 10 bits of position along one axis; NaN and everything below the box give 0. */
SR_HD uint32_t sr_sort_quantise(float x, float lo, float inv)
{
    const float t = (x - lo) * inv;
    return t > 0.0f ? (t < 1.0f ? (uint32_t)(t * 1023.0f) : 1023u) : 0u;
}

/* Spread the low 10 bits of v to every third bit (bit i goes to bit 3i). */
SR_HD uint32_t sr_morton_spread(uint32_t v)
{
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

/* 30-bit Morton code of p in the box: x in the highest of each triple. */
SR_HD uint32_t sr_morton30(sr_vec3 p, const sr_sort_box *b)
{
    return (sr_morton_spread(sr_sort_quantise(p.x, b->lo.x, b->inv.x)) << 2) |
           (sr_morton_spread(sr_sort_quantise(p.y, b->lo.y, b->inv.y)) << 1) |
           sr_morton_spread(sr_sort_quantise(p.z, b->lo.z, b->inv.z));
}

/* Direction octant: one bit per negative component. */
SR_HD uint32_t sr_dir_octant(sr_vec3 d)
{
    return (d.x < 0.0f ? 4u : 0u) | (d.y < 0.0f ? 2u : 0u) | (d.z < 0.0f ? 1u : 0u);
}

/* A live ray's key is never the pad. */
SR_HD uint32_t sr_sort_key_live(uint32_t key) { return key == SR_SORT_KEY_PAD ? SR_SORT_KEY_PAD - 1u : key; }

SR_HD uint32_t sr_sort_key_dir_morton(sr_vec3 o, sr_vec3 d, const sr_sort_box *b)
{
    return sr_sort_key_live((sr_dir_octant(d) << 29) | (sr_morton30(o, b) >> 1));
}

SR_HD uint32_t sr_sort_key_material(uint32_t material, sr_vec3 o, sr_vec3 d, const sr_sort_box *b)
{
    const uint32_t m = material < 0x3fffu ? material : 0x3fffu;
    return sr_sort_key_live((m << 18) | (sr_dir_octant(d) << 15) | (sr_morton30(o, b) >> 15));
}

/* The key of the ray in `slot` of p->ray. The material key reads the hit that shade just
 * used (p->hit_prim[slot]), so it must be taken before compaction moves the ray. */
SR_HD uint32_t sr_sort_ray_key(const sr_params *p, uint32_t slot, int kind, const sr_sort_box *b)
{
    const sr_vec3 o = sr_v3(p->ray.ox[slot], p->ray.oy[slot], p->ray.oz[slot]);
    const sr_vec3 d = sr_v3(p->ray.dx[slot], p->ray.dy[slot], p->ray.dz[slot]);
    if (kind == SR_SORT_KEY_MATERIAL) {
        sr_hit h;
        h.t = p->hit_t[slot];
        h.prim = p->hit_prim[slot];
        sr_prim placed;
        const sr_prim *prim = sr_hit_prim(&p->scene, h, &placed);
        return sr_sort_key_material(prim ? prim->material : 0x3fffu, o, d, b);
    }
    return sr_sort_key_dir_morton(o, d, b);
}

#endif
