/* render.c: the frame driver, the same loop for every backend. */
#include "render.h"
#include "../base/test_hooks.h"
#include "wave_way.h"
#include "../base/interrupt.h"
#include "../base/mem_limits.h"
#include "../../kernels/integrators/lights.h"
#include "../../kernels/integrators/stages.h"
#include "../../kernels/frames/sortkey.h"
#include "../../kernels/frames/wave.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double sr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A pool half's size in images (kernels/frames/wave.h): a scene with glass has the Whitted
 * split's room (whichever integrator: the viewer switches without a resize). */
uint32_t sr_pool_factor(const sr_scene *scene)
{
    for (uint32_t i = 0; i < scene->material_count; i++)
        if (scene->materials[i].kind == SR_MAT_GLASS) return SR_SPLIT_POOL_FACTOR;
    return 1u;
}

/* The power of the emitter with hit id `id` (0 where it is none): the world-space prim, as the
 * kernels place it. A top-level id is BVH position `id` of the scene's prims (the tree may live
 * on the device alone); an instanced one is placed through its instance (sr_hit_prim; the
 * top level of an instanced scene is always the host's). */
static float sr_id_power(const sr_renderer *r, const sr_scene *scene, uint32_t id)
{
    const sr_prim *p;
    sr_prim placed;
    if (id < r->bvh.prim_count) {
        if (r->bvh.order[id] >= scene->prim_count) return 0.0f;   /* an instance's proxy */
        p = &scene->prims[r->bvh.order[id]];
    } else {
        sr_hit h;
        h.t = 0.0f;
        h.prim = id;
        p = sr_hit_prim(&r->view, h, &placed);
    }
    const sr_material *m = &scene->materials[p->material];
    return sr_is_emitter(m) ? sr_emitter_power(p, m) : 0.0f;
}

uint64_t sr_scene_emitter_bound(const sr_scene *scene)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < scene->prim_count; i++) n += sr_is_emitter(&scene->materials[scene->prims[i].material]);
    if (!scene->instance_count) return n;
    /* each shared mesh's emissive triangles once, then once per instance placing it */
    uint64_t *per_mesh = (uint64_t *)calloc(scene->shared_mesh_count + 1u, sizeof *per_mesh);
    for (uint32_t m = 0; m < scene->shared_mesh_count; m++) {
        const sr_shared_mesh *sm = &scene->shared_meshes[m];
        for (uint32_t i = sm->first; per_mesh && i < sm->first + sm->count; i++)
            per_mesh[m] += sr_is_emitter(&scene->materials[scene->shared_prims[i].material]);
    }
    for (uint32_t k = 0; k < scene->instance_count; k++) {
        const uint32_t m = scene->instances[k].mesh;
        n += per_mesh ? per_mesh[m] : scene->shared_meshes[m].count;   /* (at most all of them) */
    }
    free(per_mesh);
    return n;
}

/* The emissive bounded prims by hit id (the BVH order's, then each instance's mesh), with the
 * CDF the path integrator picks one by (sr_emitter_power of the world-space prim, summed in
 * double and normalised; the last entry is exactly 1). Instanced emitters are entries of their
 * own, one per placement: light sampling picks among world-space triangles. */
static sr_status sr_build_emitters(sr_renderer *r, const sr_scene *scene, sr_error *err)
{
    /* the table's size is checked before the count below runs over every placed triangle */
    char what[160];
    const uint64_t bound = sr_scene_emitter_bound(scene);
    snprintf(what, sizeof what, "the emitter table (%llu emissive triangles and primitives placed)",
             (unsigned long long)bound);
    sr_status st = sr_check_host_memory(bound * sizeof(sr_emitter), what, "", err);
    if (st) return st;
    uint64_t ids = r->bvh.prim_count;
    for (uint32_t k = 0; k < scene->instance_count; k++) ids += scene->shared_meshes[scene->instances[k].mesh].count;
    uint32_t count = 0;
    for (uint64_t id = 0; id < ids; id++) count += sr_id_power(r, scene, (uint32_t)id) > 0.0f;
    if (count == 0) return SR_OK;
    r->emitters = (sr_emitter *)malloc(sizeof(sr_emitter) * count);
    if (!r->emitters) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for %u emitters", count);
    double total = 0.0;
    uint32_t k = 0;
    for (uint64_t id = 0; id < ids; id++) {
        const float power = sr_id_power(r, scene, (uint32_t)id);
        if (!(power > 0.0f)) continue;
        total += (double)power;
        r->emitters[k].prim = (uint32_t)id;
        r->emitters[k].cdf = (float)total;   /* normalised below */
        k++;
    }
    for (k = 0; k < count; k++) r->emitters[k].cdf = (float)((double)r->emitters[k].cdf / total);
    r->emitters[count - 1].cdf = 1.0f;
    r->view.emitters = r->emitters;
    r->view.emitter_count = count;
    r->view.emitter_power = (float)total;
    return SR_OK;
}

/* The scene's per-prim attributes in the BVH's order (none when the scene has none). */
static sr_status sr_build_attrs(sr_renderer *r, const sr_scene *scene, sr_error *err)
{
    if (!scene->attrs || r->bvh.prim_count == 0) return SR_OK;
    r->attrs = (sr_tri_attr *)malloc(sizeof(sr_tri_attr) * r->bvh.prim_count);
    if (!r->attrs) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for the attributes of %u triangles",
                                  r->bvh.prim_count);
    uint32_t cut = 0;   /* alpha-tested or coverage prims: traversal tests them (sr_cut_away) */
    for (uint32_t i = 0; i < r->bvh.prim_count; i++) {
        if (r->bvh.order[i] < scene->prim_count) r->attrs[i] = scene->attrs[r->bvh.order[i]];
        else memset(&r->attrs[i], 0, sizeof r->attrs[i]);   /* an instance's proxy */
        cut |= r->attrs[i].flags & SR_ATTR_CUTOUT;
    }
    r->view.attrs = r->attrs;
    r->view.cutouts = cut ? 1u : 0u;
    return SR_OK;
}

/* The view's arrays from the joined levels: top level, then the instanced meshes. */
static sr_status sr_join_levels(sr_renderer *r, const sr_scene *scene, sr_error *err)
{
    sr_status st = sr_levels_join(scene, &r->levels, &r->bvh, r->attrs, err);
    if (st) return st;
    const sr_levels *lv = &r->levels;
    r->view.prims = lv->prims;
    r->view.prim_count = lv->prim_count;
    r->view.nodes = lv->nodes;
    r->view.node_count = lv->node_count;
    r->view.attrs = lv->attrs;
    for (uint32_t i = 0; lv->attrs && i < lv->prim_count && !r->view.cutouts; i++)   /* an instanced mesh's too */
        r->view.cutouts = (lv->attrs[i].flags & SR_ATTR_CUTOUT) ? 1u : 0u;
    r->view.instances = lv->instances;
    r->view.instance_count = lv->instance_count;
    r->view.instance_ids = lv->instance_ids;
    return SR_OK;
}

/* The scene as the backend gets it: its arrays (bounded prims and nodes in BVH order) and
 * its scene-wide scalars. The per-frame fields (camera, size, spp, depth, integrator) are a
 * frame's (sr_view_set_frame), and stay 0 here. */
static sr_scene_view sr_view_of_scene(const sr_scene *scene, const sr_bvh *bvh)
{
    return (sr_scene_view){
        .prims = bvh->prims, .prim_count = bvh->prim_count, .nodes = bvh->nodes, .node_count = bvh->node_count,
        .planes = scene->planes, .plane_count = scene->plane_count,
        .materials = scene->materials, .material_count = scene->material_count,
        .lights = scene->lights, .light_count = scene->light_count,
        .textures = scene->tex.items, .texture_count = scene->tex.count, .texels = scene->tex.texels,
        .env_tex = scene->env_tex, .env_rot = { scene->env_rot[0], scene->env_rot[1], scene->env_rot[2] },
        .env_intensity = scene->env_intensity, .env_marginal = scene->env_marginal,
        .env_conditional = scene->env_conditional, .env_pdf = scene->env_pdf,
        .background = scene->background, .has_sky = scene->has_sky ? 1u : 0u, .sky_zenith = scene->sky_zenith,
        .sky_horizon = scene->sky_horizon, .sky_ground = scene->sky_ground, .ambient = scene->ambient,
        .path_flags = scene->path_flags,
        .tangents = scene->tangents, .tangent_count = scene->tangent_count,   /* the attributes index it */
    };
}

/* A frame's scalars into the view the backend launches with (its arrays stay). */
static void sr_view_set_frame(sr_scene_view *v, const sr_frame *f)
{
    v->camera = sr_camera_make(&f->camera, f->width, f->height);
    v->spp = f->spp;
    v->max_depth = f->depth;
    v->integrator = f->integrator;
}

/* What the renderer learnt from the samples of one pool: the compaction forecast and the wave
 * mask's measurement (the tile order it times starts again with a new pool). */
static void sr_renderer_forget(sr_renderer *r)
{
    memset(r->live_after, 0, sizeof r->live_after);
    r->have_history = 0;
    r->wave_tuned = r->wave_pick = r->wave_tune_depth = r->wave_tune_integrator = 0;
    memset(r->wave_tune_ms, 0, sizeof r->wave_tune_ms);
    r->wave_ordered = 0;
    r->wave_warming = 0;
    r->wave_parity = r->wave_order_slot = 0;
}

/* The narrowest build of the kernels the scene fits, with the path integrator (the plain
 * build runs path tracing only): once, at prepare. A measurement build (-DSR_MEASURE=ON)
 * with $SR_NO_PLAIN_KERNELS set runs every scene on the general build (what the narrower
 * builds gain, docs/design.md). */
static sr_build sr_scene_build(const sr_scene_view *v)
{
#if SR_MEASURE
    if (sr_test_hook(SR_HOOK_NO_PLAIN_KERNELS) && !v->instance_count) return sr_scene_maps(v) ? SR_BUILD_MAPS : SR_BUILD_GENERAL;
#endif
    if (v->instance_count) return SR_BUILD_INSTANCES;   /* the only build with the second level */
    if (sr_scene_maps(v)) return SR_BUILD_MAPS;
    if (!sr_scene_no_assets(v)) return SR_BUILD_GENERAL;
    return sr_scene_plain(v) ? SR_BUILD_PLAIN : SR_BUILD_NO_ASSETS;
}

/* The build a frame of the scene runs on: the scene's, but never the plain one for another
 * integrator than path tracing. */
static sr_build sr_build_of(sr_build scene_build, uint32_t integrator)
{
    return scene_build == SR_BUILD_PLAIN && integrator != SR_INTEGRATOR_PATH ? SR_BUILD_NO_ASSETS : scene_build;
}

sr_status sr_renderer_apply(sr_renderer *r, const sr_frame *f, sr_error *err)
{
    if (f->width < 1 || f->height < 1 || (uint64_t)f->width * f->height > (1u << 28))
        return sr_fail(err, SR_ERR_INPUT, "a %ux%u frame: expected 1 to %u pixels", f->width, f->height, 1u << 28);
    if (f->depth < 1 || f->depth > SR_MAX_DEPTH)
        return sr_fail(err, SR_ERR_INPUT, "trace depth %u: expected 1 to %u", f->depth, SR_MAX_DEPTH);
    if (f->width != r->sized_width || f->height != r->sized_height) {
        r->sized_width = r->sized_height = 0;
        sr_status s = r->be->ops->resize(r->be->impl, f->width, f->height, err);
        if (s) return s;
        r->sized_width = f->width;
        r->sized_height = f->height;
        sr_renderer_forget(r);
    }
    sr_view_set_frame(&r->be->state->view, f);
    /* Whitted glass follows both rays (kernels/integrators/whitted.h): the split. At depth 1
     * no glass hit sends a ray on, so the kernels without the split's stack and counters run
     * (the same image; the wave mask's were 5-15 % slower there with them). */
    r->be->state->split = f->integrator != SR_INTEGRATOR_PATH && r->has_glass && f->depth > 1u;
    r->be->state->split_stack = r->split_budget < SR_SPLIT_STACK ? r->split_budget : SR_SPLIT_STACK;
    r->build = sr_build_of(r->scene_build, f->integrator);
    return SR_OK;
}

/* Which BVH a scene gets. Up to SR_BVH_HOST_SAH_MAX bounded prims, the host's binned SAH
 * tree (bvh.h), uploaded to the backend: the better tree (SAH cost 10 to 45 % below the
 * linear BVH's on the shipped scenes; docs/design.md, "The BVH built on the GPU"), built in
 * a few milliseconds at that size. Above it, the backend builds the linear BVH where the
 * stages read it (backend.h, build_bvh): milliseconds on the GPU for millions of prims.
 * Either way both backends trace the same tree, so their images agree bit for bit. */
#ifndef SR_BVH_HOST_SAH_MAX
#define SR_BVH_HOST_SAH_MAX 32768u
#endif

sr_status sr_renderer_prepare(sr_renderer *r, const sr_scene *scene, sr_backend *be, const sr_frame *f,
                              sr_error *err)
{
    memset(r, 0, sizeof *r);
    r->be = be;
    double t = sr_now();
    /* A scene with instances: the two levels, the top one always the host's SAH tree
     * (instances.h); a scene without keeps the single tree. */
    sr_status st = scene->instance_count ? sr_levels_build(scene, &r->levels, &r->bvh, err)
                   : scene->prim_count <= SR_BVH_HOST_SAH_MAX || sr_bvh_host_always()
                       ? sr_bvh_build_sah(scene->prims, scene->prim_count, &r->bvh, err)
                       : sr_bvh_build_on(be, scene->prims, scene->prim_count, 0, &r->bvh, err);
    if (st) { memset(r, 0, sizeof *r); return st; }
    r->build_s = sr_now() - t;
    r->view = sr_view_of_scene(scene, &r->bvh);
    st = sr_build_attrs(r, scene, err);
    if (!st && scene->instance_count) st = sr_join_levels(r, scene, err);
    if (!st) st = sr_build_emitters(r, scene, err);   /* by hit id: after the join */
    r->scene_build = sr_scene_build(&r->view);
    r->has_glass = sr_pool_factor(scene) > 1u;
    /* The test switch $SR_SPLIT_BUDGET=N: a lane keeps at most N pending rays and a shade
     * launch appends at most N (tests: rays dropped and counted). */
    const char *budget = sr_test_hook(SR_HOOK_SPLIT_BUDGET);
    r->split_budget = budget && *budget ? (uint32_t)strtoul(budget, NULL, 10) : UINT32_MAX;
    be->state->pool_factor = sr_pool_factor(scene);   /* before the pool is sized (apply) */
#if SR_MEASURE   /* what the order gains (docs/design.md): every sample in launch order */
    r->wave_launch_order = sr_test_hook(SR_HOOK_WAVE_LAUNCH_ORDER) != NULL;
#endif
    t = sr_now();
    if (!st) st = be->ops->upload(be->impl, &r->view, err);
    if (!st) st = sr_renderer_apply(r, f, err);   /* the ray pool and film: part of the upload */
    r->upload_s = sr_now() - t;
    if (st) sr_renderer_free(r);   /* leaves r zeroed: nothing for the caller to free */
    return st;
}

void sr_renderer_free(sr_renderer *r)
{
    sr_bvh_free(&r->bvh);
    sr_levels_free(&r->levels);
    free(r->emitters);
    free(r->attrs);
    memset(r, 0, sizeof *r);
}

/* Timing marks of one sample: which stage ended at each mark (SR_STAGE_COUNT: the sample's
 * start or end). These are sr_render_times' buckets, not sr_kernel (backend.h): a bucket
 * takes several kernels (sort: keys and sort), and none is printed by name from here. */
typedef enum sr_stage { SR_STAGE_GENERATE = 0, SR_STAGE_INTERSECT, SR_STAGE_SHADE, SR_STAGE_COMPACT, SR_STAGE_SORT,
                        SR_STAGE_COUNT } sr_stage;

typedef struct sr_marks { uint32_t count; uint8_t stage[SR_MAX_MARKS]; uint8_t bounce[SR_MAX_MARKS]; } sr_marks;

static sr_status sr_mark(sr_renderer *r, const sr_render_opts *o, sr_marks *m, sr_stage stage, uint32_t bounce,
                         sr_error *err)
{
    if (!o->times || m->count >= SR_MAX_MARKS) return SR_OK;
    if (!o->times->per_stage && stage != SR_STAGE_COUNT) return SR_OK;
    m->stage[m->count] = (uint8_t)stage;
    m->bounce[m->count] = (uint8_t)bounce;
    return r->be->ops->mark(r->be->impl, m->count++, err);
}

static sr_status sr_collect_times(sr_renderer *r, const sr_render_opts *o, const sr_marks *m, sr_error *err)
{
    sr_status s = r->be->ops->finish(r->be->impl, err);
    for (uint32_t k = 1; !s && k < m->count; k++) {
        float ms = 0;
        if ((s = r->be->ops->elapsed_ms(r->be->impl, k - 1, k, &ms, err))) break;
        uint32_t b = m->bounce[k];
        switch ((sr_stage)m->stage[k]) {
        case SR_STAGE_GENERATE: o->times->generate += ms; break;
        case SR_STAGE_INTERSECT: o->times->intersect[b] += ms; break;
        case SR_STAGE_SHADE: o->times->shade[b] += ms; break;
        case SR_STAGE_COMPACT: o->times->compact[b] += ms; break;
        case SR_STAGE_SORT: o->times->sort[b] += ms; break;
        default: if (o->mask == SR_MASK_MEGAKERNEL || o->mask == SR_MASK_WAVE) o->times->megakernel += ms; break;
        }
        o->times->total += ms;
    }
    return s;
}

/* The compaction policy: compact when the live rays fill less than compact_below of the
 * CURRENT pool (after a compaction the pool is dense, and compacting it again would only
 * cost); 1 means after every bounce, 0 never. The coherence sort reorders a dense pool, so
 * it compacts every bounce. live_frac and pool_frac are fractions of the full pool. */
static bool sr_should_compact(const sr_render_opts *o, float live_frac, float pool_frac)
{
    if (o->sort != SR_SORT_NONE || o->compact_below >= 1.0f) return true;
    if (o->compact_below <= 0.0f) return false;
    return live_frac < o->compact_below * pool_frac;
}

/* A sample starts in pool half 0 over n slots, its counters cleared. */
static sr_status sr_sample_start(sr_renderer *r, uint32_t n, uint32_t sample, uint32_t seed, sr_error *err)
{
    sr_pool_state *ps = r->be->state;
    ps->current = 0;
    ps->n = n;
    ps->sample = sample;
    ps->seed = seed;
    sr_status s = r->be->ops->fill(r->be->impl, SR_BUFFER_RAY_COUNTS, 0, SR_WHOLE, err);
    if (!s && ps->split) s = r->be->ops->fill(r->be->impl, SR_BUFFER_SPLIT, 0, SR_WHOLE, err);
    return s;
}

/* The Whitted split's counters (one round trip); the rays dropped go to the stats. */
static sr_status sr_split_read(sr_renderer *r, uint32_t ctl[SR_SPLIT_CTL], sr_render_stats *st, sr_error *err)
{
    sr_status s = r->be->ops->read(r->be->impl, SR_BUFFER_SPLIT, ctl, err);
    if (!s && st) st->dropped += ctl[SR_SPLIT_DROPPED];
    return s;
}

/* The split's counters after a shade launch, cleared for the next: the rays it appended (from
 * a->split_base, up to the pool's end) extend the next launches' slots (a->n). */
static sr_status sr_split_appended(sr_renderer *r, sr_launch_args *a, uint32_t *appended, sr_render_stats *st,
                                   sr_error *err)
{
    uint32_t ctl[SR_SPLIT_CTL];
    sr_status s = sr_split_read(r, ctl, st, err);
    if (!s) s = r->be->ops->fill(r->be->impl, SR_BUFFER_SPLIT, 0, SR_WHOLE, err);
    if (s) return s;
    const uint32_t end = a->split_end, room = a->split_base < end ? end - a->split_base : 0u;
    *appended = ctl[SR_SPLIT_APPENDED] < room ? ctl[SR_SPLIT_APPENDED] : room;
    if (*appended) a->n = a->split_base + *appended;
    return SR_OK;
}

/* Every launch of the driver: on the frame's build of the kernels. */
static sr_status sr_launch(sr_renderer *r, sr_kernel k, const sr_launch_args *a, sr_error *err)
{
    sr_launch_args on = *a;
    on.build = r->build;
    return sr_backend_launch(r->be, k, &on, err);
}

/* The split's end of a sample: the film fold (the split pixels' fixed-point sums into the
 * film), and for the whole masks the rays they dropped, read once the fold is queued, so the
 * device has work while the host waits (the next sample's start clears the counters). */
static sr_status sr_split_sample_end(sr_renderer *r, int whole, sr_render_stats *st, sr_error *err)
{
    if (!r->be->state->split) return SR_OK;
    sr_launch_args fold;
    memset(&fold, 0, sizeof fold);
    sr_status s = sr_launch(r, SR_KERNEL_FILM_FOLD, &fold, err);
    if (s || !whole || !st) return s;
    uint32_t ctl[SR_SPLIT_CTL];
    return sr_split_read(r, ctl, st, err);
}

/* The megakernel and wave masks: the whole sample in one launch. The wave mask's schedule is
 * decided here: the queue or none (sr_wave_queued), the order of the tiles or the launch
 * order, and the parity and order slot the backend addresses its buffers by, counted over
 * the samples launched on this pool. */
static sr_status sr_sample_whole(sr_renderer *r, const sr_frame *f, const sr_render_opts *o, uint32_t sample,
                                 sr_render_stats *st, sr_error *err)
{
    const bool wave = o->mask == SR_MASK_WAVE;
    sr_launch_args a;
    memset(&a, 0, sizeof a);
    a.mask = o->mask;
    a.n = wave ? sr_tiled_slots(f->width, f->height) : f->width * f->height;
    a.dense_min = sr_wave_dense_of(o);
    const int slowest = o->wave_order == SR_WAVE_ORDER_SLOWEST;
    r->wave_ordered += (uint32_t)slowest;
    if (wave) {
        a.queue = sr_wave_queued(f->depth, a.dense_min);
        if (a.queue) {   /* the drain: as many blocks as the device holds at once, asked once */
            const int path = f->integrator == SR_INTEGRATOR_PATH;
            if (!r->wave_drain_asked[r->build][path]) {
                sr_status q = r->be->ops->resident_blocks(r->be->impl, SR_KERNEL_WAVE, r->build,
                                                          &r->wave_drain_blocks[r->build][path], err);
                if (q) return q;
                r->wave_drain_asked[r->build][path] = 1;
            }
            a.grid = r->wave_drain_blocks[r->build][path];
            /* With the split, a drain per generation of spawned rays (wave.h). Generation
             * g's rays start at bounce g or later; the few that would reach generation
             * depth - 1 (every one before at its earliest bounce) stay on their lane's
             * stack, which saves a drain launch a sample. */
            if (r->be->state->split && !path)
                a.generations = f->depth - 1u < SR_WAVE_GENERATIONS_MAX ? f->depth - 1u : SR_WAVE_GENERATIONS_MAX;
        }
        a.ordered = slowest && !r->wave_launch_order;
        a.order_slot = r->wave_order_slot;
        a.parity = r->wave_parity;
        a.bounce_counts = o->bounce_counts;
    }
    sr_status s = sr_sample_start(r, a.n, sample, o->seed, err);
    if (!s) s = sr_launch(r, wave ? SR_KERNEL_WAVE : SR_KERNEL_MEGAKERNEL, &a, err);
    if (!s) s = sr_split_sample_end(r, 1, st, err);
    if (!s && wave) {   /* the next sample's stencils and order: this one refilled and placed them */
        r->wave_parity ^= 1u;
        if (a.ordered) r->wave_order_slot = (r->wave_order_slot + 1u) % SR_WAVE_ORDER_SLOTS;
    }
    return s;
}

/* The live rays of the current half, on the host: count_live, then a read (one sync). */
static sr_status sr_count_live(sr_renderer *r, sr_mask mask, uint32_t *live, sr_error *err)
{
    const sr_backend_ops *ops = r->be->ops;
    sr_launch_args a;
    memset(&a, 0, sizeof a);
    a.mask = mask;
    a.n = r->be->state->n;
    sr_status s = ops->fill(r->be->impl, SR_BUFFER_COUNTER, 0, SR_WHOLE, err);
    if (!s) s = sr_launch(r, SR_KERNEL_COUNT_LIVE, &a, err);
    if (!s) s = ops->read(r->be->impl, SR_BUFFER_COUNTER, live, err);
    return s;
}

/* The flags, stencil and compact masks: generate, then intersect and shade per bounce, one
 * launch each; the compact mask compacts (and sorts) between bounces. The live count stays
 * on the device: after a compaction the stages run over it, with grids sized by `forecast`
 * (the last sample's live fractions), so no bounce waits for the host; only the first
 * sample, which has no history, counts on the host. */
static sr_status sr_sample_stages(sr_renderer *r, const sr_frame *f, const sr_render_opts *o, uint32_t sample,
                                  sr_marks *marks, sr_render_stats *st, sr_error *err)
{
    const sr_backend_ops *ops = r->be->ops;
    void *be = r->be->impl;
    sr_pool_state *ps = r->be->state;
    const uint32_t n = f->width * f->height;
    sr_launch_args a;
    memset(&a, 0, sizeof a);
    a.mask = o->mask;
    a.n = n;
    sr_status s = sr_sample_start(r, n, sample, o->seed, err);
    if (s) return s;
    const int split = ps->split;   /* spawned rays appended to the pool (split_frame.h) */
    if (o->mask == SR_MASK_FLAGS && split && (s = ops->fill(be, SR_BUFFER_FLAGS, 0, SR_WHOLE, err))) return s;
    if (o->mask == SR_MASK_FLAGS)   /* any non-zero flag is alive: 0x01010101 will do */
        s = ops->fill(be, SR_BUFFER_FLAGS, 1, n, err);
    else
        s = sr_launch(r, SR_KERNEL_STENCIL_FILL, &a, err);
    if (s) return s;
    if ((s = sr_launch(r, SR_KERNEL_GENERATE, &a, err))) return s;
    if ((s = sr_mark(r, o, marks, SR_STAGE_GENERATE, 0, err))) return s;
    float pool_frac = 1.0f;   /* the current pool's size, as a fraction of the full pool */
    uint32_t forecast = n;    /* the host's upper estimate of the device-side live count */
    for (uint32_t b = 0; b < f->depth; b++) {
        if (sr_interrupt_pending()) return SR_INTERRUPTED;   /* queued kernels finish */
        a.bounce = b;
        if (!split) a.n = a.over_live ? forecast : n;   /* (the split's: the host's count, below) */
        if ((s = sr_launch(r, SR_KERNEL_INTERSECT, &a, err))) return s;
        if ((s = sr_mark(r, o, marks, SR_STAGE_INTERSECT, b, err))) return s;
        if (split) {   /* the appends start a word past the launch's, up to the pool's end or the budget */
            a.split_base = (a.n + 31u) & ~31u;
            const uint64_t end = (uint64_t)a.split_base + r->split_budget;
            a.split_end = end < ps->slots ? (uint32_t)end : ps->slots;
        }
        if ((s = sr_launch(r, SR_KERNEL_SHADE, &a, err))) return s;
        if ((s = sr_mark(r, o, marks, SR_STAGE_SHADE, b, err))) return s;
        uint32_t appended = 0;
        if (split && (s = sr_split_appended(r, &a, &appended, st, err))) return s;
        if (o->mask != SR_MASK_COMPACT || b + 1 >= f->depth) continue;
        if (split) {   /* the appended rays join the live ones: compaction counts them on the host */
            a.over_live = 0;
            r->have_history = 0;
            if ((s = sr_launch(r, SR_KERNEL_SET_LIVE, &a, err))) return s;
            ps->n = forecast = a.n;
        }
        /* flags and stencil launch over the whole pool every bounce, as they would; the
         * compact strategy shrinks the pool when enough rays have died to pay for it. */
        bool measure = !r->have_history;
        uint32_t live = 0, expected = n;
        float live_frac;                       /* of the full pool */
        if (measure) {                         /* first sample: count (one sync) */
            if ((s = sr_count_live(r, o->mask, &live, err))) return s;
            if (live == 0) break;
            live_frac = (float)live / (float)n;
        } else {                               /* later: the last sample's forecast */
            live_frac = r->live_after[b];
            expected = (uint32_t)(live_frac * 1.05f * (float)n) + 256u;
        }
        const bool sort_now = o->sort != SR_SORT_NONE && !split;   /* (the sort's pool is the image's) */
        const bool compact_now = sr_should_compact(o, live_frac, pool_frac);
        sr_launch_args live_args = a;          /* over the device-side live count */
        live_args.over_live = 1;
        live_args.n = forecast;
        live_args.live_share = pool_frac > 0.0f ? live_frac / pool_frac : 0.0f;
        live_args.sort_algo = o->sort;
        live_args.sort_key = o->sort_key;
        /* A key that compaction does not carry is noted by pixel before it. */
        if (sort_now && o->sort_key == SR_SORT_KEY_MATERIAL) {
            if ((s = sr_launch(r, SR_KERNEL_SORT_KEYS, &live_args, err))) return s;
            if ((s = sr_mark(r, o, marks, SR_STAGE_SORT, b, err))) return s;
        }
        if (compact_now) {
            if ((s = sr_launch(r, SR_KERNEL_COMPACT, &live_args, err))) return s;
            ps->current = 1 - ps->current;     /* the live rays are in the other half now */
            a.over_live = 1;
            forecast = expected < forecast ? expected : forecast;
            if (measure) {                     /* the exact count: one more sync */
                if ((s = ops->read(be, SR_BUFFER_LIVE_COUNT, &live, err))) return s;
                ps->n = forecast = live;
                if (split) a.n = live, a.over_live = 0;   /* the split's launches: over the host's count */
            }
            if (st) st->compactions++;
            pool_frac = live_frac;
        }
        if ((s = sr_mark(r, o, marks, SR_STAGE_COMPACT, b, err))) return s;
        if (sort_now) {
            live_args.n = forecast;
            if ((s = sr_launch(r, SR_KERNEL_SORT, &live_args, err))) return s;
            ps->current = 1 - ps->current;     /* sorted into the other half */
            if ((s = sr_mark(r, o, marks, SR_STAGE_SORT, b, err))) return s;
        }
    }
    return sr_split_sample_end(r, 0, st, err);
}

sr_status sr_render_sample(sr_renderer *r, const sr_frame *f, uint32_t sample,
                           sr_render_stats *st, sr_error *err)
{
    const sr_backend_ops *ops = r->be->ops;
    void *be = r->be->impl;
    const sr_render_opts *o = &f->render;
    sr_marks marks;
    marks.count = 0;
    sr_status s;
    if (sr_interrupt_pending()) return SR_INTERRUPTED;
    if ((s = sr_renderer_apply(r, f, err))) return s;
    if ((s = sr_mark(r, o, &marks, SR_STAGE_COUNT, 0, err))) return s;
    int tuning = 0;
    sr_render_opts way;   /* the wave mask's measured choice (wave_way.c) */
    o = sr_wave_way_opts(r, f, &way, &tuning);
    if (tuning && (s = ops->mark(be, SR_MAX_MARKS - 2u, err))) return s;
    if (o->mask == SR_MASK_MEGAKERNEL || o->mask == SR_MASK_WAVE) {
        s = sr_sample_whole(r, f, o, sample, st, err);
        if (!s) s = sr_mark(r, o, &marks, SR_STAGE_COUNT, 0, err);
    } else {
        s = sr_sample_stages(r, f, o, sample, &marks, st, err);
    }
    if (s) return s;
    if (o->times && !o->times->per_stage && o->mask != SR_MASK_MEGAKERNEL && o->mask != SR_MASK_WAVE &&
        (s = sr_mark(r, o, &marks, SR_STAGE_COUNT, 0, err)))   /* the sample's end */
        return s;
    if (o->times && (s = sr_collect_times(r, o, &marks, err))) return s;
    if (tuning && (s = ops->mark(be, SR_MAX_MARKS - 1u, err))) return s;
    uint32_t counts[SR_MAX_DEPTH];
    if ((s = ops->read(be, SR_BUFFER_RAY_COUNTS, counts, err))) return s;   /* waits for the sample */
    if (tuning) {
        float ms = 0.0f;
        if ((s = ops->elapsed_ms(be, SR_MAX_MARKS - 2u, SR_MAX_MARKS - 1u, &ms, err))) return s;
        sr_wave_way_timed(r, ms);
    }
    if (sr_mask_counts_bounces(o) && counts[0]) {
        for (uint32_t b = 0; b + 1 < SR_MAX_DEPTH; b++) r->live_after[b] = (float)counts[b + 1] / (float)counts[0];
        r->have_history = 1;
    }
    if (st) {
        for (uint32_t b = 0; b < SR_MAX_DEPTH; b++) {
            st->bounce_rays[b] += counts[b];
            st->rays += counts[b];
        }
        st->samples++;
    }
    return SR_OK;
}

static void sr_progress(double elapsed, uint32_t done, uint32_t total, int tty)
{
    double eta_line = done ? elapsed * (double)(total - done) / (double)done : 0.0;
    if (!tty) {   /* a log, not a terminal: whole lines, no carriage returns */
        fprintf(stderr, "render: %u/%u samples, %.1f s, ETA %.1f s\n", done, total, elapsed, eta_line);
        return;
    }
    const int width = 30;
    int filled = (int)((double)width * done / (total ? total : 1));
    double eta = done ? elapsed * (double)(total - done) / (double)done : 0.0;
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    fprintf(stderr, "\r[%s] %u/%u samples  %.1f s  ETA %.1f s ", bar, done, total, elapsed, eta);
    fflush(stderr);
}

sr_status sr_render_image(sr_renderer *r, const sr_frame *f, float *rgb,
                          sr_render_stats *st, sr_error *err)
{
    sr_render_stats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    const sr_backend_ops *ops = r->be->ops;
    const sr_render_opts *o = &f->render;
    sr_status s = sr_renderer_apply(r, f, err);   /* before the clear: a new size, a new film */
    if (!s) s = sr_backend_clear_film(r->be, err);
    if (s) return s;
    const double t0 = sr_now();
    int shown = 0;
    const int tty = isatty(2);
    /* keep_partial: a copy of the film sums after sample `snap`, for an interrupt that
     * lands inside a sample (whose rays have already added to the film). Taken when the
     * last copy is 20 copy-times old, so it costs at most about 5 %. */
    uint32_t done = 0, snap = 0;
    int mid_sample = 0;
    double snap_cost = 0.0, snap_at = t0, shown_at = 0.0;
    for (uint32_t i = 0; i < f->spp; i++) {
        if (sr_interrupt_pending()) { s = SR_INTERRUPTED; break; }
        if ((s = sr_render_sample(r, f, i, st, err))) { mid_sample = s == SR_INTERRUPTED; break; }
        done = i + 1;
        double elapsed = sr_now() - t0;
        /* at most 10 updates a second: a fast GPU finishes thousands of samples a second */
        /* On a terminal a bar redrawn up to 10 times a second; in a log a line every 5 s. */
        const double every = tty ? 0.1 : 5.0;
        if (o->progress && (elapsed > 1.0 || shown) && (elapsed - shown_at >= every || (tty && done == f->spp))) {
            sr_progress(elapsed, i + 1, f->spp, tty);
            shown = 1;
            shown_at = elapsed;
        }
        if (o->keep_partial && done < f->spp && sr_now() - snap_at >= 20.0 * snap_cost) {
            const double c0 = sr_now();
            if ((s = sr_backend_read_film(r->be, rgb, 1.0f, err))) break;
            snap = done;
            snap_at = sr_now();
            snap_cost = snap_at - c0;
        }
    }
    if (!s) s = ops->finish(r->be->impl, err);
    st->seconds = sr_now() - t0;
    if (shown && tty) fputc('\n', stderr);
    if (s == SR_INTERRUPTED && o->keep_partial) {
        if (!mid_sample && done > 0) {          /* between samples: the film is exact */
            s = sr_backend_read_film(r->be, rgb, 1.0f / (float)done, err);
            st->partial_samples = s ? 0 : done;
            return s ? s : SR_INTERRUPTED;
        }
        if (snap > 0) {                         /* inside one: the last copy */
            const float k = 1.0f / (float)snap;
            for (size_t j = 0; j < (size_t)f->width * f->height * 3u; j++) rgb[j] *= k;
            st->partial_samples = snap;
        }
    }
    if (s) return s;
    return sr_backend_read_film(r->be, rgb, 1.0f / (float)f->spp, err);
}

sr_status sr_check_render_memory(const sr_scene *s, const sr_frame *f, sr_backend_kind be_kind, const char *out,
                                 sr_error *err)
{
    /* with instances: the top level and the meshes' trees, and their joined copy */
    const uint64_t bvh = sr_bvh_build_bytes(s->prim_count + s->instance_count) +
                         (s->instance_count ? 2u * sr_bvh_build_bytes(s->shared_prim_count + s->prim_count + s->instance_count) +
                                                  (uint64_t)s->instance_count * sizeof(sr_instance)
                                            : 0);
    const uint64_t pool = be_kind == SR_BACKEND_CPU ? sr_cpu_pool_bytes(f->width, f->height, sr_pool_factor(s)) : 0;
    const uint64_t rgb = (uint64_t)f->width * f->height * 3u * sizeof(float);
    /* the per-prim attributes again in BVH order (render.c), when the scene has any */
    const uint64_t attrs = (s->attrs ? (uint64_t)s->prim_count * sizeof(sr_tri_attr) : 0) +
                           (s->instance_count && (s->attrs || s->shared_attrs)
                                ? (uint64_t)(s->prim_count + s->instance_count + s->shared_prim_count) * sizeof(sr_tri_attr)
                                : 0);
    const uint64_t enc = out ? sr_image_write_bytes(f->width, f->height, out) : 0;
    const uint64_t emitters = sr_scene_emitter_bound(s) * sizeof(sr_emitter);
    const uint64_t need = bvh + attrs + emitters + pool + rgb + enc;
    char what[512], b1[32], b2[32], b3[32], b4[32], b5[32];
    int len = snprintf(what, sizeof what, "a %ux%u render on the %s backend", f->width, f->height,
                       be_kind == SR_BACKEND_CPU ? "CPU" : "CUDA");
    if (len > 0 && (size_t)len < sizeof what)
        snprintf(what + len, sizeof what - (size_t)len, " (ray pool and film %s, BVH build %s, emitter table %s, "
                 "image %s, %s output %s)", sr_fmt_bytes(b1, sizeof b1, pool), sr_fmt_bytes(b2, sizeof b2, bvh),
                 sr_fmt_bytes(b5, sizeof b5, emitters), sr_fmt_bytes(b3, sizeof b3, rgb),
                 out ? (strrchr(out, '.') ? strrchr(out, '.') + 1 : "file") : "no", sr_fmt_bytes(b4, sizeof b4, enc));
    return sr_check_host_memory(need, what,
                                "; use a smaller --width/--height"
#ifdef SR_HAVE_CUDA
                                " or --backend cuda (the ray pool then lives on the GPU)"
#endif
                                , err);
}

/* ---- the film, the display and timing marks, for the viewer -------------------------------- */

sr_status sr_renderer_clear_film(sr_renderer *r, sr_error *err) { return sr_backend_clear_film(r->be, err); }

sr_status sr_renderer_read_film(sr_renderer *r, float *rgb, float scale, sr_error *err)
{
    return sr_backend_read_film(r->be, rgb, scale, err);
}

sr_status sr_renderer_resolve_film(sr_renderer *r, float *dst, float scale, sr_error *err)
{
    return sr_backend_resolve_film(r->be, dst, scale, err);
}

sr_status sr_renderer_resolve_display(sr_renderer *r, uint64_t surface, uint32_t width, uint32_t height, float scale,
                                      float exposure, sr_tonemap tonemap, sr_error *err)
{
    return r->be->ops->resolve_display(r->be->impl, surface, width, height, scale, exposure, (int)tonemap, err);
}

sr_status sr_renderer_resolve_display_rows(sr_renderer *r, void *rows, uint32_t width, uint32_t height, float scale,
                                           float exposure, sr_tonemap tonemap, sr_error *err)
{
    return r->be->ops->resolve_display_rows(r->be->impl, rows, width, height, scale, exposure, (int)tonemap, err);
}

void *sr_renderer_queue(sr_renderer *r) { return r->be->ops->queue(r->be->impl); }

sr_status sr_renderer_clear_film_sum(sr_renderer *r, sr_error *err)
{
    return r->be->ops->fill(r->be->impl, SR_BUFFER_FILM_SUM, 0, SR_WHOLE, err);
}

sr_status sr_renderer_accumulate_film(sr_renderer *r, uint32_t samples, sr_error *err)
{
    sr_launch_args a;
    memset(&a, 0, sizeof a);
    a.n = samples;
    return sr_launch(r, SR_KERNEL_FILM_ACCUMULATE, &a, err);
}

sr_status sr_renderer_read_film_sum(sr_renderer *r, int64_t *sum, sr_error *err)
{
    return r->be->ops->read(r->be->impl, SR_BUFFER_FILM_SUM, sum, err);
}

sr_status sr_renderer_read(sr_renderer *r, sr_buffer b, void *host, sr_error *err)
{
    return r->be->ops->read(r->be->impl, b, host, err);
}

sr_status sr_renderer_finish(sr_renderer *r, sr_error *err) { return r->be->ops->finish(r->be->impl, err); }

sr_status sr_renderer_mark(sr_renderer *r, uint32_t id, sr_error *err) { return r->be->ops->mark(r->be->impl, id, err); }

sr_status sr_renderer_elapsed_ms(sr_renderer *r, uint32_t a, uint32_t b, float *ms, sr_error *err)
{
    return r->be->ops->elapsed_ms(r->be->impl, a, b, ms, err);
}
