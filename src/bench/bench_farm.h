/* bench_farm.h: `stencilray bench --device LIST` with several workers: frames of
 * SR_BENCH_FARM_SPP samples spread over them as render does (src/farm), and the throughput of
 * each worker and of all of them together. */
#ifndef SR_BENCH_FARM_H
#define SR_BENCH_FARM_H

#include <stdint.h>
#include "../app/options.h"

#define SR_BENCH_FARM_SPP 64u   /* samples per timed frame: 64 passes of one sample */

/* c: the options (scene, frame, --device); frames timed after warmup untimed ones, at depth.
 * Prints the table on stdout; returns an exit code. */
int sr_bench_farm(sr_common *c, uint32_t depth, uint32_t warmup, uint32_t frames);

#endif
