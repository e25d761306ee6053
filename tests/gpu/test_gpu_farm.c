/* A frame spread over several GPU workers (render --device LIST, src/farm) is the image of one:
 * two workers on one device (--device 0,0, which a one-GPU machine can run) and every device
 * (--device all) give the bytes of --device 0, for PNG and float EXR, Whitted and path; and a
 * GPU worker with a CPU worker (--device 0,cpu) gives them too on a Whitted scene, whose GPU
 * and CPU images are the same bit for bit. Exits 77 (skipped) without a CUDA device. */
#include "../unit/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void render(const char *scene_rel, const char *device, const char *out, const char *spp)
{
    char scene[4096], err[8192];
    sr_test_source_path(scene, sizeof scene, scene_rel);
    const char *argv[] = { "render", scene, "--width", "320", "--height", "240", "--spp", spp, "-q", "--device", device,
                           "-o", out, strstr(out, ".exr") ? "--exr-type" : NULL, "float", NULL };
    const int code = sr_test_run_cli(argv, err, sizeof err);
    if (code != 0) fail_msg("render %s --device %s exited %d: %s", scene_rel, device, code, err);
}

static void same(const char *scene, const char *device, const char *ext, const char *spp)
{
    char one[512], many[512], name[96];
    snprintf(name, sizeof name, "gpu_farm_one.%s", ext);
    sr_test_tmp_path(one, sizeof one, name);
    snprintf(name, sizeof name, "gpu_farm_many.%s", ext);
    sr_test_tmp_path(many, sizeof many, name);
    render(scene, "0", one, spp);
    render(scene, device, many, spp);
    size_t na, nb;
    unsigned char *a = sr_test_read_bytes(one, &na), *b = sr_test_read_bytes(many, &nb);
    assert_non_null(a);
    assert_non_null(b);
    if (na != nb || memcmp(a, b, na)) fail_msg("%s --device %s (.%s, %s spp) differs from --device 0", scene, device, ext, spp);
    printf("  %s --device %s, .%s, %s spp: the bytes of --device 0\n", scene, device, ext, spp);
    free(a);
    free(b);
}

static void test_two_workers_on_one_device(void **state)
{
    (void)state;
    same("scenes/cornell_path.json", "0,0", "png", "100");
    same("scenes/cornell_path.json", "0,0", "exr", "100");
    same("scenes/sphere_field.json", "0,0", "png", "40");
    same("scenes/cornell.json", "0,0,0", "exr", "8");
}

static void test_every_device(void **state)
{
    (void)state;
    same("scenes/cornell_path.json", "all", "exr", "64");
    same("scenes/cornell_path.json", "all,0", "png", "64");
}

static void test_gpu_and_cpu_workers(void **state)
{
    (void)state;
    same("scenes/cornell.json", "0,cpu", "exr", "6");
}

int main(int argc, char **argv)
{
    const int start = sr_test_gpu_start(argc, argv);
    if (start) return start;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_workers_on_one_device),
        cmocka_unit_test(test_every_device),
        cmocka_unit_test(test_gpu_and_cpu_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
