/* camera.h: where a sample's paths start and end, for both integrators: the camera ray of a
 * pixel (also in the wave mask's tiled order), the sky a ray escapes to, and the film the
 * radiance is added to. */
#ifndef SR_CAMERA_H
#define SR_CAMERA_H

#include "../core/raystate.h"
#include "../core/rng.h"
#include "../core/envmap.h"
#include "../frames/wave.h"

/* The Whitted split's fixed-point film (sr_params.film_fix), for the pixels whose rays split
 * this sample: while a pixel has one ray in flight its radiance goes straight to the film, as
 * without the split; once its tree splits (whitted.h marks the pixel and its rays), every ray
 * of it adds here, and the sample's fold adds the sums to the film after the sample's direct
 * adds, so the film sees the same additions in the same order on both backends. A
 * contribution v is stored as
 * the integer trunc(v * 2^32) (a quantum of 2.3e-10, below a float's step of 1.2e-7 at 1.0),
 * clamped to +-2^30 (NaN: 0), summed with 64-bit integer atomics: the sum of a sample's
 * contributions is exact whatever their order, so both backends get the same bits. A pixel's
 * sample holds up to 2^31 in all before it wraps. */
#define SR_FILM_FIX_SCALE 4294967296.0f      /* 2^32 */
#define SR_FILM_FIX_UNSCALE 2.3283064e-10f   /* 2^-32, exact */
#define SR_FILM_FIX_MAX 1073741824.0f        /* 2^30 */
SR_HD unsigned long long sr_film_fix(float v)
{
    v = v > SR_FILM_FIX_MAX ? SR_FILM_FIX_MAX : v < -SR_FILM_FIX_MAX ? -SR_FILM_FIX_MAX : v == v ? v : 0.0f;
    return (unsigned long long)(long long)(v * SR_FILM_FIX_SCALE);
}
SR_HD void sr_film_fix_add(unsigned long long *a, float v)
{
#ifdef __CUDA_ARCH__
    atomicAdd(a, sr_film_fix(v));
#else
    __atomic_fetch_add(a, sr_film_fix(v), __ATOMIC_RELAXED);
#endif
}
/* The fixed-point film's words for `pixels` pixels: three sums a pixel, then the marks of
 * the pixels that split this sample, a bit each (sr_film_marks). */
SR_HD uint64_t sr_film_fix_words(uint32_t pixels) { return 3u * (uint64_t)pixels + (pixels + 63u) / 64u; }
SR_HD uint32_t *sr_film_marks(unsigned long long *fix, uint32_t pixels) { return (uint32_t *)(fix + 3u * (uint64_t)pixels); }

/* A ray's mark that its pixel's tree has split this sample (whitted.h): Whitted rays carry no
 * pdf (only path tracing's MIS reads it), so the field holds it. */
#define SR_RAY_SPLIT 1.0f

/* Marks `pixel` as split this sample. */
SR_HD void sr_film_mark(const sr_params *p, uint32_t pixel)
{
    uint32_t *w = &p->film_marks[pixel >> 5];
#ifdef __CUDA_ARCH__
    atomicOr(w, 1u << (pixel & 31u));
#else
    __atomic_fetch_or(w, 1u << (pixel & 31u), __ATOMIC_RELAXED);
#endif
}

/* The fold of mark word w: each marked pixel's fixed-point sums into the film (one rounding
 * to float, then the same add as a direct one) and cleared, the marks cleared. */
SR_HD void sr_film_fold_word(float *film, unsigned long long *fix, uint32_t *marks, uint32_t w)
{
    uint32_t bits = marks[w];
    if (bits == 0u) return;
    marks[w] = 0u;
    for (; bits; bits &= bits - 1u) {
#ifdef __CUDA_ARCH__
        const uint32_t i = 32u * w + (uint32_t)(__ffs((int)bits) - 1);
#else
        const uint32_t i = 32u * w + (uint32_t)__builtin_ctz(bits);
#endif
        for (uint32_t k = 3u * i; k < 3u * i + 3u; k++) {
            film[k] += (float)(long long)fix[k] * SR_FILM_FIX_UNSCALE;
            fix[k] = 0;
        }
    }
}

/* Add radiance to the film. One ray per pixel is in flight per sample pass, so no two live
 * rays share a film entry and a plain add is race-free, in any order; with the Whitted split,
 * the rays of a pixel that split (`shared`) add to the fixed-point film instead. */
SR_HD void sr_film_add_shared(const sr_params *p, uint32_t pixel, bool shared, sr_vec3 c)
{
    if (shared && p->film_fix) {
        unsigned long long *f = p->film_fix + 3u * pixel;
        sr_film_fix_add(f + 0, c.x); sr_film_fix_add(f + 1, c.y); sr_film_fix_add(f + 2, c.z);
        return;
    }
    float *f = p->film + 3u * pixel;
    f[0] += c.x; f[1] += c.y; f[2] += c.z;
}
SR_HD void sr_film_add(const sr_params *p, uint32_t pixel, sr_vec3 c) { sr_film_add_shared(p, pixel, false, c); }

/* Radiance of a ray that escapes in direction d (unit): the environment map, the uniform
 * background, or the sky gradient by d.y: horizon at y = 0 to zenith at y = 1, and to ground
 * at y = -1. */
SR_HD sr_vec3 sr_sky(const sr_scene_view *s, sr_vec3 d)
{
    if (!SR_NO_ASSETS && s->env_tex) return sr_env_radiance(s, d);
    if (!s->has_sky) return s->background;
    float y = sr_clampf(d.y, -1.0f, 1.0f);
    if (y >= 0.0f) return sr_add(sr_scale(s->sky_horizon, 1.0f - y), sr_scale(s->sky_zenith, y));
    return sr_add(sr_scale(s->sky_horizon, 1.0f + y), sr_scale(s->sky_ground, -y));
}

/* The camera ray of pixel (x, y). Random numbers are keyed by the pixel, never the slot, so
 * any slot order gives the same image. */
SR_HD sr_ray sr_camera_ray(const sr_params *p, uint32_t x, uint32_t y)
{
    const sr_scene_view *s = &p->scene;
    const sr_camera *c = &s->camera;
    const uint32_t pixel = y * s->width + x;
    float jx = 0.5f, jy = 0.5f;
    if (s->spp > 1) {  /* jittered within the pixel: antialiasing converges over samples */
        jx = sr_rng(p->seed, pixel, p->sample, 0, SR_DIM_PIXEL_X);
        jy = sr_rng(p->seed, pixel, p->sample, 0, SR_DIM_PIXEL_Y);
    }
    float u = ((float)x + jx) / (float)s->width;
    float v = 1.0f - ((float)y + jy) / (float)s->height;
    sr_vec3 origin = c->origin;
    if (c->lens_radius > 0.0f) {   /* thin lens: a point on the aperture disk */
        float r = c->lens_radius * sqrtf(sr_rng(p->seed, pixel, p->sample, 0, SR_DIM_LENS_U));
        float sin_phi, cos_phi;
        sr_sincos_turns(sr_rng(p->seed, pixel, p->sample, 0, SR_DIM_LENS_V), &sin_phi, &cos_phi);
        origin = sr_add(origin, sr_add(sr_scale(c->u, r * cos_phi), sr_scale(c->v, r * sin_phi)));
    }
    sr_vec3 target = sr_add(c->lower_left, sr_add(sr_scale(c->horizontal, u), sr_scale(c->vertical, v)));
    sr_ray r;
    r.o = origin;
    r.d = sr_normalize(sr_sub(target, origin));
    r.tp = sr_v3s(1.0f);
    r.pdf = 0.0f;   /* path mode: nothing sampled it, emission counts in full */
    r.pixel = pixel;
    return r;
}

/* The camera ray of `pixel` (row by row). */
SR_HD sr_ray sr_camera_pixel(const sr_params *p, uint32_t pixel)
{
    return sr_camera_ray(p, pixel % p->scene.width, pixel / p->scene.width);
}

/* The camera ray of lane `lane` in the wave mask's tiled order (wave.h): lane l of tile
 * (tile_x, tile_y) is pixel (l % SR_TILE_W, l / SR_TILE_W) of the tile; false for the lanes of
 * tiles that overhang the image. (The CUDA frame gets the tile from its 2D grid, without
 * dividing.) */
SR_HD bool sr_camera_tile(const sr_params *p, uint32_t lane, uint32_t tile_x, uint32_t tile_y, sr_ray *r)
{
    const uint32_t x = tile_x * SR_TILE_W + lane % SR_TILE_W, y = tile_y * SR_TILE_H + lane / SR_TILE_W;
    if (x >= p->scene.width || y >= p->scene.height) return false;
    *r = sr_camera_ray(p, x, y);
    return true;
}
/* The same for slot `slot` of the tiled order (tile slot / 32, lane slot % 32). */
SR_HD bool sr_camera_tiled(const sr_params *p, uint32_t slot, sr_ray *r)
{
    const uint32_t tile = slot >> 5, tiles_x = sr_tiles_x(p->scene.width);
    return sr_camera_tile(p, slot & 31u, tile % tiles_x, tile / tiles_x, r);
}

#endif
