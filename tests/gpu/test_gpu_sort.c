/* The coherence sort on the GPU, checked on the host: the merge sort and CUB's radix
 * sort against a CPU sort on keys of many sizes (0, 1, 3, 5, ... 1000003, up to several merge
 * passes) and shapes (random, duplicates, all equal, sorted, reverse-sorted, the sentinel's
 * bits), the GPU merge sort against its CPU driver; the pool sort stage on a synthetic pool
 * with a host bound that is exact, short and long; every shipped scene rendered by the CUDA
 * backend with --sort none, merge and radix and both keys, bit-identical; and the sort
 * micro-benchmark at its smallest size (its own checks included). Exits 77 (skipped) without
 * a CUDA device. */
#include "../unit/testutil.h"
#include "../../src/backend/backend.h"
#include "../../src/bench/bench_sort.h"
#include "../../src/backend/cpu/sort_cpu.h"
#include "../../src/base/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SR_HAVE_CUDA
#include "../../kernels/frames/sort.h"
#include "../unit/sortutil.h"

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) fail_msg("%s: %s (%s)", #call, cudaGetErrorString(e_), cudaGetErrorName(e_)); \
    } while (0)

typedef struct gpu_arrays {
    uint32_t cap;
    uint32_t *keys, *vals, *keys_out, *vals_out;
    void *temp;
    size_t temp_bytes;
} gpu_arrays;

static void arrays_alloc(gpu_arrays *g, uint32_t cap)
{
    g->cap = cap;
    CK(cudaMalloc((void **)&g->keys, (size_t)cap * 4u + 4u));
    CK(cudaMalloc((void **)&g->vals, (size_t)cap * 4u + 4u));
    CK(cudaMalloc((void **)&g->keys_out, (size_t)cap * 4u + 4u));
    CK(cudaMalloc((void **)&g->vals_out, (size_t)cap * 4u + 4u));
    size_t a = 0, b = 0;
    CK(sr_sort_temp_bytes(SR_SORT_MERGE, cap, &a));
    CK(sr_sort_temp_bytes(SR_SORT_RADIX, cap, &b));
    g->temp_bytes = a > b ? a : b;
    CK(cudaMalloc(&g->temp, g->temp_bytes));
}

static void arrays_free(gpu_arrays *g)
{
    cudaFree(g->keys); cudaFree(g->vals); cudaFree(g->keys_out); cudaFree(g->vals_out); cudaFree(g->temp);
}

/* One (size, shape, values) case through both GPU sorts and the CPU driver. */
static void check_case(gpu_arrays *g, uint32_t n, int shape, int index_vals)
{
    const size_t bytes = (size_t)n * 4u;
    uint32_t *keys = malloc(bytes + 4), *vals = malloc(bytes + 4), *ko = malloc(bytes + 4), *vo = malloc(bytes + 4);
    sr_kv *ref = malloc(sizeof(sr_kv) * (n + 1u)), *got = malloc(sizeof(sr_kv) * (n + 1u));
    sr_kv *tmp = malloc(sizeof(sr_kv) * 2u * (n + 1u));
    assert_true(keys && vals && ko && vo && ref && got && tmp);
    fill(keys, vals, n, shape, index_vals);
    for (uint32_t i = 0; i < n; i++) ref[i] = sr_kv_make(keys[i], vals[i]);
    qsort(ref, n, sizeof *ref, cmp_kv);
    CK(cudaMemcpy(g->keys, keys, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g->vals, vals, bytes, cudaMemcpyHostToDevice));
    for (int algo = SR_SORT_MERGE; algo <= SR_SORT_RADIX; algo++) {
        const uint32_t guard = 0x5a5a5a5au;   /* the element past n must stay untouched */
        CK(cudaMemset(g->keys_out, 0x5a, bytes + 4));
        CK(cudaMemset(g->vals_out, 0x5a, bytes + 4));
        CK(sr_sort_pairs(algo, g->temp, g->temp_bytes, g->keys, g->vals, g->keys_out, g->vals_out, n, 0));
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(ko, g->keys_out, bytes + 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(vo, g->vals_out, bytes + 4, cudaMemcpyDeviceToHost));
        if (ko[n] != guard || vo[n] != guard)
            fail_msg("%s sort wrote past %u pairs", algo == SR_SORT_MERGE ? "merge" : "radix", n);
        for (uint32_t i = 0; i < n; i++) got[i] = sr_kv_make(ko[i], vo[i]);
        /* merge: the (key, value) order exactly; radix: stable, so exactly too with position
         * values, else sorted by key and the same pairs. */
        const int exact = algo == SR_SORT_MERGE || index_vals;
        for (uint32_t i = 0; i + 1 < n; i++)
            if (ko[i] > ko[i + 1]) fail_msg("%s: keys out of order at %u of %u (%s)", algo == SR_SORT_MERGE ? "merge" : "radix", i, n, shape_name[shape]);
        if (!exact) qsort(got, n, sizeof *got, cmp_kv);
        for (uint32_t i = 0; i < n; i++)
            if (got[i] != ref[i])
                fail_msg("%s, %u %s keys (%s values): pair %u is (%u, %u), expected (%u, %u)",
                         algo == SR_SORT_MERGE ? "merge" : "radix", n, shape_name[shape], index_vals ? "position" : "arbitrary",
                         i, sr_kv_key(got[i]), sr_kv_val(got[i]), sr_kv_key(ref[i]), sr_kv_val(ref[i]));
    }
    /* The CPU driver of the same algorithm gives the same pairs (it is what CI tests). */
    sr_merge_sort_cpu(keys, vals, ko, vo, n, tmp);
    for (uint32_t i = 0; i < n; i++) assert_true(sr_kv_make(ko[i], vo[i]) == ref[i]);
    free(keys); free(vals); free(ko); free(vo); free(ref); free(got); free(tmp);
}

static void test_sorts(void **state)
{
    (void)state;
    rng_state = 777u;
    static const uint32_t sizes[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 33, 255, 256, 257, 1000,
                                      SR_SORT_TILE - 1u, SR_SORT_TILE, SR_SORT_TILE + 1u, 2u * SR_SORT_TILE + 7u,
                                      5u * SR_SORT_TILE - 1u, 65536, 65537, 1000003, (1u << 22) + 5u };
    gpu_arrays g;
    memset(&g, 0, sizeof g);
    arrays_alloc(&g, (1u << 22) + 5u);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int shape = 0; shape < SHAPE_COUNT; shape++) {
            check_case(&g, sizes[k], shape, 1);
            if (sizes[k] <= 1000003u) check_case(&g, sizes[k], shape, 0);
        }
    /* A sort into too little temporary storage is refused, not run. */
    assert_int_not_equal(sr_sort_pairs(SR_SORT_MERGE, g.temp, 16, g.keys, g.vals, g.keys_out, g.vals_out, 100000, 0),
                         cudaSuccess);
    cudaGetLastError();
    arrays_free(&g);
}

/* ---- the pool sort stage ------------------------------------------------------------------- */

/* Every byte set (0xff), so a read-back of slots the stage must not write finds the sentinel,
 * and compute-sanitizer's initcheck has nothing uninitialized to report. */
static void soa_alloc(sr_ray_soa *p, uint32_t n)
{
#define X(type, name) CK(cudaMalloc((void **)&p->name, sizeof(type) * (size_t)n)); \
    CK(cudaMemset(p->name, 0xff, sizeof(type) * (size_t)n));
    SR_RAY_FIELDS(X)
#undef X
}

static void soa_free(sr_ray_soa *p)
{
#define X(type, name) cudaFree(p->name);
    SR_RAY_FIELDS(X)
#undef X
}

/* n live rays with known origins and directions; the pool sorted with a host bound m; the
 * result read back: slot i is a whole ray, the first min(m, n) in key order, the rest where
 * they were, each ray once. */
static void check_stage(uint32_t n, uint32_t m, int algo, int key)
{
    const uint32_t cap = (n > m ? n : m) + 64u;
    sr_ray_soa host, src, dst;
#define X(type, name) host.name = (type *)calloc(cap, sizeof(type)); assert_non_null(host.name);
    SR_RAY_FIELDS(X)
#undef X
    soa_alloc(&src, cap);
    soa_alloc(&dst, cap);
    uint32_t *hit_prim_host = calloc(cap, sizeof(uint32_t)), *stencil_host = calloc(cap / 32u + 1u, sizeof(uint32_t));
    for (uint32_t i = 0; i < cap; i++) {
        const uint32_t h = (i + 1u) * 2654435761u;
        host.ox[i] = (float)(h % 2000u) / 100.0f - 10.0f;
        host.oy[i] = (float)((h >> 11) % 2000u) / 100.0f - 10.0f;
        host.oz[i] = (float)((h >> 21) % 2000u) / 100.0f - 10.0f;
        host.dx[i] = (h & 1u) ? 0.5f : -0.5f;
        host.dy[i] = (h & 2u) ? 0.5f : -0.5f;
        host.dz[i] = (h & 4u) ? 0.5f : -0.5f;
        host.tr[i] = (float)i;
        host.pixel[i] = cap - 1u - i;
        hit_prim_host[i] = h % 3u;                       /* prims 0..2: materials 0..2 */
        if (i < n) stencil_host[i >> 5] |= 1u << (i & 31u);
    }
#define X(type, name) CK(cudaMemcpy(src.name, host.name, sizeof(type) * cap, cudaMemcpyHostToDevice));
    SR_RAY_FIELDS(X)
#undef X
    /* The scene: a root box and three prims with materials 0, 1, 2. */
    sr_bvh_node node;
    memset(&node, 0, sizeof node);
    node.lo = sr_v3(-10, -10, -10);
    node.hi = sr_v3(10, 10, 10);
    sr_prim prims[3];
    memset(prims, 0, sizeof prims);
    for (uint32_t k = 0; k < 3; k++) prims[k].material = k;
    sr_bvh_node *d_node;
    sr_prim *d_prims;
    uint32_t *d_hit_prim, *d_stencil, *d_live;
    float *d_hit_t;
    CK(cudaMalloc((void **)&d_node, sizeof node));
    CK(cudaMalloc((void **)&d_prims, sizeof prims));
    CK(cudaMalloc((void **)&d_hit_prim, sizeof(uint32_t) * cap));
    CK(cudaMalloc((void **)&d_hit_t, sizeof(float) * cap));
    CK(cudaMalloc((void **)&d_stencil, sizeof(uint32_t) * (cap / 32u + 1u)));
    CK(cudaMalloc((void **)&d_live, sizeof(uint32_t)));
    CK(cudaMemset(d_hit_t, 0, sizeof(float) * cap));
    CK(cudaMemcpy(d_node, &node, sizeof node, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_prims, prims, sizeof prims, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_hit_prim, hit_prim_host, sizeof(uint32_t) * cap, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_stencil, stencil_host, sizeof(uint32_t) * (cap / 32u + 1u), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_live, &n, sizeof n, cudaMemcpyHostToDevice));
    sr_params p;
    memset(&p, 0, sizeof p);
    p.scene.nodes = d_node;
    p.scene.node_count = 1;
    p.scene.prims = d_prims;
    p.scene.prim_count = 3;
    p.ray = src;
    p.hit_t = d_hit_t;
    p.hit_prim = d_hit_prim;
    p.n = cap;
    sr_gpu_sorter s;
    memset(&s, 0, sizeof s);
    CK(sr_gpu_sorter_reserve(&s, cap));
    if (key == SR_SORT_KEY_MATERIAL) CK(sr_gpu_sort_prepare(&s, key, &p, d_stencil, d_live, 7, 0));
    CK(sr_gpu_sort_pool(&s, algo, key, &p, dst, d_live, m, 5, 0));
    CK(cudaDeviceSynchronize());
    sr_ray_soa out;
#define X(type, name) out.name = (type *)calloc(cap, sizeof(type)); \
    CK(cudaMemcpy(out.name, dst.name, sizeof(type) * cap, cudaMemcpyDeviceToHost));
    SR_RAY_FIELDS(X)
#undef X
    /* Expected keys from the shared code on the host. */
    sr_params hp = p;
    sr_prim hprims[3];
    memcpy(hprims, prims, sizeof prims);
    hp.scene.nodes = &node;
    hp.scene.prims = hprims;
    hp.ray = host;
    hp.hit_prim = hit_prim_host;
    const sr_sort_box box = sr_sort_box_of(&hp.scene);
    uint8_t *seen = calloc(cap, 1);
    const uint32_t sorted = m < n ? m : n;
    uint32_t prev = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t from = (uint32_t)out.tr[i];
        if (from >= n || seen[from]) fail_msg("stage n=%u m=%u: slot %u holds ray %u (twice or not live)", n, m, i, from);
        seen[from] = 1;
        assert_true(out.pixel[i] == host.pixel[from] && out.ox[i] == host.ox[from] && out.dy[i] == host.dy[from]);
        if (i >= sorted) {
            assert_int_equal(from, i);   /* past a short bound: in place */
            continue;
        }
        assert_true(from < sorted);
        const uint32_t k = sr_sort_ray_key(&hp, from, key, &box);
        if (i > 0 && k < prev) fail_msg("stage n=%u m=%u %s: key order broken at %u", n, m, sr_sort_key_name(key), i);
        if (i > 0 && k == prev) assert_true(from > (uint32_t)out.tr[i - 1]);   /* ties: by slot */
        prev = k;
    }
    /* The gather writes the live slots only: past n the pool keeps its sentinel. */
    for (uint32_t i = n; i < cap; i++) {
        uint32_t pix_bits, tr_bits;
        memcpy(&tr_bits, &out.tr[i], 4);
        memcpy(&pix_bits, &out.pixel[i], 4);
        if (tr_bits != 0xffffffffu || pix_bits != 0xffffffffu)
            fail_msg("stage n=%u m=%u: slot %u past the live rays was written", n, m, i);
    }
    free(seen);
#define X(type, name) free(out.name); free(host.name);
    SR_RAY_FIELDS(X)
#undef X
    free(hit_prim_host); free(stencil_host);
    sr_gpu_sorter_free(&s);
    soa_free(&src);
    soa_free(&dst);
    cudaFree(d_node); cudaFree(d_prims); cudaFree(d_hit_prim); cudaFree(d_hit_t); cudaFree(d_stencil); cudaFree(d_live);
}

static void test_stage(void **state)
{
    (void)state;
    static const uint32_t ns[] = { 0, 1, 37, 5000, 300007 };
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (int algo = SR_SORT_MERGE; algo <= SR_SORT_RADIX; algo++)
            for (int key = 0; key < SR_SORT_KEY_COUNT; key++) {
                const uint32_t n = ns[k];
                check_stage(n, n, algo, key);                 /* exact bound              */
                check_stage(n, n + 1000u, algo, key);         /* long: padded with the pad */
                check_stage(n, n / 2u, algo, key);            /* short: the rest in place  */
            }
}

/* ---- images ---------------------------------------------------------------------------------- */

/* Many merge tiles per sort; several samples, so later ones size by the forecast. */
static void test_images_identical(void **state)
{
    (void)state;
    sr_test_sorts_keep_images(SR_BACKEND_CUDA, 200, 120, 4);
}

static void test_micro_bench_small(void **state)
{
    (void)state;
    sr_sort_micro_opts o;
    memset(&o, 0, sizeof o);
    o.reps = 3;
    o.max_keys = 1u << 20;
    o.quiet = 1;
    sr_error err = { SR_OK, "" };
    FILE *out = tmpfile();
    assert_non_null(out);
    sr_status s = sr_bench_sort_micro(&o, out, &err);
    if (s) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(s, SR_OK);
    fclose(out);
}

int main(int argc, char **argv)
{
    const int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorts),
        cmocka_unit_test(test_stage),
        cmocka_unit_test(test_images_identical),
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
