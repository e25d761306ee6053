/* bench_farm.c: the throughput of several workers on one frame (bench_farm.h). */
#include "bench_farm.h"
#include "../base/names.h"
#include "../farm/farm.h"
#include "../farm/film_sum.h"

#include <stdio.h>
#include <string.h>

int sr_bench_farm(sr_common *c, uint32_t depth, uint32_t warmup, uint32_t frames)
{
    sr_worker_spec specs[SR_FARM_MAX_WORKERS];
    uint32_t n = 0;
    int code = sr_parse_workers(c, "bench", specs, &n);
    if (code) return code;
    sr_scene scene;
    sr_backend_warm *warm = sr_backend_warm_begin(specs, n);   /* the contexts made while the scene is read */
    code = sr_open_scene(c, "bench", &scene);
    sr_backend_warm_end(warm);
    if (code) return code;
    sr_frame f = c->frame;
    f.depth = depth;
    f.spp = SR_BENCH_FARM_SPP;
    f.render.progress = 0;
    sr_error err = { SR_OK, "" };
    sr_farm *fm = NULL;
    sr_film_sum sum = { NULL, 0, 0, 0 };
    sr_status s = sr_farm_open(&fm, &scene, specs, n, &f, &err);
    if (!s) s = sr_film_sum_init(&sum, (size_t)f.width * f.height * 3u, &err);
    sr_farm_stats one, all;
    memset(&all, 0, sizeof all);
    for (uint32_t k = 0; !s && k < warmup + frames; k++) {
        sr_film_sum_clear(&sum);
        if (!c->quiet) fprintf(stderr, "\rbench: frame %u/%u%s", k + 1, warmup + frames, k < warmup ? " (warm-up)" : "   ");
        s = sr_farm_render(fm, &f, NULL, &sum, &one, &err);
        if (s || k < warmup) continue;
        all.seconds += one.seconds;
        all.rays += one.rays;
        all.samples += one.samples;
        all.workers = one.workers;
        for (uint32_t i = 0; i < one.workers; i++) {
            sr_farm_worker_stats *w = &all.w[i];
            snprintf(w->device_name, sizeof w->device_name, "%s", one.w[i].device_name);
            w->passes += one.w[i].passes;
            w->samples += one.w[i].samples;
            w->rays += one.w[i].rays;
            w->busy_s += one.w[i].busy_s;
        }
    }
    if (!c->quiet) fprintf(stderr, "\r%40s\r", "");
    if (!s) {
        printf("# bench --device %s: %s | %ux%u, depth %u, %s, mask %s | %u spp per frame (%u passes), %u warm-up + "
               "%u timed frames\n", c->device_list, c->scene_path, f.width, f.height, depth,
               sr_integrator_name((int)f.integrator), sr_mask_name(f.render.mask), f.spp, sr_farm_pass_count(f.spp),
               warmup, frames);
        printf("%-8s %-40s %8s %8s %10s %10s %9s\n", "worker", "device", "passes", "samples", "busy_s", "Mrays/s",
               "share");
        for (uint32_t i = 0; i < all.workers; i++) {
            const sr_farm_worker_stats *w = &all.w[i];
            printf("%-8u %-40.40s %8u %8llu %10.3f %10.1f %8.1f%%\n", i, w->device_name, w->passes,
                   (unsigned long long)w->samples, w->busy_s, w->busy_s > 0 ? (double)w->rays / w->busy_s / 1e6 : 0.0,
                   all.samples ? 100.0 * (double)w->samples / (double)all.samples : 0.0);
        }
        printf("%-8s %-40s %8u %8llu %10.3f %10.1f %9s\n", "total", "(wall time)", sr_farm_pass_count(f.spp) * frames,
               (unsigned long long)all.samples, all.seconds, all.seconds > 0 ? (double)all.rays / all.seconds / 1e6 : 0.0,
               "100.0%");
    } else {
        fprintf(stderr, "stencilray bench: %s\n", err.msg);
    }
    sr_farm_close(fm);
    sr_film_sum_free(&sum);
    sr_scene_free(&scene);
    return s ? (int)s : 0;
}
