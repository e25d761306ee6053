/* cmd_bench.c: `stencilray bench`: its options, and the library's benchmark (sr_bench_run's
 * sweep) shown as a table, CSV, JSON and a chart (bench_print.c). */
#include "cmd_bench.h"
#include "bench_print.h"
#include "options.h"
#include "../bench/bench.h"
#include "../base/names.h"
#include "../../kernels/frames/sortkey.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct sr_bench_opts {
    sr_common c;
    uint32_t depth_lo, depth_hi, frames, warmup;
    int masks[SR_MASK_COUNT], mask_count;
    int sorts[SR_SORT_ALGO_COUNT], sort_count;   /* swept with the compact mask only */
    int breakdown, micro, sort_micro;
    const char *csv, *json, *plot;
} sr_bench_opts;

static const char sr_bench_help[] =
"Usage: stencilray bench [SCENE.json] [options]\n"
"\n"
"Measure how rendering speed falls as the trace depth grows, for each masking strategy.\n"
"Every (depth, mask) pair renders warm-up frames, then timed frames of one sample per\n"
"pixel; times are GPU time from CUDA events (wall time on the CPU backend).\n"
"Each row: the median, min and max frame time (ms), FPS = 1000 / median, the spread (the\n"
"middle half of the frame times over the median; '!' above 10 %: too noisy to compare),\n"
"rays per frame, and the fraction of rays still live after each bounce.\n"
"\n"
"  --depth A-B             depths to sweep (default 1-8; a single N is fine too)\n"
"  --mask LIST             all (default) or a comma list of flags,stencil,compact,wave,megakernel\n"
"  --frames N              timed frames per pair (default 20)\n"
"  --warmup N              untimed frames first (default 3)\n"
"  --sort LIST             with the compact mask: none, merge, radix, a comma list of them,\n"
"                          or all (default: the render default, none); the other masks\n"
"                          run unsorted. The sort key is --sort-key's\n"
"  --breakdown             time per stage (generate, intersect, shade, compact, sort) per\n"
"                          bounce\n"
"  --micro                 no scene: synthetic 8 M-ray pools at live fractions 1..0;\n"
"                          masked slots/s for flags vs stencil, and compaction (ballot\n"
"                          partition vs CUB DeviceSelect::Flagged); GPU only\n"
"  --sort-micro            no scene: keys/s of the merge sort vs CUB's radix sort at 1 M,\n"
"                          8 M and 32 M keys (checked against each other), and reordering\n"
"                          rays by index + gather vs sorting the state itself; GPU only\n"
"  --csv FILE              also write the table as CSV ('-': standard output)\n"
"  --json FILE             also write everything as JSON ('-': standard output)\n"
"  --plot FILE             FPS-per-depth chart, one line per mask (needs gnuplot); the\n"
"                          name's ending picks the format: .png, .svg or .pdf\n"
"  -q, --quiet             no progress on stderr\n"
"  --                      the end of the options: what follows is the scene\n"
SR_HELP_SIZE SR_HELP_CAMERA SR_HELP_INTEGRATOR
"Where it runs:\n"
"  --backend B             auto (default: CUDA if a device is present, else CPU), cuda, cpu\n"
"  --device LIST           which CUDA device (see 'stencilray info'), default 0; several\n"
"                          workers (0,1, all, all,cpu, 0,0: render --help) time frames of\n"
"                          64 spp at the deepest --depth spread over them as render does:\n"
"                          each worker's passes, busy time and Mrays/s, and the total's\n"
"                          over the wall time\n"
SR_HELP_THREADS SR_HELP_TUNING SR_HELP_SORT_KEY
"\n"
"Examples:\n"
"  stencilray bench scenes/mirror_hall.json --depth 1-16 --width 1920 --height 1080\n"
"  stencilray bench --mask stencil,compact --breakdown --csv out.csv --plot fps.png\n"
"  stencilray bench scenes/mirror_hall.json --mask compact --sort all --breakdown\n"
"  stencilray bench scenes/cornell_path.json --device all --depth 8 --frames 5\n"
SR_HELP_FOOTER;

static int sr_parse_depth_range(sr_args *a, sr_bench_opts *b)
{
    const char *v = sr_value(a, "--depth");
    if (!v) return 2;
    unsigned lo = 0, hi = 0;
    char tail;
    int got = sscanf(v, "%u-%u%c", &lo, &hi, &tail);
    if (got == 1) hi = lo;
    if ((got != 1 && got != 2) || lo < 1 || hi < lo || hi > SR_MAX_DEPTH || strspn(v, "0123456789-") != strlen(v)) {
        fprintf(stderr, "stencilray bench: --depth: expected N or A-B with 1 <= A <= B <= %u, got '%s'\n", SR_MAX_DEPTH, v);
        return 2;
    }
    b->depth_lo = lo;
    b->depth_hi = hi;
    return 0;
}

static int sr_parse_mask_list(sr_args *a, sr_bench_opts *b)
{
    const char *v = sr_value(a, "--mask");
    if (!v) return 2;
    b->mask_count = 0;
    if (!strcmp(v, "all")) {
        for (int m = 0; m < SR_MASK_COUNT; m++) b->masks[b->mask_count++] = m;
        return 0;
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int m = sr_mask_parse(tok);
        if (m < 0) return sr_usage_error(a, "--mask: '%s' is not a mask; expected all or a comma list of flags, stencil, compact, wave, megakernel%s", tok, "");
        for (int k = 0; k < b->mask_count; k++)
            if (b->masks[k] == m) return sr_usage_error(a, "--mask: '%s' is listed twice%s", tok, "");
        b->masks[b->mask_count++] = m;
    }
    if (b->mask_count == 0) return sr_usage_error(a, "--mask: empty list%s%s", "", "");
    return 0;
}

static int sr_parse_sort_list(sr_args *a, sr_bench_opts *b)
{
    const char *v = sr_value(a, "--sort");
    if (!v) return 2;
    b->sort_count = 0;
    if (!strcmp(v, "all")) {
        for (int k = 0; k < SR_SORT_ALGO_COUNT; k++) b->sorts[b->sort_count++] = k;
        return 0;
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int k = sr_sort_algo_parse(tok);
        if (k < 0) return sr_usage_error(a, "--sort: '%s' is not a sort; expected all or a comma list of none, merge, radix%s", tok, "");
        for (int j = 0; j < b->sort_count; j++)
            if (b->sorts[j] == k) return sr_usage_error(a, "--sort: '%s' is listed twice%s", tok, "");
        b->sorts[b->sort_count++] = k;
    }
    if (b->sort_count == 0) return sr_usage_error(a, "--sort: empty list%s%s", "", "");
    return 0;
}

/* What the progress callback prints: the header before the first pair, then the pair
 * running (on a terminal one line redrawn; in a log a whole line at most every 5 s). */
typedef struct sr_bench_show {
    const sr_bench_opts *b;
    const char *header;   /* the "# ..." line after the device's */
    int tty;
    double shown_at;
} sr_bench_show;

static void sr_bench_print_header(const sr_bench_show *sh, const sr_bench_report *rep)
{
    const int cpu = rep->kind != SR_DEVICE_KIND_GPU;
    printf("# %s: %s\n# %s\n", cpu ? "CPU" : "GPU", rep->device_summary, sh->header);
    if (cpu)   /* what decides whether CPU timings can be trusted on a shared machine (ompenv.h) */
        printf("# OpenMP: %d threads, OMP_WAIT_POLICY=%s%s%s%s\n", rep->threads, rep->wait_policy,
               !strcmp(rep->wait_policy_from, "stencilray") ? " (stencilray's default; set OMP_WAIT_POLICY to choose)"
               : !strcmp(rep->wait_policy_from, "environment") ? " (from the environment)"
                                                               : " (idle threads spin: on a busy machine timings swing)",
               rep->spincount[0] ? ", GOMP_SPINCOUNT=" : "", rep->spincount);
    fflush(stdout);
}

static int sr_bench_progress(void *user, const sr_bench_report *rep)
{
    sr_bench_show *sh = user;
    if (rep->row_count == 0) sr_bench_print_header(sh, rep);
    const sr_bench_row *next = &rep->rows[rep->row_count];
    if (!sh->b->c.quiet && (sh->tty || sr_now() - sh->shown_at >= 5.0)) {
        fprintf(stderr, "%sbench: depth %u, mask %-10s sort %-5s (%u/%u)%s", sh->tty ? "\r" : "", next->depth,
                sr_mask_name(sr_frame_mask(next->mask)), sr_sort_algo_name((int)next->sort), rep->row_count + 1,
                rep->rows_total, sh->tty ? " " : "\n");
        fflush(stderr);
        sh->shown_at = sr_now();
    }
    return 0;
}

/* The benchmark's outputs from its report: the table, the breakdown, --csv, --json, --plot. */
static sr_status sr_bench_outputs(const sr_bench_opts *b, const sr_bench_report *rep, int argc, char **argv,
                                  const char *iso_date, sr_error *err)
{
    sr_bench_print_table(stdout, rep->rows, rep->row_count);
    if (b->breakdown) sr_bench_print_breakdown(stdout, rep->rows, rep->row_count);
    sr_status s = SR_OK;
    if (b->csv) s = sr_bench_write_csv(b->csv, rep->rows, rep->row_count, b->breakdown, err);
    const sr_bench_setup setup = { .scene = b->c.scene_path, .date = iso_date, .argc = argc, .argv = argv };
    if (b->json && !s) s = sr_bench_write_json(b->json, &setup, rep, err);
    if (b->plot && !s) {
        char title[1024];
        snprintf(title, sizeof title, "%s, %ux%u on %s", b->c.scene_path, rep->width, rep->height, rep->device);
        s = sr_bench_write_plot(b->plot, title, rep->rows, rep->row_count, err);
    }
    return s;
}

/* The frame benchmark on one device: the scene and backend opened as render opens them,
 * the sweep measured by the library, its report shown here. */
static int sr_bench_frames(sr_bench_opts *b, int argc, char **argv)
{
    sr_scene scene;
    sr_backend be;
    int code = sr_open(&b->c, "bench", &scene, &be);
    if (code) return code;
    char cmdline[1024] = "";
    for (int i = 0; i < argc; i++) {
        size_t used = strlen(cmdline);
        snprintf(cmdline + used, sizeof cmdline - used, "%s%s", i ? " " : "", i ? argv[i] : "stencilray");
    }
    char date[64], iso_date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    strftime(iso_date, sizeof iso_date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    char header[2048];
    snprintf(header, sizeof header, "%s | %ux%u, 1 spp per frame, %u warm-up + %u timed frames | %s | %s",
             b->c.scene_path, b->c.frame.width, b->c.frame.height, b->warmup, b->frames, date, cmdline);
    sr_bench_show show = { b, header, isatty(2), -1e9 };
    sr_mask_kind masks[SR_MASK_COUNT];
    sr_sort_kind sorts[SR_SORT_ALGO_COUNT];
    for (int k = 0; k < b->mask_count; k++) masks[k] = sr_frame_mask_kind((sr_mask)b->masks[k]);
    for (int k = 0; k < b->sort_count; k++) sorts[k] = (sr_sort_kind)b->sorts[k];
    const sr_bench_desc desc = {
        .depth_first = b->depth_lo, .depth_last = b->depth_hi, .frames = b->frames, .warmup = b->warmup,
        .zeros = SR_BENCH_ZERO_WARMUP, .masks = masks, .mask_count = (uint32_t)b->mask_count, .sorts = sorts,
        .sort_count = (uint32_t)b->sort_count, .breakdown = b->breakdown, .progress = sr_bench_progress,
        .progress_user = &show,
    };
    b->c.frame.spp = 1;
    sr_error err = { SR_OK, "" };
    sr_renderer r;
    sr_bench_report *rep = NULL;
    sr_status s = sr_renderer_prepare(&r, &scene, &be, &b->c.frame, &err);
    if (!s) s = sr_bench_sweep(&r, &be, (int)b->c.ask.gpu, &b->c.frame, &desc, &rep, &err);
    if (!b->c.quiet && show.tty) fprintf(stderr, "\r%60s\r", "");
    if (!s) s = sr_bench_outputs(b, rep, argc, argv, iso_date, &err);
    if (s) fprintf(stderr, "stencilray bench: %s\n", err.msg);
#if SR_MEASURE
    if (!s) sr_wave_timeline_report(&r, b->c.frame.width, b->c.frame.height);   /* $SR_WAVE_TIMELINE (wave_timeline.h) */
#endif
    if (r.be) sr_renderer_free(&r);
    sr_bench_report_free(rep);
    sr_backend_destroy(&be);
    sr_scene_free(&scene);
    return s ? (int)s : 0;
}

/* Before each frame of the workers' benchmark: which one runs. */
static int sr_bench_workers_progress(void *user, const sr_bench_report *rep)
{
    const sr_bench_opts *b = user;
    if (!b->c.quiet)
        fprintf(stderr, "\rbench: frame %u/%u%s", rep->row_count + 1, rep->rows_total,
                rep->row_count < rep->warmup ? " (warm-up)" : "   ");
    return 0;
}

static void sr_bench_print_workers(const sr_bench_opts *b, const sr_bench_report *rep)
{
    printf("# bench --device %s: %s | %ux%u, depth %u, %s, mask %s | %u spp per frame (%u passes), %u warm-up + "
           "%u timed frames\n", b->c.device_list, b->c.scene_path, rep->width, rep->height, rep->depth_last,
           sr_integrator_name(rep->integrator == SR_INTEGRATOR_KIND_PATH ? SR_INTEGRATOR_PATH : SR_INTEGRATOR_WHITTED),
           sr_mask_name(sr_frame_mask(rep->workers_mask)), rep->workers_spp, rep->workers_passes, rep->warmup,
           rep->frames);
    printf("%-8s %-40s %8s %8s %10s %10s %9s\n", "worker", "device", "passes", "samples", "busy_s", "Mrays/s", "share");
    for (uint32_t i = 0; i < rep->workers; i++) {
        const sr_worker_stats *w = &rep->worker[i];
        printf("%-8u %-40.40s %8u %8llu %10.3f %10.1f %8.1f%%\n", i, w->device, w->passes,
               (unsigned long long)w->samples, w->busy_s, w->busy_s > 0 ? (double)w->rays / w->busy_s / 1e6 : 0.0,
               rep->workers_samples ? 100.0 * (double)w->samples / (double)rep->workers_samples : 0.0);
    }
    printf("%-8s %-40s %8u %8llu %10.3f %10.1f %9s\n", "total", "(wall time)", rep->workers_passes * rep->frames,
           (unsigned long long)rep->workers_samples, rep->workers_s,
           rep->workers_s > 0 ? (double)rep->workers_rays / rep->workers_s / 1e6 : 0.0, "100.0%");
}

/* Several workers (--device 0,1 or all): their throughput on frames spread over them, the
 * scene opened as render opens it, the frames timed by the library. */
static int sr_bench_workers(sr_bench_opts *b)
{
    sr_worker_spec specs[SR_FARM_MAX_WORKERS];
    uint32_t n = 0;
    int code = sr_parse_workers(&b->c, "bench", specs, &n);
    if (code) return code;
    sr_scene scene;
    sr_backend_warm *warm = sr_backend_warm_begin(specs, n);   /* the contexts made while the scene is read */
    code = sr_open_scene(&b->c, "bench", &scene);
    sr_backend_warm_end(warm);
    if (code) return code;
    const sr_bench_desc desc = { .depth_first = b->depth_lo, .depth_last = b->depth_hi, .frames = b->frames,
                                 .warmup = b->warmup, .zeros = SR_BENCH_ZERO_WARMUP,
                                 .progress = sr_bench_workers_progress, .progress_user = b };
    sr_error err = { SR_OK, "" };
    sr_farm *fm = NULL;
    sr_bench_report *rep = NULL;
    sr_status s = sr_farm_open(&fm, &scene, specs, n, &b->c.frame, &err);
    if (!s) s = sr_bench_farm_sweep(fm, &b->c.frame, &desc, &rep, &err);
    if (!b->c.quiet) fprintf(stderr, "\r%40s\r", "");
    if (!s) sr_bench_print_workers(b, rep);
    else fprintf(stderr, "stencilray bench: %s\n", err.msg);
    sr_bench_report_free(rep);
    sr_farm_close(fm);
    sr_scene_free(&scene);
    return s ? (int)s : 0;
}

int sr_bench_main(int argc, char **argv)
{
    sr_args a = { argc, 2, argv, "bench" };
    sr_bench_opts b;
    memset(&b, 0, sizeof b);
    sr_common_default(&b.c);
    b.depth_lo = 1;
    b.depth_hi = 8;
    b.frames = 20;
    b.warmup = 3;
    for (int m = 0; m < SR_MASK_COUNT; m++) b.masks[b.mask_count++] = m;
    b.sorts[b.sort_count++] = (int)b.c.ask.sort;
    for (; a.i < argc; a.i++) {
        const char *o = argv[a.i];
        int r = sr_parse_operand(&a, &b.c);
        if (r > 0) return r;
        if (r == 0) continue;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) { fputs(sr_bench_help, stdout); return 0; }
        else if (!strcmp(o, "--depth")) r = sr_parse_depth_range(&a, &b);
        else if (!strcmp(o, "--mask")) r = sr_parse_mask_list(&a, &b);
        else if (!strcmp(o, "--frames")) r = sr_parse_u32(&a, o, 1, SR_BENCH_MAX_FRAMES, &b.frames);
        else if (!strcmp(o, "--warmup")) r = sr_parse_u32(&a, o, 0, SR_BENCH_MAX_WARMUP, &b.warmup);
        else if (!strcmp(o, "--breakdown")) { b.breakdown = 1; r = 0; }
        else if (!strcmp(o, "--micro")) { b.micro = 1; r = 0; }
        else if (!strcmp(o, "--sort-micro")) { b.sort_micro = 1; r = 0; }
        else if (!strcmp(o, "--sort")) r = sr_parse_sort_list(&a, &b);
        else if (!strcmp(o, "--spp") || !strcmp(o, "--exposure") || !strcmp(o, "--tonemap"))
            r = sr_usage_error(&a, "%s does not apply to bench: a frame is one sample per pixel and no image is "
                               "written%s", o, "");
        else if (!strcmp(o, "--csv")) r = (b.csv = sr_value(&a, o)) ? 0 : 2;
        else if (!strcmp(o, "--json")) r = (b.json = sr_value(&a, o)) ? 0 : 2;
        else if (!strcmp(o, "--plot")) r = (b.plot = sr_value(&a, o)) ? 0 : 2;
        else r = sr_parse_common(&a, &b.c);
        if (r > 0) return r;
        if (r < 0) return sr_unknown_option(&a, o, sr_bench_help);
    }
    int sorting = 0;   /* bench takes --sort as a list of its own */
    for (int k = 0; k < b.sort_count; k++) sorting |= b.sorts[k] != SR_SORT_NONE;
    if (!b.micro && !b.sort_micro) {
        const int bad = sr_check_mask_options(&a, &b.c, b.masks, b.mask_count, sorting);
        if (bad) return bad;
    }
    /* Every output is checked before the benchmark runs, not after. */
    const char *inputs[] = { b.c.scene_path, NULL };
    const char *const outs[][2] = { { "--csv", b.csv }, { "--json", b.json }, { "--plot", b.plot } };
    for (int k = 0; k < 3; k++) {
        char msg[2 * PATH_MAX + 256];
        if (outs[k][1] && !sr_output_check(outs[k][0], outs[k][1], k < 2, inputs, msg, sizeof msg))
            return sr_usage_error(&a, "%s%s", msg, "");
        sr_output_guard(outs[k][0], outs[k][1]);   /* and against the meshes, as the scene loads */
    }
    if (b.plot && !sr_bench_plot_terminal(b.plot))
        return sr_usage_error(&a, "--plot %s: expected a name ending in .png, .svg or .pdf (the chart's format "
                              "follows it)%s", b.plot, "");
    if (b.csv && b.json && !strcmp(b.csv, "-") && !strcmp(b.json, "-"))
        return sr_usage_error(&a, "--csv - and --json -: only one of them can go to standard output%s%s", "", "");
    if (b.micro) {
        sr_micro_opts mo;
        memset(&mo, 0, sizeof mo);
        mo.device = (int)b.c.ask.gpu;
        mo.rays = 8u * 1024u * 1024u;
        mo.reps = b.frames;
        mo.quiet = b.c.quiet;
        mo.csv = b.csv;
        mo.json = b.json;
        sr_error err = { SR_OK, "" };
        sr_status s = sr_bench_micro(&mo, stdout, &err);
        if (s) fprintf(stderr, "stencilray bench --micro: %s\n", err.msg);
        return (int)s;
    }

    if (b.sort_micro) {
        sr_sort_micro_opts so;
        memset(&so, 0, sizeof so);
        so.device = (int)b.c.ask.gpu;
        so.reps = b.frames;
        so.quiet = b.c.quiet;
        so.csv = b.csv;
        so.json = b.json;
        sr_error err = { SR_OK, "" };
        sr_status s = sr_bench_sort_micro(&so, stdout, &err);
        if (s) fprintf(stderr, "stencilray bench --sort-micro: %s\n", err.msg);
        return (int)s;
    }

    /* Several workers (--device 0,1 or all): their throughput on frames spread over them. */
    if (b.c.device_list && (strchr(b.c.device_list, ',') || !strcmp(b.c.device_list, "all"))) {
        if (b.csv || b.json || b.plot || b.breakdown)
            return sr_usage_error(&a, "--device %s: several workers print one table; --csv, --json, --plot and "
                                  "--breakdown are for one device%s", b.c.device_list, "");
        return sr_bench_workers(&b);
    }
    return sr_bench_frames(&b, argc, argv);
}
