/* GPU against the CPU reference: every shipped scene, rendered by the CUDA backend, matches
 * the CPU backend bit for bit (one wrong stencil bit would break it), the per-bounce ray
 * counts are equal (no ray lost or duplicated by compaction), and all four masks
 * give the same GPU image. Exits 77 (skipped) without a CUDA device. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scenes[] = { "scenes/default.json", "scenes/cornell.json",
                                      "scenes/mirror_hall.json", "scenes/mesh.json" };

static void load_small(const char *rel, sr_scene *s)
{
    sr_test_load_shipped(rel, s);
    /* Small enough for CI-sized runs, large enough to hold many warps of every kind. */
    s->height = 120;
    s->width = 160;
    s->spp = 2;
}

static void test_scenes_match_cpu(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        sr_scene s;
        load_small(scenes[k], &s);
        assert_true(sr_test_gpu_matches_cpu(&s, scenes[k]));
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

/* The wave mask's queue only fills when many rays outlive sparse warps: a larger image of the
 * deepest scenes, at dense thresholds that split rays between round 0, the queue and the last
 * round differently, and with the queue cut short (SR_WAVE_QUEUE_LIMIT: warps that find it
 * full finish in place, leaving tombstones), against the one-stage-per-launch stencil mask
 * on the same GPU. Several samples, so that round 0's stencils swap and the queue's stencil
 * is reused. */
static void test_wave_rounds_identical(void **state)
{
    (void)state;
    static const char *const deep[] = { "scenes/mirror_hall.json", "scenes/cornell_path.json", "scenes/sphere_field.json" };
    static const uint32_t dense[] = { 1, 8, 16, 24, 32 };
    static const char *const limits[] = { "", "100", "5000" };
    for (size_t k = 0; k < sizeof deep / sizeof deep[0]; k++) {
        sr_scene s;
        sr_test_load_shipped(deep[k], &s);
        s.width = 427;    /* not a multiple of the 8x4 tiles: the overhanging slots die */
        s.height = 239;
        s.spp = 3;
        sr_render_stats ref_st, st;
        float *ref = sr_test_render(&s, SR_BACKEND_CUDA, SR_MASK_STENCIL, 0.5f, 11, &ref_st);
        for (size_t d = 0; d < sizeof dense / sizeof dense[0] * 3; d++) {
            setenv("SR_WAVE_QUEUE_LIMIT", limits[d / 5], 1);
            sr_render_opts o;
            sr_render_opts_default(&o);
            o.mask = SR_MASK_WAVE;
            o.seed = 11;
            o.wave_dense = dense[d % 5];
            float *img = sr_test_render_opts(&s, SR_BACKEND_CUDA, &o, &st);
            if (memcmp(img, ref, sizeof(float) * 3u * s.width * s.height))
                fail_msg("%s: wave mask (dense %u, queue limit '%s') differs from the stencil mask", deep[k], dense[d % 5],
                         limits[d / 5]);
            for (uint32_t b = 0; b < SR_MAX_DEPTH; b++)
                if (st.bounce_rays[b] != ref_st.bounce_rays[b])
                    fail_msg("%s: wave mask (dense %u, queue limit '%s') bounce %u: %llu rays, stencil mask %llu", deep[k],
                             dense[d % 5], limits[d / 5], b,
                             (unsigned long long)st.bounce_rays[b], (unsigned long long)ref_st.bounce_rays[b]);
            free(img);
        }
        unsetenv("SR_WAVE_QUEUE_LIMIT");
        printf("%-26s %ux%u spp %u depth %2u: wave mask at dense 1, 8, 16, 24, 32, queue limits none, 100, 5000 = "
               "stencil mask (%llu rays)\n",
               deep[k], s.width, s.height, s.spp, s.max_depth, (unsigned long long)ref_st.rays);
        free(ref);
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
        cmocka_unit_test(test_wave_rounds_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
