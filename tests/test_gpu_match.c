/* GPU against the CPU reference: every shipped scene, rendered by the CUDA backend, matches
 * the CPU backend within a tolerance that one wrong stencil word (32 rays) would break, the
 * per-bounce ray counts agree (no ray lost or duplicated by compaction), and all four masks
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
        assert_true(sr_test_gpu_matches_cpu(&s, scenes[k], 8));
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
