/* texture.h: image textures as the stages read them, shared by both backends. Texels are
 * linear RGB floats (colour maps are decoded from sRGB on the host, once, so both backends
 * read the same numbers); lookups are nearest or bilinear with repeat or clamp wrapping, in
 * + - * / and floorf only, so the CPU and GPU agree bit for bit. */
#ifndef SR_TEXTURE_H
#define SR_TEXTURE_H

#include "intersect.h"

/* Texture coordinates of the hit x on prim (index hit_prim, BVH order): a quad's own (s, t)
 * in [0, 1]^2 along edge_u and edge_v; a mesh triangle's UVs interpolated by barycentrics.
 * False when the prim has none (the scene loader refuses textures on such prims). */
SR_HD bool sr_hit_uv(const sr_scene_view *s, uint32_t hit_prim, const sr_prim *prim, sr_vec3 x, float *u, float *v)
{
    if (hit_prim & SR_HIT_PLANE_BIT) return false;
    if (prim->kind == SR_PRIM_QUAD) {
        /* the quad as the triangle (a, a + edge_u, a + edge_v): its barycentrics are (s, t) */
        sr_prim t = *prim;
        t.b = sr_add(prim->a, prim->b);
        t.c = sr_add(prim->a, prim->c);
        sr_tri_bary(&t, x, u, v);
        return true;
    }
    if (prim->kind != SR_PRIM_TRIANGLE || !s->attrs) return false;
    const sr_tri_attr *a = &s->attrs[hit_prim];
    if (!(a->flags & SR_ATTR_UV)) return false;
    float wb, wc;
    sr_tri_bary(prim, x, &wb, &wc);
    const float wa = 1.0f - wb - wc;
    *u = a->uv[0] * wa + a->uv[2] * wb + a->uv[4] * wc;
    *v = a->uv[1] * wa + a->uv[3] * wb + a->uv[5] * wc;
    return true;
}

/* Texel column or row i (any integer value, as a float) wrapped into [0, n). */
SR_HD uint32_t sr_tex_wrap(float i, uint32_t n, uint32_t wrap)
{
    const float fn = (float)n;
    if (wrap == SR_WRAP_REPEAT) i = i - fn * floorf(i / fn);
    /* clamp (and the repeat result's rounding at n, and NaN from a NaN uv) */
    if (!(i > 0.0f)) return 0u;
    if (i > fn - 1.0f) return n - 1u;
    return (uint32_t)i;
}

SR_HD sr_vec3 sr_texel(const sr_scene_view *s, const sr_texture *t, uint32_t x, uint32_t y)
{
    const float *p = s->texels + 3ull * ((unsigned long long)t->offset + (unsigned long long)y * t->width + x);
    return sr_v3(p[0], p[1], p[2]);
}

/* The texture at (u, v): v = 0 is the image's bottom row, as in OBJ and OpenGL (assimp gives
 * glTF's UVs in this convention too). Texel (i, j) covers u in [i, i + 1) / width. */
SR_HD sr_vec3 sr_tex_sample(const sr_scene_view *s, const sr_texture *t, float u, float v)
{
    const float fx = u * (float)t->width, fy = (1.0f - v) * (float)t->height;
    if (t->filter == SR_FILTER_NEAREST)
        return sr_texel(s, t, sr_tex_wrap(floorf(fx), t->width, t->wrap), sr_tex_wrap(floorf(fy), t->height, t->wrap));
    const float gx = fx - 0.5f, gy = fy - 0.5f;   /* texel centres sit at half-integers */
    const float x0 = floorf(gx), y0 = floorf(gy);
    const float tx = gx - x0, ty = gy - y0;
    const uint32_t xa = sr_tex_wrap(x0, t->width, t->wrap), xb = sr_tex_wrap(x0 + 1.0f, t->width, t->wrap);
    const uint32_t ya = sr_tex_wrap(y0, t->height, t->wrap), yb = sr_tex_wrap(y0 + 1.0f, t->height, t->wrap);
    const sr_vec3 c00 = sr_texel(s, t, xa, ya), c10 = sr_texel(s, t, xb, ya);
    const sr_vec3 c01 = sr_texel(s, t, xa, yb), c11 = sr_texel(s, t, xb, yb);
    const sr_vec3 top = sr_add(sr_scale(c00, 1.0f - tx), sr_scale(c10, tx));
    const sr_vec3 bottom = sr_add(sr_scale(c01, 1.0f - tx), sr_scale(c11, tx));
    return sr_add(sr_scale(top, 1.0f - ty), sr_scale(bottom, ty));
}

/* The material with its textures applied at the hit: *out = *m with colour x the colour
 * texture, roughness x the roughness texture's green channel and metallic x the metallic
 * texture's blue channel (glTF's convention; a grey map has them in every channel), and a pbr
 * material's emission x the emission texture. Returns m itself when it has no texture (the
 * common case costs this one test), else out. */
SR_HD const sr_material *sr_material_at(const sr_scene_view *s, const sr_material *m, uint32_t hit_prim,
                                        const sr_prim *prim, sr_vec3 x, sr_material *out)
{
    if (SR_NO_ASSETS || !(m->color_tex | m->rough_tex | m->metal_tex | m->emit_tex)) return m;
    float u = 0.0f, v = 0.0f;
    if (!sr_hit_uv(s, hit_prim, prim, x, &u, &v)) return m;
    *out = *m;
    if (m->color_tex) out->color = sr_mul(m->color, sr_tex_sample(s, &s->textures[m->color_tex - 1u], u, v));
    if (m->rough_tex)
        out->roughness = sr_clampf(m->roughness * sr_tex_sample(s, &s->textures[m->rough_tex - 1u], u, v).y, 0.0f, 1.0f);
    if (m->metal_tex)
        out->metallic = sr_clampf(m->metallic * sr_tex_sample(s, &s->textures[m->metal_tex - 1u], u, v).z, 0.0f, 1.0f);
    if (m->emit_tex) out->color2 = sr_mul(m->color2, sr_tex_sample(s, &s->textures[m->emit_tex - 1u], u, v));
    return out;
}

#endif
