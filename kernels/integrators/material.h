/* material.h: a surface at a hit, for both integrators: its albedo (checker), its shading
 * normal, where rays leaving it start, and the pbr material's Fresnel terms. */
#ifndef SR_MATERIAL_H
#define SR_MATERIAL_H

#include "../core/intersect.h"
#include "../core/texture.h"
#include "../core/rng.h"

/* 1 if floor(v) is odd, else 0 (also for infinities and NaN). Exact: floor and halving are. */
SR_HD float sr_floor_parity(float v)
{
    const float f = floorf(v);
    return f - 2.0f * floorf(0.5f * f) == 1.0f ? 1.0f : 0.0f;
}

/* Albedo at a point: the checker alternates colour and color2 in cells of checker_scale.
 * It is looked up half a cell behind the surface (n faces the viewer): a floor at y = 0 has
 * hit points at y = +-1e-7, and floorf() of those would flip the cell from ray to ray. */
SR_HD sr_vec3 sr_diffuse_albedo(const sr_material *m, sr_vec3 p, sr_vec3 n)
{
    if (m->checker_scale <= 0.0f) return m->color;
    float inv = 1.0f / m->checker_scale;
    p = sr_madd(p, n, -0.5f * m->checker_scale);
    /* The cell's parity from each coordinate's floor, in float: an int conversion would
     * overflow for tiny cells or far points (1e-30 is an allowed scale). */
    const float odd = sr_floor_parity(p.x * inv) + sr_floor_parity(p.y * inv) + sr_floor_parity(p.z * inv);
    return (odd == 1.0f || odd == 3.0f) ? m->color2 : m->color;
}

/* A new ray's origin: off the surface along the side the ray leaves by, by an amount that
 * grows with the coordinates so large scenes (millimetre Cornell box) are safe too. */
SR_HD sr_vec3 sr_offset_origin(sr_vec3 p, sr_vec3 n_out)
{
    float mag = sr_maxf(fabsf(p.x), sr_maxf(fabsf(p.y), fabsf(p.z)));
    return sr_madd(p, n_out, 1e-4f * (1.0f + mag));
}

/* Unit normal ns (on the prim's front side) bent by the prim's normal map at barycentrics
 * (wa, wb, wc). With per-vertex tangents tg (the file's TANGENT or generated ones, MikkTSpace's
 * convention) T is theirs interpolated (then turned by instance in's to_world as a direction,
 * its handedness flipped where that mirrors), made orthogonal to ns, and B = w * cross(ns, T),
 * w the interpolated handedness: the per-pixel bitangent MikkTSpace and glTF define. Without them
 * the frame is the triangle's own: T along +u (dP/du from its positions and UVs), made
 * orthogonal to ns, and B = sign * cross(ns, T), the sign saying whether the UVs are
 * mirrored, so that B runs along +v (v up, as assimp gives glTF's UVs: up in the image, the
 * +Y of glTF's and MikkTSpace's normal maps). A map texel c is the tangent-space normal
 * (2c - 1), X and Y times normal_scale. ns itself where the frame is degenerate. */
SR_HD sr_vec3 sr_normal_mapped(const sr_scene_view *s, const sr_prim *prim, const sr_tri_attr *a,
                               const sr_tri_tangent *tg, const sr_instance *in, float wa, float wb, float wc,
                               sr_vec3 ns)
{
    const sr_material *m = &s->materials[prim->material];
    if (!m->norm_tex) return ns;
    sr_vec3 t, b;
    if (tg) {
        t = sr_add(sr_add(sr_scale(tg->t[0], wa), sr_scale(tg->t[1], wb)), sr_scale(tg->t[2], wc));
        float w = tg->w[0] * wa + tg->w[1] * wb + tg->w[2] * wc;
        if (in) {
            t = sr_xf_dir(in->to_world, t);
            if (in->mirrors) w = -w;
        }
        t = sr_sub(t, sr_scale(ns, sr_dot(ns, t)));
        const float tl = sr_length(t);
        if (!(tl > 0.0f)) return ns;
        t = sr_scale(t, 1.0f / tl);
        b = sr_cross(ns, t);
        if (w < 0.0f) b = sr_neg(b);
    } else {
        const sr_vec3 e1 = sr_sub(prim->b, prim->a), e2 = sr_sub(prim->c, prim->a);
        const float du1 = a->uv[2] - a->uv[0], dv1 = a->uv[3] - a->uv[1];
        const float du2 = a->uv[4] - a->uv[0], dv2 = a->uv[5] - a->uv[1];
        const float det = du1 * dv2 - du2 * dv1;
        if (!(det != 0.0f)) return ns;
        const sr_vec3 dpdu = sr_scale(sr_sub(sr_scale(e1, dv2), sr_scale(e2, dv1)), 1.0f / det);
        const sr_vec3 dpdv = sr_scale(sr_sub(sr_scale(e2, du1), sr_scale(e1, du2)), 1.0f / det);
        t = sr_sub(dpdu, sr_scale(ns, sr_dot(ns, dpdu)));
        const float tl = sr_length(t);
        if (!(tl > 0.0f)) return ns;
        t = sr_scale(t, 1.0f / tl);
        b = sr_cross(ns, t);
        if (sr_dot(b, dpdv) < 0.0f) b = sr_neg(b);
    }
    const float u = a->uv[0] * wa + a->uv[2] * wb + a->uv[4] * wc;
    const float v = a->uv[1] * wa + a->uv[3] * wb + a->uv[5] * wc;
    const sr_vec3 c = sr_tex_sample(s, &s->textures[m->norm_tex - 1u], u, v);
    const float k = m->normal_scale;
    const sr_vec3 bent = sr_add(sr_add(sr_scale(t, (2.0f * c.x - 1.0f) * k), sr_scale(b, (2.0f * c.y - 1.0f) * k)),
                                sr_scale(ns, 2.0f * c.z - 1.0f));
    const float len = sr_length(bent);
    return len > 0.0f ? sr_scale(bent, 1.0f / len) : ns;
}

/* The shading normal at x on the prim hit (index hit_prim, BVH order), given n, the unit
 * geometric normal turned to the side the ray came from (wo = -d points there too): the
 * vertex normals interpolated by barycentrics when the prim has them, else n, bent by the
 * material's normal map when the prim has one (sr_normal_mapped, on the front-side normal).
 * As in pbrt-v4 the geometric normal keeps deciding the side: the result is flipped into n's
 * hemisphere (a file's normals may disagree with its winding). Where the viewer would be
 * below the shading normal (silhouettes of coarse meshes, steep normal maps) it falls back
 * to n, so no sample starts inside the surface. *smooth says whether it differs from n
 * (callers then check sampled directions against n: nothing may leave through the geometric
 * surface).
 *
 * *xs is where rays leaving on n's side start from (before sr_offset_origin): x itself, or on
 * a smooth triangle x lifted towards the curved surface its normals describe (Hanika, "Hacking
 * the Shadow Terminator", Ray Tracing Gems II, ch. 4), so that shadow rays of a coarse mesh
 * are not stopped by its own flat facets where the smooth shading faces the light (the dark
 * "terminator" bands). */
SR_HD sr_vec3 sr_shading_normal(const sr_scene_view *s, uint32_t hit_prim, const sr_prim *prim, sr_vec3 x, sr_vec3 n,
                                sr_vec3 wo, bool *smooth, sr_vec3 *xs)
{
    *smooth = false;
    *xs = x;
    if (SR_NO_ASSETS || !s->attrs || (hit_prim & SR_HIT_PLANE_BIT)) return n;
    sr_tri_attr placed;   /* an instanced triangle's, in world space */
    const sr_tri_attr *a = sr_hit_attr(s, hit_prim, &placed);
    const uint32_t mapped = SR_NO_MAPS ? 0u : a->flags & SR_ATTR_NORMAL_MAP;   /* (maps build, CPU) */
    if (!(a->flags & SR_ATTR_NORMALS) && !mapped) return n;
    const sr_instance *in = 0;   /* an instanced triangle's: its tangents are the stored mesh's */
    const sr_tri_tangent *tg = mapped ? sr_hit_tangent(s, hit_prim, a, &in) : 0;
    float wb, wc;
    sr_tri_bary(prim, x, &wb, &wc);
    const float wa = 1.0f - wb - wc;
    if (!(a->flags & SR_ATTR_NORMALS)) {   /* a normal map on a flat triangle */
        sr_vec3 ns = sr_normal_mapped(s, prim, a, tg, in, wa, wb, wc, sr_prim_normal(prim, x));
        if (sr_dot(ns, n) < 0.0f) ns = sr_neg(ns);
        if (!(sr_dot(ns, wo) > 1e-4f)) return n;
        *smooth = true;
        return ns;
    }
    sr_vec3 ns = sr_add(sr_add(sr_scale(a->n[0], wa), sr_scale(a->n[1], wb)), sr_scale(a->n[2], wc));
    const float len = sr_length(ns);
    if (!(len > 0.0f)) return n;
    ns = sr_scale(ns, 1.0f / len);
    const float side = sr_dot(ns, n) < 0.0f ? -1.0f : 1.0f;
    if (mapped) ns = sr_normal_mapped(s, prim, a, tg, in, wa, wb, wc, ns);
    ns = sr_scale(ns, side);
    /* the lifted point: each vertex's tangent plane pushes x out by how far x lies below it */
    const sr_vec3 n0 = sr_scale(a->n[0], side), n1 = sr_scale(a->n[1], side), n2 = sr_scale(a->n[2], side);
    const float d0 = sr_minf(0.0f, sr_dot(sr_sub(x, prim->a), n0));
    const float d1 = sr_minf(0.0f, sr_dot(sr_sub(x, prim->b), n1));
    const float d2 = sr_minf(0.0f, sr_dot(sr_sub(x, prim->c), n2));
    *xs = sr_sub(x, sr_add(sr_add(sr_scale(n0, wa * d0), sr_scale(n1, wb * d1)), sr_scale(n2, wc * d2)));
    if (!(sr_dot(ns, wo) > 1e-4f)) return n;
    *smooth = true;
    return ns;
}

/* Schlick's (1 - c)^5 at cosine c (clamped to [0, 1]). */
SR_HD float sr_schlick_k5(float c)
{
    const float k = 1.0f - sr_clampf(c, 0.0f, 1.0f);
    return k * k * k * k * k;
}

/* The pbr material's specular reflectance (Schlick) at cosine c between the view and the
 * half vector, per channel, F0 = mix(spec_f0, base, metallic): glTF 2.0's fresnel_mix of the
 * dielectric and conductor_fresnel of the metal in one, both being linear in F0. */
SR_HD sr_vec3 sr_pbr_fresnel(const sr_material *m, sr_vec3 base, float c)
{
    const float k5 = sr_schlick_k5(c);
    const sr_vec3 f0 = sr_add(sr_scale(sr_v3s(m->spec_f0), 1.0f - m->metallic), sr_scale(base, m->metallic));
    return sr_add(f0, sr_scale(sr_sub(sr_v3s(1.0f), f0), k5));
}

/* The share of the pbr material's diffuse base at cosine c between the view and the half
 * vector: (1 - metallic) (1 - F) with the dielectric's F (glTF's fresnel_mix). */
SR_HD float sr_pbr_diffuse_share(const sr_material *m, float c)
{
    return (1.0f - m->metallic) * (1.0f - m->spec_f0) * (1.0f - sr_schlick_k5(c));
}

SR_HD float sr_luminance(sr_vec3 c) { return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z; }

/* A point in the unit ball from three uniforms (rejection-free: radius by cube root). */
SR_HD sr_vec3 sr_unit_ball(float u1, float u2, float u3)
{
    float z = 1.0f - 2.0f * u1;
    float r = sqrtf(sr_maxf(0.0f, 1.0f - z * z));
    float sin_phi, cos_phi;
    sr_sincos_turns(u2, &sin_phi, &cos_phi);
    return sr_scale(sr_v3(r * cos_phi, r * sin_phi, z), sr_cbrt(u3));
}

#endif
