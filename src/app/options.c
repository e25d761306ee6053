/* options.c: parsing the options render, bench and view share, and opening scene+backend. */
#include "options.h"
#include "../base/datadir.h"
#include "../base/names.h"
#include "../backend/cpu/ompenv.h"
#include "../io/meshes/mesh.h"
#include "../../kernels/frames/sortkey.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- option parsing ---------------------------------------------------------------------- */

int sr_usage_error(const sr_args *a, const char *fmt, const char *x, const char *y)
{
    fprintf(stderr, "stencilray %s: ", a->cmd);
    fprintf(stderr, fmt, x, y);
    fprintf(stderr, "\nRun 'stencilray %s --help' for the options.\n", a->cmd);
    return 2;
}

/* The options a help text lists: each word of letters and '-' that starts with '-' after a
 * space or '(' and ends the word ("-o, --output FILE" gives -o and --output; "-x.json" is a
 * file name), into words (at most cap - 1, NULL-terminated). */
static void sr_help_options(const char *help, char words[][32], const char **list, size_t cap)
{
    size_t n = 0;
    for (const char *p = help; *p && n + 1 < cap; p++) {
        if (*p != '-' || (p > help && p[-1] != ' ' && p[-1] != '(')) continue;
        const size_t len = strspn(p, "-abcdefghijklmnopqrstuvwxyz");
        if (len < 2 || len >= sizeof words[0] || p[len - 1] == '-' || !strchr(" ,)=\n", p[len])) continue;
        memcpy(words[n], p, len);
        words[n][len] = '\0';
        list[n] = words[n];
        n++;
        p += len - 1;
    }
    list[n] = NULL;
}

int sr_unknown_option(const sr_args *a, const char *opt, const char *help)
{
    char words[160][32];
    const char *list[161];
    sr_help_options(help, words, list, sizeof list / sizeof list[0]);
    const char *near = sr_name_closest(opt, list);
    char hint[64] = "";
    if (near) snprintf(hint, sizeof hint, "; did you mean %s?", near);
    return sr_usage_error(a, "unknown option '%s'%s", opt, hint);
}

/* The value after option `opt`, or NULL after printing an error. */
const char *sr_value(sr_args *a, const char *opt)
{
    if (a->i + 1 >= a->argc) {
        sr_usage_error(a, "%s needs a value%s", opt, "");
        return NULL;
    }
    return a->argv[++a->i];
}

int sr_parse_u32(sr_args *a, const char *opt, uint32_t lo, uint32_t hi, uint32_t *out)
{
    const char *v = sr_value(a, opt);
    if (!v) return 2;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (*v == '\0' || *end != '\0' || *v == '-' || errno || x < lo || x > hi) {
        char range[64];
        snprintf(range, sizeof range, "a whole number from %u to %u", lo, hi);
        fprintf(stderr, "stencilray %s: %s: expected %s, got '%s'\n", a->cmd, opt, range, v);
        return 2;
    }
    *out = (uint32_t)x;
    return 0;
}

int sr_parse_float(sr_args *a, const char *opt, float lo, float hi, float *out)
{
    const char *v = sr_value(a, opt);
    if (!v) return 2;
    char *end;
    errno = 0;
    float x = strtof(v, &end);
    if (*v == '\0' || *end != '\0' || errno || !(x >= lo && x <= hi)) {
        fprintf(stderr, "stencilray %s: %s: expected a number from %g to %g, got '%s'\n", a->cmd, opt, lo, hi, v);
        return 2;
    }
    *out = x;
    return 0;
}

/* ---- shared options ------------------------------------------------------------------------ */

void sr_common_default(sr_common *c)
{
    memset(c, 0, sizeof *c);
    c->exposure = 1.0f;
}

int sr_parse_operand(sr_args *a, sr_common *c)
{
    const char *o = a->argv[a->i];
    if (!c->operands) {
        if (!strcmp(o, "--")) { c->operands = 1; return 0; }
        if (o[0] == '-') return -1;   /* an option */
    }
    if (c->scene_path) return sr_usage_error(a, "one scene expected, got two ('%s' and '%s')", c->scene_path, o);
    c->scene_path = o;
    return 0;
}

/* Parse one option shared by render/bench/view. Returns 0 if consumed, 2 on error, -1 if the
 * option is not a common one. */
int sr_parse_common(sr_args *a, sr_common *c)
{
    const int operand = sr_parse_operand(a, c);
    if (operand >= 0) return operand;
    const char *o = a->argv[a->i];
    if (!strcmp(o, "--width")) return sr_parse_u32(a, o, 1, SR_MAX_RESOLUTION, &c->ask.width);
    if (!strcmp(o, "--height")) return sr_parse_u32(a, o, 1, SR_MAX_RESOLUTION, &c->ask.height);
    if (!strcmp(o, "--spp")) return sr_parse_u32(a, o, 1, SR_MAX_SPP, &c->ask.spp);
    if (!strcmp(o, "--depth")) return sr_parse_u32(a, o, 1, SR_MAX_DEPTH, &c->ask.depth);
    if (!strcmp(o, "--device")) {   /* a list for render (src/farm); view and bench take one device */
        const char *v = sr_value(a, o);
        if (!v) return 2;
        c->device_list = c->ask.devices = v;
        char *end;
        errno = 0;
        const unsigned long d = strtoul(v, &end, 10);
        if (v[0] >= '0' && v[0] <= '9' && !*end && !errno && d <= 64) c->ask.gpu = (uint32_t)d;
        char msg[512];
        sr_worker_spec specs[SR_FARM_MAX_WORKERS];
        uint32_t n;
        /* the list's form now; whether its devices exist once the backend opens */
        if (sr_farm_parse_devices(v, SR_BACKEND_AUTO, SR_FARM_COUNT_UNKNOWN, NULL, specs, &n, msg, sizeof msg))
            return sr_usage_error(a, "--device %s%s", msg, "");
        return 0;
    }
    if (!strcmp(o, "--threads")) {
        const int r = sr_parse_u32(a, o, 1, SR_MAX_THREADS, &c->threads);
        if (!r) sr_omp_threads_set((int)c->threads);   /* before any OpenMP work of this thread */
        return r;
    }
    if (!strcmp(o, "--seed")) {
        const int r = sr_parse_u32(a, o, 0, UINT32_MAX, &c->ask.seed);
        if (!r && !c->ask.seed) c->ask.zeros |= SR_FRAME_ZERO_SEED;
        return r;
    }
    if (!strcmp(o, "--exposure")) return sr_parse_float(a, o, 0.0f, 1e6f, &c->exposure);
    if (!strcmp(o, "--compact-below")) {
        c->compact_opt = o;
        const int r = sr_parse_float(a, o, 0.0f, 1.0f, &c->ask.compact_below);
        if (!r && c->ask.compact_below == 0.0f) c->ask.zeros |= SR_FRAME_ZERO_COMPACT_BELOW;
        return r;
    }
    if (!strcmp(o, "--wave-dense")) {
        c->wave_opt = o;
        return sr_parse_u32(a, o, 1, 32, &c->ask.wave_dense);
    }
    if (!strcmp(o, "--wave-order")) {
        c->wave_opt = o;
        const char *v = sr_value(a, o);
        if (!v) return 2;
        if (!strcmp(v, "launch")) c->ask.wave_order = SR_WAVE_ORDER_KIND_LAUNCH;
        else if (!strcmp(v, "slowest")) c->ask.wave_order = SR_WAVE_ORDER_KIND_SLOWEST;
        else return sr_usage_error(a, "--wave-order: expected launch or slowest, got '%s'%s", v, "");
        return 0;
    }
    if (!strcmp(o, "--sort")) {   /* the coherence sort */
        const char *v = sr_value(a, o);
        if (!v) return 2;
        const int algo = sr_sort_algo_parse(v);
        char choices[64];
        if (algo < 0)
            return sr_usage_error(a, "--sort: expected %s, got '%s'", sr_name_choices(sr_sort_algo_names, choices, sizeof choices), v);
        c->ask.sort = (sr_sort_kind)algo;
        return 0;
    }
    if (!strcmp(o, "--sort-key")) {
        c->sort_key_opt = o;
        const char *v = sr_value(a, o);
        if (!v) return 2;
        const int key = sr_sort_key_parse(v);
        char choices[64];
        if (key < 0)
            return sr_usage_error(a, "--sort-key: expected %s, got '%s'",
                                  sr_name_choices(sr_sort_key_names, choices, sizeof choices), v);
        c->ask.sort_key = (sr_sort_key_kind)key;
        return 0;
    }
    if (!strcmp(o, "--camera")) {
        const char *v = sr_value(a, o);
        if (!v) return 2;
        char why[256];
        sr_camera_arg arg;
        if (!sr_camera_arg_parse(v, &arg, why, sizeof why))
            return sr_usage_error(a, "--camera %s: %s", v, why);
        sr_camera_view *cam = &c->ask.camera;   /* the 6, 7 and 12 number forms (stencilray.h) */
        memset(cam, 0, sizeof *cam);
        memcpy(cam->position, arg.v, sizeof(float) * 6u);
        if (arg.count >= 7) cam->fov = arg.v[6];
        if (arg.count == 12) {
            memcpy(cam->up, arg.v + 7, sizeof cam->up);
            cam->aperture = arg.v[10];
            cam->focus_distance = arg.v[11];
        }
        c->camera_text = v;
        return 0;
    }
    if (!strcmp(o, "--camera-index")) {
        uint32_t n;
        const int r = sr_parse_u32(a, o, 0, 1u << 20, &n);
        if (!r) c->ask.gltf_camera = n + 1u;
        return r;
    }
    if (!strcmp(o, "--quiet") || !strcmp(o, "-q")) { c->quiet = 1; return 0; }
    if (!strcmp(o, "--backend")) {
        const char *v = sr_value(a, o);
        if (!v) return 2;
        if (!strcmp(v, "auto")) c->ask.device = SR_DEVICE_KIND_AUTO;
        else if (!strcmp(v, "cuda")) c->ask.device = SR_DEVICE_KIND_GPU;
        else if (!strcmp(v, "cpu")) c->ask.device = SR_DEVICE_KIND_CPU;
        else return sr_usage_error(a, "--backend: expected auto, cuda or cpu, got '%s'%s", v, "");
        return 0;
    }
    if (!strcmp(o, "--mask")) {
        const char *v = sr_value(a, o);
        if (!v) return 2;
        int m = sr_mask_parse(v);
        if (m < 0) return sr_usage_error(a, "--mask: expected flags, stencil, compact, wave or megakernel, got '%s'%s", v, "");
        c->ask.mask = sr_frame_mask_kind((sr_mask)m);
        return 0;
    }
    if (!strcmp(o, "--integrator")) {
        const char *v = sr_value(a, o);
        if (!v) return 2;
        char choices[64];
        const int integrator = sr_integrator_parse(v);
        if (integrator < 0)
            return sr_usage_error(a, "--integrator: expected %s, got '%s'",
                                  sr_name_choices(sr_integrator_names, choices, sizeof choices), v);
        c->ask.integrator = integrator == SR_INTEGRATOR_PATH ? SR_INTEGRATOR_KIND_PATH : SR_INTEGRATOR_KIND_WHITTED;
        return 0;
    }
    if (!strcmp(o, "--tonemap")) {
        const char *v = sr_value(a, o);
        if (!v) return 2;
        char choices[64];
        const int op = sr_tonemap_parse(v);
        if (op < 0)
            return sr_usage_error(a, "--tonemap: expected %s, got '%s'", sr_name_choices(sr_tonemap_names, choices, sizeof choices), v);
        c->tonemap = (sr_tonemap_kind)op;
        return 0;
    }
    return -1;
}

static int sr_runs_mask(const int *runs, int run_count, sr_mask m)
{
    for (int i = 0; i < run_count; i++)
        if (runs[i] == (int)m) return 1;
    return 0;
}

int sr_check_mask_options(const sr_args *a, const sr_common *c, const int *runs, int run_count, int sorts)
{
    const bool wave = sr_runs_mask(runs, run_count, SR_MASK_WAVE), compact = sr_runs_mask(runs, run_count, SR_MASK_COMPACT);
    const char *opt = NULL, *applies = NULL;
    if (c->wave_opt && !wave) {
        opt = c->wave_opt;
        applies = "applies to --mask wave only";
    } else if (c->compact_opt && !compact && !wave) {
        opt = c->compact_opt;
        applies = "applies to --mask compact (and to wave, which may choose compaction) only";
    } else if (sorts && !compact) {
        opt = "--sort";
        applies = "applies to --mask compact only";
    } else if (c->sort_key_opt && !sorts) {
        return sr_usage_error(a, "%s chooses the key of a coherence sort, and no sort is asked for (--sort merge or "
                              "radix); it would change nothing here, so leave %s out", c->sort_key_opt, c->sort_key_opt);
    }
    if (!opt) return 0;
    char masks[128];   /* "the mask here is X" or "--mask lists X,Y" */
    size_t used = (size_t)snprintf(masks, sizeof masks, "%s", run_count == 1 ? "the mask here is " : "--mask lists ");
    for (int i = 0; i < run_count && used < sizeof masks; i++)
        used += (size_t)snprintf(masks + used, sizeof masks - used, "%s%s", i ? "," : "", sr_mask_name((sr_mask)runs[i]));
    char msg[384];
    snprintf(msg, sizeof msg, "%s %s, and %s; it would change nothing here, so leave %s out", opt, applies, masks, opt);
    return sr_usage_error(a, "%s%s", msg, "");
}

/* Whitted lights surfaces with the point, spot and directional lights and "ambient" only
 * (emitters and the sky are seen, never sampled): without them it renders dark. */
static void sr_warn_whitted_unlit(const char *cmd, const sr_scene *scene, const sr_frame *f)
{
    if (!sr_frame_whitted_unlit(scene, f)) return;
    fprintf(stderr, "stencilray %s: warning: the whitted integrator lights surfaces with point, spot and directional "
            "lights and \"ambient\" only, and %s has none: it renders dark but for what emits or the sky; "
            "try --integrator path\n", cmd, scene->path);
}

/* On a terminal, "reading mesh NAME 62 %" while a mesh loads (a whole percent at a time),
 * erased once it is read. */
typedef struct sr_read_line { int shown; int percent; } sr_read_line;

static int sr_read_progress(void *ctx, const char *path, double fraction)
{
    sr_read_line *l = (sr_read_line *)ctx;
    const int percent = (int)(fraction * 100.0);
    if (fraction >= 1.0) {
        if (l->shown) fprintf(stderr, "\r%*s\r", 79, "");
        l->shown = 0;
        l->percent = -1;
        return 0;
    }
    if (percent == l->percent) return 0;
    l->percent = percent;
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    char clean[64];
    sr_sanitize(clean, sizeof clean, name);   /* a file name is bytes: no control codes on the terminal */
    fprintf(stderr, "\rreading mesh %.48s %3d %%", clean, percent);
    fflush(stderr);
    l->shown = 1;
    return 0;
}

int sr_parse_workers(const sr_common *c, const char *cmd, sr_worker_spec *specs, uint32_t *n)
{
    sr_error err = { SR_OK, "" };
    if (!sr_frame_workers(&c->ask, "--device", specs, n, &err)) return 0;
    fprintf(stderr, "stencilray %s: %s\n", cmd, err.msg);
    return 2;
}

/* Load the scene, apply overrides, open the backend. Prints and returns an exit code. */
int sr_open(sr_common *c, const char *cmd, sr_scene *scene, sr_backend *be)
{
    sr_worker_spec specs[SR_FARM_MAX_WORKERS];
    uint32_t workers = 0;
    int code = sr_parse_workers(c, cmd, specs, &workers);   /* before the scene: a bad --device fails at once */
    if (code) return code;
    sr_backend_warm *warm = sr_backend_warm_begin(specs, workers);   /* the contexts made while the scene is read */
    code = sr_open_scene(c, cmd, scene);
    sr_backend_warm_end(warm);
    return code ? code : sr_open_backend(c, cmd, scene, be);
}

sr_field_names sr_option_names(const sr_common *c, const char *frames_text)
{
    return (sr_field_names){ "--camera", c->camera_text, "--camera-index", "", "--frames", frames_text, "--device" };
}

int sr_open_scene(sr_common *c, const char *cmd, sr_scene *scene)
{
    sr_error err = { SR_OK, "" };
    static char fallback[PATH_MAX + 32];
    if (!c->scene_path) {
        /* The default scene that came with this binary (installed beside it, or the source
         * tree it was built from), from whatever folder it runs in; then ./scenes. */
        char dir[PATH_MAX];
        if (sr_data_dir(SR_DEFAULT_SCENE, dir, sizeof dir)) {
            snprintf(fallback, sizeof fallback, "%s/%s", dir, SR_DEFAULT_SCENE);
            c->scene_path = fallback;
        } else if (access(SR_DEFAULT_SCENE, R_OK) == 0) {
            c->scene_path = SR_DEFAULT_SCENE;
        } else {
            fprintf(stderr, "stencilray %s: no scene given, and the default scene (%s) is in none of %s or ./; "
                            "give a scene file: stencilray %s SCENE.json\n", cmd, SR_DEFAULT_SCENE, dir, cmd);
            return 2;
        }
    }
    /* Nothing is written while the scene loads: a stop can end the program at once, even
     * inside cJSON's parse, which cannot poll the flag (stencilray.h; render installs it). */
    sr_stop_quick_begin("reading the scene");
    sr_read_line reading = { 0, -1 };
    const int tell = c->progress && !c->quiet && isatty(STDERR_FILENO);
    if (tell) sr_mesh_listen(sr_read_progress, &reading);
    double t = sr_now();
    const sr_status loaded = sr_scene_load(c->scene_path, scene, &err);
    c->read_s = sr_now() - t;
    if (tell) sr_mesh_listen(NULL, NULL);
    if (reading.shown) fprintf(stderr, "\r%*s\r", 79, "");
    sr_stop_quick_end();
    if (loaded) {
        if (err.status != SR_INTERRUPTED || sr_stop_can_report()) fprintf(stderr, "stencilray %s: %s\n", cmd, err.msg);
        if (err.status == SR_INTERRUPTED) return 128 + (sr_stop_requested() ? sr_stop_requested() : 2);
        return err.status;
    }
    if (scene->notices && !c->quiet) {
        const char *line = scene->notices;
        while (*line) {   /* each notice as "stencilray CMD: notice: ..." */
            const char *end = strchr(line, '\n');
            int len = end ? (int)(end - line) : (int)strlen(line);
            fprintf(stderr, "stencilray %s: %.*s\n", cmd, len, line);
            line += len + (end ? 1 : 0);
        }
    }
    /* The frame: the options' values, and the scene file's where they gave none. */
    const sr_field_names names = sr_option_names(c, NULL);
    sr_frame *f = &c->frame;
    if (sr_frame_build(scene, &c->ask, &names, f, &err)) {
        /* the warning comes once the camera is picked, before what is wrong with the rest */
        if (!c->quiet && strncmp(err.msg, names.gltf_camera, strlen(names.gltf_camera)))
            sr_warn_whitted_unlit(cmd, scene, f);
        fprintf(stderr, "stencilray %s: %s\n", cmd, err.msg);
        sr_scene_free(scene);
        return 2;
    }
    f->render.progress = c->progress;
    f->render.keep_partial = c->keep_partial;
    f->render.bounce_counts = c->bounce_counts;
    f->exposure = c->exposure;
    f->tonemap = (sr_tonemap)c->tonemap;
    if (!c->quiet) sr_warn_whitted_unlit(cmd, scene, f);
    return 0;
}

int sr_open_backend(sr_common *c, const char *cmd, sr_scene *scene, sr_backend *be)
{
    sr_worker_spec specs[SR_FARM_MAX_WORKERS];
    uint32_t workers = 0;
    int code = sr_parse_workers(c, cmd, specs, &workers);
    if (!code && workers != 1) {
        fprintf(stderr, "stencilray %s: --device %s names %u workers; %s uses one device (render spreads a frame "
                        "over several)\n", cmd, c->device_list, workers, cmd);
        code = 2;
    }
    if (code) {
        sr_scene_free(scene);
        return code;
    }
    sr_error err = { SR_OK, "" };
    char why[256];
    if (sr_backend_create(specs[0].kind, specs[0].device, be, why, sizeof why, &err)) {
        fprintf(stderr, "stencilray %s: %s\n", cmd, err.msg);
        sr_scene_free(scene);
        return err.status;
    }
    if (!c->quiet) {
        char line[512];
        sr_backend_describe(be, why, line, sizeof line);
        fprintf(stderr, "stencilray: %s\n", line);
    }
    return 0;
}

