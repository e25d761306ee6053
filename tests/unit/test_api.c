/* test_api.c: the C library's API (include/stencilray.h): defaults from the scene, JSON errors
 * with line and column, the same float film as `stencilray render --backend cpu`, progress
 * and cancel, and a library that prints nothing (notices go to the log callback). */
#include "testutil.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../include/stencilray.h"
#include "../../src/io/images/image_exr.h"
#include "../../src/render/frame.h"

static sr_context *open_cornell(const sr_context_desc *desc)
{
    char path[4096];
    sr_context *ctx = sr_create(desc);
    assert_non_null(ctx);
    if (sr_load_file(ctx, sr_test_source_path(path, sizeof path, "scenes/cornell.json")) != SR_RESULT_OK)
        fail_msg("%s", sr_last_error(ctx));
    return ctx;
}

/* A zero desc is the scene file's frame; what a desc gives replaces only that. */
static void test_defaults(void **state)
{
    (void)state;
    sr_context *ctx = sr_create(NULL);
    assert_string_equal(sr_last_error(ctx), "");
    assert_int_equal(sr_render(ctx), SR_RESULT_INPUT_ERROR);   /* no scene yet */
    assert_non_null(strstr(sr_last_error(ctx), "no scene is loaded"));
    sr_destroy(ctx);

    ctx = open_cornell(NULL);
    sr_scene scene;
    sr_test_load_shipped("scenes/cornell.json", &scene);
    sr_frame want;
    sr_frame_from_scene(&want, &scene);
    sr_frame_desc got;
    assert_int_equal(sr_get_frame(ctx, &got), SR_RESULT_OK);
    assert_int_equal(got.width, want.width);
    assert_int_equal(got.height, want.height);
    assert_int_equal(got.spp, want.spp);
    assert_int_equal(got.depth, want.depth);
    assert_int_equal(got.integrator, want.integrator == SR_INTEGRATOR_PATH ? SR_INTEGRATOR_KIND_PATH : SR_INTEGRATOR_KIND_WHITTED);
    assert_int_equal(got.mask, SR_MASK_KIND_WAVE);
    assert_int_equal(got.seed, 1);
    assert_true(got.camera.fov == want.camera.vfov_deg);
    assert_memory_equal(got.camera.position, &want.camera.position, sizeof got.camera.position);

    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .width = 40, .depth = 2,
                                                         .camera = { .position = { 0, 1, 5 }, .look_at = { 0, 1, 0 } } }),
                     SR_RESULT_OK);
    assert_int_equal(sr_get_frame(ctx, &got), SR_RESULT_OK);
    assert_int_equal(got.width, 40);
    assert_int_equal(got.height, (uint32_t)lround(40.0 * want.height / want.width));   /* one side keeps the shape */
    assert_int_equal(got.depth, 2);
    assert_int_equal(got.spp, want.spp);
    assert_true(got.camera.position[2] == 5.0f && got.camera.fov == want.camera.vfov_deg);

    /* A bad value is refused, names the field, and leaves the frame as it was. */
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .spp = 70000 }), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "spp 70000"));
    assert_int_equal(sr_get_frame(ctx, &got), SR_RESULT_OK);
    assert_int_equal(got.width, 40);
    sr_scene_free(&scene);
    sr_destroy(ctx);
}

/* A syntax error in JSON text: the input error code and "name:line:column: ...". */
static void test_json_error(void **state)
{
    (void)state;
    sr_context *ctx = sr_create(NULL);
    const char *bad = "{\n  \"camera\": {\"position\": [0, 1, 5],,\n}";
    assert_int_equal(sr_load_json(ctx, bad, 0, "inline.json"), SR_RESULT_INPUT_ERROR);
    const char *msg = sr_last_error(ctx);
    if (!strstr(msg, "inline.json:2:")) fail_msg("no file:line:column in: %s", msg);
    assert_int_equal(sr_render(ctx), SR_RESULT_INPUT_ERROR);   /* the context kept no scene */

    /* Good text loads, and its values are the frame's. */
    const char *good = "{\"camera\": {\"position\": [0, 1, 4], \"look_at\": [0, 0, 0]}, \"image\": {\"width\": 24, "
                       "\"height\": 12}, \"materials\": {\"red\": {\"type\": \"diffuse\", \"albedo\": [1, 0, 0]}}, "
                       "\"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1, \"material\": \"red\"}]}";
    if (sr_load_json(ctx, good, 0, NULL) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    sr_frame_desc f;
    assert_int_equal(sr_get_frame(ctx, &f), SR_RESULT_OK);
    assert_int_equal(f.width, 24);
    assert_int_equal(f.height, 12);
    sr_destroy(ctx);
}

/* The fields the command line's options fill: the whole camera, a glTF camera, the mask's
 * tuning and zeros that mean zero; each out of its range is refused, naming the field. */
static void test_frame_fields(void **state)
{
    (void)state;
    sr_context *ctx = open_cornell(NULL);
    sr_frame_desc got, scene;
    assert_int_equal(sr_get_frame(ctx, &scene), SR_RESULT_OK);
    /* fov alone: the scene camera's place and focus stay */
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .camera = { .fov = 20.0f } }), SR_RESULT_OK);
    assert_int_equal(sr_get_frame(ctx, &got), SR_RESULT_OK);
    assert_true(got.camera.fov == 20.0f);
    assert_memory_equal(got.camera.position, scene.camera.position, sizeof got.camera.position);
    assert_memory_equal(got.camera.look_at, scene.camera.look_at, sizeof got.camera.look_at);
    assert_true(got.camera.focus_distance == scene.camera.focus_distance);
    /* up given: aperture and focus as they are */
    const sr_camera_view lens = { { 0, 1, 5 }, { 0, 1, 0 }, 30.0f, { 1, 0, 0 }, 0.25f, 4.0f };
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .camera = lens }), SR_RESULT_OK);
    assert_int_equal(sr_get_frame(ctx, &got), SR_RESULT_OK);
    assert_memory_equal(&got.camera, &lens, sizeof lens);
    /* what get_frame gives, set again, is the same frame */
    assert_int_equal(sr_set_frame(ctx, &got), SR_RESULT_OK);
    sr_frame_desc again;
    assert_int_equal(sr_get_frame(ctx, &again), SR_RESULT_OK);
    assert_memory_equal(&again, &got, sizeof got);
    /* zeros that mean zero, and the tuning kept */
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .zeros = SR_FRAME_ZERO_SEED | SR_FRAME_ZERO_COMPACT_BELOW,
                                                         .wave_dense = 8, .wave_order = SR_WAVE_ORDER_KIND_SLOWEST,
                                                         .sort = SR_SORT_KIND_RADIX,
                                                         .sort_key = SR_SORT_KEY_KIND_MATERIAL }),
                     SR_RESULT_OK);
    assert_int_equal(sr_get_frame(ctx, &got), SR_RESULT_OK);
    assert_int_equal(got.seed, 0);
    assert_true(got.compact_below == 0.0f);
    assert_int_equal(got.wave_dense, 8);
    assert_int_equal(got.wave_order, SR_WAVE_ORDER_KIND_SLOWEST);
    assert_int_equal(got.sort, SR_SORT_KIND_RADIX);
    assert_int_equal(got.sort_key, SR_SORT_KEY_KIND_MATERIAL);
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ 0 }), SR_RESULT_OK);
    assert_int_equal(sr_get_frame(ctx, &got), SR_RESULT_OK);
    assert_int_equal(got.seed, 1);
    assert_true(got.compact_below == 0.1f);
    /* refused, naming the field */
    static const struct { sr_frame_desc d; const char *names; } bad[] = {
        { { .wave_dense = 33 }, "wave_dense 33" },
        { { .compact_below = 1.5f }, "compact_below 1.5" },
        { { .sort = (sr_sort_kind)7 }, "sort 7" },
        { { .camera = { .fov = 180.0f } }, "camera.fov" },
        { { .camera = { .up = { 0, 1, 0 }, .aperture = -1.0f } }, "aperture -1" },
        { { .gltf_camera = 1 }, "sr_frame_desc.gltf_camera index 0: " },
        { { .camera = { .position = { 0, 1, 5 }, .look_at = { 0, 1, 0 }, .up = { 0, 0, 1 } } }, "sr_frame_desc.camera: up" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sr_set_frame(ctx, &bad[i].d), SR_RESULT_INPUT_ERROR);
        if (!strstr(sr_last_error(ctx), bad[i].names)) fail_msg("case %zu: %s", i, sr_last_error(ctx));
    }
    assert_non_null(strstr(sr_last_error(ctx), "parallel"));
    sr_destroy(ctx);
}

/* Several workers (a device list) give the one worker's film, and the last render's numbers
 * say what ran: the samples, the workers and their shares, the rays. */
typedef struct tick_seen { int calls, finals; uint64_t last, total; } tick_seen;

static void on_tick(void *user, uint64_t done, uint64_t total, double seconds, int final)
{
    tick_seen *t = (tick_seen *)user;
    (void)seconds;
    t->calls++;
    t->finals += final;
    t->last = done;
    t->total = total;
}

static void test_devices_and_stats(void **state)
{
    (void)state;
    tick_seen ticks = { 0, 0, 0, 0 };
    sr_context *ctx = open_cornell(&(sr_context_desc){ .tick = on_tick, .tick_user = &ticks });
    sr_frame_stats st;
    assert_int_equal(sr_get_frame_stats(ctx, &st), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "no render has run"));
    const sr_frame_desc one = { .width = 24, .height = 16, .spp = 40, .depth = 3, .device = SR_DEVICE_KIND_CPU };
    assert_int_equal(sr_set_frame(ctx, &one), SR_RESULT_OK);
    if (sr_render(ctx) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    float *a = malloc(sizeof(float) * 24 * 16 * 3), *b = malloc(sizeof(float) * 24 * 16 * 3);
    assert_int_equal(sr_read_pixels(ctx, a, 24 * 16 * 3, 3), SR_RESULT_OK);
    assert_int_equal(sr_get_frame_stats(ctx, &st), SR_RESULT_OK);
    assert_int_equal(st.workers, 1);
    assert_int_equal(st.samples, 40);
    assert_int_equal(st.kind, SR_DEVICE_KIND_CPU);
    assert_true(st.rays > 0 && st.worker[0].samples == 40 && st.device[0] != '\0');
    assert_int_equal(ticks.finals, 1);   /* the tick: the samples' progress, once final */
    assert_true(ticks.last == 40 && ticks.total == 40);

    char list[] = "cpu,cpu";
    sr_frame_desc two = one;
    two.devices = list;
    assert_int_equal(sr_set_frame(ctx, &two), SR_RESULT_OK);
    list[0] = 'x';   /* the context keeps its own copy */
    if (sr_render(ctx) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    assert_int_equal(sr_read_pixels(ctx, b, 24 * 16 * 3, 3), SR_RESULT_OK);
    assert_memory_equal(a, b, sizeof(float) * 24 * 16 * 3);
    assert_int_equal(sr_get_frame_stats(ctx, &st), SR_RESULT_OK);
    assert_int_equal(st.workers, 2);
    assert_int_equal(st.worker[0].samples + st.worker[1].samples, 40);
    assert_int_equal(st.pass_samples * (st.worker[0].passes + st.worker[1].passes), 40);
    if (sr_render(ctx) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));   /* the workers stay open */
    assert_int_equal(sr_get_frame_stats(ctx, &st), SR_RESULT_OK);
    assert_true(st.build_s == 0.0 && st.upload_s == 0.0);

    sr_frame_desc bad = one;
    bad.devices = "0,x";
    assert_int_equal(sr_set_frame(ctx, &bad), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "sr_frame_desc.devices '0,x': 'x' is not a device"));
    assert_int_equal(sr_get_frame_stats(ctx, NULL), SR_RESULT_INPUT_ERROR);
    free(a);
    free(b);
    sr_destroy(ctx);
}

/* The scene's facts, and a frame of its camera_path: the camera `render --frames` draws. */
static void test_scene_info_and_path_frame(void **state)
{
    (void)state;
    char path[4096];
    sr_context *ctx = sr_create(NULL);
    sr_scene_info info;
    assert_int_equal(sr_get_scene_info(ctx, &info), SR_RESULT_INPUT_ERROR);   /* no scene */
    assert_non_null(strstr(sr_last_error(ctx), "no scene is loaded"));
    if (sr_load_file(ctx, sr_test_source_path(path, sizeof path, "scenes/orbit.json")) != SR_RESULT_OK)
        fail_msg("%s", sr_last_error(ctx));
    assert_int_equal(sr_get_scene_info(ctx, NULL), SR_RESULT_INPUT_ERROR);
    assert_int_equal(sr_get_scene_info(ctx, &info), SR_RESULT_OK);
    sr_scene scene;
    sr_test_load_shipped("scenes/orbit.json", &scene);
    assert_int_equal(info.path_keys, scene.camera_path_count);
    assert_true(info.path_keys >= 2);
    assert_int_equal(info.path_first, scene.camera_path[0].frame);
    assert_int_equal(info.path_last, scene.camera_path[scene.camera_path_count - 1].frame);
    assert_int_equal(info.gltf_cameras, 0);
    assert_int_equal(info.lights, scene.light_count);
    assert_int_equal(info.width, scene.width);
    assert_true(info.primitives > 0);
    const uint32_t k = (info.path_first + info.path_last) / 2u;
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .path_frame = k + 1u }), SR_RESULT_OK);
    sr_frame_desc got;
    assert_int_equal(sr_get_frame(ctx, &got), SR_RESULT_OK);
    const sr_camera_desc want = sr_camera_at_frame(&scene, k);
    assert_memory_equal(got.camera.position, &want.position, sizeof got.camera.position);
    assert_memory_equal(got.camera.look_at, &want.look_at, sizeof got.camera.look_at);
    assert_true(got.camera.fov == want.vfov_deg);
    sr_scene_free(&scene);
    /* a scene without a camera_path refuses a path frame */
    sr_destroy(ctx);
    ctx = open_cornell(NULL);
    assert_int_equal(sr_get_scene_info(ctx, &info), SR_RESULT_OK);
    assert_int_equal(info.path_keys, 0);
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .path_frame = 1 }), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "has no \"camera_path\"; sr_frame_desc.path_frame renders"));
    sr_destroy(ctx);
}

/* The load's progress: every mesh file told up to 1; a nonzero answer stops the load. */
typedef struct load_seen { int calls, stop; double last; char file[256]; } load_seen;

static int on_load(void *user, const char *file, double fraction)
{
    load_seen *l = (load_seen *)user;
    l->calls++;
    l->last = fraction;
    snprintf(l->file, sizeof l->file, "%s", file);
    return l->stop;
}

static void test_load_progress(void **state)
{
    (void)state;
    char path[4096];
    sr_test_source_path(path, sizeof path, "scenes/mesh.json");
    load_seen seen = { 0, 0, 0.0, "" };
    sr_context *ctx = sr_create(&(sr_context_desc){ .load_progress = on_load, .load_user = &seen });
    if (sr_load_file(ctx, path) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    assert_true(seen.calls >= 1);
    assert_true(seen.last == 1.0);
    assert_non_null(strstr(seen.file, "torus_knot.obj"));
    seen = (load_seen){ 0, 1, 0.0, "" };
    assert_int_equal(sr_load_file(ctx, path), SR_RESULT_CANCELLED);
    assert_int_equal(seen.calls, 1);
    assert_int_equal(sr_render(ctx), SR_RESULT_INPUT_ERROR);   /* no scene kept */
    sr_destroy(ctx);
}

/* With the handlers installed, a SIGINT stops the render between samples: cancelled, with the
 * samples done in the film; after sr_stop_clear the next render runs whole. */
static int raise_after_first(void *user, uint32_t done, uint32_t total)
{
    (void)user, (void)total;
    if (done > 0 && !sr_stop_requested()) raise(SIGINT);
    return 0;
}

static void test_stop_on_signals(void **state)
{
    (void)state;
    assert_int_equal(sr_stop_on_signals(), SR_RESULT_OK);
    assert_int_equal(sr_stop_requested(), 0);
    sr_context *ctx = open_cornell(NULL);
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .width = 16, .height = 8, .spp = 64, .depth = 2,
                                                         .device = SR_DEVICE_KIND_CPU }), SR_RESULT_OK);
    assert_int_equal(sr_render_progress(ctx, raise_after_first, NULL), SR_RESULT_CANCELLED);
    assert_int_equal(sr_stop_requested(), SIGINT);
    uint32_t samples = 0;
    sr_film_size(ctx, NULL, NULL, &samples);
    assert_true(samples > 0 && samples < 64);
    sr_stop_clear();
    assert_int_equal(sr_stop_requested(), 0);
    if (sr_render(ctx) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    sr_film_size(ctx, NULL, NULL, &samples);
    assert_int_equal(samples, 64);
    sr_destroy(ctx);
}

/* Text written whole or not at all; file names made valid UTF-8 for JSON. */
static void test_write_text_and_utf8(void **state)
{
    (void)state;
    char path[4096], msg[512];
    sr_test_tmp_path(path, sizeof path, "api_text.json");
    unlink(path);
    assert_int_equal(sr_write_text(path, "{}\nrest", 3, msg, sizeof msg), SR_RESULT_OK);
    char *back = sr_test_read_text(path);
    assert_string_equal(back, "{}\n");
    free(back);
    assert_int_equal(sr_write_text("/nonexistent-folder/x.json", "{}", 2, msg, sizeof msg), SR_RESULT_RUNTIME_ERROR);
    assert_non_null(strstr(msg, "/nonexistent-folder/x.json"));
    assert_false(sr_test_file_exists("/nonexistent-folder/x.json"));
    assert_int_equal(sr_write_text(NULL, "{}", 2, msg, sizeof msg), SR_RESULT_INPUT_ERROR);
    char out[16];
    assert_int_equal(sr_text_utf8("a\xff" "b\xc3\xa9", out, sizeof out), 7);
    assert_string_equal(out, "a\xef\xbf\xbd" "b\xc3\xa9");
    assert_int_equal(sr_text_utf8("a\xff" "b", out, 3), 5);   /* U+FFFD does not fit: cut before it */
    assert_string_equal(out, "a");
    assert_int_equal(sr_text_utf8("abc", NULL, 0), 3);
}

/* A quick step runs through when no stop comes; a stop during one ends the program at once
 * with 128 + the signal and its one line on stderr. */
static void test_stop_quick(void **state)
{
    (void)state;
    assert_int_equal(sr_stop_on_signals(), SR_RESULT_OK);
    sr_stop_quick_begin("testing");
    sr_stop_quick_end();
    char capture[4096];
    sr_test_tmp_path(capture, sizeof capture, "api_quick_stderr.txt");
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const int fd = open(capture, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 2) < 0) _exit(99);
        if (!sr_stop_can_report()) _exit(98);   /* a file takes a line without waiting */
        raise(SIGTERM);   /* asked before the step: the step ends the program at its begin */
        sr_stop_quick_begin("testing");
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 128 + SIGTERM);
    char *printed = sr_test_read_text(capture);
    assert_non_null(strstr(printed, "interrupted (SIGTERM) while testing; nothing written"));
    free(printed);
}

/* An output is checked before any work, and a scene that reads it is refused as it loads. */
static void test_output_files(void **state)
{
    (void)state;
    char mesh[4096], scene[4096], partial[4096], msg[512], text[8192];
    sr_test_tmp_path(mesh, sizeof mesh, "api_out_mesh.obj");
    sr_test_write_uv_sphere(mesh, 8, 4, 0, 0);
    snprintf(text, sizeof text, "{\"camera\": {\"position\": [0, 0, 5], \"look_at\": [0, 0, 0], \"fov\": 40},"
             " \"image\": {\"width\": 8, \"height\": 8, \"spp\": 1, \"max_depth\": 1},"
             " \"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.5, 0.5, 0.5]}},"
             " \"objects\": [{\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"m\"}], \"lights\": []}", mesh);
    sr_test_write_file(scene, sizeof scene, "api_out_scene.json", text);
    /* the check: an input, a missing folder, standard output only where allowed */
    const char *inputs[] = { scene, NULL };
    assert_int_equal(sr_output_check("-o", scene, 0, inputs, msg, sizeof msg), 0);
    assert_non_null(strstr(msg, "-o "));
    assert_int_equal(sr_output_check("-o", "/nonexistent-folder/x.png", 0, NULL, msg, sizeof msg), 0);
    assert_non_null(strstr(msg, "does not exist"));
    assert_int_equal(sr_output_check("-o", "-", 0, NULL, msg, sizeof msg), 0);
    assert_int_equal(sr_output_check("--stats", "-", 1, NULL, msg, sizeof msg), 1);
    assert_int_equal(sr_output_check(NULL, "x.png", 0, NULL, msg, sizeof msg), 0);
    /* one file under two names */
    assert_int_equal(sr_output_same_file(scene, scene), 1);
    assert_int_equal(sr_output_same_file("x.png", "./x.png"), 1);
    assert_int_equal(sr_output_same_file(scene, mesh), 0);
    /* the partial image's name, refused rather than cut */
    assert_int_equal(sr_output_partial_name("out/c.png", 54, partial, sizeof partial), SR_RESULT_OK);
    assert_string_equal(partial, "out/c.partial-54spp.png");
    assert_int_equal(sr_output_partial_name("out/c.png", 54, partial, 10), SR_RESULT_INPUT_ERROR);
    /* the guard: the scene loads until its mesh is an output */
    sr_context *ctx = sr_create(NULL);
    assert_non_null(ctx);
    if (sr_load_file(ctx, scene) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    sr_output_guard("--stats", mesh);
    assert_int_equal(sr_load_file(ctx, scene), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "--stats"));
    sr_destroy(ctx);
}

/* Messages name the fields as the context's names say: a command line's options. */
static void test_field_names(void **state)
{
    (void)state;
    const sr_field_names opts = { .camera = "--camera", .camera_text = "0,1,5,0,1,0", .gltf_camera = "--camera-index",
                                  .size = "", .path_frame = "--frames", .path_text = "2-3", .devices = "--device" };
    sr_context *ctx = open_cornell(&(sr_context_desc){ .names = opts });
    static const struct { sr_frame_desc d; const char *says; } bad[] = {
        { { .camera = { .position = { 0, 1, 5 }, .look_at = { 0, 1, 0 }, .up = { 0, 0, 1 } } }, "--camera 0,1,5,0,1,0: up [0, 0, 1] is parallel" },
        { { .gltf_camera = 3 }, "--camera-index 2: " },
        { { .path_frame = 1 }, "has no \"camera_path\"; --frames renders the frames of one" },
        { { .devices = "0,x" }, "--device '0,x': 'x' is not a device" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sr_set_frame(ctx, &bad[i].d), SR_RESULT_INPUT_ERROR);
        if (strncmp(sr_last_error(ctx), bad[i].says, strlen(bad[i].says)) && !strstr(sr_last_error(ctx), bad[i].says))
            fail_msg("case %zu: %s", i, sr_last_error(ctx));
    }
    sr_destroy(ctx);
}

/* An exposure of 0 saves black when asked (zeros), 1 otherwise; one process is rank 0 of 1,
 * and its stats say so. */
static void test_save_zeros_and_one_rank(void **state)
{
    (void)state;
    assert_int_equal(sr_mpi_rank(), 0);
    assert_int_equal(sr_mpi_size(), 1);
    assert_int_equal(sr_mpi_agree(2), 2);
    sr_context *ctx = open_cornell(NULL);
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .width = 8, .height = 8, .spp = 2, .device = SR_DEVICE_KIND_CPU }),
                     SR_RESULT_OK);
    if (sr_render(ctx) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    sr_frame_stats st;
    assert_int_equal(sr_get_frame_stats(ctx, &st), SR_RESULT_OK);
    assert_int_equal(st.ranks, 1);
    assert_true(st.reduce_s == 0.0);
    char black[4096], lit[4096];
    sr_test_tmp_path(black, sizeof black, "api_black.exr");
    sr_test_tmp_path(lit, sizeof lit, "api_lit.exr");
    assert_int_equal(sr_save(ctx, black, &(sr_save_desc){ .exr_float = 1, .zeros = SR_SAVE_ZERO_EXPOSURE }), SR_RESULT_OK);
    assert_int_equal(sr_save(ctx, lit, &(sr_save_desc){ .exr_float = 1 }), SR_RESULT_OK);
    float *a = NULL, *b = NULL;
    uint32_t w, h;
    sr_error e = { SR_OK, "" };
    if (sr_exr_read(black, 64, 0, &a, &w, &h, &e) || sr_exr_read(lit, 64, 0, &b, &w, &h, &e)) fail_msg("%s", e.msg);
    float sum_a = 0.0f, sum_b = 0.0f;
    for (uint32_t i = 0; i < w * h * 3; i++) {
        sum_a += a[i];
        sum_b += b[i];
    }
    assert_true(sum_a == 0.0f && sum_b > 0.0f);
    free(a);
    free(b);
    sr_destroy(ctx);
}

/* The memory check before anything is allocated, and the workers opened ahead of the render,
 * whose set-up the first render's numbers then hold. */
static void test_check_and_prepare(void **state)
{
    (void)state;
    sr_context *ctx = sr_create(NULL);
    assert_int_equal(sr_check_frame(ctx, NULL), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "sr_check_frame: no scene is loaded"));
    assert_int_equal(sr_prepare(ctx), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "sr_prepare: no scene is loaded"));
    sr_destroy(ctx);
    ctx = open_cornell(NULL);
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .width = 64, .height = 64, .spp = 2, .device = SR_DEVICE_KIND_CPU }),
                     SR_RESULT_OK);
    /* 64 CPU workers at 16384x16384 need terabytes on any machine: refused, nothing opened */
    char many[64 * 4];
    size_t used = 0;
    for (int i = 0; i < 64; i++) used += (size_t)snprintf(many + used, sizeof many - used, "%scpu", i ? "," : "");
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .width = 16384, .height = 16384, .spp = 1, .devices = many,
                                                         .device = SR_DEVICE_KIND_CPU }), SR_RESULT_OK);
    assert_int_equal(sr_check_frame(ctx, NULL), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "memory"));
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .width = 64, .height = 64, .spp = 2, .device = SR_DEVICE_KIND_CPU }),
                     SR_RESULT_OK);
    assert_int_equal(sr_check_frame(ctx, "out.png"), SR_RESULT_OK);
    assert_int_equal(sr_prepare(ctx), SR_RESULT_OK);
    if (sr_render(ctx) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    sr_frame_stats st;
    assert_int_equal(sr_get_frame_stats(ctx, &st), SR_RESULT_OK);
    assert_true(st.build_s > 0.0);   /* the prepare's, counted in the first render */
    if (sr_render(ctx) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    assert_int_equal(sr_get_frame_stats(ctx, &st), SR_RESULT_OK);
    assert_true(st.build_s == 0.0);
    sr_destroy(ctx);
}

/* The build's facts `stencilray info` prints, every string filled. */
static void test_build_info(void **state)
{
    (void)state;
    assert_int_equal(sr_get_build_info(NULL), SR_RESULT_INPUT_ERROR);
    sr_build_info bi;
    memset(&bi, 0xff, sizeof bi);
    assert_int_equal(sr_get_build_info(&bi), SR_RESULT_OK);
    assert_string_equal(bi.version, sr_version());
    assert_true(bi.cpu_threads >= 1);
    assert_true(bi.cuda_built == 0 || bi.cuda_built == 1);
    const char *strings[] = { bi.compiler, bi.data_dir, bi.data_looked_in, bi.cuda_devices, bi.kernel_loading,
                              bi.cjson, bi.assimp, bi.openexr };
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) assert_non_null(strings[i]);
    assert_true(bi.data_dir[0] != '\0');   /* the source tree's, in the build */
    assert_true(bi.cuda_devices[0] != '\0');   /* the devices, or why there are none */
}

/* The API's film is the CLI's float EXR of the same scene and settings, bit for bit. */
static void test_same_as_cli(void **state)
{
    (void)state;
    char scene[4096], exr[4096], saved[4096], err[4096];
    sr_test_source_path(scene, sizeof scene, "scenes/cornell.json");
    sr_test_tmp_path(exr, sizeof exr, "api_cli.exr");
    const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "40", "--height", "24", "--spp", "3",
                           "--depth", "3", "--seed", "5", "--exr-type", "float", "-q", "-o", exr, NULL };
    if (sr_test_run_cli(argv, err, sizeof err) != 0) fail_msg("render: %s", err);
    float *cli = NULL;
    uint32_t w = 0, h = 0;
    sr_error e = { SR_OK, "" };
    if (sr_exr_read(exr, 64, 0, &cli, &w, &h, &e)) fail_msg("%s", e.msg);
    assert_int_equal(w, 40);
    assert_int_equal(h, 24);

    sr_context *ctx = open_cornell(NULL);
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .width = 40, .height = 24, .spp = 3, .depth = 3, .seed = 5,
                                                         .device = SR_DEVICE_KIND_CPU }),
                     SR_RESULT_OK);
    if (sr_render(ctx) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    uint32_t fw, fh, samples;
    sr_film_size(ctx, &fw, &fh, &samples);
    assert_int_equal(fw, 40);
    assert_int_equal(fh, 24);
    assert_int_equal(samples, 3);
    float *rgb = malloc(sizeof(float) * 40 * 24 * 4);
    assert_int_equal(sr_read_pixels(ctx, rgb, 40 * 24 * 3 - 1, 3), SR_RESULT_INPUT_ERROR);   /* too small */
    assert_int_equal(sr_read_pixels(ctx, rgb, 40 * 24 * 3, 3), SR_RESULT_OK);
    assert_memory_equal(rgb, cli, sizeof(float) * 40 * 24 * 3);
    assert_int_equal(sr_read_pixels(ctx, rgb, 40 * 24 * 4, 4), SR_RESULT_OK);
    for (int i = 0; i < 40 * 24; i++) {
        assert_memory_equal(rgb + 4 * i, cli + 3 * i, sizeof(float) * 3);
        assert_true(rgb[4 * i + 3] == 1.0f);
    }
    /* Another size, then this one again: the same bits (a resize keeps the scene's upload). */
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .width = 20, .height = 12, .spp = 1, .device = SR_DEVICE_KIND_CPU }),
                     SR_RESULT_OK);
    assert_int_equal(sr_render(ctx), SR_RESULT_OK);
    sr_film_size(ctx, &fw, &fh, &samples);
    assert_true(fw == 20 && fh == 12 && samples == 1);
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .width = 40, .height = 24, .spp = 3, .depth = 3, .seed = 5,
                                                         .device = SR_DEVICE_KIND_CPU }),
                     SR_RESULT_OK);
    assert_int_equal(sr_render(ctx), SR_RESULT_OK);
    assert_int_equal(sr_read_pixels(ctx, rgb, 40 * 24 * 3, 3), SR_RESULT_OK);
    assert_memory_equal(rgb, cli, sizeof(float) * 40 * 24 * 3);
    /* Saved through the same writer: the same file. */
    sr_test_tmp_path(saved, sizeof saved, "api_saved.exr");
    assert_int_equal(sr_save(ctx, saved, &(sr_save_desc){ .exr_float = 1 }), SR_RESULT_OK);
    sr_test_assert_same_file(saved, exr);
    assert_int_equal(sr_save(ctx, "out.tiff", NULL), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "out.tiff"));
    free(rgb);
    free(cli);
    sr_destroy(ctx);
}

typedef struct progress_log {
    uint32_t done[64], total[64];
    int calls, cancel_at;
} progress_log;

static int on_progress(void *user, uint32_t done, uint32_t total)
{
    progress_log *p = user;
    if (p->calls < 64) {
        p->done[p->calls] = done;
        p->total[p->calls] = total;
    }
    p->calls++;
    return p->cancel_at && (int)done >= p->cancel_at;
}

/* The callback sees the samples done rise to spp; returning nonzero stops the render early
 * with SR_RESULT_CANCELLED and the mean of the samples done in the film. */
static void test_progress_and_cancel(void **state)
{
    (void)state;
    sr_context *ctx = open_cornell(NULL);
    assert_int_equal(sr_set_frame(ctx, &(sr_frame_desc){ .width = 16, .height = 8, .spp = 6, .depth = 2,
                                                         .device = SR_DEVICE_KIND_CPU }),
                     SR_RESULT_OK);
    progress_log all = { .calls = 0 };
    assert_int_equal(sr_render_progress(ctx, on_progress, &all), SR_RESULT_OK);
    assert_true(all.calls >= 2 && all.calls <= 64);
    assert_int_equal(all.done[0], 0);
    for (int i = 1; i < all.calls; i++) assert_true(all.done[i] > all.done[i - 1]);
    assert_int_equal(all.done[all.calls - 1], 6);
    assert_int_equal(all.total[0], 6);

    progress_log some = { .cancel_at = 2 };
    assert_int_equal(sr_render_progress(ctx, on_progress, &some), SR_RESULT_CANCELLED);
    assert_non_null(strstr(sr_last_error(ctx), "cancelled"));
    uint32_t samples = 0;
    sr_film_size(ctx, NULL, NULL, &samples);
    assert_true(samples >= 2 && samples < 6);
    assert_int_equal(some.done[some.calls - 1], samples);
    float rgb[16 * 8 * 3];
    assert_int_equal(sr_read_pixels(ctx, rgb, 16 * 8 * 3, 3), SR_RESULT_OK);   /* the samples done */
    sr_destroy(ctx);
}

typedef struct log_lines { int notices; char first[512]; } log_lines;

static void on_log(void *user, sr_log_level level, const char *message)
{
    log_lines *l = user;
    if (level == SR_LOG_NOTICE && !l->notices++) snprintf(l->first, sizeof l->first, "%s", message);
}

/* Notices go to the log callback; without one, and on error paths, nothing is printed. */
static void test_log_not_stderr(void **state)
{
    (void)state;
    char capture[4096], png[4096];
    sr_test_tmp_path(capture, sizeof capture, "api_stderr.txt");
    sr_test_tmp_path(png, sizeof png, "api_quiet.png");
    fflush(stderr);
    fflush(stdout);
    const int saved_err = dup(2), saved_out = dup(1);
    const int fd = open(capture, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0 && saved_err >= 0 && saved_out >= 0);
    dup2(fd, 2);
    dup2(fd, 1);

    log_lines lines = { 0, "" };
    const sr_frame_desc small = { .width = 8, .height = 4, .spp = 1, .device = SR_DEVICE_KIND_CPU };
    sr_context *logged = open_cornell(&(sr_context_desc){ .log = on_log, .log_user = &lines });
    const sr_result r1 = sr_set_frame(logged, &small), r2 = sr_render(logged), r3 = sr_save(logged, png, NULL);
    sr_context *quiet = open_cornell(NULL);
    const sr_result r4 = sr_set_frame(quiet, &small), r5 = sr_render(quiet);
    const sr_result r6 = sr_load_json(quiet, "{", 0, "broken.json");
    const sr_result r7 = sr_save(logged, "/nonexistent-folder/x.png", NULL);   /* a write that fails */

    fflush(stderr);
    fflush(stdout);
    dup2(saved_err, 2);
    dup2(saved_out, 1);
    close(fd);
    close(saved_err);
    close(saved_out);
    assert_int_equal(r1, SR_RESULT_OK);
    assert_int_equal(r2, SR_RESULT_OK);
    assert_int_equal(r3, SR_RESULT_OK);
    assert_int_equal(r4, SR_RESULT_OK);
    assert_int_equal(r5, SR_RESULT_OK);
    assert_int_equal(r6, SR_RESULT_INPUT_ERROR);
    assert_int_not_equal(r7, SR_RESULT_OK);
    char *printed = sr_test_read_text(capture);
    assert_non_null(printed);
    if (printed[0]) fail_msg("the library printed: %s", printed);
    free(printed);
    assert_true(lines.notices >= 1);
    if (!strstr(lines.first, "CPU backend")) fail_msg("first notice: %s", lines.first);
    assert_true(sr_test_file_exists(png));
    sr_destroy(logged);
    sr_destroy(quiet);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_json_error),
        cmocka_unit_test(test_frame_fields),
        cmocka_unit_test(test_build_info),
        cmocka_unit_test(test_field_names),
        cmocka_unit_test(test_check_and_prepare),
        cmocka_unit_test(test_save_zeros_and_one_rank),
        cmocka_unit_test(test_load_progress),
        cmocka_unit_test(test_stop_on_signals),
        cmocka_unit_test(test_scene_info_and_path_frame),
        cmocka_unit_test(test_devices_and_stats),
        cmocka_unit_test(test_same_as_cli),
        cmocka_unit_test(test_progress_and_cancel),
        cmocka_unit_test(test_log_not_stderr),
        cmocka_unit_test(test_output_files),
        cmocka_unit_test(test_stop_quick),
        cmocka_unit_test(test_write_text_and_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
