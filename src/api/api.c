/* api.c: include/stencilray.h over the internals. A context holds the scene as parsed, the
 * frame desc the caller set, the farm (src/farm: the device's worker and its renderer, opened
 * at the first render and kept while the scene and the device stay) and the film of the last
 * render. The frame is the CLI's (sr_frame_build: the scene's values, then the desc's),
 * and the samples go through sr_farm_render and its fixed-point sum, so that the film holds
 * the bits `stencilray render` writes for the same settings. */
#include "../../include/stencilray.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem_limits.h"
#include "../base/status.h"
#include "../bench/bench.h"
#include "../farm/driver.h"
#include "../farm/farm.h"
#include "../farm/ranks.h"
#include "../base/interrupt.h"
#include "../denoise/denoise.h"
#include "../io/meshes/mesh.h"
#include "../farm/film_sum.h"
#include "../io/images/image.h"
#include "../render/frame.h"
#include "../scene/scene.h"
#include "frame_desc.h"
#if SR_HAVE_VIEWER
#include "../viewer/viewer.h"
#endif

struct sr_context {
    sr_context_desc desc;
    sr_field_names names;       /* desc.names, the defaults where it gave none                 */
    sr_error err;
    int loaded;                 /* scene holds a parsed scene                                  */
    sr_scene scene;
    sr_frame_desc asked;        /* as the caller set it (zeros: defaults)                      */
    char devices[256];          /* asked.devices points here when the caller gave a list       */
    sr_farm *farm;              /* NULL until the first render; for farm_specs                 */
    sr_worker_spec farm_specs[SR_FARM_MAX_WORKERS];
    uint32_t farm_workers;
    double read_s;              /* the last load                                               */
    int have_stats;
    int fresh_farm;             /* the farm opened since the last render: its set-up is that render's */
    int agreed;                 /* MPI: the ranks agreed on the frame set                      */
    sr_frame_stats stats;      /* the last render's                                           */
    float *film;                /* film_w * film_h * 3 linear floats                           */
    uint32_t film_w, film_h, film_samples;
};

static sr_result sr_api_fail(sr_context *ctx, sr_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static sr_result sr_api_result(sr_status s)
{
    switch (s) {
    case SR_OK: return SR_RESULT_OK;
    case SR_ERR_INPUT: return SR_RESULT_INPUT_ERROR;
    case SR_INTERRUPTED: return SR_RESULT_CANCELLED;
    default: return SR_RESULT_RUNTIME_ERROR;
    }
}

static sr_result sr_api_fail(sr_context *ctx, sr_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = sr_vformat(fmt, ap);
    va_end(ap);
    sr_fail(&ctx->err, s, "%s", msg ? msg : "out of host memory for a message");
    free(msg);
    return sr_api_result(s);
}

/* The status of an internal call, its message kept when it failed. */
static sr_result sr_api_status(sr_context *ctx, sr_status s)
{
    if (s == SR_OK) ctx->err.msg[0] = '\0';
    ctx->err.status = s;
    return sr_api_result(s);
}

static void sr_api_log(const sr_context *ctx, sr_log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void sr_api_log(const sr_context *ctx, sr_log_level level, const char *fmt, ...)
{
    if (!ctx->desc.log) return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = sr_vformat(fmt, ap);
    va_end(ap);
    if (msg) ctx->desc.log(ctx->desc.log_user, level, msg);
    free(msg);
}

const char *sr_version(void) { return SR_VERSION; }

void sr_set_memory_limits(const sr_memory_limits *limits)
{
    sr_mem_limits_set(limits ? limits->host_bytes : 0, limits ? limits->device_bytes : 0,
                      limits && limits->host_name ? limits->host_name
                                                  : "the host memory limit set with sr_set_memory_limits");
}

sr_context *sr_create(const sr_context_desc *desc)
{
    sr_context *ctx = (sr_context *)calloc(1, sizeof *ctx);
    if (ctx && desc) ctx->desc = *desc;
    if (ctx) ctx->names = sr_frame_names_or_default(&ctx->desc.names);
    return ctx;
}

static void sr_api_close_farm(sr_context *ctx)
{
    sr_farm_close(ctx->farm);
    ctx->farm = NULL;
    ctx->fresh_farm = 0;
}

static void sr_api_drop_scene(sr_context *ctx)
{
    sr_api_close_farm(ctx);
    if (ctx->loaded) sr_scene_free(&ctx->scene);
    ctx->loaded = 0;
    free(ctx->film);
    ctx->film = NULL;
    ctx->film_w = ctx->film_h = ctx->film_samples = 0;
    memset(&ctx->asked, 0, sizeof ctx->asked);
    ctx->have_stats = ctx->agreed = 0;
}

void sr_destroy(sr_context *ctx)
{
    if (!ctx) return;
    sr_api_drop_scene(ctx);
    free(ctx);
}

const char *sr_last_error(const sr_context *ctx)
{
    return ctx ? ctx->err.msg : "no context (sr_create returned NULL: out of memory)";
}

/* The scene's notices (one per line) to the log. */
static void sr_api_log_notices(const sr_context *ctx)
{
    for (const char *line = ctx->scene.notices; line && *line;) {
        const char *end = strchr(line, '\n');
        const int len = end ? (int)(end - line) : (int)strlen(line);
        sr_api_log(ctx, SR_LOG_NOTICE, "%.*s", len, line);
        line += len + (end ? 1 : 0);
    }
}

static sr_result sr_api_loaded(sr_context *ctx, sr_status s)
{
    if (s) return sr_api_status(ctx, s);
    ctx->loaded = 1;
    sr_api_log_notices(ctx);
    return sr_api_status(ctx, SR_OK);
}

sr_result sr_load_file(sr_context *ctx, const char *path)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    sr_api_drop_scene(ctx);
    if (!path) return sr_api_fail(ctx, SR_ERR_INPUT, "sr_load_file: no path (NULL); expected a scene file's path");
    const double t = sr_now();
    if (ctx->desc.load_progress) sr_mesh_listen(ctx->desc.load_progress, ctx->desc.load_user);
    const sr_status s = sr_scene_load(path, &ctx->scene, &ctx->err);
    if (ctx->desc.load_progress) sr_mesh_listen(NULL, NULL);
    ctx->read_s = sr_now() - t;
    return sr_api_loaded(ctx, s);
}

sr_result sr_load_json(sr_context *ctx, const char *json, size_t len, const char *name)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    sr_api_drop_scene(ctx);
    if (!json) return sr_api_fail(ctx, SR_ERR_INPUT, "sr_load_json: no text (NULL); expected a scene as JSON");
    const double t = sr_now();
    if (ctx->desc.load_progress) sr_mesh_listen(ctx->desc.load_progress, ctx->desc.load_user);
    const sr_status s = sr_scene_parse(name ? name : "<json>", json, len ? len : strlen(json), &ctx->scene, &ctx->err);
    if (ctx->desc.load_progress) sr_mesh_listen(NULL, NULL);
    ctx->read_s = sr_now() - t;
    return sr_api_loaded(ctx, s);
}

/* ---- the frame ------------------------------------------------------------------------- */

static sr_status sr_api_need_scene(sr_context *ctx, const char *fn)
{
    if (ctx->loaded) return SR_OK;
    return sr_fail(&ctx->err, SR_ERR_INPUT, "%s: no scene is loaded; call sr_load_file or sr_load_json first", fn);
}

/* The workers a desc asks for (its list at most 255 bytes: the context keeps a copy). */
static sr_status sr_api_workers(const sr_context *ctx, const sr_frame_desc *d, sr_worker_spec *specs, uint32_t *n,
                                sr_error *err)
{
    if (d->devices && strlen(d->devices) >= 256)
        return sr_fail(err, SR_ERR_INPUT, "%s: %zu characters; expected a list of at most 255", ctx->names.devices,
                       strlen(d->devices));
    return sr_frame_workers(d, ctx->names.devices, specs, n, err);
}

sr_result sr_set_frame(sr_context *ctx, const sr_frame_desc *d)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    if (!d) return sr_api_fail(ctx, SR_ERR_INPUT, "sr_set_frame: no desc (NULL)");
    sr_frame f;
    sr_worker_spec specs[SR_FARM_MAX_WORKERS];
    uint32_t n;
    sr_status s = sr_api_need_scene(ctx, "sr_set_frame");
    if (!s) s = sr_frame_desc_check(d, &ctx->err);
    if (!s) s = sr_api_workers(ctx, d, specs, &n, &ctx->err);
    if (!s) s = sr_frame_build(&ctx->scene, d, &ctx->names, &f, &ctx->err);
    if (!s) {
        ctx->asked = *d;
        ctx->agreed = 0;
        if (d->devices) ctx->asked.devices = memmove(ctx->devices, d->devices, strlen(d->devices) + 1);
    }
    return sr_api_status(ctx, s);
}

sr_result sr_get_scene_info(sr_context *ctx, sr_scene_info *out)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    sr_status s = sr_api_need_scene(ctx, "sr_get_scene_info");
    if (!s && !out) s = sr_fail(&ctx->err, SR_ERR_INPUT, "sr_get_scene_info: no struct to fill (NULL)");
    if (s) return sr_api_status(ctx, s);
    const sr_scene *sc = &ctx->scene;
    memset(out, 0, sizeof *out);
    out->width = sc->width;
    out->height = sc->height;
    out->gltf_cameras = sc->file_camera_count;
    out->path_keys = sc->camera_path_count;
    if (sc->camera_path_count) {
        out->path_first = sc->camera_path[0].frame;
        out->path_last = sc->camera_path[sc->camera_path_count - 1u].frame;
    }
    const uint64_t prims = (uint64_t)sc->prim_count + sc->shared_prim_count + sc->plane_count;
    out->primitives = prims > UINT32_MAX ? UINT32_MAX : (uint32_t)prims;
    out->lights = sc->light_count;
    return sr_api_status(ctx, SR_OK);
}

sr_result sr_get_frame(const sr_context *ctx, sr_frame_desc *out)
{
    if (!ctx || !out || !ctx->loaded) return SR_RESULT_INPUT_ERROR;
    sr_frame f;
    sr_error err;   /* the kept desc was checked when it was set */
    if (sr_frame_build(&ctx->scene, &ctx->asked, NULL, &f, &err)) return sr_api_result(err.status);
    *out = ctx->asked;
    memcpy(out->camera.position, &f.camera.position, sizeof out->camera.position);
    memcpy(out->camera.look_at, &f.camera.look_at, sizeof out->camera.look_at);
    out->camera.fov = f.camera.vfov_deg;
    memcpy(out->camera.up, &f.camera.up, sizeof out->camera.up);
    out->camera.aperture = f.camera.aperture;
    out->camera.focus_distance = f.camera.focus_distance;
    out->width = f.width;
    out->height = f.height;
    out->spp = f.spp;
    out->depth = f.depth;
    out->integrator = f.integrator == SR_INTEGRATOR_PATH ? SR_INTEGRATOR_KIND_PATH : SR_INTEGRATOR_KIND_WHITTED;
    out->mask = out->mask ? out->mask : SR_MASK_KIND_WAVE;
    out->seed = f.render.seed;
    out->compact_below = f.render.compact_below;
    if (!out->seed) out->zeros |= SR_FRAME_ZERO_SEED;
    if (out->compact_below == 0.0f) out->zeros |= SR_FRAME_ZERO_COMPACT_BELOW;
    return SR_RESULT_OK;
}

/* ---- rendering ------------------------------------------------------------------------- */

/* The farm for the frame's workers: kept while the scene and the workers stay. Returns 1 in
 * *opened when it opened now (its BVH build and upload are this render's). */
static sr_status sr_api_open_farm(sr_context *ctx, const sr_frame *f, const sr_worker_spec *specs, uint32_t n,
                                  int *opened)
{
    *opened = 0;
    if (ctx->farm && n == ctx->farm_workers && !memcmp(specs, ctx->farm_specs, sizeof *specs * n)) return SR_OK;
    sr_api_close_farm(ctx);
    SR_TRY(sr_farm_open(&ctx->farm, &ctx->scene, specs, n, f, &ctx->err));
    memcpy(ctx->farm_specs, specs, sizeof *specs * n);
    ctx->farm_workers = n;
    *opened = 1;
    for (uint32_t i = 0; i < n; i++) {
        const sr_backend *be = sr_farm_backend(ctx->farm, i);
        char line[512];
        if (n == 1) sr_backend_describe(be, sr_farm_why(ctx->farm, 0), line, sizeof line);
        else snprintf(line, sizeof line, "worker %u: %s backend on %s", i, be->kind == SR_BACKEND_CUDA ? "GPU" : "CPU",
                      be->device_name);
        sr_api_log(ctx, SR_LOG_NOTICE, "%s", line);
    }
    return SR_OK;
}

/* The last render's numbers for sr_get_frame_stats. */
static void sr_api_keep_stats(sr_context *ctx, const sr_frame *f, const sr_farm_stats *fs, const sr_drive_result *dr,
                              uint32_t samples, int opened)
{
    sr_frame_stats *o = &ctx->stats;
    memset(o, 0, sizeof *o);
    const sr_backend *be = sr_farm_backend(ctx->farm, 0);
    const sr_renderer *r = sr_farm_renderer(ctx->farm, 0);
    o->kind = be->kind == SR_BACKEND_CUDA ? SR_DEVICE_KIND_GPU : SR_DEVICE_KIND_CPU;
    snprintf(o->device, sizeof o->device, "%s", be->device_name);
    o->samples = samples;
    o->pass_samples = sr_farm_pass_samples(f->spp);
    o->render_s = fs->seconds;
    o->read_s = ctx->read_s;
    o->build_s = opened ? r->build_s : 0.0;
    o->upload_s = opened ? r->upload_s : 0.0;
    o->merge_s = fs->merge_s;
    o->reduce_wait_s = dr->wait_s;
    o->reduce_s = dr->reduce_s;
    o->ranks = (uint32_t)sr_ranks_size();
    o->rays = fs->rays;
    for (uint32_t b = 0; b < SR_MAX_DEPTH && b < SR_STATS_MAX_BOUNCES; b++) o->rays_per_bounce[b] = fs->bounce_rays[b];
    o->dropped = fs->dropped;
    const char *way = sr_wave_way_name(r, &f->render);
    snprintf(o->wave_way, sizeof o->wave_way, "%s", way ? way : "");
    o->workers = fs->workers;
    for (uint32_t i = 0; i < fs->workers && i < SR_STATS_MAX_WORKERS; i++) {
        const sr_farm_worker_stats *w = &fs->w[i];
        sr_worker_stats *ow = &o->worker[i];
        snprintf(ow->device, sizeof ow->device, "%s", w->device_name);
        ow->kind = w->kind == SR_BACKEND_CUDA ? SR_DEVICE_KIND_GPU : SR_DEVICE_KIND_CPU;
        ow->passes = w->passes;
        ow->samples = w->samples;
        ow->rays = w->rays;
        ow->busy_s = w->busy_s;
        ow->first_pass_s = w->first_pass_s;
        ow->read_s = w->read_s;
    }
    ctx->have_stats = 1;
}

sr_result sr_get_frame_stats(sr_context *ctx, sr_frame_stats *out)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    if (!out) return sr_api_fail(ctx, SR_ERR_INPUT, "sr_get_frame_stats: no struct to fill (NULL)");
    if (!ctx->have_stats)
        return sr_api_fail(ctx, SR_ERR_INPUT, "sr_get_frame_stats: no render has run since the scene was loaded");
    *out = ctx->stats;
    return sr_api_status(ctx, SR_OK);
}

static int sr_api_no_progress(void *user, uint32_t done, uint32_t total)
{
    (void)user, (void)done, (void)total;
    return 0;
}

/* The frame (into *f), its workers and the host memory they need (saving to save_path too,
 * NULL: no save) checked; with `open`, the ranks' agreement on the frame (MPI, once a frame)
 * and the workers opened. */
static sr_status sr_api_ready(sr_context *ctx, const char *fn, sr_frame *f, const char *save_path, int open)
{
    SR_TRY(sr_api_need_scene(ctx, fn));
    SR_TRY(sr_frame_build(&ctx->scene, &ctx->asked, &ctx->names, f, &ctx->err));
    sr_worker_spec specs[SR_FARM_MAX_WORKERS];
    uint32_t workers;
    SR_TRY(sr_api_workers(ctx, &ctx->asked, specs, &workers, &ctx->err));
    SR_TRY(sr_farm_check_memory(&ctx->scene, f, specs, workers, save_path, &ctx->err));
    if (!open) return SR_OK;
    const int ranks = sr_ranks_size();
    if (ranks > 1 && !ctx->agreed) {
        if (sr_drive_same_frame(f, &ctx->scene, ctx->scene.path, NULL, 0, "", 0, "stencilray"))
            return sr_fail(&ctx->err, SR_ERR_INPUT, "the %d MPI ranks do not render the same frame (rank 0 names "
                           "the setting on its standard error); every rank must load the same scene and set the same "
                           "frame", ranks);
        ctx->agreed = 1;
    }
    int opened;
    SR_TRY(sr_api_open_farm(ctx, f, specs, workers, &opened));
    ctx->fresh_farm |= opened;
    return SR_OK;
}

sr_result sr_check_frame(sr_context *ctx, const char *save_path)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    sr_frame f;
    return sr_api_status(ctx, sr_api_ready(ctx, "sr_check_frame", &f, save_path, 0));
}

sr_result sr_prepare(sr_context *ctx)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    sr_frame f;
    return sr_api_status(ctx, sr_api_ready(ctx, "sr_prepare", &f, NULL, 1));
}

static sr_status sr_api_render(sr_context *ctx, sr_progress_fn fn, void *user)
{
    sr_frame f;
    SR_TRY(sr_api_ready(ctx, "sr_render", &f, NULL, 1));
    f.render.tick = ctx->desc.tick;
    f.render.tick_ctx = ctx->desc.tick_user;
    const size_t n = (size_t)f.width * f.height * 3u;
    if (ctx->film_w * ctx->film_h * 3u != n) {
        free(ctx->film);
        ctx->film_w = ctx->film_h = ctx->film_samples = 0;
        if (!(ctx->film = (float *)malloc(sizeof(float) * n)))
            return sr_fail(&ctx->err, SR_ERR_RUNTIME, "out of host memory for a %ux%u film", f.width, f.height);
    }
    ctx->film_w = f.width;
    ctx->film_h = f.height;
    ctx->film_samples = 0;
    const int ranks = sr_ranks_size(), rank = sr_ranks_rank();
    sr_film_sum sum;
    SR_TRY(sr_ranks_film_sum_init(&sum, n, &ctx->err));   /* shared by the ranks on one machine */
    /* one rank: every pass through the callback, so that it sees each one and may cancel */
    const sr_drive how = { ranks == 1, 1, fn ? fn : sr_api_no_progress, user };
    sr_drive_result run;
    sr_farm_stats st;
    sr_status s = sr_drive_frame(ctx->farm, &f, &how, &sum, &st, &run, &ctx->err);
    if (s == SR_OK && rank > 0) {   /* the job's film is rank 0's */
        sr_ranks_film_sum_free(&sum);
        return SR_OK;
    }
    if (s == SR_OK && !run.cancelled && sum.samples != f.spp)
        s = sr_fail(&ctx->err, SR_ERR_RUNTIME, "internal error: %llu of the frame's %u samples were rendered",
                    (unsigned long long)sum.samples, f.spp);
    if (s == SR_OK || s == SR_INTERRUPTED) {
        sr_film_sum_mean(&sum, ctx->film);
        ctx->film_samples = (uint32_t)sum.samples;
        sr_api_keep_stats(ctx, &f, &st, &run, ctx->film_samples, ctx->fresh_farm);
        ctx->fresh_farm = 0;
    }
    sr_ranks_film_sum_free(&sum);
    if (s == SR_OK && run.cancelled)
        s = sr_fail(&ctx->err, SR_INTERRUPTED, "cancelled by the progress callback after %u of %u samples",
                    ctx->film_samples, f.spp);
    return s;
}

sr_result sr_render_progress(sr_context *ctx, sr_progress_fn progress, void *user)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    return sr_api_status(ctx, sr_api_render(ctx, progress, user));
}

sr_result sr_render(sr_context *ctx) { return sr_render_progress(ctx, NULL, NULL); }

/* ---- the film -------------------------------------------------------------------------- */

sr_result sr_film_size(const sr_context *ctx, uint32_t *width, uint32_t *height, uint32_t *samples)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    if (width) *width = ctx->film_w;
    if (height) *height = ctx->film_h;
    if (samples) *samples = ctx->film_samples;
    return SR_RESULT_OK;
}

static sr_status sr_api_need_film(sr_context *ctx, const char *fn)
{
    if (ctx->film && ctx->film_samples) return SR_OK;
    return sr_fail(&ctx->err, SR_ERR_INPUT, "%s: the film holds no samples; call sr_render first", fn);
}

sr_result sr_read_pixels(sr_context *ctx, float *dst, size_t capacity, uint32_t channels)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    sr_status s = sr_api_need_film(ctx, "sr_read_pixels");
    const size_t pixels = (size_t)ctx->film_w * ctx->film_h;
    if (!s && channels != 3 && channels != 4)
        s = sr_fail(&ctx->err, SR_ERR_INPUT, "sr_read_pixels: %u channels; expected 3 (RGB) or 4 (RGBA)", channels);
    if (!s && (!dst || capacity < pixels * channels))
        s = sr_fail(&ctx->err, SR_ERR_INPUT, "sr_read_pixels: room for %zu floats; a %ux%u film of %u channels needs %zu",
                    dst ? capacity : 0, ctx->film_w, ctx->film_h, channels, pixels * channels);
    if (s) return sr_api_status(ctx, s);
    if (channels == 3) memcpy(dst, ctx->film, sizeof(float) * pixels * 3u);
    for (size_t i = 0; channels == 4 && i < pixels; i++) {
        memcpy(dst + 4 * i, ctx->film + 3 * i, sizeof(float) * 3u);
        dst[4 * i + 3] = 1.0f;
    }
    return sr_api_status(ctx, SR_OK);
}

sr_result sr_save(sr_context *ctx, const char *path, const sr_save_desc *desc)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    const sr_save_desc d = desc ? *desc : (sr_save_desc){ 0 };
    sr_status s = sr_api_need_film(ctx, "sr_save");
    if (!s && (!path || !sr_image_format_known(path)))
        s = sr_fail(&ctx->err, SR_ERR_INPUT, "sr_save: %s: unknown image format; expected a name ending in .png, .hdr or .exr",
                    path ? path : "(NULL)");
    if (!s && ((unsigned)d.tonemap > SR_TONEMAP_KIND_ACES || !(d.exposure >= 0.0f)))
        s = sr_fail(&ctx->err, SR_ERR_INPUT, "sr_save_desc: tonemap %d, exposure %g; expected an sr_tonemap_kind and an "
                    "exposure >= 0 (0: 1)", (int)d.tonemap, (double)d.exposure);
    if (s) return sr_api_status(ctx, s);
    const int black = d.exposure == 0.0f && (d.zeros & SR_SAVE_ZERO_EXPOSURE);
    const sr_image_opts io = { .exposure = d.exposure > 0.0f || black ? d.exposure : 1.0f, .tonemap = (sr_tonemap)d.tonemap,
                               .exr_type = d.exr_float ? SR_EXR_FLOAT : SR_EXR_HALF };
    /* a stop (sr_stop_on_signals) ends the write with nothing left at path */
    return sr_api_status(ctx, sr_image_write_as(path, ctx->film, ctx->film_w, ctx->film_h, &io, sr_interrupt_pending,
                                                &ctx->err));
}

/* ---- the benchmark -------------------------------------------------------------------- */

/* One worker: the sweep on a backend opened on the caller's thread (its line to the log),
 * with a renderer of its own (the farm and the film are not touched). Several: their frames
 * on the context's farm. */
static sr_status sr_api_bench(sr_context *ctx, const sr_bench_desc *desc, sr_bench_report **out)
{
    SR_TRY(sr_api_need_scene(ctx, "sr_bench_run"));
    if (!desc || !out) return sr_fail(&ctx->err, SR_ERR_INPUT, "sr_bench_run: no desc or no report pointer (NULL)");
    SR_TRY(sr_bench_desc_check(desc, &ctx->err));
    sr_frame f;
    SR_TRY(sr_frame_build(&ctx->scene, &ctx->asked, &ctx->names, &f, &ctx->err));
    f.spp = 1;
    sr_worker_spec specs[SR_FARM_MAX_WORKERS];
    uint32_t n;
    SR_TRY(sr_api_workers(ctx, &ctx->asked, specs, &n, &ctx->err));
    if (n > 1) {   /* their throughput, on the context's farm as sr_render runs it */
        int opened;
        SR_TRY(sr_farm_check_memory(&ctx->scene, &f, specs, n, NULL, &ctx->err));
        SR_TRY(sr_api_open_farm(ctx, &f, specs, n, &opened));
        return sr_bench_farm_sweep(ctx->farm, &f, desc, out, &ctx->err);
    }
    sr_backend be;
    char why[256] = "", line[512];
    SR_TRY(sr_backend_create(specs[0].kind, specs[0].device, &be, why, sizeof why, &ctx->err));
    sr_backend_describe(&be, why, line, sizeof line);
    sr_api_log(ctx, SR_LOG_NOTICE, "%s", line);
    sr_renderer r;
    memset(&r, 0, sizeof r);
    sr_status s = sr_renderer_prepare(&r, &ctx->scene, &be, &f, &ctx->err);
    if (!s) s = sr_bench_sweep(&r, &be, specs[0].device, &f, desc, out, &ctx->err);
    if (r.be) sr_renderer_free(&r);
    sr_backend_destroy(&be);
    return s;
}

sr_result sr_bench_run(sr_context *ctx, const sr_bench_desc *desc, sr_bench_report **out)
{
    if (out) *out = NULL;
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    return sr_api_status(ctx, sr_api_bench(ctx, desc, out));
}

/* ---- the viewer ----------------------------------------------------------------------- */

sr_result sr_view_run(sr_context *ctx, const sr_view_desc *desc)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    if (!desc) return sr_api_fail(ctx, SR_ERR_INPUT, "sr_view_run: no desc (NULL)");
    if (desc->exposure < 0.0f || (unsigned)desc->tonemap > SR_TONEMAP_KIND_ACES || (unsigned)desc->vsync > SR_VIEW_VSYNC_OFF)
        return sr_api_fail(ctx, SR_ERR_INPUT, "sr_view_desc: exposure %g, tonemap %d, vsync %d; expected an exposure >= 0, "
                           "an sr_tonemap_kind and an SR_VIEW_VSYNC_*", (double)desc->exposure, (int)desc->tonemap,
                           desc->vsync);
    sr_status s = sr_frame_desc_check(&desc->frame, &ctx->err);
    if (s) return sr_api_status(ctx, s);
#if SR_HAVE_VIEWER
    const int code = sr_viewer_run(desc, ctx->names.camera_text);
    if (code == 0) return sr_api_status(ctx, SR_OK);
    return sr_api_fail(ctx, code == 2 ? SR_ERR_INPUT : code == SR_INTERRUPTED ? SR_INTERRUPTED : SR_ERR_RUNTIME,
                       "the viewer stopped (exit code %d); its message is on standard error", code);
#else
    return sr_api_fail(ctx, SR_ERR_RUNTIME, "this build has no viewer (GLFW/GLEW were not found at configure time)");
#endif
}

/* ---- denoising -------------------------------------------------------------------------- */

int sr_denoise_available(void) { return sr_denoise_lib_available(); }

sr_result sr_denoise(sr_context *ctx, const sr_denoise_desc *desc)
{
    if (!ctx) return SR_RESULT_INPUT_ERROR;
    const sr_denoise_desc d = desc ? *desc : (sr_denoise_desc){ 0 };
    const sr_status s = sr_api_need_film(ctx, "sr_denoise");
    if (s) return sr_api_status(ctx, s);
    return sr_api_status(ctx, sr_denoise_image(ctx->film_w, ctx->film_h, ctx->film, d.albedo, d.normal, ctx->film, &ctx->err));
}

/* ---- stopping on a signal --------------------------------------------------------------- */

sr_result sr_stop_on_signals(void) { return sr_interrupt_install() ? SR_RESULT_RUNTIME_ERROR : SR_RESULT_OK; }
int sr_stop_requested(void) { return sr_interrupt_pending(); }
void sr_stop_clear(void) { sr_interrupt_reset(); }

/* ---- MPI ranks ------------------------------------------------------------------------- */

sr_result sr_mpi_begin(int *argc, char ***argv, char *message, size_t cap)
{
    sr_error err = { SR_OK, "" };
    const sr_status s = sr_ranks_init(argc, argv, &err);
    if (message && cap) snprintf(message, cap, "%s", s ? err.msg : "");
    return sr_api_result(s);
}

void sr_mpi_end(void) { sr_ranks_finalize(); }
int sr_mpi_rank(void) { return sr_ranks_rank(); }
int sr_mpi_size(void) { return sr_ranks_size(); }
void sr_mpi_hold_stderr(void) { sr_ranks_hold_stderr(); }
int sr_mpi_agree(int code) { return sr_ranks_agree(code); }
void sr_mpi_abort(int code) { sr_ranks_abort(code); }
