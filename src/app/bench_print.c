/* bench_print.c: `stencilray bench`'s table, breakdown, CSV, JSON and chart from the
 * library's report (bench_print.h). */
#include "bench_print.h"
#include "textfile.h"
#include "../api/frame_desc.h"
#include "../base/names.h"
#include "../../kernels/frames/sortkey.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *sr_kind_name(sr_mask_kind m) { return sr_mask_name(sr_frame_mask(m)); }

/* What a row measured, for the table and the plot: the mask, and the sort if there is one. */
static const char *sr_row_label(const sr_bench_row *r, char *buf, size_t cap)
{
    if (r->sort == SR_SORT_KIND_NONE) return sr_kind_name(r->mask);
    snprintf(buf, cap, "%s+%s", sr_kind_name(r->mask), sr_sort_algo_name((int)r->sort));
    return buf;
}

static void sr_live_list(const sr_bench_row *row, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    if (!row->per_bounce) { snprintf(buf, cap, "(not counted per bounce)"); return; }
    for (uint32_t k = 0; k + 1 < row->depth && used + 8 < cap; k++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%.3f", k ? " " : "", row->live_after[k]);
    if (row->depth == 1) snprintf(buf, cap, "-");
}

void sr_bench_print_table(FILE *f, const sr_bench_row *rows, uint32_t n)
{
    int noisy = 0;
    fprintf(f, "%5s  %-10s  %-5s  %9s  %8s  %9s  %9s  %8s  %12s  %9s  %s\n", "depth", "mask", "sort", "median ms",
            "FPS", "min ms", "max ms", "spread", "rays/frame", "Mrays/s", "live fraction after each bounce");
    for (uint32_t i = 0; i < n; i++) {
        const sr_bench_row *r = &rows[i];
        char live[SR_BENCH_MAX_BOUNCES * 8];
        sr_live_list(r, live, sizeof live);
        noisy |= r->noisy;
        fprintf(f, "%5u  %-10s  %-5s  %9.3f  %8.1f  %9.3f  %9.3f  %5.1f %%%c  %12.0f  %9.1f  %s\n", r->depth,
                sr_kind_name(r->mask), sr_sort_algo_name((int)r->sort), r->median_ms, r->fps, r->min_ms, r->max_ms,
                100.0 * r->spread, r->noisy ? '!' : ' ', r->rays_per_frame, r->mrays_per_s, live);
    }
    for (uint32_t i = 0; i < n; i++)
        if (rows[i].dropped_per_frame > 0.0)
            fprintf(f, "depth %u, %s: %.0f spawned rays a frame dropped for want of room in the pool (Whitted glass's "
                       "split): that row's frames miss them\n", rows[i].depth, sr_kind_name(rows[i].mask),
                    rows[i].dropped_per_frame);
    if (noisy)
        fprintf(f, "! noisy: the middle half of the frame times spans more than %.0f %% of the median (a busy "
                "machine, or a clock that changed); rerun on an idle machine or with more --frames before comparing "
                "these rows\n", 100.0 * SR_BENCH_NOISY_SPREAD);
}

void sr_bench_print_breakdown(FILE *f, const sr_bench_row *rows, uint32_t n)
{
    fprintf(f, "\nTime per stage, ms per frame (generate, then intersect / shade / compact / sort per bounce):\n");
    for (uint32_t i = 0; i < n; i++) {
        const sr_bench_row *r = &rows[i];
        double fr = r->frames ? r->frames : 1;
        char label[64];
        fprintf(f, "depth %u, %s: total %.3f", r->depth, sr_row_label(r, label, sizeof label), r->times.total / fr);
        if (r->mask == SR_MASK_KIND_MEGAKERNEL) { fprintf(f, ", one launch\n"); continue; }
        if (r->mask == SR_MASK_KIND_WAVE && r->wave_dense > 0) {   /* the whole sample in one or two launches */
            if (r->depth > 1 && r->wave_dense > 1)
                fprintf(f, ", two launches: the bounces while %u of a warp's 32 rays live, then the drain of the "
                           "repacked rays (no stage is timed apart)\n", r->wave_dense);
            else
                fprintf(f, ", one launch: every bounce in registers (no stage is timed apart)\n");
            continue;
        }
        if (r->mask == SR_MASK_KIND_WAVE) fprintf(f, " (its fastest way, the compact mask's launches)");
        fprintf(f, ", generate %.3f\n", r->times.generate / fr);
        for (uint32_t k = 0; k < r->depth; k++)
            fprintf(f, "    bounce %2u: intersect %8.3f  shade %8.3f  compact %8.3f  sort %8.3f\n", k,
                    r->times.intersect[k] / fr, r->times.shade[k] / fr, r->times.compact[k] / fr, r->times.sort[k] / fr);
    }
}

sr_status sr_bench_write_csv(const char *path, const sr_bench_row *rows, uint32_t n, int breakdown, sr_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);   /* the whole table, then written at once */
    if (!f) return sr_fail(err, SR_ERR_RUNTIME, "out of memory writing %s", path);
    fprintf(f, "depth,mask,sort,median_ms,fps,min_ms,max_ms,spread,noisy,rays_per_frame,mrays_per_s,live_after");
    if (breakdown) fprintf(f, ",generate_ms,intersect_ms,shade_ms,compact_ms,sort_ms");
    fprintf(f, "\n");
    for (uint32_t i = 0; i < n; i++) {
        const sr_bench_row *r = &rows[i];
        char live[SR_BENCH_MAX_BOUNCES * 8];
        sr_live_list(r, live, sizeof live);
        if (!r->per_bounce || r->depth == 1) live[0] = '\0';
        fprintf(f, "%u,%s,%s,%.4f,%.2f,%.4f,%.4f,%.4f,%d,%.0f,%.2f,%s", r->depth, sr_kind_name(r->mask),
                sr_sort_algo_name((int)r->sort), r->median_ms, r->fps, r->min_ms, r->max_ms, r->spread, r->noisy,
                r->rays_per_frame, r->mrays_per_s, live);
        if (breakdown) {
            double fr = r->frames ? r->frames : 1, is = 0, sh = 0, co = 0, so = 0;
            for (uint32_t k = 0; k < SR_BENCH_MAX_BOUNCES; k++) {
                is += r->times.intersect[k]; sh += r->times.shade[k]; co += r->times.compact[k]; so += r->times.sort[k];
            }
            fprintf(f, ",%.4f,%.4f,%.4f,%.4f,%.4f", r->times.generate / fr, is / fr, sh / fr, co / fr, so / fr);
        }
        fprintf(f, "\n");
    }
    const int failed = ferror(f);
    fclose(f);
    const sr_status s = failed || !text ? sr_fail(err, SR_ERR_RUNTIME, "out of memory writing %s", path)
                                        : sr_cli_write_text(path, text, len, err);
    free(text);
    return s;
}

/* "setup": how the benchmark ran, one field each, for scripts. */
static void sr_add_setup(cJSON *root, const sr_bench_setup *b, const sr_bench_report *rep)
{
    const int cpu = rep->kind != SR_DEVICE_KIND_GPU;
    cJSON *s = cJSON_AddObjectToObject(root, "setup");
    sr_cli_json_add_bytes(s, "scene", b->scene);   /* a file name: made UTF-8 (textfile.h) */
    cJSON_AddNumberToObject(s, "width", rep->width);
    cJSON_AddNumberToObject(s, "height", rep->height);
    cJSON_AddNumberToObject(s, "spp_per_frame", 1);
    cJSON_AddNumberToObject(s, "warmup_frames", rep->warmup);
    cJSON_AddNumberToObject(s, "timed_frames", rep->frames);
    cJSON_AddNumberToObject(s, "depth_from", rep->depth_first);
    cJSON_AddNumberToObject(s, "depth_to", rep->depth_last);
    cJSON *masks = cJSON_AddArrayToObject(s, "masks"), *sorts = cJSON_AddArrayToObject(s, "sorts");
    for (uint32_t k = 0; k < rep->mask_count; k++)
        cJSON_AddItemToArray(masks, cJSON_CreateString(sr_kind_name(rep->masks[k])));
    for (uint32_t k = 0; k < rep->sort_count; k++)
        cJSON_AddItemToArray(sorts, cJSON_CreateString(sr_sort_algo_name((int)rep->sorts[k])));
    cJSON_AddStringToObject(s, "sort_key", sr_sort_key_name((int)rep->sort_key));
    cJSON_AddStringToObject(s, "integrator", sr_integrator_name(rep->integrator == SR_INTEGRATOR_KIND_PATH ? SR_INTEGRATOR_PATH : SR_INTEGRATOR_WHITTED));
    cJSON_AddStringToObject(s, "backend", sr_backend_kind_name(cpu ? SR_BACKEND_CPU : SR_BACKEND_CUDA));
    if (rep->threads > 0) cJSON_AddNumberToObject(s, "threads", rep->threads);
    if (cpu) cJSON_AddStringToObject(s, "omp_wait_policy", rep->wait_policy);
    if (cpu) cJSON_AddStringToObject(s, "omp_wait_policy_from", rep->wait_policy_from);
    if (cpu && rep->spincount[0]) cJSON_AddStringToObject(s, "gomp_spincount", rep->spincount);
    if (!cpu) cJSON_AddStringToObject(s, "cuda_module_loading", rep->cuda_loading);
    if (!cpu) cJSON_AddStringToObject(s, "cuda_module_loading_from", rep->cuda_loading_from);
    cJSON_AddStringToObject(s, "statistic", "median");
    cJSON_AddNumberToObject(s, "noisy_spread", SR_BENCH_NOISY_SPREAD);
    cJSON_AddStringToObject(s, "date", b->date);
    cJSON *argv = cJSON_AddArrayToObject(s, "command");
    for (int k = 0; k < b->argc; k++) cJSON_AddItemToArray(argv, cJSON_CreateString(k ? b->argv[k] : "stencilray"));
}

sr_status sr_bench_write_json(const char *path, const sr_bench_setup *setup, const sr_bench_report *rep,
                              sr_error *err)
{
    const sr_bench_row *rows = rep->rows;
    const uint32_t n = rep->row_count;
    const int breakdown = rep->breakdown;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "stencilray", SR_VERSION);
    cJSON_AddStringToObject(root, "device", rep->device_summary);
    sr_add_setup(root, setup, rep);
    cJSON *arr = cJSON_AddArrayToObject(root, "results");
    for (uint32_t i = 0; i < n; i++) {
        const sr_bench_row *r = &rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "depth", r->depth);
        cJSON_AddStringToObject(o, "mask", sr_kind_name(r->mask));
        cJSON_AddStringToObject(o, "sort", sr_sort_algo_name((int)r->sort));
        cJSON_AddNumberToObject(o, "frames", r->frames);
        cJSON_AddNumberToObject(o, "median_ms", r->median_ms);
        cJSON_AddNumberToObject(o, "fps", r->fps);
        cJSON_AddNumberToObject(o, "min_ms", r->min_ms);
        cJSON_AddNumberToObject(o, "max_ms", r->max_ms);
        cJSON_AddNumberToObject(o, "q1_ms", r->q1_ms);
        cJSON_AddNumberToObject(o, "q3_ms", r->q3_ms);
        cJSON_AddNumberToObject(o, "spread", r->spread);
        cJSON_AddBoolToObject(o, "noisy", r->noisy);
        cJSON_AddNumberToObject(o, "rays_per_frame", r->rays_per_frame);
        cJSON_AddNumberToObject(o, "mrays_per_s", r->mrays_per_s);
        cJSON_AddNumberToObject(o, "dropped_rays_per_frame", r->dropped_per_frame);
        if (r->way[0]) cJSON_AddStringToObject(o, "wave_way", r->way);
        cJSON *live = cJSON_AddArrayToObject(o, "live_after_bounce");
        if (r->per_bounce)
            for (uint32_t k = 0; k + 1 < r->depth; k++) cJSON_AddItemToArray(live, cJSON_CreateNumber(r->live_after[k]));
        if (breakdown) {
            double fr = r->frames ? r->frames : 1;
            cJSON *bd = cJSON_AddObjectToObject(o, "breakdown_ms");
            if (r->mask == SR_MASK_KIND_MEGAKERNEL || r->mask == SR_MASK_KIND_WAVE) {   /* one frame, not stages */
                cJSON_AddNumberToObject(bd, sr_kind_name(r->mask), r->times.total / fr);
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
    return sr_cli_write_json(path, root, err);
}

/* The chart's terminal, by the output's extension: the script's first line, ours (never the
 * user's text). PNG prefers cairo's antialiased terminal and falls back to libgd's. */
static const struct { const char *ext, *terminal; } sr_plot_terminals[] = {
    { ".png", "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 960,600 font 'sans,11' } "
              "else { set terminal png size 960,600 }\n" },
    { ".svg", "set terminal svg size 960,600 font 'sans,11'\n" },
    { ".pdf", "set terminal pdfcairo size 9.6in,6in font 'sans,11'\n" },
};

const char *sr_bench_plot_terminal(const char *path)
{
    const size_t len = strlen(path);
    for (size_t k = 0; k < sizeof sr_plot_terminals / sizeof sr_plot_terminals[0]; k++)
        if (len > 4 && !strcasecmp(path + len - 4, sr_plot_terminals[k].ext)) return sr_plot_terminals[k].terminal;
    return NULL;
}

/* The rest of the chart's gnuplot script. It is constant: the output, the title (it holds the
 * scene's file name) and the data file come in as ARG1..ARG3 (gnuplot -c), string values that
 * the script never parses, so no quote, newline or system() in a name can run as gnuplot code. */
static const char sr_plot_script[] =
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

sr_status sr_bench_write_plot(const char *path, const char *title, const sr_bench_row *rows, uint32_t n,
                              sr_error *err)
{
    const char *terminal = sr_bench_plot_terminal(path);
    if (!terminal)
        return sr_fail(err, SR_ERR_INPUT, "--plot %s: expected a name ending in .png, .svg or .pdf", path);
    /* The data and the script in the temporary folder; the chart itself written whole or not
     * at all: gnuplot writes it into a temporary, which is then written to path (textfile.h). */
    char data[] = "/tmp/stencilray-plot-data-XXXXXX", script[] = "/tmp/stencilray-plot-XXXXXX";
    const int dfd = mkstemp(data);
    FILE *d = dfd >= 0 ? fdopen(dfd, "w") : NULL;
    if (!d) {
        if (dfd >= 0) { close(dfd); remove(data); }
        return sr_fail(err, SR_ERR_RUNTIME, "cannot create a temporary file for gnuplot's data");
    }
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
    fputs(terminal, g);
    fputs(sr_plot_script, g);
    fprintf(g, "plot ");
    for (uint32_t m = 0; m < lines; m++) {   /* labels are mask and sort names: ours, not the user's */
        char label[64];
        fprintf(g, "%sARG3 index %u with linespoints lw 2 pt 7 title '%s'", m ? ", " : "", m,
                sr_row_label(&rows[m], label, sizeof label));
    }
    fprintf(g, "\n");
    fclose(g);
    char chart[] = "/tmp/stencilray-chart-XXXXXX";
    const int cfd = mkstemp(chart);
    if (cfd < 0) {
        remove(script);
        remove(data);
        return sr_fail(err, SR_ERR_RUNTIME, "cannot create a temporary file for gnuplot's chart");
    }
    close(cfd);
    char *argv[] = { (char *)"gnuplot", (char *)"-c", script, chart, (char *)title, data, NULL };
    const int rc = sr_run_gnuplot(argv);
    remove(script);
    remove(data);
    if (rc != 0) {
        remove(chart);
        if (rc < 0)
            return sr_fail(err, SR_ERR_RUNTIME, "--plot %s: cannot run gnuplot (Debian: apt-get install gnuplot-nox); "
                           "the table, --csv and --json do not need it", path);
        return sr_fail(err, SR_ERR_RUNTIME, "gnuplot failed to write %s", path);
    }
    return sr_cli_copy_file(chart, path, err);
}
