/* bench_report.h: what `stencilray bench` measured, and how it is shown: the frame-time
 * statistics of one (depth, mask, sort) row, the table, the per-stage breakdown, CSV, JSON and
 * the gnuplot chart. */
#ifndef SR_BENCH_REPORT_H
#define SR_BENCH_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "../render/render.h"
#include "../base/status.h"

/* A row is "noisy" when the middle half of its frame times (first to third quartile) spans
 * more than this fraction of the median: a busy machine, OpenMP threads spinning against
 * other processes, or a clock that changed during the run. The median is still the best
 * guess, but two such rows are not worth comparing closely. GPU rows are ~1-2 %. */
#define SR_BENCH_NOISY_SPREAD 0.10

typedef struct sr_bench_row {
    uint32_t depth;
    sr_mask mask;
    int sort;                            /* sr_sort_algo: the coherence sort (compact only)     */
    double min_ms, median_ms, max_ms;    /* of the timed frames: every figure is one of them    */
    double q1_ms, q3_ms;                 /* first and third quartile (nearest rank)             */
    double spread;                       /* (q3 - q1) / median: 0.05 = the middle half within 5 % */
    int noisy;                           /* spread > SR_BENCH_NOISY_SPREAD                       */
    double fps, rays_per_frame, mrays_per_s;
    double dropped_per_frame;            /* Whitted glass's spawned rays dropped (whitted.h)      */
    double live_after[SR_MAX_DEPTH];     /* live fraction after bounce b, where per_bounce        */
    int per_bounce;                      /* rays counted per bounce (flags/stencil/compact; the wave
                                            mask and the megakernel count only the total)       */
    sr_stage_times times;                /* summed over timed frames (--breakdown)              */
    uint32_t frames, compactions;
    const char *way;                     /* wave: the way it measured fastest (render.h)         */
    uint32_t wave_dense;                 /* wave: the dense threshold it ran (0: compact's launches) */
} sr_bench_row;

/* The frame-time figures of a row from n >= 1 frame times in ms (sorted here, in place):
 * min, quartiles, median, max, spread, noisy, fps and frames. */
void sr_bench_frame_stats(double *frame_ms, uint32_t n, sr_bench_row *row);

/* The table as `bench` prints it; noisy rows carry a '!' after their spread and a line under
 * the table says what it means. */
void sr_bench_print_table(FILE *f, const sr_bench_row *rows, uint32_t n);
void sr_bench_print_breakdown(FILE *f, const sr_bench_row *rows, uint32_t n);

/* How the benchmark ran, for the JSON's "setup" object. */
typedef struct sr_bench_setup {
    const char *scene, *backend, *integrator, *sort_key, *date;   /* date: ISO 8601, UTC */
    uint32_t width, height, warmup, frames, depth_lo, depth_hi;
    const int *masks, *sorts;     /* the masks and sorts swept */
    int mask_count, sort_count;
    int threads;                  /* CPU backend: OpenMP threads; 0 on the GPU              */
    const char *wait_policy;      /* CPU backend: OMP_WAIT_POLICY as OpenMP read it, or NULL */
    const char *wait_policy_from; /* who chose it: "stencilray", "environment" or "none"      */
    const char *spincount;        /* GOMP_SPINCOUNT when set, or NULL                        */
    const char *cuda_loading;     /* CUDA backend: CUDA_MODULE_LOADING (cudaenv.h), or NULL  */
    const char *cuda_loading_from;/* who chose it: "stencilray", "environment" or "none"      */
    int argc;
    char **argv;
} sr_bench_setup;

sr_status sr_bench_write_csv(const char *path, const sr_bench_row *rows, uint32_t n, int breakdown, sr_error *err);
sr_status sr_bench_write_json(const char *path, const sr_bench_setup *setup, const char *device,
                              const sr_bench_row *rows, uint32_t n, int breakdown, sr_error *err);

/* The gnuplot terminal for a chart's file name, by its extension (.png, .svg, .pdf; any
 * case), or NULL for any other name. */
const char *sr_bench_plot_terminal(const char *path);
/* The FPS-per-depth chart (one line per mask and sort) in the format of path's extension. */
sr_status sr_bench_write_plot(const char *path, const char *title, const sr_bench_row *rows, uint32_t n,
                              sr_error *err);

#endif
