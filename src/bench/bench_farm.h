/* bench_farm.h: the benchmark with several workers: frames of SR_BENCH_FARM_SPP samples
 * spread over them as render does (src/farm), and the throughput of each worker and of all of
 * them together, into the report's workers figures. */
#ifndef SR_BENCH_FARM_H
#define SR_BENCH_FARM_H

#include "../../include/stencilray.h"
#include "../farm/farm.h"

#define SR_BENCH_FARM_SPP 64u   /* samples per timed frame: 64 passes of one sample */

/* The desc's warm-up and timed frames of f (its spp and depth replaced: SR_BENCH_FARM_SPP,
 * the desc's last depth) over the opened farm fm. *out as sr_bench_sweep's. */
sr_status sr_bench_farm_sweep(sr_farm *fm, const sr_frame *f, const sr_bench_desc *d, sr_bench_report **out,
                              sr_error *err);

#endif
