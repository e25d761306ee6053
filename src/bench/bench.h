/* bench.h: the FPS-per-depth benchmark over an opened renderer (sr_bench_run's work, and
 * `stencilray bench`'s): its desc checked, its sweep, the statistics of a row. */
#ifndef SR_BENCH_H
#define SR_BENCH_H

#include "../../include/stencilray.h"
#include "../render/render.h"
#include "../base/status.h"

#define SR_BENCH_MAX_FRAMES 10000u
#define SR_BENCH_MAX_WARMUP 1000u

/* A desc's values in range (names: "sr_bench_desc.FIELD" in the message). */
sr_status sr_bench_desc_check(const sr_bench_desc *d, sr_error *err);

/* The report's setup: the desc with its defaults, and what ran it (be; gpu its device). */
void sr_bench_report_setup(sr_bench_report *rep, const sr_backend *be, int gpu, const sr_frame *f, const sr_bench_desc *d);

/* Sweep the desc's depths and (mask, sort) variants over r (prepared for f on be), one
 * sample per frame; gpu: be's CUDA device. *out: the report (sr_bench_report_free), also after a failure part-way
 * with its rows so far; NULL when out of memory. */
sr_status sr_bench_sweep(sr_renderer *r, const sr_backend *be, int gpu, const sr_frame *f, const sr_bench_desc *d,
                         sr_bench_report **out, sr_error *err);

/* The frame-time figures of a row from n >= 1 frame times in ms (sorted here, in place):
 * min, quartiles, median, max, spread, noisy, fps and frames. */
void sr_bench_frame_stats(double *frame_ms, uint32_t n, sr_bench_row *row);

#endif
