/* bench.c: `stencilray bench`: frames per second as trace depth grows, per masking strategy.
 * Each (depth, mask) pair renders warm-up frames and then timed frames of one sample per
 * pixel; frame times come from the backend's timing marks (CUDA events on the GPU). */
#include "bench.h"
#include "bench_farm.h"
#include "bench_micro.h"
#include "bench_report.h"
#include "bench_sort.h"
#include "../backend/cuda/cudaenv.h"
#include "../backend/cpu/ompenv.h"
#include "../base/names.h"
#include "../app/options.h"
#include "../io/output/outpath.h"
#include "../io/output/textout.h"
#include "../../kernels/frames/sortkey.h"
#if SR_MEASURE
#include "wave_timeline.h"
#endif

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SR_BENCH_MAX_FRAMES 10000u

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

static sr_status sr_bench_pair(sr_renderer *r, const sr_bench_opts *b, uint32_t depth, sr_mask mask, int sort,
                               double *frame_ms, sr_bench_row *row, sr_error *err)
{
    /* This pair's frames: the benchmark's, at this depth and mask, one sample each. */
    sr_frame f = b->c.frame;
    f.depth = depth;
    f.spp = 1;
    f.render.mask = mask;
    f.render.sort = sort;
    f.render.progress = 0;
    sr_render_opts *o = &f.render;
    sr_status s;
    memset(row, 0, sizeof *row);
    row->depth = depth;
    row->mask = mask;
    row->sort = sort;
    for (uint32_t sample = 0; sample < b->warmup; sample++)
        if ((s = sr_render_sample(r, &f, sample, NULL, err))) return s;
    /* The wave mask measures its ways on its first samples at each depth (wave_way.c): those
     * belong to the warm-up, never to the timed frames (they ran the slower ways too). They
     * take samples after the timed ones, so every mask times the same samples, the same rays. */
    for (uint32_t extra = 0; sr_wave_measuring(r, &f) && extra < 64; extra++)
        if ((s = sr_render_sample(r, &f, b->warmup + b->frames + extra, NULL, err))) return s;
    const uint32_t sample = b->warmup;   /* the first timed sample, the same for every mask */
    sr_render_stats st;
    memset(&st, 0, sizeof st);
    for (uint32_t k = 0; k < b->frames; k++) {
        sr_stage_times t;
        memset(&t, 0, sizeof t);
        t.per_stage = b->breakdown;   /* a mark per stage costs host time: only when asked */
        o->times = &t;
        if ((s = sr_render_sample(r, &f, sample + k, &st, err))) return s;
        frame_ms[k] = t.total;
        for (uint32_t d = 0; d < SR_MAX_DEPTH; d++) {
            row->times.intersect[d] += t.intersect[d];
            row->times.shade[d] += t.shade[d];
            row->times.compact[d] += t.compact[d];
            row->times.sort[d] += t.sort[d];
        }
        row->times.generate += t.generate;
        row->times.megakernel += t.megakernel;
        row->times.total += t.total;
    }
    sr_bench_frame_stats(frame_ms, b->frames, row);
    row->rays_per_frame = (double)st.rays / b->frames;   /* (the Whitted split's spawned rays counted) */
    row->dropped_per_frame = (double)st.dropped / b->frames;
    row->mrays_per_s = row->median_ms > 0 ? row->rays_per_frame / (row->median_ms * 1e3) : 0.0;
    row->compactions = st.compactions / b->frames;
    o->times = NULL;   /* t is gone */
    row->way = sr_wave_way_name(r, o);
    row->wave_dense = sr_wave_dense_used(r, o);
    const double pool = (double)f.width * f.height;
    row->per_bounce = sr_mask_counts_bounces(o);
    for (uint32_t k = 0; k < SR_MAX_DEPTH; k++)
        row->live_after[k] = !row->per_bounce || k + 1 >= depth ? NAN
                             : (double)st.bounce_rays[k + 1] / b->frames / pool;
    return SR_OK;
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
        else if (!strcmp(o, "--warmup")) r = sr_parse_u32(&a, o, 0, 1000, &b.warmup);
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
        if (outs[k][1] && !sr_output_path_ok(outs[k][0], outs[k][1], k < 2, inputs, msg, sizeof msg))
            return sr_usage_error(&a, "%s%s", msg, "");
        sr_output_guard_add(outs[k][0], outs[k][1]);   /* and against the meshes, as the scene loads */
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
        return sr_bench_farm(&b.c, b.depth_hi, b.warmup, b.frames);
    }
    sr_scene scene;
    sr_backend be;
    int code = sr_open(&b.c, "bench", &scene, &be);
    if (code) return code;
    /* b.c.frame: the benchmark's frame settings; each (depth, mask) pair runs them at its
     * depth and mask (sr_bench_pair), one sample per frame. */
    b.c.frame.spp = 1;

    char gpu[512];
    if (be.kind == SR_BACKEND_CUDA) sr_cuda_gpu_summary((int)b.c.ask.gpu, gpu, sizeof gpu);
    else snprintf(gpu, sizeof gpu, "%s", be.device_name);
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
             b.c.scene_path, b.c.frame.width, b.c.frame.height, b.warmup, b.frames, date, cmdline);
    printf("# %s: %s\n# %s\n", be.kind == SR_BACKEND_CUDA ? "GPU" : "CPU", gpu, header);
    const int cpu = be.kind != SR_BACKEND_CUDA;
    const char *policy = sr_omp_wait_policy(), *policy_from = sr_omp_wait_policy_source();
    const char *spincount = sr_omp_spincount();
    if (cpu)   /* what decides whether CPU timings can be trusted on a shared machine (ompenv.h) */
        printf("# OpenMP: %d threads, OMP_WAIT_POLICY=%s%s%s%s\n", omp_get_max_threads(), policy,
               !strcmp(policy_from, "stencilray") ? " (stencilray's default; set OMP_WAIT_POLICY to choose)"
               : !strcmp(policy_from, "environment") ? " (from the environment)"
                                                     : " (idle threads spin: on a busy machine timings swing)",
               spincount ? ", GOMP_SPINCOUNT=" : "", spincount ? spincount : "");
    fflush(stdout);

    sr_error err = { SR_OK, "" };
    sr_renderer r;
    sr_status s = sr_renderer_prepare(&r, &scene, &be, &b.c.frame, &err);
    /* The (mask, sort) variants: every sort with the compact mask, the other masks unsorted. */
    int var_mask[SR_MASK_COUNT * SR_SORT_ALGO_COUNT], var_sort[SR_MASK_COUNT * SR_SORT_ALGO_COUNT], vars = 0;
    for (int m = 0; m < b.mask_count; m++)
        for (int k = 0; k < (b.masks[m] == SR_MASK_COMPACT ? b.sort_count : 1); k++) {
            var_mask[vars] = b.masks[m];
            var_sort[vars++] = b.masks[m] == SR_MASK_COMPACT ? b.sorts[k] : SR_SORT_NONE;
        }
    uint32_t pairs = (b.depth_hi - b.depth_lo + 1) * (uint32_t)vars, done = 0;
    sr_bench_row *rows = calloc(pairs, sizeof *rows);
    double *frame_ms = malloc(sizeof(double) * b.frames);
    if (!s && (!rows || !frame_ms)) s = sr_fail(&err, SR_ERR_RUNTIME, "out of host memory");
    /* On a terminal one line redrawn per pair; in a log a whole line at most every 5 s. */
    const int tty = isatty(2);
    double shown_at = -1e9;
    for (uint32_t d = b.depth_lo; !s && d <= b.depth_hi; d++)
        for (int m = 0; !s && m < vars; m++) {
            if (!b.c.quiet && (tty || sr_now() - shown_at >= 5.0)) {
                fprintf(stderr, "%sbench: depth %u, mask %-10s sort %-5s (%u/%u)%s", tty ? "\r" : "", d,
                        sr_mask_name((sr_mask)var_mask[m]), sr_sort_algo_name(var_sort[m]), done + 1, pairs, tty ? " " : "\n");
                fflush(stderr);
                shown_at = sr_now();
            }
            s = sr_bench_pair(&r, &b, d, (sr_mask)var_mask[m], var_sort[m], frame_ms, &rows[done], &err);
            if (!s) done++;
        }
    if (!b.c.quiet && tty) fprintf(stderr, "\r%60s\r", "");
    if (!s) {
        sr_bench_print_table(stdout, rows, done);
        if (b.breakdown) sr_bench_print_breakdown(stdout, rows, done);
        if (b.csv && !s) s = sr_bench_write_csv(b.csv, rows, done, b.breakdown, &err);
        const sr_bench_setup setup = {
            .scene = b.c.scene_path, .backend = sr_backend_kind_name(be.kind),
            .integrator = sr_integrator_name((int)b.c.frame.integrator),
            .sort_key = sr_sort_key_name(b.c.frame.render.sort_key), .date = iso_date,
            .width = b.c.frame.width, .height = b.c.frame.height, .warmup = b.warmup, .frames = b.frames,
            .depth_lo = b.depth_lo, .depth_hi = b.depth_hi, .masks = b.masks, .mask_count = b.mask_count,
            .sorts = b.sorts, .sort_count = b.sort_count,
            .threads = cpu ? omp_get_max_threads() : 0, .wait_policy = cpu ? policy : NULL,
            .wait_policy_from = cpu ? policy_from : NULL, .spincount = cpu ? spincount : NULL,
            .cuda_loading = cpu ? NULL : sr_cuda_loading(), .cuda_loading_from = cpu ? NULL : sr_cuda_loading_source(),
            .argc = argc, .argv = argv,
        };
        if (b.json && !s) s = sr_bench_write_json(b.json, &setup, gpu, rows, done, b.breakdown, &err);
        if (b.plot && !s) {
            char title[1024];
            snprintf(title, sizeof title, "%s, %ux%u on %s", b.c.scene_path, b.c.frame.width, b.c.frame.height,
                     be.device_name);
            s = sr_bench_write_plot(b.plot, title, rows, done, &err);
        }
    }
    if (s) fprintf(stderr, "stencilray bench: %s\n", err.msg);
#if SR_MEASURE
    if (!s) sr_wave_timeline_report(&r, b.c.frame.width, b.c.frame.height);   /* $SR_WAVE_TIMELINE (wave_timeline.h) */
#endif
    if (r.be) sr_renderer_free(&r);
    free(rows);
    free(frame_ms);
    sr_backend_destroy(&be);
    sr_scene_free(&scene);
    return s ? (int)s : 0;
}
