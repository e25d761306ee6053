/* cli.c: commands, options and the messages a person reads. Options are parsed strictly:
 * a bad value names the option, says what it got and what is expected, and exits 2. */
#include "cli.h"
#include "textfile.h"
#include "cmd_bench.h"
#include "../backend/cuda/cudaenv.h"
#include "cmd_view.h"
#include "options.h"
#include "../../kernels/frames/sortkey.h"
#include "../backend/backend.h"
#include "../base/datadir.h"
#include "../io/images/image.h"
#include "../base/names.h"
#include "../render/render.h"
#include "../scene/scene.h"
#include "../farm/farm.h"
#include "../farm/film_sum.h"
#include "../farm/ranks.h"
#include "sequence.h"
#include "../farm/driver.h"

#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* ---- render ---------------------------------------------------------------------------- */

static const char sr_render_help[] =
"Usage: stencilray render [SCENE.json|MODEL.glb|.gltf|.obj|.ply|.stl] [-o OUT.png|.hdr|.exr] [options]\n"
"       stencilray render SCENE.json --frames A-B -o OUT_%04d.png [options]\n"
"\n"
"Render one frame of a scene (default " SR_DEFAULT_SCENE "; a glTF 2.0 file is a scene\n"
"with its cameras, lights and materials, a mesh file one with its materials) and write it\n"
"as an 8-bit sRGB PNG, as linear Radiance HDR or as linear OpenEXR. The output is written\n"
"to a temporary name and renamed, so a failed render never leaves a half-written file.\n"
"\n"
"  -o, --output FILE       where to write the image (default render.png)\n"
"  --exr-type T            half (default) or float: the EXR's pixel type (.exr only)\n"
"  --save-partial          on Ctrl-C, write the samples so far to OUT.partial-<N>spp.png\n"
"                          (without it, an interrupted render writes nothing; exit 130)\n"
"  --stats FILE.json       also write the summary's numbers as JSON: backend, device, size,\n"
"                          spp, depth, mask, integrator, times, rays per bounce, Mrays/s\n"
"                          ('-': standard output; the summary line then goes to stderr)\n"
"  --frames A-B            render frames A to B of the scene's \"camera_path\" (A alone: one),\n"
"                          each to -o's name with its number in place of the one %0Nd\n"
"                          (out_%04d.png: out_0007.png); frames already written are\n"
"                          skipped, so the same command resumes an interrupted sequence;\n"
"                          other settings than theirs (OUT_%04d.png.settings) are refused\n"
"  --overwrite             with --frames: render every frame again, written ones too\n"
"  --                      the end of the options: what follows is the scene, even a name\n"
"                          that starts with '-' (render -- -x.json)\n"
SR_RENDER_COMMON_HELP
"\n"
"Examples:\n"
"  stencilray render                                   # the default scene, GPU if present\n"
"  stencilray render scenes/cornell_path.json --device all -o c.exr   # every GPU\n"
"  mpirun -np 4 stencilray render scenes/cornell_path.json -o c.exr   # 4 processes\n"
"  stencilray render scenes/orbit.json --frames 0-47 -o orbit_%04d.png\n"
"  stencilray render scenes/cornell.json -o cornell.png --spp 64\n"
"  stencilray render scenes/mirror_hall.json --depth 4 --backend cpu -o hall.hdr\n"
"  stencilray render scenes/cornell_path.json -o cornell.exr --exr-type float\n"
SR_HELP_FOOTER;

/* Ctrl-C: say so, write the partial image when asked (OUT.partial-<N>spp.EXT, through the
 * same temp + rename), and return 128 + the signal (130 for SIGINT). */
static int sr_render_interrupted(const char *out, const float *rgb, const sr_common *c, const sr_image_opts *io,
                                 const sr_render_stats *st)
{
    const int sig = sr_stop_requested();
    const char *name = sig == SIGTERM ? "SIGTERM" : "SIGINT";
    const sr_frame *f = &c->frame;
    if (!f->render.keep_partial || !rgb || st->partial_samples == 0) {
        if (sr_stop_can_report())
            fprintf(stderr, "stencilray render: interrupted (%s) after %u of %u samples; nothing written%s\n", name,
                    st->samples, f->spp,
                    f->render.keep_partial ? " (no sample had completed)" : " (--save-partial keeps the samples so far)");
        return 128 + (sig ? sig : SIGINT);
    }
    /* sized to fit: a cut name would be another file */
    const size_t cap = strlen(out) + 32;
    char *partial = (char *)malloc(cap);
    sr_error err = { SR_OK, "" };
    if (partial && sr_output_partial_name(out, st->partial_samples, partial, cap)) { free(partial); partial = NULL; }
    if (!partial) sr_fail(&err, SR_ERR_RUNTIME, "out of memory");
    if (!partial || sr_image_write_as(partial, rgb, f->width, f->height, io, NULL, &err)) {
        fprintf(stderr, "stencilray render: interrupted (%s); writing the partial image failed: %s\n", name, err.msg);
        free(partial);
        return 1;
    }
    fprintf(stderr, "stencilray render: interrupted (%s) after %u of %u samples; wrote the mean of %u samples to %s\n",
            name, st->samples, f->spp, st->partial_samples, partial);
    free(partial);
    return 128 + (sig ? sig : SIGINT);
}

/* The progress of a frame's samples on stderr (the farm's tick, frame.h): on a terminal a bar
 * redrawn up to 10 times a second, in a log a line every 5 s, once the frame has run a second. */
typedef struct sr_progress_bar { int tty, shown; double shown_at; } sr_progress_bar;

static void sr_progress_tick(void *ctx, uint64_t done, uint64_t total, double elapsed, int final)
{
    sr_progress_bar *b = (sr_progress_bar *)ctx;
    if (final) {
        if (b->shown && b->tty) fputc('\n', stderr);
        b->shown = 0;
        b->shown_at = 0.0;
        return;
    }
    const double every = b->tty ? 0.1 : 5.0;
    if (!((elapsed > 1.0 || b->shown) && elapsed - b->shown_at >= every)) return;
    const double eta = done ? elapsed * (double)(total - done) / (double)done : 0.0;
    if (b->tty) {
        char bar[31];
        const int filled = (int)(30.0 * (double)done / (double)total);
        for (int i = 0; i < 30; i++) bar[i] = i < filled ? '#' : '.';
        bar[30] = '\0';
        fprintf(stderr, "\r[%s] %llu/%llu samples  %.1f s  ETA %.1f s ", bar, (unsigned long long)done,
                (unsigned long long)total, elapsed, eta);
        fflush(stderr);
    } else {
        fprintf(stderr, "render: %llu/%llu samples, %.1f s, ETA %.1f s\n", (unsigned long long)done,
                (unsigned long long)total, elapsed, eta);
    }
    b->shown = 1;
    b->shown_at = elapsed;
}

/* What a finished render did, for the summary line and --stats. */
typedef struct sr_render_summary {
    const sr_backend *be;
    const sr_common *c;
    const sr_render_stats *st;
    const sr_farm_stats *farm;   /* this process's workers                                 */
    int ranks;
    const char *way;    /* the way the wave mask measured fastest, or NULL */
    const char *out;
    double setup_s;     /* read + the rest of the set-up (the memory check, prepare) */
    double read_s, build_s, upload_s;   /* its parts: the scene and meshes read, the BVH, the upload */
    double first_frame_s;   /* from sr_cli_main's start to the samples done (the time to first pixel) */
    double reduce_s;    /* the ranks' sums to rank 0 (MPI) */
    double reduce_wait_s;   /* before it, waiting for every rank's last pass */
} sr_render_summary;

static double sr_cli_t0;   /* sr_now() when sr_cli_main starts */

static double sr_mrays_per_s(const sr_render_stats *st)
{
    return st->seconds > 0 ? (double)st->rays / st->seconds / 1e6 : 0.0;
}

/* --stats: the summary line's numbers as JSON, through a temporary name and a rename. */
static sr_status sr_write_render_stats(const char *path, const sr_render_summary *r, sr_error *err)
{
    cJSON *root = cJSON_CreateObject();
    if (!root) return sr_fail(err, SR_ERR_RUNTIME, "out of memory writing %s", path);
    cJSON_AddStringToObject(root, "stencilray", SR_VERSION);
    sr_cli_json_add_bytes(root, "scene", r->c->scene_path);   /* file names are bytes: made UTF-8 */
    sr_cli_json_add_bytes(root, "output", r->out);
    cJSON_AddStringToObject(root, "backend", sr_backend_kind_name(r->be->kind));
    sr_cli_json_add_bytes(root, "device", r->be->device_name);
    const sr_frame *f = &r->c->frame;
    cJSON_AddNumberToObject(root, "width", f->width);
    cJSON_AddNumberToObject(root, "height", f->height);
    cJSON_AddNumberToObject(root, "spp", f->spp);
    cJSON_AddNumberToObject(root, "depth", f->depth);
    cJSON_AddStringToObject(root, "integrator", sr_integrator_name((int)f->integrator));
    cJSON_AddStringToObject(root, "mask", sr_mask_name(f->render.mask));
    if (r->way) cJSON_AddStringToObject(root, "wave_way", r->way);
    cJSON_AddNumberToObject(root, "seed", f->render.seed);
    cJSON_AddNumberToObject(root, "render_s", r->st->seconds);
    cJSON_AddNumberToObject(root, "setup_s", r->setup_s);
    cJSON_AddNumberToObject(root, "read_s", r->read_s);
    cJSON_AddNumberToObject(root, "build_s", r->build_s);
    cJSON_AddNumberToObject(root, "upload_s", r->upload_s);
    cJSON_AddNumberToObject(root, "first_frame_s", r->first_frame_s);
#ifdef SR_HAVE_CUDA
    cJSON_AddStringToObject(root, "cuda_module_loading", sr_cuda_loading());
    cJSON_AddStringToObject(root, "cuda_module_loading_from", sr_cuda_loading_source());
#endif
    cJSON_AddNumberToObject(root, "ms_per_sample", r->st->samples ? 1e3 * r->st->seconds / r->st->samples : 0.0);
    cJSON_AddNumberToObject(root, "rays", (double)r->st->rays);
    cJSON *per = cJSON_AddArrayToObject(root, "rays_per_bounce");
    for (uint32_t b = 0; per && b < f->depth && b < SR_MAX_DEPTH; b++)
        cJSON_AddItemToArray(per, cJSON_CreateNumber((double)r->st->bounce_rays[b]));
    cJSON_AddNumberToObject(root, "mrays_per_s", sr_mrays_per_s(r->st));
    cJSON_AddNumberToObject(root, "ranks", r->ranks);
    cJSON_AddNumberToObject(root, "pass_samples", sr_farm_pass_samples(f->spp));
    if (r->farm) cJSON_AddNumberToObject(root, "merge_s", r->farm->merge_s);   /* the workers' sums into one */
    if (r->farm) cJSON_AddNumberToObject(root, "reduce_s", r->reduce_s);       /* the ranks' sums to rank 0 */
    if (r->farm) cJSON_AddNumberToObject(root, "reduce_wait_s", r->reduce_wait_s);   /* waiting for the ranks first */
    cJSON *workers = cJSON_AddArrayToObject(root, "workers");   /* rank 0's */
    for (uint32_t i = 0; workers && r->farm && i < r->farm->workers; i++) {
        const sr_farm_worker_stats *w = &r->farm->w[i];
        cJSON *o = cJSON_CreateObject();
        if (!o) break;
        sr_cli_json_add_bytes(o, "device", w->device_name);
        cJSON_AddStringToObject(o, "backend", sr_backend_kind_name(w->kind));
        cJSON_AddNumberToObject(o, "passes", w->passes);
        cJSON_AddNumberToObject(o, "samples", (double)w->samples);
        cJSON_AddNumberToObject(o, "busy_s", w->busy_s);
        cJSON_AddNumberToObject(o, "mrays_per_s", w->busy_s > 0 ? (double)w->rays / w->busy_s / 1e6 : 0.0);
        cJSON_AddNumberToObject(o, "first_pass_s", w->first_pass_s);
        cJSON_AddNumberToObject(o, "read_s", w->read_s);
        cJSON_AddItemToArray(workers, o);
    }
    /* Whitted glass's spawned rays that found no room (kernels/integrators/whitted.h) */
    cJSON_AddNumberToObject(root, "dropped_rays", (double)r->st->dropped);
    return sr_cli_write_json(path, root, err);
}

/* The image's name once render has written it and standard output holds only its summary
 * line (sr_cli_main: losing that line is no error). */
static const char *sr_summary_of;

/* Set once the render's ranks have agreed on its set-up (sr_ranks_agree): an exit before
 * that point agrees on the way out (sr_cmd_render), so that every rank calls it once. */
static int sr_render_agreed;

/* The frames of --frames not written yet (a file that exists is complete: images are written
 * to a temporary name and renamed). */
typedef struct sr_frame_list { uint32_t *n; uint32_t count, skipped; } sr_frame_list;

/* A failure during the render: said by the rank that met it; under MPI it ends the job. */
static int sr_render_failed(const char *msg, sr_status s)
{
    if (sr_ranks_size() > 1) {
        fprintf(stderr, "stencilray render: rank %d of %d: %s; ending the job, nothing written\n", sr_ranks_rank(),
                sr_ranks_size(), msg);
        sr_ranks_abort((int)s);
    }
    fprintf(stderr, "stencilray render: %s\n", msg);
    return (int)s;
}

/* Ctrl-C or SIGTERM under MPI (mpirun passes them on to every rank): nothing is written. */
static int sr_render_interrupted_job(void)
{
    const int sig = sr_stop_requested() ? sr_stop_requested() : SIGINT;
    if (sr_ranks_rank() == 0 && sr_stop_can_report())
        fprintf(stderr, "stencilray render: interrupted (%s); nothing written\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    sr_ranks_abort(128 + sig);
    return 128 + sig;
}

static void sr_render_stats_of(const sr_farm_stats *fs, uint64_t samples, sr_render_stats *st)
{
    memset(st, 0, sizeof *st);
    st->seconds = fs->seconds;
    st->rays = fs->rays;
    for (uint32_t b = 0; b < SR_MAX_DEPTH; b++) st->bounce_rays[b] = fs->bounce_rays[b];
    st->dropped = fs->dropped;
    st->samples = (uint32_t)samples;
}

/* --frames: the settings that decide the images (sequence.h) as text, and where they are kept
 * beside the frames. With frames written already (`written`), a settings file that differs
 * from them is refused: exit 2, naming the setting; else 0. */
static int sr_sequence_check_settings(const sr_common *c, const sr_image_opts *io, const char *pattern,
                                      const char *frames_text, uint32_t written, char *path, size_t path_cap,
                                      char *text, size_t text_cap)
{
    const sr_frame *f = &c->frame;
    const int fmt = sr_image_format_known(pattern);
    const sr_sequence_settings st = {
        .scene = c->scene_path, .width = f->width, .height = f->height, .spp = f->spp, .depth = f->depth,
        .seed = f->render.seed, .camera_index = c->ask.gltf_camera ? c->ask.gltf_camera - 1u : 0u, .integrator = sr_integrator_name((int)f->integrator),
        .exposure = f->exposure, .tonemap = fmt == SR_FMT_PNG ? sr_tonemap_name(io->tonemap) : NULL,
        .exr_type = fmt == SR_FMT_EXR ? (io->exr_type == SR_EXR_FLOAT ? "float" : "half") : NULL,
    };
    if (sr_sequence_settings_path(pattern, path, path_cap) || sr_sequence_settings_text(&st, text, text_cap)) {
        fprintf(stderr, "stencilray render: -o %s: the name of its settings file is too long\n", pattern);
        return 2;
    }
    char why[PATH_MAX + 256];
    if (written == 0 || sr_sequence_settings_differ(path, text, why, sizeof why) <= 0) return 0;
    fprintf(stderr, "stencilray render: --frames %s: %u of the frames are written already (-o %s) with %s (%s); "
                    "render with their settings to resume, or add --overwrite to render every frame again\n",
            frames_text, written, pattern, why, path);
    return 2;
}

/* Whether -o names a directory: one that exists, or a name ending in '/'. */
static int sr_output_names_directory(const char *out)
{
    struct stat st;
    const size_t n = strlen(out);
    return (n > 0 && out[n - 1] == '/') || (stat(out, &st) == 0 && S_ISDIR(st.st_mode));
}

/* dir/name (one '/' between them) in buf, for a message. */
static const char *sr_output_in_directory(const char *dir, const char *name, char *buf, size_t cap)
{
    const size_t n = strlen(dir);
    snprintf(buf, cap, "%s%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/", name);
    return buf;
}

static int sr_render_main(int argc, char **argv)
{
    sr_args a = { argc, 2, argv, "render" };
    sr_common c;
    sr_common_default(&c);
    c.progress = 1;
    const char *out = "render.png", *stats = NULL, *frames_text = NULL;
    sr_exr_type exr_type = SR_EXR_HALF;
    int exr_type_given = 0;   /* --exr-type: refused unless -o names an EXR */
    int overwrite = 0;        /* --overwrite: --frames renders the frames written already too */
    for (; a.i < argc; a.i++) {
        const char *o = argv[a.i];
        const int operand = sr_parse_operand(&a, &c);
        if (operand > 0) return operand;
        if (operand == 0) continue;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) { fputs(sr_render_help, stdout); return 0; }
        if (!strcmp(o, "-o") || !strcmp(o, "--output")) {
            if (!(out = sr_value(&a, o))) return 2;
            continue;
        }
        if (!strcmp(o, "--save-partial")) { c.keep_partial = 1; continue; }
        if (!strcmp(o, "--overwrite")) { overwrite = 1; continue; }
        if (!strcmp(o, "--stats")) {
            if (!(stats = sr_value(&a, o))) return 2;
            continue;
        }
        if (!strcmp(o, "--frames")) {
            if (!(frames_text = sr_value(&a, o))) return 2;
            continue;
        }
        if (!strcmp(o, "--exr-type")) {
            const char *v = sr_value(&a, o);
            if (!v) return 2;
            if (!strcmp(v, "half")) exr_type = SR_EXR_HALF;
            else if (!strcmp(v, "float")) exr_type = SR_EXR_FLOAT;
            else return sr_usage_error(&a, "--exr-type %s: unknown pixel type; expected half or float%s", v, "");
            exr_type_given = 1;
            continue;
        }
        int r = sr_parse_common(&a, &c);
        if (r > 0) return r;
        if (r < 0) return sr_unknown_option(&a, o, sr_render_help);
    }
    const int runs[] = { (int)sr_frame_mask(c.ask.mask) };
    const int bad = sr_check_mask_options(&a, &c, runs, 1, c.ask.sort != SR_SORT_KIND_NONE);
    if (bad) return bad;
    char msg[2 * PATH_MAX + 256];
    if (sr_output_names_directory(out))
        return sr_usage_error(&a, "-o %s: that is a directory; expected an image file name ending in .png, .hdr or "
                              ".exr, such as %s", out, sr_output_in_directory(out, "render.png", msg, sizeof msg));
    if (!sr_image_format_known(out))
        return sr_usage_error(&a, "-o %s: unknown image format; expected a name ending in .png, .hdr or .exr%s", out, "");
    if (exr_type_given && sr_image_format_known(out) != SR_FMT_EXR)
        return sr_usage_error(&a, "--exr-type applies to .exr output only, and -o is %s; it would change nothing "
                              "here, so leave --exr-type out%s", out, "");
    const char *inputs[] = { c.scene_path, NULL };
    uint32_t first = 0, last = 0;
    if (frames_text) {
        if (sr_frames_parse(frames_text, &first, &last, msg, sizeof msg))
            return sr_usage_error(&a, "--frames %s%s", msg, "");
        if (last - first >= SR_SEQUENCE_MAX_FRAMES)
            return sr_usage_error(&a, "--frames %s: more than 100000 frames; render the sequence in parts%s", frames_text, "");
        if (sr_frame_pattern_check(out, msg, sizeof msg)) return sr_usage_error(&a, "%s%s", msg, "");
        if (c.camera_text)
            return sr_usage_error(&a, "--camera and --frames: each frame's camera comes from the scene's camera_path; "
                                  "leave --camera out%s%s", "", "");
        if (stats) return sr_usage_error(&a, "--stats writes the numbers of one frame; leave it out with --frames%s%s", "", "");
        if (c.keep_partial)
            return sr_usage_error(&a, "--save-partial keeps the samples of one frame; with --frames an interrupted "
                                  "sequence resumes at its first missing frame instead; leave it out%s%s", "", "");
    } else {
        if (overwrite)
            return sr_usage_error(&a, "--overwrite applies to --frames only (one image is always written over the old "
                                  "one); leave it out%s%s", "", "");
        if (!sr_output_check("-o", out, 0, inputs, msg, sizeof msg)) return sr_usage_error(&a, "%s%s", msg, "");
        sr_output_guard("-o", out);   /* the meshes the scene reads are checked against it as it loads */
    }
    if (stats && !sr_output_check("--stats", stats, 1, inputs, msg, sizeof msg))
        return sr_usage_error(&a, "%s%s", msg, "");
    if (stats && strcmp(stats, "-") && sr_output_same_file(stats, out))
        return sr_usage_error(&a, "--stats %s: that is the image's name too (-o); choose another name%s", stats, "");
    if (stats && strcmp(stats, "-")) sr_output_guard("--stats", stats);
    if (c.keep_partial) sr_output_guard_partials(out);   /* any out.partial-<N>spp name */
    if (c.keep_partial && sr_ranks_size() > 1)
        return sr_usage_error(&a, "--save-partial keeps one process's samples; under mpirun an interrupted render "
                              "writes nothing; leave it out%s%s", "", "");
    const int rank = sr_ranks_rank(), ranks = sr_ranks_size();
    const int user_quiet = c.quiet;
    if (rank > 0) c.quiet = 1;   /* rank 0 alone shows progress and the summary */
    if (c.quiet) c.progress = 0;
    if (stats) c.bounce_counts = 1;   /* its rays_per_bounce */

    const sr_image_opts io = { .exposure = c.exposure, .tonemap = (sr_tonemap)c.tonemap, .exr_type = exr_type };
    sr_scene scene;
    sr_stop_on_signals();   /* Ctrl-C from here on stops the render cleanly (stencilray.h) */
    sr_worker_spec specs[SR_FARM_MAX_WORKERS];
    uint32_t nw = 0;
    int code = sr_parse_workers(&c, "render", specs, &nw);   /* its error is reported after the scene's (ranks agree) */
    /* The GPUs' contexts are made while the scene is read (backend.h). */
    sr_backend_warm *warm = code ? NULL : sr_backend_warm_begin(specs, nw);
    const int scene_code = sr_open_scene(&c, "render", &scene);
    if (scene_code) {
        sr_backend_warm_end(warm);
        return scene_code;
    }
    sr_frame *frame = &c.frame;   /* the render's settings, the scene's values where no option gave one */
    sr_progress_bar bar = { isatty(STDERR_FILENO), 0, 0.0 };
    if (frame->render.progress) {
        frame->render.tick = sr_progress_tick;
        frame->render.tick_ctx = &bar;
    }
    sr_error err = { SR_OK, "" };
    sr_frame_list todo = { NULL, 0, 0 };
    char name[PATH_MAX];
    const sr_field_names names = sr_option_names(&c, frames_text);
    for (uint32_t k = first; !code && frames_text && k <= last; k++) {
        sr_frame_desc at = c.ask;   /* the frame's camera on the camera_path, checked */
        at.path_frame = k + 1u;
        sr_frame checked;
        if (sr_frame_build(&scene, &at, &names, &checked, &err)) {
            fprintf(stderr, "stencilray render: %s\n", err.msg);
            code = 2;
            break;
        }
        if (sr_frame_pattern_name(out, k, name, sizeof name)) {
            fprintf(stderr, "stencilray render: -o %s: the name of frame %u is too long\n", out, k);
            code = 2;
            break;
        }
        if (!sr_output_check("-o", name, 0, inputs, msg, sizeof msg)) {
            fprintf(stderr, "stencilray render: %s\n", msg);
            code = 2;
            break;
        }
        if (!todo.n && !(todo.n = (uint32_t *)malloc(sizeof(uint32_t) * (last - first + 1u)))) {
            fprintf(stderr, "stencilray render: out of host memory\n");
            code = 1;
            break;
        }
        struct stat sb;
        if (!overwrite && stat(name, &sb) == 0 && S_ISREG(sb.st_mode)) todo.skipped++;   /* written whole by an earlier run */
        else todo.n[todo.count++] = k;
    }
    /* The settings beside the frames: those written already must be what this run would render. */
    char settings_path[PATH_MAX], settings[PATH_MAX + 512];
    if (!code && frames_text) code = sr_sequence_check_settings(&c, &io, out, frames_text, todo.skipped, settings_path,
                                                                sizeof settings_path, settings, sizeof settings);
    double t_setup = sr_now();
    sr_backend_warm_end(warm);   /* the contexts' time left over after the read counts in the set-up */
    /* Everything the host will allocate, checked before any of it is (render.h). */
    if (!code && sr_farm_check_memory(&scene, frame, specs, nw, frames_text ? name : out, &err)) {
        fprintf(stderr, "stencilray render: %s\n", err.msg);
        code = (int)err.status;
    }
    /* Every rank has read the options and the scene: one message and one exit code for all. */
    sr_render_agreed = 1;
    code = sr_ranks_agree(code);
    sr_farm *fm = NULL;
    float *rgb = NULL;
    sr_film_sum sum = { NULL, 0, 0, 0 };
    if (!code) code = sr_drive_same_frame(frame, &scene, c.scene_path, frames_text ? todo.n : NULL, todo.count, out,
                                          (int)exr_type, "stencilray render");
    if (code) goto done;

    const int tell = frame->render.progress && !c.quiet && isatty(STDERR_FILENO);
    if (tell) {   /* erased when the samples' progress starts */
        fprintf(stderr, "\rbuilding BVH over %u primitives", scene.prim_count);
        fflush(stderr);
    }
    sr_status s = sr_farm_open(&fm, &scene, specs, nw, frame, &err);
    if (tell) fprintf(stderr, "\r%*s\r", 60, "");
    t_setup = sr_now() - t_setup + c.read_s;
    /* The parts of the set-up, as the first worker saw them (each worker builds its own BVH). */
    const double build_s = s ? 0.0 : sr_farm_renderer(fm, 0)->build_s;
    const double upload_s = s ? 0.0 : sr_farm_renderer(fm, 0)->upload_s;
    if (!s) s = sr_ranks_film_sum_init(&sum, (size_t)frame->width * frame->height * 3u, &err);
    if (!s && rank == 0 && !(rgb = (float *)malloc(sizeof(float) * 3u * frame->width * frame->height)))
        s = sr_fail(&err, SR_ERR_RUNTIME, "out of host memory for a %ux%u image", frame->width, frame->height);
    if (s) {
        code = sr_render_failed(err.msg, s);
        goto done;
    }
    const sr_backend first_be = *sr_farm_backend(fm, 0);   /* its kind and name outlive the farm */
    const sr_backend *be = &first_be;
    if (!c.quiet) {
        if (nw == 1) {
            char line[512];
            sr_backend_describe(be, sr_farm_why(fm, 0), line, sizeof line);
            fprintf(stderr, "stencilray: %s\n", line);
        }
        for (uint32_t i = 0; nw > 1 && i < nw; i++)
            fprintf(stderr, "stencilray: worker %u: %s backend on %s\n", i,
                    sr_farm_backend(fm, i)->kind == SR_BACKEND_CUDA ? "GPU" : "CPU", sr_farm_backend(fm, i)->device_name);
        if (ranks > 1) fprintf(stderr, "stencilray: %d MPI ranks, each with its own workers\n", ranks);
    }
    sr_farm_stats fs;
    sr_render_stats st;
    memset(&st, 0, sizeof st);

    if (frames_text) {
        /* Whole frames to each rank while there are enough of them, else every frame's passes
         * shared by all ranks. */
        const int whole = ranks == 1 || todo.count >= (uint32_t)ranks;
        if (rank == 0 && !c.quiet && todo.skipped)
            fprintf(stderr, "stencilray: %u of the frames %u-%u are written already; rendering the other %u\n",
                    todo.skipped, first, last, todo.count);
        if (rank == 0 && (s = sr_cli_write_text(settings_path, settings, strlen(settings), &err))) {
            code = sr_render_failed(err.msg, s);
            goto done;
        }
        const double t0 = sr_now();
        uint32_t mine = 0;
        float *img = rgb ? rgb : (float *)malloc(sizeof(float) * 3u * frame->width * frame->height);
        if (!img) { code = sr_render_failed("out of host memory for an image", SR_ERR_RUNTIME); goto done; }
        for (uint32_t j = 0; j < todo.count; j++) {
            if (whole && j % (uint32_t)ranks != (uint32_t)rank) continue;
            sr_frame f = *frame, at_frame;
            sr_frame_desc at = c.ask;
            at.path_frame = todo.n[j] + 1u;
            s = sr_frame_build(&scene, &at, &names, &at_frame, &err);   /* checked above: cannot fail */
            f.camera = at_frame.camera;
            sr_film_sum_clear(&sum);
            const sr_drive how = { whole, 0, NULL, NULL };
            sr_drive_result res;
            s = sr_drive_frame(fm, &f, &how, &sum, &fs, &res, &err);
            sr_frame_pattern_name(out, todo.n[j], name, sizeof name);
            if (!s && (whole || rank == 0)) {
                sr_film_sum_mean(&sum, img);
                s = sr_image_write_as(name, img, f.width, f.height, &io, sr_stop_requested, &err);
            }
            if (s == SR_INTERRUPTED) {
                if (ranks > 1) { code = sr_render_interrupted_job(); break; }
                const int sig = sr_stop_requested() ? sr_stop_requested() : SIGINT;
                if (sr_stop_can_report())
                    fprintf(stderr, "stencilray render: interrupted (%s) at frame %u; %u frames written; the same "
                            "command resumes at the first missing frame\n", sig == SIGTERM ? "SIGTERM" : "SIGINT",
                            todo.n[j], mine);
                code = 128 + sig;
                break;
            }
            if (s) {
                char m[2 * PATH_MAX + 1200];
                snprintf(m, sizeof m, "frame %u (%s): %s", todo.n[j], name, err.msg);
                if (img != rgb) free(img);
                img = NULL;
                code = sr_render_failed(m, s);
                break;
            }
            mine++;
            if ((whole || rank == 0) && !user_quiet) {
                char by[32] = "";
                if (ranks > 1 && whole) snprintf(by, sizeof by, ", rank %d", rank);
                fprintf(stderr, "stencilray: frame %u -> %s (%.3f s%s)\n", todo.n[j], name, fs.seconds, by);
            }
        }
        if (img && img != rgb) free(img);
        if (!code) {
            sr_ranks_barrier();   /* every rank's frames are written */
            if (rank == 0 && !user_quiet)
                printf("%s %s | %ux%u, %u spp, depth %u | %u frames (%u-%u, %u already written) in %.3f s -> %s\n",
                       sr_backend_kind_name(be->kind), be->device_name, frame->width, frame->height, frame->spp,
                       frame->depth, todo.count, first, last, todo.skipped, sr_now() - t0, out);
        }
        goto done;
    }

    const double t_render = sr_now();
    const sr_drive how = { ranks == 1, 1, NULL, NULL };
    sr_drive_result res;
    s = sr_drive_frame(fm, frame, &how, &sum, &fs, &res, &err);
    if (s == SR_INTERRUPTED && ranks > 1) {
        code = sr_render_interrupted_job();
        goto done;
    }
    if (s == SR_INTERRUPTED) {
        sr_render_stats_of(&fs, sum.samples, &st);
        st.samples = (uint32_t)sum.samples;
        st.partial_samples = (uint32_t)sum.samples;
        sr_film_sum_mean(&sum, rgb);
        code = sr_render_interrupted(out, rgb, &c, &io, &st);
        goto done;
    }
    const double reduce_s = res.reduce_s, reduce_wait_s = res.wait_s;
    if (s) {
        code = sr_render_failed(err.msg, s);
        goto done;
    }
    sr_render_stats_of(&fs, sum.samples, &st);
    st.seconds = sr_now() - t_render;   /* under MPI: until every rank's film has reached rank 0 */
    const double first_frame_s = sr_now() - sr_cli_t0;
    if (rank == 0) {
        sr_film_sum_mean(&sum, rgb);
        char way[64] = "";
        const char *wname = sr_wave_way_name(sr_farm_renderer(fm, 0), &frame->render);
        snprintf(way, sizeof way, "%s", wname ? wname : "");
        /* The workers' pools and films and the sum go before the encoding needs its memory. */
        sr_farm_close(fm);
        fm = NULL;
        sr_ranks_film_sum_free(&sum);
        s = sr_image_write_as(out, rgb, frame->width, frame->height, &io, sr_stop_requested, &err);
        if (s == SR_INTERRUPTED) {
            st.partial_samples = 0;
            code = sr_render_interrupted(out, NULL, &c, &io, &st);
        } else if (s) {
            fprintf(stderr, "stencilray render: %s\n", err.msg);
            code = (int)s;
        } else {
            const int chose = way[0] != '\0';
            char mask[96];
            if (chose) snprintf(mask, sizeof mask, "wave (%s)", way);
            else snprintf(mask, sizeof mask, "%s", sr_mask_name(c.frame.render.mask));
            const sr_render_summary sum_line = { be, &c, &st, &fs, ranks, chose ? way : NULL, out, t_setup,
                                                  c.read_s, build_s, upload_s, first_frame_s, reduce_s, reduce_wait_s };
            char where[320];
            if (nw == 1 && ranks == 1) snprintf(where, sizeof where, "%s", be->device_name);
            else if (ranks == 1) snprintf(where, sizeof where, "%s and %u more workers", be->device_name, nw - 1);
            else snprintf(where, sizeof where, "%s (%u workers) on each of %d ranks", be->device_name, nw, ranks);
            /* With --stats -, standard output is the JSON's: the line goes to stderr. */
            FILE *line = stats && !strcmp(stats, "-") ? stderr : stdout;
            if (!c.quiet)
                fprintf(line, "%s %s | %ux%u, %u spp, depth %u, mask %s | %.3f s (+%.3f s setup: read %.3f, "
                        "BVH %.3f, upload %.3f) | %.2f M rays, %.1f Mrays/s -> %s\n", sr_backend_kind_name(be->kind),
                        where, frame->width, frame->height, frame->spp, frame->depth, mask, st.seconds, t_setup,
                        c.read_s, build_s, upload_s, (double)st.rays / 1e6, sr_mrays_per_s(&st), out);
            if (!c.quiet && st.dropped)   /* the split's rays beyond the pool's room: the image misses them */
                fprintf(line, "%" PRIu64 " spawned rays dropped: the pool had no room for them (Whitted glass's "
                        "split, docs/design.md)\n", st.dropped);
            if (!c.quiet && nw > 1)
                for (uint32_t i = 0; i < nw; i++)
                    fprintf(stderr, "stencilray: worker %u (%s): %u passes, %llu samples, busy %.3f s\n", i,
                            fs.w[i].device_name, fs.w[i].passes, (unsigned long long)fs.w[i].samples, fs.w[i].busy_s);
            if (line == stdout && !c.quiet) sr_summary_of = out;   /* losing that line is no error */
            if (stats && (s = sr_write_render_stats(stats, &sum_line, &err)) == SR_INTERRUPTED) {
                const int sig = sr_stop_requested() ? sr_stop_requested() : SIGINT;
                code = 128 + sig;   /* a stop while --stats - waited for a reader */
                if (sr_stop_can_report())
                    fprintf(stderr, "stencilray render: interrupted (%s) while writing --stats to standard output; the "
                            "image was written to %s\n", sig == SIGTERM ? "SIGTERM" : "SIGINT", out);
            } else if (s) {
                fprintf(stderr, "stencilray render: --stats: %s (the image was written to %s)\n", err.msg, out);
                code = (int)s;
            }
        }
    }
done:
    sr_farm_close(fm);
    sr_ranks_film_sum_free(&sum);
    free(rgb);
    free(todo.n);
    sr_scene_free(&scene);
    return code;
}

/* render: every process of an MPI job (mpirun) or the only one (src/farm/ranks.h). */
static int sr_cmd_render(int argc, char **argv)
{
    sr_error err = { SR_OK, "" };
    if (sr_ranks_init(&argc, &argv, &err)) {
        if (sr_ranks_rank() == 0) fprintf(stderr, "stencilray render: %s\n", err.msg);
        return (int)err.status;
    }
    sr_ranks_hold_stderr();   /* a bad option or scene, found by every rank, is said once */
    sr_render_agreed = 0;
    int code = sr_render_main(argc, argv);
    if (!sr_render_agreed) code = sr_ranks_agree(code);
    sr_ranks_finalize();
    return code;
}

/* ---- info ----------------------------------------------------------------------------- */

static int sr_cmd_info(int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs("Usage: stencilray info\n\nPrint the build, the CUDA devices found (or why none was), and the\nlibraries this stencilray uses.\n"
                  SR_HELP_FOOTER, stdout);
            return 0;
        }
        fprintf(stderr, "stencilray info: unknown argument '%s'\n", argv[i]);
        return 2;
    }
    sr_build_info bi;
    sr_get_build_info(&bi);
    printf("stencilray %s\n", bi.version);
    printf("build:\n  C compiler %s, %s\n", bi.compiler,
           bi.cuda_built ? "CUDA backend built in" : "CUDA backend not built (no nvcc at configure time)");
    printf("  CPU backend: OpenMP, %d threads\n", bi.cpu_threads);
    /* scenes, shaders and assets: installed beside the binary or the source tree */
    printf("  data: %s%s\n", bi.data_dir[0] ? bi.data_dir : "not found; looked in ", bi.data_looked_in);
    printf("CUDA:\n%s", bi.cuda_devices);
    if (bi.kernel_loading[0]) printf("  %s\n", bi.kernel_loading);
    printf("libraries:\n  cJSON %s\n  assimp %s\n  stb_image_write (libstb)\n  OpenEXR %s\n", bi.cjson, bi.assimp,
           bi.openexr);
    return 0;
}

/* ---- dispatch ------------------------------------------------------------------------- */

static const char sr_main_help[] =
"stencilray: a stencil-masked wavefront ray tracer for reflective scenes (CUDA and CPU)\n"
"\n"
"Usage: stencilray COMMAND [options]\n"
"\n"
"Commands:\n"
"  render [SCENE]   render one frame to PNG, HDR or EXR    (stencilray render --help)\n"
"  view [SCENE]     interactive viewer (GLFW window)       (stencilray view --help)\n"
"  bench [SCENE]    FPS per trace depth and masking strategy (stencilray bench --help)\n"
"  info             the build, CUDA devices and libraries found\n"
"  version          the version (also --version)\n"
"\n"
"Start with:  stencilray render " SR_DEFAULT_SCENE " -o default.png\n"
SR_HELP_FOOTER;

static int sr_cli_dispatch(int argc, char **argv);


/* "--spp=8" is "--spp 8", as GNU tools take it: split before any command parses, up to "--"
 * (after it every argument is an operand, "--x=y" too). The option names are copies (in
 * names[], freed after); the values point into argv. */
typedef struct sr_split_args { char **argv, **names; int argc, nnames; } sr_split_args;

static int sr_split_equals(int argc, char **argv, sr_split_args *out)
{
    out->argv = calloc((size_t)argc * 2 + 1, sizeof *out->argv);
    out->names = calloc((size_t)argc + 1, sizeof *out->names);
    out->argc = out->nnames = 0;
    if (!out->argv || !out->names) return -1;
    int operands = 0;
    for (int i = 0; i < argc; i++) {
        operands |= i >= 2 && !strcmp(argv[i], "--");
        const char *eq = i >= 2 && !operands && !strncmp(argv[i], "--", 2) ? strchr(argv[i], '=') : NULL;
        if (!eq || eq == argv[i] + 2) { out->argv[out->argc++] = argv[i]; continue; }
        char *name = strndup(argv[i], (size_t)(eq - argv[i]));
        if (!name) return -1;
        out->names[out->nnames++] = name;
        out->argv[out->argc++] = name;
        out->argv[out->argc++] = (char *)(eq + 1);
    }
    return 0;
}

static void sr_split_free(sr_split_args *s)
{
    for (int i = 0; s->names && i < s->nnames; i++) free(s->names[i]);
    free(s->names);
    free(s->argv);
}

int sr_cli_main(int argc, char **argv)
{
    sr_cli_t0 = sr_now();
    signal(SIGPIPE, SIG_IGN);
    sr_split_args split;
    const int ok = sr_split_equals(argc, argv, &split) == 0;
    int code = ok ? sr_cli_dispatch(split.argc, split.argv) : sr_cli_dispatch(argc, argv);
    sr_split_free(&split);
    /* The exit status tells the truth about standard output too (SIGPIPE is ignored, so a
     * closed pipe is an EPIPE here instead of a kill after the image was written). One rule:
     * output that was asked for and lost (a table, the help, --stats -) is exit 1; the
     * summary line render prints after its image is written was not asked for, so losing it
     * (a full disk, a closed pipe) is one warning on stderr and the exit status stays 0.
     * A failure reported already (textout.c clears the flag) is not reported again. */
    errno = 0;
    const int failed = fflush(stdout) != 0;
    const int e = failed ? errno : 0;   /* 0: an earlier write failed, its errno is gone */
    const int lost = failed || ferror(stdout);
    const int sig = sr_stop_requested();
    if (lost && sig && (e == EINTR || e == 0)) {
        /* Ctrl-C or SIGTERM while the write waited for a reader: stop, and say so if stderr
         * can take it without waiting too. (EINTR without a stop cannot happen: the stop
         * handlers are the only ones installed, and stdio has dropped the buffer anyway.) */
        if (sr_stop_can_report())
            fprintf(stderr, "stencilray: interrupted (%s) while writing to standard output\n",
                    sig == SIGTERM ? "SIGTERM" : "SIGINT");
        return code > 128 ? code : 128 + sig;
    }
    if (lost) {
        char why[128] = "";
        if (e) snprintf(why, sizeof why, ": %s", strerror(e));
        if (code == 0 && sr_summary_of) {
            fprintf(stderr, "stencilray render: could not write the summary line to standard output%s; the image "
                    "was written to %s\n", why, sr_summary_of);
        } else {
            fprintf(stderr, "stencilray: could not write to standard output%s\n", why);
            if (code == 0) code = 1;
        }
    }
    return code;
}

static int sr_cli_dispatch(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        fputs(sr_main_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) { printf("stencilray %s\n", SR_VERSION); return 0; }
    if (!strcmp(argv[1], "render")) return sr_cmd_render(argc, argv);
    if (!strcmp(argv[1], "info")) return sr_cmd_info(argc, argv);
    if (!strcmp(argv[1], "bench")) return sr_bench_main(argc, argv);
#ifdef SR_HAVE_VIEWER
    if (!strcmp(argv[1], "view")) return sr_view_main(argc, argv);
#else
    if (!strcmp(argv[1], "view")) {
        fprintf(stderr, "stencilray view: this build has no viewer (GLFW/GLEW were not found at configure time); "
                        "use 'stencilray render'\n");
        return 1;
    }
#endif
    static const char *const commands[] = { "render", "view", "bench", "info", "version", "help", NULL };
    const char *near = sr_name_closest(argv[1], commands);
    fprintf(stderr, "stencilray: unknown command '%s'%s%s%s\n\n%s", argv[1], near ? "; did you mean '" : "",
            near ? near : "", near ? "'?" : "", sr_main_help);
    return 2;
}
