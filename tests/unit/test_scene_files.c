/* test_scene_files.c: scene files on disk: what the loader says when it cannot read one or
 * the file is bad, and the CLI with a bad scene: exit 2, where on stderr, no image written. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "../../src/scene/scene.h"

/* ---- loading ----------------------------------------------------------------------------- */

/* Load path and fail unless it is refused as SR_ERR_INPUT with the scene left empty; returns
 * the message (valid until the next call). */
static const char *load_refused(const char *path)
{
    static sr_error e;
    sr_scene s;
    memset(&e, 0, sizeof e);
    assert_int_equal(sr_scene_load(path, &s, &e), SR_ERR_INPUT);
    assert_true(sr_test_is_zero(&s, sizeof s));
    return e.msg;
}

static void test_load_errors(void **state)
{
    (void)state;
    char path[512];
    sr_test_tmp_path(path, sizeof path, "no_such_scene.json");
    const char *msg = load_refused(path);
    assert_non_null(strstr(msg, path));
    assert_non_null(strstr(msg, "cannot read scene file: No such file or directory"));

    sr_test_tmp_path(path, sizeof path, "");
    assert_non_null(strstr(load_refused(path), "cannot read scene file: it is a directory"));

    /* a bad file through the loader names the path as given */
    sr_test_write_file(path, sizeof path, "bad_scene.json", "{\n  \"camera\": 5, \"materials\": {}, \"objects\": []\n}\n");
    msg = load_refused(path);
    char want[600];
    snprintf(want, sizeof want, "%s:2:13: camera: expected an object", path);
    if (strncmp(msg, want, strlen(want)) != 0) fail_msg("%s", msg);
}

/* ---- the CLI: a bad scene exits 2, says where on stderr and writes no image -------------- */

static void cli_expect(const char *name, const char *text, const char *where)
{
    char scene[512], out[512], err[8192];
    sr_test_write_file(scene, sizeof scene, name, text);
    sr_test_tmp_path(out, sizeof out, "cli_never_written.png");
    unlink(out);
    const char *argv[] = {"render", scene, "-o", out, NULL};
    int rc = sr_test_run_cli(argv, err, sizeof err);
    if (rc != 2) fail_msg("exit status %d, expected 2; stderr:\n%s", rc, err);
    char want[700];
    snprintf(want, sizeof want, "%s:%s", scene, where);
    if (!strstr(err, want)) fail_msg("stderr does not contain '%s':\n%s", want, err);
    assert_false(sr_test_file_exists(out));
}

static void test_cli_malformed_scene(void **state)
{
    (void)state;
    cli_expect("cli_malformed.json", "{\n  \"camera\": {\"position\": [0, 1, 5],,}\n}\n", "2:36: malformed JSON");
}

static void test_cli_bad_value(void **state)
{
    (void)state;
    cli_expect("cli_radius.json",
               "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\n"
               " \"materials\": {\"m\": {\"type\": \"diffuse\"}},\n"
               " \"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": -1, \"material\": \"m\"}]}\n",
               "3:64: objects[0].radius: must be greater than 0, got -1");
}

static void test_cli_unknown_material(void **state)
{
    (void)state;
    cli_expect("cli_material.json",
               "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\n"
               " \"materials\": {\"floor\": {\"type\": \"diffuse\"}},\n"
               " \"objects\": [{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 1, 0],\n"
               "              \"material\": \"flor\"}]}\n",
               "4:27: objects[0].material: unknown material \"flor\"");
}

static void test_cli_missing_mesh(void **state)
{
    (void)state;
    cli_expect("cli_mesh.json",
               "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\n"
               " \"materials\": {\"m\": {\"type\": \"diffuse\"}},\n"
               " \"objects\": [{\"type\": \"mesh\", \"file\": \"missing.obj\", \"material\": \"m\"}]}\n",
               "3:39: objects[0].file: cannot read mesh file");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_cli_malformed_scene),
        cmocka_unit_test(test_cli_bad_value),
        cmocka_unit_test(test_cli_unknown_material),
        cmocka_unit_test(test_cli_missing_mesh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
