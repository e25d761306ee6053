/* camera.h: where a sample's paths start and end, for both integrators: the camera ray of a
 * pixel (also in the wave mask's tiled order), the sky a ray escapes to, and the film the
 * radiance is added to. */
#ifndef SR_CAMERA_H
#define SR_CAMERA_H

#include "../core/raystate.h"
#include "../core/rng.h"
#include "../core/envmap.h"
#include "../frames/wave.h"

/* The Whitted split's fixed-point film (sr_params.film_fix): a contribution v is stored as
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
/* A sample's fixed-point sums of one film entry i into the film, and cleared for the next:
 * one rounding to float, then the same add as without the split. */
SR_HD void sr_film_fold(float *film, unsigned long long *fix, uint32_t i)
{
    film[i] += (float)(long long)fix[i] * SR_FILM_FIX_UNSCALE;
    fix[i] = 0;
}

/* Add radiance to the film. Without the split one ray per pixel is in flight per sample
 * pass, so no two live rays share a film entry and a plain add is race-free, in any order;
 * with it, the fixed-point film. */
SR_HD void sr_film_add(const sr_params *p, uint32_t pixel, sr_vec3 c)
{
    if (p->film_fix) {
        unsigned long long *f = p->film_fix + 3u * pixel;
        sr_film_fix_add(f + 0, c.x); sr_film_fix_add(f + 1, c.y); sr_film_fix_add(f + 2, c.z);
        return;
    }
    float *f = p->film + 3u * pixel;
    f[0] += c.x; f[1] += c.y; f[2] += c.z;
}

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
