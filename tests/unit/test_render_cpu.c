/* CPU renders of small scenes checked against properties that do not depend on the code
 * under test: what a mirror under a uniform sky must return, what a miss returns, what depth
 * 1 and deeper traces may change, closed-form direct lighting, and that every masking
 * strategy and every compaction order gives the same image. */
#include "testutil.h"

#include <math.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdlib.h>
#include <string.h>

static float px(const float *img, uint32_t w, uint32_t x, uint32_t y, int c) { return img[3u * (y * w + x) + (uint32_t)c]; }


static const char *mirror_scene =
    "{\"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0],\"fov\":30},"
    " \"image\":{\"width\":64,\"height\":64,\"spp\":1,\"max_depth\":4},"
    " \"background\":[0.2,0.4,0.8],"
    " \"materials\":{\"m\":{\"type\":\"mirror\",\"reflectance\":[0.9,0.5,0.25]}},"
    " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"m\"}]}";

/* A mirror sphere under a uniform background: every reflected ray escapes, so each pixel is
 * the background or background x reflectance, and the mirror covers the sphere's disc. */
static void test_mirror_returns_background_times_reflectance(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse("mirror.json", mirror_scene, &s);
    float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 1, NULL);
    const float bg[3] = { 0.2f, 0.4f, 0.8f }, refl[3] = { 0.9f, 0.5f, 0.25f };
    uint32_t mirror = 0, checked = 0;
    for (uint32_t y = 0; y < 64; y++)
        for (uint32_t x = 0; x < 64; x++) {
            double m = sphere_margin(d3v(0, 0, 5), d3v(0, 0, 0), 30.0, 64, 64, x, y, d3v(0, 0, 0), 1.0);
            if (fabs(m) < 0.02) continue;   /* the silhouette itself: either answer is fine */
            checked++;
            for (int c = 0; c < 3; c++) {
                float expect = m < 0 ? bg[c] * refl[c] : bg[c];
                assert_float_equal(px(img, 64, x, y, c), expect, 1e-6);
            }
            mirror += m < 0;
        }
    /* Disc radius: tan(asin(1/5)) / tan(15 deg) * 32 = 24.38 px -> about 1867 pixels. */
    assert_true(checked > 3700);   /* all but a thin band around the silhouette */
    assert_in_range(mirror, 1750, 1950);
    free(img);
    sr_scene_free(&s);
}

/* Depth 1 shows no reflections: the mirror turns black, the sky is unchanged. */
static void test_depth_one_shows_no_reflections(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse("mirror.json", mirror_scene, &s);
    s.max_depth = 1;
    float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 1, NULL);
    const float bg[3] = { 0.2f, 0.4f, 0.8f };
    for (uint32_t y = 0; y < 64; y++)
        for (uint32_t x = 0; x < 64; x++) {
            double m = sphere_margin(d3v(0, 0, 5), d3v(0, 0, 0), 30.0, 64, 64, x, y, d3v(0, 0, 0), 1.0);
            if (fabs(m) < 0.02) continue;
            for (int c = 0; c < 3; c++) assert_float_equal(px(img, 64, x, y, c), m < 0 ? 0.0f : bg[c], 1e-7);
        }
    free(img);
    sr_scene_free(&s);
}

static const char *mixed_scene =
    "{\"camera\":{\"position\":[0,1,6],\"look_at\":[0,0.5,0],\"fov\":40},"
    " \"image\":{\"width\":96,\"height\":64,\"spp\":2,\"max_depth\":8},"
    " \"background\":[0.5,0.6,0.7], \"ambient\":[0.05,0.05,0.05],"
    " \"materials\":{\"floor\":{\"type\":\"diffuse\",\"albedo\":[0.8,0.8,0.8],\"checker\":{\"color\":[0.2,0.2,0.2],\"scale\":0.5}},"
    "   \"m\":{\"type\":\"mirror\",\"reflectance\":[0.9,0.9,0.9]},"
    "   \"g\":{\"type\":\"glass\",\"ior\":1.5,\"tint\":[1,1,1]},"
    "   \"ball\":{\"type\":\"diffuse\",\"albedo\":[0.8,0.2,0.2]}},"
    " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"floor\"},"
    "   {\"type\":\"sphere\",\"center\":[-1.2,0.7,0],\"radius\":0.7,\"material\":\"m\"},"
    "   {\"type\":\"sphere\",\"center\":[0.4,0.5,0.8],\"radius\":0.5,\"material\":\"g\"},"
    "   {\"type\":\"sphere\",\"center\":[1.6,0.5,-0.3],\"radius\":0.5,\"material\":\"ball\"}],"
    " \"lights\":[{\"type\":\"point\",\"position\":[2,4,3],\"intensity\":60}]}";

/* Raising the depth changes only pixels whose camera ray meets a reflective object. Pixels
 * are classified by the test's own camera (spp 1, pixel centres). */
static void test_depth_changes_only_reflective_pixels(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse("mixed.json", mixed_scene, &s);
    s.spp = 1;
    const uint32_t w = s.width, h = s.height;
    float *img[3];
    const uint32_t depths[3] = { 1, 2, 8 };
    for (int k = 0; k < 3; k++) {
        s.max_depth = depths[k];
        img[k] = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 1, NULL);
    }
    const d3 eye = d3v(0, 1, 6), look = d3v(0, 0.5, 0);
    uint32_t reflective = 0, changed = 0, mirror = 0, mirror_changed12 = 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double mm = sphere_margin(eye, look, 40.0, w, h, x, y, d3v(-1.2, 0.7, 0), 0.7);
            double mg = sphere_margin(eye, look, 40.0, w, h, x, y, d3v(0.4, 0.5, 0.8), 0.5);
            if (fabs(mm) < 0.03 || fabs(mg) < 0.03) continue;
            int refl = mm < 0 || mg < 0;
            int diff12 = 0, diff18 = 0;
            for (int c = 0; c < 3; c++) {
                float a = px(img[0], w, x, y, c), b = px(img[1], w, x, y, c), d = px(img[2], w, x, y, c);
                if (!refl) { assert_true(a == b); assert_true(a == d); }
                diff12 |= a != b;
                diff18 |= a != d;
            }
            if (refl) { reflective++; changed += diff18; }
            /* A mirror pixel gains its reflection at depth 2, unless what it reflects is glass
             * (which itself needs depth 3). */
            if (refl && mm < 0) { mirror++; mirror_changed12 += diff12; }
        }
    assert_true(reflective > 300);
    assert_true(changed * 10 >= reflective * 9);       /* nearly every reflective pixel changed */
    assert_true(mirror > 100);
    assert_true(mirror_changed12 * 10 >= mirror * 9);
    for (int k = 0; k < 3; k++) free(img[k]);
    sr_scene_free(&s);
}

/* Closed form: a diffuse plane lit by one directional light with irradiance E at angle theta
 * has radiance albedo / pi * E * cos(theta) + ambient * albedo, at every pixel. */
static void test_directional_light_closed_form(void **state)
{
    (void)state;
    const char *json =
        "{\"camera\":{\"position\":[0,5,0.01],\"look_at\":[0,0,0],\"fov\":40},"
        " \"image\":{\"width\":32,\"height\":32,\"spp\":1,\"max_depth\":3},"
        " \"background\":[1,0,1], \"ambient\":[0.1,0.2,0.3],"
        " \"materials\":{\"d\":{\"type\":\"diffuse\",\"albedo\":[0.5,0.25,1.0]}},"
        " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"d\"}],"
        " \"lights\":[{\"type\":\"directional\",\"direction\":[0,-1,1.7320508],\"intensity\":3,\"color\":[1,1,0.5]}]}";
    sr_scene s;
    sr_test_parse("sun.json", json, &s);
    float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_STENCIL, 0.5f, 1, NULL);
    const double albedo[3] = { 0.5, 0.25, 1.0 }, amb[3] = { 0.1, 0.2, 0.3 }, col[3] = { 1, 1, 0.5 };
    for (uint32_t i = 0; i < 32u * 32u; i++)
        for (int c = 0; c < 3; c++) {
            double expect = albedo[c] / M_PI * 3.0 * col[c] * 0.5 + amb[c] * albedo[c];   /* cos 60 deg */
            assert_float_equal(img[3 * i + c], expect, 1e-5);
        }
    free(img);
    sr_scene_free(&s);
}

/* An emissive quad seen head-on returns its radiance; from behind, nothing. */
static void test_emissive_quad(void **state)
{
    (void)state;
    const char *json =
        "{\"camera\":{\"position\":[0,0,3],\"look_at\":[0,0,0],\"fov\":20},"
        " \"image\":{\"width\":16,\"height\":16,\"spp\":1,\"max_depth\":2},"
        " \"background\":[0,0,0],"
        " \"materials\":{\"e\":{\"type\":\"emissive\",\"radiance\":[4,2,1]}},"
        " \"objects\":[{\"type\":\"quad\",\"corner\":[-2,-2,0],\"edge_u\":[4,0,0],\"edge_v\":[0,4,0],\"material\":\"e\"}]}";
    sr_scene s;
    sr_test_parse("lamp.json", json, &s);
    float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 1, NULL);
    for (uint32_t i = 0; i < 256; i++) {
        assert_float_equal(img[3 * i + 0], 4.0f, 1e-6);
        assert_float_equal(img[3 * i + 1], 2.0f, 1e-6);
        assert_float_equal(img[3 * i + 2], 1.0f, 1e-6);
    }
    free(img);
    s.camera.position = sr_v3(0, 0, -3);   /* behind the quad: its back does not emit */
    img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 1, NULL);
    for (uint32_t i = 0; i < 256 * 3; i++) assert_float_equal(img[i], 0.0f, 0.0);
    free(img);
    sr_scene_free(&s);
}

/* All four masking strategies, and compaction after every bounce or never, give the same
 * image bit for bit; so do repeated compacted renders (compaction order varies between runs
 * with two threads, and must not matter). */
static void test_masks_and_compaction_order_agree(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse("mixed.json", mixed_scene, &s);
    const size_t bytes = sizeof(float) * 3u * s.width * s.height;
    float *ref = sr_test_masks_agree(&s, SR_BACKEND_CPU, 7, NULL);
    for (int run = 0; run < 3; run++) {
        sr_render_stats st;
        float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 1.0f, 7, &st);
        assert_memory_equal(img, ref, bytes);
        assert_true(st.compactions > 0);
        free(img);
    }
    /* A different seed gives a different image (the glass sphere's choices change). */
    float *other = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 1.0f, 8, NULL);
    assert_true(memcmp(other, ref, bytes) != 0);
    free(other);
    free(ref);
    sr_scene_free(&s);
}

/* The per-bounce ray counts: bounce 0 traces every pixel, and counts never grow. */
static void test_ray_counts(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse("mixed.json", mixed_scene, &s);
    sr_render_stats st;
    float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 1, &st);
    assert_int_equal(st.bounce_rays[0], (uint64_t)s.width * s.height * s.spp);
    for (uint32_t b = 1; b < SR_MAX_DEPTH; b++) assert_true(st.bounce_rays[b] <= st.bounce_rays[b - 1]);
    assert_true(st.bounce_rays[1] > 0);
    free(img);
    sr_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mirror_returns_background_times_reflectance),
        cmocka_unit_test(test_depth_one_shows_no_reflections),
        cmocka_unit_test(test_depth_changes_only_reflective_pixels),
        cmocka_unit_test(test_directional_light_closed_form),
        cmocka_unit_test(test_emissive_quad),
        cmocka_unit_test(test_masks_and_compaction_order_agree),
        cmocka_unit_test(test_ray_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
