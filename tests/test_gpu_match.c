/* GPU against the CPU reference: every shipped scene, rendered by the CUDA backend, matches
 * the CPU backend within a tolerance that one wrong stencil word (32 rays) would break, the
 * per-bounce ray counts agree (no ray lost or duplicated by compaction), and all four masks
 * give the same GPU image. Exits 77 (skipped) without a CUDA device. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scenes[] = { "scenes/default.json", "scenes/cornell.json",
                                      "scenes/mirror_hall.json", "scenes/mesh.json" };

static void load_small(const char *rel, sr_scene *s)
{
    char path[1024];
    sr_error err = { SR_OK, "" };
    sr_status st = sr_scene_load(sr_test_source_path(path, sizeof path, rel), s, &err);
    if (st) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, SR_OK);
    /* Small enough for CI-sized runs, large enough to hold many warps of every kind. */
    s->height = 120;
    s->width = 160;
    s->spp = 2;
}

/* Pixels whose largest channel differs by more than 1e-3 absolute + 1e-3 relative. */
static uint32_t count_bad(const float *a, const float *b, uint32_t pixels, double *max_diff)
{
    uint32_t bad = 0;
    *max_diff = 0;
    for (uint32_t i = 0; i < pixels; i++) {
        double worst = 0;
        for (int c = 0; c < 3; c++) {
            double d = fabs((double)a[3 * i + c] - b[3 * i + c]);
            double tol = 1e-3 + 1e-3 * fabs((double)a[3 * i + c]);
            if (d - tol > worst) worst = d - tol;
            if (d > *max_diff) *max_diff = d;
        }
        bad += worst > 0;
    }
    return bad;
}

static void test_scenes_match_cpu(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        sr_scene s;
        load_small(scenes[k], &s);
        const uint32_t pixels = s.width * s.height;
        sr_render_stats cs, gs;
        memset(&gs, 0, sizeof gs);
        float *cpu = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 3, &cs);
        float *gpu = sr_test_render(&s, SR_BACKEND_CUDA, SR_MASK_COMPACT, 0.5f, 3, &gs);
        assert_non_null(gpu);
        double max_diff;
        uint32_t bad = count_bad(cpu, gpu, pixels, &max_diff);
        /* A lost or wrong stencil word shows as >= 32 wrong pixels in one pass; allow a few
         * pixels where float rounding flips a glass reflect/refract choice. */
        printf("%-26s %ux%u spp %u: %u of %u pixels outside tolerance, max |diff| %.3g, rays cpu %llu gpu %llu\n",
               scenes[k], s.width, s.height, s.spp, bad, pixels, max_diff,
               (unsigned long long)cs.rays, (unsigned long long)gs.rays);
        assert_true(bad <= 8);
        /* The same rays were traced at every bounce (allowing rounding-flip strays). */
        for (uint32_t b = 0; b < SR_MAX_DEPTH; b++) {
            long long d = (long long)cs.bounce_rays[b] - (long long)gs.bounce_rays[b];
            assert_true(llabs(d) <= 8);
        }
        free(cpu);
        free(gpu);
        sr_scene_free(&s);
    }
}

static void test_gpu_masks_identical(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        sr_scene s;
        load_small(scenes[k], &s);
        free(sr_test_masks_agree(&s, SR_BACKEND_CUDA, 5, NULL));
        sr_scene_free(&s);
    }
}

int main(int argc, char **argv)
{
    const int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenes_match_cpu),
        cmocka_unit_test(test_gpu_masks_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
