/* test_api_env.c: a program using stencilray.h is steered by what it passes, not by the
 * environment: the command's $SR_HOST_MEM_LIMIT does not reach a library client, whose caps
 * are sr_set_memory_limits's. The command itself still takes the variable (test_limits). */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/stencilray.h"

static sr_context *open_cornell_small(void)
{
    char path[4096];
    sr_context *ctx = sr_create(NULL);
    assert_non_null(ctx);
    if (sr_load_file(ctx, sr_test_source_path(path, sizeof path, "scenes/cornell.json")) != SR_RESULT_OK)
        fail_msg("%s", sr_last_error(ctx));
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .width = 32, .height = 18, .spp = 1,
                                                         .device = SR_DEVICE_KIND_CPU }), SR_RESULT_OK);
    return ctx;
}

static void test_environment_does_not_steer_the_library(void **state)
{
    (void)state;
    setenv("SR_HOST_MEM_LIMIT", "1K", 1);   /* far below any frame: the command refuses it */
    setenv("SR_DEVICE_MEM_LIMIT", "1K", 1);
    sr_context *ctx = open_cornell_small();
    if (sr_render(ctx) != SR_RESULT_OK) fail_msg("steered by $SR_HOST_MEM_LIMIT: %s", sr_last_error(ctx));
    sr_destroy(ctx);
    unsetenv("SR_HOST_MEM_LIMIT");
    unsetenv("SR_DEVICE_MEM_LIMIT");
}

static void test_memory_limits_are_settings(void **state)
{
    (void)state;
    sr_context *ctx = open_cornell_small();
    sr_set_memory_limits(&(sr_memory_limits){ .host_bytes = 1024 });
    assert_int_equal(sr_render(ctx), SR_RESULT_INPUT_ERROR);
    const char *msg = sr_last_error(ctx);
    printf("  %s\n", msg);
    assert_non_null(strstr(msg, "of host memory"));
    assert_non_null(strstr(msg, "sr_set_memory_limits"));
    sr_set_memory_limits(NULL);
    if (sr_render(ctx) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    uint32_t w, h, samples;
    assert_int_equal(sr_film_size(ctx, &w, &h, &samples), SR_RESULT_OK);
    assert_int_equal(samples, 1);
    sr_destroy(ctx);
}

/* A program names its cap in the refusal (the command: $SR_HOST_MEM_LIMIT) and reads sizes as
 * a person writes them. */
static void test_memory_limit_names_and_sizes(void **state)
{
    (void)state;
    assert_int_equal(sr_memory_size("1.5G"), 3ull << 29);
    assert_int_equal(sr_memory_size("64MiB"), 64ull << 20);
    assert_int_equal(sr_memory_size("4096"), 4096);
    assert_int_equal(sr_memory_size("8 G"), 0);
    assert_int_equal(sr_memory_size(NULL), 0);
    sr_context *ctx = open_cornell_small();
    sr_set_memory_limits(&(sr_memory_limits){ .host_bytes = sr_memory_size("1K"), .host_name = "$MY_CAP" });
    assert_int_equal(sr_render(ctx), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "$MY_CAP"));
    sr_set_memory_limits(NULL);
    assert_int_equal(sr_render(ctx), SR_RESULT_OK);
    sr_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_environment_does_not_steer_the_library),
        cmocka_unit_test(test_memory_limits_are_settings),
        cmocka_unit_test(test_memory_limit_names_and_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
