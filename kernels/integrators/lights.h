/* lights.h: the lights both integrators sample. Delta lights (point, spot, directional) are found
 * by sr_delta_light; Whitted gathers them all with one shadow ray each (sr_direct_light_ns);
 * path tracing adds one area emitter, picked by power (the emitter functions below, which
 * the host also calls to build the pick table). */
#ifndef SR_LIGHTS_H
#define SR_LIGHTS_H

#include "material.h"

/* The direction from origin to delta light l (unit, into *wi), its distance (SR_INF for a
 * directional light) and the inverse-square falloff, times a spot light's cone attenuation
 * (glTF KHR_lights_punctual's: the square of a linear ramp in the cosine from the outer cone,
 * 0, to the inner, 1); false where origin is at a point or spot light or outside the cone. */
SR_HD bool sr_delta_light(const sr_light *l, sr_vec3 origin, sr_vec3 *wi, float *dist, float *falloff)
{
    if (l->kind != SR_LIGHT_DIRECTIONAL) {
        *wi = sr_sub(l->v, origin);
        *dist = sr_length(*wi);
        if (!(*dist > 0.0f)) return false;
        *wi = sr_scale(*wi, 1.0f / *dist);
        *falloff = 1.0f / (*dist * *dist);
        if (l->kind == SR_LIGHT_SPOT) {
            const float ramp = sr_minf(1.0f, sr_maxf(0.0f, -sr_dot(l->axis, *wi) * l->cone_scale + l->cone_offset));
            if (!(ramp > 0.0f)) return false;
            *falloff *= ramp * ramp;
        }
    } else {
        *wi = sr_neg(l->v);
        *dist = SR_INF;
        *falloff = 1.0f;
    }
    return true;
}

/* Light arriving directly from the scene's lights at p (normal n facing the viewer), times
 * the Lambertian BRDF albedo / pi, with one shadow ray per light. */
SR_HD sr_vec3 sr_direct_light_ns(const sr_scene_view *s, sr_vec3 p, sr_vec3 n, sr_vec3 ns, sr_vec3 albedo);
SR_HD sr_vec3 sr_direct_light(const sr_scene_view *s, sr_vec3 p, sr_vec3 n, sr_vec3 albedo)
{
    return sr_direct_light_ns(s, p, n, n, albedo);
}

/* The same with a shading normal ns (sr_shading_normal) for the cosine, the shadow rays
 * leaving from p off the surface along the geometric n. A light the shading normal faces may
 * be just below a coarse mesh's facet (near the terminator): its shadow ray then decides. */
SR_HD sr_vec3 sr_direct_light_ns(const sr_scene_view *s, sr_vec3 p, sr_vec3 n, sr_vec3 ns, sr_vec3 albedo)
{
    sr_vec3 sum = sr_v3s(0.0f);
    sr_vec3 origin = sr_offset_origin(p, n);
    for (uint32_t i = 0; i < s->light_count; i++) {
        const sr_light *l = &s->lights[i];
        sr_vec3 to_light;
        float dist, falloff;
        if (!sr_delta_light(l, origin, &to_light, &dist, &falloff)) continue;
        float cos_l = sr_dot(ns, to_light);
        if (cos_l <= 0.0f) continue;
        if (sr_trace_occluded(s, origin, to_light, 0.0f, dist)) continue;
        sum = sr_madd(sum, l->power, cos_l * falloff);
    }
    return sr_mul(sr_add(sr_scale(sum, 1.0f / SR_PI), s->ambient), albedo);
}

/* ---- area emitters ---------------------------------------------------------------------- */

SR_HD float sr_prim_area(const sr_prim *p)
{
    switch (p->kind) {
    case SR_PRIM_SPHERE:   return 4.0f * SR_PI * p->b.x * p->b.x;
    case SR_PRIM_QUAD:     return sr_length(sr_cross(p->b, p->c));
    case SR_PRIM_TRIANGLE: return 0.5f * sr_length(sr_cross(sr_sub(p->b, p->a), sr_sub(p->c, p->a)));
    default:               return 0.0f;   /* planes are unbounded: never sampled          */
    }
}

/* The radiance a material emits: an emissive material's colour, a pbr material's emission
 * (color2, before its emission texture; the same for file materials and JSON ones). */
SR_HD sr_vec3 sr_emission(const sr_material *m)
{
    return m->kind == SR_MAT_PBR ? m->color2 : m->color;
}

/* Emissive surfaces are light-sampled: emissive materials and pbr materials that emit (a
 * glTF file's emissive triangles among them). */
SR_HD bool sr_is_emitter(const sr_material *m)
{
    return (m->kind == SR_MAT_EMISSIVE || m->kind == SR_MAT_PBR) && sr_max3(sr_emission(m)) > 0.0f;
}

/* What an emitter is picked in proportion to: area x mean radiance (x 2 when it emits from
 * both sides); an emission texture is not part of it (any positive weight keeps the estimate
 * unbiased). The host builds the pick CDF with this function and the stages divide by the
 * total, so both sides agree on the probabilities. */
SR_HD float sr_emitter_power(const sr_prim *p, const sr_material *m)
{
    const sr_vec3 e = sr_emission(m);
    float mean = (e.x + e.y + e.z) * (1.0f / 3.0f);
    return sr_prim_area(p) * mean * (m->two_sided ? 2.0f : 1.0f);
}

/* A sphere seen from o outside it subtends a cone; 1 - cos of its half-angle, written so that
 * small far spheres keep their precision. False when o is inside (sampled by area then). */
SR_HD bool sr_sphere_cone(const sr_prim *e, sr_vec3 o, float *one_minus_cos)
{
    sr_vec3 oc = sr_sub(e->a, o);
    float d2 = sr_dot(oc, oc), r2 = e->b.x * e->b.x;
    if (!(d2 > r2)) return false;
    float sin2 = r2 / d2;
    float cos_max = sqrtf(sr_maxf(0.0f, 1.0f - sin2));
    *one_minus_cos = sin2 / (1.0f + cos_max);
    return true;
}

/* The solid-angle pdf with which sr_emitter_sample, from o, gives the point o + wi*dist of
 * emitter e whose unit normal there is n_l (the pick probability not included); 0 where it
 * never gives that point. */
SR_HD float sr_emitter_pdf(const sr_prim *e, sr_vec3 o, sr_vec3 wi, float dist, sr_vec3 n_l)
{
    float omc;
    if (e->kind == SR_PRIM_SPHERE && sr_sphere_cone(e, o, &omc))
        return omc > 0.0f ? 1.0f / (2.0f * SR_PI * omc) : 0.0f;
    float cos_l = fabsf(sr_dot(n_l, wi));
    float area = sr_prim_area(e);
    if (!(cos_l > 0.0f) || !(area > 0.0f)) return 0.0f;
    return dist * dist / (area * cos_l);
}

/* A point on emitter e for a shading point at o, from two uniforms: quads and triangles
 * uniformly by area; spheres uniformly in the cone they subtend from o (only the visible
 * cap), or by area when o is inside. False if no point could be made (a grazing cone ray). */
SR_HD bool sr_emitter_sample(const sr_prim *e, sr_vec3 o, float u1, float u2, sr_vec3 *x)
{
    switch (e->kind) {
    case SR_PRIM_QUAD:
        *x = sr_add(e->a, sr_add(sr_scale(e->b, u1), sr_scale(e->c, u2)));
        return true;
    case SR_PRIM_TRIANGLE: {
        float su = sqrtf(u1);
        float wb = su * (1.0f - u2), wc = su * u2;
        *x = sr_add(e->a, sr_add(sr_scale(sr_sub(e->b, e->a), wb), sr_scale(sr_sub(e->c, e->a), wc)));
        return true;
    }
    case SR_PRIM_SPHERE: {
        float r = e->b.x, omc, s_phi, c_phi;
        sr_sincos_turns(u2, &s_phi, &c_phi);
        if (sr_sphere_cone(e, o, &omc)) {
            if (!(omc > 0.0f)) return false;
            sr_vec3 w = sr_normalize(sr_sub(e->a, o)), t, b;
            sr_onb(w, &t, &b);
            float one_minus = u1 * omc;                        /* 1 - cos(theta) in [0, omc) */
            float cos_t = 1.0f - one_minus;
            float sin_t = sqrtf(sr_maxf(0.0f, one_minus * (2.0f - one_minus)));
            sr_vec3 dir = sr_add(sr_scale(w, cos_t), sr_add(sr_scale(t, sin_t * c_phi), sr_scale(b, sin_t * s_phi)));
            float th;
            if (!sr_isect_sphere(e->a, r, o, dir, 0.0f, SR_INF, &th)) return false;
            *x = sr_madd(o, dir, th);
            return true;
        }
        float z = 1.0f - 2.0f * u1, rr = sqrtf(sr_maxf(0.0f, 1.0f - z * z));
        *x = sr_madd(e->a, sr_v3(rr * c_phi, rr * s_phi, z), r);
        return true;
    }
    default:
        return false;
    }
}

/* The emitter list entry for uniform u in [0, 1): the first whose CDF exceeds u. */
SR_HD uint32_t sr_emitter_pick(const sr_scene_view *s, float u)
{
    uint32_t lo = 0, hi = s->emitter_count - 1u;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2u;
        if (u < s->emitters[mid].cdf) hi = mid;
        else lo = mid + 1u;
    }
    return lo;
}

#endif
