/* test_path_sky.c: the path integrator (kernels/integrators/path.h, CPU backend) under the sky and a
 * uniform environment, against closed forms: a convex diffuse object and a diffuse plane give
 * albedo x the light they see, exactly under a uniform sky and as the cosine-weighted mean of
 * the gradient; the sky seen directly by both integrators. Monte Carlo results are compared
 * by testutil.h's z statistic over independent pixels. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/integrators/path.h"

/* ---- a convex diffuse object under a uniform environment --------------------------------- */

static const char *convex_scene =
    "{\"integrator\":\"path\","
    " \"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0],\"fov\":30},"
    " \"image\":{\"width\":48,\"height\":48,\"spp\":1,\"max_depth\":8},"
    " \"background\":[0.5,1.0,2.0],"
    " \"materials\":{\"d\":{\"type\":\"diffuse\",\"albedo\":[0.6,0.4,0.2]}},"
    " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"d\"}]}";

/* Every ray that leaves a convex object escapes, so a pixel on it is albedo x L exactly, with
 * no noise, at every depth: depth 1 is direct lighting from every light, the sky included
 * (before the one depth convention it was black at depth 1). */
static void test_convex_diffuse_in_uniform_environment(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse("convex.json", convex_scene, &s);
    const float L[3] = { 0.5f, 1.0f, 2.0f }, rho[3] = { 0.6f, 0.4f, 0.2f };
    const uint32_t depths[] = { 2, 8, 64, 1 };
    for (size_t k = 0; k < 4; k++) {
        s.max_depth = depths[k];
        for (uint32_t spp = 1; spp <= 4; spp += 3) {   /* spp 4: jittered, many directions */
            s.spp = spp;
            float *img = sr_test_render_cpu(&s, 11);
            uint32_t on = 0;
            for (uint32_t y = 0; y < 48; y++)
                for (uint32_t x = 0; x < 48; x++) {
                    double m = sphere_margin(d3v(0, 0, 5), d3v(0, 0, 0), 30.0, 48, 48, x, y, d3v(0, 0, 0), 1.0);
                    if (fabs(m) < 0.08) continue;   /* pixels the silhouette may cross */
                    on += m < 0;
                    for (int c = 0; c < 3; c++) {
                        float expect = m > 0 ? L[c] : rho[c] * L[c];
                        float got = img[3u * (y * 48 + x) + (uint32_t)c];
                        if (fabsf(got - expect) > 2e-6f * (1.0f + expect))
                            fail_msg("depth %u spp %u pixel (%u, %u)[%d]: %.7g, expected %.7g", depths[k], spp, x, y, c,
                                     got, expect);
                    }
                }
            assert_true(on > 500);
            free(img);
        }
    }
    sr_scene_free(&s);
}

/* ---- a diffuse plane under a uniform sky and under the gradient -------------------------- */

static const char *plane_scene_fmt =
    "{\"integrator\":\"path\","
    " \"camera\":{\"position\":[0,3,0],\"look_at\":[0,0,-1],\"fov\":40},"
    " \"image\":{\"width\":40,\"height\":30,\"spp\":%u,\"max_depth\":8},"
    " %s,"
    " \"materials\":{\"d\":{\"type\":\"diffuse\",\"albedo\":[0.7,0.5,0.3]}},"
    " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"d\"}]}";

static void parse_fmt(sr_scene *s, const char *fmt, uint32_t spp, const char *sky)
{
    char json[2048];
    snprintf(json, sizeof json, fmt, spp, sky);
    sr_test_parse("plane.json", json, s);
}

/* Every camera ray meets the plane (the camera looks down steeply), every bounce escapes up.
 * Uniform sky L: albedo x L at every pixel, exactly. Gradient sky (horizon H at y = 0 to
 * zenith Z at y = 1, linear in y): the cosine-weighted mean over the upper hemisphere is
 * 2 * integral_0^1 (H (1 - y) + Z y) y dy = H/3 + 2Z/3, times the albedo. The ground colour
 * is never seen. */
static void test_diffuse_plane_under_sky(void **state)
{
    (void)state;
    const double rho[3] = { 0.7, 0.5, 0.3 };
    sr_scene s;
    parse_fmt(&s, plane_scene_fmt, 4, "\"background\":[0.25,0.5,1.0]");
    float *img = sr_test_render_cpu(&s, 3);
    for (uint32_t i = 0; i < 40 * 30; i++)
        for (int c = 0; c < 3; c++) {
            double expect = rho[c] * (c == 0 ? 0.25 : c == 1 ? 0.5 : 1.0);
            assert_float_equal(img[3 * i + c], expect, 2e-6 * (1.0 + expect));
        }
    free(img);
    sr_scene_free(&s);

    const double Z[3] = { 0.2, 0.5, 1.0 }, H[3] = { 1.0, 0.9, 0.8 };
    parse_fmt(&s, plane_scene_fmt, 64,
              "\"sky\":{\"zenith\":[0.2,0.5,1.0],\"horizon\":[1.0,0.9,0.8],\"ground\":[9,9,9]}");
    img = sr_test_render_cpu(&s, 4);
    double expect[3];
    for (int c = 0; c < 3; c++) expect[c] = rho[c] * (H[c] / 3.0 + 2.0 * Z[c] / 3.0);
    sr_test_check_constant("plane under the sky gradient", img, 40 * 30, expect, 0.01);
    free(img);
    sr_scene_free(&s);
}

/* The sky as seen directly, by both integrators: straight up is the zenith, level is the
 * horizon, straight down the ground. */
static void test_sky_seen_directly(void **state)
{
    (void)state;
    const char *fmt =
        "{\"integrator\":\"%s\", \"camera\":{\"position\":[0,0,0],\"look_at\":[%s],\"up\":[%s],\"fov\":1},"
        " \"image\":{\"width\":1,\"height\":1,\"spp\":1},"
        " \"sky\":{\"zenith\":[0.1,0.2,0.3],\"horizon\":[1,2,3],\"ground\":[4,5,6]},"
        " \"materials\":{\"d\":{\"type\":\"diffuse\"}},"
        " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,-100],\"radius\":1,\"material\":\"d\"}]}";
    const char *look[3] = { "0,1,0", "1,0,0", "0,-1,0" }, *up[3] = { "0,0,-1", "0,1,0", "0,0,-1" };
    const float want[3][3] = { { 0.1f, 0.2f, 0.3f }, { 1, 2, 3 }, { 4, 5, 6 } };
    for (int integ = 0; integ < 2; integ++)
        for (int k = 0; k < 3; k++) {
            char json[1024];
            snprintf(json, sizeof json, fmt, integ ? "path" : "whitted", look[k], up[k]);
            sr_scene s;
            sr_test_parse("sky.json", json, &s);
            assert_int_equal(s.integrator, integ ? SR_INTEGRATOR_PATH : SR_INTEGRATOR_WHITTED);
            float *img = sr_test_render_cpu(&s, 1);
            for (int c = 0; c < 3; c++) assert_float_equal(img[c], want[k][c], 1e-4 * want[k][c]);
            free(img);
            sr_scene_free(&s);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convex_diffuse_in_uniform_environment),
        cmocka_unit_test(test_diffuse_plane_under_sky),
        cmocka_unit_test(test_sky_seen_directly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
