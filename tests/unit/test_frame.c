/* test_frame.c: frame settings have one owner. The renderer is prepared once (the BVH, the
 * uploads) and takes the frame with every call: a new size reallocates only what depends on
 * the size, and the image is the one a renderer prepared at that size makes, bit for bit; so
 * are a new depth, camera, integrator and spp. The options change the frame, never the
 * scene: sr_open leaves the scene as the file has it. On the CPU backend. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "../../src/render/bvh.h"
#include "../../src/render/render.h"
#include "../../src/render/frame.h"
#include "../../src/app/options.h"

/* Mirrors, a diffuse sphere and a light: every bounce does something. */
static const char *scene_json =
    "{\"camera\":{\"position\":[0,0.5,5],\"look_at\":[0,0,0],\"fov\":35},"
    " \"image\":{\"width\":32,\"height\":24,\"spp\":2,\"max_depth\":4},"
    " \"background\":[0.2,0.3,0.5],"
    " \"materials\":{\"m\":{\"type\":\"mirror\",\"reflectance\":[0.9,0.6,0.3]},"
    "                \"d\":{\"type\":\"diffuse\",\"albedo\":[0.6,0.6,0.6]}},"
    " \"lights\":[{\"type\":\"point\",\"position\":[2,3,4],\"intensity\":30}],"
    " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"m\"},"
    "             {\"type\":\"sphere\",\"center\":[1.3,0.6,-1.2],\"radius\":0.7,\"material\":\"d\"},"
    "             {\"type\":\"plane\",\"point\":[0,-1,0],\"normal\":[0,1,0],\"material\":\"d\"}]}";

static void ok(sr_status s, const sr_error *err)
{
    if (s) fail_msg("%s", err->msg);
}

static float *render_with(sr_renderer *r, const sr_frame *f)
{
    sr_error err = { SR_OK, "" };
    float *rgb = malloc(sizeof(float) * 3u * f->width * f->height);
    assert_non_null(rgb);
    ok(sr_render_image(r, f, rgb, NULL, &err), &err);
    return rgb;
}

/* The image of frame f from a renderer prepared for it alone. */
static float *render_fresh(const sr_scene *scene, const sr_frame *f)
{
    sr_error err = { SR_OK, "" };
    sr_backend be;
    sr_renderer r;
    ok(sr_backend_create(SR_BACKEND_CPU, 0, &be, NULL, 0, &err), &err);
    ok(sr_renderer_prepare(&r, scene, &be, f, &err), &err);
    float *rgb = render_with(&r, f);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    return rgb;
}

static void expect_same(const char *what, const float *a, const float *b, const sr_frame *f)
{
    if (memcmp(a, b, sizeof(float) * 3u * f->width * f->height))
        fail_msg("%s: the image differs from a renderer prepared for %ux%u, depth %u", what, f->width, f->height,
                 f->depth);
}

static void test_resize_keeps_the_bvh(void **state)
{
    (void)state;
    sr_scene scene;
    sr_test_parse("frame.json", scene_json, &scene);
    sr_frame f;
    sr_frame_from_scene(&f, &scene);
    assert_int_equal(f.width, 32);
    assert_int_equal(f.height, 24);
    assert_int_equal(f.depth, 4);
    f.render.mask = SR_MASK_COMPACT;   /* the pool's halves and compaction see the new size */
    f.render.compact_below = 1.0f;
    sr_error err = { SR_OK, "" };
    sr_backend be;
    sr_renderer r;
    ok(sr_backend_create(SR_BACKEND_CPU, 0, &be, NULL, 0, &err), &err);
    const uint32_t builds = sr_bvh_builds();
    ok(sr_renderer_prepare(&r, &scene, &be, &f, &err), &err);
    assert_int_equal(sr_bvh_builds(), builds + 1u);
    float *small = render_with(&r, &f);

    f.width = 48;   /* the viewer's resize: the same renderer, the frame's new size */
    f.height = 40;
    float *large = render_with(&r, &f);
    assert_int_equal(sr_bvh_builds(), builds + 1u);   /* nothing built again */
    assert_int_equal(be.state->view.width, 48);
    assert_int_equal(be.state->capacity, 48u * 40u);
    float *fresh = render_fresh(&scene, &f);
    expect_same("48x40 after 32x24", large, fresh, &f);
    free(fresh);

    /* Back to the first size, and the other masks over the resized pool. */
    f.width = 32;
    f.height = 24;
    float *again = render_with(&r, &f);
    expect_same("32x24 again", again, small, &f);
    const sr_mask masks[] = { SR_MASK_WAVE, SR_MASK_STENCIL, SR_MASK_FLAGS, SR_MASK_MEGAKERNEL };
    f.width = 40;
    f.height = 33;   /* tiles overhang the bottom edge */
    float *ref = render_fresh(&scene, &f);
    for (size_t k = 0; k < sizeof masks / sizeof masks[0]; k++) {
        f.render.mask = masks[k];
        float *img = render_with(&r, &f);
        expect_same(sr_mask_name(masks[k]), img, ref, &f);
        free(img);
    }
    assert_int_equal(sr_bvh_builds(), builds + 3u);   /* prepare and the two fresh renderers: no other */
    free(ref);
    free(again);
    free(large);
    free(small);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    sr_scene_free(&scene);
}

/* Depth, camera, integrator and spp change with the frame, on a renderer prepared once. */
static void test_frame_settings_change(void **state)
{
    (void)state;
    sr_scene scene;
    sr_test_parse("frame.json", scene_json, &scene);
    sr_frame f;
    sr_frame_from_scene(&f, &scene);
    sr_error err = { SR_OK, "" };
    sr_backend be;
    sr_renderer r;
    ok(sr_backend_create(SR_BACKEND_CPU, 0, &be, NULL, 0, &err), &err);
    ok(sr_renderer_prepare(&r, &scene, &be, &f, &err), &err);
    const uint32_t builds = sr_bvh_builds();
    for (int k = 0; k < 4; k++) {
        switch (k) {
        case 0: f.depth = 1; break;
        case 1: f.depth = 7; f.camera.position = (sr_vec3){ 1.5f, 1.0f, 4.0f }; break;
        case 2: f.integrator = SR_INTEGRATOR_PATH; f.spp = 3; break;
        default: f.camera.vfov_deg = 60.0f; f.render.seed = 9; break;
        }
        float *img = render_with(&r, &f);
        float *fresh = render_fresh(&scene, &f);
        expect_same("a changed frame", img, fresh, &f);
        free(img);
        free(fresh);
    }
    assert_int_equal(sr_bvh_builds(), builds + 4u);   /* one per fresh renderer only */
    /* A frame the renderer cannot run is refused before anything is launched. */
    f.depth = SR_MAX_DEPTH + 1u;
    assert_int_equal(sr_render_sample(&r, &f, 0, NULL, &err), SR_ERR_INPUT);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    sr_scene_free(&scene);
}

/* Options fill the frame; the scene stays as the file has it. */
static void test_options_leave_the_scene(void **state)
{
    (void)state;
    char path[1024];
    sr_test_source_path(path, sizeof path, "scenes/cornell.json");
    char *argv[] = { "stencilray", "render", "--depth", "3", "--width", "20", "--spp", "5", "--integrator", "path",
                     "--camera", "0,1,4,0,1,0", "--backend", "cpu", "-q", path };
    const int argc = (int)(sizeof argv / sizeof argv[0]);
    sr_args a = { argc, 2, argv, "render" };
    sr_common c;
    sr_common_default(&c);
    for (; a.i < argc; a.i++) assert_int_equal(sr_parse_common(&a, &c), 0);
    sr_scene scene, file;
    sr_backend be;
    assert_int_equal(sr_open(&c, "render", &scene, &be), 0);
    sr_error err = { SR_OK, "" };
    ok(sr_scene_load(path, &file, &err), &err);
    /* The scene as parsed. */
    assert_int_equal(scene.max_depth, file.max_depth);
    assert_int_equal(scene.width, file.width);
    assert_int_equal(scene.height, file.height);
    assert_int_equal(scene.spp, file.spp);
    assert_int_equal(scene.integrator, file.integrator);
    assert_memory_equal(&scene.camera, &file.camera, sizeof scene.camera);
    assert_int_not_equal(file.max_depth, 3);
    /* The frame: the options, and the file's values for the rest. */
    assert_int_equal(c.frame.depth, 3);
    assert_int_equal(c.frame.width, 20);
    assert_int_equal(c.frame.height, (uint32_t)lround(20.0 * file.height / file.width));   /* --width alone keeps the shape */
    assert_int_equal(c.frame.spp, 5);
    assert_int_equal(c.frame.integrator, SR_INTEGRATOR_PATH);
    assert_true(c.frame.camera.position.z == 4.0f && c.frame.camera.look_at.y == 1.0f);
    assert_memory_equal(&c.frame.camera.up, &file.camera.up, sizeof file.camera.up);   /* the short form keeps up */
    sr_scene_free(&file);
    sr_backend_destroy(&be);
    sr_scene_free(&scene);
}

/* The options fill the public desc field by field, and the command's frame is the library's
 * sr_frame_build of it (the one function the API builds its frames with too). */
static void test_options_fill_the_desc(void **state)
{
    (void)state;
    char path[1024];
    sr_test_source_path(path, sizeof path, "scenes/cornell.json");
    char *argv[] = { "stencilray", "render", "--width", "30", "--height", "20", "--spp", "2", "--depth", "4",
                     "--integrator", "whitted", "--mask", "compact", "--seed", "0", "--compact-below", "0",
                     "--sort", "merge", "--sort-key", "material", "--backend", "cpu", "--exposure", "0",
                     "--tonemap", "aces", "--camera", "0,1,4,0,1,0,35,1,0,0,0.5,3", "-q", path };
    const int argc = (int)(sizeof argv / sizeof argv[0]);
    sr_args a = { argc, 2, argv, "render" };
    sr_common c;
    sr_common_default(&c);
    for (; a.i < argc; a.i++) assert_int_equal(sr_parse_common(&a, &c), 0);
    const sr_frame_desc want = {
        .camera = { { 0, 1, 4 }, { 0, 1, 0 }, 35.0f, { 1, 0, 0 }, 0.5f, 3.0f },
        .width = 30, .height = 20, .spp = 2, .depth = 4, .integrator = SR_INTEGRATOR_KIND_WHITTED,
        .mask = SR_MASK_KIND_COMPACT, .device = SR_DEVICE_KIND_CPU, .sort = SR_SORT_KIND_MERGE,
        .sort_key = SR_SORT_KEY_KIND_MATERIAL, .zeros = SR_FRAME_ZERO_SEED | SR_FRAME_ZERO_COMPACT_BELOW,
    };
    assert_memory_equal(&c.ask, &want, sizeof want);
    assert_true(c.exposure == 0.0f && c.tonemap == SR_TONEMAP_KIND_ACES);
    sr_scene scene;
    assert_int_equal(sr_open_scene(&c, "render", &scene), 0);
    sr_frame built;
    sr_error err = { SR_OK, "" };
    ok(sr_frame_build(&scene, &want, NULL, &built, &err), &err);
    built.exposure = 0.0f;
    built.tonemap = SR_TONEMAP_ACES;
    assert_memory_equal(&c.frame, &built, sizeof built);
    assert_int_equal(built.render.mask, SR_MASK_COMPACT);
    assert_int_equal(built.render.seed, 0);
    assert_true(built.render.compact_below == 0.0f);
    assert_true(built.camera.aperture == 0.5f && built.camera.focus_distance == 3.0f && built.camera.up.x == 1.0f);
    sr_scene_free(&scene);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resize_keeps_the_bvh),
        cmocka_unit_test(test_frame_settings_change),
        cmocka_unit_test(test_options_leave_the_scene),
        cmocka_unit_test(test_options_fill_the_desc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
