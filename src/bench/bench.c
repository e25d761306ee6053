/* bench.c: the FPS-per-depth benchmark (bench.h). Each (depth, mask, sort) renders warm-up
 * frames and then timed frames of one sample per pixel; frame times come from the backend's
 * timing marks (CUDA events on the GPU, wall time on the CPU). */
#include "bench.h"
#include "../api/frame_desc.h"
#include "../backend/cuda/cudaenv.h"
#include "../backend/cpu/ompenv.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(SR_BENCH_MAX_BOUNCES == SR_MAX_DEPTH, "a bench row holds every bounce");

/* The masks swept when the desc names none: flags, stencil, compact, wave, megakernel. */
static const sr_mask_kind sr_bench_all_masks[] = { SR_MASK_KIND_FLAGS, SR_MASK_KIND_STENCIL, SR_MASK_KIND_COMPACT,
                                                   SR_MASK_KIND_WAVE, SR_MASK_KIND_MEGAKERNEL };
#define SR_BENCH_MASKS (sizeof sr_bench_all_masks / sizeof sr_bench_all_masks[0])

static int sr_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The p-th percentile (0..100) of sorted values, nearest rank. */
static double sr_percentile(const double *sorted, uint32_t n, double p)
{
    uint32_t rank = (uint32_t)ceil(p / 100.0 * n);
    return sorted[rank ? rank - 1 : 0];
}

void sr_bench_frame_stats(double *frame_ms, uint32_t n, sr_bench_row *row)
{
    qsort(frame_ms, n, sizeof(double), sr_cmp_double);
    row->frames = n;
    row->min_ms = frame_ms[0];
    row->max_ms = frame_ms[n - 1];
    row->median_ms = n % 2 ? frame_ms[n / 2] : 0.5 * (frame_ms[n / 2 - 1] + frame_ms[n / 2]);
    row->q1_ms = sr_percentile(frame_ms, n, 25.0);
    row->q3_ms = sr_percentile(frame_ms, n, 75.0);
    row->spread = row->median_ms > 0 ? (row->q3_ms - row->q1_ms) / row->median_ms : 0.0;
    row->noisy = row->spread > SR_BENCH_NOISY_SPREAD;
    row->fps = row->median_ms > 0 ? 1000.0 / row->median_ms : 0.0;
}

sr_status sr_bench_desc_check(const sr_bench_desc *d, sr_error *err)
{
    const uint32_t lo = d->depth_first ? d->depth_first : 1u, hi = d->depth_last ? d->depth_last : d->depth_first ? lo : 8u;
    if (lo > hi || hi > SR_MAX_DEPTH)
        return sr_fail(err, SR_ERR_INPUT, "sr_bench_desc: depths %u to %u; expected 1 <= depth_first <= depth_last <= %u "
                       "(0: 1 and 8)", d->depth_first, d->depth_last, SR_MAX_DEPTH);
    if (d->frames > SR_BENCH_MAX_FRAMES || d->warmup > SR_BENCH_MAX_WARMUP)
        return sr_fail(err, SR_ERR_INPUT, "sr_bench_desc: %u frames, %u warm-up; expected 1..%u and 0..%u (0: 20 and 3)",
                       d->frames, d->warmup, SR_BENCH_MAX_FRAMES, SR_BENCH_MAX_WARMUP);
    if ((d->masks && (!d->mask_count || d->mask_count > SR_BENCH_MASKS)) || (d->sorts && (!d->sort_count || d->sort_count > 3)))
        return sr_fail(err, SR_ERR_INPUT, "sr_bench_desc: %u masks, %u sorts; expected 1..5 masks and 1..3 sorts, each once "
                       "(NULL: the defaults)", d->mask_count, d->sort_count);
    for (uint32_t k = 0; d->masks && k < d->mask_count; k++) {
        if (d->masks[k] < SR_MASK_KIND_WAVE || d->masks[k] > SR_MASK_KIND_MEGAKERNEL)
            return sr_fail(err, SR_ERR_INPUT, "sr_bench_desc.masks[%u]: %d; expected an sr_mask_kind other than "
                           "SR_MASK_KIND_DEFAULT", k, (int)d->masks[k]);
        for (uint32_t j = 0; j < k; j++)
            if (d->masks[j] == d->masks[k])
                return sr_fail(err, SR_ERR_INPUT, "sr_bench_desc.masks[%u]: listed twice (as masks[%u])", k, j);
    }
    for (uint32_t k = 0; d->sorts && k < d->sort_count; k++) {
        if ((unsigned)d->sorts[k] > SR_SORT_KIND_RADIX)
            return sr_fail(err, SR_ERR_INPUT, "sr_bench_desc.sorts[%u]: %d; expected an sr_sort_kind", k, (int)d->sorts[k]);
        for (uint32_t j = 0; j < k; j++)
            if (d->sorts[j] == d->sorts[k])
                return sr_fail(err, SR_ERR_INPUT, "sr_bench_desc.sorts[%u]: listed twice (as sorts[%u])", k, j);
    }
    return SR_OK;
}

void sr_bench_report_setup(sr_bench_report *rep, const sr_backend *be, int gpu, const sr_frame *f, const sr_bench_desc *d)
{
    rep->kind = be->kind == SR_BACKEND_CUDA ? SR_DEVICE_KIND_GPU : SR_DEVICE_KIND_CPU;
    snprintf(rep->device, sizeof rep->device, "%s", be->device_name);
    if (be->kind == SR_BACKEND_CUDA) sr_cuda_gpu_summary(gpu, rep->device_summary, sizeof rep->device_summary);
    else snprintf(rep->device_summary, sizeof rep->device_summary, "%s", be->device_name);
    rep->width = f->width;
    rep->height = f->height;
    rep->frames = d->frames ? d->frames : 20u;
    rep->warmup = d->warmup || (d->zeros & SR_BENCH_ZERO_WARMUP) ? d->warmup : 3u;
    rep->depth_first = d->depth_first ? d->depth_first : 1u;
    rep->depth_last = d->depth_last ? d->depth_last : d->depth_first ? d->depth_first : 8u;
    rep->integrator = f->integrator == SR_INTEGRATOR_PATH ? SR_INTEGRATOR_KIND_PATH : SR_INTEGRATOR_KIND_WHITTED;
    rep->sort_key = (sr_sort_key_kind)f->render.sort_key;
    rep->mask_count = d->masks ? d->mask_count : (uint32_t)SR_BENCH_MASKS;
    for (uint32_t k = 0; k < rep->mask_count; k++) rep->masks[k] = d->masks ? d->masks[k] : sr_bench_all_masks[k];
    rep->sort_count = d->sorts ? d->sort_count : 1u;
    for (uint32_t k = 0; k < rep->sort_count; k++) rep->sorts[k] = d->sorts ? d->sorts[k] : (sr_sort_kind)f->render.sort;
    rep->breakdown = d->breakdown;
    if (be->kind == SR_BACKEND_CUDA) {
        snprintf(rep->cuda_loading, sizeof rep->cuda_loading, "%s", sr_cuda_loading());
        snprintf(rep->cuda_loading_from, sizeof rep->cuda_loading_from, "%s", sr_cuda_loading_source());
        return;
    }
    rep->threads = omp_get_max_threads();   /* what decides whether CPU timings can be trusted (ompenv.h) */
    snprintf(rep->wait_policy, sizeof rep->wait_policy, "%s", sr_omp_wait_policy());
    snprintf(rep->wait_policy_from, sizeof rep->wait_policy_from, "%s", sr_omp_wait_policy_source());
    const char *spincount = sr_omp_spincount();
    snprintf(rep->spincount, sizeof rep->spincount, "%s", spincount ? spincount : "");
}

static sr_status sr_bench_pair(sr_renderer *r, const sr_frame *base, const sr_bench_report *rep, sr_bench_row *row,
                               double *frame_ms, sr_error *err)
{
    /* This pair's frames: the benchmark's, at this depth and mask, one sample each. */
    sr_frame f = *base;
    f.depth = row->depth;
    f.spp = 1;
    f.render.mask = sr_frame_mask(row->mask);
    f.render.sort = (int)row->sort;
    f.render.progress = 0;
    sr_render_opts *o = &f.render;
    sr_status s;
    for (uint32_t sample = 0; sample < rep->warmup; sample++)
        if ((s = sr_render_sample(r, &f, sample, NULL, err))) return s;
    /* The wave mask measures its ways on its first samples at each depth (wave_way.c): those
     * belong to the warm-up, never to the timed frames (they ran the slower ways too). They
     * take samples after the timed ones, so every mask times the same samples, the same rays. */
    for (uint32_t extra = 0; sr_wave_measuring(r, &f) && extra < 64; extra++)
        if ((s = sr_render_sample(r, &f, rep->warmup + rep->frames + extra, NULL, err))) return s;
    const uint32_t sample = rep->warmup;   /* the first timed sample, the same for every mask */
    sr_render_stats st;
    memset(&st, 0, sizeof st);
    for (uint32_t k = 0; k < rep->frames; k++) {
        sr_stage_times t;
        memset(&t, 0, sizeof t);
        t.per_stage = rep->breakdown;   /* a mark per stage costs host time: only when asked */
        o->times = &t;
        s = sr_render_sample(r, &f, sample + k, &st, err);
        o->times = NULL;   /* t is gone */
        if (s) return s;
        frame_ms[k] = t.total;
        for (uint32_t d = 0; d < SR_MAX_DEPTH; d++) {
            row->times.intersect[d] += t.intersect[d];
            row->times.shade[d] += t.shade[d];
            row->times.compact[d] += t.compact[d];
            row->times.sort[d] += t.sort[d];
        }
        row->times.generate += t.generate;
        row->times.megakernel += t.megakernel;
        row->times.total += t.total;
    }
    sr_bench_frame_stats(frame_ms, rep->frames, row);
    row->rays_per_frame = (double)st.rays / rep->frames;   /* (the Whitted split's spawned rays counted) */
    row->dropped_per_frame = (double)st.dropped / rep->frames;
    row->mrays_per_s = row->median_ms > 0 ? row->rays_per_frame / (row->median_ms * 1e3) : 0.0;
    row->compactions = st.compactions / rep->frames;
    const char *way = sr_wave_way_name(r, o);
    snprintf(row->way, sizeof row->way, "%s", way ? way : "");
    row->wave_dense = sr_wave_dense_used(r, o);
    const double pool = (double)f.width * f.height;
    row->per_bounce = sr_mask_counts_bounces(o);
    for (uint32_t k = 0; k < SR_MAX_DEPTH; k++)
        row->live_after[k] = !row->per_bounce || k + 1 >= row->depth ? NAN : (double)st.bounce_rays[k + 1] / rep->frames / pool;
    return SR_OK;
}

sr_status sr_bench_sweep(sr_renderer *r, const sr_backend *be, int gpu, const sr_frame *f, const sr_bench_desc *d,
                         sr_bench_report **out, sr_error *err)
{
    *out = NULL;
    SR_TRY(sr_bench_desc_check(d, err));
    sr_bench_report *rep = calloc(1, sizeof *rep);
    if (!rep) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for the benchmark's report");
    sr_bench_report_setup(rep, be, gpu, f, d);
    /* The (mask, sort) variants: every sort with the compact mask, the other masks unsorted. */
    sr_mask_kind var_mask[SR_BENCH_MASKS * 3];
    sr_sort_kind var_sort[SR_BENCH_MASKS * 3];
    uint32_t vars = 0;
    for (uint32_t m = 0; m < rep->mask_count; m++) {
        const int compact = rep->masks[m] == SR_MASK_KIND_COMPACT;
        for (uint32_t k = 0; k < (compact ? rep->sort_count : 1u); k++) {
            var_mask[vars] = rep->masks[m];
            var_sort[vars++] = compact ? rep->sorts[k] : SR_SORT_KIND_NONE;
        }
    }
    rep->rows_total = (rep->depth_last - rep->depth_first + 1u) * vars;
    rep->rows = calloc(rep->rows_total, sizeof *rep->rows);
    double *frame_ms = malloc(sizeof(double) * rep->frames);
    *out = rep;
    sr_status s = rep->rows && frame_ms ? SR_OK : sr_fail(err, SR_ERR_RUNTIME, "out of host memory for the benchmark's rows");
    for (uint32_t depth = rep->depth_first; !s && depth <= rep->depth_last; depth++)
        for (uint32_t v = 0; !s && v < vars; v++) {
            sr_bench_row *row = &rep->rows[rep->row_count];
            row->depth = depth;
            row->mask = var_mask[v];
            row->sort = var_sort[v];
            if (d->progress && d->progress(d->progress_user, rep))
                s = sr_fail(err, SR_INTERRUPTED, "cancelled by the progress callback after %u of %u rows", rep->row_count,
                            rep->rows_total);
            if (!s) s = sr_bench_pair(r, f, rep, row, frame_ms, err);
            if (s) memset(row, 0, sizeof *row);
            else rep->row_count++;
        }
    free(frame_ms);
    return s;
}

void sr_bench_report_free(sr_bench_report *report)
{
    if (!report) return;
    free(report->rows);
    free(report);
}
