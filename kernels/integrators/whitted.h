/* whitted.h: the Whitted integrator's shading of one hit, for both backends: diffuse and
 * emissive surfaces end the path with the light gathered there (lights.h); mirror, glass,
 * metal and pbr send one ray on. */
#ifndef SR_WHITTED_H
#define SR_WHITTED_H

#include "camera.h"
#include "lights.h"

/* The ray a Whitted vertex sends on (mirror, glass, metal, pbr), written into *r; false
 * when it is absorbed. x: the hit; xs: where rays leaving on n's side start; n: the geometric
 * normal on the ray's side; ns: the shading normal (smooth: it differs from n). */
SR_HD bool sr_whitted_next(const sr_params *p, sr_ray *r, uint32_t bounce, uint32_t pixel, const sr_material *m,
                           sr_vec3 d, sr_vec3 x, sr_vec3 xs, sr_vec3 n, sr_vec3 ns, bool smooth, bool front,
                           sr_vec3 pbr_f, sr_vec3 tp)
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
 * film, then either turn *r into the continuation ray or end the path. */
SR_HD bool sr_shade_whitted(const sr_params *p, sr_ray *r, uint32_t bounce, sr_hit h)
{
    const sr_scene_view *s = &p->scene;
    const sr_vec3 tp = r->tp, d = r->d;
    const uint32_t pixel = r->pixel;
    if (h.prim == SR_NO_HIT) {
        sr_film_add(p, pixel, sr_mul(tp, sr_sky(s, d)));
        return false;
    }
    sr_vec3 x = sr_madd(r->o, d, h.t);
    const sr_prim *prim = sr_hit_prim(s, h);
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
        sr_film_add(p, pixel, sr_mul(tp, sr_direct_light_ns(s, xs, n, ns, sr_diffuse_albedo(m, x, n))));
        return false;
    }
    if (m->kind == SR_MAT_EMISSIVE) {
        if (front || m->two_sided) sr_film_add(p, pixel, sr_mul(tp, m->color));
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
                      sr_whitted_next(p, r, bounce, pixel, m, d, x, xs, n, ns, smooth, front, pbr_f, tp);
    if (m->kind == SR_MAT_PBR) {
        const sr_vec3 kd = sr_scale(sr_mul(sr_sub(sr_v3s(1.0f), pbr_f), m->color), 1.0f - m->metallic);
        sr_vec3 lit = sr_direct_light_ns(s, xs, n, ns, kd);
        if (front) lit = sr_add(lit, m->color2);
        sr_film_add(p, pixel, sr_mul(tp, lit));
    }
    return next;
}

#endif
