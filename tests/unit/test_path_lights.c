/* test_path_lights.c: lights in the path integrator (kernels/integrators/path.h, CPU backend): a
 * spherical and a rectangular lamp over a diffuse floor against their form factors in closed
 * form, by light sampling, MIS and BSDF sampling; one-sided and two-sided emission; point and
 * directional lights against Whitted's image; the emitter list picked by power. Monte Carlo
 * results are compared by testutil.h's z statistic over independent pixels. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/integrators/path.h"

/* ---- lamps over a diffuse floor: closed forms -------------------------------------------- */

/* The camera looks straight down from height 1 at a floor of albedo 0.5 (a plane) with a
 * 60 degree field of view, so pixel (x, y) sees the floor point (X, Z) below; nothing but the
 * lamp lights it and the background is black, so the floor's radiance is rho * Le * F with F
 * the form factor from the point to the lamp, at every depth >= 1. */
static const char *lamp_scene_fmt =
    "{\"integrator\":\"path\","
    " \"camera\":{\"position\":[0,1,0],\"look_at\":[0,0,0],\"up\":[0,0,-1],\"fov\":60},"
    " \"image\":{\"width\":24,\"height\":24,\"spp\":%u,\"max_depth\":%u},"
    " \"materials\":{\"floor\":{\"type\":\"diffuse\",\"albedo\":[0.5,0.5,0.5]},"
    "   \"lamp\":{\"type\":\"emissive\",\"radiance\":[2,2,2]}},"
    " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"floor\"}, %s]}";

/* A sphere of radius R, centre at height h, seen from a floor point at distance d from the
 * centre, wholly above the horizon: F = (R / d)^2 cos(theta) = R^2 h / d^3. */
static double ff_sphere(double X, double Z)
{
    const double R = 1.0, h = 3.0;
    double d2 = X * X + h * h + Z * Z;
    return R * R * h / (d2 * sqrt(d2));
}

/* Point below the corner of an a x b rectangle parallel to the floor at height h. */
static double ff_corner(double a, double b, double h)
{
    double A = a / h, B = b / h, sa = sqrt(1 + A * A), sb = sqrt(1 + B * B);
    return (A / sa * atan(B / sa) + B / sb * atan(A / sb)) / (2 * M_PI);
}

static double ff_signed(double a, double b, double h)
{
    double s = (a < 0 ? -1 : 1) * (b < 0 ? -1 : 1);
    return s * ff_corner(fabs(a), fabs(b), h);
}

/* The rectangle [-1, 1] x [-1, 1] at height 2, by superposition of corner rectangles. */
static double ff_quad(double X, double Z)
{
    const double x0 = -1, x1 = 1, z0 = -1, z1 = 1, h = 2;
    return ff_signed(x1 - X, z1 - Z, h) - ff_signed(x0 - X, z1 - Z, h) - ff_signed(x1 - X, z0 - Z, h) +
           ff_signed(x0 - X, z0 - Z, h);
}

static void check_lamp(const char *lamp, double (*ff)(double, double), const char *name)
{
    const struct { uint32_t depth, spp, flags; double tol; } modes[] = {
        { 1, 64, 0, 0.01 },                /* light sampling only (last vertex: full weight)  */
        { 4, 64, 0, 0.01 },                /* light sampling and BSDF sampling, MIS-weighted  */
        { 4, 256, SR_PATH_NO_NEE, 0.03 },  /* BSDF sampling only                              */
    };
    for (size_t k = 0; k < 3; k++) {
        char json[2048];
        snprintf(json, sizeof json, lamp_scene_fmt, modes[k].spp, modes[k].depth, lamp);
        sr_scene s;
        sr_test_parse("lamp.json", json, &s);
        s.path_flags = modes[k].flags;
        float *img = sr_test_render_cpu(&s, 21 + (uint32_t)k);
        /* The pixel's mean over its footprint (the camera jitters inside it): 4 x 4 points. */
        const double half = tan(30.0 * M_PI / 180.0);   /* floor half-width seen from height 1 */
        sr_test_stat a;
        memset(&a, 0, sizeof a);
        for (uint32_t y = 0; y < 24; y++)
            for (uint32_t x = 0; x < 24; x++) {
                double e = 0;
                for (int sy = 0; sy < 4; sy++)
                    for (int sx = 0; sx < 4; sx++) {
                        double X = (2.0 * (x + (sx + 0.5) / 4) / 24 - 1) * half;
                        double Z = (2.0 * (y + (sy + 0.5) / 4) / 24 - 1) * half;   /* image down = +z */
                        e += 0.5 * 2.0 * ff(X, Z) / 16;
                    }
                sr_test_stat_add(&a, img[3u * (y * 24 + x)], e);   /* grey: one channel (three would not be independent) */
            }
        char what[128];
        snprintf(what, sizeof what, "%s, depth %u%s", name, modes[k].depth, modes[k].flags ? ", BSDF only" : "");
        sr_test_stat_check(what, &a, modes[k].tol);
        free(img);
        sr_scene_free(&s);
    }
}

static void test_spherical_lamp_closed_form(void **state)
{
    (void)state;
    check_lamp("{\"type\":\"sphere\",\"center\":[0,3,0],\"radius\":1,\"material\":\"lamp\"}", ff_sphere,
               "spherical lamp (cone sampling)");
}

static void test_rectangular_lamp_closed_form(void **state)
{
    (void)state;
    /* edge_u x edge_v = -y: the lamp faces the floor. */
    check_lamp("{\"type\":\"quad\",\"corner\":[-1,2,-1],\"edge_u\":[2,0,0],\"edge_v\":[0,0,2],\"material\":\"lamp\"}",
               ff_quad, "rectangular lamp (area sampling)");
}

/* A lamp facing away lights nothing (one-sided emission), unless it is two-sided. */
static void test_one_sided_lamp(void **state)
{
    (void)state;
    char json[2048];
    snprintf(json, sizeof json, lamp_scene_fmt, 16u, 4u,
             "{\"type\":\"quad\",\"corner\":[-1,2,-1],\"edge_u\":[0,0,2],\"edge_v\":[2,0,0],\"material\":\"lamp\"}");
    sr_scene s;
    sr_test_parse("lamp.json", json, &s);
    float *img = sr_test_render_cpu(&s, 5);
    for (uint32_t i = 0; i < 24 * 24 * 3; i++) assert_float_equal(img[i], 0.0f, 0.0);
    free(img);
    s.materials[1].two_sided = 1;   /* now it lights the floor as the one facing down did */
    s.spp = 64;
    img = sr_test_render_cpu(&s, 6);
    double sum = 0, expect = 0;
    for (uint32_t i = 0; i < 24 * 24; i++) sum += img[3 * i];
    const double half = tan(30.0 * M_PI / 180.0);
    for (uint32_t y = 0; y < 24; y++)
        for (uint32_t x = 0; x < 24; x++)
            expect += ff_quad((2.0 * (x + 0.5) / 24 - 1) * half, (2.0 * (y + 0.5) / 24 - 1) * half);
    assert_float_equal(sum / (24 * 24), expect / (24 * 24), 0.02 * expect / (24 * 24));
    free(img);
    sr_scene_free(&s);
}

/* ---- point and directional lights -------------------------------------------------------- */

static const char *lit_scene =
    "{\"camera\":{\"position\":[0,2,5],\"look_at\":[0,0.5,0],\"fov\":40},"
    " \"image\":{\"width\":48,\"height\":32,\"spp\":1,\"max_depth\":1},"
    " \"materials\":{\"floor\":{\"type\":\"diffuse\",\"albedo\":[0.8,0.8,0.8],\"checker\":{\"color\":[0.2,0.3,0.4],\"scale\":0.5}},"
    "   \"ball\":{\"type\":\"diffuse\",\"albedo\":[0.8,0.2,0.2]}},"
    " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"floor\"},"
    "   {\"type\":\"sphere\",\"center\":[0.3,0.5,0],\"radius\":0.5,\"material\":\"ball\"}],"
    " \"lights\":[{\"type\":\"point\",\"position\":[2,4,3],\"intensity\":60},"
    "   {\"type\":\"directional\",\"direction\":[-1,-2,-0.5],\"color\":[1,0.9,0.8],\"intensity\":1.5}]}";

/* Depth 1 is direct light only in both integrators: with no ambient term the path tracer's
 * point and directional lights (delta lights, one shadow ray each) give Whitted's image. */
static void test_delta_lights_match_whitted_at_depth_one(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse("lit.json", lit_scene, &s);
    float *whitted = sr_test_render_cpu(&s, 1);
    s.integrator = SR_INTEGRATOR_PATH;
    float *path = sr_test_render_cpu(&s, 1);
    double lit = 0;
    for (uint32_t i = 0; i < s.width * s.height * 3; i++) {
        assert_float_equal(path[i], whitted[i], 1e-5 * (1.0 + whitted[i]));
        lit += whitted[i];
    }
    assert_true(lit > 100.0);
    free(whitted);
    free(path);
    sr_scene_free(&s);
}

/* ---- the emitter list -------------------------------------------------------------------- */

/* The emitter list picks by power: a lamp with twice the area and the same radiance is picked
 * twice as often. */
static void test_emitter_cdf(void **state)
{
    (void)state;
    const char *json =
        "{\"integrator\":\"path\", \"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0]},"
        " \"image\":{\"width\":8,\"height\":8,\"spp\":1},"
        " \"materials\":{\"lamp\":{\"type\":\"emissive\",\"radiance\":[1,1,1]},"
        "   \"dark\":{\"type\":\"emissive\",\"radiance\":[0,0,0]}},"
        " \"objects\":[{\"type\":\"quad\",\"corner\":[0,0,0],\"edge_u\":[1,0,0],\"edge_v\":[0,1,0],\"material\":\"lamp\"},"
        "   {\"type\":\"quad\",\"corner\":[3,0,0],\"edge_u\":[2,0,0],\"edge_v\":[0,1,0],\"material\":\"lamp\"},"
        "   {\"type\":\"quad\",\"corner\":[6,0,0],\"edge_u\":[2,0,0],\"edge_v\":[0,1,0],\"material\":\"dark\"}]}";
    sr_scene s;
    sr_test_parse("cdf.json", json, &s);
    sr_error err = { SR_OK, "" };
    sr_backend be;
    assert_int_equal(sr_backend_create(SR_BACKEND_CPU, 0, &be, NULL, 0, &err), SR_OK);
    sr_renderer r;
    sr_frame f;
    sr_frame_from_scene(&f, &s);
    assert_int_equal(sr_renderer_prepare(&r, &s, &be, &f, &err), SR_OK);
    assert_int_equal(r.view.emitter_count, 2);   /* the dark one is not a light */
    assert_float_equal(r.view.emitter_power, 3.0f, 1e-6);
    uint32_t small = 0;
    for (uint32_t i = 0; i < 2; i++)
        if (sr_prim_area(&r.view.prims[r.view.emitters[i].prim]) < 1.5f) small = i;
    double p_small = small == 0 ? r.view.emitters[0].cdf : 1.0 - r.view.emitters[0].cdf;
    assert_float_equal(p_small, 1.0 / 3.0, 1e-6);
    assert_true(r.view.emitters[1].cdf == 1.0f);
    assert_int_equal(sr_emitter_pick(&r.view, 0.0f), 0);
    assert_int_equal(sr_emitter_pick(&r.view, 0.99999f), 1);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    sr_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spherical_lamp_closed_form),
        cmocka_unit_test(test_rectangular_lamp_closed_form),
        cmocka_unit_test(test_one_sided_lamp),
        cmocka_unit_test(test_delta_lights_match_whitted_at_depth_one),
        cmocka_unit_test(test_emitter_cdf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
