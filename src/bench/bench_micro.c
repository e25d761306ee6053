/* bench_micro.c: `stencilray bench --micro`: synthetic ray pools, no scene. For live
 * fractions 1 .. 0 and two live patterns (random slots, whole warps), it times the "empty
 * work" kernel under the flags frame and the stencil frame, and the compaction of the whole
 * SoA ray state by the project's ballot partition against CUB's DeviceSelect::Flagged. Every
 * compaction's output is checked on the device: the count is the stencil's popcount and the
 * first count slots are exactly the live rays, each once, each with all its fields. */
#include "bench_micro.h"
#include "../io/output/textout.h"
#include "../backend/backend.h"
#include "../../kernels/bench/micro.h"

#include <cJSON.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../backend/cuda/cuda_check.h"
#include "../backend/cuda/cuda_soa.h"
#include "stats.h"

#define SR_MICRO_DEFAULT_RAYS (8u * 1024u * 1024u)
#define SR_MICRO_MAX_RAYS (1u << 30)
#define SR_MICRO_WARMUP 3u
#define SR_MICRO_SEED 0x5eed2024u
#define SR_MICRO_FRACTIONS 5
#define SR_MICRO_PATTERNS 2
#define SR_MICRO_CONFIGS (SR_MICRO_FRACTIONS * SR_MICRO_PATTERNS)

static const double sr_micro_fraction[SR_MICRO_FRACTIONS] = { 1.0, 0.5, 0.1, 0.01, 0.0 };
static const char *const sr_micro_pattern[SR_MICRO_PATTERNS] = { "random", "coherent" };

/* The masking kernels come in two launch forms: one thread per slot (the flags and stencil
 * masks' frames) and grid-stride loops over a resident grid (the compact mask's frame). */
typedef enum sr_micro_method {
    SR_M_FLAGS = 0, SR_M_STENCIL, SR_M_FLAGS_LOOP, SR_M_STENCIL_LOOP, SR_M_BALLOT, SR_M_CUB, SR_M_CUB_FIELD, SR_M_COUNT
} sr_micro_method;
static const char *const sr_micro_method_name[SR_M_COUNT] = { "flags", "stencil", "flags_loop", "stencil_loop",
                                                              "ballot", "cub", "cub_per_field" };
/* What each method's speed-up is measured against. */
static const sr_micro_method sr_micro_baseline[SR_M_COUNT] = { SR_M_FLAGS, SR_M_FLAGS, SR_M_FLAGS_LOOP, SR_M_FLAGS_LOOP,
                                                               SR_M_CUB, SR_M_CUB, SR_M_CUB };

typedef struct sr_micro_row {
    int pattern;
    double fraction;
    uint32_t live;
    double us[SR_M_COUNT];                /* median microseconds per run */
} sr_micro_row;

/* Counters in one small device array (and its pinned host mirror). */
enum { SR_C_LIVE_N = 0, SR_C_BALLOT, SR_C_SPARE, SR_C_INIT, SR_C_CUB = SR_C_INIT + 3, SR_C_POP_STENCIL, SR_C_POP_FLAGS,
       SR_C_BAD, SR_C_SINK = SR_C_BAD + 4, SR_C_COUNT };

typedef struct sr_micro {
    int device;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    uint32_t n, aligned, words, reps, grid_compact, grid_gather, grid_loop;
    float live_share;   /* the row's live fraction: the ballot partition's forecast, as the
                           renderer gives it */
    sr_ray_soa src, dst_ballot, dst_cub;
    uint32_t *stencil, *stencil_saved, *flags, *idx, *seen, *counts, *host;
    float *in, *out, *times;
    void *cub_temp, *scratch;
    size_t cub_bytes, scratch_bytes;
} sr_micro;

static void sr_micro_free(sr_micro *m)
{
    sr_cuda_soa_free(&m->src);
    sr_cuda_soa_free(&m->dst_ballot);
    sr_cuda_soa_free(&m->dst_cub);
    cudaFree(m->stencil); cudaFree(m->stencil_saved); cudaFree(m->flags); cudaFree(m->idx); cudaFree(m->seen);
    cudaFree(m->counts); cudaFree(m->in); cudaFree(m->out); cudaFree(m->cub_temp); cudaFree(m->scratch);
    if (m->host) cudaFreeHost(m->host);
    if (m->start) cudaEventDestroy(m->start);
    if (m->stop) cudaEventDestroy(m->stop);
    if (m->stream) cudaStreamDestroy(m->stream);
    free(m->times);
}

static sr_status sr_micro_setup(sr_micro *m, sr_error *err)
{
    struct cudaDeviceProp prop;
    SR_CUDA_TRY(cudaSetDevice(m->device), "selecting the device");
    SR_CUDA_TRY(cudaGetDeviceProperties(&prop, m->device), "reading the device's properties");
    SR_CUDA_TRY(cudaStreamCreateWithFlags(&m->stream, cudaStreamNonBlocking), "creating a stream");
    SR_CUDA_TRY(cudaEventCreate(&m->start), "creating timing events");
    SR_CUDA_TRY(cudaEventCreate(&m->stop), "creating timing events");
    SR_CUDA_TRY(cudaMallocHost((void **)&m->host, SR_C_COUNT * sizeof(uint32_t)), "allocating pinned host memory");
    /* The renderer's compaction grid (compact.cu): one block per tile of 8 x SR_COMPACT_BLOCK
     * slots, sized by the expected count, which here is exact (the pool size). */
    m->grid_compact = (m->n + 8u * SR_COMPACT_BLOCK - 1u) / (8u * SR_COMPACT_BLOCK);
    SR_CUDA_TRY(sr_micro_gather_grid(m->device, &m->grid_gather), "sizing the gather grid");
    SR_CUDA_TRY(sr_micro_loop_grid(m->device, &m->grid_loop), "sizing the grid-stride kernels' grid");
    sr_status s = sr_cuda_soa_alloc(&m->src, m->aligned, "allocating the synthetic ray pool", err);
    if (!s) s = sr_cuda_soa_alloc(&m->dst_ballot, m->aligned, "allocating the synthetic ray pool", err);
    if (!s) s = sr_cuda_soa_alloc(&m->dst_cub, m->aligned, "allocating the synthetic ray pool", err);
    if (s) return s;
    const size_t slots = (size_t)m->aligned * sizeof(uint32_t), words = (size_t)m->words * sizeof(uint32_t);
    SR_CUDA_TRY(cudaMalloc((void **)&m->stencil, words), "allocating the stencil");
    SR_CUDA_TRY(cudaMalloc((void **)&m->stencil_saved, words), "allocating the stencil");
    SR_CUDA_TRY(cudaMalloc((void **)&m->seen, words), "allocating the check's bitmap");
    SR_CUDA_TRY(cudaMalloc((void **)&m->flags, slots), "allocating the flags");
    SR_CUDA_TRY(cudaMalloc((void **)&m->idx, slots), "allocating CUB's index array");
    SR_CUDA_TRY(cudaMalloc((void **)&m->in, slots), "allocating the kernels' input");
    SR_CUDA_TRY(cudaMalloc((void **)&m->out, slots), "allocating the kernels' output");
    SR_CUDA_TRY(cudaMalloc((void **)&m->counts, SR_C_COUNT * sizeof(uint32_t)), "allocating counters");
    SR_CUDA_TRY(sr_micro_cub_temp_bytes(m->n, &m->cub_bytes), "sizing CUB's temporary storage");
    SR_CUDA_TRY(cudaMalloc(&m->cub_temp, m->cub_bytes ? m->cub_bytes : 1), "allocating CUB's temporary storage");
    /* Three times the L2, read between runs, so no run finds the previous one's data cached. */
    m->scratch_bytes = (size_t)(prop.l2CacheSize > 0 ? prop.l2CacheSize : 64 << 20) * 3u;
    SR_CUDA_TRY(cudaMalloc(&m->scratch, m->scratch_bytes), "allocating the L2 flush buffer");
    SR_CUDA_TRY(cudaMemsetAsync(m->scratch, 0, m->scratch_bytes, m->stream), "clearing the L2 flush buffer");
    SR_CUDA_TRY(cudaMemsetAsync(m->in, 0, slots, m->stream), "clearing the kernels' input");
    SR_CUDA_TRY(cudaMemsetAsync(m->counts, 0, SR_C_COUNT * sizeof(uint32_t), m->stream), "clearing counters");
    SR_CUDA_TRY(sr_launch_micro_fill_pool(m->src, m->n, m->stream), "filling the synthetic ray pool");
    /* The compaction's counters live on the device, as in the renderer: before each run the
     * old count is n and the new count's counter is zero (the compaction leaves them so for
     * the next round; a copy of {n, 0} restores them). */
    SR_CUDA_TRY(cudaMemcpyAsync(&m->counts[SR_C_INIT], &m->n, sizeof m->n, cudaMemcpyHostToDevice, m->stream),
                "setting the live count");
    SR_CUDA_TRY(cudaStreamSynchronize(m->stream), "preparing the micro-benchmark");
    m->times = malloc(sizeof(float) * m->reps);
    if (!m->times) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory");
    return SR_OK;
}

/* Untimed work before a run: the ballot partition rewrites the stencil (the new one is the
 * first count bits), so it gets the live set back; the run that is checked writes into a
 * poisoned pool, so a slot it failed to write cannot pass for one an earlier run wrote. */
static sr_status sr_micro_prepare(sr_micro *m, sr_micro_method k, int checked, sr_error *err)
{
    if (k == SR_M_BALLOT) {
        SR_CUDA_TRY(cudaMemcpyAsync(m->stencil, m->stencil_saved, (size_t)m->words * sizeof(uint32_t),
                                    cudaMemcpyDeviceToDevice, m->stream), "restoring the stencil");
        SR_CUDA_TRY(cudaMemcpyAsync(&m->counts[SR_C_LIVE_N], &m->counts[SR_C_INIT], 3 * sizeof(uint32_t),
                                    cudaMemcpyDeviceToDevice, m->stream), "resetting the compaction counters");
    }
    if (checked && (k == SR_M_BALLOT || k == SR_M_CUB || k == SR_M_CUB_FIELD)) {
        sr_ray_soa *d = k == SR_M_BALLOT ? &m->dst_ballot : &m->dst_cub;
#define SR_X_POISON(type, name) \
        SR_CUDA_TRY(cudaMemsetAsync(d->name, 0xff, sizeof(type) * (size_t)m->aligned, m->stream), "poisoning the output pool");
        SR_RAY_FIELDS(SR_X_POISON)
#undef SR_X_POISON
    }
    SR_CUDA_TRY(sr_launch_micro_flush_l2(m->scratch, m->scratch_bytes, &m->counts[SR_C_SINK], m->stream),
                "launching the L2 flush");
    return SR_OK;
}

/* The timed work of one run. */
static sr_status sr_micro_enqueue(sr_micro *m, sr_micro_method k, sr_error *err)
{
    switch (k) {
    case SR_M_FLAGS:
    case SR_M_FLAGS_LOOP:
        SR_CUDA_TRY(sr_launch_micro_flags(m->flags, m->in, m->out, m->n, k == SR_M_FLAGS ? 0u : m->grid_loop, m->stream),
                    "launching the flags kernel");
        break;
    case SR_M_STENCIL:
    case SR_M_STENCIL_LOOP:
        SR_CUDA_TRY(sr_launch_micro_stencil(m->stencil, m->in, m->out, m->n, k == SR_M_STENCIL ? 0u : m->grid_loop,
                                            m->stream), "launching the stencil kernel");
        break;
    case SR_M_BALLOT:
        SR_CUDA_TRY(sr_launch_compact_live(m->src, m->dst_ballot, m->stencil, &m->counts[SR_C_LIVE_N],
                                           &m->counts[SR_C_BALLOT], m->n, m->live_share, m->words, m->stream),
                    "launching the ballot-partition compaction");
        break;
    case SR_M_CUB:
        SR_CUDA_TRY(sr_launch_micro_cub_compact(m->cub_temp, m->cub_bytes, m->src, m->dst_cub, m->flags, m->n, m->idx,
                                                &m->counts[SR_C_CUB], m->grid_gather, m->stream),
                    "running CUB DeviceSelect::Flagged and the gather");
        break;
    default:
        SR_CUDA_TRY(sr_launch_micro_cub_per_field(m->cub_temp, m->cub_bytes, m->src, m->dst_cub, m->flags, m->n,
                                                  &m->counts[SR_C_CUB], m->stream),
                    "running CUB DeviceSelect::Flagged per field");
        break;
    }
    return SR_OK;
}

/* Warm-up runs, then m->reps timed runs, each between its own pair of CUDA events; the
 * median in microseconds. */
static sr_status sr_micro_time(sr_micro *m, sr_micro_method k, double *us, sr_error *err)
{
    const uint32_t total = SR_MICRO_WARMUP + m->reps;
    for (uint32_t r = 0; r < total; r++) {
        sr_status s = sr_micro_prepare(m, k, r + 1 == total, err);
        if (s) return s;
        SR_CUDA_TRY(cudaEventRecord(m->start, m->stream), "recording a timing event");
        s = sr_micro_enqueue(m, k, err);
        if (s) return s;
        SR_CUDA_TRY(cudaEventRecord(m->stop, m->stream), "recording a timing event");
        SR_CUDA_TRY(cudaEventSynchronize(m->stop), "running the micro-benchmark kernels");
        float ms = 0;
        SR_CUDA_TRY(cudaEventElapsedTime(&ms, m->start, m->stop), "reading a timing event");
        if (r >= SR_MICRO_WARMUP) m->times[r - SR_MICRO_WARMUP] = ms;
    }
    *us = 1000.0 * sr_median_f(m->times, m->reps);
    return SR_OK;
}

/* After a compaction's last run: its count is the stencil's popcount, and its output holds
 * each live ray exactly once with all its fields (and, for the ballot, the new stencil is
 * the first count bits). */
static sr_status sr_micro_check(sr_micro *m, sr_micro_method k, const sr_micro_row *row, sr_error *err)
{
    const int ballot = k == SR_M_BALLOT;
    const uint32_t *count = &m->counts[ballot ? SR_C_BALLOT : SR_C_CUB];
    SR_CUDA_TRY(sr_launch_micro_check(ballot ? m->dst_ballot : m->dst_cub, count, m->aligned, m->stencil_saved, m->n,
                                      ballot ? m->stencil : NULL, ballot ? m->words : 0u, m->seen,
                                      &m->counts[SR_C_BAD], m->stream),
                "launching the compaction check");
    SR_CUDA_TRY(cudaMemcpyAsync(m->host, m->counts, SR_C_COUNT * sizeof(uint32_t), cudaMemcpyDeviceToHost, m->stream),
                "reading the check's results");
    SR_CUDA_TRY(cudaStreamSynchronize(m->stream), "checking the compaction");
    const uint32_t got = m->host[ballot ? SR_C_BALLOT : SR_C_CUB], *bad = &m->host[SR_C_BAD];
    /* The ballot partition also leaves the old count zeroed for the next round. */
    const int reset = !ballot || m->host[SR_C_LIVE_N] == 0;
    if (!reset)
        return sr_fail(err, SR_ERR_RUNTIME, "ballot compaction did not reset the old count (%u; want 0)",
                       m->host[SR_C_LIVE_N]);
    if (got != row->live || bad[0] || bad[1] || bad[2] || bad[3])
        return sr_fail(err, SR_ERR_RUNTIME,
                       "%s compaction is wrong (%s pattern, live fraction %g, %u slots): count %u but the stencil "
                       "holds %u live rays; %u output slots not live, %u duplicated, %u with fields that did not "
                       "move with their pixel, %u wrong new-stencil words",
                       sr_micro_method_name[k], sr_micro_pattern[row->pattern], row->fraction, m->n, got, row->live,
                       bad[0], bad[1], bad[2], bad[3]);
    return SR_OK;
}

static sr_status sr_micro_config(sr_micro *m, sr_micro_row *row, sr_error *err)
{
    m->live_share = (float)row->fraction;
    SR_CUDA_TRY(sr_launch_micro_fill_masks(m->stencil, m->flags, m->n, m->aligned, row->pattern, row->fraction,
                                           SR_MICRO_SEED, m->stream), "filling the live masks");
    SR_CUDA_TRY(cudaMemcpyAsync(m->stencil_saved, m->stencil, (size_t)m->words * sizeof(uint32_t),
                                cudaMemcpyDeviceToDevice, m->stream), "saving the stencil");
    SR_CUDA_TRY(cudaMemsetAsync(&m->counts[SR_C_POP_STENCIL], 0, 2 * sizeof(uint32_t), m->stream), "clearing counters");
    SR_CUDA_TRY(sr_launch_count_live(m->stencil, NULL, m->n, &m->counts[SR_C_POP_STENCIL], m->stream),
                "counting the stencil's live rays");
    SR_CUDA_TRY(sr_launch_count_live(NULL, m->flags, m->n, &m->counts[SR_C_POP_FLAGS], m->stream),
                "counting the flags' live rays");
    SR_CUDA_TRY(cudaMemcpyAsync(m->host, m->counts, SR_C_COUNT * sizeof(uint32_t), cudaMemcpyDeviceToHost, m->stream),
                "reading the live counts");
    SR_CUDA_TRY(cudaStreamSynchronize(m->stream), "building the live masks");
    row->live = m->host[SR_C_POP_STENCIL];
    if (row->live != m->host[SR_C_POP_FLAGS])
        return sr_fail(err, SR_ERR_RUNTIME, "the stencil (%u live) and the flags (%u live) disagree (%s pattern, "
                       "live fraction %g)", row->live, m->host[SR_C_POP_FLAGS], sr_micro_pattern[row->pattern],
                       row->fraction);
    for (int k = 0; k < SR_M_COUNT; k++) {
        sr_status s = sr_micro_time(m, (sr_micro_method)k, &row->us[k], err);
        if (!s && k >= SR_M_BALLOT) s = sr_micro_check(m, (sr_micro_method)k, row, err);
        if (s) return s;
    }
    return SR_OK;
}

/* ---- output ---------------------------------------------------------------------------- */

static double sr_per_s(double count, double us) { return us > 0 ? count / (us * 1e-6) : 0; }
/* Bytes of ray state read and written to move `live` rays. */
static double sr_moved_gb_s(uint32_t live, double us) { return sr_per_s(2.0 * SR_RAY_BYTES * live, us) * 1e-9; }

static void sr_micro_print(FILE *out, const sr_micro *m, const sr_micro_row *rows, uint32_t n)
{
    int arrays = 0
#define SR_X_ONE(type, name) + 1
        SR_RAY_FIELDS(SR_X_ONE)
#undef SR_X_ONE
        ;
    fprintf(out, "\nMasking: one launch over all %u slots of an \"empty work\" kernel (live rays: out = in*2 + 1)\n"
                 "  flags   = if (flags[i] == 0) return;   stencil = the project's frame (1 bit per ray, ballot)\n"
                 "  Gmask/s = masked-out (dead) slots per second, Gslot/s = all slots per second, in 1e9\n", m->n);
    for (int loop = 0; loop < 2; loop++) {
        const sr_micro_method kf = loop ? SR_M_FLAGS_LOOP : SR_M_FLAGS, ks = loop ? SR_M_STENCIL_LOOP : SR_M_STENCIL;
        if (loop)
            fprintf(out, "\n  grid-stride: %u resident blocks of %u loop over the slots (the compact mask's frame)\n",
                    m->grid_loop, (unsigned)SR_STAGE_BLOCK);
        else
            fprintf(out, "  one thread per slot (the flags and stencil masks' frames), blocks of %u\n",
                    (unsigned)SR_STAGE_BLOCK);
        fprintf(out, "%-9s %5s %10s | %9s %10s | %13s %15s | %13s %15s | %8s\n", "pattern", "live", "live rays",
                "flags us", "stencil us", "flags Gmask/s", "stencil Gmask/s", "flags Gslot/s", "stencil Gslot/s",
                "speed-up");
        for (uint32_t i = 0; i < n; i++) {
            const sr_micro_row *r = &rows[i];
            const double dead = (double)m->n - r->live, uf = r->us[kf], us = r->us[ks];
            char gf[32] = "-", gs[32] = "-";
            if (dead > 0) {
                snprintf(gf, sizeof gf, "%.2f", sr_per_s(dead, uf) * 1e-9);
                snprintf(gs, sizeof gs, "%.2f", sr_per_s(dead, us) * 1e-9);
            }
            fprintf(out, "%-9s %5.2f %10u | %9.1f %10.1f | %13s %15s | %13.2f %15.2f | %7.2fx\n",
                    sr_micro_pattern[r->pattern], r->fraction, r->live, uf, us, gf, gs, sr_per_s(m->n, uf) * 1e-9,
                    sr_per_s(m->n, us) * 1e-9, us > 0 ? uf / us : 0);
        }
    }
    fprintf(out, "  speed-up = flags us / stencil us\n");
    fprintf(out, "\nCompaction: move the live rays' whole state (%d B/ray in %d arrays) to the front of another pool\n"
                 "  ballot = the project's ballot partition (stencil in, live count on the device, new stencil out),\n"
                 "           %u blocks of %u threads, a tile of 8 x %u slots each, then the stencil prefix;\n"
                 "           a thread moves two rays at once where the live fraction is at least %.2f, else one\n"
                 "  CUB    = DeviceSelect::Flagged of the live slot indices, then one gather of every field\n"
                 "  GB/s   = ray state read + written; every output checked: the same set, count = popcount\n",
            (int)SR_RAY_BYTES, arrays, m->grid_compact, SR_COMPACT_BLOCK, SR_COMPACT_BLOCK, (double)SR_COMPACT_PAIRS_FROM);
    fprintf(out, "%-9s %5s %10s | %9s %8s %7s | %9s %8s %7s | %8s | %12s\n", "pattern", "live", "live rays",
            "ballot us", "Mrays/s", "GB/s", "CUB us", "Mrays/s", "GB/s", "speed-up", "CUB/field us");
    for (uint32_t i = 0; i < n; i++) {
        const sr_micro_row *r = &rows[i];
        const double ub = r->us[SR_M_BALLOT], uc = r->us[SR_M_CUB];
        fprintf(out, "%-9s %5.2f %10u | %9.1f %8.0f %7.0f | %9.1f %8.0f %7.0f | %7.2fx | %12.1f\n",
                sr_micro_pattern[r->pattern], r->fraction, r->live, ub, sr_per_s(r->live, ub) * 1e-6,
                sr_moved_gb_s(r->live, ub), uc, sr_per_s(r->live, uc) * 1e-6, sr_moved_gb_s(r->live, uc),
                ub > 0 ? uc / ub : 0, r->us[SR_M_CUB_FIELD]);
    }
    fprintf(out, "  speed-up = CUB us / ballot us; CUB/field = Flagged once per array (the naive use, for scale)\n");
}

/* One row per (pattern, live fraction, method): table is "masking" or "compaction"; speedup
 * is the baseline's time over this method's (baseline: flags for stencil, flags_loop for
 * stencil_loop, cub for the compactions). */
static sr_status sr_micro_write_csv(const char *path, const sr_micro *m, const sr_micro_row *rows, uint32_t n,
                                    sr_error *err)
{
    sr_textout out;
    sr_status s = sr_textout_open(&out, path, err);
    if (s) return s;
    FILE *f = out.f;
    fprintf(f, "table,pattern,live_fraction,slots,live_rays,method,median_us,slots_per_s,masked_slots_per_s,"
               "rays_per_s,moved_gb_per_s,speedup\n");
    for (uint32_t i = 0; i < n; i++) {
        const sr_micro_row *r = &rows[i];
        for (int k = 0; k < SR_M_COUNT; k++) {
            const int masking = k < SR_M_BALLOT;
            const double us = r->us[k], base = r->us[sr_micro_baseline[k]];
            fprintf(f, "%s,%s,%g,%u,%u,%s,%.3f,%.6g,", masking ? "masking" : "compaction", sr_micro_pattern[r->pattern],
                    r->fraction, m->n, r->live, sr_micro_method_name[k], us, sr_per_s(m->n, us));
            if (masking) fprintf(f, "%.6g,,", sr_per_s((double)m->n - r->live, us));
            else fprintf(f, ",%.6g,%.6g", sr_per_s(r->live, us), sr_moved_gb_s(r->live, us));
            fprintf(f, ",%.4f\n", us > 0 ? base / us : 0);
        }
    }
    return sr_textout_commit(&out, err);
}

static sr_status sr_micro_write_json(const char *path, const char *gpu, const char *date, const sr_micro *m,
                                     const sr_micro_row *rows, uint32_t n, sr_error *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "stencilray", SR_VERSION);
    cJSON_AddStringToObject(root, "mode", "micro");
    cJSON_AddStringToObject(root, "device", gpu);
    cJSON_AddStringToObject(root, "date", date);
    cJSON *setup = cJSON_AddObjectToObject(root, "setup");
    cJSON_AddNumberToObject(setup, "slots", m->n);
    cJSON_AddNumberToObject(setup, "ray_bytes", (double)SR_RAY_BYTES);
    cJSON_AddNumberToObject(setup, "warmup", SR_MICRO_WARMUP);
    cJSON_AddNumberToObject(setup, "reps", m->reps);
    cJSON_AddStringToObject(setup, "statistic", "median");
    cJSON_AddBoolToObject(setup, "l2_flushed", 1);
    cJSON_AddNumberToObject(setup, "seed", SR_MICRO_SEED);
    cJSON_AddNumberToObject(setup, "stage_block", SR_STAGE_BLOCK);
    cJSON_AddNumberToObject(setup, "compact_grid", m->grid_compact);
    cJSON_AddNumberToObject(setup, "gather_grid", m->grid_gather);
    cJSON_AddNumberToObject(setup, "loop_grid", m->grid_loop);
    cJSON *mask = cJSON_AddArrayToObject(root, "masking"), *comp = cJSON_AddArrayToObject(root, "compaction");
    for (uint32_t i = 0; i < n; i++) {
        const sr_micro_row *r = &rows[i];
        const double dead = (double)m->n - r->live;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "pattern", sr_micro_pattern[r->pattern]);
        cJSON_AddNumberToObject(o, "live_fraction", r->fraction);
        cJSON_AddNumberToObject(o, "live_rays", r->live);
        for (int k = SR_M_FLAGS; k < SR_M_BALLOT; k++) {
            cJSON *t = cJSON_AddObjectToObject(o, sr_micro_method_name[k]);
            cJSON_AddNumberToObject(t, "median_us", r->us[k]);
            cJSON_AddNumberToObject(t, "slots_per_s", sr_per_s(m->n, r->us[k]));
            cJSON_AddNumberToObject(t, "masked_slots_per_s", sr_per_s(dead, r->us[k]));
        }
        cJSON_AddNumberToObject(o, "stencil_speedup", r->us[SR_M_STENCIL] > 0 ? r->us[SR_M_FLAGS] / r->us[SR_M_STENCIL] : 0);
        cJSON_AddNumberToObject(o, "stencil_loop_speedup",
                                r->us[SR_M_STENCIL_LOOP] > 0 ? r->us[SR_M_FLAGS_LOOP] / r->us[SR_M_STENCIL_LOOP] : 0);
        cJSON_AddItemToArray(mask, o);
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "pattern", sr_micro_pattern[r->pattern]);
        cJSON_AddNumberToObject(o, "live_fraction", r->fraction);
        cJSON_AddNumberToObject(o, "live_rays", r->live);
        for (int k = SR_M_BALLOT; k < SR_M_COUNT; k++) {
            cJSON *t = cJSON_AddObjectToObject(o, sr_micro_method_name[k]);
            cJSON_AddNumberToObject(t, "median_us", r->us[k]);
            cJSON_AddNumberToObject(t, "slots_per_s", sr_per_s(m->n, r->us[k]));
            cJSON_AddNumberToObject(t, "rays_per_s", sr_per_s(r->live, r->us[k]));
            cJSON_AddNumberToObject(t, "moved_gb_per_s", sr_moved_gb_s(r->live, r->us[k]));
            cJSON_AddBoolToObject(t, "checked", 1);
        }
        cJSON_AddNumberToObject(o, "ballot_speedup_vs_cub", r->us[SR_M_BALLOT] > 0 ? r->us[SR_M_CUB] / r->us[SR_M_BALLOT] : 0);
        cJSON_AddItemToArray(comp, o);
    }
    return sr_textout_json(path, root, err);
}

/* ---- entry ------------------------------------------------------------------------------ */

sr_status sr_bench_micro(const sr_micro_opts *opts, FILE *out, sr_error *err)
{
    sr_status ready = sr_cuda_require_device(opts->device, err);
    if (ready) return ready;
    const uint32_t rays = opts->rays ? opts->rays : SR_MICRO_DEFAULT_RAYS;
    if (rays > SR_MICRO_MAX_RAYS)
        return sr_fail(err, SR_ERR_INPUT, "the micro-benchmark takes at most %u rays (asked for %u)", SR_MICRO_MAX_RAYS, rays);

    sr_micro m;
    memset(&m, 0, sizeof m);
    m.device = opts->device;
    m.n = rays;
    m.aligned = (rays + SR_POOL_ALIGN - 1u) / SR_POOL_ALIGN * SR_POOL_ALIGN;
    m.words = m.aligned / 32u;
    m.reps = opts->reps ? opts->reps : 20u;

    char gpu[512], date[64];
    sr_cuda_gpu_summary(opts->device, gpu, sizeof gpu);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(out, "# GPU: %s\n", gpu);
    fprintf(out, "# micro-benchmark | %u ray slots, %d B of ray state each | median of %u timed runs after %u "
                 "warm-up, L2 flushed before each | %s\n", m.n, (int)SR_RAY_BYTES, m.reps, SR_MICRO_WARMUP, date);
    fflush(out);

    sr_micro_row rows[SR_MICRO_CONFIGS];
    memset(rows, 0, sizeof rows);
    uint32_t done = 0;
    sr_status s = sr_micro_setup(&m, err);
    for (int p = 0; !s && p < SR_MICRO_PATTERNS; p++)
        for (int f = 0; !s && f < SR_MICRO_FRACTIONS; f++) {
            if (!opts->quiet) {
                fprintf(stderr, "\rbench --micro: %-8s live %.2f (%u/%u) ", sr_micro_pattern[p], sr_micro_fraction[f],
                        done + 1, SR_MICRO_CONFIGS);
                fflush(stderr);
            }
            rows[done].pattern = p;
            rows[done].fraction = sr_micro_fraction[f];
            s = sr_micro_config(&m, &rows[done], err);
            if (!s) done++;
        }
    if (!opts->quiet) fprintf(stderr, "\r%60s\r", "");
    if (!s) {
        sr_micro_print(out, &m, rows, done);
        fflush(out);
        if (opts->csv) s = sr_micro_write_csv(opts->csv, &m, rows, done, err);
        if (!s && opts->json) s = sr_micro_write_json(opts->json, gpu, date, &m, rows, done, err);
    }
    sr_micro_free(&m);
    return s;
}
