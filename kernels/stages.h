/* stages.h: the wavefront's stages, written once for both backends. Each is called for one
 * live ray (pool slot) and returns whether the ray is still alive afterwards. The frame
 * around it (a CUDA kernel, or the CPU backend's warp loop) owns the stencil test and the
 * ballot write-back. */
#ifndef SR_STAGES_H
#define SR_STAGES_H

#include "raystate.h"
#include "material.h"
#include "envmap.h"
#include "wave.h"

/* Add radiance to the film. One ray per pixel is in flight per sample pass, so no two
 * live rays share a film entry and a plain add is race-free, in any order. */
SR_HD void sr_film_add(const sr_params *p, uint32_t pixel, sr_vec3 c)
{
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

/* Primary ray of pixel `slot` into the pool (in pixel order when a sample starts). */
SR_HD bool sr_stage_generate(const sr_params *p, uint32_t slot)
{
    const sr_ray r = sr_camera_pixel(p, slot);
    sr_ray_store(p->ray, slot, &r);
    p->ray.bounce[slot] = 0;
    return true;
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

/* Closest hit of the ray in `slot`, left in hit_t / hit_prim for shade. */
SR_HD bool sr_stage_intersect(const sr_params *p, uint32_t slot)
{
    const sr_ray r = sr_ray_load(p->ray, slot);   /* only o and d are read */
    sr_hit h = sr_trace_closest(&p->scene, r.o, r.d, 0.0f, SR_INF);
    p->hit_t[slot] = h.t;
    p->hit_prim[slot] = h.prim;
    return true;
}

/* Path tracing's shading of one hit (kernels/path.h, included at the end of this file). */
SR_HD bool sr_shade_path(const sr_params *p, sr_ray *r, uint32_t bounce, sr_hit h);

/* What a path vertex leaves: the end of the path, the continuation in *r, or (for a caller
 * that asked to trace it itself) the last vertex's continuation in *r, to be traced once and
 * handed to sr_path_last_hit. */
enum { SR_PATH_END, SR_PATH_NEXT, SR_PATH_LAST };
SR_HD uint32_t sr_path_vertex(const sr_params *p, sr_ray *r, uint32_t bounce, sr_hit h, bool defer_last);
SR_HD void sr_path_last_hit(const sr_params *p, uint32_t pixel, sr_vec3 tp, sr_vec3 o, sr_vec3 wi, float pdf, sr_hit h);

/* The hit that intersect left in memory for a separate shade launch. */
SR_HD sr_hit sr_stored_hit(const sr_params *p, uint32_t slot)
{
    sr_hit h;
    h.t = p->hit_t[slot];
    h.prim = p->hit_prim[slot];
    return h;
}

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

/* The path integrator's body; it needs the helpers above (and includes this file itself, so
 * either header may be included first). */
#include "path.h"

/* Shade stages for one stage per launch: the ray and its hit come from the pool, and the
 * continuation goes back there. */
SR_HD bool sr_stage_shade_whitted(const sr_params *p, uint32_t slot, uint32_t bounce)
{
    sr_ray r = sr_ray_load(p->ray, slot);
    const bool next = sr_shade_whitted(p, &r, bounce, sr_stored_hit(p, slot));
    if (next) sr_ray_store_next(p->ray, slot, &r, false);
    return next;
}
SR_HD bool sr_stage_shade_path(const sr_params *p, uint32_t slot, uint32_t bounce)
{
    sr_ray r = sr_ray_load(p->ray, slot);
    const bool next = sr_shade_path(p, &r, bounce, sr_stored_hit(p, slot));
    if (next) sr_ray_store_next(p->ray, slot, &r, true);
    return next;
}

/* One whole bounce of ray *r, intersect then shade, ray and hit in registers (the megakernel
 * and the wave mask). Same arithmetic as the stages through the pool, so the same image. */
SR_HD bool sr_trace_whitted(const sr_params *p, sr_ray *r, uint32_t bounce)
{
    return sr_shade_whitted(p, r, bounce, sr_trace_closest(&p->scene, r->o, r->d, 0.0f, SR_INF));
}
SR_HD bool sr_trace_path(const sr_params *p, sr_ray *r, uint32_t bounce)
{
    return sr_shade_path(p, r, bounce, sr_trace_closest(&p->scene, r->o, r->d, 0.0f, SR_INF));
}
/* The same bounce with the last vertex's continuation made a bounce of its own (bounce ==
 * max_depth), so a loop over bounces traces it with its one inlined walk, not with a second
 * walk inside the shading. The same calls in the same order, so the same image. */
SR_HD bool sr_trace_path_deferred(const sr_params *p, sr_ray *r, uint32_t bounce)
{
    const sr_hit h = sr_trace_closest(&p->scene, r->o, r->d, 0.0f, SR_INF);
    if (bounce >= p->scene.max_depth) {
        sr_path_last_hit(p, r->pixel, r->tp, r->o, r->d, r->pdf, h);
        return false;
    }
    return sr_path_vertex(p, r, bounce, h, true) != SR_PATH_END;
}
/* One pixel's whole path in one thread, every bounce in a loop and the ray in registers (the
 * megakernel mask, both backends; the pool is not used); returns the segments traced. `path`
 * is a constant where the GPU kernels call it, so each is built for one integrator. */
SR_HD uint32_t sr_megakernel_pixel(const sr_params *p, uint32_t pixel, bool path)
{
    sr_ray r = sr_camera_pixel(p, pixel);
    uint32_t segments = 0;
    for (uint32_t b = 0; b < p->scene.max_depth; b++) {
        segments++;
        if (!(path ? sr_trace_path(p, &r, b) : sr_trace_whitted(p, &r, b))) break;
    }
    return segments;
}

/* The same for path tracing with the last segment traced as the wave mask does, a bounce of
 * its own (not counted): a measurement twin of the megakernel (docs/performance.md). Its own function:
 * as a branch of the one above, it cost the megakernel 6 registers on sm_90. */
SR_HD uint32_t sr_megakernel_pixel_deferred(const sr_params *p, uint32_t pixel)
{
    sr_ray r = sr_camera_pixel(p, pixel);
    uint32_t segments = 0;
    for (uint32_t b = 0; b <= p->scene.max_depth; b++) {
        segments += b < p->scene.max_depth;
        if (!sr_trace_path_deferred(p, &r, b)) break;
    }
    return segments;
}

/* A scene without assets: no textures, environment map or per-vertex attributes. A plain
 * scene has no lights or area emitters either. The GPU runs such scenes on kernels built
 * without those features (kernels/plain.cuh). */
SR_HD bool sr_scene_no_assets(const sr_scene_view *s)
{
    return s->attrs == 0 && s->texture_count == 0u && s->env_tex == 0u;
}

SR_HD bool sr_scene_plain(const sr_scene_view *s)
{
    return sr_scene_no_assets(s) && s->light_count == 0u && s->emitter_count == 0u && !(s->emitter_power > 0.0f);
}

/* One bounce of the wave mask's loop: path tracing's last segment is a bounce of its own. */
SR_HD bool sr_trace_wave(const sr_params *p, sr_ray *r, uint32_t bounce)
{
    return p->scene.integrator == SR_INTEGRATOR_PATH ? sr_trace_path_deferred(p, r, bounce)
                                                     : sr_trace_whitted(p, r, bounce);
}

/* The shade stage of the scene's integrator. The CUDA frames call the two bodies from
 * separate kernels instead (kernels/bounce.cu), so Whitted kernels do not carry the path
 * integrator's registers (83 against 64 on sm_90 when both share one kernel). */
SR_HD bool sr_stage_shade(const sr_params *p, uint32_t slot, uint32_t bounce)
{
    return p->scene.integrator == SR_INTEGRATOR_PATH ? sr_stage_shade_path(p, slot, bounce)
                                                     : sr_stage_shade_whitted(p, slot, bounce);
}

#endif
