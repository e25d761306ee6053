/* The Whitted split (kernels/integrators/whitted.h): a glass hit follows both the refracted and
 * the reflected ray, so a Whitted image of mirrors and glass has no noise at one sample per
 * pixel. Checked against properties that do not depend on the split's code: the image does not
 * depend on the seed; it is the expectation of the stochastic choice it replaces (a many-sample
 * render of that choice, within its own Monte Carlo error); every mask gives the same image and
 * the same rays; a tree deeper than the room for it drops rays, and says how many. */
#include "testutil.h"
#include "../../src/render/render.h"
#include "../../kernels/integrators/whitted.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A render on the CPU backend with the wave mask; `stochastic` turns the split off (the
 * renderer's has_glass, which decides it, cleared after prepare) for the reference. */
static float *render(const sr_scene *scene, uint32_t seed, int stochastic, sr_render_stats *stats)
{
    sr_error err = { SR_OK, "" };
    sr_backend be;
    assert_int_equal(sr_backend_create(SR_BACKEND_CPU, 0, &be, NULL, 0, &err), SR_OK);
    sr_renderer r;
    sr_frame f;
    sr_frame_from_scene(&f, scene);
    sr_render_opts_default(&f.render);
    f.render.seed = seed;
    f.render.progress = 0;
    sr_status st = sr_renderer_prepare(&r, scene, &be, &f, &err);
    if (st) fail_msg("%s", err.msg);
    assert_true(r.has_glass);   /* (the scenes here all have glass) */
    if (stochastic) r.has_glass = 0;
    float *rgb = malloc(sizeof(float) * 3u * scene->width * scene->height);
    assert_non_null(rgb);
    st = sr_render_image(&r, &f, rgb, stats, &err);
    if (st) fail_msg("%s", err.msg);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    return rgb;
}

static void load_default(sr_scene *s, uint32_t w, uint32_t h)
{
    sr_test_load_shipped("scenes/default.json", s);
    s->width = w;
    s->height = h;
    s->spp = 1;
}

/* At one sample per pixel the default scene (mirror, glass, diffuse floor, a point light; no
 * rough metal, the one material left stochastic) is the same image whatever the seed; with
 * the stochastic choice it is not (so the comparison can fail). */
static void test_default_scene_does_not_depend_on_the_seed(void **state)
{
    (void)state;
    sr_scene s;
    load_default(&s, 160, 90);
    const size_t bytes = sizeof(float) * 3u * s.width * s.height;
    sr_render_stats st1, st2;
    float *a = render(&s, 1, 0, &st1), *b = render(&s, 2, 0, &st2);
    if (memcmp(a, b, bytes)) fail_msg("seeds 1 and 2 give different images with the split");
    assert_int_equal(st1.rays, st2.rays);
    assert_int_equal(st1.dropped, 0);
    float *c = render(&s, 1, 1, NULL), *d = render(&s, 2, 1, NULL);
    uint32_t differ = 0;
    for (size_t i = 0; i < 3u * s.width * s.height; i++) differ += c[i] != d[i];
    assert_true(differ > 0);   /* the stochastic glass does depend on the seed */
    free(a); free(b); free(c); free(d);
    sr_scene_free(&s);
}

/* The split is Whitted's weighted sum, the expectation of the stochastic choice: each pixel
 * of the split image lies within the Monte Carlo error of the mean of N stochastic 1-spp
 * images (seeds 1..N; no jitter at 1 spp, so only the glass choice varies). Per pixel and
 * channel z = (split - mean) / (sd / sqrt(N)); every |z| < 5.5 (with about 600 noisy values,
 * a normal z passes that with certainty) and the mean z^2 over the noisy ones is near 1 (the
 * error is the Monte Carlo error, neither a bias nor a variance the split does not have). */
static void test_glass_is_the_mean_of_the_stochastic_choice(void **state)
{
    (void)state;
    enum { N = 768 };
    sr_scene s;
    load_default(&s, 80, 45);
    const size_t values = 3u * s.width * s.height;
    double *sum = calloc(values, sizeof *sum), *sq = calloc(values, sizeof *sq);
    assert_non_null(sum);
    assert_non_null(sq);
    for (uint32_t k = 0; k < N; k++) {
        float *img = render(&s, 1u + k, 1, NULL);
        for (size_t i = 0; i < values; i++) {
            sum[i] += img[i];
            sq[i] += (double)img[i] * img[i];
        }
        free(img);
    }
    float *split = render(&s, 1, 0, NULL);
    uint32_t noisy = 0;
    double z2 = 0.0, worst = 0.0;
    for (size_t i = 0; i < values; i++) {
        const double mean = sum[i] / N, var = sq[i] / N - mean * mean;
        const double se = var > 0.0 ? sqrt(var / (N - 1)) : 0.0, d = fabs(split[i] - mean);
        if (se < 1e-4) {   /* no glass on this pixel's paths: the same sum, to the float rounding */
            if (d > 1e-5 * (1.0 + fabs(mean))) fail_msg("value %zu: split %.7g, stochastic %.7g, no noise", i, split[i], mean);
            continue;
        }
        const double z = d / se;
        noisy++;
        z2 += z * z;
        if (z > worst) worst = z;
    }
    printf("  %u noisy values of %zu, mean z^2 %.3f, max |z| %.2f (N = %d)\n", noisy, values, noisy ? z2 / noisy : 0.0,
           worst, N);
    assert_true(noisy > 300);   /* the glass sphere's pixels */
    assert_true(worst < 5.5);
    assert_in_range((uint32_t)(100.0 * z2 / noisy), 80, 125);
    free(split); free(sum); free(sq);
    sr_scene_free(&s);
}

/* Every mask (wave with and without repacking, megakernel, stencil, flags, compact) gives the
 * default scene's split image and traces the same rays at the same bounces, spawned ones
 * included; and spawned rays are counted: more rays than without the split. */
static void test_every_mask_gives_the_same_split_image(void **state)
{
    (void)state;
    sr_scene s;
    load_default(&s, 96, 54);
    sr_render_stats ref;
    float *img = sr_test_masks_agree(&s, SR_BACKEND_CPU, 7, &ref);
    sr_render_stats stoch;
    free(render(&s, 7, 1, &stoch));
    assert_int_equal(ref.dropped, 0);
    assert_true(ref.rays > stoch.rays);
    free(img);
    sr_scene_free(&s);
}

/* Four nested glass spheres at depth 16 (sr_test_nested_glass): a deep tree (every hit a
 * split). With the default room nothing is dropped and every mask agrees; with $SR_SPLIT_BUDGET=2 (two pending rays a
 * lane, two appended rays a launch) every mask drops rays, counts them, and traces fewer. */

static void test_nested_glass_drops_only_past_the_budget(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_nested_glass(&s, 48, 32);
    unsetenv(SR_SPLIT_BUDGET_ENV);
    sr_render_stats full;
    float *img = sr_test_masks_agree(&s, SR_BACKEND_CPU, 1, &full);
    assert_int_equal(full.dropped, 0);
    free(img);
    static const sr_mask masks[] = { SR_MASK_WAVE, SR_MASK_MEGAKERNEL, SR_MASK_STENCIL, SR_MASK_FLAGS, SR_MASK_COMPACT };
    setenv(SR_SPLIT_BUDGET_ENV, "2", 1);
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
        sr_render_stats st;
        free(sr_test_render(&s, SR_BACKEND_CPU, masks[m], 0.5f, 1, &st));
        printf("  %-10s budget 2: %llu rays dropped, %llu traced (%llu with room)\n", sr_mask_name(masks[m]),
               (unsigned long long)st.dropped, (unsigned long long)st.rays, (unsigned long long)full.rays);
        assert_true(st.dropped > 0);
        assert_true(st.rays < full.rays);
    }
    unsetenv(SR_SPLIT_BUDGET_ENV);
    sr_scene_free(&s);
}

/* Path tracing has no split: the renderer leaves the pool's split off for it, whatever the
 * scene's glass. */
static void test_path_tracing_has_no_split(void **state)
{
    (void)state;
    sr_scene s;
    load_default(&s, 32, 18);
    sr_error err = { SR_OK, "" };
    sr_backend be;
    assert_int_equal(sr_backend_create(SR_BACKEND_CPU, 0, &be, NULL, 0, &err), SR_OK);
    sr_renderer r;
    sr_frame f;
    sr_frame_from_scene(&f, &s);
    f.integrator = SR_INTEGRATOR_PATH;
    assert_int_equal(sr_renderer_prepare(&r, &s, &be, &f, &err), SR_OK);
    assert_false(be.state->split);
    f.integrator = SR_INTEGRATOR_WHITTED;
    assert_int_equal(sr_renderer_apply(&r, &f, &err), SR_OK);
    assert_true(be.state->split);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    sr_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_scene_does_not_depend_on_the_seed),
        cmocka_unit_test(test_glass_is_the_mean_of_the_stochastic_choice),
        cmocka_unit_test(test_every_mask_gives_the_same_split_image),
        cmocka_unit_test(test_nested_glass_drops_only_past_the_budget),
        cmocka_unit_test(test_path_tracing_has_no_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
