/* test_scene_mesh.c: mesh objects in a scene: their scale, missing and bad mesh files named
 * at the scene's file:line:column, paths relative to the scene's folder, absolute paths. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "testutil.h"
#include "../../src/scene/scene.h"

static void test_mesh_scale_range(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_OBJ("{'type': 'mesh', 'file': 'x.obj', 'material': 'm', 'scale': @0}"), "objects[0].scale",
               "must be greater than 0", "got 0");
    EXPECT_ERR(SCENE_OBJ("{'type': 'mesh', 'file': 'x.obj', 'material': 'm', 'scale': @-2}"), "objects[0].scale",
               "must be greater than 0", "got -2");
}

static void test_mesh_missing_file(void **state)
{
    (void)state;
    char dir[512], scene[600];
    sr_test_tmp_path(dir, sizeof dir, "scene_missing_mesh");
    mkdir(dir, 0755);
    snprintf(scene, sizeof scene, "%s/s.json", dir);
    const char *text = "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\n"
                       " \"materials\": {\"m\": {\"type\": \"diffuse\"}},\n"
                       " \"objects\": [{\"type\": \"mesh\", \"file\": \"nope/none.obj\", \"material\": \"m\"}]}\n";
    const char *msg = sr_test_parse_refused(scene, text, strlen(text));
    char expect[2048];
    snprintf(expect, sizeof expect, "%s:3:39: objects[0].file: cannot read mesh file %s/nope/none.obj: No such file", scene, dir);
    if (strncmp(msg, expect, strlen(expect)) != 0) fail_msg("%s\nexpected\n%s", msg, expect);
}

static void test_mesh_bad_files(void **state)
{
    (void)state;
    char garbage[512], empty[512], dir[512], src[2048];
    sr_test_write_file(garbage, sizeof garbage, "scene_garbage.ply", "this is not a mesh\n\x01\x02\x03\n");
    sr_test_write_file(empty, sizeof empty, "scene_nofaces.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n");
    sr_test_tmp_path(dir, sizeof dir, "scene_dir.obj");
    mkdir(dir, 0755);

    const struct { const char *file, *what; } bad[] = {
        { garbage, "cannot parse mesh file" }, { empty, "has no triangles" }, { dir, "directory" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(src, sizeof src, SCENE_OBJ("{'type': 'mesh', 'file': @'%s', 'material': 'm'}"), bad[k].file);
        EXPECT_ERR(src, "objects[0].file", bad[k].what, bad[k].file);
    }
    EXPECT_ERR(SCENE_OBJ("{'type': 'mesh', 'file': @'', 'material': 'm'}"), "objects[0].file", "must not be empty");
}

static void test_mesh_path_relative_to_scene(void **state)
{
    (void)state;
    char dir[512], path[600];
    mkdir(sr_test_tmp_path(dir, sizeof dir, "scene_rel"), 0755);
    sr_test_write_file(path, sizeof path, "scene_rel/tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    sr_test_write_file(path, sizeof path, "scene_rel/scene.json",
                       "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\n"
                       " \"materials\": {\"a\": {\"type\": \"diffuse\"}, \"b\": {\"type\": \"metal\"}},\n"
                       " \"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1, \"material\": \"a\"},\n"
                       "             {\"type\": \"mesh\", \"file\": \"tri.obj\", \"material\": \"b\", \"scale\": 2,\n"
                       "              \"translate\": [10, 20, 30], \"rotate\": [0, 0, 90]}]}\n");

    /* from a working directory that is not the scene's folder */
    sr_scene s;
    sr_error e;
    memset(&e, 0, sizeof e);
    if (sr_scene_load(path, &s, &e) != SR_OK) fail_msg("%s", e.msg);
    assert_int_equal(s.prim_count, 2);
    assert_int_equal(s.prims[0].kind, SR_PRIM_SPHERE);
    assert_int_equal(s.prims[1].kind, SR_PRIM_TRIANGLE);
    assert_int_equal(s.prims[1].material, 1);
    /* scale 2, a quarter turn about Z ((x, y) -> (-y, x)), then translate */
    sr_test_assert_vec(s.prims[1].a, 10, 20, 30);
    sr_test_assert_vec(s.prims[1].b, 10, 22, 30);
    sr_test_assert_vec(s.prims[1].c, 8, 20, 30);
    assert_string_equal(s.path, path);
    sr_scene_free(&s);

    /* a relative scene path resolves against its own folder too */
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    char tmp[512];
    assert_int_equal(chdir(sr_test_tmp_path(tmp, sizeof tmp, ".")), 0);
    memset(&e, 0, sizeof e);
    sr_status st = sr_scene_load("scene_rel/scene.json", &s, &e);
    assert_int_equal(chdir(cwd), 0);
    if (st != SR_OK) fail_msg("%s", e.msg);
    assert_int_equal(s.prim_count, 2);
    sr_scene_free(&s);
}

static void test_mesh_absolute_path(void **state)
{
    (void)state;
    char obj[512], src[2048];
    sr_test_write_file(obj, sizeof obj, "scene_abs.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n");
    assert_true(obj[0] == '/');
    snprintf(src, sizeof src, SCENE_OBJ("{'type': 'mesh', 'file': '%s', 'material': 'lamp'}"), obj);
    sr_scene s;
    sr_test_parse_ok(src, &s);
    assert_int_equal(s.prim_count, 2);   /* the quad face, triangulated */
    assert_int_equal(s.prims[0].material, 1);
    assert_int_equal(s.prims[1].material, 1);
    sr_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh_scale_range),
        cmocka_unit_test(test_mesh_missing_file),
        cmocka_unit_test(test_mesh_bad_files),
        cmocka_unit_test(test_mesh_path_relative_to_scene),
        cmocka_unit_test(test_mesh_absolute_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
