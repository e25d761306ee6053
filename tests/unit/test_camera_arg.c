/* A camera saved in the viewer comes back exactly: the --camera argument and the JSON camera
 * object read back bit for bit (through the --camera parser and through the scene parser);
 * `render --camera` with the scene's own camera gives the very same PNG, another camera
 * another one; a bad --camera is exit 2 with a message naming the argument and what is
 * expected, and nothing written. */
#include "testutil.h"
#include "hardutil.h"
#include "../../src/settings/camera_arg.h"
#include "../../src/scene/scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Field by field: memcmp of the whole struct would compare padding too. */
static void assert_same_camera(const sr_camera_desc *a, const sr_camera_desc *b, const char *text)
{
    const float x[12] = { a->position.x, a->position.y, a->position.z, a->look_at.x, a->look_at.y, a->look_at.z,
                          a->up.x, a->up.y, a->up.z, a->vfov_deg, a->aperture, a->focus_distance };
    const float y[12] = { b->position.x, b->position.y, b->position.z, b->look_at.x, b->look_at.y, b->look_at.z,
                          b->up.x, b->up.y, b->up.z, b->vfov_deg, b->aperture, b->focus_distance };
    for (int k = 0; k < 12; k++)
        if (memcmp(&x[k], &y[k], sizeof x[k]) != 0)
            fail_msg("field %d: %.9g became %.9g through '%s'", k, (double)x[k], (double)y[k], text);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t next_u32(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 32);
}

/* A float with random mantissa bits and sign, magnitude 2^-20 .. 2^20: every digit counts. */
static float random_float(void)
{
    const float m = 1.0f + (float)(next_u32() >> 9) / 8388608.0f;
    return (next_u32() & 1u ? -1.0f : 1.0f) * ldexpf(m, (int)(next_u32() % 41u) - 20);
}

/* The same within 1/8 .. 8. */
static float moderate_float(void)
{
    const float m = 1.0f + (float)(next_u32() >> 9) / 8388608.0f;
    return (next_u32() & 1u ? -1.0f : 1.0f) * ldexpf(m, (int)(next_u32() % 7u) - 3);
}

/* Valid cameras: random ones, and a few with the awkward values (-0, a subnormal, 1/3). */
static int make_cameras(sr_camera_desc *out, int cap)
{
    int n = 0;
    sr_camera_desc c;
    memset(&c, 0, sizeof c);
    c.position = sr_v3(-0.0f, 1.0f / 3.0f, 6.5f);
    c.look_at = sr_v3(0.0f, 0.9f, 1e-40f);
    c.up = sr_v3(0.0f, 1.0f, 0.0f);
    c.vfov_deg = 179.99998f;
    c.aperture = 1e-40f;
    c.focus_distance = 0.0f;
    out[n++] = c;
    c.position = sr_v3(5e15f, -2e-30f, 16777217.0f);   /* 9e15 apart: within SR_CAMERA_DIST_MAX */
    c.look_at = sr_v3(-4e15f, 0.1f, 0.2f);
    c.up = sr_v3(0.0f, 0.0f, -1.0f);
    c.vfov_deg = 1e-6f;
    c.aperture = 0.3f;
    c.focus_distance = 12.25f;
    out[n++] = c;
    while (n < cap) {
        c.position = sr_v3(random_float(), random_float(), random_float());
        c.look_at = sr_v3(random_float(), random_float(), random_float());
        c.up = sr_v3(moderate_float(), moderate_float(), moderate_float());   /* never near parallel */
        c.vfov_deg = 0.5f + (float)(next_u32() % 17800u) / 100.0f + fabsf(random_float()) * 1e-9f;
        c.aperture = fabsf(random_float());
        c.focus_distance = fabsf(random_float());
        out[n++] = c;
    }
    return n;
}

static void test_argument_round_trip(void **state)
{
    (void)state;
    static sr_camera_desc cams[2000];
    const int n = make_cameras(cams, 2000);
    for (int i = 0; i < n; i++) {
        char text[256], why[256];
        assert_true(sr_camera_arg_format(&cams[i], text, sizeof text) > 0);
        sr_camera_arg arg;
        if (!sr_camera_arg_parse(text, &arg, why, sizeof why)) fail_msg("'%s': %s", text, why);
        assert_int_equal(arg.count, 12);
        sr_camera_desc back;   /* a different camera before: the 12-number form sets every field */
        memset(&back, 0, sizeof back);
        back.up = sr_v3(1.0f, 0.0f, 0.0f);
        back.vfov_deg = 40.0f;
        if (!sr_camera_arg_apply(&arg, &back, why, sizeof why)) fail_msg("'%s': %s", text, why);
        assert_same_camera(&cams[i], &back, text);
        if (i == 0) printf("  e.g. --camera %s\n", text);
    }
    /* A buffer too small is refused, not cut short. */
    char tiny[16];
    assert_int_equal(sr_camera_arg_format(&cams[0], tiny, sizeof tiny), -1);
}

static void test_json_round_trip(void **state)
{
    (void)state;
    static sr_camera_desc cams[500];
    const int n = make_cameras(cams, 500);
    for (int i = 0; i < n; i++) {
        char obj[384], json[1024];
        assert_true(sr_camera_json_format(&cams[i], obj, sizeof obj) > 0);
        snprintf(json, sizeof json,
                 "{\"camera\": %s, \"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.5, 0.5, 0.5]}},"
                 " \"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1, \"material\": \"m\"}]}",
                 obj);
        sr_scene s;
        sr_test_parse("camera.json", json, &s);
        assert_same_camera(&cams[i], &s.camera, obj);
        sr_scene_free(&s);
        if (i == 0) printf("  e.g. \"camera\": %s\n", obj);
    }
}

/* The short forms keep what they do not name and refocus on the new look-at point. */
static void test_short_forms(void **state)
{
    (void)state;
    sr_camera_desc c;
    memset(&c, 0, sizeof c);
    c.up = sr_v3(0.0f, 0.0f, 1.0f);
    c.vfov_deg = 30.0f;
    c.aperture = 0.2f;
    c.focus_distance = 5.0f;
    sr_camera_arg a;
    char why[256];
    assert_true(sr_camera_arg_parse("1,2,3,0,0.5,0", &a, why, sizeof why));
    assert_int_equal(a.count, 6);
    sr_camera_desc d = c;
    assert_true(sr_camera_arg_apply(&a, &d, why, sizeof why));
    assert_true(d.position.x == 1.0f && d.position.y == 2.0f && d.position.z == 3.0f && d.look_at.y == 0.5f);
    assert_true(d.vfov_deg == 30.0f && d.up.z == 1.0f && d.aperture == 0.2f && d.focus_distance == 0.0f);
    assert_true(sr_camera_arg_parse("1,2,3,0,0.5,0,55", &a, why, sizeof why));
    d = c;
    assert_true(sr_camera_arg_apply(&a, &d, why, sizeof why));
    assert_true(d.vfov_deg == 55.0f && d.up.z == 1.0f);
    /* Looking straight down the kept up vector is refused, and leaves the camera as it was. */
    assert_true(sr_camera_arg_parse("0,0,5,0,0,0", &a, why, sizeof why));
    d = c;
    assert_false(sr_camera_arg_apply(&a, &d, why, sizeof why));
    assert_non_null(strstr(why, "parallel"));
    assert_true(d.position.x == 0.0f && d.vfov_deg == 30.0f && d.focus_distance == 5.0f);
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("%s: cannot open", path);
    unsigned char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

static void render_to(const char *scene, const char *camera, const char *out)
{
    const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "48", "--height", "27", "--spp", "2", "-q",
                           "-o", out, camera ? "--camera" : NULL, camera, NULL };
    sr_child c;
    const int code = sr_hard_run(&c, argv, NULL, 300.0);
    if (code) fail_msg("exit %d: %s", code, c.err);
}

static void test_render_with_the_scenes_own_camera(void **state)
{
    (void)state;
    char scene_path[1024], dir[1024], a[1100], b[1100], moved[1100], arg[256];
    sr_test_source_path(scene_path, sizeof scene_path, "scenes/cornell.json");
    sr_hard_fresh_dir(dir, sizeof dir, "camera_arg");
    snprintf(a, sizeof a, "%s/scene.png", dir);
    snprintf(b, sizeof b, "%s/arg.png", dir);
    snprintf(moved, sizeof moved, "%s/moved.png", dir);
    sr_scene s;
    sr_test_load_shipped("scenes/cornell.json", &s);
    assert_true(sr_camera_arg_format(&s.camera, arg, sizeof arg) > 0);
    render_to(scene_path, NULL, a);
    render_to(scene_path, arg, b);
    s.camera.position.x += 0.05f * (s.camera.look_at.z - s.camera.position.z);   /* a step sideways */
    assert_true(sr_camera_arg_format(&s.camera, arg, sizeof arg) > 0);
    render_to(scene_path, arg, moved);
    sr_scene_free(&s);
    size_t la, lb, lm;
    unsigned char *pa = read_all(a, &la), *pb = read_all(b, &lb), *pm = read_all(moved, &lm);
    assert_true(la > 8 && memcmp(pa, "\x89PNG", 4) == 0);
    assert_int_equal(la, lb);
    assert_memory_equal(pa, pb, la);
    assert_true(la != lm || memcmp(pa, pm, la) != 0);
    free(pa);
    free(pb);
    free(pm);
}

static void test_bad_camera(void **state)
{
    (void)state;
    char scene_path[1024], dir[1024], out[1100];
    sr_test_source_path(scene_path, sizeof scene_path, "scenes/default.json");
    sr_hard_fresh_dir(dir, sizeof dir, "camera_bad");
    snprintf(out, sizeof out, "%s/never.png", dir);
    static const struct { const char *arg, *says; } bad[] = {
        { "1,2,3", "expected 6, 7 or 12 comma-separated numbers PX,PY,PZ,LX,LY,LZ[,FOV[,UX,UY,UZ,APERTURE,FOCUS]]; got 3" },
        { "1,2,3,4,5,6,7,8", "got 8" },
        { "1,2,3,4,5,6,7,8,9,10,11,12,13", "got more than 12" },
        { "1,2,x,4,5,6", "number 3 is not a finite number" },
        { "1,2,3,4,5,inf", "number 6 is not a finite number" },
        { "1,2,3,4,5,6,", "number 7 is not a finite number" },
        { "1,2,3,1,2,3", "the look-at point (numbers 4-6) must differ from the position" },
        /* they differ, but their difference overflows a float, or its square does */
        { "3e38,0,0,-3e38,0,0", "the look-at point (numbers 4-6) is 6e+38 from the position (numbers 1-3); "
                                "expected at most 1e+16 apart" },
        { "0,0,2e16,0,0,0", "is 2e+16 from the position" },
        { "0,1,5,0,1,0,180", "the field of view (number 7) must be greater than 0 and less than 180" },
        { "0,1,5,0,1,0,179.999999", "less than 180 degrees as a float (the camera is built in float), got 180" },
        { "0,1,5,0,1,0,40,0,0,0,0,0", "the up vector (numbers 8-10) must not be zero" },
        { "0,1,5,0,1,0,40,0,1,0,-1,0", "the aperture and the focus distance (numbers 11 and 12) must be 0 or more" },
        { "0,5,0,0,0,0", "up [0, 1, 0] is parallel to the view direction" },   /* the scene's up */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const char *cmds[] = { "render", "bench" };
        for (int m = 0; m < 2; m++) {
            const char *argv[] = { cmds[m], scene_path, "--backend", "cpu", "--camera", bad[k].arg, "-o", out, "-q",
                                   NULL };
            if (m == 1) argv[6] = NULL;   /* bench writes no image */
            char err[4096], want[256];
            const int code = sr_test_run_cli(argv, err, sizeof err);
            snprintf(want, sizeof want, "stencilray %s: --camera %s: ", cmds[m], bad[k].arg);
            if (code != 2 || !strstr(err, want) || !strstr(err, bad[k].says))
                fail_msg("%s --camera %s: exit %d, expected 2 and '%s...%s'; got:\n%s", cmds[m], bad[k].arg, code, want,
                         bad[k].says, err);
        }
    }
    assert_int_equal(sr_hard_count_files(dir), 0);
#ifdef SR_HAVE_VIEWER
    /* The viewer's script takes the same form, checked before any window opens. */
    char err[4096];
    const char *view[] = { "view", scene_path, "--script", "camera=1,2,3;frames=1", NULL };
    assert_int_equal(sr_test_run_cli(view, err, sizeof err), 2);
    if (!strstr(err, "camera=1,2,3: expected 6, 7 or 12")) fail_msg("%s", err);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_argument_round_trip),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_short_forms),
        cmocka_unit_test(test_render_with_the_scenes_own_camera),
        cmocka_unit_test(test_bad_camera),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
