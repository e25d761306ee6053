/* bench_farm.c: the throughput of several workers on one frame (bench.h). */
#include "bench.h"
#include "../api/frame_desc.h"
#include "../farm/film_sum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One timed frame's worker figures added to the report's. */
static void sr_bench_farm_add(sr_bench_report *rep, const sr_farm_stats *one)
{
    rep->workers_s += one->seconds;
    rep->workers_rays += one->rays;
    rep->workers_samples += one->samples;
    rep->workers = one->workers < SR_STATS_MAX_WORKERS ? one->workers : SR_STATS_MAX_WORKERS;
    for (uint32_t i = 0; i < rep->workers; i++) {
        sr_worker_stats *w = &rep->worker[i];
        snprintf(w->device, sizeof w->device, "%s", one->w[i].device_name);
        w->kind = one->w[i].kind == SR_BACKEND_CUDA ? SR_DEVICE_KIND_GPU : SR_DEVICE_KIND_CPU;
        w->passes += one->w[i].passes;
        w->samples += one->w[i].samples;
        w->rays += one->w[i].rays;
        w->busy_s += one->w[i].busy_s;
    }
}

sr_status sr_bench_farm_sweep(sr_farm *fm, const sr_frame *base, const sr_bench_desc *d, sr_bench_report **out,
                              sr_error *err)
{
    *out = NULL;
    SR_TRY(sr_bench_desc_check(d, err));
    if (d->masks || d->sorts || d->breakdown)
        return sr_fail(err, SR_ERR_INPUT, "sr_bench_desc: masks, sorts and breakdown are for one worker; several time "
                       "the frame's mask (leave them 0)");
    sr_bench_report *rep = calloc(1, sizeof *rep);
    if (!rep) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for the benchmark's report");
    *out = rep;
    const sr_backend *be = sr_farm_backend(fm, 0);
    sr_bench_report_setup(rep, be, 0, base, d);
    rep->mask_count = rep->sort_count = 0;
    sr_frame f = *base;
    f.depth = rep->depth_last;
    f.spp = SR_BENCH_FARM_SPP;
    f.render.progress = 0;
    rep->workers_spp = f.spp;
    rep->workers_passes = sr_farm_pass_count(f.spp);
    rep->workers_mask = sr_frame_mask_kind(f.render.mask);
    rep->rows_total = rep->warmup + rep->frames;
    sr_film_sum sum = { NULL, 0, 0, 0 };
    sr_status s = sr_film_sum_init(&sum, (size_t)f.width * f.height * 3u, err);
    for (uint32_t k = 0; !s && k < rep->rows_total; k++, rep->row_count++) {
        if (d->progress && d->progress(d->progress_user, rep)) {
            s = sr_fail(err, SR_INTERRUPTED, "cancelled by the progress callback after %u of %u frames", k, rep->rows_total);
            break;
        }
        sr_film_sum_clear(&sum);
        sr_farm_stats one;
        s = sr_farm_render(fm, &f, NULL, &sum, &one, err);
        if (!s && k >= rep->warmup) sr_bench_farm_add(rep, &one);
    }
    sr_film_sum_free(&sum);
    return s;
}
