/* test_denoise.c: sr_denoise (Open Image Denoise, loaded at run time) brings a noisy render of
 * cornell_path closer to a converged one, with and without guides; without the library it is
 * refused with one line that says what to install. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "../../include/stencilray.h"

enum { W = 64, H = 36, N = W * H * 3 };

/* cornell_path rendered on the CPU at spp samples into rgb (N floats); the context keeps it. */
static sr_context *render_cornell_path(uint32_t spp, float *rgb)
{
    char path[4096];
    sr_context *ctx = sr_create(NULL);
    assert_non_null(ctx);
    if (sr_load_file(ctx, sr_test_source_path(path, sizeof path, "scenes/cornell_path.json")) != SR_RESULT_OK ||
        sr_set_frame(ctx, &(sr_frame_desc){ .width = W, .height = H, .spp = spp, .device = SR_DEVICE_KIND_CPU }) !=
            SR_RESULT_OK ||
        sr_render(ctx) != SR_RESULT_OK || sr_read_pixels(ctx, rgb, N, 3) != SR_RESULT_OK)
        fail_msg("%s", sr_last_error(ctx));
    return ctx;
}

/* The mean relative squared error of img against ref (per channel, 0.01 keeps black stable). */
static double rel_mse(const float *img, const float *ref)
{
    double sum = 0.0;
    for (int i = 0; i < N; i++) {
        const double d = (double)img[i] - ref[i];
        sum += d * d / ((double)ref[i] * ref[i] + 0.01);
    }
    return sum / N;
}

/* Open Image Denoise's TBB dlopens its helper library with RTLD_DEEPBIND, which the
 * AddressSanitizer runtime refuses (it aborts the process): sanitized builds check the
 * refusals only, plain builds the denoising too. */
#if defined(__SANITIZE_ADDRESS__)
#define SR_DENOISE_RUNS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SR_DENOISE_RUNS 0
#endif
#endif
#ifndef SR_DENOISE_RUNS
#define SR_DENOISE_RUNS 1
#endif

static float reference[N];

static int setup(void **state)
{
    (void)state;
    if (SR_DENOISE_RUNS) sr_destroy(render_cornell_path(1024, reference));
    return 0;
}

/* 4 spp denoised is closer to 1024 spp than 4 spp is, by a wide margin; with guides too. */
static void test_denoise_closer(void **state)
{
    (void)state;
    if (!SR_DENOISE_RUNS) {
        print_message("skipped: Open Image Denoise's TBB does not run under AddressSanitizer\n");
        skip();
    }
    if (!sr_denoise_available()) fail_msg("Open Image Denoise does not load: run .ci/install-deps");
    static float noisy[N], denoised[N], albedo[N], normal[N];
    for (int i = 0; i < N; i++) {
        albedo[i] = 0.5f;
        normal[i] = i % 3 == 2 ? 1.0f : 0.0f;
    }
    const sr_denoise_desc guides[] = { { 0 }, { .albedo = albedo }, { .albedo = albedo, .normal = normal } };
    for (size_t g = 0; g < sizeof guides / sizeof guides[0]; g++) {
        sr_context *ctx = render_cornell_path(4, noisy);
        if (sr_denoise(ctx, g ? &guides[g] : NULL) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
        assert_int_equal(sr_read_pixels(ctx, denoised, N, 3), SR_RESULT_OK);
        const double before = rel_mse(noisy, reference), after = rel_mse(denoised, reference);
        print_message("guides %zu: relMSE 4 spp %.4f, denoised %.4f\n", g, before, after);
        assert_true(after < 0.5 * before);
        sr_destroy(ctx);
    }
}

/* Without the library (SR_NO_DENOISER) the call is refused, the film untouched. */
static void test_denoise_missing_library(void **state)
{
    (void)state;
    static float noisy[N], after[N];
    sr_context *ctx = render_cornell_path(4, noisy);
    setenv("SR_NO_DENOISER", "1", 1);
    assert_int_equal(sr_denoise_available(), 0);
    assert_int_equal(sr_denoise(ctx, NULL), SR_RESULT_INPUT_ERROR);
    unsetenv("SR_NO_DENOISER");
    assert_string_equal(sr_last_error(ctx), "denoising needs Intel Open Image Denoise: run .ci/install-deps, or "
                                            "install OIDN 2 (libOpenImageDenoise.so.2)");
    assert_int_equal(sr_read_pixels(ctx, after, N, 3), SR_RESULT_OK);
    assert_memory_equal(noisy, after, sizeof noisy);
    sr_destroy(ctx);
}

/* Before a render there is nothing to denoise. */
static void test_denoise_needs_film(void **state)
{
    (void)state;
    sr_context *ctx = sr_create(NULL);
    assert_int_equal(sr_denoise(ctx, NULL), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "sr_denoise: the film holds no samples"));
    sr_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_denoise_closer),
        cmocka_unit_test(test_denoise_missing_library),
        cmocka_unit_test(test_denoise_needs_film),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
