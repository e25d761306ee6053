/* cli.c: commands, options and the messages a person reads. Options are parsed strictly:
 * a bad value names the option, says what it got and what is expected, and exits 2. */
#include "cli.h"
#include "../bench/bench.h"
#include "../backend/cuda/cudaenv.h"
#include "../viewer/viewer.h"
#include "../settings/options.h"
#include "../../kernels/frames/sortkey.h"
#include "../io/outpath.h"
#include "../backend/backend.h"
#include "../base/datadir.h"
#include "../io/image.h"
#include "../base/names.h"
#include "../base/interrupt.h"
#include "../base/mem_limits.h"
#include "../render/render.h"
#include "../scene/scene.h"
#include "../io/textout.h"

#include <assimp/version.h>
#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>


/* ---- render ---------------------------------------------------------------------------- */

static const char sr_render_help[] =
"Usage: stencilray render [SCENE.json] [-o OUT.png|OUT.hdr|OUT.exr] [options]\n"
"\n"
"Render one frame of a scene (default " SR_DEFAULT_SCENE ") and write it as an 8-bit sRGB\n"
"PNG, as linear Radiance HDR or as linear OpenEXR. The output is written to a temporary name\n"
"and renamed, so a failed render never leaves a half-written file.\n"
"\n"
"  -o, --output FILE       where to write the image (default render.png)\n"
"  --exr-type T            half (default) or float: the EXR's pixel type (.exr only)\n"
"  --save-partial          on Ctrl-C, write the samples so far to OUT.partial-<N>spp.png\n"
"                          (without it, an interrupted render writes nothing; exit 130)\n"
"  --stats FILE.json       also write the summary's numbers as JSON: backend, device, size,\n"
"                          spp, depth, mask, integrator, times, rays per bounce, Mrays/s\n"
"                          ('-': standard output; the summary line then goes to stderr)\n"
"  --                      the end of the options: what follows is the scene, even a name\n"
"                          that starts with '-' (render -- -x.json)\n"
SR_COMMON_HELP
"\n"
"Examples:\n"
"  stencilray render                                   # the default scene, GPU if present\n"
"  stencilray render scenes/cornell.json -o cornell.png --spp 64\n"
"  stencilray render scenes/mirror_hall.json --depth 4 --backend cpu -o hall.hdr\n"
"  stencilray render scenes/cornell_path.json -o cornell.exr --exr-type float\n"
SR_HELP_FOOTER;

/* Ctrl-C: say so, write the partial image when asked (OUT.partial-<N>spp.EXT, through the
 * same temp + rename), and return 128 + the signal (130 for SIGINT). */
static int sr_render_interrupted(const char *out, const float *rgb, const sr_common *c, const sr_image_opts *io,
                                 const sr_render_stats *st)
{
    const int sig = sr_interrupt_pending();
    const char *name = sig == SIGTERM ? "SIGTERM" : "SIGINT";
    const sr_frame *f = &c->frame;
    if (!f->render.keep_partial || !rgb || st->partial_samples == 0) {
        if (sr_interrupt_can_report())
            fprintf(stderr, "stencilray render: interrupted (%s) after %u of %u samples; nothing written%s\n", name,
                    st->samples, f->spp,
                    f->render.keep_partial ? " (no sample had completed)" : " (--save-partial keeps the samples so far)");
        return 128 + (sig ? sig : SIGINT);
    }
    /* sized to fit: a cut name would be another file */
    char *partial = sr_partial_path(out, st->partial_samples);
    sr_error err = { SR_OK, "" };
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

/* What a finished render did, for the summary line and --stats. */
typedef struct sr_render_summary {
    const sr_backend *be;
    const sr_common *c;
    const sr_render_stats *st;
    const char *way;    /* the way the wave mask measured fastest, or NULL */
    const char *out;
    double setup_s;
} sr_render_summary;

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
    sr_json_add_bytes(root, "scene", r->c->scene_path);   /* file names are bytes: made UTF-8 */
    sr_json_add_bytes(root, "output", r->out);
    cJSON_AddStringToObject(root, "backend", sr_backend_kind_name(r->be->kind));
    sr_json_add_bytes(root, "device", r->be->device_name);
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
    cJSON_AddNumberToObject(root, "ms_per_sample", r->st->samples ? 1e3 * r->st->seconds / r->st->samples : 0.0);
    cJSON_AddNumberToObject(root, "rays", (double)r->st->rays);
    cJSON *per = cJSON_AddArrayToObject(root, "rays_per_bounce");
    for (uint32_t b = 0; per && b < f->depth && b < SR_MAX_DEPTH; b++)
        cJSON_AddItemToArray(per, cJSON_CreateNumber((double)r->st->bounce_rays[b]));
    cJSON_AddNumberToObject(root, "mrays_per_s", sr_mrays_per_s(r->st));
    /* Whitted glass's spawned rays that found no room (kernels/integrators/whitted.h) */
    cJSON_AddNumberToObject(root, "dropped_rays", (double)r->st->dropped);
    return sr_textout_json(path, root, err);
}

/* The image's name once render has written it and standard output holds only its summary
 * line (sr_cli_main: losing that line is no error). */
static const char *sr_summary_of;

static int sr_cmd_render(int argc, char **argv)
{
    sr_args a = { argc, 2, argv, "render" };
    sr_common c;
    sr_common_default(&c);
    c.frame.render.progress = 1;
    const char *out = "render.png", *stats = NULL;
    sr_exr_type exr_type = SR_EXR_HALF;
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
        if (!strcmp(o, "--save-partial")) { c.frame.render.keep_partial = 1; continue; }
        if (!strcmp(o, "--stats")) {
            if (!(stats = sr_value(&a, o))) return 2;
            continue;
        }
        if (!strcmp(o, "--exr-type")) {
            const char *v = sr_value(&a, o);
            if (!v) return 2;
            if (!strcmp(v, "half")) exr_type = SR_EXR_HALF;
            else if (!strcmp(v, "float")) exr_type = SR_EXR_FLOAT;
            else return sr_usage_error(&a, "--exr-type %s: unknown pixel type; expected half or float%s", v, "");
            continue;
        }
        int r = sr_parse_common(&a, &c);
        if (r > 0) return r;
        if (r < 0) return sr_usage_error(&a, "unknown option '%s'%s", o, "");
    }
    const int runs[] = { (int)c.frame.render.mask };
    const int bad = sr_check_mask_options(&a, &c, runs, 1, c.frame.render.sort != SR_SORT_NONE);
    if (bad) return bad;
    if (!sr_image_format_known(out))
        return sr_usage_error(&a, "-o %s: unknown image format; expected a name ending in .png, .hdr or .exr%s", out, "");
    char msg[2 * PATH_MAX + 256];
    const char *inputs[] = { c.scene_path, NULL };
    if (!sr_output_path_ok("-o", out, 0, inputs, msg, sizeof msg)) return sr_usage_error(&a, "%s%s", msg, "");
    sr_output_guard_add("-o", out);   /* the meshes the scene reads are checked against it as it loads */
    if (stats && !sr_output_path_ok("--stats", stats, 1, inputs, msg, sizeof msg))
        return sr_usage_error(&a, "%s%s", msg, "");
    if (stats && strcmp(stats, "-") && sr_output_same(stats, out))
        return sr_usage_error(&a, "--stats %s: that is the image's name too (-o); choose another name%s", stats, "");
    if (stats && strcmp(stats, "-")) sr_output_guard_add("--stats", stats);
    if (c.frame.render.keep_partial) sr_output_guard_add_partials(out);   /* any out.partial-<N>spp name */
    if (c.quiet) c.frame.render.progress = 0;

    const sr_image_opts io = { .exposure = c.frame.exposure, .tonemap = c.frame.tonemap, .exr_type = exr_type };
    sr_scene scene;
    sr_backend be;
    sr_interrupt_install();   /* Ctrl-C from here on stops the render cleanly (interrupt.h) */
    int code = sr_open(&c, "render", &scene, &be);
    if (code) return code;
    const sr_frame *frame = &c.frame;   /* the render's settings, the scene's values where no option gave one */
    sr_error err = { SR_OK, "" };
    sr_renderer r;
    float *rgb = NULL;
    sr_render_stats st;
    memset(&st, 0, sizeof st);
    char way[64] = "";
    double t_setup = sr_now();
    /* Everything the host will allocate, checked before any of it is (render.h). */
    sr_status s = sr_check_render_memory(&scene, frame, be.kind, out, &err);
    if (s) {
        fprintf(stderr, "stencilray render: %s\n", err.msg);
        sr_backend_destroy(&be);
        sr_scene_free(&scene);
        return (int)s;
    }
    s = sr_renderer_prepare(&r, &scene, &be, frame, &err);
    t_setup = sr_now() - t_setup;
    if (!s) {
        rgb = (float *)malloc(sizeof(float) * 3u * frame->width * frame->height);
        if (!rgb) s = sr_fail(&err, SR_ERR_RUNTIME, "out of host memory for a %ux%u image", frame->width, frame->height);
        if (!s) s = sr_render_image(&r, frame, rgb, &st, &err);
        if (!s) s = sr_image_write_as(out, rgb, frame->width, frame->height, &io, sr_interrupt_pending, &err);
        const char *name = sr_wave_way_name(&r, &frame->render);
        snprintf(way, sizeof way, "%s", name ? name : "");
        sr_renderer_free(&r);
    }
    if (s == SR_INTERRUPTED) {
        code = sr_render_interrupted(out, rgb, &c, &io, &st);
    } else if (s) {
        fprintf(stderr, "stencilray render: %s\n", err.msg);
    } else {
        const int chose = way[0] != '\0';
        char mask[96];
        if (chose) snprintf(mask, sizeof mask, "wave (%s)", way);
        else snprintf(mask, sizeof mask, "%s", sr_mask_name(c.frame.render.mask));
        const sr_render_summary sum = { &be, &c, &st, chose ? way : NULL, out, t_setup };
        /* With --stats -, standard output is the JSON's: the line goes to stderr. */
        FILE *line = stats && !strcmp(stats, "-") ? stderr : stdout;
        if (!c.quiet)
            fprintf(line, "%s %s | %ux%u, %u spp, depth %u, mask %s | %.3f s (+%.3f s setup) | %.2f M rays, "
                    "%.1f Mrays/s -> %s\n", sr_backend_kind_name(be.kind), be.device_name, frame->width,
                    frame->height, frame->spp, frame->depth, mask, st.seconds, t_setup, (double)st.rays / 1e6,
                    sr_mrays_per_s(&st), out);
        if (!c.quiet && st.dropped)   /* the split's rays beyond the pool's room: the image misses them */
            fprintf(line, "%" PRIu64 " spawned rays dropped: the pool had no room for them (Whitted glass's split, "
                    "docs/design.md)\n", st.dropped);
        if (line == stdout && !c.quiet) sr_summary_of = out;   /* losing that line is no error */
        if (stats && (s = sr_write_render_stats(stats, &sum, &err)) == SR_INTERRUPTED) {
            const int sig = sr_interrupt_pending() ? sr_interrupt_pending() : SIGINT;
            code = 128 + sig;   /* a stop while --stats - waited for a reader */
            if (sr_interrupt_can_report())
                fprintf(stderr, "stencilray render: interrupted (%s) while writing --stats to standard output; the "
                        "image was written to %s\n", sig == SIGTERM ? "SIGTERM" : "SIGINT", out);
        } else if (s) {
            fprintf(stderr, "stencilray render: --stats: %s (the image was written to %s)\n", err.msg, out);
        }
    }
    free(rgb);
    sr_backend_destroy(&be);
    sr_scene_free(&scene);
    return s == SR_INTERRUPTED ? code : s ? (int)s : 0;
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
    printf("stencilray %s\n", SR_VERSION);
    printf("build:\n  C compiler %s, %s\n", __VERSION__,
#ifdef SR_HAVE_CUDA
           "CUDA backend built in"
#else
           "CUDA backend not built (no nvcc at configure time)"
#endif
    );
    printf("  CPU backend: OpenMP, %d threads\n", omp_get_max_threads());
    char data[PATH_MAX];   /* scenes, shaders and assets: installed beside the binary or the source tree */
    const int have_data = sr_data_dir(SR_DEFAULT_SCENE, data, sizeof data);
    printf("  data: %s%s\n", have_data ? data : "not found; looked in ", have_data ? "" : data);
    char buf[4096];
    sr_cuda_describe(buf, sizeof buf);
    printf("CUDA:\n%s", buf);
#ifdef SR_HAVE_CUDA
    const char *loading = sr_cuda_loading(), *loading_from = sr_cuda_loading_source();
    if (!strcmp(loading_from, "none"))
        printf("  kernels load on first launch (CUDA_MODULE_LOADING unset)\n");
    else
        printf("  kernels load %s (CUDA_MODULE_LOADING=%s, %s)\n",
               !strcasecmp(loading, "lazy") ? "on first launch" : !strcasecmp(loading, "eager") ? "when the device opens" : "as CUDA decides",
               loading, !strcmp(loading_from, "stencilray") ? "stencilray's default" : "from the environment");
#endif
    printf("libraries:\n  cJSON %s\n  assimp %u.%u.%u\n  stb_image_write (libstb)\n  OpenEXR %s\n",
           cJSON_Version(), aiGetVersionMajor(), aiGetVersionMinor(), aiGetVersionPatch(), sr_exr_version());
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
    const int sig = sr_interrupt_pending();
    if (lost && sig && (e == EINTR || e == 0)) {
        /* Ctrl-C or SIGTERM while the write waited for a reader: stop, and say so if stderr
         * can take it without waiting too. (EINTR without a stop cannot happen: the stop
         * handlers are the only ones installed, and stdio has dropped the buffer anyway.) */
        if (sr_interrupt_can_report())
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
    fprintf(stderr, "stencilray: unknown command '%s'\n\n%s", argv[1], sr_main_help);
    return 2;
}
