/* The megakernel's deferred twin ($SR_MEGAKERNEL_DEFERRED, a measurement switch the benchmark
 * uses): with the path's last segment traced as a bounce of its own, as the wave mask does,
 * every mask still gives the same GPU image bit for bit and the same ray count, at a depth
 * where most paths reach their last segment (1, 2) and at the scenes' own (8).
 * Exits 77 (skipped) without a CUDA device. */
#include "../unit/testutil.h"

#include <stdlib.h>

static void test_deferred_megakernel_agrees(void **state)
{
    (void)state;
    static const char *const scenes[] = { "scenes/cornell_path.json", "scenes/sphere_field.json" };
    static const uint32_t depths[] = { 1, 2, 8 };
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
            sr_scene s;
            sr_test_load_shipped(scenes[k], &s);
            s.width = 96;
            s.height = 64;
            s.spp = 2;
            s.max_depth = depths[d];
            free(sr_test_masks_agree(&s, SR_BACKEND_CUDA, 11, NULL));
            sr_scene_free(&s);
        }
    }
}

int main(int argc, char **argv)
{
    /* Read once, at the first megakernel launch: set before anything renders. */
    if (setenv("SR_MEGAKERNEL_DEFERRED", "1", 1) != 0) return 1;
    const int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deferred_megakernel_agrees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
