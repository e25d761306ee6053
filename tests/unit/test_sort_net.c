/* The coherence sort's shared code on the CPU (the per-element code the GPU merge sort runs):
 * the 4-vector network exhaustively on small values, merge path and the per-thread merge step
 * against plain merges, the CPU driver of the GPU's merge sort and the radix sort against
 * qsort on keys of many sizes (0, 1, 3, 5, ... 1000003) and shapes (random, duplicates, all
 * equal, sorted, reverse-sorted, the sentinel itself), and the coherence keys. */
#include "testutil.h"
#include "../../src/backend/cpu/sort_cpu.h"
#include "../../kernels/frames/sortkey.h"
#include "sortutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sort_kv(sr_kv *v, uint32_t n) { qsort(v, n, sizeof *v, cmp_kv); }

/* ---- the network ------------------------------------------------------------------------- */

/* Every 4-vector over the values 0..4 (duplicates included): sorted, and a permutation. */
static void test_sort4_exhaustive(void **state)
{
    (void)state;
    for (uint32_t code = 0; code < 625u; code++) {
        sr_kv4 v;
        sr_kv ref[4];
        uint32_t c = code;
        for (int i = 0; i < 4; i++, c /= 5u) v.x[i] = ref[i] = sr_kv_make(c % 5u, (uint32_t)i & 1u);
        sr_kv4_sort(&v);
        sort_kv(ref, 4);
        assert_memory_equal(v.x, ref, sizeof ref);
    }
}

/* The merge step on every pair of sorted 4-vectors over 0..4: a gets the lowest four of the
 * eight, b the highest four, both sorted. */
static void test_merge4_exhaustive(void **state)
{
    (void)state;
    uint32_t checked = 0;
    for (uint32_t ca = 0; ca < 625u; ca++)
        for (uint32_t cb = 0; cb < 625u; cb++) {
            sr_kv4 a, b;
            sr_kv all[8];
            uint32_t x = ca, y = cb;
            for (int i = 0; i < 4; i++, x /= 5u, y /= 5u) {
                a.x[i] = sr_kv_make(x % 5u, 0);
                b.x[i] = sr_kv_make(y % 5u, 1);
            }
            sr_kv4_sort(&a);
            sr_kv4_sort(&b);
            memcpy(all, a.x, sizeof a.x);
            memcpy(all + 4, b.x, sizeof b.x);
            sort_kv(all, 8);
            sr_kv4_merge(&a, &b);
            assert_memory_equal(a.x, all, sizeof a.x);
            assert_memory_equal(b.x, all + 4, sizeof b.x);
            checked++;
        }
    assert_int_equal(checked, 625u * 625u);
}

static void test_sort_items(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20000; rep++) {
        sr_kv x[SR_SORT_ITEMS], ref[SR_SORT_ITEMS];
        const uint32_t range = rep % 3 == 0 ? 3u : 0xffffffffu;
        for (uint32_t i = 0; i < SR_SORT_ITEMS; i++) x[i] = ref[i] = sr_kv_make(rnd() % range, rnd() % 4u);
        sr_kv_sort_items(x);
        sort_kv(ref, SR_SORT_ITEMS);
        assert_memory_equal(x, ref, sizeof ref);
    }
}

/* A sorted run of len random elements (small values when dup: many ties). */
static void sorted_run(sr_kv *v, uint32_t len, int dup)
{
    for (uint32_t i = 0; i < len; i++) v[i] = sr_kv_make(dup ? rnd() % 4u : rnd(), dup ? rnd() % 3u : rnd());
    sort_kv(v, len);
}

static void test_merge_path_and_chunk(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20000; rep++) {
        const int dup = rep & 1;
        sr_kv a[64], b[64], both[128];
        const uint32_t la = rnd() % 40u, lb = rnd() % 40u;
        sorted_run(a, la, dup);
        sorted_run(b, lb, dup);
        memcpy(both, a, sizeof(sr_kv) * la);
        memcpy(both + la, b, sizeof(sr_kv) * lb);
        sort_kv(both, la + lb);
        /* Merge path: the first d outputs are a[0..s) and b[0..d-s), and they are the d smallest. */
        for (uint32_t d = 0; d <= la + lb; d++) {
            const uint32_t s = sr_merge_path(a, la, b, lb, d);
            assert_true(s <= la && d - s <= lb);
            if (s > 0 && d - s < lb) assert_true(a[s - 1] <= b[d - s]);
            if (d - s > 0 && s < la) assert_true(b[d - s - 1] < a[s]);
        }
        /* The merge step on every window of at most SR_SORT_ITEMS outputs. */
        const uint32_t d = (la + lb) ? rnd() % (la + lb) : 0;
        const uint32_t de = d + SR_SORT_ITEMS < la + lb ? d + SR_SORT_ITEMS : la + lb;
        const uint32_t ai = sr_merge_path(a, la, b, lb, d), ae = sr_merge_path(a, la, b, lb, de);
        sr_kv out[SR_SORT_ITEMS];
        sr_merge_chunk(a + ai, ae - ai, b + (d - ai), (de - ae) - (d - ai), out);
        assert_memory_equal(out, both + d, sizeof(sr_kv) * (de - d));
        for (uint32_t k = de - d; k < SR_SORT_ITEMS; k++) assert_true(out[k] == SR_KV_SENTINEL);
    }
}

/* The GPU's warp form of merge path (32 probes a round), its lanes run one after the other:
 * the same split as the binary search, on long runs with and without ties. */
static uint32_t merge_path_warp(const sr_kv *a, uint32_t la, const sr_kv *b, uint32_t lb, uint32_t diag, int *rounds)
{
    uint32_t lo = diag > lb ? diag - lb : 0u, hi = diag < la ? diag : la;
    *rounds = 0;
    while (lo < hi) {
        const uint32_t step = (hi - lo + 31u) / 32u;
        uint32_t count = 0, prefix = 1;
        for (uint32_t lane = 0; lane < 32u; lane++) {
            const bool holds = sr_merge_path_probe(a, b, diag, lo, hi, step, lane);
            count += holds;
            if (holds && !prefix) fail_msg("the lanes that hold are not a prefix");
            prefix = holds;
        }
        sr_merge_path_narrow(&lo, &hi, step, count);
        ++*rounds;
    }
    return lo;
}

static void test_merge_path_warp(void **state)
{
    (void)state;
    enum { N = 200000 };
    sr_kv *a = malloc(sizeof(sr_kv) * N), *b = malloc(sizeof(sr_kv) * N);
    assert_true(a && b);
    for (int rep = 0; rep < 30; rep++) {
        const int dup = rep % 3 == 0;
        const uint32_t la = rep % 5 == 0 ? 0u : rnd() % N, lb = rep % 7 == 0 ? 0u : rnd() % N;
        sorted_run(a, la, dup);
        sorted_run(b, lb, dup);
        for (int k = 0; k < 200; k++) {
            const uint32_t d = k == 0 ? 0u : k == 1 ? la + lb : rnd() % (la + lb + 1u);
            int rounds = 0;
            assert_int_equal(merge_path_warp(a, la, b, lb, d, &rounds), sr_merge_path(a, la, b, lb, d));
            assert_true(rounds <= 5);   /* 32^4 < 200000 < 32^5 */
        }
    }
    free(a);
    free(b);
}

/* ---- whole sorts ---------------------------------------------------------------------------- */

/* The expected output: the pairs sorted by (key, value), which a stable sort of ascending
 * positions also gives. */
static sr_kv *reference(const uint32_t *keys, const uint32_t *vals, uint32_t n)
{
    sr_kv *ref = malloc(sizeof(sr_kv) * (n ? n : 1u));
    assert_non_null(ref);
    for (uint32_t i = 0; i < n; i++) ref[i] = sr_kv_make(keys[i], vals[i]);
    sort_kv(ref, n);
    return ref;
}

static void check_sorts(uint32_t n, int shape, int index_vals)
{
    uint32_t *keys = malloc(sizeof(uint32_t) * (n + 1u)), *vals = malloc(sizeof(uint32_t) * (n + 1u));
    uint32_t *ko = malloc(sizeof(uint32_t) * (n + 1u)), *vo = malloc(sizeof(uint32_t) * (n + 1u));
    uint32_t *tk = malloc(sizeof(uint32_t) * (n + 1u)), *tv = malloc(sizeof(uint32_t) * (n + 1u));
    sr_kv *tmp = malloc(sizeof(sr_kv) * 2u * (n + 1u));
    assert_true(keys && vals && ko && vo && tk && tv && tmp);
    fill(keys, vals, n, shape, index_vals);
    sr_kv *ref = reference(keys, vals, n);
    /* Guards past the end must stay untouched. */
    ko[n] = vo[n] = 0xabcdef01u;

    sr_merge_sort_cpu(keys, vals, ko, vo, n, tmp);
    for (uint32_t i = 0; i < n; i++)
        if (sr_kv_make(ko[i], vo[i]) != ref[i])
            fail_msg("merge, n = %u, %s keys: output %u is (%u, %u), expected (%u, %u)", n, shape_name[shape], i, ko[i],
                     vo[i], sr_kv_key(ref[i]), sr_kv_val(ref[i]));
    assert_int_equal(ko[n], 0xabcdef01u);
    assert_int_equal(vo[n], 0xabcdef01u);

    /* Radix: stable, so with position values it matches exactly; otherwise sorted by key and
     * the same multiset of pairs. */
    memcpy(ko, keys, sizeof(uint32_t) * n);
    memcpy(vo, vals, sizeof(uint32_t) * n);
    sr_radix_sort_cpu(ko, vo, n, tk, tv);
    for (uint32_t i = 0; i + 1 < n; i++) assert_true(ko[i] <= ko[i + 1]);
    for (uint32_t i = 0; i < n; i++) tmp[i] = sr_kv_make(ko[i], vo[i]);
    if (!index_vals) sort_kv(tmp, n);
    for (uint32_t i = 0; i < n; i++)
        if (tmp[i] != ref[i]) fail_msg("radix, n = %u, %s keys: pair %u differs", n, shape_name[shape], i);

    /* In place (outputs = inputs), as the CPU backend calls it. */
    memcpy(ko, keys, sizeof(uint32_t) * n);
    memcpy(vo, vals, sizeof(uint32_t) * n);
    sr_merge_sort_cpu(ko, vo, ko, vo, n, tmp);
    for (uint32_t i = 0; i < n; i++) assert_true(sr_kv_make(ko[i], vo[i]) == ref[i]);

    free(ref); free(keys); free(vals); free(ko); free(vo); free(tk); free(tv); free(tmp);
}

static const uint32_t sizes[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100, 255, 256, 257, 1000,
                                  SR_SORT_TILE - 1u, SR_SORT_TILE, SR_SORT_TILE + 1u, 2u * SR_SORT_TILE - 3u,
                                  3u * SR_SORT_TILE + 5u, 4u * SR_SORT_TILE, 10007, 65536, 65537, 300001 };

static void test_sorts_many_sizes(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int shape = 0; shape < SHAPE_COUNT; shape++) {
            check_sorts(sizes[k], shape, 1);
            check_sorts(sizes[k], shape, 0);
        }
}

static void test_sorts_1000003(void **state)
{
    (void)state;
    check_sorts(1000003u, SHAPE_RANDOM, 1);
    check_sorts(1000003u, SHAPE_DUPLICATES, 0);
    check_sorts(1000003u, SHAPE_REVERSED, 1);
    check_sorts(1000003u, SHAPE_SORTED, 1);
}

/* ---- keys ------------------------------------------------------------------------------------ */

static void test_keys(void **state)
{
    (void)state;
    /* Morton: bit i of each axis lands at 3i+2 (x), 3i+1 (y), 3i (z). */
    for (uint32_t v = 0; v < 1024u; v++) {
        const uint32_t s = sr_morton_spread(v);
        for (uint32_t i = 0; i < 10u; i++) assert_int_equal((s >> (3u * i)) & 1u, (v >> i) & 1u);
        assert_int_equal(s & ~0x09249249u, 0u);
    }
    sr_sort_box box;
    box.lo = sr_v3(-1.0f, 0.0f, 2.0f);
    box.inv = sr_v3(0.5f, 1.0f, 0.25f);   /* extents 2, 1, 4 */
    assert_int_equal(sr_sort_quantise(-5.0f, -1.0f, 0.5f), 0u);
    assert_int_equal(sr_sort_quantise(5.0f, -1.0f, 0.5f), 1023u);
    assert_int_equal(sr_sort_quantise(NAN, -1.0f, 0.5f), 0u);
    assert_int_equal(sr_morton30(sr_v3(1.0f, 1.0f, 6.0f), &box), 0x3fffffffu);   /* the far corner */
    assert_int_equal(sr_morton30(sr_v3(-1.0f, 0.0f, 2.0f), &box), 0u);
    /* Octant in the high bits; no live key is the pad, whatever the ray. */
    assert_int_equal(sr_sort_key_dir_morton(sr_v3(0, 0, 0), sr_v3(-1, -1, -1), &box) >> 29, 7u);
    assert_int_equal(sr_sort_key_dir_morton(sr_v3(0, 0, 0), sr_v3(1, -1, 1), &box) >> 29, 2u);
    assert_true(sr_sort_key_dir_morton(sr_v3(9, 9, 9), sr_v3(-1, -1, -1), &box) != SR_SORT_KEY_PAD);
    assert_true(sr_sort_key_material(0x3fffu, sr_v3(9, 9, 9), sr_v3(-1, -1, -1), &box) != SR_SORT_KEY_PAD);
    assert_int_equal(sr_sort_key_material(5u, sr_v3(0, 0, 0), sr_v3(1, 1, 1), &box) >> 18, 5u);
    assert_int_equal(sr_sort_key_material(99999u, sr_v3(0, 0, 0), sr_v3(1, 1, 1), &box) >> 18, 0x3fffu);
    /* Nearby origins share high Morton bits. */
    const uint32_t k1 = sr_sort_key_dir_morton(sr_v3(0.10f, 0.5f, 3.0f), sr_v3(1, 1, 1), &box);
    const uint32_t k2 = sr_sort_key_dir_morton(sr_v3(0.1001f, 0.5f, 3.0f), sr_v3(1, 1, 1), &box);
    const uint32_t k3 = sr_sort_key_dir_morton(sr_v3(0.9f, 0.5f, 3.0f), sr_v3(1, 1, 1), &box);
    assert_true((k1 ^ k2) < (k1 ^ k3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort4_exhaustive),
        cmocka_unit_test(test_merge4_exhaustive),
        cmocka_unit_test(test_sort_items),
        cmocka_unit_test(test_merge_path_and_chunk),
        cmocka_unit_test(test_merge_path_warp),
        cmocka_unit_test(test_sorts_many_sizes),
        cmocka_unit_test(test_sorts_1000003),
        cmocka_unit_test(test_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
