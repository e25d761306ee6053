/* texel.h: image texture lookups, shared by both backends. Texels are linear RGB floats
 * (colour maps are decoded from sRGB on the host, once, so both backends read the same
 * numbers); lookups are nearest or bilinear with repeat or clamp wrapping, in + - * / and
 * floorf only, so the CPU and GPU agree bit for bit. Traversal reads them too (alpha cutouts,
 * intersect.h), so this needs nothing but the types. */
#ifndef SR_TEXEL_H
#define SR_TEXEL_H

#include "types.h"

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
    if (t->has_xf) {
        const float tu = t->xf[0] * u + t->xf[1] * v + t->xf[2];
        v = t->xf[3] * u + t->xf[4] * v + t->xf[5];
        u = tu;
    }
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

#endif
