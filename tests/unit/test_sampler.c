/* test_sampler.c: the Sobol sampler (kernels/core/rng.h): its first 2^k points are stratified
 * in every elementary interval, scrambled or not, at every power-of-two prefix; pixels and
 * the draws of one bounce are decorrelated; and on an integrand with a known value (a diffuse
 * plane under the sky gradient) its error at 256 spp is below a bound the independent sampler
 * misses. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/core/rng.h"

/* The 2D draws (each takes coordinates 0 and 1 of its own Sobol group) and the 1D ones. */
static const uint32_t pairs[][2] = {
    { SR_DIM_PIXEL_X, SR_DIM_PIXEL_Y }, { SR_DIM_LENS_U, SR_DIM_LENS_V }, { SR_DIM_LIGHT_U, SR_DIM_LIGHT_V },
    { SR_DIM_BSDF_U, SR_DIM_BSDF_V },   { SR_DIM_FUZZ_U, SR_DIM_FUZZ_V },
};
static const uint32_t singles[] = { SR_DIM_LIGHT_PICK, SR_DIM_CHOICE, SR_DIM_RR, SR_DIM_FUZZ_W };

#define MAX_LOG2 10u

/* Whether n = 2^k points (x, y in [0, 1)) form a (0,k,2)-net: for every split of k into
 * a + b, each of the 2^a x 2^b boxes of size 2^-a x 2^-b holds exactly one point. */
static bool is_net_2d(const double *x, const double *y, uint32_t k)
{
    static unsigned char count[1u << MAX_LOG2];
    const uint32_t n = 1u << k;
    for (uint32_t a = 0; a <= k; a++) {
        memset(count, 0, n);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t cx = (uint32_t)(x[i] * (double)(1u << a)), cy = (uint32_t)(y[i] * (double)(1u << (k - a)));
            if (++count[(cx << (k - a)) | cy] > 1) return false;
        }
    }
    return true;
}

/* Whether n = 2^k numbers in [0, 1) put one in each interval of length 2^-k. */
static bool is_net_1d(const double *x, uint32_t k)
{
    static unsigned char count[1u << MAX_LOG2];
    memset(count, 0, 1u << k);
    for (uint32_t i = 0; i < (1u << k); i++)
        if (++count[(uint32_t)(x[i] * (double)(1u << k))] > 1) return false;
    return true;
}

/* Sobol's first two coordinates, unscrambled: the published first points (natural order),
 * and the net property for every 2^k up to 1024. */
static void test_sobol_points(void **state)
{
    (void)state;
    const double want[8][2] = { { 0, 0 },         { 0.5, 0.5 },     { 0.25, 0.75 },  { 0.75, 0.25 },
                                { 0.125, 0.625 }, { 0.625, 0.125 }, { 0.375, 0.375 }, { 0.875, 0.875 } };
    for (uint32_t i = 0; i < 8; i++)
        for (uint32_t d = 0; d < 2; d++) assert_true(sr_sobol(i, d) / 4294967296.0 == want[i][d]);
    static double x[1u << MAX_LOG2], y[1u << MAX_LOG2];
    for (uint32_t k = 0; k <= MAX_LOG2; k++) {
        for (uint32_t i = 0; i < (1u << k); i++) {
            x[i] = sr_sobol(i, 0) / 4294967296.0;
            y[i] = sr_sobol(i, 1) / 4294967296.0;
        }
        if (!is_net_2d(x, y, k)) fail_msg("Sobol's first %u points are not a (0,%u,2)-net", 1u << k, k);
    }
}

/* Scrambled, as the sampler draws them: for several pixels, bounces and seeds, every 2D draw's
 * first 2^k samples are a (0,k,2)-net and every 1D draw's are stratified, for each k up to 10
 * (so every power-of-two prefix of 1024 samples is one), and the scramble moved the points. */
static void test_scrambled_nets(void **state)
{
    (void)state;
    static double x[1u << MAX_LOG2], y[1u << MAX_LOG2];
    const uint32_t pixels[] = { 0, 1, 777, 123456 }, bounces[] = { 0, 1, 7 }, seeds[] = { 1, 2, 0xdeadbeefu };
    uint32_t moved = 0, sets = 0;
    for (size_t p = 0; p < 4; p++)
        for (size_t b = 0; b < 3; b++)
            for (size_t s = 0; s < 3; s++)
                for (uint32_t k = 0; k <= MAX_LOG2; k++) {
                    const uint32_t n = 1u << k;
                    for (size_t d = 0; d < sizeof pairs / sizeof pairs[0]; d++) {
                        for (uint32_t i = 0; i < n; i++) {
                            x[i] = sr_sobol_rng(seeds[s], pixels[p], i, bounces[b], pairs[d][0]);
                            y[i] = sr_sobol_rng(seeds[s], pixels[p], i, bounces[b], pairs[d][1]);
                        }
                        if (!is_net_2d(x, y, k))
                            fail_msg("pixel %u bounce %u seed %u draws %u/%u: %u samples are not a (0,%u,2)-net",
                                     pixels[p], bounces[b], seeds[s], pairs[d][0], pairs[d][1], n, k);
                        moved += x[0] != 0.0 || y[0] != 0.0;
                        sets++;
                    }
                    for (size_t d = 0; d < sizeof singles / sizeof singles[0]; d++) {
                        for (uint32_t i = 0; i < n; i++) x[i] = sr_sobol_rng(seeds[s], pixels[p], i, bounces[b], singles[d]);
                        if (!is_net_1d(x, k))
                            fail_msg("pixel %u bounce %u seed %u draw %u: %u samples are not stratified", pixels[p],
                                     bounces[b], seeds[s], singles[d], n);
                    }
                }
    assert_int_equal(moved, sets);   /* sample 0 is Sobol's point 0 = (0, 0) only if unscrambled */
}

/* Pearson's correlation of two series of n numbers. */
static double correlation(const double *a, const double *b, uint32_t n)
{
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    for (uint32_t i = 0; i < n; i++) ma += a[i] / n, mb += b[i] / n;
    for (uint32_t i = 0; i < n; i++) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return sab / sqrt(saa * sbb);
}

/* The error of pixel p's 16-sample estimate of the quarter disc's area (x^2 + y^2 < 1 over
 * the unit square, pi/4) with the 2D draw dims, bounce and seed. */
static double disc_error(uint32_t seed, uint32_t p, uint32_t bounce, const uint32_t dims[2])
{
    uint32_t in = 0;
    for (uint32_t i = 0; i < 16; i++) {
        const double x = sr_sobol_rng(seed, p, i, bounce, dims[0]), y = sr_sobol_rng(seed, p, i, bounce, dims[1]);
        in += x * x + y * y < 1.0;
    }
    return in / 16.0 - 0.785398163397448;
}

/* Neighbouring pixels' errors are unrelated (a shared scramble would make them equal: the
 * structured noise the per-pixel keys avoid), as are one pixel's errors with two draws of a
 * bounce; one sample across 4096 pixels fills 16 bins evenly (chi-square); and within a
 * pixel, a 1D decision is not tied to the quadrant of a 2D draw of the same bounce: with one
 * Sobol point for both, every pixel's 16 light picks below 1/2 would fall all or none with its
 * light samples' u below 1/2; with two nested scrambles of the index, only where the two
 * flip the lowest bit alike in all 8 aligned pairs of samples (1 pixel in 128 for ideal
 * random scrambles; the hash gives about 1 in 80). */
static void test_decorrelated(void **state)
{
    (void)state;
    enum { PIXELS = 4096 };
    static double e0[PIXELS], e1[PIXELS], e2[PIXELS];
    for (uint32_t p = 0; p < PIXELS; p++) {
        e0[p] = disc_error(1, p, 0, pairs[0]);
        e1[p] = disc_error(1, p + 1, 0, pairs[0]);
        e2[p] = disc_error(1, p, 0, pairs[3]);
    }
    const double r_pixels = correlation(e0, e1, PIXELS), r_draws = correlation(e0, e2, PIXELS);
    printf("  correlation of errors: neighbouring pixels %+.4f, two draws of a pixel %+.4f (sigma %.4f)\n", r_pixels,
           r_draws, 1.0 / sqrt(PIXELS));
    assert_true(fabs(r_pixels) < 5.0 / sqrt(PIXELS));
    assert_true(fabs(r_draws) < 5.0 / sqrt(PIXELS));

    uint32_t bins[16] = { 0 };
    for (uint32_t p = 0; p < PIXELS; p++) bins[(uint32_t)(sr_sobol_rng(7, p, 0, 2, SR_DIM_BSDF_U) * 16.0)]++;
    double chi2 = 0;
    for (int i = 0; i < 16; i++) chi2 += (bins[i] - 256.0) * (bins[i] - 256.0) / 256.0;
    printf("  sample 0 over 4096 pixels: chi-square %.1f (15 degrees of freedom)\n", chi2);
    assert_true(chi2 < 40.0);   /* p < 0.001 */

    uint32_t tied = 0;
    for (uint32_t p = 0; p < PIXELS; p++) {
        uint32_t both = 0;
        for (uint32_t i = 0; i < 16; i++)
            both += sr_sobol_rng(1, p, i, 1, SR_DIM_LIGHT_PICK) < 0.5f && sr_sobol_rng(1, p, i, 1, SR_DIM_LIGHT_U) < 0.5f;
        tied += both == 0 || both == 8;
    }
    printf("  pixels whose light pick follows the light sample's quadrant: %u of 4096\n", tied);
    assert_true(tied < PIXELS / 32);
}

/* ---- convergence on a diffuse plane under the sky gradient ---------------------------------- */

/* Every camera ray meets the plane, every bounce escapes up: a pixel's value is the albedo
 * times the cosine-weighted mean of the sky, H/3 + 2Z/3 (tests/unit/test_path_sky.c), and its
 * noise comes from the one cosine-sampled direction. (A uniform sky would give no noise.) */
static const char *plane_fmt =
    "{\"integrator\":\"path\", \"sampler\":\"%s\","
    " \"camera\":{\"position\":[0,3,0],\"look_at\":[0,0,-1],\"fov\":40},"
    " \"image\":{\"width\":40,\"height\":30,\"spp\":%u,\"max_depth\":8},"
    " \"sky\":{\"zenith\":[0.2,0.5,1.0],\"horizon\":[1.0,0.9,0.8],\"ground\":[9,9,9]},"
    " \"materials\":{\"d\":{\"type\":\"diffuse\",\"albedo\":[0.7,0.5,0.3]}},"
    " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"d\"}]}";

/* The root mean square of the pixels' relative errors, at spp samples, with the given sampler. */
static double plane_rms_error(const char *sampler, uint32_t spp)
{
    const double rho[3] = { 0.7, 0.5, 0.3 }, Z[3] = { 0.2, 0.5, 1.0 }, H[3] = { 1.0, 0.9, 0.8 };
    char json[2048];
    snprintf(json, sizeof json, plane_fmt, sampler, spp);
    sr_scene s;
    sr_test_parse("plane.json", json, &s);
    float *img = sr_test_render_cpu(&s, 5);
    double sum = 0;
    for (uint32_t i = 0; i < 40 * 30; i++)
        for (int c = 0; c < 3; c++) {
            const double expect = rho[c] * (H[c] / 3.0 + 2.0 * Z[c] / 3.0), e = (img[3 * i + c] - expect) / expect;
            sum += e * e;
        }
    free(img);
    sr_scene_free(&s);
    return sqrt(sum / (40 * 30 * 3));
}

/* Measured on this scene at 256 spp: independent 1.6e-2 (4x less than at 16 spp: its
 * 1/sqrt(spp) rate), Sobol 6.3e-5 (57x less than at 16 spp). The bound, 1e-3, is 16 times
 * Sobol's error and a sixteenth of the independent sampler's. */
#define PLANE_BOUND_256 1e-3

static void test_plane_converges(void **state)
{
    (void)state;
    const double ind16 = plane_rms_error("independent", 16), ind256 = plane_rms_error("independent", 256);
    const double sob16 = plane_rms_error("sobol", 16), sob256 = plane_rms_error("sobol", 256);
    printf("  rms relative error at 16, 256 spp: independent %.2e %.2e, sobol %.2e %.2e (bound at 256: %.0e)\n",
           ind16, ind256, sob16, sob256, PLANE_BOUND_256);
    assert_true(sob256 < PLANE_BOUND_256);
    assert_true(ind256 > PLANE_BOUND_256);
    /* Sobol's error falls faster than the independent sampler's 1/sqrt(spp) (x 1/4 here). */
    assert_true(ind16 / ind256 > 3.0 && ind16 / ind256 < 5.5);
    assert_true(sob16 / sob256 > 8.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sobol_points),
        cmocka_unit_test(test_scrambled_nets),
        cmocka_unit_test(test_decorrelated),
        cmocka_unit_test(test_plane_converges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
