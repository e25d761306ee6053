/* test_scene_keys.c: the scene reader's messages for keys and names: unknown keys (with the
 * allowed ones and a guess at what was meant), duplicate keys and material names, unknown
 * types and materials, and missing keys, each at path:line:column with the key's JSON path.
 * Scenes are written as testutil.h says (' for ", '@' where the error must point). */
#include <stddef.h>
#include <string.h>

#include "testutil.h"
#include "../../src/scene/scene.h"

/* ---- unknown and duplicate keys ---------------------------------------------------------- */

static void test_unknown_top_key(void **state)
{
    (void)state;
    EXPECT_ERR("{\n  @'camra': {}\n}", "camra", "unknown key \"camra\"", "did you mean \"camera\"",
               "allowed keys in a scene: camera, image, background, ambient, materials, objects, lights");
}

static void test_unknown_camera_key(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], @'feild_of_view': 30}"), "camera.feild_of_view",
               "unknown key \"feild_of_view\"", "allowed keys in the camera: position, look_at, up, fov, aperture, focus_distance");
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], @'lookat': [0, 1, 0]}"), "camera.lookat",
               "did you mean \"look_at\"");
}

static void test_unknown_object_key(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_OBJ("{'type': 'sphere', 'center': [0, 0, 0], @'raduis': 1, 'material': 'm'}"), "objects[0].raduis",
               "unknown key \"raduis\"", "did you mean \"radius\"", "allowed keys in a sphere: type, center, radius, material");
}

static void test_unknown_material_key(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_MAT("{'type': 'mirror', @'albedo': [1, 1, 1]}"), "materials.m.albedo",
               "unknown key \"albedo\"", "allowed keys in a mirror material: type, reflectance");
    EXPECT_ERR(SCENE_MAT("{'type': 'diffuse', 'checker': {'color': [0, 0, 0], @'size': 2}}"), "materials.m.checker.size",
               "unknown key \"size\"", "allowed keys in the checker: color, scale");
}

static void test_unknown_image_and_light_key(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_WITH("'image': {'width': 10, @'samples': 4}"), "image.samples",
               "unknown key \"samples\"", "width, height, spp, max_depth");
    EXPECT_ERR(SCENE_LIGHT("{'type': 'point', 'position': [0, 5, 0], @'colour': [1, 1, 1]}"), "lights[0].colour",
               "unknown key \"colour\"", "did you mean \"color\"", "type, position, color, intensity");
}

static void test_duplicate_key(void **state)
{
    (void)state;
    EXPECT_ERR("{\n  'camera': {'position': [0, 1, 5], 'look_at': [0, 1, 0], 'fov': 30,\n             @'fov': 50},\n" MATS ", " OBJS "}",
               "camera.fov", "duplicate key \"fov\"", "first given at 2:59");
    EXPECT_ERR("{" CAM ", " MATS ", " OBJS ",\n @'camera': {}}", "camera", "duplicate key \"camera\"", "first given at 1:2");
}

static void test_duplicate_material_name(void **state)
{
    (void)state;
    EXPECT_ERR("{" CAM ", 'materials': {\n  'a': {'type': 'diffuse'},\n  'b': {'type': 'mirror'},\n  @'a': {'type': 'metal'}}, "
               "'objects': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'a'}]}",
               "materials.a", "duplicate material name \"a\"", "first given at 2:3");
}

static void test_odd_keys_do_not_break_messages(void **state)
{
    (void)state;
    /* control characters and a very long key come back cut and cleaned, never overflowing */
    static char src[3000];
    strcpy(src, "{" CAM ", " MATS ", " OBJS ", @'");
    size_t n = strlen(src);
    for (int i = 0; i < 2000; i++) src[n++] = (char)('a' + i % 26);
    strcpy(src + n, "\\n\\t': 1}");
    EXPECT_ERR(src, NULL, "unknown key", "...");
    EXPECT_ERR("{" CAM ", " MATS ", " OBJS ", @'x\\u0001y': 1}", "[\"x?y\"]", "unknown key \"x?y\"");
}

/* ---- names ------------------------------------------------------------------------------- */

static void test_unknown_material_type(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_MAT("{'type': @'plastic'}"), "materials.m.type", "unknown material type \"plastic\"",
               "diffuse, mirror, metal, glass, emissive");
    EXPECT_ERR(SCENE_MAT("{'type': @'mirorr'}"), "materials.m.type", "did you mean \"mirror\"");
}

static void test_unknown_object_and_light_type(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_OBJ("{'type': @'cube', 'material': 'm'}"), "objects[0].type", "unknown object type \"cube\"",
               "sphere, plane, quad, mesh");
    EXPECT_ERR(SCENE_LIGHT("{'type': @'area', 'position': [0, 1, 0]}"), "lights[0].type", "unknown light type \"area\"",
               "point, directional, spot");
}

static void test_unknown_material_name(void **state)
{
    (void)state;
    EXPECT_ERR("{" CAM ", 'materials': {'floor': {'type': 'diffuse'}, 'gold': {'type': 'metal'}}, "
               "'objects': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': @'flor'}]}",
               "objects[0].material", "unknown material \"flor\"", "did you mean \"floor\"", "defined materials: floor, gold");
    EXPECT_ERR("{" CAM ", 'materials': {}, "
               "'objects': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': @'m'}]}",
               "objects[0].material", "unknown material \"m\"", "no materials are defined");
}

/* ---- missing keys ------------------------------------------------------------------------ */

static void test_missing_top_level_keys(void **state)
{
    (void)state;
    EXPECT_ERR("@{" MATS ", " OBJS "}", NULL, "missing required key \"camera\"", "a scene needs: camera, materials, objects");
    EXPECT_ERR("\n@{" CAM ", " OBJS "}", NULL, "missing required key \"materials\"");
    EXPECT_ERR("@{" CAM ", " MATS "}", NULL, "missing required key \"objects\"");
}

static void test_missing_camera_keys(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_CAM("@{'position': [0, 1, 5]}"), "camera", "missing required key \"look_at\"",
               "the camera needs: position, look_at");
    EXPECT_ERR(SCENE_CAM("@{}"), "camera", "missing required key \"position\"");
}

static void test_missing_object_keys(void **state)
{
    (void)state;
    EXPECT_ERR("{" CAM ", " MATS ", 'objects': [\n  {'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'm'},\n"
               "  @{'type': 'sphere', 'center': [0, 0, 0], 'material': 'm'}]}",
               "objects[1]", "missing required key \"radius\"", "a sphere needs: type, center, radius, material");
    EXPECT_ERR(SCENE_OBJ("@{'center': [0, 0, 0], 'radius': 1, 'material': 'm'}"), "objects[0]",
               "missing required key \"type\"", "sphere, plane, quad, mesh");
    EXPECT_ERR(SCENE_OBJ("@{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1}"), "objects[0]",
               "missing required key \"material\"");
    EXPECT_ERR(SCENE_OBJ("@{'type': 'mesh', 'material': 'm'}"), "objects[0]", "missing required key \"file\"");
    EXPECT_ERR(SCENE_OBJ("@{'type': 'quad', 'corner': [0, 0, 0], 'edge_u': [1, 0, 0], 'material': 'm'}"), "objects[0]",
               "missing required key \"edge_v\"");
    EXPECT_ERR(SCENE_OBJ("@{'type': 'plane', 'point': [0, 0, 0], 'material': 'm'}"), "objects[0]",
               "missing required key \"normal\"");
}

static void test_missing_material_keys(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_MAT("@{'albedo': [1, 1, 1]}"), "materials.m", "missing required key \"type\"",
               "diffuse, mirror, metal, glass, emissive");
    EXPECT_ERR(SCENE_MAT("@{'type': 'emissive'}"), "materials.m", "missing required key \"radiance\"", "an emissive material needs: type, radiance");
    EXPECT_ERR(SCENE_MAT("{'type': 'diffuse', 'checker': @{'scale': 2}}"), "materials.m.checker",
               "missing required key \"color\"");
}

static void test_missing_light_keys(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_LIGHT("@{'type': 'point', 'intensity': 10}"), "lights[0]", "missing required key \"position\"");
    EXPECT_ERR(SCENE_LIGHT("@{'type': 'directional'}"), "lights[0]", "missing required key \"direction\"");
    EXPECT_ERR(SCENE_LIGHT("@{'position': [0, 1, 0]}"), "lights[0]", "missing required key \"type\"", "point, directional");
}

static void test_empty_objects(void **state)
{
    (void)state;
    EXPECT_ERR("{" CAM ", " MATS ", 'objects': @[]}", "objects", "at least one object");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_top_key),
        cmocka_unit_test(test_unknown_camera_key),
        cmocka_unit_test(test_unknown_object_key),
        cmocka_unit_test(test_unknown_material_key),
        cmocka_unit_test(test_unknown_image_and_light_key),
        cmocka_unit_test(test_duplicate_key),
        cmocka_unit_test(test_duplicate_material_name),
        cmocka_unit_test(test_unknown_material_type),
        cmocka_unit_test(test_unknown_object_and_light_type),
        cmocka_unit_test(test_unknown_material_name),
        cmocka_unit_test(test_missing_top_level_keys),
        cmocka_unit_test(test_missing_camera_keys),
        cmocka_unit_test(test_missing_object_keys),
        cmocka_unit_test(test_missing_material_keys),
        cmocka_unit_test(test_missing_light_keys),
        cmocka_unit_test(test_empty_objects),
        cmocka_unit_test(test_odd_keys_do_not_break_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
