/* render.c: the frame driver, the same loop for every backend. */
#include "render.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double sr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sr_render_opts_default(sr_render_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mask = SR_MASK_COMPACT;
    o->seed = 1;
    o->compact_below = 0.1f;    /* measured best or near it on the H200 (README) */
    o->progress = 0;
}

sr_status sr_renderer_init(sr_renderer *r, const sr_scene *scene, sr_backend *be, sr_error *err)
{
    memset(r, 0, sizeof *r);
    r->be = be;
    sr_status st = sr_bvh_build(scene->prims, scene->prim_count, &r->bvh, err);
    if (st) { memset(r, 0, sizeof *r); return st; }
    sr_scene_view *v = &r->view;
    v->prims = r->bvh.prims;
    v->prim_count = r->bvh.prim_count;
    v->nodes = r->bvh.nodes;
    v->node_count = r->bvh.node_count;
    v->planes = scene->planes;
    v->plane_count = scene->plane_count;
    v->materials = scene->materials;
    v->material_count = scene->material_count;
    v->lights = scene->lights;
    v->light_count = scene->light_count;
    v->camera = sr_camera_make(&scene->camera, scene->width, scene->height);
    v->background = scene->background;
    v->ambient = scene->ambient;
    v->width = scene->width;
    v->height = scene->height;
    v->spp = scene->spp;
    v->max_depth = scene->max_depth;
    st = be->ops->upload(be->impl, v, err);
    if (st) sr_renderer_free(r);   /* leaves r zeroed: nothing for the caller to free */
    return st;
}

void sr_renderer_free(sr_renderer *r)
{
    sr_bvh_free(&r->bvh);
    memset(r, 0, sizeof *r);
}

/* Timing marks of one sample: which stage ended at each mark. */
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
        default: if (o->mask == SR_MASK_MEGAKERNEL) o->times->megakernel += ms; break;
        }
        o->times->total += ms;
    }
    return s;
}

sr_status sr_render_sample(sr_renderer *r, const sr_render_opts *o, uint32_t sample,
                           sr_render_stats *st, sr_error *err)
{
    const sr_backend_ops *ops = r->be->ops;
    void *be = r->be->impl;
    const uint32_t n = r->view.width * r->view.height;
    sr_marks marks;
    marks.count = 0;
    sr_status s;
    if ((s = sr_mark(r, o, &marks, SR_STAGE_COUNT, 0, err))) return s;
    if (o->mask == SR_MASK_MEGAKERNEL) {
        if ((s = ops->megakernel(be, sample, o->seed, err))) return s;
        if ((s = sr_mark(r, o, &marks, SR_STAGE_COUNT, 0, err))) return s;
    } else {
        if ((s = ops->begin_sample(be, o->mask, sample, o->seed, err))) return s;
        if ((s = ops->run_stage(be, o->mask, SR_STAGE_GENERATE, 0, err))) return s;
        if ((s = sr_mark(r, o, &marks, SR_STAGE_GENERATE, 0, err))) return s;
        float pool_frac = 1.0f;   /* the current pool's size, as a fraction of the full pool */
        for (uint32_t b = 0; b < r->view.max_depth; b++) {
            if ((s = ops->run_stage(be, o->mask, SR_STAGE_INTERSECT, b, err))) return s;
            if ((s = sr_mark(r, o, &marks, SR_STAGE_INTERSECT, b, err))) return s;
            if ((s = ops->run_stage(be, o->mask, SR_STAGE_SHADE, b, err))) return s;
            if ((s = sr_mark(r, o, &marks, SR_STAGE_SHADE, b, err))) return s;
            if (o->mask != SR_MASK_COMPACT || b + 1 >= r->view.max_depth) continue;
            /* flags and stencil launch over the whole pool every bounce, as they would; the
             * compact strategy shrinks the pool when enough rays have died to pay for it. */
            /* Compact when the live rays fill less than compact_below of the CURRENT pool
             * (after a compaction the pool is dense: compacting it again would only cost). */
            bool compact_now, measure = !r->have_history;
            uint32_t live = 0, expected = n;
            float live_frac;                       /* of the full pool */
            if (measure) {                         /* first sample: count (one sync) */
                if ((s = ops->count_live(be, o->mask, &live, err))) return s;
                if (live == 0) break;
                live_frac = (float)live / (float)n;
            } else {                               /* later: the last sample's forecast */
                live_frac = r->live_after[b];
                expected = (uint32_t)(live_frac * 1.05f * (float)n) + 256u;
            }
            compact_now = live_frac < o->compact_below * pool_frac;
            if (o->compact_below >= 1.0f) compact_now = true;
            if (o->compact_below <= 0.0f) compact_now = false;
            if (compact_now) {
                if ((s = ops->compact(be, expected, measure ? &live : NULL, err))) return s;
                if (st) st->compactions++;
                pool_frac = live_frac;
            }
            if ((s = sr_mark(r, o, &marks, SR_STAGE_COMPACT, b, err))) return s;
        }
    }
    if (o->times && !o->times->per_stage && o->mask != SR_MASK_MEGAKERNEL &&
        (s = sr_mark(r, o, &marks, SR_STAGE_COUNT, 0, err)))   /* the sample's end */
        return s;
    if (o->times && (s = sr_collect_times(r, o, &marks, err))) return s;
    uint32_t counts[SR_MAX_DEPTH];
    if ((s = ops->read_ray_counts(be, counts, err))) return s;
    if (o->mask != SR_MASK_MEGAKERNEL && counts[0]) {
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

static void sr_progress(double elapsed, uint32_t done, uint32_t total)
{
    const int width = 30;
    int filled = (int)((double)width * done / (total ? total : 1));
    double eta = done ? elapsed * (double)(total - done) / (double)done : 0.0;
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    fprintf(stderr, "\r[%s] %u/%u samples  %.1f s  ETA %.1f s ", bar, done, total, elapsed, eta);
    fflush(stderr);
}

sr_status sr_render_image(sr_renderer *r, const sr_render_opts *o, float *rgb,
                          sr_render_stats *st, sr_error *err)
{
    sr_render_stats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    const sr_backend_ops *ops = r->be->ops;
    sr_status s = ops->clear_film(r->be->impl, err);
    if (s) return s;
    const double t0 = sr_now();
    int shown = 0;
    for (uint32_t i = 0; i < r->view.spp; i++) {
        if ((s = sr_render_sample(r, o, i, st, err))) break;
        double elapsed = sr_now() - t0;
        if (o->progress && (elapsed > 1.0 || shown)) {
            sr_progress(elapsed, i + 1, r->view.spp);
            shown = 1;
        }
    }
    if (!s) s = ops->finish(r->be->impl, err);
    st->seconds = sr_now() - t0;
    if (shown) fputc('\n', stderr);
    if (s) return s;
    return ops->read_film(r->be->impl, rgb, 1.0f / (float)r->view.spp, err);
}
