/* Path tracing on the GPU against the CPU reference: the shipped path-traced scenes, rendered
 * by the CUDA backend at equal spp and seed, match the CPU backend (the per-ray code is shared
 * and its arithmetic identical, so pixels agree exactly apart from a few where a rounding
 * difference sends a path another way), the per-bounce ray counts agree (Russian roulette
 * and absorption end the same paths), and every mask gives the same GPU image bit for bit.
 * Exits 77 (skipped) without a CUDA device. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scenes[] = { "scenes/cornell_path.json", "scenes/sphere_field.json" };

static void load_small(const char *rel, sr_scene *s, uint32_t depth)
{
    char path[1024];
    sr_error err = { SR_OK, "" };
    sr_status st = sr_scene_load(sr_test_source_path(path, sizeof path, rel), s, &err);
    if (st) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, SR_OK);
    assert_int_equal(s->integrator, SR_INTEGRATOR_PATH);
    s->width = 160;
    s->height = 120;
    s->spp = 4;
    if (depth) s->max_depth = depth;
}

/* Pixels whose largest channel differs by more than 1e-3 absolute + 1e-3 relative. */
static uint32_t count_bad(const float *a, const float *b, uint32_t pixels, double *max_diff, uint32_t *exact)
{
    uint32_t bad = 0;
    *max_diff = 0;
    *exact = 0;
    for (uint32_t i = 0; i < pixels; i++) {
        double worst = 0;
        int same = 1;
        for (int c = 0; c < 3; c++) {
            double d = fabs((double)a[3 * i + c] - b[3 * i + c]);
            double tol = 1e-3 + 1e-3 * fabs((double)a[3 * i + c]);
            if (d - tol > worst) worst = d - tol;
            if (d > *max_diff) *max_diff = d;
            same &= a[3 * i + c] == b[3 * i + c];
        }
        bad += worst > 0;
        *exact += (uint32_t)same;
    }
    return bad;
}

static void match(uint32_t depth)
{
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        sr_scene s;
        load_small(scenes[k], &s, depth);
        const uint32_t pixels = s.width * s.height;
        sr_render_stats cs, gs;
        memset(&gs, 0, sizeof gs);
        float *cpu = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 3, &cs);
        float *gpu = sr_test_render(&s, SR_BACKEND_CUDA, SR_MASK_COMPACT, 0.5f, 3, &gs);
        assert_non_null(gpu);
        double max_diff;
        uint32_t exact;
        uint32_t bad = count_bad(cpu, gpu, pixels, &max_diff, &exact);
        printf("%-26s %ux%u spp %u depth %2u: %u of %u pixels outside tolerance (%u bit-identical), max |diff| %.3g, "
               "rays cpu %llu gpu %llu\n",
               scenes[k], s.width, s.height, s.spp, s.max_depth, bad, pixels, exact, max_diff,
               (unsigned long long)cs.rays, (unsigned long long)gs.rays);
        /* One lost or wrong stencil word is 32 wrong rays; a few rounding-flipped paths are
         * allowed (a path that goes another way changes its pixel and a bounce or two). */
        assert_true(bad <= 8);
        for (uint32_t b = 0; b < SR_MAX_DEPTH; b++) {
            long long d = (long long)cs.bounce_rays[b] - (long long)gs.bounce_rays[b];
            if (llabs(d) > 16) fail_msg("%s bounce %u: cpu %llu rays, gpu %llu", scenes[k], b,
                                        (unsigned long long)cs.bounce_rays[b], (unsigned long long)gs.bounce_rays[b]);
        }
        free(cpu);
        free(gpu);
        sr_scene_free(&s);
    }
}

static void test_path_scenes_match_cpu(void **state)
{
    (void)state;
    match(0);    /* the scenes' depth (8) */
}

static void test_path_scenes_match_cpu_deep(void **state)
{
    (void)state;
    match(50);   /* Russian roulette ends most paths long before */
}

static void test_gpu_path_masks_identical(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        sr_scene s;
        load_small(scenes[k], &s, 0);
        free(sr_test_masks_agree(&s, SR_BACKEND_CUDA, 5, NULL));
        sr_scene_free(&s);
    }
}

int main(int argc, char **argv)
{
    const int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_scenes_match_cpu),
        cmocka_unit_test(test_path_scenes_match_cpu_deep),
        cmocka_unit_test(test_gpu_path_masks_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
