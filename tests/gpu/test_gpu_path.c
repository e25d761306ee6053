/* Path tracing on the GPU against the CPU reference: the shipped path-traced scenes, rendered
 * by the CUDA backend at equal spp and seed, match the CPU backend (the per-ray code is shared
 * and its arithmetic identical, so pixels agree exactly apart from a few where a rounding
 * difference sends a path another way), the per-bounce ray counts agree (Russian roulette
 * and absorption end the same paths), and every mask gives the same GPU image bit for bit.
 * The sphere field is a plain scene (test_backend_ops): on the GPU it runs the plain build of
 * the path kernels (kernels/frames/plain.cuh), so these checks cover them too.
 * Exits 77 (skipped) without a CUDA device. */
#include "../unit/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scenes[] = { "scenes/cornell_path.json", "scenes/sphere_field.json" };

static void load_small(const char *rel, sr_scene *s, uint32_t depth)
{
    sr_test_load_shipped(rel, s);
    assert_int_equal(s->integrator, SR_INTEGRATOR_PATH);
    s->width = 160;
    s->height = 120;
    s->spp = 4;
    if (depth) s->max_depth = depth;
}

/* A path that goes another way by rounding changes its pixel and a bounce or two: the ray
 * counts may differ by a little more than in the Whitted scenes. */
static void match(uint32_t depth)
{
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        sr_scene s;
        load_small(scenes[k], &s, depth);
        assert_true(sr_test_gpu_matches_cpu(&s, scenes[k]));
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
