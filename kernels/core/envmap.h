/* envmap.h: an equirectangular environment map (an image texture around the scene), seen by
 * rays that escape, and in path mode sampled like a light: a texel is picked in proportion to
 * its luminance times the solid angle its row covers (a piecewise-constant 2D distribution:
 * a CDF over rows, then one within the row), and a direction uniformly inside it.
 *
 * Mapping: in the map's own frame (the world's when "rotate" is [0, 0, 0]) the image's top row
 * is straight up (+y), its bottom row straight down, its centre column looks along -z and u
 * grows towards +x: d = (sin t sin p, cos t, -sin t cos p), t = pi v_img, p = 2 pi (u - 1/2),
 * with v_img = 0 at the top row. Lookups are per texel (nearest), so what is sampled and what
 * is seen are the same function. Only + - * / sqrt floorf and vmath.h's helpers are used: the
 * CPU and GPU trace the same paths bit for bit. */
#ifndef SR_ENVMAP_H
#define SR_ENVMAP_H

#include "texture.h"

/* atan(x) for |x| <= 1: a minimax polynomial, error below 1e-5 rad. Written here because the C
 * library and CUDA round atan2f differently; this gives both backends the same bits. */
SR_HD float sr_atan_unit(float x)
{
    const float x2 = x * x;
    return x * (0.99997726f + x2 * (-0.33262347f + x2 * (0.19354346f + x2 * (-0.11643287f + x2 * (0.05265332f +
                x2 * (-0.01172120f))))));
}

/* atan2(y, x) in (-pi, pi], 0 for (0, 0). */
SR_HD float sr_atan2(float y, float x)
{
    const float ax = fabsf(x), ay = fabsf(y);
    if (!(ax > 0.0f) && !(ay > 0.0f)) return 0.0f;
    float r = ay > ax ? 0.5f * SR_PI - sr_atan_unit(ax / ay) : sr_atan_unit(ay / ax);
    if (x < 0.0f) r = SR_PI - r;
    return y < 0.0f ? -r : r;
}

/* World direction -> the map's frame (the rotation's transpose) and back. */
SR_HD sr_vec3 sr_env_to_local(const sr_scene_view *s, sr_vec3 d)
{
    return sr_v3(sr_dot(s->env_rot[0], d), sr_dot(s->env_rot[1], d), sr_dot(s->env_rot[2], d));
}
SR_HD sr_vec3 sr_env_to_world(const sr_scene_view *s, sr_vec3 l)
{
    return sr_add(sr_add(sr_scale(s->env_rot[0], l.x), sr_scale(s->env_rot[1], l.y)), sr_scale(s->env_rot[2], l.z));
}

/* The texel a direction (unit, world) falls in: column *i, row *j (0 = top). */
SR_HD void sr_env_texel_of(const sr_scene_view *s, const sr_texture *t, sr_vec3 d, uint32_t *i, uint32_t *j)
{
    const sr_vec3 l = sr_env_to_local(s, d);
    const float u = 0.5f + sr_atan2(l.x, -l.z) * (0.5f / SR_PI);
    const float y = sr_clampf(l.y, -1.0f, 1.0f);
    const float v = sr_atan2(sqrtf(sr_maxf(0.0f, 1.0f - y * y)), y) * (1.0f / SR_PI);
    *i = sr_tex_wrap(floorf(u * (float)t->width), t->width, SR_WRAP_REPEAT);
    *j = sr_tex_wrap(floorf(v * (float)t->height), t->height, SR_WRAP_CLAMP);
}

/* Radiance arriving from direction d (unit): the texel times the intensity. */
SR_HD sr_vec3 sr_env_radiance(const sr_scene_view *s, sr_vec3 d)
{
    const sr_texture *t = &s->textures[s->env_tex - 1u];
    uint32_t i, j;
    sr_env_texel_of(s, t, d, &i, &j);
    return sr_scale(sr_texel(s, t, i, j), s->env_intensity);
}

/* sin(theta) of a direction in the map's frame: the Jacobian from (u, v) to solid angle is
 * 2 pi^2 sin(theta). */
SR_HD float sr_env_sin_theta(const sr_scene_view *s, sr_vec3 d)
{
    const float y = sr_clampf(sr_env_to_local(s, d).y, -1.0f, 1.0f);
    return sqrtf(sr_maxf(0.0f, 1.0f - y * y));
}

/* The solid-angle pdf with which sr_env_sample gives direction d. */
SR_HD float sr_env_pdf(const sr_scene_view *s, sr_vec3 d)
{
    const sr_texture *t = &s->textures[s->env_tex - 1u];
    uint32_t i, j;
    sr_env_texel_of(s, t, d, &i, &j);
    const float st = sr_env_sin_theta(s, d);
    if (!(st > 0.0f)) return 0.0f;
    return s->env_pdf[(unsigned long long)j * t->width + i] / (2.0f * SR_PI * SR_PI * st);
}

/* The first index k in cdf[0..n] (cdf[0] = 0, cdf[n] = 1) with u < cdf[k + 1]. */
SR_HD uint32_t sr_env_search(const float *cdf, uint32_t n, float u)
{
    uint32_t lo = 0, hi = n - 1u;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) / 2u;
        if (u < cdf[mid + 1u]) hi = mid;
        else lo = mid + 1u;
    }
    return lo;
}

/* A direction from two uniforms: a texel by the distribution, a point uniformly in it. Gives
 * the direction, its solid-angle pdf and the radiance from there; false when the pdf is 0. */
SR_HD bool sr_env_sample(const sr_scene_view *s, float u1, float u2, sr_vec3 *wi, float *pdf, sr_vec3 *radiance)
{
    const sr_texture *t = &s->textures[s->env_tex - 1u];
    const uint32_t w = t->width, h = t->height;
    const uint32_t j = sr_env_search(s->env_marginal, h, u1);
    const float *row = s->env_conditional + (unsigned long long)j * (w + 1u);
    const uint32_t i = sr_env_search(row, w, u2);
    /* where in the texel: the uniforms' positions inside the chosen CDF steps */
    const float m0 = s->env_marginal[j], m1 = s->env_marginal[j + 1u];
    const float c0 = row[i], c1 = row[i + 1u];
    const float fv = m1 > m0 ? sr_clampf((u1 - m0) / (m1 - m0), 0.0f, 1.0f) : 0.5f;
    const float fu = c1 > c0 ? sr_clampf((u2 - c0) / (c1 - c0), 0.0f, 1.0f) : 0.5f;
    const float u = ((float)i + fu) / (float)w, v = ((float)j + fv) / (float)h;
    float st, ct, sp, cp;
    sr_sincos_turns(0.5f * v, &st, &ct);
    sr_sincos_turns(u - 0.5f, &sp, &cp);
    if (!(st > 0.0f)) return false;
    *wi = sr_normalize(sr_env_to_world(s, sr_v3(st * sp, ct, -st * cp)));
    *pdf = s->env_pdf[(unsigned long long)j * w + i] / (2.0f * SR_PI * SR_PI * st);
    *radiance = sr_scale(sr_texel(s, t, i, j), s->env_intensity);
    return *pdf > 0.0f;
}

#endif
