/* The coherence sort in the renderer, on the CPU backend: the sort stage on a synthetic pool
 * (sorted by key, every ray moved whole, once); every shipped scene gives the bit-identical
 * image with --sort none, merge and radix and with both keys (random numbers are keyed by
 * pixel, sample and bounce, the film by pixel, so the order of the pool cannot show); and
 * `bench --sort all` sweeps the sorts with the compact mask and times the sort stage. */
#include "testutil.h"
#include "../../src/backend/cpu/sort_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the stage on a synthetic pool --------------------------------------------------------- */

typedef struct pool {
    sr_ray_soa soa;
} pool;

static void pool_alloc(pool *p, uint32_t n)
{
    memset(p, 0, sizeof *p);
#define X(type, name) p->soa.name = (type *)calloc(n, sizeof(type)); assert_non_null(p->soa.name);
    SR_RAY_FIELDS(X)
#undef X
}

static void pool_free(pool *p)
{
#define X(type, name) free(p->soa.name);
    SR_RAY_FIELDS(X)
#undef X
}

static void test_stage_on_synthetic_pool(void **state)
{
    (void)state;
    /* A scene view with one BVH node (the key's box) and one plane, one material. */
    sr_bvh_node node;
    memset(&node, 0, sizeof node);
    node.lo = sr_v3(-10, -10, -10);
    node.hi = sr_v3(10, 10, 10);
    sr_prim planes[1];
    memset(planes, 0, sizeof planes);
    planes[0].material = 3;
    sr_params p;
    memset(&p, 0, sizeof p);
    p.scene.nodes = &node;
    p.scene.node_count = 1;
    p.scene.planes = planes;
    p.scene.plane_count = 1;
    const uint32_t sizes[] = { 0, 1, 5, 31, 2049, 100003 };
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        const uint32_t n = sizes[t];
        pool src, dst;
        pool_alloc(&src, n + 1);
        pool_alloc(&dst, n + 1);
        float *hit_t = calloc(n + 1, sizeof(float));
        uint32_t *hit_prim = calloc(n + 1, sizeof(uint32_t)), *stencil = calloc(n / 32 + 2, sizeof(uint32_t));
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t h = i * 2654435761u;
            src.soa.ox[i] = (float)(h % 2000u) / 100.0f - 10.0f;
            src.soa.oy[i] = (float)((h >> 11) % 2000u) / 100.0f - 10.0f;
            src.soa.oz[i] = (float)((h >> 21) % 2000u) / 100.0f - 10.0f;
            src.soa.dx[i] = (h & 1u) ? 1.0f : -1.0f;
            src.soa.dy[i] = (h & 2u) ? 1.0f : -1.0f;
            src.soa.dz[i] = (h & 4u) ? 1.0f : -1.0f;
            src.soa.tr[i] = (float)i;
            src.soa.pixel[i] = n - 1u - i;       /* pixels are a permutation of slots */
            hit_prim[n - 1u - i] = SR_HIT_PLANE_BIT;   /* shade's hit, by the slot before compaction */
            stencil[i >> 5] |= 1u << (i & 31u);
        }
        p.ray = src.soa;
        p.hit_t = hit_t;
        p.hit_prim = hit_prim;
        p.n = n;
        for (int algo = SR_SORT_MERGE; algo <= SR_SORT_RADIX; algo++)
            for (int key = 0; key < SR_SORT_KEY_COUNT; key++) {
                sr_cpu_sorter s;
                memset(&s, 0, sizeof s);
                sr_error err = { SR_OK, "" };
                /* Prepare reads the pool as shade left it: here the same slots. */
                if (key == SR_SORT_KEY_MATERIAL) assert_int_equal(sr_cpu_sort_prepare(&s, key, &p, stencil, n, &err), SR_OK);
                assert_int_equal(sr_cpu_sort_pool(&s, algo, key, &p, dst.soa, n, &err), SR_OK);
                const sr_sort_box box = sr_sort_box_of(&p.scene);
                uint32_t prev = 0;
                uint8_t *seen = calloc(n + 1, 1);
                for (uint32_t i = 0; i < n; i++) {
                    const uint32_t from = (uint32_t)dst.soa.tr[i];   /* tr holds the original slot */
                    assert_true(from < n && !seen[from]);
                    seen[from] = 1;
                    assert_int_equal(dst.soa.pixel[i], n - 1u - from);
                    assert_true(dst.soa.ox[i] == src.soa.ox[from] && dst.soa.dz[i] == src.soa.dz[from]);
                    const uint32_t k = key == SR_SORT_KEY_MATERIAL ? s.key_pix[dst.soa.pixel[i]]
                                                                   : sr_sort_ray_key(&p, from, key, &box);
                    if (key == SR_SORT_KEY_MATERIAL) assert_int_equal(k >> 18, 3u);   /* the plane's material */
                    assert_true(i == 0 || k >= prev);
                    prev = k;
                }
                free(seen);
                sr_cpu_sorter_free(&s);
            }
        free(hit_t); free(hit_prim); free(stencil);
        pool_free(&src);
        pool_free(&dst);
    }
}

/* ---- images ---------------------------------------------------------------------------------- */

static void test_images_identical(void **state)
{
    (void)state;
    sr_test_sorts_keep_images(SR_BACKEND_CPU, 40, 24, 2);
}

/* ---- bench --sort ---------------------------------------------------------------------------- */

static void test_bench_sort_sweep(void **state)
{
    (void)state;
    char scene[1024], csv[1024], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/mirror_hall.json");
    sr_test_tmp_path(csv, sizeof csv, "bench_sort.csv");
    remove(csv);
    const char *argv[] = { "bench", scene, "--backend", "cpu", "--width", "40", "--height", "24", "--depth", "2-3",
                           "--mask", "stencil,compact", "--sort", "all", "--sort-key", "material", "--frames", "2",
                           "--warmup", "0", "--breakdown", "--csv", csv, "-q", NULL };
    int code = sr_test_run_cli(argv, err, sizeof err);
    if (code) fprintf(stderr, "%s\n", err);
    assert_int_equal(code, 0);
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char line[4096];
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, ",sort,"));
    assert_non_null(strstr(line, ",sort_ms"));
    /* Per depth: stencil (unsorted), then compact with none, merge, radix. */
    static const char *const expect[] = { "stencil,none", "compact,none", "compact,merge", "compact,radix" };
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned depth = 0;
        char mask[32], sort[32];
        assert_int_equal(sscanf(line, "%u,%31[^,],%31[^,]", &depth, mask, sort), 3);
        char both[80];
        snprintf(both, sizeof both, "%s,%s", mask, sort);
        assert_string_equal(both, expect[rows % 4]);
        assert_int_equal(depth, 2u + (unsigned)rows / 4u);
        const char *last = strrchr(line, ',');
        const double sort_ms = atof(last + 1);
        if (strcmp(sort, "none")) assert_true(sort_ms > 0.0);
        else assert_true(sort_ms == 0.0);
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 8);

    const char *bad[] = { "bench", "--sort", "merge,bogus", "--backend", "cpu", NULL };
    assert_int_equal(sr_test_run_cli(bad, err, sizeof err), 2);
    assert_non_null(strstr(err, "bogus"));
    const char *bad_key[] = { "render", "--sort-key", "octant", "--backend", "cpu", NULL };
    assert_int_equal(sr_test_run_cli(bad_key, err, sizeof err), 2);
    assert_non_null(strstr(err, "--sort-key"));
    const char *bad_sort[] = { "render", "--sort", "quick", "--backend", "cpu", NULL };
    assert_int_equal(sr_test_run_cli(bad_sort, err, sizeof err), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stage_on_synthetic_pool),
        cmocka_unit_test(test_images_identical),
        cmocka_unit_test(test_bench_sort_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
