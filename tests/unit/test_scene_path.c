/* test_scene_path.c: the scene keys of path tracing: the integrator, the sky, emissive
 * surfaces with an albedo and two sides; the shipped path-traced scenes parse. */
#include <stddef.h>
#include <string.h>

#include "testutil.h"
#include "../../src/scene/scene.h"

static void test_integrator(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse_ok("{" CAM ", " MATS ", " OBJS "}", &s);
    assert_int_equal(s.integrator, SR_INTEGRATOR_WHITTED);
    assert_int_equal(s.path_flags, 0);
    sr_scene_free(&s);
    sr_test_parse_ok(SCENE_WITH("'integrator': 'path'"), &s);
    assert_int_equal(s.integrator, SR_INTEGRATOR_PATH);
    sr_scene_free(&s);
    sr_test_parse_ok(SCENE_WITH("'integrator': 'whitted'"), &s);
    assert_int_equal(s.integrator, SR_INTEGRATOR_WHITTED);
    sr_scene_free(&s);
    EXPECT_ERR(SCENE_WITH("'integrator': @'pth'"), "integrator", "unknown integrator \"pth\"", "did you mean \"path\"",
               "expected one of: whitted, path");
    EXPECT_ERR(SCENE_WITH("'integrator': @'Path'"), "integrator", "unknown integrator \"Path\"");
    EXPECT_ERR(SCENE_WITH("'integrator': @1"), "integrator", "expected a string, one of: whitted, path; got a number (1)");
    EXPECT_ERR(SCENE_WITH("'integrator': @null"), "integrator", "expected a string", "got null");
    EXPECT_ERR("{\n  @'integrater': 'path'\n}", "integrater", "unknown key \"integrater\"", "did you mean \"integrator\"",
               "allowed keys in a scene:", "lights, integrator, sky");
}

static void test_sky(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse_ok(SCENE_WITH("'sky': {'zenith': [0.5, 0.7, 1], 'horizon': [1, 1, 1]}"), &s);
    assert_true(s.has_sky);
    sr_test_assert_vec(s.sky_zenith, 0.5f, 0.7f, 1);
    sr_test_assert_vec(s.sky_horizon, 1, 1, 1);
    sr_test_assert_vec(s.sky_ground, 1, 1, 1);   /* defaults to the horizon */
    sr_test_assert_vec(s.background, 0, 0, 0);
    sr_scene_free(&s);
    sr_test_parse_ok(SCENE_WITH("'sky': {'ground': [0.1, 0.2, 0.3], 'zenith': [0, 0, 1], 'horizon': [2, 2, 2]}"), &s);
    sr_test_assert_vec(s.sky_ground, 0.1f, 0.2f, 0.3f);
    sr_scene_free(&s);
    sr_test_parse_ok(SCENE_WITH("'background': [1, 2, 3]"), &s);
    assert_false(s.has_sky);
    sr_scene_free(&s);

    EXPECT_ERR(SCENE_WITH("'sky': @{'zenith': [0, 0, 1]}"), "sky", "missing required key \"horizon\"",
               "the sky needs: zenith, horizon");
    EXPECT_ERR(SCENE_WITH("'sky': {'zenith': [0, 0, 1], 'horizon': [1, 1, 1], @'grond': [0, 0, 0]}"), "sky.grond",
               "unknown key \"grond\"", "did you mean \"ground\"", "allowed keys in the sky: zenith, horizon, ground");
    EXPECT_ERR(SCENE_WITH("'sky': {'zenith': [0, 0, @-1], 'horizon': [1, 1, 1]}"), "sky.zenith[2]",
               "must not be negative");
    EXPECT_ERR(SCENE_WITH("'sky': {'zenith': [0, 0, 1], 'horizon': @[1, 1]}"), "sky.horizon",
               "expected an array of 3 numbers, got an array of 2 elements");
    EXPECT_ERR(SCENE_WITH("'sky': @[0, 0, 1]"), "sky", "expected an object");
    /* both: the error points at whichever comes second */
    EXPECT_ERR(SCENE_WITH("'background': [0, 0, 0], @'sky': {'zenith': [0, 0, 1], 'horizon': [1, 1, 1]}"), "sky",
               "\"background\" and \"sky\" are both given; give one");
    EXPECT_ERR(SCENE_WITH("'sky': {'zenith': [0, 0, 1], 'horizon': [1, 1, 1]}, @'background': [0, 0, 0]"), "background",
               "are both given");
}

static void test_emissive_albedo_two_sided(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse_ok(SCENE_MAT("{'type': 'emissive', 'radiance': [4, 3, 2]}"), &s);
    sr_test_assert_vec(s.materials[0].color, 4, 3, 2);
    sr_test_assert_vec(s.materials[0].color2, 0, 0, 0);   /* no albedo: a pure emitter */
    assert_int_equal(s.materials[0].two_sided, 0);
    sr_scene_free(&s);
    sr_test_parse_ok(SCENE_MAT("{'type': 'emissive', 'radiance': [1, 1, 1], 'albedo': [0.5, 0.25, 0.125], 'two_sided': true}"), &s);
    sr_test_assert_vec(s.materials[0].color2, 0.5f, 0.25f, 0.125f);
    assert_int_equal(s.materials[0].two_sided, 1);
    sr_scene_free(&s);
    sr_test_parse_ok(SCENE_MAT("{'type': 'emissive', 'radiance': [1, 1, 1], 'two_sided': false}"), &s);
    assert_int_equal(s.materials[0].two_sided, 0);
    sr_scene_free(&s);
    EXPECT_ERR(SCENE_MAT("{'type': 'emissive', 'radiance': [1, 1, 1], 'two_sided': @1}"), "materials.m.two_sided",
               "expected true or false, got a number (1)");
    EXPECT_ERR(SCENE_MAT("{'type': 'emissive', 'radiance': [1, 1, 1], 'two_sided': @'yes'}"), "materials.m.two_sided",
               "expected true or false, got a string (\"yes\")");
    EXPECT_ERR(SCENE_MAT("{'type': 'emissive', 'radiance': [1, 1, 1], 'albedo': [0, @-1, 0]}"), "materials.m.albedo[1]",
               "must not be negative");
    EXPECT_ERR(SCENE_MAT("{'type': 'emissive', 'radiance': [1, 1, 1], @'two_side': true}"), "materials.m.two_side",
               "did you mean \"two_sided\"", "allowed keys in an emissive material: type, radiance, albedo, two_sided");
    /* the other materials do not take the new keys */
    EXPECT_ERR(SCENE_MAT("{'type': 'diffuse', @'two_sided': true}"), "materials.m.two_sided", "unknown key \"two_sided\"");
}

static void test_shipped_path_scenes_parse(void **state)
{
    (void)state;
    const char *files[] = {"scenes/cornell_path.json", "scenes/sphere_field.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        sr_scene s;
        sr_test_load_shipped(files[i], &s);
        assert_int_equal(s.integrator, SR_INTEGRATOR_PATH);
        assert_true(s.width <= 800 && s.height <= 800);
        sr_scene_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integrator),
        cmocka_unit_test(test_sky),
        cmocka_unit_test(test_emissive_albedo_two_sided),
        cmocka_unit_test(test_shipped_path_scenes_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
