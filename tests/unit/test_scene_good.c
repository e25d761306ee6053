/* test_scene_good.c: scenes the reader accepts and what they become: the defaults, every
 * value where it belongs, materials in document order, the camera made from them, the shipped
 * scenes, the scene reference's example (docs/scene-format.md) and the README's quick start scene. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "../../src/scene/scene.h"

static void test_defaults(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse_ok("{" CAM ", " MATS ", " OBJS "}", &s);
    assert_string_equal(s.path, "t.json");
    assert_int_equal(s.width, 640);
    assert_int_equal(s.height, 360);
    assert_int_equal(s.spp, 4);
    assert_int_equal(s.max_depth, 8);
    sr_test_assert_vec(s.camera.up, 0, 1, 0);
    assert_true(s.camera.vfov_deg == 40.0f);
    assert_true(s.camera.aperture == 0.0f);
    assert_true(s.camera.focus_distance == 0.0f);
    sr_test_assert_vec(s.background, 0, 0, 0);
    sr_test_assert_vec(s.ambient, 0, 0, 0);
    assert_int_equal(s.light_count, 0);
    assert_null(s.lights);
    assert_int_equal(s.plane_count, 0);
    assert_int_equal(s.material_count, 1);
    assert_int_equal(s.materials[0].kind, SR_MAT_DIFFUSE);
    sr_test_assert_vec(s.materials[0].color, 0.8f, 0.8f, 0.8f);
    assert_true(s.materials[0].checker_scale == 0.0f);
    sr_scene_free(&s);
    assert_null(s.prims);
    assert_null(s.path);

    /* per-type material defaults */
    sr_test_parse_ok("{" CAM ", 'materials': {'a': {'type': 'mirror'}, 'b': {'type': 'metal'}, 'c': {'type': 'glass'},"
             " 'd': {'type': 'diffuse', 'checker': {'color': [0, 0, 1]}}},"
             " 'objects': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'd'}]}", &s);
    sr_test_assert_vec(s.materials[0].color, 1, 1, 1);
    sr_test_assert_vec(s.materials[1].color, 0.8f, 0.8f, 0.8f);
    assert_true(s.materials[1].roughness == 0.0f);
    assert_true(s.materials[2].ior == 1.5f);
    sr_test_assert_vec(s.materials[2].color, 1, 1, 1);
    assert_true(s.materials[3].checker_scale == 1.0f);
    sr_test_assert_vec(s.materials[3].color2, 0, 0, 1);
    sr_scene_free(&s);

    /* lights: colour 1, intensity 1 */
    sr_test_parse_ok(SCENE_LIGHT("{'type': 'point', 'position': [1, 2, 3]}"), &s);
    sr_test_assert_vec(s.lights[0].power, 1, 1, 1);
    sr_scene_free(&s);
}

static void test_values_mapped(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse_ok("{\n"
             " 'camera': {'position': [1, 2, 3], 'look_at': [4, 5, 6], 'up': [0, 0, 1], 'fov': 55.5,"
             " 'aperture': 0.25, 'focus_distance': 7},\n"
             " 'image': {'width': 320, 'height': 200, 'spp': 9, 'max_depth': 64},\n"
             " 'background': [0.1, 0.2, 0.3], 'ambient': [0.01, 0.02, 0.03],\n"
             " 'materials': {\n"
             "   'floor':  {'type': 'diffuse', 'albedo': [0.5, 0.6, 0.7], 'checker': {'color': [0.1, 0.2, 0.3], 'scale': 2.5}},\n"
             "   'mirror': {'type': 'mirror', 'reflectance': [0.9, 0.8, 0.7]},\n"
             "   'gold':   {'type': 'metal', 'albedo': [1, 0.8, 0.4], 'roughness': 0.2},\n"
             "   'glass':  {'type': 'glass', 'ior': 1.33, 'tint': [0.9, 1, 0.9]},\n"
             "   'lamp':   {'type': 'emissive', 'radiance': [10, 20, 30]}},\n"
             " 'objects': [\n"
             "   {'type': 'sphere', 'center': [0, 1, 0], 'radius': 1.5, 'material': 'glass'},\n"
             "   {'type': 'plane', 'point': [0, -1, 0], 'normal': [0, 3, 4], 'material': 'floor'},\n"
             "   {'type': 'quad', 'corner': [-1, 2, -1], 'edge_u': [2, 0, 0], 'edge_v': [0, 0, 2], 'material': 'lamp'},\n"
             "   {'type': 'sphere', 'center': [3, 1, 0], 'radius': 0.5, 'material': 'mirror'}],\n"
             " 'lights': [\n"
             "   {'type': 'point', 'position': [2, 5, 2], 'color': [1, 0.5, 0.25], 'intensity': 100},\n"
             "   {'type': 'directional', 'direction': [0, -2, 0], 'color': [1, 1, 0.5], 'intensity': 2}]\n"
             "}", &s);
    sr_test_assert_vec(s.camera.position, 1, 2, 3);
    sr_test_assert_vec(s.camera.look_at, 4, 5, 6);
    sr_test_assert_vec(s.camera.up, 0, 0, 1);
    assert_true(s.camera.vfov_deg == 55.5f);
    assert_true(s.camera.aperture == 0.25f);
    assert_true(s.camera.focus_distance == 7.0f);
    assert_int_equal(s.width, 320);
    assert_int_equal(s.height, 200);
    assert_int_equal(s.spp, 9);
    assert_int_equal(s.max_depth, 64);
    sr_test_assert_vec(s.background, 0.1f, 0.2f, 0.3f);
    sr_test_assert_vec(s.ambient, 0.01f, 0.02f, 0.03f);

    assert_int_equal(s.material_count, 5);
    const char *names[] = {"floor", "mirror", "gold", "glass", "lamp"};
    const uint32_t kinds[] = {SR_MAT_DIFFUSE, SR_MAT_MIRROR, SR_MAT_METAL, SR_MAT_GLASS, SR_MAT_EMISSIVE};
    for (int i = 0; i < 5; i++) {
        assert_string_equal(s.material_names[i], names[i]);
        assert_int_equal(s.materials[i].kind, kinds[i]);
    }
    sr_test_assert_vec(s.materials[0].color, 0.5f, 0.6f, 0.7f);
    sr_test_assert_vec(s.materials[0].color2, 0.1f, 0.2f, 0.3f);
    assert_true(s.materials[0].checker_scale == 2.5f);
    sr_test_assert_vec(s.materials[1].color, 0.9f, 0.8f, 0.7f);
    sr_test_assert_vec(s.materials[2].color, 1, 0.8f, 0.4f);
    assert_true(s.materials[2].roughness == 0.2f);
    assert_true(s.materials[3].ior == 1.33f);
    sr_test_assert_vec(s.materials[3].color, 0.9f, 1, 0.9f);
    sr_test_assert_vec(s.materials[4].color, 10, 20, 30);

    /* the plane goes to planes, the rest to prims in document order */
    assert_int_equal(s.plane_count, 1);
    assert_int_equal(s.planes[0].kind, SR_PRIM_PLANE);
    assert_int_equal(s.planes[0].material, 0);
    sr_test_assert_vec(s.planes[0].a, 0, -1, 0);
    sr_test_assert_vec_near(s.planes[0].b, 0, 0.6f, 0.8f, 1e-7f);
    assert_int_equal(s.prim_count, 3);
    assert_int_equal(s.prims[0].kind, SR_PRIM_SPHERE);
    assert_int_equal(s.prims[0].material, 3);
    sr_test_assert_vec(s.prims[0].a, 0, 1, 0);
    assert_true(s.prims[0].b.x == 1.5f);
    assert_int_equal(s.prims[1].kind, SR_PRIM_QUAD);
    assert_int_equal(s.prims[1].material, 4);
    sr_test_assert_vec(s.prims[1].a, -1, 2, -1);
    sr_test_assert_vec(s.prims[1].b, 2, 0, 0);
    sr_test_assert_vec(s.prims[1].c, 0, 0, 2);
    assert_int_equal(s.prims[2].kind, SR_PRIM_SPHERE);
    assert_int_equal(s.prims[2].material, 1);

    assert_int_equal(s.light_count, 2);
    assert_int_equal(s.lights[0].kind, SR_LIGHT_POINT);
    sr_test_assert_vec(s.lights[0].v, 2, 5, 2);
    sr_test_assert_vec(s.lights[0].power, 100, 50, 25);
    assert_int_equal(s.lights[1].kind, SR_LIGHT_DIRECTIONAL);
    sr_test_assert_vec(s.lights[1].v, 0, -1, 0);
    sr_test_assert_vec(s.lights[1].power, 2, 2, 1);
    sr_scene_free(&s);
}

static void test_material_index_follows_order(void **state)
{
    (void)state;
    sr_scene s;
    /* names in reverse alphabetical order: indices still follow the document */
    sr_test_parse_ok("{" CAM ", 'materials': {'zeta': {'type': 'mirror'}, 'beta': {'type': 'glass'}, 'alpha': {'type': 'metal'}},"
             " 'objects': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'alpha'},"
             " {'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'zeta'},"
             " {'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'beta'}]}", &s);
    assert_int_equal(s.prims[0].material, 2);
    assert_int_equal(s.prims[1].material, 0);
    assert_int_equal(s.prims[2].material, 1);
    assert_string_equal(s.material_names[0], "zeta");
    sr_scene_free(&s);
}

static void test_camera_make(void **state)
{
    (void)state;
    sr_camera_desc d;
    memset(&d, 0, sizeof d);
    d.position = sr_v3(0, 0, 0);
    d.look_at = sr_v3(0, 0, -2);
    d.up = sr_v3(0, 1, 0);
    d.vfov_deg = 90.0f;
    sr_camera c = sr_camera_make(&d, 200, 100);
    /* focus = |look_at - position| = 2; h = tan(45) = 1; height 4, width 8 */
    sr_test_assert_vec_near(c.origin, 0, 0, 0, 0);
    sr_test_assert_vec_near(c.horizontal, 8, 0, 0, 1e-5f);
    sr_test_assert_vec_near(c.vertical, 0, 4, 0, 1e-5f);
    sr_test_assert_vec_near(c.lower_left, -4, -2, -2, 1e-5f);
    sr_test_assert_vec_near(c.u, 1, 0, 0, 1e-6f);
    sr_test_assert_vec_near(c.v, 0, 1, 0, 1e-6f);
    assert_true(c.lens_radius == 0.0f);

    /* a pixel ray: the image centre looks at look_at; t = 1 is the top edge */
    d.position = sr_v3(1, 2, 3);
    d.look_at = sr_v3(4, 2, -1);
    d.aperture = 0.5f;
    d.focus_distance = 10.0f;
    d.vfov_deg = 40.0f;
    c = sr_camera_make(&d, 640, 360);
    assert_true(c.lens_radius == 0.25f);
    sr_vec3 centre = sr_sub(sr_add(sr_add(c.lower_left, sr_scale(c.horizontal, 0.5f)), sr_scale(c.vertical, 0.5f)), c.origin);
    sr_vec3 want = sr_scale(sr_normalize(sr_sub(d.look_at, d.position)), 10.0f);   /* at the focus distance */
    sr_test_assert_vec_near(centre, want.x, want.y, want.z, 1e-4f);
    sr_vec3 top = sr_sub(sr_add(sr_add(c.lower_left, sr_scale(c.horizontal, 0.5f)), c.vertical), c.origin);
    assert_true(top.y > 0.0f);
    float half = atanf(sqrtf(top.y * top.y) / 10.0f) * 180.0f / SR_PI;   /* the vertical half-angle */
    assert_true(fabsf(half - 20.0f) < 1e-3f);
    assert_true(fabsf(sr_length(c.horizontal) / sr_length(c.vertical) - 640.0f / 360.0f) < 1e-5f);
}

static void test_shipped_scenes(void **state)
{
    (void)state;
    const char *files[] = {"scenes/default.json", "scenes/cornell.json", "scenes/mirror_hall.json", "scenes/mesh.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        sr_scene s;
        sr_test_load_shipped(files[i], &s);
        assert_true(s.prim_count + s.plane_count > 0);
        assert_true(s.light_count > 0);
        assert_true(s.width <= 800 && s.height <= 800);
        sr_scene_free(&s);
    }
    sr_scene s;
    sr_test_load_shipped("scenes/cornell.json", &s);
    assert_int_equal(s.width, 512);
    assert_int_equal(s.height, 512);
    sr_scene_free(&s);
    sr_test_load_shipped("scenes/mirror_hall.json", &s);
    assert_int_equal(s.max_depth, 32);
    sr_scene_free(&s);
    sr_test_load_shipped("scenes/mesh.json", &s);
    assert_true(s.prim_count >= 5000);   /* the torus knot's triangles */
    sr_scene_free(&s);
}

/* The complete example of the scene format reference (docs/scene-format.md) stays a valid
 * scene. */
static void test_format_doc_example(void **state)
{
    (void)state;
    char path[1024], name[1024];
    sr_test_source_path(path, sizeof path, "docs/scene-format.md");
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char doc[1 << 20];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    char *section = strstr(doc, "\n## A complete example");
    assert_non_null(section);
    char *start = strstr(section, "```json\n");
    assert_non_null(start);
    start += 8;
    char *end = strstr(start, "```");
    assert_non_null(end);
    sr_scene s;
    sr_error e;
    memset(&e, 0, sizeof e);
    /* named as if it were in scenes/, so its mesh path resolves as the reference says */
    sr_test_source_path(name, sizeof name, "scenes/readme-example.json");
    if (sr_scene_parse(name, start, (size_t)(end - start), &s, &e) != SR_OK) fail_msg("%s", e.msg);
    assert_int_equal(s.material_count, 5);
    assert_int_equal(s.plane_count, 1);
    assert_true(s.prim_count > 3);
    assert_int_equal(s.light_count, 2);
    sr_scene_free(&s);
}

/* The README's quick start scene ("Render your own model") is a valid scene as written: saved in
 * the repository's folder, its mesh and the mesh's own materials load, and it has a light (a
 * Whitted render of it is not black). */
static void test_readme_quick_start_scene(void **state)
{
    (void)state;
    char path[1024], name[1024];
    sr_test_source_path(path, sizeof path, "README.md");
    char *doc = sr_test_read_text(path);
    assert_non_null(doc);
    char *section = strstr(doc, "\n## Quick start");
    assert_non_null(section);
    char *own = strstr(section, "Render your own model");
    assert_non_null(own);
    char *start = strstr(own, "```json\n");
    assert_non_null(start);
    start += 8;
    char *end = strstr(start, "```");
    assert_non_null(end);
    sr_scene s;
    sr_error e;
    memset(&e, 0, sizeof e);
    sr_test_source_path(name, sizeof name, "my_scene.json");
    if (sr_scene_parse(name, start, (size_t)(end - start), &s, &e) != SR_OK) fail_msg("%s", e.msg);
    assert_true(s.prim_count > 100);     /* the vase's triangles */
    assert_true(s.material_count >= 3);  /* the floor and the vase's two MTL materials */
    assert_int_equal(s.light_count, 1);
    sr_scene_free(&s);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_values_mapped),
        cmocka_unit_test(test_material_index_follows_order),
        cmocka_unit_test(test_camera_make),
        cmocka_unit_test(test_shipped_scenes),
        cmocka_unit_test(test_format_doc_example),
        cmocka_unit_test(test_readme_quick_start_scene),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
