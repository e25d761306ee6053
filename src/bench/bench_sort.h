/* bench_sort.h: `stencilray bench --sort-micro`: the coherence sort's micro-benchmark.
 * Keys per second of the merge sort (kernels/frames/sort.cu) against CUB's radix sort at 1 M, 8 M
 * and 32 M (key, value) pairs, each output checked against the other and on the host; and the
 * two ways to reorder a ray pool by key: sort (key, index) pairs and gather the state, or sort
 * the state itself (44-byte records through the radix sort). */
#ifndef SR_BENCH_SORT_H
#define SR_BENCH_SORT_H

#include <stdint.h>
#include <stdio.h>
#include "../base/status.h"

typedef struct sr_sort_micro_opts {
    int device;
    uint32_t reps;         /* timed runs per measurement (median reported), default 20 */
    uint32_t max_keys;     /* skip sizes above this (0: all three)                      */
    int quiet;
    const char *csv, *json;
} sr_sort_micro_opts;

/* Runs on CUDA device opts->device, prints the tables to `out`, writes CSV/JSON if asked.
 * SR_ERR_INPUT without a CUDA device; SR_ERR_RUNTIME if a check fails. */
sr_status sr_bench_sort_micro(const sr_sort_micro_opts *opts, FILE *out, sr_error *err);

#endif
