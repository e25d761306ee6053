/* Ballot-partition compaction on the GPU, checked on the host: for pool sizes that are and are
 * not multiples of a warp or a block, and live sets from none to all, sr_launch_compact_live
 * must return the stencil's popcount, move each live ray exactly once with all its fields,
 * and leave the first count bits set. The same pools go through CUB's DeviceSelect::Flagged
 * (kernels/bench/micro.cu) and through the micro-benchmark's device-side check, which must agree
 * with the host and must catch a planted fault. Exits 77 (skipped) without a CUDA device. */
#include "../unit/testutil.h"
#include "../../src/backend/backend.h"
#include "../../src/bench/bench_micro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SR_HAVE_CUDA
#include "../../kernels/bench/micro.h"

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) fail_msg("%s: %s (%s)", #call, cudaGetErrorString(e_), cudaGetErrorName(e_)); \
    } while (0)

enum { D_NONE = 0, D_FIRST, D_LAST, D_ONE_PERCENT, D_HALF, D_ALL, D_COUNT };
static const char *const density_name[D_COUNT] = { "none", "first ray only", "last ray only", "random 1%",
                                                   "random 50%", "all" };

static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16; x *= 0x7feb352du;
    x ^= x >> 15; x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static int live_at(int d, uint32_t i, uint32_t n)
{
    switch (d) {
    case D_FIRST: return i == 0;
    case D_LAST: return i == n - 1;
    case D_ONE_PERCENT: return hash32(i ^ 0x1234567u) % 100u == 0;
    case D_HALF: return hash32(i + 0x9e3779b9u) & 1u;
    case D_ALL: return 1;
    default: return 0;
    }
}

typedef struct gpu_pool {
    uint32_t n, aligned, words;
    sr_ray_soa src, dst;
    uint32_t *stencil, *flags, *idx, *seen, *counts;   /* [0] live_n, [1] counter, [2] ticket, [3..6] bad */
    void *temp;
    size_t temp_bytes;
    cudaStream_t stream;
} gpu_pool;

static void soa_alloc(sr_ray_soa *p, uint32_t slots)
{
#define X(type, name) CK(cudaMalloc((void **)&p->name, sizeof(type) * (size_t)slots));
    SR_RAY_FIELDS(X)
#undef X
}

static void soa_free(sr_ray_soa *p)
{
#define X(type, name) CK(cudaFree(p->name));
    SR_RAY_FIELDS(X)
#undef X
}

/* Host copy of a device pool's first `count` slots (one malloc'd block per field). */
static sr_ray_soa soa_download(const sr_ray_soa *d, uint32_t count)
{
    sr_ray_soa h;
#define X(type, name)                                                                           \
    h.name = malloc(sizeof(type) * (size_t)(count ? count : 1));                                \
    assert_non_null(h.name);                                                                    \
    if (count) CK(cudaMemcpy(h.name, d->name, sizeof(type) * (size_t)count, cudaMemcpyDeviceToHost));
    SR_RAY_FIELDS(X)
#undef X
    return h;
}

static void soa_host_free(sr_ray_soa *h)
{
#define X(type, name) free(h->name);
    SR_RAY_FIELDS(X)
#undef X
}

static void pool_open(gpu_pool *g, uint32_t n)
{
    memset(g, 0, sizeof *g);
    g->n = n;
    g->aligned = (n + SR_POOL_ALIGN - 1u) / SR_POOL_ALIGN * SR_POOL_ALIGN;
    g->words = g->aligned / 32u;
    CK(cudaStreamCreate(&g->stream));
    soa_alloc(&g->src, g->aligned);
    soa_alloc(&g->dst, g->aligned);
    CK(cudaMalloc((void **)&g->stencil, g->words * sizeof(uint32_t)));
    CK(cudaMalloc((void **)&g->seen, g->words * sizeof(uint32_t)));
    CK(cudaMalloc((void **)&g->flags, g->aligned * sizeof(uint32_t)));
    CK(cudaMalloc((void **)&g->idx, g->aligned * sizeof(uint32_t)));
    CK(cudaMalloc((void **)&g->counts, 8 * sizeof(uint32_t)));
    CK(sr_micro_cub_temp_bytes(n, &g->temp_bytes));
    CK(cudaMalloc(&g->temp, g->temp_bytes ? g->temp_bytes : 1));
    /* Known values: pixel = slot, every other field derived from the slot (micro.h). */
    CK(sr_launch_micro_fill_pool(g->src, n, g->stream));
    CK(cudaStreamSynchronize(g->stream));
    /* Check the fill from the host, so the rest of the test stands on known data. */
    sr_ray_soa h = soa_download(&g->src, n);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(h.pixel[i], i);
        assert_int_equal(sr_micro_bad_fields(h, i, i), 0);
    }
    soa_host_free(&h);
}

static void pool_close(gpu_pool *g)
{
    soa_free(&g->src);
    soa_free(&g->dst);
    CK(cudaFree(g->stencil)); CK(cudaFree(g->seen)); CK(cudaFree(g->flags)); CK(cudaFree(g->idx));
    CK(cudaFree(g->counts)); CK(cudaFree(g->temp));
    CK(cudaStreamDestroy(g->stream));
}

/* Upload the live set as a stencil (bits >= n clear) and as flags; returns the popcount. */
static uint32_t set_live(gpu_pool *g, int d, uint32_t *stencil_host)
{
    uint32_t *flags = calloc(g->aligned, sizeof *flags), live = 0;
    assert_non_null(flags);
    memset(stencil_host, 0, g->words * sizeof(uint32_t));
    for (uint32_t i = 0; i < g->n; i++)
        if (live_at(d, i, g->n)) {
            stencil_host[i >> 5] |= 1u << (i & 31u);
            flags[i] = 1;
            live++;
        }
    CK(cudaMemcpy(g->stencil, stencil_host, g->words * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g->flags, flags, g->aligned * sizeof(uint32_t), cudaMemcpyHostToDevice));
    free(flags);
    uint32_t pop = 0;
    for (uint32_t w = 0; w < g->words; w++) pop += (uint32_t)__builtin_popcount(stencil_host[w]);
    assert_int_equal(pop, live);
    return live;
}

/* Poison the output pool, so a slot the compaction did not write cannot pass. */
static void poison(gpu_pool *g)
{
#define X(type, name) CK(cudaMemset(g->dst.name, 0xff, sizeof(type) * (size_t)g->aligned));
    SR_RAY_FIELDS(X)
#undef X
}

/* The host's verdict on dst's first `count` slots: each live slot once, all fields with it. */
static void host_check(const gpu_pool *g, const uint32_t *live_stencil, uint32_t live, uint32_t count, const char *who)
{
    assert_int_equal(count, live);
    sr_ray_soa h = soa_download(&g->dst, count);
    uint8_t *seen = calloc(g->n ? g->n : 1, 1);
    assert_non_null(seen);
    for (uint32_t k = 0; k < count; k++) {
        const uint32_t p = h.pixel[k];
        if (p >= g->n || !(live_stencil[p >> 5] >> (p & 31u) & 1u))
            fail_msg("%s: output slot %u holds pixel %u, which is not a live slot", who, k, p);
        if (seen[p]) fail_msg("%s: pixel %u appears twice", who, p);
        seen[p] = 1;
        if (sr_micro_bad_fields(h, k, p)) fail_msg("%s: output slot %u (pixel %u): fields did not move with it", who, k, p);
    }
    /* count == live and no duplicates among live slots: none was lost. */
    free(seen);
    soa_host_free(&h);
}

/* The micro-benchmark's device check must agree: all clear on a correct output. */
static void device_check(gpu_pool *g, const uint32_t *count_dev, const uint32_t *live_dev_stencil,
                         const uint32_t *new_stencil, uint32_t *bad_out)
{
    CK(sr_launch_micro_check(g->dst, count_dev, g->aligned, live_dev_stencil, g->n, new_stencil,
                             new_stencil ? (g->n + 31u) / 32u : 0u, g->seen, &g->counts[3], g->stream));
    CK(cudaStreamSynchronize(g->stream));
    CK(cudaMemcpy(bad_out, &g->counts[3], 4 * sizeof(uint32_t), cudaMemcpyDeviceToHost));
}

static uint64_t checked_pools, checked_rays;

static void run_case(gpu_pool *g, int d, uint32_t expected, const char *grid_name)
{
    const uint32_t n = g->n;
    uint32_t *stencil_host = malloc(g->words * sizeof(uint32_t)), *after = malloc(g->words * sizeof(uint32_t));
    assert_non_null(stencil_host);
    assert_non_null(after);
    const uint32_t live = set_live(g, d, stencil_host);
    char who[160];

    /* ---- the project's compaction: live count on the device, as the renderer runs it, with
     * one ray a thread and with two (the launcher picks by the forecast live share) */
    uint32_t count = 0, bad[4];
    for (int pairs = 0; pairs < 2; pairs++) {
        snprintf(who, sizeof who, "ballot (%s a thread) n=%u %s forecast=%s", pairs ? "two rays" : "one ray", n,
                 density_name[d], grid_name);
        CK(cudaMemcpy(g->stencil, stencil_host, g->words * sizeof(uint32_t), cudaMemcpyHostToDevice));
        poison(g);
        const uint32_t init[2] = { n, 0 };   /* old count, new count's counter */
        CK(cudaMemcpy(g->counts, init, sizeof init, cudaMemcpyHostToDevice));
        CK(sr_launch_compact_live(g->src, g->dst, g->stencil, &g->counts[0], &g->counts[1], expected,
                                   pairs ? 1.0f : 0.0f, g->words, g->stream));
        CK(cudaStreamSynchronize(g->stream));
        uint32_t after_counts[2];
        CK(cudaMemcpy(after_counts, g->counts, sizeof after_counts, cudaMemcpyDeviceToHost));
        count = after_counts[1];
        host_check(g, stencil_host, live, count, who);
        /* Ready for the next round: the old count is zeroed (launch.h). */
        if (after_counts[0]) fail_msg("%s: old count %u left, want 0", who, after_counts[0]);
        /* The new stencil: its first ceil(count/32) words are the first count bits, and the
         * words after them up to the forecast's are clear (launch.h). */
        CK(cudaMemcpy(after, g->stencil, g->words * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        for (uint32_t w = 0; w < (count + 31u) / 32u; w++) {
            const uint32_t first = w * 32u;
            const uint32_t want = count >= first + 32u ? 0xffffffffu : (1u << (count - first)) - 1u;
            if (after[w] != want) fail_msg("%s: new stencil word %u is %08x, want %08x", who, w, after[w], want);
        }
        const uint32_t cleared = (expected + 31u) / 32u < g->words ? (expected + 31u) / 32u : g->words;
        for (uint32_t w = (count + 31u) / 32u; w < cleared; w++)
            if (after[w] != 0u) fail_msg("%s: stencil word %u past the new count is %08x, want 0", who, w, after[w]);
        /* The device check agrees. It needs the old live set on the device, and the ballot has
         * overwritten g->stencil: a copy goes into idx, which the ballot does not use. */
        CK(cudaMemcpy(g->idx, stencil_host, g->words * sizeof(uint32_t), cudaMemcpyHostToDevice));
        device_check(g, &g->counts[1], g->idx, g->stencil, bad);
        if (bad[0] || bad[1] || bad[2] || bad[3])
            fail_msg("%s: device check flags %u/%u/%u/%u on an output the host accepted", who, bad[0], bad[1], bad[2], bad[3]);
    }

    /* ---- CUB: indices + gather, and per field, from the same live set (flags) */
    CK(cudaMemcpy(g->stencil, stencil_host, g->words * sizeof(uint32_t), cudaMemcpyHostToDevice));
    for (int per_field = 0; per_field < 2; per_field++) {
        snprintf(who, sizeof who, "CUB%s n=%u %s", per_field ? " per field" : "", n, density_name[d]);
        poison(g);
        CK(cudaMemset(&g->counts[1], 0xff, sizeof(uint32_t)));
        if (per_field)
            CK(sr_launch_micro_cub_per_field(g->temp, g->temp_bytes, g->src, g->dst, g->flags, n, &g->counts[1], g->stream));
        else
            CK(sr_launch_micro_cub_compact(g->temp, g->temp_bytes, g->src, g->dst, g->flags, n, g->idx, &g->counts[1],
                                           sr_grid_for(n, SR_COMPACT_BLOCK, UINT32_MAX), g->stream));
        CK(cudaStreamSynchronize(g->stream));
        CK(cudaMemcpy(&count, &g->counts[1], sizeof count, cudaMemcpyDeviceToHost));
        host_check(g, stencil_host, live, count, who);
        device_check(g, &g->counts[1], g->stencil, NULL, bad);
        if (bad[0] || bad[1] || bad[2] || bad[3])
            fail_msg("%s: device check flags %u/%u/%u/%u on an output the host accepted", who, bad[0], bad[1], bad[2],
                     bad[3]);
    }

    /* ---- the device check must catch faults: duplicate a ray, break a field */
    if (count >= 2) {
        const uint32_t k = count - 1;
        uint32_t first_pixel;
        CK(cudaMemcpy(&first_pixel, g->dst.pixel, sizeof first_pixel, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&g->dst.pixel[k], &first_pixel, sizeof first_pixel, cudaMemcpyHostToDevice));
        device_check(g, &g->counts[1], g->stencil, NULL, bad);
        assert_true(bad[1] >= 1 || bad[2] >= 1);
    }
    if (count >= 1) {
        const float junk = -12345.0f;
        CK(cudaMemcpy(&g->dst.ox[0], &junk, sizeof junk, cudaMemcpyHostToDevice));
        device_check(g, &g->counts[1], g->stencil, NULL, bad);
        assert_true(bad[2] >= 1);
    }
    checked_pools++;
    checked_rays += live;
    free(stencil_host);
    free(after);
}

static void test_compaction(void **state)
{
    (void)state;
    static const uint32_t sizes[] = { 1, 31, 32, 33, 255, 256, 257, 1000, 4096 + 5, (1u << 20) + 7 };
    int device = 0;
    CK(cudaGetDevice(&device));
    uint32_t gather_grid = 0;
    CK(sr_micro_gather_grid(device, &gather_grid));
    printf("compaction grids sized by the forecast live count: exact, far too low (one block that\n"
           "loops over the whole pool) and too high; gather grid %u; %d-byte rays in the SoA pool\n",
           gather_grid, (int)SR_RAY_BYTES);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        gpu_pool g;
        pool_open(&g, sizes[s]);
        for (int d = 0; d < D_COUNT; d++) {
            run_case(&g, d, g.n, "exact");
            run_case(&g, d, 1, "1");
            run_case(&g, d, 3u * g.n + 100u, "3n");
        }
        printf("n=%-8u (aligned %u): ballot, CUB and CUB per field correct for %d live sets x 3 grids "
               "(count = popcount, each live ray once with all %d B, new stencil = first count bits)\n",
               g.n, g.aligned, D_COUNT, (int)SR_RAY_BYTES);
        pool_close(&g);
    }
    printf("checked %llu compactions, %llu live rays in all; the device check caught every planted fault\n",
           (unsigned long long)checked_pools * 3u, (unsigned long long)checked_rays * 3u);
}

/* The micro-benchmark end to end on a small pool: its own checks pass, and it writes CSV/JSON. */
static void test_micro_bench_small(void **state)
{
    (void)state;
    char csv[1024], json[1024];
    sr_test_tmp_path(csv, sizeof csv, "micro.csv");
    sr_test_tmp_path(json, sizeof json, "micro.json");
    remove(csv);
    remove(json);
    sr_micro_opts o;
    memset(&o, 0, sizeof o);
    o.device = 0;
    o.rays = 100000 + 3;
    o.reps = 3;
    o.quiet = 1;
    o.csv = csv;
    o.json = json;
    sr_error err = { SR_OK, "" };
    sr_status s = sr_bench_micro(&o, stdout, &err);
    if (s) fail_msg("sr_bench_micro: %s", err.msg);
    assert_true(sr_test_file_exists(csv));
    assert_true(sr_test_file_exists(json));
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char line[1024];
    int lines = 0;
    while (fgets(line, sizeof line, f)) lines++;
    fclose(f);
    assert_int_equal(lines, 1 + 10 * 7);   /* header + (2 patterns x 5 fractions) x 7 methods */
}

int main(int argc, char **argv)
{
    const int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compaction),
        cmocka_unit_test(test_micro_bench_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
    printf("skipped: this stencilray was built without CUDA\n");
    return 77;
}

#endif
