/* test_scene.c: the JSON scene reader. Most tests feed a bad scene and check the one message a
 * person would see: path:line:column, the JSON path of the key, what is wrong and what is
 * expected. Scenes are written with ' for " (and ` for a literal '), and '@' marks where the
 * error must point; the helper removes the mark and works out the line and column. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "testutil.h"
#include "scene.h"

#define TEXT_CAP 8192

/* ' -> ", ` -> ', '@' removed and its line:column returned (0:0 when there is none). */
static size_t prepare(const char *src, char *out, size_t cap, unsigned long *line, unsigned long *col)
{
    size_t n = 0;
    unsigned long l = 1, c = 1;
    *line = 0;
    *col = 0;
    for (const char *s = src; *s; s++) {
        if (*s == '@') { *line = l; *col = c; continue; }
        char ch = *s == '\'' ? '"' : (*s == '`' ? '\'' : *s);
        assert_true(n + 1 < cap);
        out[n++] = ch;
        if (ch == '\n') { l++; c = 1; }
        else if (((unsigned char)ch & 0xC0) != 0x80) c++;
    }
    out[n] = '\0';
    return n;
}

static int is_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

/* Parse src (as "t.json") and check it fails with SR_ERR_INPUT, a message that starts with
 * "t.json:L:C: JP: " (L:C from the '@' mark; no "JP: " when jp is NULL), and contains every
 * word; *out must be left empty. */
static void expect_err_(const char *src, const char *jp, ...)
{
    static char text[TEXT_CAP];
    unsigned long line, col;
    size_t len = prepare(src, text, sizeof text, &line, &col);
    sr_scene s;
    memset(&s, 0xAB, sizeof s);
    sr_error e;
    memset(&e, 0, sizeof e);
    sr_status st = sr_scene_parse("t.json", text, len, &s, &e);
    if (st != SR_ERR_INPUT) fail_msg("expected SR_ERR_INPUT, got %d (%s) for\n%s", (int)st, e.msg, text);
    assert_int_equal(e.status, SR_ERR_INPUT);
    assert_true(is_zero(&s, sizeof s));

    char prefix[300];
    if (line) snprintf(prefix, sizeof prefix, "t.json:%lu:%lu: %s%s", line, col, jp ? jp : "", jp ? ": " : "");
    else snprintf(prefix, sizeof prefix, "t.json: %s%s", jp ? jp : "", jp ? ": " : "");
    if (strncmp(e.msg, prefix, strlen(prefix)) != 0)
        fail_msg("message\n  %s\ndoes not start with\n  %s", e.msg, prefix);
    va_list ap;
    va_start(ap, jp);
    for (const char *w = va_arg(ap, const char *); w; w = va_arg(ap, const char *))
        if (!strstr(e.msg, w)) fail_msg("message\n  %s\ndoes not contain\n  %s", e.msg, w);
    va_end(ap);
}
#define EXPECT_ERR(src, jp, ...) expect_err_(src, jp, __VA_ARGS__, (const char *)NULL)

static void parse_ok(const char *src, sr_scene *s)
{
    static char text[TEXT_CAP];
    unsigned long line, col;
    size_t len = prepare(src, text, sizeof text, &line, &col);
    sr_error e;
    memset(&e, 0, sizeof e);
    sr_status st = sr_scene_parse("t.json", text, len, s, &e);
    if (st != SR_OK) fail_msg("expected success, got %d: %s\nfor\n%s", (int)st, e.msg, text);
}

/* A valid scene's parts, to build bad ones from. */
#define CAM "'camera': {'position': [0, 1, 5], 'look_at': [0, 1, 0]}"
#define MATS "'materials': {'m': {'type': 'diffuse'}}"
#define OBJS "'objects': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'm'}]"
#define SCENE_WITH(extra) "{" CAM ", " MATS ", " OBJS ", " extra "}"
#define SCENE_OBJ(obj) "{" CAM ", 'materials': {'m': {'type': 'diffuse'}, 'lamp': {'type': 'emissive', 'radiance': [1, 1, 1]}}, 'objects': [" obj "]}"
#define SCENE_MAT(mat) "{" CAM ", 'materials': {'m': " mat "}, " OBJS "}"
#define SCENE_CAM(cam) "{'camera': " cam ", " MATS ", " OBJS "}"
#define SCENE_LIGHT(l) SCENE_WITH("'lights': [" l "]")

static void assert_vec(sr_vec3 v, float x, float y, float z)
{
    if (v.x != x || v.y != y || v.z != z)
        fail_msg("vector (%.9g, %.9g, %.9g) != (%.9g, %.9g, %.9g)", v.x, v.y, v.z, x, y, z);
}

static void assert_vec_near(sr_vec3 v, float x, float y, float z, float eps)
{
    if (fabsf(v.x - x) > eps || fabsf(v.y - y) > eps || fabsf(v.z - z) > eps)
        fail_msg("vector (%.9g, %.9g, %.9g) != (%.9g, %.9g, %.9g) within %g", v.x, v.y, v.z, x, y, z, eps);
}

/* ---- malformed JSON ---------------------------------------------------------------------- */

static void test_malformed_missing_comma(void **state)
{
    (void)state;
    EXPECT_ERR("{\n  'camera': {'position': [0, 1, 5] @'look_at': [0, 1, 0]}\n}", NULL,
               "malformed JSON", "expected ',' or '}'", "found '\"look_at\"'", "missing ','");
}

static void test_malformed_trailing_comma(void **state)
{
    (void)state;
    EXPECT_ERR("{\n  'objects': [1, 2@,\n  ]\n}", NULL, "malformed JSON", "trailing comma before ']'");
}

static void test_malformed_truncated(void **state)
{
    (void)state;
    EXPECT_ERR("{'camera': {'fov': 40}@", NULL, "malformed JSON", "the end of the file");
}

static void test_malformed_unterminated_string(void **state)
{
    (void)state;
    EXPECT_ERR("{'camera': {@'fov: 40}}", NULL, "malformed JSON", "unterminated string");
}

static void test_malformed_unquoted_key(void **state)
{
    (void)state;
    EXPECT_ERR("{\n  @camera: {}\n}", NULL, "malformed JSON", "found 'camera'", "keys need double quotes");
}

static void test_malformed_comment(void **state)
{
    (void)state;
    EXPECT_ERR("{\n  @// the camera\n  'camera': {}\n}", NULL, "malformed JSON", "comments");
}

static void test_malformed_nan(void **state)
{
    (void)state;
    EXPECT_ERR("{'camera': {'fov': @NaN}}", NULL, "malformed JSON", "'NaN'", "finite");
    EXPECT_ERR("{'camera': {'fov': -@Infinity}}", NULL, "malformed JSON", "'Infinity'", "finite");
}

static void test_malformed_single_quotes(void **state)
{
    (void)state;
    EXPECT_ERR("{'camera': {'up': @`y`}}", NULL, "malformed JSON", "found a single quote", "double quotes");
}

static void test_malformed_bad_escape(void **state)
{
    (void)state;
    EXPECT_ERR("{'materials': {'a@\\q': {}}}", NULL, "malformed JSON", "invalid escape '\\q'");
    EXPECT_ERR("{'materials': {'a@\\ud800': {}}}", NULL, "malformed JSON", "surrogate");
}

static void test_malformed_trailing_garbage(void **state)
{
    (void)state;
    EXPECT_ERR("{'camera': {}}\n@}", NULL, "malformed JSON", "unexpected '}'", "after the end");
}

static void test_malformed_nul_byte(void **state)
{
    (void)state;
    const char text[] = "{\"camera\":\0 {}}";
    sr_scene s;
    sr_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(sr_scene_parse("t.json", text, sizeof text - 1, &s, &e), SR_ERR_INPUT);
    assert_non_null(strstr(e.msg, "t.json:1:11: malformed JSON"));
    assert_non_null(strstr(e.msg, "NUL"));
}

static void test_malformed_too_deep(void **state)
{
    (void)state;
    static char text[4000];
    size_t n = 0;
    text[n++] = '{';
    memcpy(text + n, "\"a\":", 4);
    n += 4;
    for (int i = 0; i < 1001; i++) text[n++] = '[';
    for (int i = 0; i < 1001; i++) text[n++] = ']';
    text[n++] = '}';
    sr_scene s;
    sr_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(sr_scene_parse("t.json", text, n, &s, &e), SR_ERR_INPUT);
    assert_non_null(strstr(e.msg, "nested too deeply"));
    assert_non_null(strstr(e.msg, "t.json:1:1005:"));
}

static void test_empty_file(void **state)
{
    (void)state;
    EXPECT_ERR("@", NULL, "malformed JSON", "the file is empty");
    EXPECT_ERR("@  \n\t \n", NULL, "malformed JSON", "the file is empty");
    sr_scene s;
    sr_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(sr_scene_parse("t.json", NULL, 0, &s, &e), SR_ERR_INPUT);
    assert_non_null(strstr(e.msg, "t.json:1:1: malformed JSON: the file is empty"));
}

static void test_top_level_not_object(void **state)
{
    (void)state;
    EXPECT_ERR("\n  @[1, 2, 3]", NULL, "top level must be an object", "got an array of 3 elements");
    EXPECT_ERR("@\"scene\"", NULL, "top level must be an object", "got a string");
}

/* ---- keys -------------------------------------------------------------------------------- */

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
    sr_scene s;
    sr_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(sr_scene_parse("scenes/x.json", text, strlen(text), &s, &e), SR_ERR_INPUT);
    assert_string_equal(e.msg, "scenes/x.json:4:54: objects[0].radius: must be greater than 0, got -1");
}

static void test_fov_range(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'fov': @0}"), "camera.fov",
               "greater than 0 and less than 180", "got 0");
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'fov': @180}"), "camera.fov",
               "greater than 0 and less than 180", "got 180");
    EXPECT_ERR(SCENE_CAM("{'position': [0, 1, 5], 'look_at': [0, 1, 0], 'fov': @-30}"), "camera.fov", "got -30");
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

static void test_mesh_scale_range(void **state)
{
    (void)state;
    EXPECT_ERR(SCENE_OBJ("{'type': 'mesh', 'file': 'x.obj', 'material': 'm', 'scale': @0}"), "objects[0].scale",
               "must be greater than 0", "got 0");
    EXPECT_ERR(SCENE_OBJ("{'type': 'mesh', 'file': 'x.obj', 'material': 'm', 'scale': @-2}"), "objects[0].scale",
               "must be greater than 0", "got -2");
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
    EXPECT_ERR(SCENE_LIGHT("{'type': @'spot', 'position': [0, 1, 0]}"), "lights[0].type", "unknown light type \"spot\"",
               "point, directional");
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

static void test_utf8_and_crlf_positions(void **state)
{
    (void)state;
    /* columns count characters (é is two bytes, one column); CRLF counts as one line break */
    const char *text = "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\r\n"
                       "\"materials\": {\"m\": {\"type\": \"diffuse\"}},\r\n"
                       "\"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1, \"material\": \"m\"}],\r\n"
                       "\"background\": [0, 0, 0], \"\xC3\xA9t\xC3\xA9\": 1}";
    sr_scene s;
    sr_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(sr_scene_parse("t.json", text, strlen(text), &s, &e), SR_ERR_INPUT);
    if (!strstr(e.msg, "t.json:4:26: [\"\xC3\xA9t\xC3\xA9\"]: unknown key")) fail_msg("%s", e.msg);
}

/* Invalid UTF-8 anywhere (a material name of 0xFF 0xFE, an overlong '/', a surrogate, a
 * truncated sequence) is refused with the line and column of the first bad byte; valid
 * multi-byte text (é, 𝄞) passes that check. */
static void test_invalid_utf8_refused(void **state)
{
    (void)state;
    static const struct { const char *bytes, *where; } bad[] = {
        { "m\xff\xfe", "t.json:2:17: invalid UTF-8 (byte 0xFF)" },
        { "m\xc0\xaf", "t.json:2:17: invalid UTF-8 (byte 0xC0)" },
        { "m\xed\xa0\x80", "t.json:2:17: invalid UTF-8 (byte 0xED)" },
        { "m\xe2\x82", "t.json:2:17: invalid UTF-8 (byte 0xE2)" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[512];
        snprintf(text, sizeof text, "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\n"
                 "\"materials\": {\"%s\": {\"type\": \"diffuse\"}},\n"
                 "\"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1, \"material\": \"m\"}]}",
                 bad[k].bytes);
        sr_scene s;
        sr_error e;
        memset(&e, 0, sizeof e);
        assert_int_equal(sr_scene_parse("t.json", text, strlen(text), &s, &e), SR_ERR_INPUT);
        if (!strstr(e.msg, bad[k].where)) fail_msg("case %zu: %s", k, e.msg);
    }
    const char *good = "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\n"
                       "\"materials\": {\"\xc3\xa9\xf0\x9d\x84\x9e\": {\"type\": \"diffuse\"}},\n"
                       "\"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1, "
                       "\"material\": \"\xc3\xa9\xf0\x9d\x84\x9e\"}]}";
    sr_scene s;
    sr_error e;
    memset(&e, 0, sizeof e);
    if (sr_scene_parse("t.json", good, strlen(good), &s, &e) != SR_OK) fail_msg("%s", e.msg);
    sr_scene_free(&s);
}

/* ---- meshes through the scene ------------------------------------------------------------ */

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
    sr_scene s;
    sr_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(sr_scene_parse(scene, text, strlen(text), &s, &e), SR_ERR_INPUT);
    char expect[2048];
    snprintf(expect, sizeof expect, "%s:3:39: objects[0].file: cannot read mesh file %s/nope/none.obj: No such file", scene, dir);
    if (strncmp(e.msg, expect, strlen(expect)) != 0) fail_msg("%s\nexpected\n%s", e.msg, expect);
}

static void test_mesh_bad_files(void **state)
{
    (void)state;
    char garbage[512], empty[512], dir[512], src[2048];
    sr_test_write_file(garbage, sizeof garbage, "scene_garbage.ply", "this is not a mesh\n\x01\x02\x03\n");
    sr_test_write_file(empty, sizeof empty, "scene_nofaces.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n");
    sr_test_tmp_path(dir, sizeof dir, "scene_dir.obj");
    mkdir(dir, 0755);

    snprintf(src, sizeof src, SCENE_OBJ("{'type': 'mesh', 'file': @'%s', 'material': 'm'}"), garbage);
    EXPECT_ERR(src, "objects[0].file", "cannot parse mesh file", garbage);
    snprintf(src, sizeof src, SCENE_OBJ("{'type': 'mesh', 'file': @'%s', 'material': 'm'}"), empty);
    EXPECT_ERR(src, "objects[0].file", "has no triangles", empty);
    snprintf(src, sizeof src, SCENE_OBJ("{'type': 'mesh', 'file': @'%s', 'material': 'm'}"), dir);
    EXPECT_ERR(src, "objects[0].file", "directory");
    EXPECT_ERR(SCENE_OBJ("{'type': 'mesh', 'file': @'', 'material': 'm'}"), "objects[0].file", "must not be empty");
}

static void test_mesh_path_relative_to_scene(void **state)
{
    (void)state;
    char dir[512], path[600];
    sr_test_tmp_path(dir, sizeof dir, "scene_rel");
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/tri.obj", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/scene.json", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 1, 0]},\n"
          " \"materials\": {\"a\": {\"type\": \"diffuse\"}, \"b\": {\"type\": \"metal\"}},\n"
          " \"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1, \"material\": \"a\"},\n"
          "             {\"type\": \"mesh\", \"file\": \"tri.obj\", \"material\": \"b\", \"scale\": 2,\n"
          "              \"translate\": [10, 20, 30], \"rotate\": [0, 0, 90]}]}\n", f);
    fclose(f);

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
    assert_vec(s.prims[1].a, 10, 20, 30);
    assert_vec(s.prims[1].b, 10, 22, 30);
    assert_vec(s.prims[1].c, 8, 20, 30);
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
    parse_ok(src, &s);
    assert_int_equal(s.prim_count, 2);   /* the quad face, triangulated */
    assert_int_equal(s.prims[0].material, 1);
    assert_int_equal(s.prims[1].material, 1);
    sr_scene_free(&s);
}

/* ---- good input -------------------------------------------------------------------------- */

static void test_defaults(void **state)
{
    (void)state;
    sr_scene s;
    parse_ok("{" CAM ", " MATS ", " OBJS "}", &s);
    assert_string_equal(s.path, "t.json");
    assert_int_equal(s.width, 640);
    assert_int_equal(s.height, 360);
    assert_int_equal(s.spp, 4);
    assert_int_equal(s.max_depth, 8);
    assert_vec(s.camera.up, 0, 1, 0);
    assert_true(s.camera.vfov_deg == 40.0f);
    assert_true(s.camera.aperture == 0.0f);
    assert_true(s.camera.focus_distance == 0.0f);
    assert_vec(s.background, 0, 0, 0);
    assert_vec(s.ambient, 0, 0, 0);
    assert_int_equal(s.light_count, 0);
    assert_null(s.lights);
    assert_int_equal(s.plane_count, 0);
    assert_int_equal(s.material_count, 1);
    assert_int_equal(s.materials[0].kind, SR_MAT_DIFFUSE);
    assert_vec(s.materials[0].color, 0.8f, 0.8f, 0.8f);
    assert_true(s.materials[0].checker_scale == 0.0f);
    sr_scene_free(&s);
    assert_null(s.prims);
    assert_null(s.path);

    /* per-type material defaults */
    parse_ok("{" CAM ", 'materials': {'a': {'type': 'mirror'}, 'b': {'type': 'metal'}, 'c': {'type': 'glass'},"
             " 'd': {'type': 'diffuse', 'checker': {'color': [0, 0, 1]}}},"
             " 'objects': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'd'}]}", &s);
    assert_vec(s.materials[0].color, 1, 1, 1);
    assert_vec(s.materials[1].color, 0.8f, 0.8f, 0.8f);
    assert_true(s.materials[1].roughness == 0.0f);
    assert_true(s.materials[2].ior == 1.5f);
    assert_vec(s.materials[2].color, 1, 1, 1);
    assert_true(s.materials[3].checker_scale == 1.0f);
    assert_vec(s.materials[3].color2, 0, 0, 1);
    sr_scene_free(&s);

    /* lights: colour 1, intensity 1 */
    parse_ok(SCENE_LIGHT("{'type': 'point', 'position': [1, 2, 3]}"), &s);
    assert_vec(s.lights[0].power, 1, 1, 1);
    sr_scene_free(&s);
}

static void test_values_mapped(void **state)
{
    (void)state;
    sr_scene s;
    parse_ok("{\n"
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
    assert_vec(s.camera.position, 1, 2, 3);
    assert_vec(s.camera.look_at, 4, 5, 6);
    assert_vec(s.camera.up, 0, 0, 1);
    assert_true(s.camera.vfov_deg == 55.5f);
    assert_true(s.camera.aperture == 0.25f);
    assert_true(s.camera.focus_distance == 7.0f);
    assert_int_equal(s.width, 320);
    assert_int_equal(s.height, 200);
    assert_int_equal(s.spp, 9);
    assert_int_equal(s.max_depth, 64);
    assert_vec(s.background, 0.1f, 0.2f, 0.3f);
    assert_vec(s.ambient, 0.01f, 0.02f, 0.03f);

    assert_int_equal(s.material_count, 5);
    const char *names[] = {"floor", "mirror", "gold", "glass", "lamp"};
    const uint32_t kinds[] = {SR_MAT_DIFFUSE, SR_MAT_MIRROR, SR_MAT_METAL, SR_MAT_GLASS, SR_MAT_EMISSIVE};
    for (int i = 0; i < 5; i++) {
        assert_string_equal(s.material_names[i], names[i]);
        assert_int_equal(s.materials[i].kind, kinds[i]);
    }
    assert_vec(s.materials[0].color, 0.5f, 0.6f, 0.7f);
    assert_vec(s.materials[0].color2, 0.1f, 0.2f, 0.3f);
    assert_true(s.materials[0].checker_scale == 2.5f);
    assert_vec(s.materials[1].color, 0.9f, 0.8f, 0.7f);
    assert_vec(s.materials[2].color, 1, 0.8f, 0.4f);
    assert_true(s.materials[2].roughness == 0.2f);
    assert_true(s.materials[3].ior == 1.33f);
    assert_vec(s.materials[3].color, 0.9f, 1, 0.9f);
    assert_vec(s.materials[4].color, 10, 20, 30);

    /* the plane goes to planes, the rest to prims in document order */
    assert_int_equal(s.plane_count, 1);
    assert_int_equal(s.planes[0].kind, SR_PRIM_PLANE);
    assert_int_equal(s.planes[0].material, 0);
    assert_vec(s.planes[0].a, 0, -1, 0);
    assert_vec_near(s.planes[0].b, 0, 0.6f, 0.8f, 1e-7f);
    assert_int_equal(s.prim_count, 3);
    assert_int_equal(s.prims[0].kind, SR_PRIM_SPHERE);
    assert_int_equal(s.prims[0].material, 3);
    assert_vec(s.prims[0].a, 0, 1, 0);
    assert_true(s.prims[0].b.x == 1.5f);
    assert_int_equal(s.prims[1].kind, SR_PRIM_QUAD);
    assert_int_equal(s.prims[1].material, 4);
    assert_vec(s.prims[1].a, -1, 2, -1);
    assert_vec(s.prims[1].b, 2, 0, 0);
    assert_vec(s.prims[1].c, 0, 0, 2);
    assert_int_equal(s.prims[2].kind, SR_PRIM_SPHERE);
    assert_int_equal(s.prims[2].material, 1);

    assert_int_equal(s.light_count, 2);
    assert_int_equal(s.lights[0].kind, SR_LIGHT_POINT);
    assert_vec(s.lights[0].v, 2, 5, 2);
    assert_vec(s.lights[0].power, 100, 50, 25);
    assert_int_equal(s.lights[1].kind, SR_LIGHT_DIRECTIONAL);
    assert_vec(s.lights[1].v, 0, -1, 0);
    assert_vec(s.lights[1].power, 2, 2, 1);
    sr_scene_free(&s);
}

static void test_material_index_follows_order(void **state)
{
    (void)state;
    sr_scene s;
    /* names in reverse alphabetical order: indices still follow the document */
    parse_ok("{" CAM ", 'materials': {'zeta': {'type': 'mirror'}, 'beta': {'type': 'glass'}, 'alpha': {'type': 'metal'}},"
             " 'objects': [{'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'alpha'},"
             " {'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'zeta'},"
             " {'type': 'sphere', 'center': [0, 0, 0], 'radius': 1, 'material': 'beta'}]}", &s);
    assert_int_equal(s.prims[0].material, 2);
    assert_int_equal(s.prims[1].material, 0);
    assert_int_equal(s.prims[2].material, 1);
    assert_string_equal(s.material_names[0], "zeta");
    sr_scene_free(&s);
}

static void test_bom_accepted(void **state)
{
    (void)state;
    char text[TEXT_CAP];
    unsigned long l, c;
    strcpy(text, "\xEF\xBB\xBF");
    prepare("{" CAM ", " MATS ", " OBJS "}", text + 3, sizeof text - 3, &l, &c);
    sr_scene s;
    sr_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(sr_scene_parse("t.json", text, strlen(text), &s, &e), SR_OK);
    sr_scene_free(&s);
    /* and columns do not count it */
    prepare("{@'x': 1}", text + 3, sizeof text - 3, &l, &c);
    assert_int_equal(sr_scene_parse("t.json", text, strlen(text), &s, &e), SR_ERR_INPUT);
    assert_non_null(strstr(e.msg, "t.json:1:2: x: unknown key"));
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
    assert_vec_near(c.origin, 0, 0, 0, 0);
    assert_vec_near(c.horizontal, 8, 0, 0, 1e-5f);
    assert_vec_near(c.vertical, 0, 4, 0, 1e-5f);
    assert_vec_near(c.lower_left, -4, -2, -2, 1e-5f);
    assert_vec_near(c.u, 1, 0, 0, 1e-6f);
    assert_vec_near(c.v, 0, 1, 0, 1e-6f);
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
    assert_vec_near(centre, want.x, want.y, want.z, 1e-4f);
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
        char path[1024];
        sr_test_source_path(path, sizeof path, files[i]);
        sr_scene s;
        sr_error e;
        memset(&e, 0, sizeof e);
        if (sr_scene_load(path, &s, &e) != SR_OK) fail_msg("%s: %s", files[i], e.msg);
        assert_true(s.prim_count + s.plane_count > 0);
        assert_true(s.light_count > 0);
        assert_true(s.width <= 800 && s.height <= 800);
        sr_scene_free(&s);
    }
    char path[1024];
    sr_scene s;
    sr_error e;
    sr_test_source_path(path, sizeof path, "scenes/cornell.json");
    assert_int_equal(sr_scene_load(path, &s, &e), SR_OK);
    assert_int_equal(s.width, 512);
    assert_int_equal(s.height, 512);
    sr_scene_free(&s);
    sr_test_source_path(path, sizeof path, "scenes/mirror_hall.json");
    assert_int_equal(sr_scene_load(path, &s, &e), SR_OK);
    assert_int_equal(s.max_depth, 32);
    sr_scene_free(&s);
    sr_test_source_path(path, sizeof path, "scenes/mesh.json");
    assert_int_equal(sr_scene_load(path, &s, &e), SR_OK);
    assert_true(s.prim_count >= 5000);   /* the torus knot's triangles */
    sr_scene_free(&s);
}

/* The complete example in the README's scene format section stays a valid scene. */
static void test_format_doc_example(void **state)
{
    (void)state;
    char path[1024], name[1024];
    sr_test_source_path(path, sizeof path, "README.md");
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char doc[1 << 20];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    char *section = strstr(doc, "\n## Scene format");
    assert_non_null(section);
    char *start = strstr(section, "```json\n");
    assert_non_null(start);
    start += 8;
    char *end = strstr(start, "```");
    assert_non_null(end);
    sr_scene s;
    sr_error e;
    memset(&e, 0, sizeof e);
    /* named as if it were in scenes/, so its mesh path resolves as the README says */
    sr_test_source_path(name, sizeof name, "scenes/readme-example.json");
    if (sr_scene_parse(name, start, (size_t)(end - start), &s, &e) != SR_OK) fail_msg("%s", e.msg);
    assert_int_equal(s.material_count, 5);
    assert_int_equal(s.plane_count, 1);
    assert_true(s.prim_count > 3);
    assert_int_equal(s.light_count, 2);
    sr_scene_free(&s);
}

static void test_load_errors(void **state)
{
    (void)state;
    sr_scene s;
    sr_error e;
    char path[512];
    memset(&e, 0, sizeof e);
    sr_test_tmp_path(path, sizeof path, "no_such_scene.json");
    assert_int_equal(sr_scene_load(path, &s, &e), SR_ERR_INPUT);
    assert_non_null(strstr(e.msg, path));
    assert_non_null(strstr(e.msg, "cannot read scene file: No such file or directory"));
    assert_true(is_zero(&s, sizeof s));

    sr_test_tmp_path(path, sizeof path, "");
    memset(&e, 0, sizeof e);
    assert_int_equal(sr_scene_load(path, &s, &e), SR_ERR_INPUT);
    assert_non_null(strstr(e.msg, "cannot read scene file: it is a directory"));

    /* a bad file through the loader names the path as given */
    sr_test_write_file(path, sizeof path, "bad_scene.json", "{\n  \"camera\": 5, \"materials\": {}, \"objects\": []\n}\n");
    memset(&e, 0, sizeof e);
    assert_int_equal(sr_scene_load(path, &s, &e), SR_ERR_INPUT);
    char want[600];
    snprintf(want, sizeof want, "%s:2:13: camera: expected an object", path);
    if (strncmp(e.msg, want, strlen(want)) != 0) fail_msg("%s", e.msg);
}

/* Every prefix and many one-byte edits of a good scene: no crash, no leak (under a sanitizer),
 * and every failure is an input error whose message starts with the path. */
static void test_robust_to_damage(void **state)
{
    (void)state;
    static char base[TEXT_CAP], text[TEXT_CAP];
    unsigned long l, c;
    size_t len = prepare("{\n 'camera': {'position': [0, 1, 5], 'look_at': [0, 1, 0], 'up': [0, 1, 0], 'fov': 40},\n"
                         " 'image': {'width': 64, 'height': 36, 'spp': 1, 'max_depth': 4},\n"
                         " 'background': [0.5, 0.7, 1], 'ambient': [0.1, 0.1, 0.1],\n"
                         " 'materials': {'a': {'type': 'diffuse', 'checker': {'color': [0, 0, 0], 'scale': 1}},"
                         " 'b': {'type': 'glass', 'ior': 1.5}},\n"
                         " 'objects': [{'type': 'sphere', 'center': [0, 1, 0], 'radius': 1, 'material': 'b'},\n"
                         "   {'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 1, 0], 'material': 'a'},\n"
                         "   {'type': 'quad', 'corner': [0, 2, 0], 'edge_u': [1, 0, 0], 'edge_v': [0, 0, 1], 'material': 'a'}],\n"
                         " 'lights': [{'type': 'point', 'position': [0, 5, 0], 'intensity': 50}]\n}",
                         base, sizeof base, &l, &c);
    const char subst[] = {'\0', '"', '{', '}', '[', ']', ',', ':', '-', '0', 'x', ' ', '\\', '\n', (char)0xC3};
    size_t failures = 0;
    for (size_t cut = 0; cut <= len; cut++) {
        for (size_t k = 0; k <= sizeof subst; k++) {
            memcpy(text, base, len);
            size_t n = len;
            if (k == sizeof subst) n = cut;              /* a prefix */
            else if (cut < len) text[cut] = subst[k];    /* one byte changed */
            else continue;
            sr_scene s;
            sr_error e;
            memset(&e, 0, sizeof e);
            sr_status st = sr_scene_parse("d.json", text, n, &s, &e);
            if (st == SR_OK) {
                sr_scene_free(&s);
                continue;
            }
            failures++;
            assert_int_equal(st, SR_ERR_INPUT);
            if (strncmp(e.msg, "d.json:", 7) != 0) fail_msg("%s", e.msg);
            assert_true(is_zero(&s, sizeof s));
        }
    }
    assert_true(failures > len);
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

/* ---- path tracing: integrator, sky, emissive surfaces --------------------------------- */

static void test_integrator(void **state)
{
    (void)state;
    sr_scene s;
    parse_ok("{" CAM ", " MATS ", " OBJS "}", &s);
    assert_int_equal(s.integrator, SR_INTEGRATOR_WHITTED);
    assert_int_equal(s.path_flags, 0);
    sr_scene_free(&s);
    parse_ok(SCENE_WITH("'integrator': 'path'"), &s);
    assert_int_equal(s.integrator, SR_INTEGRATOR_PATH);
    sr_scene_free(&s);
    parse_ok(SCENE_WITH("'integrator': 'whitted'"), &s);
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
    parse_ok(SCENE_WITH("'sky': {'zenith': [0.5, 0.7, 1], 'horizon': [1, 1, 1]}"), &s);
    assert_true(s.has_sky);
    assert_vec(s.sky_zenith, 0.5f, 0.7f, 1);
    assert_vec(s.sky_horizon, 1, 1, 1);
    assert_vec(s.sky_ground, 1, 1, 1);   /* defaults to the horizon */
    assert_vec(s.background, 0, 0, 0);
    sr_scene_free(&s);
    parse_ok(SCENE_WITH("'sky': {'ground': [0.1, 0.2, 0.3], 'zenith': [0, 0, 1], 'horizon': [2, 2, 2]}"), &s);
    assert_vec(s.sky_ground, 0.1f, 0.2f, 0.3f);
    sr_scene_free(&s);
    parse_ok(SCENE_WITH("'background': [1, 2, 3]"), &s);
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
    parse_ok(SCENE_MAT("{'type': 'emissive', 'radiance': [4, 3, 2]}"), &s);
    assert_vec(s.materials[0].color, 4, 3, 2);
    assert_vec(s.materials[0].color2, 0, 0, 0);   /* no albedo: a pure emitter */
    assert_int_equal(s.materials[0].two_sided, 0);
    sr_scene_free(&s);
    parse_ok(SCENE_MAT("{'type': 'emissive', 'radiance': [1, 1, 1], 'albedo': [0.5, 0.25, 0.125], 'two_sided': true}"), &s);
    assert_vec(s.materials[0].color2, 0.5f, 0.25f, 0.125f);
    assert_int_equal(s.materials[0].two_sided, 1);
    sr_scene_free(&s);
    parse_ok(SCENE_MAT("{'type': 'emissive', 'radiance': [1, 1, 1], 'two_sided': false}"), &s);
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
        char path[1024];
        sr_test_source_path(path, sizeof path, files[i]);
        sr_scene s;
        sr_error e;
        memset(&e, 0, sizeof e);
        if (sr_scene_load(path, &s, &e) != SR_OK) fail_msg("%s: %s", files[i], e.msg);
        assert_int_equal(s.integrator, SR_INTEGRATOR_PATH);
        assert_true(s.width <= 800 && s.height <= 800);
        sr_scene_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malformed_missing_comma),
        cmocka_unit_test(test_malformed_trailing_comma),
        cmocka_unit_test(test_malformed_truncated),
        cmocka_unit_test(test_malformed_unterminated_string),
        cmocka_unit_test(test_malformed_unquoted_key),
        cmocka_unit_test(test_malformed_comment),
        cmocka_unit_test(test_malformed_nan),
        cmocka_unit_test(test_malformed_single_quotes),
        cmocka_unit_test(test_malformed_bad_escape),
        cmocka_unit_test(test_malformed_trailing_garbage),
        cmocka_unit_test(test_malformed_nul_byte),
        cmocka_unit_test(test_malformed_too_deep),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_top_level_not_object),
        cmocka_unit_test(test_unknown_top_key),
        cmocka_unit_test(test_unknown_camera_key),
        cmocka_unit_test(test_unknown_object_key),
        cmocka_unit_test(test_unknown_material_key),
        cmocka_unit_test(test_unknown_image_and_light_key),
        cmocka_unit_test(test_duplicate_key),
        cmocka_unit_test(test_duplicate_material_name),
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
        cmocka_unit_test(test_mesh_scale_range),
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
        cmocka_unit_test(test_utf8_and_crlf_positions),
        cmocka_unit_test(test_invalid_utf8_refused),
        cmocka_unit_test(test_mesh_missing_file),
        cmocka_unit_test(test_mesh_bad_files),
        cmocka_unit_test(test_mesh_path_relative_to_scene),
        cmocka_unit_test(test_mesh_absolute_path),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_values_mapped),
        cmocka_unit_test(test_material_index_follows_order),
        cmocka_unit_test(test_bom_accepted),
        cmocka_unit_test(test_camera_make),
        cmocka_unit_test(test_shipped_scenes),
        cmocka_unit_test(test_format_doc_example),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_robust_to_damage),
        cmocka_unit_test(test_cli_malformed_scene),
        cmocka_unit_test(test_cli_bad_value),
        cmocka_unit_test(test_cli_unknown_material),
        cmocka_unit_test(test_cli_missing_mesh),
        cmocka_unit_test(test_integrator),
        cmocka_unit_test(test_sky),
        cmocka_unit_test(test_emissive_albedo_two_sided),
        cmocka_unit_test(test_shipped_path_scenes_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
