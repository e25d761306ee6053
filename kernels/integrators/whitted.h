/* whitted.h: the Whitted integrator's shading of one hit, for both backends: diffuse and
 * emissive surfaces end the path with the light gathered there (lights.h); mirror, metal and
 * pbr send one ray on; glass, with the split (sr_params.split set), sends the refracted ray on
 * and spawns the reflected one, each weighted by Fresnel, so that glass needs no random choice
 * (without it: one of the two, picked with Schlick's probability). Rough metal and pbr stay
 * stochastic: their fuzz is a random direction.
 *
 * Where a spawned ray goes is the frame's: the stage masks append it to the pool and the wave
 * mask's first launch to its queue, both by ballot partitioning; the megakernel, the wave mask
 * without a queue and its drain keep it on the lane's stack of pending rays (sr_split_stack).
 * A ray that finds no room is dropped and counted (SR_SPLIT_DROPPED). */
#ifndef SR_WHITTED_H
#define SR_WHITTED_H

#include "camera.h"
#include "lights.h"

/* Whitted's adaptive tree depth: of a split's two branches, one whose throughput (its largest
 * channel) is below SR_SPLIT_MIN_WEIGHT and below the other's is not followed. Without it a
 * ray inside nested glass doubles at every bounce (four nested spheres at depth 16: 2 800 rays
 * a pixel); with it internal reflections (F about 0.04 a time) end after two or three, and
 * what they would add is below 1/1000 of the light they carry. */
#define SR_SPLIT_MIN_WEIGHT 1e-3f

/* The split's counters (sr_params.split): the rays appended to the pool by the current shade
 * launch of a stage mask (the driver clears it before each), and the rays dropped for want
 * of room this sample. */
#define SR_SPLIT_APPENDED 0u
#define SR_SPLIT_DROPPED 1u
#define SR_SPLIT_CTL 2u
/* The test switch that makes the split's room small (render.c): SR_SPLIT_BUDGET=N. */
#define SR_SPLIT_BUDGET_ENV "SR_SPLIT_BUDGET"

/* A lane's pending rays: the megakernel's and the wave mask's when they keep a spawned ray
 * themselves. Depth-first (the continued ray first, then the last one pushed), so a pixel's
 * tree needs at most one entry per bounce level on its current branch, depth - 1 in all:
 * SR_SPLIT_STACK of them (in local memory on the GPU; sr_params.split_stack, fewer for a
 * test) cover depth 17, and a deeper tree's rays past them are dropped and counted. */
#ifndef SR_SPLIT_STACK
#define SR_SPLIT_STACK 16u
#endif
typedef struct sr_split_stack {
    sr_ray ray[SR_SPLIT_STACK];
    uint32_t bounce[SR_SPLIT_STACK];
    uint32_t n;
} sr_split_stack;

SR_HD void sr_split_drop(const sr_params *p, uint32_t rays)
{
#ifdef __CUDA_ARCH__
    atomicAdd(&p->split[SR_SPLIT_DROPPED], rays);
#else
    __atomic_fetch_add(&p->split[SR_SPLIT_DROPPED], rays, __ATOMIC_RELAXED);
#endif
}
/* Keep ray r, which starts at bounce `bounce`, for later (or drop and count it). */
SR_HD void sr_split_keep(const sr_params *p, sr_split_stack *st, const sr_ray *r, uint32_t bounce)
{
    if (st->n >= p->split_stack) {
        sr_split_drop(p, 1u);
        return;
    }
    st->ray[st->n] = *r;
    st->bounce[st->n] = bounce;
    st->n++;
}
/* The last ray kept into *r and its bounce; false when none is left. */
SR_HD bool sr_split_pop(sr_split_stack *st, sr_ray *r, uint32_t *bounce)
{
    if (st->n == 0) return false;
    st->n--;
    *r = st->ray[st->n];
    *bounce = st->bounce[st->n];
    return true;
}

/* The ray a Whitted vertex sends on (mirror, glass, metal, pbr), written into *r; false
 * when it is absorbed. With the split (p->split and spawn not NULL), a glass hit may also
 * spawn a second ray (*spawn, and *spawns set). x: the hit; xs: where rays leaving on n's side start; n: the geometric
 * normal on the ray's side; ns: the shading normal (smooth: it differs from n). */
SR_HD bool sr_whitted_next(const sr_params *p, sr_ray *r, uint32_t bounce, uint32_t pixel, const sr_material *m,
                           sr_vec3 d, sr_vec3 x, sr_vec3 xs, sr_vec3 n, sr_vec3 ns, bool smooth, bool front,
                           sr_vec3 pbr_f, sr_vec3 tp, sr_ray *spawn, bool *spawns)
{
    sr_vec3 nd, o;
    if (m->kind == SR_MAT_GLASS) {
        /* With a smooth normal, a direction that would leave on the wrong side of the
         * geometric surface is made again with the geometric normal (second pass). */
        for (int pass = 0;; pass++) {
            const sr_vec3 sn = pass == 0 ? ns : n;
            float eta = front ? 1.0f / m->ior : m->ior;
            float cos_i = sr_minf(1.0f, -sr_dot(d, sn));
            float fresnel = front ? sr_schlick(cos_i, 1.0f, m->ior) : sr_schlick(cos_i, m->ior, 1.0f);
            sr_vec3 refracted;
            bool can_refract = sr_refract(d, sn, eta, &refracted);
            if (can_refract && !front) {
                /* Leaving the denser medium Schlick needs the transmitted angle's cosine. */
                float cos_t = -sr_dot(refracted, sn);
                fresnel = sr_schlick(cos_t, 1.0f, m->ior);
            }
            if (spawn && p->split) {   /* (spawn NULL: a kernel built without the split) */
                /* The split: the refracted ray goes on with (1 - F), the reflected one is
                 * spawned with F; total internal reflection reflects everything, no spawn. */
                const sr_vec3 rd = sr_reflect(d, sn), td = can_refract ? sr_normalize(refracted) : rd;
                if (smooth && pass == 0 && (!(sr_dot(rd, n) > 0.0f) || (can_refract && !(sr_dot(td, n) < 0.0f))))
                    continue;
                const sr_vec3 tp_r = can_refract ? sr_scale(tp, fresnel) : tp;
                const sr_vec3 tp_t = sr_mul(sr_scale(tp, 1.0f - fresnel), m->color);
                bool reflects = sr_max3(tp_r) > 0.0f, refracts = can_refract && sr_max3(tp_t) > 0.0f;
                if (reflects && refracts) {   /* the lighter branch under SR_SPLIT_MIN_WEIGHT is not followed */
                    const float wr = sr_max3(tp_r), wt = sr_max3(tp_t);
                    if (wr < SR_SPLIT_MIN_WEIGHT && wr <= wt) reflects = false;
                    else if (wt < SR_SPLIT_MIN_WEIGHT && wt < wr) refracts = false;
                }
                if (refracts && reflects) {   /* the pixel's rays are two from here: both marked, the pixel too */
                    if (r->pdf != SR_RAY_SPLIT) sr_film_mark(p, pixel);
                    r->pdf = SR_RAY_SPLIT;
                    spawn->o = sr_offset_origin(xs, n);
                    spawn->d = rd;
                    spawn->tp = tp_r;
                    spawn->pdf = SR_RAY_SPLIT;
                    spawn->pixel = pixel;
                    *spawns = true;
                }
                if (refracts) {
                    nd = td;
                    o = sr_offset_origin(x, sr_neg(n));
                    tp = tp_t;
                } else {
                    nd = rd;
                    o = sr_offset_origin(xs, n);
                    tp = tp_r;
                }
                break;
            }
            /* One path per pixel sample: pick reflection with probability F, refraction with
             * 1 - F, so the expected value is Whitted's weighted sum. */
            float u = sr_rng(p->seed, pixel, p->sample, bounce, SR_DIM_CHOICE);
            bool refl = !can_refract || u < fresnel;
            nd = refl ? sr_reflect(d, sn) : sr_normalize(refracted);
            if (smooth && pass == 0 && (refl ? !(sr_dot(nd, n) > 0.0f) : !(sr_dot(nd, n) < 0.0f))) continue;
            if (refl) {
                o = sr_offset_origin(xs, n);
            } else {
                o = sr_offset_origin(x, sr_neg(n));
                tp = sr_mul(tp, m->color);
            }
            break;
        }
    } else {
        nd = sr_reflect(d, ns);
        if (smooth && !(sr_dot(nd, n) > 0.0f)) nd = sr_reflect(d, n);
        if ((m->kind == SR_MAT_METAL || m->kind == SR_MAT_PBR) && m->roughness > 0.0f) {
            sr_vec3 fuzz = sr_unit_ball(sr_rng(p->seed, pixel, p->sample, bounce, SR_DIM_FUZZ_U),
                                        sr_rng(p->seed, pixel, p->sample, bounce, SR_DIM_FUZZ_V),
                                        sr_rng(p->seed, pixel, p->sample, bounce, SR_DIM_FUZZ_W));
            nd = sr_normalize(sr_madd(nd, fuzz, m->roughness));
            if (sr_dot(nd, n) <= 0.0f) return false;   /* scattered into the surface: absorbed */
        }
        o = sr_offset_origin(xs, n);
        tp = sr_mul(tp, m->kind == SR_MAT_PBR ? pbr_f : m->color);
    }
    if (sr_max3(tp) <= 0.0f) return false;
    r->o = o;
    r->d = nd;
    r->tp = tp;
    return true;
}

/* Whitted shading of ray *r's hit h at bounce `bounce` (0 = primary): gather light into the
 * film, then either turn *r into the continuation ray or end the path; with the split, a
 * glass hit also sets *spawns and the spawned ray *spawn (which starts at bounce + 1; the
 * caller clears *spawns before). */
SR_HD bool sr_shade_whitted(const sr_params *p, sr_ray *r, uint32_t bounce, sr_hit h, sr_ray *spawn, bool *spawns)
{
    const sr_scene_view *s = &p->scene;
    const sr_vec3 tp = r->tp, d = r->d;
    const uint32_t pixel = r->pixel;
    const bool shared = r->pdf == SR_RAY_SPLIT;   /* (camera.h: the pixel's tree has split) */
    if (h.prim == SR_NO_HIT) {
        sr_film_add_shared(p, pixel, shared, sr_mul(tp, sr_sky(s, d)));
        return false;
    }
    sr_vec3 x = sr_madd(r->o, d, h.t);
    sr_prim placed;   /* an instanced triangle, in world space */
    const sr_prim *prim = sr_hit_prim(s, h, &placed);
    const sr_material *m = &s->materials[prim->material];
    sr_vec3 n = sr_prim_normal(prim, x);
    bool front = sr_dot(d, n) < 0.0f;
    if (!front) n = sr_neg(n);   /* n now faces the side the ray came from */
    bool smooth;
    sr_vec3 xs;   /* where rays leaving on n's side start */
    const sr_vec3 ns = sr_shading_normal(s, h.prim, prim, x, n, sr_neg(d), &smooth, &xs);
    sr_material textured;   /* the material with its textures applied, when it has any */
    m = sr_material_at(s, m, h.prim, prim, x, &textured);

    if (m->kind == SR_MAT_DIFFUSE) {
        sr_film_add_shared(p, pixel, shared, sr_mul(tp, sr_direct_light_ns(s, xs, n, ns, sr_diffuse_albedo(m, x, n))));
        return false;
    }
    if (m->kind == SR_MAT_EMISSIVE) {
        if (front || m->two_sided) sr_film_add_shared(p, pixel, shared, sr_mul(tp, m->color));
        return false;
    }
    /* Whitted's approximation of the metallic-roughness model: the diffuse share
     * (1 - F)(1 - metallic) base lit like a diffuse surface, the emission, and one
     * reflection weighted by F (Schlick at the viewing angle), fuzzed by roughness. The
     * reflection is made first and the light gathered last, so that nothing the reflection
     * needs is held in registers across the shadow rays' traversals. */
    sr_vec3 pbr_f = sr_v3s(1.0f);
    if (m->kind == SR_MAT_PBR) pbr_f = sr_pbr_fresnel(m, m->color, -sr_dot(d, ns));
    const bool next = bounce + 1u < s->max_depth &&   /* out of depth: nothing more arrives */
                      sr_whitted_next(p, r, bounce, pixel, m, d, x, xs, n, ns, smooth, front, pbr_f, tp, spawn, spawns);
    if (m->kind == SR_MAT_PBR) {
        const sr_vec3 kd = sr_scale(sr_mul(sr_sub(sr_v3s(1.0f), pbr_f), m->color), 1.0f - m->metallic);
        sr_vec3 lit = sr_direct_light_ns(s, xs, n, ns, kd);
        if (front) lit = sr_add(lit, m->color2);
        sr_film_add_shared(p, pixel, shared, sr_mul(tp, lit));
    }
    return next;
}

#endif
