/* stages.h: the wavefront's stages, written once for both backends. Each is called for one
 * live ray (pool slot) and returns whether the ray is still alive afterwards. The frame
 * around it (a CUDA kernel, or the CPU backend's warp loop) owns the stencil test and the
 * ballot write-back. */
#ifndef SR_STAGES_H
#define SR_STAGES_H

#include "whitted.h"
#include "path.h"

/* Primary ray of pixel `slot` into the pool (in pixel order when a sample starts). */
SR_HD bool sr_stage_generate(const sr_params *p, uint32_t slot)
{
    const sr_ray r = sr_camera_pixel(p, slot);
    sr_ray_store(p->ray, slot, &r);
    p->ray.bounce[slot] = 0;
    return true;
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

/* The hit that intersect left in memory for a separate shade launch. */
SR_HD sr_hit sr_stored_hit(const sr_params *p, uint32_t slot)
{
    sr_hit h;
    h.t = p->hit_t[slot];
    h.prim = p->hit_prim[slot];
    return h;
}

/* Shade stages for one stage per launch: the ray and its hit come from the pool, and the
 * continuation goes back there. */
SR_HD bool sr_stage_shade_whitted_split(const sr_params *p, uint32_t slot, uint32_t bounce, sr_ray *spawn,
                                        bool *spawns)
{
    sr_ray r = sr_ray_load(p->ray, slot);
    const bool next = sr_shade_whitted(p, &r, bounce, sr_stored_hit(p, slot), spawn, spawns);
    if (next) sr_ray_store_next(p->ray, slot, &r, spawn != (sr_ray *)0);   /* (the split's mark: camera.h) */
    return next;
}
/* Without the split (p->split NULL) nothing is spawned. */
SR_HD bool sr_stage_shade_whitted(const sr_params *p, uint32_t slot, uint32_t bounce)
{
    return sr_stage_shade_whitted_split(p, slot, bounce, (sr_ray *)0, (bool *)0);
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
SR_HD bool sr_trace_whitted(const sr_params *p, sr_ray *r, uint32_t bounce, sr_ray *spawn, bool *spawns)
{
    return sr_shade_whitted(p, r, bounce, sr_trace_closest(&p->scene, r->o, r->d, 0.0f, SR_INF), spawn, spawns);
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
 * and `split` are constants where the GPU kernels call it, so each is built for one
 * integrator, and Whitted's without the split carries no stack. With the split (p->split
 * set), the spawned rays wait on the thread's stack (whitted.h) and are traced after the
 * branch before them, each to the depth limit. */
SR_HD uint32_t sr_megakernel_pixel(const sr_params *p, uint32_t pixel, bool path, bool split)
{
    sr_ray r = sr_camera_pixel(p, pixel);
    uint32_t segments = 0;
    if (path || !split) {
        for (uint32_t b = 0; b < p->scene.max_depth; b++) {
            segments++;
            if (!(path ? sr_trace_path(p, &r, b) : sr_trace_whitted(p, &r, b, (sr_ray *)0, (bool *)0))) break;
        }
        return segments;
    }
    sr_split_stack st;
    st.n = 0;
    uint32_t b = 0;
    for (;;) {
        segments++;
        sr_ray spawn;
        bool spawns = false;
        const bool next = sr_trace_whitted(p, &r, b, &spawn, &spawns);
        b++;
        if (spawns) sr_split_keep(p, &st, &spawn, b);
        if (next) continue;   /* (a continuation exists only below the depth limit) */
        if (!sr_split_pop(&st, &r, &b)) break;
    }
    return segments;
}

/* A scene without assets: no textures, environment map or per-vertex attributes. A plain
 * scene has no lights or area emitters either. The GPU runs such scenes on kernels built
 * without those features (kernels/frames/plain.cuh). */
SR_HD bool sr_scene_no_assets(const sr_scene_view *s)
{
    return s->attrs == 0 && s->texture_count == 0u && s->env_tex == 0u;
}

/* A scene whose materials use what only the maps build has (SR_NO_MAPS): normal maps,
 * alpha cutouts, metallic or emission textures. */
SR_HD bool sr_scene_maps(const sr_scene_view *s)
{
    if (s->cutouts) return true;
    for (uint32_t i = 0; i < s->material_count; i++) {
        const sr_material *m = &s->materials[i];
        if (m->metal_tex | m->emit_tex | m->norm_tex) return true;
    }
    return false;
}

SR_HD bool sr_scene_plain(const sr_scene_view *s)
{
    return sr_scene_no_assets(s) && s->light_count == 0u && s->emitter_count == 0u && !(s->emitter_power > 0.0f);
}

/* One bounce of the wave mask's loop: path tracing's last segment is a bounce of its own. */
SR_HD bool sr_trace_wave(const sr_params *p, sr_ray *r, uint32_t bounce, sr_ray *spawn, bool *spawns)
{
    return p->scene.integrator == SR_INTEGRATOR_PATH ? sr_trace_path_deferred(p, r, bounce)
                                                     : sr_trace_whitted(p, r, bounce, spawn, spawns);
}

/* The shade stage of the scene's integrator. The CUDA frames call the two bodies from
 * separate kernels instead (kernels/frames/bounce.cu), so Whitted kernels do not carry the path
 * integrator's registers (83 against 64 on sm_90 when both share one kernel). */
SR_HD bool sr_stage_shade(const sr_params *p, uint32_t slot, uint32_t bounce)
{
    return p->scene.integrator == SR_INTEGRATOR_PATH ? sr_stage_shade_path(p, slot, bounce)
                                                     : sr_stage_shade_whitted(p, slot, bounce);
}

#endif
