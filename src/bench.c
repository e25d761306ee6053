/* bench.c: `stencilray bench`: frames per second as trace depth grows, per masking strategy.
 * Each (depth, mask) pair renders warm-up frames and then timed frames of one sample per
 * pixel; frame times come from the backend's timing marks (CUDA events on the GPU). */
#include "bench.h"
#include "bench_micro.h"
#include "bench_sort.h"
#include "sort_cpu.h"
#include "options.h"
#include "outpath.h"
#include "textout.h"

#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SR_BENCH_MAX_FRAMES 10000u

typedef struct sr_bench_row {
    uint32_t depth;
    sr_mask mask;
    int sort;                            /* sr_sort_algo: the coherence sort (compact only)     */
    double median_ms, p99_ms, min_ms, fps, rays_per_frame, mrays_per_s;
    double live_after[SR_MAX_DEPTH];     /* live fraction after bounce b (flags/stencil/compact) */
    sr_stage_times times;                /* summed over timed frames (--breakdown)              */
    uint32_t frames, compactions;
    const char *way;                     /* wave: the way it measured fastest (render.h)         */
} sr_bench_row;

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
"  --plot FILE.png         FPS-per-depth chart, one line per mask (needs gnuplot)\n"
"  -q, --quiet             no progress on stderr\n"
SR_HELP_SIZE SR_HELP_CAMERA SR_HELP_INTEGRATOR SR_HELP_WHERE SR_HELP_TUNING SR_HELP_SORT_KEY
"\n"
"Examples:\n"
"  stencilray bench scenes/mirror_hall.json --depth 1-16 --width 1920 --height 1080\n"
"  stencilray bench --mask stencil,compact --breakdown --csv out.csv --plot fps.png\n"
"  stencilray bench scenes/mirror_hall.json --mask compact --sort all --breakdown\n";

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

/* What a row measured, for the table and the plot: the mask, and the sort if there is one. */
static const char *sr_row_label(const sr_bench_row *r, char *buf, size_t cap)
{
    if (r->sort == SR_SORT_NONE) return sr_mask_name(r->mask);
    snprintf(buf, cap, "%s+%s", sr_mask_name(r->mask), sr_sort_algo_name(r->sort));
    return buf;
}

static int sr_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The p-th percentile (0..100) of sorted values, nearest rank. */
static double sr_percentile(const double *sorted, uint32_t n, double p)
{
    uint32_t rank = (uint32_t)ceil(p / 100.0 * n);
    return sorted[rank ? rank - 1 : 0];
}

static sr_status sr_bench_pair(sr_renderer *r, const sr_bench_opts *b, uint32_t depth, sr_mask mask, int sort,
                               double *frame_ms, sr_bench_row *row, sr_error *err)
{
    sr_scene_view v = r->view;
    v.max_depth = depth;
    v.spp = 1;
    sr_status s = r->be->ops->set_view(r->be->impl, &v, err);
    if (s) return s;
    r->view = v;
    memset(row, 0, sizeof *row);
    row->depth = depth;
    row->mask = mask;
    row->sort = sort;
    sr_render_opts o = b->c.render;
    o.mask = mask;
    o.sort = sort;
    o.progress = 0;
    for (uint32_t f = 0; f < b->warmup; f++)
        if ((s = sr_render_sample(r, &o, f, NULL, err))) return s;
    sr_render_stats st;
    memset(&st, 0, sizeof st);
    for (uint32_t f = 0; f < b->frames; f++) {
        sr_stage_times t;
        memset(&t, 0, sizeof t);
        t.per_stage = b->breakdown;   /* a mark per stage costs host time: only when asked */
        o.times = &t;
        if ((s = sr_render_sample(r, &o, b->warmup + f, &st, err))) return s;
        frame_ms[f] = t.total;
        for (uint32_t k = 0; k < SR_MAX_DEPTH; k++) {
            row->times.intersect[k] += t.intersect[k];
            row->times.shade[k] += t.shade[k];
            row->times.compact[k] += t.compact[k];
            row->times.sort[k] += t.sort[k];
        }
        row->times.generate += t.generate;
        row->times.megakernel += t.megakernel;
        row->times.total += t.total;
    }
    qsort(frame_ms, b->frames, sizeof(double), sr_cmp_double);
    row->frames = b->frames;
    row->median_ms = b->frames % 2 ? frame_ms[b->frames / 2]
                                   : 0.5 * (frame_ms[b->frames / 2 - 1] + frame_ms[b->frames / 2]);
    row->p99_ms = sr_percentile(frame_ms, b->frames, 99.0);
    row->min_ms = frame_ms[0];
    row->fps = row->median_ms > 0 ? 1000.0 / row->median_ms : 0.0;
    row->rays_per_frame = (double)st.rays / b->frames;
    row->mrays_per_s = row->median_ms > 0 ? row->rays_per_frame / (row->median_ms * 1e3) : 0.0;
    row->compactions = st.compactions / b->frames;
    row->way = mask == SR_MASK_WAVE ? sr_wave_way_name(r) : NULL;
    const double pool = (double)v.width * v.height;
    for (uint32_t k = 0; k < SR_MAX_DEPTH; k++)
        row->live_after[k] = mask == SR_MASK_MEGAKERNEL || k + 1 >= depth ? NAN
                             : (double)st.bounce_rays[k + 1] / b->frames / pool;
    return SR_OK;
}

static void sr_live_list(const sr_bench_row *row, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    if (row->mask == SR_MASK_MEGAKERNEL) { snprintf(buf, cap, "(not counted per bounce)"); return; }
    for (uint32_t k = 0; k + 1 < row->depth && used + 8 < cap; k++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%.3f", k ? " " : "", row->live_after[k]);
    if (row->depth == 1) snprintf(buf, cap, "-");
}

static void sr_print_table(FILE *f, const sr_bench_row *rows, uint32_t n)
{
    fprintf(f, "%5s  %-10s  %-5s  %9s  %8s  %9s  %12s  %9s  %s\n", "depth", "mask", "sort", "median ms", "FPS",
            "p99 ms", "rays/frame", "Mrays/s", "live fraction after each bounce");
    for (uint32_t i = 0; i < n; i++) {
        char live[SR_MAX_DEPTH * 8];
        sr_live_list(&rows[i], live, sizeof live);
        fprintf(f, "%5u  %-10s  %-5s  %9.3f  %8.1f  %9.3f  %12.0f  %9.1f  %s\n", rows[i].depth,
                sr_mask_name(rows[i].mask), sr_sort_algo_name(rows[i].sort), rows[i].median_ms, rows[i].fps,
                rows[i].p99_ms, rows[i].rays_per_frame, rows[i].mrays_per_s, live);
    }
}

static void sr_print_breakdown(FILE *f, const sr_bench_row *rows, uint32_t n)
{
    fprintf(f, "\nTime per stage, ms per frame (generate, then intersect / shade / compact / sort per bounce):\n");
    for (uint32_t i = 0; i < n; i++) {
        const sr_bench_row *r = &rows[i];
        double fr = r->frames ? r->frames : 1;
        char label[64];
        fprintf(f, "depth %u, %s: total %.3f", r->depth, sr_row_label(r, label, sizeof label), r->times.total / fr);
        if (r->mask == SR_MASK_MEGAKERNEL) { fprintf(f, ", one launch\n"); continue; }
        if (r->mask == SR_MASK_WAVE) { fprintf(f, ", two launches (round 0, then the rest cooperatively)\n"); continue; }
        fprintf(f, ", generate %.3f\n", r->times.generate / fr);
        for (uint32_t k = 0; k < r->depth; k++)
            fprintf(f, "    bounce %2u: intersect %8.3f  shade %8.3f  compact %8.3f  sort %8.3f\n", k,
                    r->times.intersect[k] / fr, r->times.shade[k] / fr, r->times.compact[k] / fr, r->times.sort[k] / fr);
    }
}

static sr_status sr_write_csv(const char *path, const sr_bench_row *rows, uint32_t n, int breakdown, sr_error *err)
{
    sr_textout out;
    sr_status s = sr_textout_open(&out, path, err);
    if (s) return s;
    FILE *f = out.f;
    fprintf(f, "depth,mask,sort,median_ms,fps,p99_ms,min_ms,rays_per_frame,mrays_per_s,live_after");
    if (breakdown) fprintf(f, ",generate_ms,intersect_ms,shade_ms,compact_ms,sort_ms");
    fprintf(f, "\n");
    for (uint32_t i = 0; i < n; i++) {
        const sr_bench_row *r = &rows[i];
        char live[SR_MAX_DEPTH * 8];
        sr_live_list(r, live, sizeof live);
        if (r->mask == SR_MASK_MEGAKERNEL || r->depth == 1) live[0] = '\0';
        fprintf(f, "%u,%s,%s,%.4f,%.2f,%.4f,%.4f,%.0f,%.2f,%s", r->depth, sr_mask_name(r->mask),
                sr_sort_algo_name(r->sort), r->median_ms, r->fps, r->p99_ms, r->min_ms, r->rays_per_frame,
                r->mrays_per_s, live);
        if (breakdown) {
            double fr = r->frames ? r->frames : 1, is = 0, sh = 0, co = 0, so = 0;
            for (uint32_t k = 0; k < SR_MAX_DEPTH; k++) {
                is += r->times.intersect[k]; sh += r->times.shade[k]; co += r->times.compact[k]; so += r->times.sort[k];
            }
            fprintf(f, ",%.4f,%.4f,%.4f,%.4f,%.4f", r->times.generate / fr, is / fr, sh / fr, co / fr, so / fr);
        }
        fprintf(f, "\n");
    }
    return sr_textout_commit(&out, err);
}

static sr_status sr_write_json(const char *path, const char *header, const char *gpu, const sr_bench_row *rows,
                               uint32_t n, int breakdown, sr_error *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "stencilray", SR_VERSION);
    cJSON_AddStringToObject(root, "device", gpu);
    cJSON_AddStringToObject(root, "setup", header);
    cJSON *arr = cJSON_AddArrayToObject(root, "results");
    for (uint32_t i = 0; i < n; i++) {
        const sr_bench_row *r = &rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "depth", r->depth);
        cJSON_AddStringToObject(o, "mask", sr_mask_name(r->mask));
        cJSON_AddStringToObject(o, "sort", sr_sort_algo_name(r->sort));
        cJSON_AddNumberToObject(o, "frames", r->frames);
        cJSON_AddNumberToObject(o, "median_ms", r->median_ms);
        cJSON_AddNumberToObject(o, "fps", r->fps);
        cJSON_AddNumberToObject(o, "p99_ms", r->p99_ms);
        cJSON_AddNumberToObject(o, "min_ms", r->min_ms);
        cJSON_AddNumberToObject(o, "rays_per_frame", r->rays_per_frame);
        cJSON_AddNumberToObject(o, "mrays_per_s", r->mrays_per_s);
        if (r->way) cJSON_AddStringToObject(o, "wave_way", r->way);
        cJSON *live = cJSON_AddArrayToObject(o, "live_after_bounce");
        if (r->mask != SR_MASK_MEGAKERNEL)
            for (uint32_t k = 0; k + 1 < r->depth; k++) cJSON_AddItemToArray(live, cJSON_CreateNumber(r->live_after[k]));
        if (breakdown) {
            double fr = r->frames ? r->frames : 1;
            cJSON *bd = cJSON_AddObjectToObject(o, "breakdown_ms");
            if (r->mask == SR_MASK_MEGAKERNEL || r->mask == SR_MASK_WAVE) {   /* one frame, not stages */
                cJSON_AddNumberToObject(bd, sr_mask_name(r->mask), r->times.total / fr);
                cJSON_AddItemToArray(arr, o);
                continue;
            }
            cJSON_AddNumberToObject(bd, "generate", r->times.generate / fr);
            cJSON *is = cJSON_AddArrayToObject(bd, "intersect"), *sh = cJSON_AddArrayToObject(bd, "shade"),
                  *co = cJSON_AddArrayToObject(bd, "compact"), *so = cJSON_AddArrayToObject(bd, "sort");
            for (uint32_t k = 0; k < r->depth; k++) {
                cJSON_AddItemToArray(is, cJSON_CreateNumber(r->times.intersect[k] / fr));
                cJSON_AddItemToArray(sh, cJSON_CreateNumber(r->times.shade[k] / fr));
                cJSON_AddItemToArray(co, cJSON_CreateNumber(r->times.compact[k] / fr));
                cJSON_AddItemToArray(so, cJSON_CreateNumber(r->times.sort[k] / fr));
            }
        }
        cJSON_AddItemToArray(arr, o);
    }
    return sr_textout_json(path, root, err);
}

/* The chart's gnuplot script. It is constant: the output, the title (it holds the scene's
 * file name) and the data file come in as ARG1..ARG3 (gnuplot -c), string values that the
 * script never parses, so no quote, newline or system() in a name can run as gnuplot code. */
static const char sr_plot_script[] =
    "set terminal pngcairo size 960,600 font 'sans,11'\n"
    "set output ARG1\n"
    "set title ARG2 noenhanced\n"
    "set xlabel 'trace depth'\nset ylabel 'frames per second'\n"
    "set grid\nset key outside right\nset xtics 1\nset yrange [0:*]\n";

/* Run gnuplot -c SCRIPT ARGS... without a shell; its messages go to stderr. */
static int sr_run_gnuplot(char *const argv[])
{
    pid_t pid;
    extern char **environ;
    if (posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ) != 0) return -1;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static sr_status sr_write_plot(const char *path, const char *title, const sr_bench_row *rows, uint32_t n,
                               sr_error *err)
{
    char data[4096], tmp[4096], script[] = "/tmp/stencilray-plot-XXXXXX";
    snprintf(data, sizeof data, "%s.data-%ld", path, (long)getpid());
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld.png", path, (long)getpid());
    FILE *d = fopen(data, "w");
    if (!d) return sr_fail(err, SR_ERR_RUNTIME, "cannot create %s", data);
    /* One line per (mask, sort): the rows of the first depth list them in order. */
    uint32_t lines = 0;
    while (lines < n && rows[lines].depth == rows[0].depth) lines++;
    for (uint32_t m = 0; m < lines; m++) {
        char label[64];
        fprintf(d, "# %s\n", sr_row_label(&rows[m], label, sizeof label));
        for (uint32_t i = m; i < n; i += lines) fprintf(d, "%u %.3f\n", rows[i].depth, rows[i].fps);
        fprintf(d, "\n\n");
    }
    fclose(d);
    const int fd = mkstemp(script);
    FILE *g = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!g) {
        if (fd >= 0) { close(fd); remove(script); }
        remove(data);
        return sr_fail(err, SR_ERR_RUNTIME, "cannot create a temporary file for gnuplot's script");
    }
    fputs(sr_plot_script, g);
    fprintf(g, "plot ");
    for (uint32_t m = 0; m < lines; m++) {   /* labels are mask and sort names: ours, not the user's */
        char label[64];
        fprintf(g, "%sARG3 index %u with linespoints lw 2 pt 7 title '%s'", m ? ", " : "", m,
                sr_row_label(&rows[m], label, sizeof label));
    }
    fprintf(g, "\n");
    fclose(g);
    char *argv[] = { (char *)"gnuplot", (char *)"-c", script, tmp, (char *)title, data, NULL };
    const int rc = sr_run_gnuplot(argv);
    remove(script);
    remove(data);
    if (rc < 0) {
        remove(tmp);
        return sr_fail(err, SR_ERR_RUNTIME, "--plot %s: cannot run gnuplot (Debian: apt-get install gnuplot-nox); "
                       "the table, --csv and --json do not need it", path);
    }
    if (rc != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return sr_fail(err, SR_ERR_RUNTIME, "gnuplot failed to write %s", path);
    }
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
    b.sorts[b.sort_count++] = b.c.render.sort;
    for (; a.i < argc; a.i++) {
        const char *o = argv[a.i];
        int r = -1;
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
        if (r < 0) return sr_usage_error(&a, "unknown option '%s'%s", o, "");
    }
    /* Every output is checked before the benchmark runs, not after. */
    const char *inputs[] = { b.c.scene_path, NULL };
    const char *const outs[][2] = { { "--csv", b.csv }, { "--json", b.json }, { "--plot", b.plot } };
    for (int k = 0; k < 3; k++) {
        char msg[2 * PATH_MAX + 256];
        if (outs[k][1] && !sr_output_path_ok(outs[k][0], outs[k][1], k < 2, inputs, msg, sizeof msg))
            return sr_usage_error(&a, "%s%s", msg, "");
    }
    if (b.csv && b.json && !strcmp(b.csv, "-") && !strcmp(b.json, "-"))
        return sr_usage_error(&a, "--csv - and --json -: only one of them can go to standard output%s%s", "", "");
    if (b.micro) {
        sr_micro_opts mo;
        memset(&mo, 0, sizeof mo);
        mo.device = (int)b.c.device;
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
        so.device = (int)b.c.device;
        so.reps = b.frames;
        so.quiet = b.c.quiet;
        so.csv = b.csv;
        so.json = b.json;
        sr_error err = { SR_OK, "" };
        sr_status s = sr_bench_sort_micro(&so, stdout, &err);
        if (s) fprintf(stderr, "stencilray bench --sort-micro: %s\n", err.msg);
        return (int)s;
    }

    sr_scene scene;
    sr_backend be;
    int code = sr_open(&b.c, "bench", &scene, &be);
    if (code) return code;
    scene.max_depth = b.depth_hi;
    scene.spp = 1;

    char gpu[512];
    if (be.kind == SR_BACKEND_CUDA) sr_cuda_gpu_summary((int)b.c.device, gpu, sizeof gpu);
    else snprintf(gpu, sizeof gpu, "%s", be.device_name);
    char cmdline[1024] = "";
    for (int i = 0; i < argc; i++) {
        size_t used = strlen(cmdline);
        snprintf(cmdline + used, sizeof cmdline - used, "%s%s", i ? " " : "", i ? argv[i] : "stencilray");
    }
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    char header[2048];
    snprintf(header, sizeof header, "%s | %ux%u, 1 spp per frame, %u warm-up + %u timed frames | %s | %s",
             b.c.scene_path, scene.width, scene.height, b.warmup, b.frames, date, cmdline);
    printf("# %s: %s\n# %s\n", be.kind == SR_BACKEND_CUDA ? "GPU" : "CPU", gpu, header);
    fflush(stdout);

    sr_error err = { SR_OK, "" };
    sr_renderer r;
    sr_status s = sr_renderer_init(&r, &scene, &be, &err);
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
    for (uint32_t d = b.depth_lo; !s && d <= b.depth_hi; d++)
        for (int m = 0; !s && m < vars; m++) {
            if (!b.c.quiet) {
                fprintf(stderr, "\rbench: depth %u, mask %-10s sort %-5s (%u/%u) ", d, sr_mask_name((sr_mask)var_mask[m]),
                        sr_sort_algo_name(var_sort[m]), done + 1, pairs);
                fflush(stderr);
            }
            s = sr_bench_pair(&r, &b, d, (sr_mask)var_mask[m], var_sort[m], frame_ms, &rows[done], &err);
            if (!s) done++;
        }
    if (!b.c.quiet) fprintf(stderr, "\r%60s\r", "");
    if (!s) {
        sr_print_table(stdout, rows, done);
        if (b.breakdown) sr_print_breakdown(stdout, rows, done);
        if (b.csv && !s) s = sr_write_csv(b.csv, rows, done, b.breakdown, &err);
        if (b.json && !s) s = sr_write_json(b.json, header, gpu, rows, done, b.breakdown, &err);
        if (b.plot && !s) {
            char title[1024];
            snprintf(title, sizeof title, "%s, %ux%u on %s", b.c.scene_path, scene.width, scene.height, be.device_name);
            s = sr_write_plot(b.plot, title, rows, done, &err);
        }
    }
    if (s) fprintf(stderr, "stencilray bench: %s\n", err.msg);
    if (r.be) sr_renderer_free(&r);
    free(rows);
    free(frame_ms);
    sr_backend_destroy(&be);
    sr_scene_free(&scene);
    return s ? (int)s : 0;
}
