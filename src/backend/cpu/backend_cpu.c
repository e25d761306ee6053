/* backend_cpu.c: the reference backend. The same stage functions as the GPU, driven warp by
 * warp with the same stencil and ballot semantics, over all cores through OpenMP; the wave
 * mask runs the GPU's own frame (kernels/frames/wave_frame.h). */
#include "../backend.h"
#include "backend_cpu.h"
#include "../../../kernels/integrators/stages.h"
#include "../../../kernels/frames/wave.h"
#include "../../../kernels/core/warp.h"
#include "../../../kernels/frames/stencil_frame.h"
#include "../../../kernels/frames/split_frame.h"
#include "../../../kernels/core/pass_sum.h"
#include "../fault.h"
#include "../../base/interrupt.h"
#include "../../base/mem_limits.h"
#include "sort_cpu.h"
#include "bvh_cpu.h"
#include "ompenv.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- frames (also used by tests) -------------------------------------------------------- */

/* The stencil frame is the GPU's own (kernels/frames/stencil_frame.h), a warp per word: its
 * 32 lanes a loop (kernels/core/warp.h), the words over the cores. With `count`, the rays of
 * the words run are added to it (intersect's, as on the GPU). The GPU's grid-stride form
 * (stencil.cuh) has no twin here: the parallel loop over the words is the CPU's grid. */
static void cpu_stencil_frame(uint32_t *stencil, uint32_t n, sr_stage_ref stage, uint32_t *count)
{
    const int64_t words = (int64_t)((n + 31u) / 32u);
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t w = 0; w < words; w++) {
        SR_LANE_VAR(uint32_t, i);
        SR_FOR_LANES SR_L(i) = (uint32_t)w * SR_WARP + lane;
        sr_stencil_frame(stencil, i, stage, count);
    }
}

void sr_cpu_stencil_frame(uint32_t *stencil, uint32_t n, sr_cpu_stage_fn fn, const void *ctx)
{
    const sr_stage_ref stage = { fn, ctx };
    cpu_stencil_frame(stencil, n, stage, NULL);
}

void sr_cpu_flags_frame(uint32_t *flags, uint32_t n, sr_cpu_stage_fn fn, const void *ctx)
{
#pragma omp parallel for schedule(dynamic, 2048)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        if (flags[i] == 0) continue;
        flags[i] = fn(ctx, (uint32_t)i) ? 1u : 0u;
    }
}

/* The warp form of ballot partitioning (as the wave frame's push, wave_frame.h). Not the GPU's
 * compaction: that is a block frame over 2048-slot tiles (compact.cu says why it stays twice). */
uint32_t sr_cpu_ballot_partition(const uint32_t *stencil, uint32_t n, sr_cpu_move_fn move, const void *ctx)
{
    const int64_t words = (int64_t)((n + 31u) / 32u);
    uint32_t counter = 0;
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t w = 0; w < words; w++) {
        const uint32_t m = stencil[w];             /* the warp's ballot of alive flags */
        if (m == 0) continue;
        uint32_t base;
#pragma omp atomic capture
        { base = counter; counter += sr_popc(m); }
        for (uint32_t lane = 0; lane < SR_WARP; lane++)
            if ((m >> lane) & 1u)
                move(ctx, (uint32_t)w * SR_WARP + lane, base + sr_popc(m & sr_lanemask_lt(lane)));
    }
    return counter;
}

void sr_stencil_fill_prefix(uint32_t *stencil, uint32_t words, uint32_t live)
{
    for (uint32_t w = 0; w < words; w++) stencil[w] = sr_stencil_prefix_word(w, live);
}

uint32_t sr_stencil_popcount(const uint32_t *stencil, uint32_t words)
{
    uint32_t sum = 0;
    for (uint32_t w = 0; w < words; w++) sum += sr_popc(stencil[w]);
    return sum;
}

/* ---- the backend ---------------------------------------------------------------------- */

typedef struct sr_cpu {
    sr_pool_state core;        /* the scene (host pointers owned by render.c), pool, masks  */
    uint32_t *queue_stencil;     /* the wave mask's queue's stencil, zero between samples      */
    uint32_t slots;            /* pool slots: capacity, or the wave mask's tiled slots       */
    uint32_t queue_cap;        /* the wave mask's queue entries (slots, or a test's limit)   */
    uint32_t ray_count[SR_MAX_DEPTH];
    uint32_t counter;          /* count_live's result                                       */
    uint32_t split_ctl[SR_SPLIT_CTL];   /* the Whitted split's counters (whitted.h)          */
    uint32_t live;             /* the live count of the current half (the GPU's is on the device) */
    double marks[SR_MAX_MARKS];
    sr_cpu_sorter sorter;      /* the coherence sort's scratch (sort_cpu.c)                  */
} sr_cpu;

typedef struct sr_cpu_call { sr_params p; uint32_t bounce; } sr_cpu_call;

/* After Ctrl-C the rest of a stage is skipped (its rays die) and the launch says
 * SR_INTERRUPTED: the sample is abandoned, so a huge image still stops within a second. */
static bool cpu_generate(const void *ctx, uint32_t slot)
{
    return !sr_interrupt_pending() && sr_stage_generate(&((const sr_cpu_call *)ctx)->p, slot);
}
static bool cpu_intersect(const void *ctx, uint32_t slot)
{
    return !sr_interrupt_pending() && sr_stage_intersect(&((const sr_cpu_call *)ctx)->p, slot);
}
static bool cpu_shade(const void *ctx, uint32_t slot)
{
    const sr_cpu_call *c = (const sr_cpu_call *)ctx;
    return !sr_interrupt_pending() && sr_stage_shade(&c->p, slot, c->bounce);
}

/* The per-ray parameters for a launch over a->n slots, or over the live count. */
static sr_params cpu_params(sr_cpu *c, const sr_launch_args *a)
{
    sr_params p = sr_pool_params(&c->core, c->ray_count);
    p.n = a->over_live ? c->live : a->n;
    return p;
}

static void cpu_free_pool(sr_cpu *c)
{
    for (int h = 0; h < 2; h++) {
#define SR_X_FREE(type, name) free(c->core.pool[h].name); c->core.pool[h].name = NULL;
        SR_RAY_FIELDS(SR_X_FREE)
#undef SR_X_FREE
    }
    free(c->core.hit_t); free(c->core.hit_prim); free(c->core.stencil); free(c->core.flags); free(c->core.film);
    free(c->core.film_fix);
    c->core.film_fix = NULL;
    free(c->core.film_sum);
    c->core.film_sum = NULL;
    free(c->queue_stencil);
    c->queue_stencil = NULL;
    c->core.hit_t = NULL; c->core.hit_prim = NULL; c->core.stencil = NULL; c->core.flags = NULL; c->core.film = NULL;
    sr_cpu_sorter_free(&c->sorter);
}

/* The tree is built in host memory, where the stages read it: to_host changes nothing. */
static sr_status cpu_build_bvh(void *impl, const sr_prim *prims, uint32_t n, int to_host, sr_bvh *out, sr_error *err)
{
    (void)impl;
    (void)to_host;
    return sr_cpu_bvh_build(prims, n, out, err);
}

/* The scene's arrays stay where render.c keeps them: only the view is copied. */
static sr_status cpu_upload(void *impl, const sr_scene_view *view, sr_error *err)
{
    (void)err;
    sr_cpu *c = (sr_cpu *)impl;
    cpu_free_pool(c);
    c->core.view = *view;
    c->core.view.width = c->core.view.height = 0;
    c->core.capacity = c->core.words = c->slots = 0;
    return SR_OK;
}

static sr_status cpu_resize(void *impl, uint32_t width, uint32_t height, sr_error *err)
{
    sr_cpu *c = (sr_cpu *)impl;
    cpu_free_pool(c);
    const sr_scene_view *view = &c->core.view;
    c->core.view.width = width;
    c->core.view.height = height;
    c->core.capacity = view->width * view->height;
    const uint32_t factor = c->core.pool_factor ? c->core.pool_factor : 1u;
    c->slots = c->core.slots = (uint32_t)sr_pool_half_slots(view->width, view->height, 1u, factor);
    c->core.split_ctl = c->split_ctl;
    c->queue_cap = sr_wave_queue_limit(c->slots);
    c->core.words = (c->slots + 31u) / 32u;
    char what[96];
    snprintf(what, sizeof what, "the CPU backend's ray pool and film for a %ux%u image", view->width, view->height);
    sr_status mem = sr_check_host_memory(sr_cpu_pool_bytes(view->width, view->height, factor), what, "", err);
    if (mem) { c->core.capacity = c->core.words = c->slots = 0; return mem; }
    bool ok = sr_fault_check(SR_FAULT_ALLOC, NULL) == SR_FAULT_NONE;
    for (int h = 0; h < 2; h++) {
#define SR_X_ALLOC(type, name) ok = ok && (c->core.pool[h].name = (type *)malloc(sizeof(type) * c->slots)) != NULL;
        SR_RAY_FIELDS(SR_X_ALLOC)
#undef SR_X_ALLOC
    }
    ok = ok && (c->core.hit_t = (float *)malloc(sizeof(float) * c->slots)) != NULL;
    ok = ok && (c->core.hit_prim = (uint32_t *)malloc(sizeof(uint32_t) * c->slots)) != NULL;
    ok = ok && (c->core.stencil = (uint32_t *)calloc(c->core.words, sizeof(uint32_t))) != NULL;
    ok = ok && (c->queue_stencil = (uint32_t *)calloc(c->core.words, sizeof(uint32_t))) != NULL;
    ok = ok && (c->core.flags = (uint32_t *)calloc(c->slots, sizeof(uint32_t))) != NULL;
    ok = ok && (c->core.film = (float *)calloc((size_t)c->core.capacity * 3u, sizeof(float))) != NULL;
    if (factor > 1u)
        ok = ok && (c->core.film_fix = (unsigned long long *)calloc(sr_film_fix_words(c->core.capacity),
                                                                      sizeof(unsigned long long))) != NULL;
    if (!ok) {
        cpu_free_pool(c);
        return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for a %ux%u ray pool (%.1f MiB)",
                       view->width, view->height,
                       (double)c->core.capacity * (2.0 * SR_RAY_BYTES + SR_HIT_BYTES + 16.0) / 1048576.0);
    }
    return SR_OK;
}

static uint32_t cpu_count_live(const sr_cpu *c, sr_mask mask, uint32_t n)
{
    if (mask != SR_MASK_FLAGS) return sr_stencil_popcount(c->core.stencil, (n + 31u) / 32u);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; i++) sum += c->core.flags[i] != 0;
    return sum;
}

/* The shade with the Whitted split: split_frame.h's warp body, a warp per word. */
static sr_status cpu_split_shade(sr_cpu *c, const sr_launch_args *a, sr_params *p)
{
    p->split_base = a->split_base;
    p->split_end = a->split_end;
    const int64_t words = (int64_t)((p->n + 31u) / 32u);
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t w = 0; w < words; w++) {
        if (sr_interrupt_pending()) continue;
        SR_LANE_VAR(uint32_t, i);
        SR_FOR_LANES SR_L(i) = (uint32_t)w * SR_WARP + lane;
        if (a->mask == SR_MASK_FLAGS) sr_split_shade_flags(p, c->core.flags, i, a->bounce);
        else sr_split_shade_stencil(p, c->core.stencil, i, a->bounce);
    }
    return sr_interrupt_pending() ? SR_INTERRUPTED : SR_OK;
}

static sr_status cpu_stage(sr_cpu *c, sr_kernel k, const sr_launch_args *a)
{
    sr_cpu_call call;
    call.p = cpu_params(c, a);
    call.bounce = a->bounce;
    sr_cpu_stage_fn fn = k == SR_KERNEL_GENERATE ? cpu_generate : k == SR_KERNEL_INTERSECT ? cpu_intersect : cpu_shade;
    /* Rays entering intersect are counted: by the stencil frame a word at a time, as on the GPU. */
    uint32_t *const count = k == SR_KERNEL_INTERSECT && a->bounce < SR_MAX_DEPTH ? &c->ray_count[a->bounce] : NULL;
    if (k == SR_KERNEL_SHADE && call.p.split) return cpu_split_shade(c, a, &call.p);
    if (a->mask == SR_MASK_FLAGS) {
        if (count) *count += cpu_count_live(c, a->mask, call.p.n);
        sr_cpu_flags_frame(c->core.flags, call.p.n, fn, &call);
    } else {
        const sr_stage_ref stage = { fn, &call };
        cpu_stencil_frame(c->core.stencil, call.p.n, stage, count);
    }
    return sr_interrupt_pending() ? SR_INTERRUPTED : SR_OK;
}

typedef struct sr_cpu_move { sr_ray_soa src, dst; } sr_cpu_move;
static void cpu_move(const void *ctx, uint32_t from, uint32_t to)
{
    const sr_cpu_move *m = (const sr_cpu_move *)ctx;
    sr_ray_copy(m->dst, to, m->src, from);
}

static void cpu_compact(sr_cpu *c)
{
    sr_cpu_move m;
    m.src = c->core.pool[c->core.current];
    m.dst = c->core.pool[1 - c->core.current];
    const uint32_t count = sr_cpu_ballot_partition(c->core.stencil, c->live, cpu_move, &m);
    sr_stencil_fill_prefix(c->core.stencil, (c->live + 31u) / 32u, count);
    c->live = count;
}

static sr_status cpu_megakernel(sr_cpu *c, const sr_launch_args *a)
{
    sr_params p = cpu_params(c, a);
    const bool path = c->core.view.integrator == SR_INTEGRATOR_PATH;
    uint64_t total = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : total)
    for (int64_t i = 0; i < (int64_t)p.n; i++) {
        if (sr_interrupt_pending()) continue;
        total += sr_megakernel_pixel(&p, (uint32_t)i, path, p.split != NULL);
    }
    c->ray_count[0] = (uint32_t)total;   /* the megakernel keeps no per-bounce counts */
    return sr_interrupt_pending() ? SR_INTERRUPTED : SR_OK;
}

/* The wave mask: the GPU's frame itself (kernels/frames/wave_frame.h), each warp's 32 lanes a
 * loop (kernels/core/warp.h), a warp per OpenMP thread. Not shared: the order of the tiles and
 * the launch geometry (the GPU's blocks), so the frame's hooks are the CPU's own: */
#define SR_WAVE_STOP() sr_interrupt_pending()   /* Ctrl-C: the rays' remaining bounces skipped */

/* Warp `warp` of the first launch is tile `warp`: its word of the stencil (filled before the
 * launch), its camera rays. */
static inline bool sr_wave_start(const sr_params *p, const sr_wave_args *w, bool order, uint32_t warp, uint32_t *i,
                                 uint32_t *word, bool *alive, sr_ray *r, uint32_t *started, uint32_t *rank)
{
    (void)order;
    *started = *rank = 0;
    *word = w->first[warp];   /* the stencil test: read once per warp */
    SR_FOR_LANES {
        SR_L(i) = warp * SR_WARP + lane;
        SR_L(alive) = ((*word >> lane) & 1u) != 0u && !sr_interrupt_pending() && sr_camera_tiled(p, SR_L(i), &SR_L(r));
    }
    return true;
}
static inline void sr_wave_end(const sr_wave_args *w, bool order, uint32_t rank, uint32_t started)
{
    (void)w; (void)order; (void)rank; (void)started;
}
#include "../../../kernels/frames/wave_frame.h"

/* Over a->n tiled slots (sr_tiled_slots): the first launch, a warp per tile, then the drain,
 * a resident warp per thread claiming the queue's chunks (as the GPU's drain does). */
static sr_status cpu_wave(sr_cpu *c, const sr_launch_args *a)
{
    sr_stencil_fill_prefix(c->core.stencil, (a->n + 31u) / 32u, a->n);
    uint32_t ctl[SR_WAVE_CTL] = { 0 };
    sr_wave_args w;
    memset(&w, 0, sizeof w);
    w.queue_base = 0;   /* p.ray is the queue: the camera rays live in the lanes */
    w.first = c->core.stencil;
    w.stencil = c->queue_stencil;
    w.ctl = ctl;
    w.capacity = c->queue_cap;
    w.dense_min = a->dense_min;
    w.bounce_counts = (uint32_t)a->bounce_counts;
    w.tiles_x = sr_tiles_x(c->core.view.width);
    w.tiles = (a->n + 31u) / 32u;
    sr_params p = cpu_params(c, a);
    p.ray = c->core.pool[1];
    const bool path = c->core.view.integrator == SR_INTEGRATOR_PATH, split = p.split != NULL;
    if (!a->queue) {
#pragma omp parallel for schedule(dynamic, 16)
        for (int64_t k = 0; k < (int64_t)w.tiles; k++)
            sr_wave_direct(&p, &w, c->ray_count, path, split, false, (uint32_t)k);
    } else {
#pragma omp parallel for schedule(dynamic, 16)
        for (int64_t k = 0; k < (int64_t)w.tiles; k++)
            sr_wave_frame(&p, &w, c->ray_count, path, split, SR_WAVE_QUEUE, false, (uint32_t)k);
        w.generations = split && a->generations > 1u ? a->generations : 1u;   /* (wave.h: a drain per generation) */
        for (w.generation = 0; w.generation < w.generations; w.generation++) {
#pragma omp parallel
            sr_wave_frame(&p, &w, c->ray_count, path, split, SR_WAVE_DRAIN, false, 0u);
        }
    }
    if (sr_interrupt_pending()) {   /* leave the queue's stencil empty for the next render */
        memset(c->queue_stencil, 0, sizeof(uint32_t) * c->core.words);
        return SR_INTERRUPTED;
    }
    return SR_OK;
}

/* Memory: plain memsets and copies; the CPU's work is done when its call returns. */
static sr_status cpu_fill(void *impl, sr_buffer b, uint8_t byte, uint32_t count, sr_error *err)
{
    sr_cpu *c = (sr_cpu *)impl;
    switch (b) {
    case SR_BUFFER_FILM:
        memset(c->core.film, byte, sizeof(float) * (count == SR_WHOLE ? 3u * (size_t)c->core.capacity : count));
        /* An interrupted sample may have left the split's fixed-point sums unfolded: only marked
         * pixels hold any (camera.h), so they and their marks are cleared, not the whole
         * fixed-point film (600 MB at 6000 x 4000, a second of a busy 2-core machine). */
        if (c->core.film_fix) {
            uint32_t *marks = sr_film_marks(c->core.film_fix, c->core.capacity);
            for (uint32_t w = 0; w < (c->core.capacity + 31u) / 32u; w++) {
                for (uint32_t bits = marks[w]; bits; bits &= bits - 1u)
                    memset(c->core.film_fix + 3u * (32u * (size_t)w + (uint32_t)__builtin_ctz(bits)), 0,
                           3u * sizeof(unsigned long long));
                marks[w] = 0u;
            }
        }
        return SR_OK;
    case SR_BUFFER_FLAGS:
        memset(c->core.flags, byte, sizeof(uint32_t) * (count == SR_WHOLE ? c->slots : count));
        return SR_OK;
    case SR_BUFFER_RAY_COUNTS:   /* the wave's queue counter is local */
        memset(c->ray_count, byte, sizeof c->ray_count);
        return SR_OK;
    case SR_BUFFER_COUNTER:
        memset(&c->counter, byte, sizeof c->counter);
        return SR_OK;
    case SR_BUFFER_SPLIT:
        memset(c->split_ctl, byte, sizeof c->split_ctl);
        return SR_OK;
    case SR_BUFFER_FILM_SUM:
        if (!c->core.film_sum && !(c->core.film_sum = (int64_t *)malloc(sizeof(int64_t) * 3u * (size_t)c->core.capacity)))
            return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for the CPU backend's film sum (%ux%u)",
                           c->core.view.width, c->core.view.height);
        memset(c->core.film_sum, byte, sizeof(int64_t) * 3u * (size_t)c->core.capacity);
        return SR_OK;
    default:
        return sr_fail(err, SR_ERR_RUNTIME, "the CPU backend cannot fill buffer %d", (int)b);
    }
}

static sr_status cpu_read(void *impl, sr_buffer b, void *host, sr_error *err)
{
    sr_cpu *c = (sr_cpu *)impl;
    switch (b) {
    case SR_BUFFER_FILM: memcpy(host, c->core.film, sizeof(float) * 3u * (size_t)c->core.capacity); return SR_OK;
    case SR_BUFFER_RAY_COUNTS: memcpy(host, c->ray_count, sizeof(uint32_t) * SR_MAX_DEPTH); return SR_OK;
    case SR_BUFFER_COUNTER: memcpy(host, &c->counter, sizeof c->counter); return SR_OK;
    case SR_BUFFER_SPLIT: memcpy(host, c->split_ctl, sizeof c->split_ctl); return SR_OK;
    case SR_BUFFER_LIVE_COUNT: memcpy(host, &c->live, sizeof c->live); return SR_OK;
    case SR_BUFFER_FILM_SUM:
        if (!c->core.film_sum) return sr_fail(err, SR_ERR_RUNTIME, "the CPU backend's film sum was never cleared");
        memcpy(host, c->core.film_sum, sizeof(int64_t) * 3u * (size_t)c->core.capacity);
        return SR_OK;
    default: return sr_fail(err, SR_ERR_RUNTIME, "the CPU backend cannot read buffer %d", (int)b);
    }
}

static double cpu_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static sr_status cpu_mark(void *impl, uint32_t id, sr_error *err)
{
    (void)err;
    if (id < SR_MAX_MARKS) ((sr_cpu *)impl)->marks[id] = cpu_now_ms();
    return SR_OK;
}

static sr_status cpu_elapsed_ms(void *impl, uint32_t a, uint32_t b, float *ms, sr_error *err)
{
    sr_cpu *c = (sr_cpu *)impl;
    if (a >= SR_MAX_MARKS || b >= SR_MAX_MARKS) return sr_fail(err, SR_ERR_RUNTIME, "timing mark out of range");
    *ms = (float)(c->marks[b] - c->marks[a]);
    return SR_OK;
}

static sr_status cpu_finish(void *impl, sr_error *err) { (void)impl; (void)err; return SR_OK; }

static void cpu_destroy(void *impl)
{
    sr_cpu *c = (sr_cpu *)impl;
    if (!c) return;
    cpu_free_pool(c);
    free(c);
}

/* The coherence sort: the same keys as the GPU, sorted by the GPU merge sort's
 * algorithm (sort_cpu.c) or a radix sort, gathered into the other pool half. */
static sr_status cpu_sort(sr_cpu *c, sr_kernel k, const sr_launch_args *a, sr_error *err)
{
    sr_params p = cpu_params(c, a);
    if (k == SR_KERNEL_SORT_KEYS)
        return sr_cpu_sort_prepare(&c->sorter, a->sort_key, &p, c->core.stencil, c->core.capacity, err);
    return sr_cpu_sort_pool(&c->sorter, a->sort_algo, a->sort_key, &p, c->core.pool[1 - c->core.current],
                            c->core.capacity, err);
}

static sr_status cpu_launch(void *impl, sr_kernel k, const sr_launch_args *a, sr_error *err)
{
    sr_cpu *c = (sr_cpu *)impl;
    if (a->fault != SR_FAULT_NONE)   /* SR_FAULT (sr_backend_launch): the CPU twin of a failing CUDA launch or kernel */
        return sr_fail(err, SR_ERR_RUNTIME, "CPU backend error while %s %s (bounce %u): injected fault (SR_FAULT=%s)",
                       a->fault == SR_FAULT_LAUNCH ? "launching" : "running", sr_kernel_name(k), a->bounce, sr_fault_spec());
    switch (k) {
    case SR_KERNEL_GENERATE: case SR_KERNEL_INTERSECT: case SR_KERNEL_SHADE: return cpu_stage(c, k, a);
    case SR_KERNEL_STENCIL_FILL:
        sr_stencil_fill_prefix(c->core.stencil, c->core.words, a->n);
        c->live = a->n;
        return SR_OK;
    case SR_KERNEL_COMPACT: cpu_compact(c); return SR_OK;
    case SR_KERNEL_COUNT_LIVE: c->counter = cpu_count_live(c, a->mask, cpu_params(c, a).n); return SR_OK;
    case SR_KERNEL_SORT_KEYS: case SR_KERNEL_SORT: return cpu_sort(c, k, a, err);
    case SR_KERNEL_MEGAKERNEL: return cpu_megakernel(c, a);
    case SR_KERNEL_WAVE: return cpu_wave(c, a);
    case SR_KERNEL_FILM_FOLD: {
        const int64_t words = ((int64_t)c->core.capacity + 31) / 32;
        uint32_t *marks = sr_film_marks(c->core.film_fix, c->core.capacity);
#pragma omp parallel for schedule(static)
        for (int64_t w = 0; w < words; w++) sr_film_fold_word(c->core.film, c->core.film_fix, marks, (uint32_t)w);
        return SR_OK;
    }
    case SR_KERNEL_SET_LIVE: c->live = a->n; return SR_OK;
    case SR_KERNEL_FILM_ACCUMULATE: {
        if (!c->core.film_sum) return sr_fail(err, SR_ERR_RUNTIME, "the CPU backend's film sum was never cleared");
        const int64_t values = 3 * (int64_t)c->core.capacity;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < values; i++) c->core.film_sum[i] += sr_pass_sum_fixed(c->core.film[i], a->n);
        return SR_OK;
    }
    case SR_KERNEL_FILM_RESOLVE:
        return sr_fail(err, SR_ERR_RUNTIME, "the CPU backend has no device memory; use sr_backend_read_film");
    default: return sr_fail(err, SR_ERR_RUNTIME, "the CPU backend has no kernel %d", (int)k);
    }
}

static sr_status cpu_resolve_display(void *impl, uint64_t surface, uint32_t width, uint32_t height, float scale,
                                     float exposure, int tonemap, sr_error *err)
{
    (void)impl; (void)surface; (void)width; (void)height; (void)scale; (void)exposure; (void)tonemap;
    return sr_fail(err, SR_ERR_RUNTIME, "the CPU backend cannot write a CUDA surface; use sr_backend_read_film");
}

static sr_status cpu_resolve_display_rows(void *impl, void *rows, uint32_t width, uint32_t height, float scale,
                                          float exposure, int tonemap, sr_error *err)
{
    (void)impl; (void)rows; (void)width; (void)height; (void)scale; (void)exposure; (void)tonemap;
    return sr_fail(err, SR_ERR_RUNTIME, "the CPU backend cannot write device memory; use sr_backend_read_film");
}

static void *cpu_queue(void *impl)
{
    (void)impl;
    return NULL;
}

/* No grids: the CPU runs its threads (backend.h, resident_blocks). */
static sr_status cpu_resident_blocks(void *impl, sr_kernel k, sr_build build, uint32_t *blocks, sr_error *err)
{
    (void)impl; (void)k; (void)build; (void)err;
    *blocks = 0;
    return SR_OK;
}

static void *cpu_host_alloc(void *impl, size_t bytes)
{
    (void)impl;
    return malloc(bytes ? bytes : 1u);
}

static void cpu_host_free(void *impl, void *p)
{
    (void)impl;
    free(p);
}

static const sr_backend_ops sr_cpu_ops = {
    .build_bvh = cpu_build_bvh, .upload = cpu_upload, .fill = cpu_fill, .read = cpu_read, .launch = cpu_launch,
    .resize = cpu_resize, .mark = cpu_mark, .elapsed_ms = cpu_elapsed_ms,
    .finish = cpu_finish, .destroy = cpu_destroy, .resolve_display = cpu_resolve_display, .queue = cpu_queue,
    .resolve_display_rows = cpu_resolve_display_rows, .resident_blocks = cpu_resident_blocks,
    .host_alloc = cpu_host_alloc, .host_free = cpu_host_free,
};

sr_status sr_cpu_backend_create(sr_backend *out, sr_error *err)
{
    sr_cpu *c = (sr_cpu *)calloc(1, sizeof *c);
    if (!c) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory");
    out->ops = &sr_cpu_ops;
    out->impl = c;
    out->kind = SR_BACKEND_CPU;
    out->state = &c->core;
    sr_omp_threads_apply();   /* on the thread that renders with it (ompenv.h) */
    snprintf(out->device_name, sizeof out->device_name, "CPU, %d threads", omp_get_max_threads());
    return SR_OK;
}
