/* texture.h: image textures at a hit, shared by both backends: a hit's texture coordinates
 * and a material with its textures applied (the lookups themselves: texel.h). */
#ifndef SR_TEXTURE_H
#define SR_TEXTURE_H

#include "intersect.h"
#include "texel.h"

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
    sr_tri_attr placed;
    const sr_tri_attr *a = sr_hit_attr(s, hit_prim, &placed);
    if (!(a->flags & SR_ATTR_UV)) return false;
    float wb, wc;
    sr_tri_bary(prim, x, &wb, &wc);
    const float wa = 1.0f - wb - wc;
    *u = a->uv[0] * wa + a->uv[2] * wb + a->uv[4] * wc;
    *v = a->uv[1] * wa + a->uv[3] * wb + a->uv[5] * wc;
    return true;
}

/* The material with its textures applied at the hit: *out = *m with colour x the colour
 * texture, roughness x the roughness texture's green channel and metallic x the metallic
 * texture's blue channel (glTF's convention; a grey map has them in every channel), and a pbr
 * material's emission x the emission texture. Returns m itself when it has no texture (the
 * common case costs this one test), else out. */
SR_HD const sr_material *sr_material_at(const sr_scene_view *s, const sr_material *m, uint32_t hit_prim,
                                        const sr_prim *prim, sr_vec3 x, sr_material *out)
{
    if (SR_NO_ASSETS || !(m->color_tex | m->rough_tex | (SR_NO_MAPS ? 0u : m->metal_tex | m->emit_tex))) return m;
    float u = 0.0f, v = 0.0f;
    if (!sr_hit_uv(s, hit_prim, prim, x, &u, &v)) return m;
    *out = *m;
    if (m->color_tex) out->color = sr_mul(m->color, sr_tex_sample(s, &s->textures[m->color_tex - 1u], u, v));
    if (m->rough_tex)
        out->roughness = sr_clampf(m->roughness * sr_tex_sample(s, &s->textures[m->rough_tex - 1u], u, v).y, 0.0f, 1.0f);
    if (SR_NO_MAPS) return out;   /* (the GPU's builds without maps: the scene has none) */
    if (m->metal_tex)
        out->metallic = sr_clampf(m->metallic * sr_tex_sample(s, &s->textures[m->metal_tex - 1u], u, v).z, 0.0f, 1.0f);
    if (m->emit_tex) out->color2 = sr_mul(m->color2, sr_tex_sample(s, &s->textures[m->emit_tex - 1u], u, v));
    return out;
}

#endif
