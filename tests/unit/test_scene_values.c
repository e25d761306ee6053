/* test_scene_values.c: the scene reader's messages for values: the wrong JSON type, numbers
 * that are not finite, and values out of range or of impossible geometry (zero-length
 * vectors, a flat quad, a camera that cannot look), each at path:line:column with the key's
 * JSON path. Scenes are written as testutil.h says (' for ", '@' where the error must point). */
#include <stddef.h>
#include <string.h>

#include "testutil.h"
#include "../../src/scene/scene.h"

/* ---- types ------------------------------------------------------------------------------- */

static void test_wrong_type_number(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_OBJ("{'type': 'sphere', 'center': [0, 0, 0], 'radius': @'big', 'material': 'm'}"), "objects[0].radius",
               "expected a number", "got a string (\"big\")");
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'fov': @null}"), "camera.fov",
               "expected a number", "got null");
    EXPECT_ERR(SCENE_WITH("'image': {'spp': @true}"), "image.spp", "expected a number", "got true");
}

static void test_wrong_type_vec3(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_CAM("{'position': @5, 'look_at': [0, 1, 0]}"), "camera.position",
               "expected an array of 3 numbers", "got a number (5)");
    EXPECT_ERR(SCENE_CAM("{'position': @[0, 1], 'look_at': [0, 1, 0]}"), "camera.position",
               "expected an array of 3 numbers", "got an array of 2 elements");
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, @'1', 0]}"), "camera.look_at[1]",
               "expected a number", "got a string (\"1\")");
    EXPECT_ERR(SCENE_WITH("'background': @{'r': 1}"), "background", "expected an array of 3 numbers", "got an object");
}

static void test_wrong_type_string(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_OBJ("{'type': @3, 'center': [0, 0, 0], 'radius': 1, 'material': 'm'}"), "objects[0].type",
               "expected a string", "sphere, plane, quad, mesh", "got a number (3)");
    EXPECT_ERR(SCENE_OBJ("{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': @0}"), "objects[0].material",
               "expected a string naming one of the materials", "got a number (0)");
    EXPECT_ERR(SCENE_OBJ("{'type': 'mesh', 'file': @['a.obj'], 'material': 'm'}"), "objects[0].file",
               "expected a string", "got an array of 1 element");
}

static void test_wrong_type_object_array(void **state)
{
    (void)state;
    EXPECT_ERR("{'camera': @[0, 1, 5], " MATS ", " OBJS "}", "camera", "expected an object", "got an array of 3 elements");
    EXPECT_ERR("{" CAM ", " MATS ", 'objects': @{'type': 'sphere'}}", "objects", "expected an array", "got an object");
    EXPECT_ERR("{" CAM ", 'materials': @['m'], " OBJS "}", "materials", "expected an object", "got an array");
    EXPECT_ERR(SCENE_MAT("@'diffuse'"), "materials.m", "expected an object", "got a string (\"diffuse\")");
    EXPECT_ERR(SCENE_WITH("'lights': @{}"), "lights", "expected an array", "got an object");
    EXPECT_ERR(SCENE_LIGHT("@[0, 5, 0]"), "lights[0]", "expected an object", "got an array");
    EXPECT_ERR("{" CAM ", " MATS ", 'objects': [@'sphere']}", "objects[0]", "expected an object", "got a string");
    EXPECT_ERR(SCENE_WITH("'image': @640"), "image", "expected an object", "got a number (640)");
    EXPECT_ERR(SCENE_MAT("{'type': 'diffuse', 'checker': @true}"), "materials.m.checker", "expected an object", "got true");
}

static void test_non_finite_number(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_OBJ("{'type': 'sphere', 'center': [0, 0, 0], 'radius': @1e999, 'material': 'm'}"), "objects[0].radius",
               "finite", "got 1e999");
    EXPECT_ERR(SCENE_CAM("{'position': [@-1e400, 1, 5], 'look_at': [0, 1, 0]}"), "camera.position[0]", "finite", "got -1e400");
    /* finite as a double but not as a float */
    EXPECT_ERR(SCENE_OBJ("{'type': 'sphere', 'center': [0, 0, 0], 'radius': @1e300, 'material': 'm'}"), "objects[0].radius",
               "3.4e38", "got 1e300");
}

/* ---- ranges ------------------------------------------------------------------------------ */

static void test_image_size_range(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_WITH("'image': {'width': @0}"), "image.width", "between 1 and 16384", "got 0");
    EXPECT_ERR(SCENE_WITH("'image': {'width': @-640}"), "image.width", "between 1 and 16384", "got -640");
    EXPECT_ERR(SCENE_WITH("'image': {'height': @16385}"), "image.height", "between 1 and 16384", "got 16385");
    EXPECT_ERR(SCENE_WITH("'image': {'width': 64, 'height': @36.5}"), "image.height", "whole number", "got 36.5");
}

static void test_spp_range(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_WITH("'image': {'spp': @0}"), "image.spp", "between 1 and 65536", "got 0");
    EXPECT_ERR(SCENE_WITH("'image': {'spp': @65537}"), "image.spp", "between 1 and 65536", "got 65537");
    EXPECT_ERR(SCENE_WITH("'image': {'spp': @1.5}"), "image.spp", "whole number", "got 1.5");
}

static void test_max_depth_range(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_WITH("'image': {'max_depth': @0}"), "image.max_depth", "between 1 and 64", "got 0");
    EXPECT_ERR(SCENE_WITH("'image': {'max_depth': @65}"), "image.max_depth", "between 1 and 64", "got 65");
}

static void test_radius_range(void **state)
{
    (void)state;
    EXPECT_ERR("{" CAM ", " MATS ", 'objects': [\n"
               "  {'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'm'},\n"
               "  {'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'm'},\n"
               "  {'type': 'sphere', 'center': [0, 0, 0], 'radius': @-1, 'material': 'm'}]}",
               "objects[2].radius", "must be greater than 0, got -1");
    EXPECT_ERR(SCENE_OBJ("{'type': 'sphere', 'center': [0, 0, 0], 'radius': @0, 'material': 'm'}"), "objects[0].radius",
               "must be greater than 0, got 0");
}

static void test_radius_message_exact(void **state)
{
    (void)state;
    /* The exact shape a person sees, with a hand-counted line and column. */
    const char *text =
        "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\n"
        " \"materials\": {\"m\": {\"type\": \"diffuse\"}},\n"
        " \"objects\": [\n"
        "   {\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": -1, \"material\": \"m\"}]}\n";
    assert_string_equal(sr_test_parse_refused("scenes/x.json", text, strlen(text)),
                        "scenes/x.json:4:54: objects[0].radius: must be greater than 0, got -1");
}

static void test_fov_range(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'fov': @0}"), "camera.fov",
               "greater than 0 and less than 180", "got 0");
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'fov': @180}"), "camera.fov",
               "greater than 0 and less than 180", "got 180");
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'fov': @-30}"), "camera.fov", "got -30");
    /* below 180 in double, 180 as a float: its tangent is negative (an upside-down image) */
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'fov': @179.999999}"), "camera.fov",
               "less than 180 degrees as a float (the camera is built in float)", "got 179.999999 (180 as a float)");
    EXPECT_ERR(SCENE_WITH("'camera_path': [{'frame': 0, 'position': [0, 1, 5], 'look_at': [0, 1, 0]},"
                          " {'frame': 9, 'position': [0, 1, 4], 'look_at': [0, 1, 0], 'fov': @179.999999}]"),
               "camera_path[1].fov", "less than 180 degrees as a float", "got 179.999999 (180 as a float)");
    /* above 0 in double, 0 as a float */
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'fov': @1e-50}"), "camera.fov",
               "greater than 0", "got 1e-50 (0 as a float)");
}

static void test_aperture_focus_range(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'aperture': @-0.1}"), "camera.aperture",
               "must not be negative", "got -0.1");
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'focus_distance': @-2}"), "camera.focus_distance",
               "must not be negative", "got -2");
}

static void test_negative_colour(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_MAT("{'type': 'diffuse', 'albedo': [0.5, @-0.1, 0]}"), "materials.m.albedo[1]",
               "colour components must not be negative", "got -0.1");
    EXPECT_ERR(SCENE_WITH("'background': [0, 0, @-1]"), "background[2]", "must not be negative");
    EXPECT_ERR(SCENE_WITH("'ambient': [@-0.5, 0, 0]"), "ambient[0]", "must not be negative");
    EXPECT_ERR(SCENE_LIGHT("{'type': 'point', 'position': [0, 5, 0], 'color': [1, @-1, 1]}"), "lights[0].color[1]",
               "must not be negative");
    EXPECT_ERR(SCENE_MAT("{'type': 'emissive', 'radiance': [@-4, 4, 4]}"), "materials.m.radiance[0]", "must not be negative");
    EXPECT_ERR(SCENE_MAT("{'type': 'diffuse', 'checker': {'color': [@-1, 0, 0]}}"), "materials.m.checker.color[0]",
               "must not be negative");
}

static void test_ior_range(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_MAT("{'type': 'glass', 'ior': @0.9}"), "materials.m.ior", "must be at least 1", "got 0.9");
}

static void test_roughness_range(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_MAT("{'type': 'metal', 'roughness': @1.5}"), "materials.m.roughness", "between 0 and 1", "got 1.5");
    EXPECT_ERR(SCENE_MAT("{'type': 'metal', 'roughness': @-0.1}"), "materials.m.roughness", "between 0 and 1", "got -0.1");
}

static void test_checker_scale_range(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_MAT("{'type': 'diffuse', 'checker': {'color': [0, 0, 0], 'scale': @0}}"), "materials.m.checker.scale",
               "must be greater than 0", "got 0");
}

static void test_negative_intensity(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_LIGHT("{'type': 'point', 'position': [0, 5, 0], 'intensity': @-100}"), "lights[0].intensity",
               "must not be negative", "got -100");
    EXPECT_ERR(SCENE_LIGHT("{'type': 'directional', 'direction': [0, -1, 0], 'intensity': @-1}"), "lights[0].intensity",
               "must not be negative");
}

/* ---- geometry ---------------------------------------------------------------------------- */

static void test_zero_length_vectors(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_OBJ("{'type': 'plane', 'point': [0, 0, 0], 'normal': @[0, 0, 0], 'material': 'm'}"), "objects[0].normal",
               "zero-length");
    EXPECT_ERR(SCENE_LIGHT("{'type': 'directional', 'direction': @[0, 0, 0]}"), "lights[0].direction", "zero-length");
    EXPECT_ERR(SCENE_OBJ("{'type': 'quad', 'corner': [0, 0, 0], 'edge_u': @[0, 0, 0], 'edge_v': [0, 1, 0], 'material': 'm'}"),
               "objects[0].edge_u", "zero-length");
    EXPECT_ERR(SCENE_OBJ("{'type': 'quad', 'corner': [0, 0, 0], 'edge_u': [1, 0, 0], 'edge_v': @[0, 0, 0], 'material': 'm'}"),
               "objects[0].edge_v", "zero-length");
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'up': @[0, 0, 0]}"), "camera.up", "zero-length");
}

static void test_parallel_quad_edges(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_OBJ("{'type': 'quad', 'corner': [0, 0, 0], 'edge_u': [1, 0, 0], 'edge_v': @[-2, 0, 0], 'material': 'm'}"),
               "objects[0].edge_v", "parallel to edge_u", "no area");
}

static void test_camera_position_is_look_at(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_CAM("{'position': [1, 2, 3], 'look_at': @[1, 2, 3]}"), "camera.look_at",
               "must differ from camera.position", "[1, 2, 3]");
    /* they differ, but their difference overflows a float (or its square would) */
    EXPECT_ERR(SCENE_CAM("{'position': [3e38, 0, 0], 'look_at': @[-3e38, 0, 0]}"), "camera.look_at",
               "is 6e+38 from camera.position", "expected at most 1e+16 apart");
    EXPECT_ERR(SCENE_CAM("{'position': [0, 0, 2e16], 'look_at': @[0, 0, 0]}"), "camera.look_at", "is 2e+16 from");
    sr_scene s;
    sr_test_parse_ok(SCENE_CAM("{'position': [0, 0, 1e16], 'look_at': [0, 0, 0]}"), &s);
    sr_scene_free(&s);
}

static void test_camera_up_parallel(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'up': @[0, 0, 2]}"), "camera.up",
               "parallel to the view direction");
    /* the default up, looking straight down: points at the camera object */
    EXPECT_ERR(SCENE_CAM("@{'position': [0, 10, 0], 'look_at': [0, 0, 0]}"), "camera.up",
               "the default up [0, 1, 0] is parallel", "e.g. [0, 0, 1]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrong_type_number),
        cmocka_unit_test(test_wrong_type_vec3),
        cmocka_unit_test(test_wrong_type_string),
        cmocka_unit_test(test_wrong_type_object_array),
        cmocka_unit_test(test_non_finite_number),
        cmocka_unit_test(test_image_size_range),
        cmocka_unit_test(test_spp_range),
        cmocka_unit_test(test_max_depth_range),
        cmocka_unit_test(test_radius_range),
        cmocka_unit_test(test_radius_message_exact),
        cmocka_unit_test(test_fov_range),
        cmocka_unit_test(test_aperture_focus_range),
        cmocka_unit_test(test_negative_colour),
        cmocka_unit_test(test_ior_range),
        cmocka_unit_test(test_roughness_range),
        cmocka_unit_test(test_checker_scale_range),
        cmocka_unit_test(test_negative_intensity),
        cmocka_unit_test(test_zero_length_vectors),
        cmocka_unit_test(test_parallel_quad_edges),
        cmocka_unit_test(test_camera_position_is_look_at),
        cmocka_unit_test(test_camera_up_parallel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
