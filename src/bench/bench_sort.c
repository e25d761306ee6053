/* bench_sort.c: `stencilray bench --sort-micro`. For 1 M, 8 M and 32 M pairs of
 * 32-bit keys and 32-bit values (the values are positions, as the ray sort's are), the median
 * time of the merge sort and of CUB's radix sort, timed with CUDA events; both outputs are
 * copied back and must be identical (the merge sort orders ties by value, the radix sort is
 * stable), sorted, and a permutation of the input pairs. Then the two ways to reorder a ray
 * pool by the same keys: sort (key, index) pairs and gather every field, or sort the state
 * itself (the rays packed into records that the radix sort carries as values); both pools
 * are checked field by field. Without CUDA it says so. */
#include "bench_sort.h"
#include "../backend/backend.h"

#ifdef SR_HAVE_CUDA

#include "../io/output/textout.h"
#include "../../kernels/bench/micro.h"
#include "../../kernels/frames/sort.h"
#include "../../kernels/frames/sort_net.h"

#include <cJSON.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../backend/cuda/cuda_check.h"
#include "../backend/cuda/cuda_soa.h"
#include "stats.h"

#define SR_SORT_MICRO_WARMUP 2u
#define SR_SORT_MICRO_SIZES 3
#define SR_SORT_MICRO_DISTS 2

static const uint32_t sr_sort_micro_size[SR_SORT_MICRO_SIZES] = { 1u << 20, 8u << 20, 32u << 20 };
static const char *const sr_sort_micro_dist[SR_SORT_MICRO_DISTS] = { "uniform", "1024-distinct" };

/* Reordering methods, timed as a whole (keys already made). */
enum { SR_RE_GATHER_RADIX = 0, SR_RE_GATHER_MERGE, SR_RE_RECORDS, SR_RE_GATHER_ONLY, SR_RE_COUNT };
static const char *const sr_re_name[SR_RE_COUNT] = { "radix+gather", "merge+gather", "records", "gather_only" };

typedef struct sr_sort_row {
    uint32_t n;
    int dist;
    double merge_ms, radix_ms;
} sr_sort_row;

typedef struct sr_reorder_row {
    uint32_t n;
    double ms[SR_RE_COUNT];
} sr_reorder_row;

typedef struct sr_sort_micro {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    uint32_t cap, reps;
    uint32_t *keys, *vals, *keys_m, *vals_m, *keys_r, *vals_r;   /* input, merge out, radix out */
    void *temp, *rec_temp;
    size_t temp_bytes, rec_bytes;
    sr_ray_soa src, dst_gather, dst_records;
    uint32_t *host_keys, *host_vals, *host_a, *host_b, *host_seen;
    float *times;
} sr_sort_micro;

static void sr_sort_micro_free(sr_sort_micro *m)
{
    cudaFree(m->keys); cudaFree(m->vals); cudaFree(m->keys_m); cudaFree(m->vals_m); cudaFree(m->keys_r);
    cudaFree(m->vals_r); cudaFree(m->temp); cudaFree(m->rec_temp);
    sr_cuda_soa_free(&m->src); sr_cuda_soa_free(&m->dst_gather); sr_cuda_soa_free(&m->dst_records);
    free(m->host_keys); free(m->host_vals); free(m->host_a); free(m->host_b); free(m->host_seen); free(m->times);
    if (m->start) cudaEventDestroy(m->start);
    if (m->stop) cudaEventDestroy(m->stop);
    if (m->stream) cudaStreamDestroy(m->stream);
}

static sr_status sr_sort_micro_setup(sr_sort_micro *m, int device, sr_error *err)
{
    SR_CUDA_TRY(cudaSetDevice(device), "selecting the device");
    SR_CUDA_TRY(cudaStreamCreateWithFlags(&m->stream, cudaStreamNonBlocking), "creating a stream");
    SR_CUDA_TRY(cudaEventCreate(&m->start), "creating timing events");
    SR_CUDA_TRY(cudaEventCreate(&m->stop), "creating timing events");
    const size_t words = (size_t)m->cap * sizeof(uint32_t);
    uint32_t **arrays[6] = { &m->keys, &m->vals, &m->keys_m, &m->vals_m, &m->keys_r, &m->vals_r };
    for (int k = 0; k < 6; k++) SR_CUDA_TRY(cudaMalloc((void **)arrays[k], words), "allocating keys and values");
    size_t merge_bytes = 0, radix_bytes = 0;
    SR_CUDA_TRY(sr_sort_temp_bytes(SR_SORT_MERGE, m->cap, &merge_bytes), "sizing the merge sort's storage");
    SR_CUDA_TRY(sr_sort_temp_bytes(SR_SORT_RADIX, m->cap, &radix_bytes), "sizing the radix sort's storage");
    m->temp_bytes = merge_bytes > radix_bytes ? merge_bytes : radix_bytes;
    SR_CUDA_TRY(cudaMalloc(&m->temp, m->temp_bytes), "allocating the sorts' storage");
    SR_CUDA_TRY(sr_sort_records_temp_bytes(m->cap, &m->rec_bytes), "sizing the record sort's storage");
    SR_CUDA_TRY(cudaMalloc(&m->rec_temp, m->rec_bytes), "allocating the record sort's storage");
    sr_status s = sr_cuda_soa_alloc(&m->src, m->cap, "allocating a ray pool", err);
    if (!s) s = sr_cuda_soa_alloc(&m->dst_gather, m->cap, "allocating a ray pool", err);
    if (!s) s = sr_cuda_soa_alloc(&m->dst_records, m->cap, "allocating a ray pool", err);
    if (s) return s;
    m->host_keys = malloc(words);
    m->host_vals = malloc(words);
    m->host_a = malloc(words);
    m->host_b = malloc(words);
    m->host_seen = malloc(words);
    m->times = malloc(sizeof(float) * m->reps);
    if (!m->host_keys || !m->host_vals || !m->host_a || !m->host_b || !m->host_seen || !m->times)
        return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for %u keys", m->cap);
    SR_CUDA_TRY(sr_launch_micro_fill_pool(m->src, m->cap, m->stream), "filling the ray pool");
    return SR_OK;
}

static uint32_t sr_hash(uint32_t x)
{
    x ^= x >> 16; x *= 0x7feb352du;
    x ^= x >> 15; x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* Keys (uniform 32-bit, or 1024 distinct values spread over 32 bits) and positions. */
static sr_status sr_sort_upload(sr_sort_micro *m, uint32_t n, int dist, sr_error *err)
{
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t h = sr_hash(i ^ 0x5eed2024u);
        m->host_keys[i] = dist == 0 ? h : (h % 1024u) * 4194301u;
        m->host_vals[i] = i;
    }
    SR_CUDA_TRY(cudaMemcpy(m->keys, m->host_keys, (size_t)n * 4u, cudaMemcpyHostToDevice), "uploading keys");
    SR_CUDA_TRY(cudaMemcpy(m->vals, m->host_vals, (size_t)n * 4u, cudaMemcpyHostToDevice), "uploading values");
    return SR_OK;
}

/* What one timed run enqueues. */
typedef enum { SR_RUN_MERGE = 0, SR_RUN_RADIX, SR_RUN_RE_RADIX, SR_RUN_RE_MERGE, SR_RUN_RE_RECORDS, SR_RUN_RE_GATHER } sr_run;

static sr_status sr_sort_enqueue(sr_sort_micro *m, sr_run k, uint32_t n, sr_error *err)
{
    switch (k) {
    case SR_RUN_MERGE:
    case SR_RUN_RE_MERGE:
        SR_CUDA_TRY(sr_sort_pairs(SR_SORT_MERGE, m->temp, m->temp_bytes, m->keys, m->vals, m->keys_m, m->vals_m, n,
                                  m->stream), "running the merge sort");
        if (k == SR_RUN_RE_MERGE)
            SR_CUDA_TRY(sr_sort_gather(m->src, m->dst_gather, m->vals_m, n, m->stream), "gathering rays");
        break;
    case SR_RUN_RADIX:
    case SR_RUN_RE_RADIX:
        SR_CUDA_TRY(sr_sort_pairs(SR_SORT_RADIX, m->temp, m->temp_bytes, m->keys, m->vals, m->keys_r, m->vals_r, n,
                                  m->stream), "running the radix sort");
        if (k == SR_RUN_RE_RADIX)
            SR_CUDA_TRY(sr_sort_gather(m->src, m->dst_gather, m->vals_r, n, m->stream), "gathering rays");
        break;
    case SR_RUN_RE_RECORDS:
        SR_CUDA_TRY(sr_sort_records(m->rec_temp, m->rec_bytes, m->keys, m->src, m->dst_records, n, m->stream),
                    "sorting ray records");
        break;
    case SR_RUN_RE_GATHER:
        SR_CUDA_TRY(sr_sort_gather(m->src, m->dst_gather, m->vals_r, n, m->stream), "gathering rays");
        break;
    }
    return SR_OK;
}

/* Median milliseconds of `reps` runs after the warm-up. */
static sr_status sr_sort_time(sr_sort_micro *m, sr_run k, uint32_t n, double *ms, sr_error *err)
{
    for (uint32_t r = 0; r < SR_SORT_MICRO_WARMUP + m->reps; r++) {
        SR_CUDA_TRY(cudaEventRecord(m->start, m->stream), "recording a timing event");
        sr_status s = sr_sort_enqueue(m, k, n, err);
        if (s) return s;
        SR_CUDA_TRY(cudaEventRecord(m->stop, m->stream), "recording a timing event");
        SR_CUDA_TRY(cudaEventSynchronize(m->stop), "running the sort");
        float t = 0;
        SR_CUDA_TRY(cudaEventElapsedTime(&t, m->start, m->stop), "reading a timing event");
        if (r >= SR_SORT_MICRO_WARMUP) m->times[r - SR_SORT_MICRO_WARMUP] = t;
    }
    *ms = sr_median_f(m->times, m->reps);
    return SR_OK;
}

/* Both sorts' outputs: identical, sorted, and each output pair is an input pair, once. */
static sr_status sr_sort_check(sr_sort_micro *m, uint32_t n, int dist, sr_error *err)
{
    const size_t bytes = (size_t)n * sizeof(uint32_t);
    SR_CUDA_TRY(cudaMemcpy(m->host_a, m->keys_m, bytes, cudaMemcpyDeviceToHost), "reading the merge sort's keys");
    SR_CUDA_TRY(cudaMemcpy(m->host_b, m->keys_r, bytes, cudaMemcpyDeviceToHost), "reading the radix sort's keys");
    if (memcmp(m->host_a, m->host_b, bytes))
        return sr_fail(err, SR_ERR_RUNTIME, "check failed: merge and radix sort give different keys (%u %s keys)", n,
                       sr_sort_micro_dist[dist]);
    for (uint32_t i = 0; i + 1 < n; i++)
        if (m->host_a[i] > m->host_a[i + 1])
            return sr_fail(err, SR_ERR_RUNTIME, "check failed: keys out of order at %u (%u %s keys)", i, n,
                           sr_sort_micro_dist[dist]);
    SR_CUDA_TRY(cudaMemcpy(m->host_a, m->vals_m, bytes, cudaMemcpyDeviceToHost), "reading the merge sort's values");
    SR_CUDA_TRY(cudaMemcpy(m->host_b, m->vals_r, bytes, cudaMemcpyDeviceToHost), "reading the radix sort's values");
    if (memcmp(m->host_a, m->host_b, bytes))
        return sr_fail(err, SR_ERR_RUNTIME, "check failed: merge and radix sort give different values (%u %s keys)", n,
                       sr_sort_micro_dist[dist]);
    memset(m->host_seen, 0, bytes);
    SR_CUDA_TRY(cudaMemcpy(m->host_b, m->keys_m, bytes, cudaMemcpyDeviceToHost), "reading the merge sort's keys");
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t v = m->host_a[i];
        if (v >= n || m->host_seen[v]++ || m->host_keys[v] != m->host_b[i])
            return sr_fail(err, SR_ERR_RUNTIME, "check failed: output %u is not an input pair, once (%u %s keys)", i, n,
                           sr_sort_micro_dist[dist]);
    }
    return SR_OK;
}

/* Both reordered pools: slot i holds, in every field, what the pool's slot order[i] held. */
static sr_status sr_reorder_check(sr_sort_micro *m, uint32_t n, sr_error *err)
{
    const size_t bytes = (size_t)n * sizeof(uint32_t);
    SR_CUDA_TRY(cudaMemcpy(m->host_vals, m->vals_r, bytes, cudaMemcpyDeviceToHost), "reading the order");
    const sr_ray_soa *pools[2] = { &m->dst_gather, &m->dst_records };
    for (int p = 0; p < 2; p++) {
        uint32_t f = 0;
#define SR_X_CHECK(type, name)                                                                                  \
        SR_CUDA_TRY(cudaMemcpy(m->host_a, pools[p]->name, (size_t)n * sizeof(type), cudaMemcpyDeviceToHost),     \
                    "reading a ray pool");                                                                      \
        for (uint32_t i = 0; i < n; i++) {                                                                      \
            type got;                                                                                           \
            memcpy(&got, (const unsigned char *)m->host_a + (size_t)i * sizeof got, sizeof got);                \
            if (got != SR_MICRO_VALUE_##type(m->host_vals[i], f))                                               \
                return sr_fail(err, SR_ERR_RUNTIME, "check failed: %s reordering, slot %u, field %s (%u rays)",   \
                               p ? "record" : "gather", i, #name, n);                                           \
        }                                                                                                       \
        f++;
        SR_RAY_FIELDS(SR_X_CHECK)
#undef SR_X_CHECK
    }
    return SR_OK;
}

static double sr_gkeys(uint32_t n, double ms) { return ms > 0 ? (double)n / (ms * 1e-3) * 1e-9 : 0; }

static void sr_sort_print(FILE *out, const sr_sort_row *rows, uint32_t nrows, const sr_reorder_row *re, uint32_t nre)
{
    fprintf(out, "\nSort: (32-bit key, 32-bit value) pairs, values = positions; Gkeys/s = 1e9 pairs per second\n"
                 "  merge = the vector-network merge sort, merge-path split (kernels/frames/sort.cu), tile %u = %u threads x %u\n"
                 "  radix = CUB DeviceRadixSort::SortPairs, 32 key bits; outputs identical and checked on the host\n",
            SR_SORT_TILE, SR_SORT_BLOCK, SR_SORT_ITEMS);
    fprintf(out, "%10s  %-13s | %9s %8s | %9s %8s | %12s\n", "keys", "keys are", "merge ms", "Gkeys/s", "radix ms",
            "Gkeys/s", "merge/radix");
    for (uint32_t i = 0; i < nrows; i++) {
        const sr_sort_row *r = &rows[i];
        fprintf(out, "%10u  %-13s | %9.3f %8.2f | %9.3f %8.2f | %11.2fx\n", r->n, sr_sort_micro_dist[r->dist],
                r->merge_ms, sr_gkeys(r->n, r->merge_ms), r->radix_ms, sr_gkeys(r->n, r->radix_ms),
                r->radix_ms > 0 ? r->merge_ms / r->radix_ms : 0);
    }
    fprintf(out, "  merge/radix = merge ms / radix ms (above 1: radix is faster)\n");
    fprintf(out, "\nReorder a ray pool by uniform keys (%d B per ray): ms for the whole reordering\n"
                 "  radix+gather, merge+gather = sort (key, slot) pairs, then gather every field into the other pool\n"
                 "  records = sort the state itself: pack rays into records, radix-sort them as values, unpack\n"
                 "  gather only = the gather step alone\n", (int)SR_RAY_BYTES);
    fprintf(out, "%10s | %13s %13s %13s %13s\n", "rays", "radix+gather", "merge+gather", "records", "gather only");
    for (uint32_t i = 0; i < nre; i++)
        fprintf(out, "%10u | %13.3f %13.3f %13.3f %13.3f\n", re[i].n, re[i].ms[SR_RE_GATHER_RADIX],
                re[i].ms[SR_RE_GATHER_MERGE], re[i].ms[SR_RE_RECORDS], re[i].ms[SR_RE_GATHER_ONLY]);
}

static sr_status sr_sort_write_csv(const char *path, const sr_sort_row *rows, uint32_t nrows, const sr_reorder_row *re,
                                   uint32_t nre, sr_error *err)
{
    sr_textout out;
    sr_status s = sr_textout_open(&out, path, err);
    if (s) return s;
    fprintf(out.f, "table,n,keys,method,median_ms,gkeys_per_s\n");
    for (uint32_t i = 0; i < nrows; i++) {
        const sr_sort_row *r = &rows[i];
        fprintf(out.f, "sort,%u,%s,merge,%.4f,%.4f\n", r->n, sr_sort_micro_dist[r->dist], r->merge_ms,
                sr_gkeys(r->n, r->merge_ms));
        fprintf(out.f, "sort,%u,%s,radix,%.4f,%.4f\n", r->n, sr_sort_micro_dist[r->dist], r->radix_ms,
                sr_gkeys(r->n, r->radix_ms));
    }
    for (uint32_t i = 0; i < nre; i++)
        for (int k = 0; k < SR_RE_COUNT; k++)
            fprintf(out.f, "reorder,%u,uniform,%s,%.4f,%.4f\n", re[i].n, sr_re_name[k], re[i].ms[k],
                    sr_gkeys(re[i].n, re[i].ms[k]));
    return sr_textout_commit(&out, err);
}

static sr_status sr_sort_write_json(const char *path, const char *gpu, const char *date, uint32_t reps,
                                    const sr_sort_row *rows, uint32_t nrows, const sr_reorder_row *re, uint32_t nre,
                                    sr_error *err)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "stencilray", SR_VERSION);
    cJSON_AddStringToObject(root, "mode", "sort-micro");
    cJSON_AddStringToObject(root, "device", gpu);
    cJSON_AddStringToObject(root, "date", date);
    cJSON *setup = cJSON_AddObjectToObject(root, "setup");
    cJSON_AddNumberToObject(setup, "warmup", SR_SORT_MICRO_WARMUP);
    cJSON_AddNumberToObject(setup, "reps", reps);
    cJSON_AddStringToObject(setup, "statistic", "median");
    cJSON_AddNumberToObject(setup, "merge_tile", SR_SORT_TILE);
    cJSON_AddNumberToObject(setup, "merge_block", SR_SORT_BLOCK);
    cJSON_AddNumberToObject(setup, "merge_items_per_thread", SR_SORT_ITEMS);
    cJSON_AddNumberToObject(setup, "ray_bytes", (double)SR_RAY_BYTES);
    cJSON *sorts = cJSON_AddArrayToObject(root, "sort"), *reorder = cJSON_AddArrayToObject(root, "reorder");
    for (uint32_t i = 0; i < nrows; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "n", rows[i].n);
        cJSON_AddStringToObject(o, "keys", sr_sort_micro_dist[rows[i].dist]);
        cJSON_AddNumberToObject(o, "merge_ms", rows[i].merge_ms);
        cJSON_AddNumberToObject(o, "merge_gkeys_per_s", sr_gkeys(rows[i].n, rows[i].merge_ms));
        cJSON_AddNumberToObject(o, "radix_ms", rows[i].radix_ms);
        cJSON_AddNumberToObject(o, "radix_gkeys_per_s", sr_gkeys(rows[i].n, rows[i].radix_ms));
        cJSON_AddItemToArray(sorts, o);
    }
    for (uint32_t i = 0; i < nre; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "n", re[i].n);
        for (int k = 0; k < SR_RE_COUNT; k++) {
            char name[64];
            snprintf(name, sizeof name, "%s_ms", sr_re_name[k]);
            cJSON_AddNumberToObject(o, name, re[i].ms[k]);
        }
        cJSON_AddItemToArray(reorder, o);
    }
    return sr_textout_json(path, root, err);
}

sr_status sr_bench_sort_micro(const sr_sort_micro_opts *opts, FILE *out, sr_error *err)
{
    sr_status ready = sr_cuda_require_device(opts->device, err);
    if (ready) return ready;
    sr_sort_micro m;
    memset(&m, 0, sizeof m);
    m.reps = opts->reps ? opts->reps : 20u;
    int sizes = 0;
    for (int k = 0; k < SR_SORT_MICRO_SIZES; k++)
        if (!opts->max_keys || sr_sort_micro_size[k] <= opts->max_keys) { m.cap = sr_sort_micro_size[k]; sizes = k + 1; }
    if (!sizes) return sr_fail(err, SR_ERR_INPUT, "no size of the sort micro-benchmark is at most %u keys", opts->max_keys);

    char gpu[512], date[64];
    sr_cuda_gpu_summary(opts->device, gpu, sizeof gpu);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(out, "# GPU: %s\n", gpu);
    fprintf(out, "# sort micro-benchmark | 1 M = 2^20 | median of %u timed runs after %u warm-up, CUDA events, "
                 "L2 not flushed | %s\n", m.reps, SR_SORT_MICRO_WARMUP, date);
    fflush(out);

    sr_sort_row rows[SR_SORT_MICRO_SIZES * SR_SORT_MICRO_DISTS];
    sr_reorder_row re[SR_SORT_MICRO_SIZES];
    uint32_t nrows = 0, nre = 0;
    sr_status s = sr_sort_micro_setup(&m, opts->device, err);
    for (int k = 0; !s && k < sizes; k++)
        for (int dist = 0; !s && dist < SR_SORT_MICRO_DISTS; dist++) {
            const uint32_t n = sr_sort_micro_size[k];
            if (!opts->quiet) {
                fprintf(stderr, "\rbench --sort-micro: %u %s keys ", n, sr_sort_micro_dist[dist]);
                fflush(stderr);
            }
            sr_sort_row *r = &rows[nrows];
            r->n = n;
            r->dist = dist;
            s = sr_sort_upload(&m, n, dist, err);
            if (!s) s = sr_sort_time(&m, SR_RUN_MERGE, n, &r->merge_ms, err);
            if (!s) s = sr_sort_time(&m, SR_RUN_RADIX, n, &r->radix_ms, err);
            if (!s) s = sr_sort_check(&m, n, dist, err);
            if (s) break;
            nrows++;
            if (dist != 0) continue;
            /* Reordering a pool by the uniform keys (the radix output is the order to check). */
            sr_reorder_row *q = &re[nre];
            q->n = n;
            s = sr_sort_time(&m, SR_RUN_RE_RADIX, n, &q->ms[SR_RE_GATHER_RADIX], err);
            if (!s) s = sr_sort_time(&m, SR_RUN_RE_MERGE, n, &q->ms[SR_RE_GATHER_MERGE], err);
            if (!s) s = sr_sort_time(&m, SR_RUN_RE_RECORDS, n, &q->ms[SR_RE_RECORDS], err);
            if (!s) s = sr_sort_time(&m, SR_RUN_RE_GATHER, n, &q->ms[SR_RE_GATHER_ONLY], err);
            if (!s) s = sr_reorder_check(&m, n, err);
            if (!s) nre++;
        }
    if (!opts->quiet) fprintf(stderr, "\r%60s\r", "");
    if (!s) {
        sr_sort_print(out, rows, nrows, re, nre);
        fflush(out);
        if (opts->csv) s = sr_sort_write_csv(opts->csv, rows, nrows, re, nre, err);
        if (!s && opts->json) s = sr_sort_write_json(opts->json, gpu, date, m.reps, rows, nrows, re, nre, err);
    }
    sr_sort_micro_free(&m);
    return s;
}

#else

sr_status sr_bench_sort_micro(const sr_sort_micro_opts *opts, FILE *out, sr_error *err)
{
    (void)opts; (void)out;
    return sr_fail(err, SR_ERR_INPUT, "needs a CUDA device: this stencilray was built without CUDA "
                   "(no nvcc at configure time)");
}

#endif
