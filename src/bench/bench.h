/* bench.h: the FPS-per-depth benchmark over an opened renderer (sr_bench_run's work, and
 * `stencilray bench`'s): its desc checked, its sweep, the statistics of a row. */
#ifndef SR_BENCH_H
#define SR_BENCH_H

#include "../../include/stencilray.h"
#include "../render/render.h"
#include "../farm/farm.h"
#include "../base/status.h"
/* The micro modes (bench --micro, --sort-micro): synthetic GPU kernels with no scene, frame
 * or context, measured and printed as they run; the command line's only. */
#include "bench_micro.h"
#include "bench_sort.h"
#if SR_MEASURE
#include "wave_timeline.h"   /* the measurement build's wave timeline after a sweep */
#endif

#define SR_BENCH_MAX_FRAMES 10000u
#define SR_BENCH_MAX_WARMUP 1000u
#define SR_BENCH_FARM_SPP 64u   /* several workers: samples per timed frame, passes of one sample */

/* A desc's values in range (names: "sr_bench_desc.FIELD" in the message). */
sr_status sr_bench_desc_check(const sr_bench_desc *d, sr_error *err);

/* The report's setup: the desc with its defaults, and what ran it (be; gpu its device). */
void sr_bench_report_setup(sr_bench_report *rep, const sr_backend *be, int gpu, const sr_frame *f, const sr_bench_desc *d);

/* Sweep the desc's depths and (mask, sort) variants over r (prepared for f on be), one
 * sample per frame; gpu: be's CUDA device. *out: the report (sr_bench_report_free), also after a failure part-way
 * with its rows so far; NULL when out of memory. */
sr_status sr_bench_sweep(sr_renderer *r, const sr_backend *be, int gpu, const sr_frame *f, const sr_bench_desc *d,
                         sr_bench_report **out, sr_error *err);

/* Several workers: the desc's warm-up and timed frames of f (its spp and depth replaced:
 * SR_BENCH_FARM_SPP, the desc's last depth) spread over the opened farm fm as render spreads
 * a frame (bench_farm.c), each worker's figures and the total into the report. *out as
 * sr_bench_sweep's. */
sr_status sr_bench_farm_sweep(sr_farm *fm, const sr_frame *f, const sr_bench_desc *d, sr_bench_report **out,
                              sr_error *err);

/* The frame-time figures of a row from n >= 1 frame times in ms (sorted here, in place):
 * min, quartiles, median, max, spread, noisy, fps and frames. */
void sr_bench_frame_stats(double *frame_ms, uint32_t n, sr_bench_row *row);

#endif
