/* path.h: the path integrator's shade stage, shared by both backends like the rest of
 * stages.h (which calls it when the scene's integrator is "path"); whitted.h is the other.
 *
 * Unidirectional path tracing on the wavefront: each shade call is one path vertex. At a
 * non-specular vertex (diffuse, rough metal, an emissive surface with an albedo) it adds
 * next-event estimation: every point and directional light (delta lights: one shadow ray
 * each, no MIS) and one area emitter (an emissive sphere, quad or triangle, picked by power
 * and sampled by solid angle (spheres seen from outside) or by area), weighted by the power
 * heuristic against the BSDF's pdf. It then samples the BSDF for the continuation and keeps
 * that pdf in the ray (ray.pdf), so that an emitter the continuation hits is weighted by the
 * complementary MIS weight; after a specular bounce (mirror, glass, smooth metal) and for
 * camera rays ray.pdf is 0 and emission counts in full. Russian roulette from bounce 3.
 *
 * Depth, one rule for every kind of light (as pbrt-v4): max_depth D lets light reach the
 * camera along at most D + 1 segments. The D-th vertex still samples the lights and the BSDF,
 * with the usual MIS weights, but its continuation is traced only to add the emission or sky
 * it finds (sr_path_last_hit), so depth 1 is direct lighting from every light, sky and
 * emitters seen through a mirror included.
 *
 * Only + - * / sqrt and the deterministic helpers of vmath.h are used, so the CPU and GPU
 * backends trace the same paths bit for bit (FMA contraction is off on both). */
#ifndef SR_PATH_H
#define SR_PATH_H

#include "camera.h"
#include "lights.h"

/* What a path vertex leaves: the end of the path, the continuation in *r, or (for a caller
 * that asked to trace it itself) the last vertex's continuation in *r, to be traced once and
 * handed to sr_path_last_hit. */
enum { SR_PATH_END, SR_PATH_NEXT, SR_PATH_LAST };

#define SR_RR_START 3u        /* first bounce at which Russian roulette may end a path      */
#define SR_RR_MIN 0.05f       /* survival probability = max throughput clamped to these     */
#define SR_RR_MAX 0.95f
#define SR_GGX_ALPHA_MIN 1e-3f   /* rough metal's GGX alpha = max(roughness^2, this)        */

/* Power heuristic (beta = 2) weight of a strategy with pdf a against one with pdf b. */
SR_HD float sr_mis_power(float a, float b)
{
    if (!(a > 0.0f)) return 0.0f;
    float r = b / a;
    return 1.0f / (1.0f + r * r);
}

/* ---- BSDFs ----------------------------------------------------------------------------- */

SR_HD float sr_ggx_alpha(const sr_material *m)
{
    float a = m->roughness * m->roughness;
    return a > SR_GGX_ALPHA_MIN ? a : SR_GGX_ALPHA_MIN;
}

/* GGX (Trowbridge-Reitz) normal distribution, a2 = alpha^2, at a microfacet normal whose
 * cosine with the surface normal is cos_h. */
SR_HD float sr_ggx_d(float a2, float cos_h)
{
    float k = cos_h * cos_h * (a2 - 1.0f) + 1.0f;
    return a2 / (SR_PI * k * k);
}

/* Smith's Lambda for GGX at a direction with cosine cos_t > 0 to the normal. */
SR_HD float sr_ggx_lambda(float a2, float cos_t)
{
    float c2 = cos_t * cos_t;
    return 0.5f * (sqrtf(1.0f + a2 * (1.0f - c2) / c2) - 1.0f);
}

/* A GGX microfacet normal from the distribution of normals visible from wo (local frame,
 * wo.z > 0): Heitz, "Sampling the GGX Distribution of Visible Normals", JCGT 2018. */
SR_HD sr_vec3 sr_ggx_sample_vndf(sr_vec3 wo, float a, float u1, float u2)
{
    sr_vec3 vh = sr_normalize(sr_v3(a * wo.x, a * wo.y, wo.z));
    float lensq = vh.x * vh.x + vh.y * vh.y;
    sr_vec3 t1 = lensq > 0.0f ? sr_scale(sr_v3(-vh.y, vh.x, 0.0f), 1.0f / sqrtf(lensq)) : sr_v3(1.0f, 0.0f, 0.0f);
    sr_vec3 t2 = sr_cross(vh, t1);
    float r = sqrtf(u1), s_phi, c_phi;
    sr_sincos_turns(u2, &s_phi, &c_phi);
    float p1 = r * c_phi, p2 = r * s_phi;
    float s = 0.5f * (1.0f + vh.z);
    p2 = (1.0f - s) * sqrtf(sr_maxf(0.0f, 1.0f - p1 * p1)) + s * p2;
    float p3 = sqrtf(sr_maxf(0.0f, 1.0f - p1 * p1 - p2 * p2));
    sr_vec3 nh = sr_add(sr_add(sr_scale(t1, p1), sr_scale(t2, p2)), sr_scale(vh, p3));
    return sr_normalize(sr_v3(a * nh.x, a * nh.y, sr_maxf(1e-6f, nh.z)));
}

SR_HD sr_vec3 sr_to_local(sr_vec3 v, sr_vec3 t, sr_vec3 b, sr_vec3 n)
{
    return sr_v3(sr_dot(v, t), sr_dot(v, b), sr_dot(v, n));
}

SR_HD sr_vec3 sr_from_local(sr_vec3 v, sr_vec3 t, sr_vec3 b, sr_vec3 n)
{
    return sr_add(sr_add(sr_scale(t, v.x), sr_scale(b, v.y)), sr_scale(n, v.z));
}


/* The probability of sampling the pbr material's specular lobe, seen from cosine cos_o: its
 * Fresnel reflectance against the diffuse lobe's weight (by luminance). */
SR_HD float sr_pbr_spec_prob(const sr_material *m, sr_vec3 base, float cos_o)
{
    const float fs = sr_luminance(sr_pbr_fresnel(m, base, cos_o));
    const float wd = (1.0f - m->metallic) * sr_luminance(base) * (1.0f - fs);
    const float sum = fs + wd;
    return sum > 0.0f ? fs / sum : 0.5f;
}

/* f(wo, wi) * cos(n, wi) of a non-specular surface and the pdf with which sr_bsdf_sample
 * picks wi. n: unit normal on wo's side. Lambertian by `albedo` (diffuse, emissive), or
 * rough metal: GGX microfacets with Smith height-correlated masking-shadowing and a
 * reflectance of `albedo` at every angle. */
SR_HD sr_vec3 sr_bsdf_eval(const sr_material *m, sr_vec3 albedo, sr_vec3 n, sr_vec3 wo, sr_vec3 wi, float *pdf)
{
    float cos_i = sr_dot(n, wi);
    *pdf = 0.0f;
    if (!(cos_i > 0.0f)) return sr_v3s(0.0f);
    if (m->kind == SR_MAT_PBR) {
        /* glTF 2.0's metallic-roughness BRDF (Appendix B): GGX specular weighted by Schlick's F
         * and the Lambert base weighted by 1 - F, both F at the half vector (fresnel_mix),
         * mixed with the metal's F-weighted specular by metallic; the pdf is the lobe
         * mixture's. */
        float cos_o = sr_dot(n, wo);
        if (!(cos_o > 0.0f)) return sr_v3s(0.0f);
        float ps = sr_pbr_spec_prob(m, albedo, cos_o);
        sr_vec3 h = sr_normalize(sr_add(wo, wi));
        const float cos_oh = sr_dot(wo, h);
        sr_vec3 diff = sr_scale(albedo, sr_pbr_diffuse_share(m, cos_oh) * cos_i * (1.0f / SR_PI));
        if (m->roughness <= 0.0f) {   /* the specular lobe is a delta: only the diffuse one here */
            *pdf = (1.0f - ps) * cos_i * (1.0f / SR_PI);
            return diff;
        }
        float a = sr_ggx_alpha(m), a2 = a * a;
        float D = sr_ggx_d(a2, sr_dot(n, h));
        float lo = sr_ggx_lambda(a2, cos_o), li = sr_ggx_lambda(a2, cos_i);
        sr_vec3 F = sr_pbr_fresnel(m, albedo, cos_oh);
        sr_vec3 spec = sr_scale(F, D / ((1.0f + lo + li) * 4.0f * cos_o));
        *pdf = ps * D / ((1.0f + lo) * 4.0f * cos_o) + (1.0f - ps) * cos_i * (1.0f / SR_PI);
        return sr_add(spec, diff);
    }
    if (m->kind == SR_MAT_METAL) {
        float cos_o = sr_dot(n, wo);
        if (!(cos_o > 0.0f)) return sr_v3s(0.0f);
        sr_vec3 h = sr_normalize(sr_add(wo, wi));
        float a = sr_ggx_alpha(m), a2 = a * a;
        float D = sr_ggx_d(a2, sr_dot(n, h));
        float lo = sr_ggx_lambda(a2, cos_o), li = sr_ggx_lambda(a2, cos_i);
        *pdf = D / ((1.0f + lo) * 4.0f * cos_o);                 /* D_wo(h) / (4 wo.h)     */
        return sr_scale(albedo, D / ((1.0f + lo + li) * 4.0f * cos_o));   /* F D G2 / (4 cos_o) */
    }
    *pdf = cos_i * (1.0f / SR_PI);
    return sr_scale(albedo, cos_i * (1.0f / SR_PI));
}

/* The continuation of a path that arrived along d at a surface with unit normal n (on d's
 * side; front: d hit the geometric front). Gives the new direction, the throughput factor
 * f cos / pdf, the pdf (0 for a specular choice) and whether it goes through the surface.
 * False: absorbed (a sample below the surface). u1, u2: direction; uc: glass's choice. */
SR_HD bool sr_bsdf_sample(const sr_material *m, sr_vec3 albedo, sr_vec3 n, bool front, sr_vec3 d,
                          float u1, float u2, float uc, sr_vec3 *wi, sr_vec3 *weight, float *pdf, bool *transmit)
{
    *pdf = 0.0f;
    *transmit = false;
    switch (m->kind) {
    case SR_MAT_MIRROR:
        *wi = sr_reflect(d, n);
        *weight = m->color;
        return true;
    case SR_MAT_GLASS: {
        /* Exact dielectric Fresnel (unpolarised); reflect with probability F, else refract,
         * so the weight is 1 (tint on transmission). */
        float eta = front ? 1.0f / m->ior : m->ior;
        float cos_i = sr_minf(1.0f, -sr_dot(d, n));
        float sin2_t = eta * eta * (1.0f - cos_i * cos_i);
        float F = 1.0f, cos_t = 0.0f;
        if (sin2_t < 1.0f) {
            cos_t = sqrtf(1.0f - sin2_t);
            float rs = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
            float rp = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
            F = 0.5f * (rs * rs + rp * rp);
        }
        if (uc < F) {
            *wi = sr_reflect(d, n);
            *weight = sr_v3s(1.0f);
            return true;
        }
        *wi = sr_normalize(sr_add(sr_scale(d, eta), sr_scale(n, eta * cos_i - cos_t)));
        *weight = m->color;
        *transmit = true;
        return true;
    }
    case SR_MAT_METAL: {
        if (m->roughness <= 0.0f) {   /* a perfect mirror tinted by albedo */
            *wi = sr_reflect(d, n);
            *weight = albedo;
            return true;
        }
        sr_vec3 t, b;
        sr_onb(n, &t, &b);
        sr_vec3 wo = sr_to_local(sr_neg(d), t, b, n);
        if (!(wo.z > 0.0f)) return false;
        float a = sr_ggx_alpha(m), a2 = a * a;
        sr_vec3 h = sr_ggx_sample_vndf(wo, a, u1, u2);
        sr_vec3 wl = sr_sub(sr_scale(h, 2.0f * sr_dot(wo, h)), wo);
        if (!(wl.z > 0.0f)) return false;
        float lo = sr_ggx_lambda(a2, wo.z), li = sr_ggx_lambda(a2, wl.z);
        *weight = sr_scale(albedo, (1.0f + lo) / (1.0f + lo + li));        /* F G2 / G1    */
        *pdf = sr_ggx_d(a2, h.z) / ((1.0f + lo) * 4.0f * wo.z);
        *wi = sr_normalize(sr_from_local(wl, t, b, n));
        return true;
    }
    case SR_MAT_PBR: {
        /* one lobe by uc (specular with sr_pbr_spec_prob), then f cos / the mixture's pdf */
        sr_vec3 t, b;
        sr_onb(n, &t, &b);
        sr_vec3 wo = sr_to_local(sr_neg(d), t, b, n);
        if (!(wo.z > 0.0f)) return false;
        sr_vec3 wl;
        const float ps = sr_pbr_spec_prob(m, albedo, wo.z);
        if (m->roughness <= 0.0f && uc < ps) {   /* a smooth surface's mirror lobe: a delta */
            *wi = sr_reflect(d, n);
            *weight = sr_scale(sr_pbr_fresnel(m, albedo, wo.z), 1.0f / ps);
            return true;
        }
        if (m->roughness > 0.0f && uc < ps) {
            sr_vec3 h = sr_ggx_sample_vndf(wo, sr_ggx_alpha(m), u1, u2);
            wl = sr_sub(sr_scale(h, 2.0f * sr_dot(wo, h)), wo);
        } else {
            float z = sqrtf(1.0f - u1), r = sqrtf(u1), s_phi, c_phi;
            sr_sincos_turns(u2, &s_phi, &c_phi);
            wl = sr_v3(r * c_phi, r * s_phi, z);
        }
        if (!(wl.z > 0.0f)) return false;
        *wi = sr_normalize(sr_from_local(wl, t, b, n));
        sr_vec3 f = sr_bsdf_eval(m, albedo, n, sr_neg(d), *wi, pdf);
        if (!(*pdf > 0.0f)) return false;
        *weight = sr_scale(f, 1.0f / *pdf);
        return true;
    }
    default: {   /* Lambertian: cosine-weighted hemisphere */
        float z = sqrtf(1.0f - u1);
        if (!(z > 0.0f)) return false;
        float r = sqrtf(u1), s_phi, c_phi;
        sr_sincos_turns(u2, &s_phi, &c_phi);
        sr_vec3 t, b;
        sr_onb(n, &t, &b);
        *wi = sr_normalize(sr_from_local(sr_v3(r * c_phi, r * s_phi, z), t, b, n));
        *weight = albedo;
        *pdf = z * (1.0f / SR_PI);
        return true;
    }
    }
}

/* ---- the stage ----------------------------------------------------------------------- */

/* Add to the film unless the value is not finite: one NaN or inf (a degenerate sample)
 * would stay in the pixel for every later sample. */
SR_HD void sr_path_film_add(const sr_params *p, uint32_t pixel, sr_vec3 c)
{
    float sum = c.x + c.y + c.z;
    if (!(sum - sum == 0.0f)) return;
    sr_film_add(p, pixel, c);
}

/* The environment map is sampled like a light (in addition to the emitters) unless a test
 * switched light sampling or this strategy off. The dimensions of Whitted's fuzz serve it:
 * the two integrators never share a path. */
#define SR_DIM_ENV_U SR_DIM_FUZZ_U
#define SR_DIM_ENV_V SR_DIM_FUZZ_V
SR_HD bool sr_env_nee(const sr_scene_view *s)
{
    return !SR_NO_ASSETS && s->env_tex && !(s->path_flags & (SR_PATH_NO_NEE | SR_PATH_NO_ENV_IS));
}

/* What a ray that escaped along d brings back: the sky, weighted by MIS against sampling the
 * environment map when the direction was BSDF-sampled (prev_pdf > 0) at a vertex that also
 * sampled the map. */
SR_HD sr_vec3 sr_path_escaped(const sr_scene_view *s, sr_vec3 d, float prev_pdf)
{
    const sr_vec3 l = sr_sky(s, d);
    if (!(prev_pdf > 0.0f) || !sr_env_nee(s)) return l;
    return sr_scale(l, sr_mis_power(prev_pdf, sr_env_pdf(s, d)));
}

/* The MIS weight of a light sample in direction wi with light pdf pl and BSDF pdf pb: the
 * power heuristic, except below the geometric surface (ng), where BSDF sampling drops its
 * samples (sr_shade_path), so light sampling is the only strategy there. */
SR_HD float sr_path_nee_weight(float pl, float pb, sr_vec3 wi, sr_vec3 ng)
{
    return sr_dot(wi, ng) > 0.0f ? sr_mis_power(pl, pb) : 1.0f;
}

/* Light arriving at a non-specular vertex (origin: the offset shading point, n: shading
 * normal on wo's side, ng: the geometric one) from the delta lights and one sampled area
 * emitter, times f cos; the emitter sample is weighted by MIS against the BSDF continuation,
 * which always follows. A light the shading normal faces just below a coarse facet (near the
 * terminator) is seen if its shadow ray, from the lifted point, gets through. */
SR_HD sr_vec3 sr_path_direct(const sr_params *p, const sr_material *m, sr_vec3 albedo, sr_vec3 origin, sr_vec3 n,
                             sr_vec3 ng, sr_vec3 wo, uint32_t pixel, uint32_t bounce)
{
    const sr_scene_view *s = &p->scene;
    sr_vec3 sum = sr_v3s(0.0f);
    float pdf;
    for (uint32_t i = 0; !SR_NO_LIGHTS && i < s->light_count; i++) {
        const sr_light *l = &s->lights[i];
        sr_vec3 wi;
        float dist, falloff;
        if (!sr_delta_light(l, origin, &wi, &dist, &falloff)) continue;
        sr_vec3 f = sr_bsdf_eval(m, albedo, n, wo, wi, &pdf);
        if (!(sr_max3(f) > 0.0f)) continue;
        if (sr_trace_occluded(s, origin, wi, 0.0f, dist)) continue;
        sum = sr_add(sum, sr_mul(f, sr_scale(l->power, falloff)));
    }
    if (sr_env_nee(s)) {   /* one direction towards the environment map, by its distribution */
        sr_vec3 wi, le;
        float pe;
        if (sr_env_sample(s, sr_rng(p->seed, pixel, p->sample, bounce, SR_DIM_ENV_U),
                          sr_rng(p->seed, pixel, p->sample, bounce, SR_DIM_ENV_V), &wi, &pe, &le)) {
            sr_vec3 f = sr_bsdf_eval(m, albedo, n, wo, wi, &pdf);
            if (sr_max3(f) > 0.0f && !sr_trace_occluded(s, origin, wi, 0.0f, SR_INF))
                sum = sr_add(sum, sr_mul(f, sr_scale(le, sr_path_nee_weight(pe, pdf, wi, ng) / pe)));
        }
    }
    if (SR_NO_LIGHTS || !(s->emitter_power > 0.0f) || (s->path_flags & SR_PATH_NO_NEE)) return sum;

    const uint32_t seed = p->seed, sample = p->sample;
    uint32_t k = sr_emitter_pick(s, sr_rng(seed, pixel, sample, bounce, SR_DIM_LIGHT_PICK));
    const uint32_t ek = s->emitters[k].prim;   /* a hit id: an instanced emitter is placed */
    sr_hit eh;
    eh.t = 0.0f;
    eh.prim = ek;
    sr_prim placed;
    const sr_prim *e = sr_hit_prim(s, eh, &placed);
    const sr_material *em = &s->materials[e->material];
    sr_vec3 xl;
    if (!sr_emitter_sample(e, origin, sr_rng(seed, pixel, sample, bounce, SR_DIM_LIGHT_U),
                           sr_rng(seed, pixel, sample, bounce, SR_DIM_LIGHT_V), &xl))
        return sum;
    sr_vec3 to = sr_sub(xl, origin);
    float dist = sr_length(to);
    if (!(dist > 0.0f)) return sum;
    sr_vec3 wi = sr_scale(to, 1.0f / dist);
    sr_vec3 nl = sr_prim_normal(e, xl);
    float cos_l = sr_dot(nl, wi);            /* < 0: origin is on the emitter's front side */
    if (!(cos_l < 0.0f || (em->two_sided && cos_l > 0.0f))) return sum;
    float pl = sr_emitter_power(e, em) / s->emitter_power * sr_emitter_pdf(e, origin, wi, dist, nl);
    if (!(pl > 0.0f)) return sum;
    sr_vec3 f = sr_bsdf_eval(m, albedo, n, wo, wi, &pdf);
    if (!(sr_max3(f) > 0.0f)) return sum;
    /* The shadow ray stops just short of the light, off its surface on the origin's side. */
    sr_vec3 target = sr_offset_origin(xl, cos_l < 0.0f ? nl : sr_neg(nl));
    sr_vec3 sd = sr_sub(target, origin);
    float sdist = sr_length(sd);
    if (!(sdist > 0.0f) || sr_dot(sd, wi) <= 0.0f) return sum;
    if (sr_trace_occluded(s, origin, sr_scale(sd, 1.0f / sdist), 0.0f, sdist)) return sum;
    sr_vec3 le = sr_emission(em);
    if (!SR_NO_MAPS && em->emit_tex) {   /* a textured emission, at the sampled point */
        sr_material textured;
        le = sr_material_at(s, em, ek, e, xl, &textured)->color2;
    }
    return sr_add(sum, sr_mul(f, sr_scale(le, sr_path_nee_weight(pl, pdf, wi, ng) / pl)));
}

/* Radiance an emitter hit at distance t along (o, d) sends back: its emission (sr_emission of
 * m, the material with its textures applied) on the front (or both sides), weighted by MIS
 * against light sampling when the direction was BSDF-sampled with solid-angle pdf `prev_pdf`
 * at a vertex that also sampled the emitters (0: specular or camera, full weight); the pick
 * probability is the untextured material's, as the table has it. Planes are not in the
 * emitter list, so nothing else finds them. */
SR_HD sr_vec3 sr_path_emitted(const sr_scene_view *s, const sr_prim *prim, const sr_material *m, uint32_t hit_prim,
                              sr_vec3 o, sr_vec3 d, float t, sr_vec3 ng, bool front, float prev_pdf)
{
    const sr_vec3 e = sr_emission(m);
    if (!(front || m->two_sided) || !(sr_max3(e) > 0.0f)) return sr_v3s(0.0f);
    float w = 1.0f;
    if (!SR_NO_LIGHTS && prev_pdf > 0.0f && !(s->path_flags & SR_PATH_NO_NEE) && !(hit_prim & SR_HIT_PLANE_BIT) &&
        s->emitter_power > 0.0f) {   /* (the plain build has no emitters) */
        /* the table's material: m itself where no texture changes the emission (builds without maps) */
        const sr_material *mt = SR_NO_MAPS ? m : &s->materials[prim->material];
        float pl = sr_emitter_power(prim, mt) / s->emitter_power * sr_emitter_pdf(prim, o, d, t, ng);
        w = sr_mis_power(prev_pdf, pl);
    }
    return sr_scale(e, w);
}

/* What the last vertex's continuation (o, wi, sampled with solid-angle pdf `pdf`) finds, hit
 * h: only the emission or sky is added, so every kind of light reaches the camera along at
 * most max_depth + 1 segments (docs/scene-format.md, "Integrators"). Emission as sr_path_vertex adds it:
 * an emissive material's radiance or a pbr material's `emission` (color2, times its emission
 * texture) from its front, MIS-weighted against light sampling. */
SR_HD void sr_path_last_hit(const sr_params *p, uint32_t pixel, sr_vec3 tp, sr_vec3 o, sr_vec3 wi, float pdf, sr_hit h)
{
    const sr_scene_view *s = &p->scene;
    if (h.prim == SR_NO_HIT) {
        sr_path_film_add(p, pixel, sr_mul(tp, sr_path_escaped(s, wi, pdf)));
        return;
    }
    sr_prim placed;   /* an instanced triangle, in world space */
    const sr_prim *prim = sr_hit_prim(s, h, &placed);
    const sr_material *m = &s->materials[prim->material];
    if (m->kind != SR_MAT_EMISSIVE && m->kind != SR_MAT_PBR) return;
    const sr_vec3 x = sr_madd(o, wi, h.t);
    const sr_vec3 ng = sr_prim_normal(prim, x);
    const bool front = sr_dot(wi, ng) < 0.0f;
    sr_material textured;
    if (!SR_NO_MAPS && m->emit_tex) m = sr_material_at(s, m, h.prim, prim, x, &textured);
    sr_path_film_add(p, pixel, sr_mul(tp, sr_path_emitted(s, prim, m, h.prim, o, wi, h.t, ng, front, pdf)));
}

/* One path vertex of ray *r, hit h, at bounce `bounce` (0 = the camera ray's hit). Returns
 * SR_PATH_END, or SR_PATH_NEXT with the continuation in *r. The last vertex's continuation
 * is traced here, or with `defer_last` returned as SR_PATH_LAST. */
SR_HD uint32_t sr_path_vertex(const sr_params *p, sr_ray *r, uint32_t bounce, sr_hit h, bool defer_last)
{
    const sr_scene_view *s = &p->scene;
    const uint32_t pixel = r->pixel;
    const uint32_t seed = p->seed, sample = p->sample;
    sr_vec3 tp = r->tp;
    const sr_vec3 o = r->o, d = r->d;
    const float prev_pdf = r->pdf;
    if (h.prim == SR_NO_HIT) {
        sr_path_film_add(p, pixel, sr_mul(tp, sr_path_escaped(s, d, prev_pdf)));
        return SR_PATH_END;
    }
    const sr_vec3 x = sr_madd(o, d, h.t);
    sr_prim placed;   /* an instanced triangle, in world space */
    const sr_prim *prim = sr_hit_prim(s, h, &placed);
    const sr_material *m = &s->materials[prim->material];
    const sr_vec3 ng = sr_prim_normal(prim, x);
    const bool front = sr_dot(d, ng) < 0.0f;
    const sr_vec3 n = front ? ng : sr_neg(ng);   /* faces the side the ray came from */
    bool smooth;
    sr_vec3 xs;   /* where rays leaving on n's side start */
    const sr_vec3 ns = sr_shading_normal(s, h.prim, prim, x, n, sr_neg(d), &smooth, &xs);
    sr_material textured;   /* the material with its textures applied, when it has any */
    m = sr_material_at(s, m, h.prim, prim, x, &textured);

    sr_vec3 albedo = m->color;
    bool specular = false;
    /* Emission, both kinds through one add (a pbr surface that does not emit adds 0): a branch
     * of its own for pbr makes the path wave kernels spill more (docs/experiments.md). */
    if (m->kind == SR_MAT_EMISSIVE || m->kind == SR_MAT_PBR)
        sr_path_film_add(p, pixel, sr_mul(tp, sr_path_emitted(s, prim, m, h.prim, o, d, h.t, ng, front, prev_pdf)));
    switch (m->kind) {
    case SR_MAT_EMISSIVE:
        albedo = m->color2;   /* an emitter that also reflects, diffusely */
        if (!(sr_max3(albedo) > 0.0f)) return SR_PATH_END;
        break;
    case SR_MAT_DIFFUSE:
        albedo = sr_diffuse_albedo(m, x, n);
        break;
    case SR_MAT_METAL:
        specular = m->roughness <= 0.0f;
        break;
    case SR_MAT_PBR:   /* its emission is added above; never specular (alpha >= 1e-3) */
        break;
    default:   /* mirror, glass */
        specular = true;
        break;
    }

    const bool last = bounce + 1u >= s->max_depth;
    const sr_vec3 origin = sr_offset_origin(xs, n);
    if (!specular)
        sr_path_film_add(p, pixel, sr_mul(tp, sr_path_direct(p, m, albedo, origin, ns, n, sr_neg(d), pixel, bounce)));

    float u1 = 0.0f, u2 = 0.0f, uc = 0.0f;
    if (!specular) {
        u1 = sr_rng(seed, pixel, sample, bounce, SR_DIM_BSDF_U);
        u2 = sr_rng(seed, pixel, sample, bounce, SR_DIM_BSDF_V);
    } else if (m->kind == SR_MAT_GLASS) {
        uc = sr_rng(seed, pixel, sample, bounce, SR_DIM_CHOICE);
    }
    if (m->kind == SR_MAT_PBR) uc = sr_rng(seed, pixel, sample, bounce, SR_DIM_CHOICE);
    sr_vec3 wi, weight;
    float pdf;
    bool transmit;
    if (!sr_bsdf_sample(m, albedo, ns, front, d, u1, u2, uc, &wi, &weight, &pdf, &transmit)) return SR_PATH_END;
    if (smooth && (transmit ? !(sr_dot(wi, n) < 0.0f) : !(sr_dot(wi, n) > 0.0f))) {
        /* The smooth normal sent it through the geometric surface: a specular choice is made
         * again with the geometric normal; a rough lobe's sample is lost (as in pbrt-v4,
         * where such a pair has f = 0), which keeps light from leaking through. */
        if (!specular) return SR_PATH_END;
        if (!sr_bsdf_sample(m, albedo, n, front, d, u1, u2, uc, &wi, &weight, &pdf, &transmit)) return SR_PATH_END;
    }
    tp = sr_mul(tp, weight);
    const sr_vec3 next_o = transmit ? sr_offset_origin(x, sr_neg(n)) : origin;
    /* The continuation is written in two places, the last vertex's before Russian roulette:
     * one write after an `else` around the roulette cost the megakernel 4 registers (72 -> 76
     * in the plain build, a block less a SM). */
    if (last) {   /* out of depth: the continuation only collects what it sees */
        if (!defer_last) {
            if (sr_max3(tp) > 0.0f) sr_path_last_hit(p, pixel, tp, next_o, wi, pdf, sr_trace_closest(s, next_o, wi, 0.0f, SR_INF));
            return SR_PATH_END;
        }
        if (!(sr_max3(tp) > 0.0f)) return SR_PATH_END;
        r->o = next_o;
        r->d = wi;
        r->tp = tp;
        r->pdf = pdf;
        return SR_PATH_LAST;
    }
    float q = sr_max3(tp);
    if (!(q > 0.0f)) return SR_PATH_END;
    if (bounce >= SR_RR_START && !(s->path_flags & SR_PATH_NO_RR)) {
        /* Russian roulette: survive with probability q, and the survivors carry 1/q more. */
        q = sr_clampf(q, SR_RR_MIN, SR_RR_MAX);
        if (sr_rng(seed, pixel, sample, bounce, SR_DIM_RR) >= q) return SR_PATH_END;
        tp = sr_scale(tp, 1.0f / q);
    }
    r->o = next_o;
    r->d = wi;
    r->tp = tp;
    r->pdf = pdf;
    return SR_PATH_NEXT;
}

/* One path vertex, as above, with the last continuation traced here: whether the path goes on. */
SR_HD bool sr_shade_path(const sr_params *p, sr_ray *r, uint32_t bounce, sr_hit h)
{
    return sr_path_vertex(p, r, bounce, h, false) == SR_PATH_NEXT;
}

#endif
