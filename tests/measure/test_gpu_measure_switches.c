/* The measurement build's switches (-DSR_MEASURE=ON, docs/commands.md) change speed, never the
 * image: with every scene on the general kernels ($SR_NO_PLAIN_KERNELS), the wave mask's
 * stencils outside the L2 window ($SR_NO_L2_WINDOW) and its tiles in launch order
 * ($SR_WAVE_LAUNCH_ORDER), the GPU's wave mask still matches the CPU bit for bit, and every
 * mask agrees. Then `stencilray bench` with $SR_WAVE_TIMELINE writes the warp timeline.
 * Exits 77 (skipped) without a CUDA device. */
#include "../unit/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_switches_keep_images(void **state)
{
    (void)state;
    static const char *const scenes[] = { "scenes/default.json", "scenes/cornell_path.json", "scenes/sphere_field.json" };
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        sr_scene s;
        sr_test_load_shipped(scenes[k], &s);
        s.width = 96;
        s.height = 64;
        s.spp = 2;
        assert_int_equal(sr_test_gpu_matches_cpu(&s, scenes[k]), 1);
        free(sr_test_masks_agree(&s, SR_BACKEND_CUDA, 11, NULL));
        sr_scene_free(&s);
    }
}

static void test_timeline_written(void **state)
{
    (void)state;
    char csv[512], scene[512], err[4096];
    sr_test_tmp_path(csv, sizeof csv, "measure_timeline.csv");
    remove(csv);
    sr_test_source_path(scene, sizeof scene, "scenes/sphere_field.json");
    assert_int_equal(setenv("SR_WAVE_TIMELINE", csv, 1), 0);
    const char *argv[] = { "bench", scene, "--width", "96", "--height", "64", "--depth", "4", "--frames", "2",
                           "--mask", "wave", "--wave-dense", "1", "-q", NULL };
    const int rc = sr_test_run_cli(argv, err, sizeof err);
    unsetenv("SR_WAVE_TIMELINE");
    if (rc != 0) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    char *text = sr_test_read_text(csv);
    assert_non_null(text);
    assert_int_equal(strncmp(text, "warp,start_ns,ran_ns,sm,deepest_bounce\n", 39), 0);
    assert_non_null(strchr(text + 39, '\n'));   /* at least one warp's record */
    free(text);
}

int main(int argc, char **argv)
{
    /* Read at a scene's prepare or a pool's allocation: set before anything renders. */
    if (setenv("SR_NO_PLAIN_KERNELS", "1", 1) || setenv("SR_NO_L2_WINDOW", "1", 1) ||
        setenv("SR_WAVE_LAUNCH_ORDER", "1", 1))
        return 1;
    const int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_switches_keep_images),
        cmocka_unit_test(test_timeline_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
