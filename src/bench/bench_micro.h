/* bench_micro.h: `stencilray bench --micro`: synthetic ray pools, no scene. Masked-out slots
 * per second for flags vs stencil, and ballot-partition compaction against CUB's
 * DeviceSelect::Flagged on the same input (both checked for the same output set). */
#ifndef SR_BENCH_MICRO_H
#define SR_BENCH_MICRO_H

#include <stdint.h>
#include <stdio.h>
#include "../base/status.h"

typedef struct sr_micro_opts {
    int device;
    uint32_t rays;         /* pool size, default 8 M (8 * 1024 * 1024)            */
    uint32_t reps;         /* timed repetitions per measurement (median reported) */
    int quiet;             /* no progress line                                     */
    const char *csv, *json;
} sr_micro_opts;

/* Runs the micro-benchmarks on CUDA device opts->device, prints the tables to `out`, writes
 * CSV/JSON if asked. SR_ERR_INPUT without a CUDA device (the message says so). */
sr_status sr_bench_micro(const sr_micro_opts *opts, FILE *out, sr_error *err);

#endif
