/* test_gpu_api.c: the C library (include/stencilray.h) on the GPU: a frame rendered with
 * SR_DEVICE_KIND_GPU is the CPU's film bit for bit, the device is named in the log, and a
 * change of device between frames reopens it. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "../../include/stencilray.h"

typedef struct notices { int gpu, cpu; } notices;

static void on_log(void *user, sr_log_level level, const char *message)
{
    notices *n = user;
    (void)level;
    n->gpu += strncmp(message, "GPU backend", 11) == 0;
    n->cpu += strncmp(message, "CPU backend", 11) == 0;
}

static float *render_on(sr_context *ctx, sr_device_kind device, const char *scene)
{
    const sr_frame_desc f = { .width = 96, .height = 54, .spp = 4, .depth = 4, .seed = 9, .device = device };
    if (sr_set_frame(ctx, &f) != SR_RESULT_OK || sr_render(ctx) != SR_RESULT_OK)
        fail_msg("%s on %s: %s", scene, device == SR_DEVICE_KIND_GPU ? "GPU" : "CPU", sr_last_error(ctx));
    float *rgb = malloc(sizeof(float) * 96 * 54 * 3);
    assert_int_equal(sr_read_pixels(ctx, rgb, 96 * 54 * 3, 3), SR_RESULT_OK);
    return rgb;
}

static void test_gpu_film_is_cpu_film(void **state)
{
    (void)state;
    const char *scenes[] = { "scenes/cornell.json", "scenes/cornell_path.json", "scenes/default.json" };
    for (size_t i = 0; i < sizeof scenes / sizeof *scenes; i++) {
        char path[4096];
        notices n = { 0, 0 };
        sr_context *ctx = sr_create(&(sr_context_desc){ .log = on_log, .log_user = &n });
        if (sr_load_file(ctx, sr_test_source_path(path, sizeof path, scenes[i])) != SR_RESULT_OK)
            fail_msg("%s", sr_last_error(ctx));
        float *gpu = render_on(ctx, SR_DEVICE_KIND_GPU, scenes[i]);
        float *cpu = render_on(ctx, SR_DEVICE_KIND_CPU, scenes[i]);   /* the device changes: reopened */
        assert_int_equal(n.gpu, 1);
        assert_int_equal(n.cpu, 1);
        if (memcmp(gpu, cpu, sizeof(float) * 96 * 54 * 3)) fail_msg("%s: the GPU's film differs from the CPU's", scenes[i]);
        free(gpu);
        free(cpu);
        sr_destroy(ctx);
    }
}

int main(int argc, char **argv)
{
    const int start = sr_test_gpu_start(argc, argv);
    if (start) return start;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_film_is_cpu_film),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
