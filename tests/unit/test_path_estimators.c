/* test_path_estimators.c: the path integrator's estimators (kernels/integrators/path.h, CPU backend)
 * agree with each other and with the truncated series inside an emitting sphere: light
 * sampling with MIS against BSDF sampling alone, Russian roulette on and off, at every depth.
 * Monte Carlo results are compared by testutil.h's z statistic over independent pixels. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/integrators/path.h"

/* ---- inside an emitting diffuse sphere --------------------------------------------------- */

static const char *furnace_sphere_scene =
    "{\"integrator\":\"path\","
    " \"camera\":{\"position\":[0.3,-0.2,0.1],\"look_at\":[0,0,-1],\"fov\":70},"
    " \"image\":{\"width\":24,\"height\":24,\"spp\":16,\"max_depth\":64},"
    " \"materials\":{\"wall\":{\"type\":\"emissive\",\"radiance\":[1,0.5,0.25],\"albedo\":[0.5,0.5,0.5],"
    "     \"two_sided\":true}},"
    " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":2,\"material\":\"wall\"}]}";

/* A closed surface of albedo rho that emits E everywhere: radiance is the same everywhere and
 * in every direction, L = E + rho L, so L = E / (1 - rho). At depth d (d traced segments) the
 * series is cut: light sampling reaches one vertex further than the last traced one, so with it
 * L_d = E (1 - rho^(d+1)) / (1 - rho); with BSDF sampling alone L_d = E (1 - rho^d) / (1 - rho).
 * Russian roulette (from bounce 3) reweights survivors and leaves every expectation as it is. */
static void test_inside_emitting_sphere(void **state)
{
    (void)state;
    const double E[3] = { 1.0, 0.5, 0.25 }, rho = 0.5;
    sr_scene s;
    sr_test_parse("furnace.json", furnace_sphere_scene, &s);
    const uint32_t pixels = s.width * s.height;
    const struct { uint32_t depth, flags; } cases[] = {
        { 64, 0 }, { 64, SR_PATH_NO_NEE }, { 64, SR_PATH_NO_RR },
        { 1, 0 }, { 2, 0 }, { 6, 0 }, { 6, SR_PATH_NO_RR }, { 6, SR_PATH_NO_NEE }, { 6, SR_PATH_NO_NEE | SR_PATH_NO_RR },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        s.max_depth = cases[k].depth;
        s.path_flags = cases[k].flags;
        bool nee = !(cases[k].flags & SR_PATH_NO_NEE);
        /* depth D: light arrives along at most D + 1 segments, by light sampling or not */
        double terms = cases[k].depth >= 64 ? 1e9 : (double)cases[k].depth + 1.0;
        double expect[3];
        for (int c = 0; c < 3; c++) expect[c] = E[c] * (1.0 - pow(rho, terms)) / (1.0 - rho);
        float *img = sr_test_render_cpu(&s, 100 + (uint32_t)k);
        char what[96];
        snprintf(what, sizeof what, "emitting sphere, depth %u%s%s", cases[k].depth, nee ? "" : ", no NEE",
                 (cases[k].flags & SR_PATH_NO_RR) ? ", no RR" : "");
        sr_test_check_constant(what, img, pixels, expect, 0.01);
        free(img);
    }
    sr_scene_free(&s);
}

/* ---- independent estimators agree -------------------------------------------------------- */

static const char *mis_scene =
    "{\"integrator\":\"path\","
    " \"camera\":{\"position\":[0,1.5,5],\"look_at\":[0,0.8,0],\"fov\":45},"
    " \"image\":{\"width\":32,\"height\":24,\"spp\":256,\"max_depth\":64},"
    " \"background\":[0.02,0.02,0.03],"
    " \"materials\":{\"floor\":{\"type\":\"diffuse\",\"albedo\":[0.7,0.7,0.7]},"
    "   \"wall\":{\"type\":\"diffuse\",\"albedo\":[0.3,0.6,0.4]},"
    "   \"gold\":{\"type\":\"metal\",\"albedo\":[0.9,0.7,0.4],\"roughness\":0.3},"
    "   \"glossy\":{\"type\":\"metal\",\"albedo\":[0.8,0.8,0.8],\"roughness\":0.08},"
    "   \"panel\":{\"type\":\"emissive\",\"radiance\":[3,3,2.5]},"
    "   \"bulb\":{\"type\":\"emissive\",\"radiance\":[6,4,2],\"albedo\":[0.3,0.3,0.3]}},"
    " \"objects\":[{\"type\":\"quad\",\"corner\":[-3,0,3],\"edge_u\":[6,0,0],\"edge_v\":[0,0,-6],\"material\":\"floor\"},"
    "   {\"type\":\"quad\",\"corner\":[-3,0,-2],\"edge_u\":[6,0,0],\"edge_v\":[0,4,0],\"material\":\"wall\"},"
    "   {\"type\":\"quad\",\"corner\":[-1,3,-1],\"edge_u\":[2,0,0],\"edge_v\":[0,0,2],\"material\":\"panel\"},"
    "   {\"type\":\"sphere\",\"center\":[1.6,1.2,0.5],\"radius\":0.3,\"material\":\"bulb\"},"
    "   {\"type\":\"sphere\",\"center\":[-0.8,0.6,0],\"radius\":0.6,\"material\":\"gold\"},"
    "   {\"type\":\"sphere\",\"center\":[0.7,0.4,0.6],\"radius\":0.4,\"material\":\"glossy\"}]}";

/* z statistics of A - B over the whole image and its four quadrants, per channel. */
static void check_same_mean(const char *what, const float *a, const float *b, uint32_t w, uint32_t h, double rel_tol)
{
    for (int q = -1; q < 4; q++)
        for (int c = 0; c < 3; c++) {
            sr_test_stat acc;
            memset(&acc, 0, sizeof acc);
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++) {
                    if (q >= 0 && (int)((x >= w / 2) + 2 * (y >= h / 2)) != q) continue;
                    uint32_t i = 3u * (y * w + x) + (uint32_t)c;
                    sr_test_stat_add(&acc, a[i], b[i]);
                }
            char name[128];
            snprintf(name, sizeof name, "%s, %s [%c]", what, q < 0 ? "image" : q == 0 ? "top left" : q == 1 ? "top right"
                     : q == 2 ? "bottom left" : "bottom right", "rgb"[c]);
            sr_test_stat_check(name, &acc, q < 0 ? rel_tol : 3 * rel_tol);
        }
}

/* The mean of n floats: an image must be lit for a comparison to mean something. */
static double mean_of(const float *v, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[i];
    return sum / n;
}

/* Light sampling with MIS and BSDF sampling alone estimate the same image (a panel lamp, a
 * small spherical lamp that also reflects, diffuse, rough and glossy metal); so do renders
 * with and without Russian roulette. */
static void test_nee_mis_matches_bsdf_sampling(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse("mis.json", mis_scene, &s);
    float *nee = sr_test_render_cpu(&s, 31);
    s.path_flags = SR_PATH_NO_NEE;
    s.spp = 1024;
    float *bsdf = sr_test_render_cpu(&s, 32);
    check_same_mean("NEE+MIS vs BSDF only", nee, bsdf, s.width, s.height, 0.03);
    s.path_flags = SR_PATH_NO_RR;
    s.spp = 256;
    float *norr = sr_test_render_cpu(&s, 33);
    check_same_mean("NEE+MIS vs NEE+MIS without RR", nee, norr, s.width, s.height, 0.03);
    /* and the image is lit: the test compares something */
    assert_true(mean_of(nee, s.width * s.height * 3) > 0.1);
    free(nee);
    free(bsdf);
    free(norr);
    sr_scene_free(&s);
}

/* A rough metal floor under a lamp (black background): the light it reflects once is
 * found by light sampling alone at depth 1 (the BSDF evaluated), by BSDF sampling alone at
 * depth 2 (the BSDF sampled), and by both with MIS at depth 2; the three agree. */
static void test_rough_metal_light_vs_bsdf_sampling(void **state)
{
    (void)state;
    const char *fmt =
        "{\"integrator\":\"path\","
        " \"camera\":{\"position\":[0,1.2,3],\"look_at\":[0,0,0],\"fov\":50},"
        " \"image\":{\"width\":32,\"height\":24,\"spp\":64},"
        " \"materials\":{\"floor\":{\"type\":\"metal\",\"albedo\":[0.9,0.8,0.6],\"roughness\":%g},"
        "   \"lamp\":{\"type\":\"emissive\",\"radiance\":[4,4,4]}},"
        " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"floor\"},"
        "   {\"type\":\"quad\",\"corner\":[-1.5,1.5,-2.5],\"edge_u\":[3,0,0],\"edge_v\":[0,0,1.5],\"material\":\"lamp\"}]}";
    const float rough[] = { 0.35f, 0.7f, 1.0f };
    for (size_t k = 0; k < 3; k++) {
        char json[2048];
        snprintf(json, sizeof json, fmt, rough[k]);
        sr_scene s;
        sr_test_parse("metal_lamp.json", json, &s);
        s.max_depth = 1;
        float *light = sr_test_render_cpu(&s, 41);
        s.max_depth = 2;
        float *mis = sr_test_render_cpu(&s, 42);
        s.path_flags = SR_PATH_NO_NEE;
        s.spp = 1024;
        float *bsdf = sr_test_render_cpu(&s, 43);
        char what[96];
        snprintf(what, sizeof what, "metal %.2f: light sampling vs BSDF sampling", rough[k]);
        check_same_mean(what, light, bsdf, s.width, s.height, 0.03);
        snprintf(what, sizeof what, "metal %.2f: MIS vs BSDF sampling", rough[k]);
        check_same_mean(what, mis, bsdf, s.width, s.height, 0.03);
        assert_true(mean_of(light, s.width * s.height * 3) > 0.05);
        free(light);
        free(mis);
        free(bsdf);
        sr_scene_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inside_emitting_sphere),
        cmocka_unit_test(test_nee_mis_matches_bsdf_sampling),
        cmocka_unit_test(test_rough_metal_light_vs_bsdf_sampling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
