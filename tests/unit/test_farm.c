/* test_farm.c: a frame spread over several workers (src/farm) is the same image as one
 * worker; the fixed-point film sum does not depend on the order of its passes; camera paths
 * and render --frames (the right frames, resuming, changed settings refused, bad patterns refused). */
#include "testutil.h"
#include "../../src/farm/farm.h"
#include "../../src/farm/film_sum.h"
#include "../../src/app/sequence.h"
#include "../../src/scene/scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* render SCENE --backend cpu with a small frame and the extra arguments, to out. */
static void render(const char *scene_rel, const char *device, const char *out, const char *integrator, const char *spp)
{
    char scene[4096], err[8192];
    sr_test_source_path(scene, sizeof scene, scene_rel);
    const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "40", "--height", "30", "--spp", spp,
                           "--integrator", integrator, "-q", "-o", out, device ? "--device" : NULL, device, NULL };
    const int code = sr_test_run_cli(argv, err, sizeof err);
    if (code != 0) fail_msg("render %s --device %s exited %d: %s", scene_rel, device ? device : "-", code, err);
}

static void test_workers_give_the_same_bytes(void **state)
{
    (void)state;
    static const char *const lists[] = { "0,0", "0,0,0" };
    static const char *const exts[] = { "png", "exr" };
    for (int integrator = 0; integrator < 2; integrator++) {
        const char *name = integrator ? "path" : "whitted";
        const char *spp = integrator ? "257" : "5";   /* 257: passes of 2 samples, the last of 1 */
        for (int e = 0; e < 2; e++) {
            char one[512], many[512], file[64];
            snprintf(file, sizeof file, "farm_one_%s.%s", name, exts[e]);
            sr_test_tmp_path(one, sizeof one, file);
            render("scenes/cornell_path.json", NULL, one, name, spp);
            for (int k = 0; k < 2; k++) {
                snprintf(file, sizeof file, "farm_%d_%s.%s", k + 2, name, exts[e]);
                sr_test_tmp_path(many, sizeof many, file);
                render("scenes/cornell_path.json", lists[k], many, name, spp);
                sr_test_assert_same_file(one, many);
            }
        }
    }
}

static void test_pass_sizes(void **state)
{
    (void)state;
    assert_int_equal(sr_farm_pass_samples(1), 1);
    assert_int_equal(sr_farm_pass_count(1), 1);
    assert_int_equal(sr_farm_pass_samples(SR_FARM_TARGET_PASSES), 1);
    assert_int_equal(sr_farm_pass_samples(1024), 4);
    assert_int_equal(sr_farm_pass_count(1024), 256);
    assert_int_equal(sr_farm_pass_count(257), 129);   /* passes of 2, the last of 1 */
    assert_int_equal(sr_farm_pass_samples(4096), 16);
    assert_int_equal(sr_farm_pass_samples(65536), SR_FARM_MAX_PASS_SAMPLES);
    assert_int_equal(sr_farm_pass_count(65536), 65536 / SR_FARM_MAX_PASS_SAMPLES);
}

static void test_film_sum_any_order(void **state)
{
    (void)state;
    enum { N = 300, PASSES = 7 };
    static float pass[PASSES][N];
    srand(5);
    for (int p = 0; p < PASSES; p++)
        for (int i = 0; i < N; i++) pass[p][i] = (float)rand() / (float)RAND_MAX * (i % 3 ? 1.0f : 1e4f) * (p + 1);
    pass[3][7] = 0.0f / 0.0f;   /* a NaN counts 0 */
    pass[4][8] = 1e30f;         /* clamped */
    sr_error err;
    sr_film_sum in_order, reversed, a, b;
    assert_int_equal(sr_film_sum_init(&in_order, N, &err), SR_OK);
    assert_int_equal(sr_film_sum_init(&reversed, N, &err), SR_OK);
    assert_int_equal(sr_film_sum_init(&a, N, &err), SR_OK);
    assert_int_equal(sr_film_sum_init(&b, N, &err), SR_OK);
    for (int p = 0; p < PASSES; p++) sr_film_sum_add_pass(&in_order, pass[p], 2);
    for (int p = PASSES - 1; p >= 0; p--) sr_film_sum_add_pass(&reversed, pass[p], 2);
    for (int p = 0; p < PASSES; p++) sr_film_sum_add_pass(p % 3 == 1 ? &a : &b, pass[p], 2);
    sr_film_sum_merge(&b, &a);   /* two workers' sums, merged */
    assert_memory_equal(in_order.v, reversed.v, sizeof(int64_t) * N);
    assert_memory_equal(in_order.v, b.v, sizeof(int64_t) * N);
    assert_int_equal(b.samples, 2 * PASSES);
    assert_int_equal(b.passes, PASSES);
    float mean[N];
    sr_film_sum_mean(&in_order, mean);
    double want = 0.0;
    for (int p = 0; p < PASSES; p++) want += pass[p][1];
    assert_true(fabs(mean[1] - want / (2 * PASSES)) <= 1e-6 * fabs(want / (2 * PASSES)) + 1e-7);
    assert_true(mean[7] == mean[7]);   /* not NaN */
    sr_film_sum_free(&in_order);
    sr_film_sum_free(&reversed);
    sr_film_sum_free(&a);
    sr_film_sum_free(&b);
}

/* Workers' sums reused without a clear (sr_film_sum_reset) and merged in one sweep give the
 * bits of one sum of every pass; a sum with no passes adds nothing, whatever its memory. */
static void test_film_sum_reset_and_merge_all(void **state)
{
    (void)state;
    enum { N = 257, PASSES = 9, WORKERS = 3 };
    static float pass[PASSES][N];
    srand(11);
    for (int p = 0; p < PASSES; p++)
        for (int i = 0; i < N; i++) pass[p][i] = (float)rand() / (float)RAND_MAX * (float)(i + 1);
    sr_error err;
    sr_film_sum one, frame, w[WORKERS + 1];
    assert_int_equal(sr_film_sum_init(&one, N, &err), SR_OK);
    assert_int_equal(sr_film_sum_init(&frame, N, &err), SR_OK);
    for (int p = 0; p < PASSES; p++) sr_film_sum_add_pass(&one, pass[p], 3);
    for (int k = 0; k <= WORKERS; k++) {
        assert_int_equal(sr_film_sum_init(&w[k], N, &err), SR_OK);
        memset(w[k].v, 0x5a, sizeof(int64_t) * N);   /* last frame's sums */
        sr_film_sum_reset(&w[k]);
    }
    for (int p = 0; p < PASSES; p++) sr_film_sum_add_pass(&w[p % WORKERS], pass[p], 3);
    /* w[WORKERS] took no pass: left out of the merge */
    const sr_film_sum *all[WORKERS + 1] = { &w[0], &w[1], &w[2], &w[3] };
    memset(frame.v, 0x33, sizeof(int64_t) * N);
    sr_film_sum_reset(&frame);   /* no passes yet: the merge stores */
    sr_film_sum_merge_all(&frame, all, WORKERS + 1);
    assert_memory_equal(frame.v, one.v, sizeof(int64_t) * N);
    assert_int_equal(frame.passes, PASSES);
    assert_int_equal(frame.samples, 3 * PASSES);
    sr_film_sum_merge_all(&frame, all, 1);   /* a second merge adds */
    assert_int_equal(frame.passes, PASSES + 3);
    assert_true(frame.v[5] == one.v[5] + w[0].v[5]);
    sr_film_sum_free(&one);
    sr_film_sum_free(&frame);
    for (int k = 0; k <= WORKERS; k++) sr_film_sum_free(&w[k]);
}

static void test_device_lists(void **state)
{
    (void)state;
    sr_worker_spec s[SR_FARM_MAX_WORKERS];
    uint32_t n = 0;
    char msg[512];
    assert_int_equal(sr_farm_parse_devices("0,2,3", SR_BACKEND_AUTO, 4, NULL, s, &n, msg, sizeof msg), 0);
    assert_int_equal(n, 3);
    assert_int_equal(s[1].device, 2);
    assert_int_equal(s[1].kind, SR_BACKEND_CUDA);
    assert_int_equal(sr_farm_parse_devices("all,cpu", SR_BACKEND_AUTO, 2, NULL, s, &n, msg, sizeof msg), 0);
    assert_int_equal(n, 3);
    assert_int_equal(s[2].kind, SR_BACKEND_CPU);
    assert_int_equal(sr_farm_parse_devices("0,0", SR_BACKEND_CPU, -1, NULL, s, &n, msg, sizeof msg), 0);
    assert_int_equal(n, 2);
    assert_int_equal(s[0].kind, SR_BACKEND_CPU);
    assert_int_equal(sr_farm_parse_devices("0,,1", SR_BACKEND_AUTO, 2, NULL, s, &n, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "empty"));
    assert_int_equal(sr_farm_parse_devices("0,x", SR_BACKEND_AUTO, 2, NULL, s, &n, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "'x' is not a device"));
    assert_int_equal(sr_farm_parse_devices("5", SR_BACKEND_AUTO, 2, NULL, s, &n, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "no CUDA device 5"));
    assert_int_equal(sr_farm_parse_devices("all", SR_BACKEND_AUTO, -1, "no driver", s, &n, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "no driver"));
    assert_int_equal(sr_farm_parse_devices("cpu", SR_BACKEND_CUDA, 1, NULL, s, &n, msg, sizeof msg), -1);
    assert_int_equal(sr_farm_parse_devices("all,all", SR_BACKEND_AUTO, SR_FARM_COUNT_UNKNOWN, NULL, s, &n, msg,
                                           sizeof msg), 0);   /* the form alone */
    assert_int_equal(n, 2);
    /* on the CLI: exit 2 naming the option */
    char err[4096];
    const char *argv[] = { "render", "--device", "0,-1", NULL };
    assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
    assert_non_null(strstr(err, "--device"));
}

static void test_frame_patterns(void **state)
{
    (void)state;
    char msg[512], name[64];
    assert_int_equal(sr_frame_pattern_check("out_%04d.png", msg, sizeof msg), 0);
    assert_int_equal(sr_frame_pattern_name("out_%04d.png", 7, name, sizeof name), 0);
    assert_string_equal(name, "out_0007.png");
    assert_int_equal(sr_frame_pattern_name("a%02d/b.exr", 123, name, sizeof name), 0);
    assert_string_equal(name, "a123/b.exr");
    static const char *const bad[] = { "out.png", "out_%d.png", "out_%4d.png", "%04d_%04d.png", "%s%04d.png",
                                       "out_%04d%%.png", "out_%04x.png", "%n%04d.png", "%0d.png", "x%" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (sr_frame_pattern_check(bad[i], msg, sizeof msg) == 0) fail_msg("pattern %s accepted", bad[i]);
    uint32_t a, b;
    assert_int_equal(sr_frames_parse("3-9", &a, &b, msg, sizeof msg), 0);
    assert_int_equal(a, 3);
    assert_int_equal(b, 9);
    assert_int_equal(sr_frames_parse("4", &a, &b, msg, sizeof msg), 0);
    assert_int_equal(b, 4);
    static const char *const bad_ranges[] = { "9-3", "-3", "3-", "a-b", "1-2-3", " 1-2", "1 - 2", "99999999" };
    for (size_t i = 0; i < sizeof bad_ranges / sizeof bad_ranges[0]; i++)
        if (sr_frames_parse(bad_ranges[i], &a, &b, msg, sizeof msg) == 0) fail_msg("range %s accepted", bad_ranges[i]);
}

static void test_camera_path(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse_ok("{ \"camera\": { \"position\": [0, 0, 5], \"look_at\": [0, 0, 0], \"fov\": 30 },\n"
                     "  \"camera_path\": [ { \"frame\": 10, \"position\": [0, 0, 10], \"look_at\": [0, 0, 0] },\n"
                     "                    { \"frame\": 20, \"position\": [10, 0, 10], \"look_at\": [0, 2, 0], \"fov\": 50 } ],\n"
                     "  \"materials\": {\"m\": {\"type\": \"diffuse\"}}, \"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], "
                     "\"radius\": 1, \"material\": \"m\"}] }", &s);
    assert_int_equal(s.camera_path_count, 2);
    sr_camera_desc d = sr_camera_at_frame(&s, 0);   /* held before the first keyframe */
    sr_test_assert_vec(d.position, 0, 0, 10);
    assert_true(d.vfov_deg == 30.0f);               /* the camera's fov is the default */
    d = sr_camera_at_frame(&s, 15);
    sr_test_assert_vec(d.position, 5, 0, 10);
    sr_test_assert_vec(d.look_at, 0, 1, 0);
    assert_true(d.vfov_deg == 40.0f);
    d = sr_camera_at_frame(&s, 99);                 /* held after the last */
    sr_test_assert_vec(d.position, 10, 0, 10);
    assert_true(d.vfov_deg == 50.0f);
    sr_scene_free(&s);
    sr_test_expect_scene_err("{ \"camera\": { \"position\": [0, 0, 5], \"look_at\": [0, 0, 0] },\n"
                             "  \"camera_path\": [ { \"frame\": 4, \"position\": [0, 0, 1], \"look_at\": [0, 0, 0] },\n"
                             "    { \"frame\": @4, \"position\": [0, 0, 2], \"look_at\": [0, 0, 0] } ],\n"
                             "  \"materials\": {}, \"objects\": [] }",
                             "camera_path[1].frame", "increasing frame order", NULL);
    sr_test_expect_scene_err("{ \"camera\": { \"position\": [0, 0, 5], \"look_at\": [0, 0, 0] },\n"
                             "  \"camera_path\": [ { \"frame\": 4, \"position\": [0, 0, 1], \"look_at\": @[0, 0, 1] } ],\n"
                             "  \"materials\": {}, \"objects\": [] }",
                             "camera_path[0].look_at", "equals the keyframe's position", NULL);
    sr_test_expect_scene_err("{ \"camera\": { \"position\": [0, 0, 5], \"look_at\": [0, 0, 0] },\n"
                             "  \"camera_path\": [ @{ \"frame\": 4, \"position\": [0, 0, 1] } ],\n"
                             "  \"materials\": {}, \"objects\": [] }",
                             "camera_path[0]", "look_at", NULL);
    sr_test_expect_scene_err("{ \"camera\": { \"position\": [0, 0, 5], \"look_at\": [0, 0, 0] },\n"
                             "  \"camera_path\": @[],\n  \"materials\": {}, \"objects\": [] }",
                             "camera_path", "expected 1 to", NULL);
}

static void test_frames_render_and_resume(void **state)
{
    (void)state;
    char scene[4096], pattern[512], name[600], err[16384];
    sr_test_source_path(scene, sizeof scene, "scenes/orbit.json");
    sr_test_tmp_path(pattern, sizeof pattern, "seq_%03d.png");
    for (int k = 0; k < 8; k++) {
        snprintf(name, sizeof name, pattern, k);
        unlink(name);
    }
    const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "24", "--height", "24", "--spp", "2",
                           "--frames", "2-5", "-o", pattern, NULL };
    assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 0);
    for (int k = 0; k < 8; k++) {
        snprintf(name, sizeof name, pattern, k);
        assert_int_equal(sr_test_file_exists(name), k >= 2 && k <= 5);
    }
    /* Frames differ: the camera moves. */
    size_t n2, n5;
    char f2[600], f5[600];
    snprintf(f2, sizeof f2, pattern, 2);
    snprintf(f5, sizeof f5, pattern, 5);
    unsigned char *b2 = sr_test_read_bytes(f2, &n2), *b5 = sr_test_read_bytes(f5, &n5);
    assert_true(n2 != n5 || memcmp(b2, b5, n2) != 0);
    free(b2);
    free(b5);
    /* Frame 3 as one frame of its own (--frames 3) is the same image. */
    char single[512];
    sr_test_tmp_path(single, sizeof single, "seq_single_%03d.png");
    snprintf(name, sizeof name, single, 3);
    unlink(name);   /* an earlier run's frame would be kept (resuming), not rendered again */
    const char *one[] = { "render", scene, "--backend", "cpu", "--width", "24", "--height", "24", "--spp", "2",
                          "--frames", "3", "-o", single, "--device", "0,0", NULL };
    assert_int_equal(sr_test_run_cli(one, err, sizeof err), 0);
    char s3[600], f3[600];
    snprintf(s3, sizeof s3, single, 3);
    snprintf(f3, sizeof f3, pattern, 3);
    sr_test_assert_same_file(s3, f3);
    /* Resuming: a frame written already is kept as it is (here: a marker), a missing one made. */
    FILE *m = fopen(f3, "w");
    assert_non_null(m);
    fputs("marker", m);
    fclose(m);
    unlink(f5);
    assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 0);
    assert_non_null(strstr(err, "3 of the frames 2-5 are written already"));
    char *t = sr_test_read_text(f3);
    assert_non_null(t);
    assert_string_equal(t, "marker");
    free(t);
    assert_true(sr_test_file_exists(f5));
    /* Bad patterns and ranges: exit 2, nothing written. */
    static const char *const bad[] = { "bad_%d.png", "bad_%03d_%03d.png", "bad_%s_%03d.png", "bad.png", "bad_%03d%%.png" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char p[512];
        sr_test_tmp_path(p, sizeof p, bad[i]);
        const char *b[] = { "render", scene, "--backend", "cpu", "--frames", "0-1", "-o", p, NULL };
        const int code = sr_test_run_cli(b, err, sizeof err);
        if (code != 2) fail_msg("-o %s: exit %d, expected 2: %s", p, code, err);
        assert_non_null(strstr(err, "%0Nd"));
    }
    const char *range[] = { "render", scene, "--backend", "cpu", "--frames", "5-2", "-o", pattern, NULL };
    assert_int_equal(sr_test_run_cli(range, err, sizeof err), 2);
    assert_non_null(strstr(err, "--frames"));
    char plain[4096];
    sr_test_source_path(plain, sizeof plain, "scenes/cornell.json");
    const char *nopath[] = { "render", plain, "--backend", "cpu", "--frames", "0-1", "-o", pattern, NULL };
    assert_int_equal(sr_test_run_cli(nopath, err, sizeof err), 2);
    assert_non_null(strstr(err, "camera_path"));
}

/* A PNG's width from its IHDR chunk (bytes 16-19, big-endian). */
static uint32_t png_width(const char *path)
{
    size_t n = 0;
    unsigned char *b = sr_test_read_bytes(path, &n);
    assert_non_null(b);
    assert_true(n > 24);
    const uint32_t w = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19];
    free(b);
    return w;
}

/* A sequence keeps the settings that decide its images beside its frames: a rerun with another
 * --width, --spp or --exposure is refused (exit 2, naming the setting, nothing rendered), one
 * that changes only how it runs (mask, workers, threads) resumes, --overwrite renders the
 * frames again with the new settings (kept from then on), and without frames on disk the old
 * settings bind nothing. */
static void test_frames_settings_kept(void **state)
{
    (void)state;
    char scene[4096], pattern[512], settings[600], f0[600], f2[600], err[16384];
    sr_test_source_path(scene, sizeof scene, "scenes/orbit.json");
    sr_test_tmp_path(pattern, sizeof pattern, "seqset_%02d.png");
    snprintf(settings, sizeof settings, "%s.settings", pattern);
    snprintf(f0, sizeof f0, pattern, 0);
    snprintf(f2, sizeof f2, pattern, 2);
    for (int k = 0; k < 4; k++) {
        char name[600];
        snprintf(name, sizeof name, pattern, k);
        unlink(name);
    }
    unlink(settings);
    const char *first[] = { "render", scene, "--backend", "cpu", "--width", "16", "--height", "12", "--spp", "1",
                            "--frames", "0-1", "-o", pattern, "-q", NULL };
    int code = sr_test_run_cli(first, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    assert_true(sr_test_file_exists(settings));
    size_t n_before = 0;
    unsigned char *before = sr_test_read_bytes(f0, &n_before);
    assert_non_null(before);
    static const struct { const char *opt, *value, *expect; } changed[] = {
        { "--width", "20", "with --width 16, and this run has --width 20" },
        { "--spp", "2", "with --spp 1, and this run has --spp 2" },
        { "--exposure", "2", "with --exposure 1, and this run has --exposure 2" },
    };
    for (size_t k = 0; k < sizeof changed / sizeof changed[0]; k++) {
        const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "16", "--height", "12", "--spp", "1",
                               "--frames", "0-2", "-o", pattern, "-q", changed[k].opt, changed[k].value, NULL };
        assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
        if (!strstr(err, changed[k].expect) || !strstr(err, "--overwrite")) fail_msg("%s %s:\n%s", changed[k].opt,
                                                                                    changed[k].value, err);
        assert_false(sr_test_file_exists(f2));   /* nothing rendered */
    }
    size_t n_after = 0;
    unsigned char *after = sr_test_read_bytes(f0, &n_after);
    assert_true(n_after == n_before && !memcmp(before, after, n_before));
    free(after);
    free(before);
    /* how it runs is no setting of the images: the sequence resumes */
    const char *resume[] = { "render", scene, "--backend", "cpu", "--width", "16", "--height", "12", "--spp", "1",
                             "--frames", "0-2", "-o", pattern, "--mask", "compact", "--device", "0,0", "--threads", "1",
                             NULL };
    code = sr_test_run_cli(resume, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    assert_non_null(strstr(err, "2 of the frames 0-2 are written already"));
    assert_int_equal(png_width(f2), 16);
    /* --overwrite renders them all again, and the new settings are the sequence's from then on */
    const char *wider[] = { "render", scene, "--backend", "cpu", "--width", "20", "--height", "12", "--spp", "1",
                            "--frames", "0-2", "-o", pattern, "-q", "--overwrite", NULL };
    code = sr_test_run_cli(wider, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    assert_int_equal(png_width(f0), 20);
    assert_int_equal(png_width(f2), 20);
    wider[15] = NULL;
    code = sr_test_run_cli(wider, err, sizeof err);
    if (code) fail_msg("resuming after --overwrite: exit %d:\n%s", code, err);
    /* no frames left: the settings file binds nothing */
    for (int k = 0; k < 3; k++) {
        char name[600];
        snprintf(name, sizeof name, pattern, k);
        unlink(name);
    }
    code = sr_test_run_cli(first, err, sizeof err);
    if (code) fail_msg("no frames on disk: exit %d:\n%s", code, err);
    assert_int_equal(png_width(f0), 16);
    /* --overwrite is for sequences only */
    char single[600];
    sr_test_tmp_path(single, sizeof single, "seqset_single.png");
    const char *one[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", single,
                          "--overwrite", NULL };
    assert_int_equal(sr_test_run_cli(one, err, sizeof err), 2);
    assert_non_null(strstr(err, "--overwrite applies to --frames only"));
}

/* The CLI's standard output (stderr dropped), NUL-terminated into out; its exit status. */
static int run_stdout(const char *const *argv, char *out, size_t cap)
{
    int fds[2];
    if (pipe(fds)) abort();
    const pid_t pid = fork();
    if (pid < 0) abort();
    if (pid == 0) {
        const char *args[64] = { SR_CLI };
        for (size_t i = 0; argv[i] && i < 62; i++) args[i + 1] = argv[i];
        const int devnull = open("/dev/null", O_WRONLY);
        dup2(fds[1], 1);
        dup2(devnull, 2);
        close(fds[0]);
        execv(SR_CLI, (char *const *)args);
        _exit(127);
    }
    close(fds[1]);
    size_t used = 0;
    ssize_t got;
    char tmp[4096];
    while ((got = read(fds[0], tmp, sizeof tmp)) > 0)
        for (ssize_t i = 0; i < got && used + 1 < cap; i++) out[used++] = tmp[i];
    out[used] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_bench_workers(void **state)
{
    (void)state;
    char scene[4096], out[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/cornell_path.json");
    const char *argv[] = { "bench", scene, "--backend", "cpu", "--device", "0,0", "--width", "16", "--height", "12",
                           "--depth", "3", "--frames", "2", "--warmup", "0", "-q", NULL };
    assert_int_equal(run_stdout(argv, out, sizeof out), 0);
    /* a row per worker, and the total: every sample of the two timed frames of 64 spp */
    assert_non_null(strstr(out, "\n0        CPU"));
    assert_non_null(strstr(out, "\n1        CPU"));
    const char *total = strstr(out, "\ntotal");
    assert_non_null(total);
    unsigned passes = 0, samples = 0;
    assert_int_equal(sscanf(total, "\ntotal (wall time) %u %u", &passes, &samples), 2);
    assert_int_equal(passes, 128);
    assert_int_equal(samples, 128);
    const char *bad[] = { "bench", scene, "--backend", "cpu", "--device", "0,0", "--csv", "x.csv", NULL };
    char err[4096];
    assert_int_equal(sr_test_run_cli(bad, err, sizeof err), 2);
    assert_non_null(strstr(err, "--csv"));
}

/* The farm's progress goes to the frame's tick, never to stderr: samples done never go back,
 * and the last call (final) has them all. */
typedef struct ticks { int calls, finals; uint64_t last, total; int backwards; } ticks;

static void on_tick(void *ctx, uint64_t done, uint64_t total, double elapsed, int final)
{
    ticks *t = (ticks *)ctx;
    (void)elapsed;
    t->backwards |= done < t->last;
    t->last = done;
    t->total = total;
    t->calls++;
    t->finals += final;
}

static void test_progress_ticks(void **state)
{
    (void)state;
    sr_scene scene;
    sr_test_load_shipped("scenes/cornell.json", &scene);
    sr_frame f;
    sr_frame_from_scene(&f, &scene);
    f.width = 32;
    f.height = 16;
    f.spp = 24;
    f.depth = 2;
    ticks t = { 0, 0, 0, 0, 0 };
    f.render.tick = on_tick;
    f.render.tick_ctx = &t;
    const sr_worker_spec specs[2] = { { SR_BACKEND_CPU, 0 }, { SR_BACKEND_CPU, 0 } };
    sr_error err = { SR_OK, "" };
    sr_farm *fm = NULL;
    sr_film_sum sum;
    if (sr_farm_open(&fm, &scene, specs, 2, &f, &err) || sr_film_sum_init(&sum, (size_t)32 * 16 * 3, &err))
        fail_msg("%s", err.msg);
    sr_farm_stats st;
    if (sr_farm_render(fm, &f, NULL, &sum, &st, &err)) fail_msg("%s", err.msg);
    assert_int_equal(t.finals, 1);
    assert_true(t.calls >= 1);
    assert_int_equal(t.last, 24);
    assert_int_equal(t.total, 24);
    assert_false(t.backwards);
    sr_film_sum_free(&sum);
    sr_farm_close(fm);
    sr_scene_free(&scene);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pass_sizes),
        cmocka_unit_test(test_film_sum_any_order),
        cmocka_unit_test(test_film_sum_reset_and_merge_all),
        cmocka_unit_test(test_device_lists),
        cmocka_unit_test(test_frame_patterns),
        cmocka_unit_test(test_camera_path),
        cmocka_unit_test(test_workers_give_the_same_bytes),
        cmocka_unit_test(test_frames_render_and_resume),
        cmocka_unit_test(test_frames_settings_kept),
        cmocka_unit_test(test_bench_workers),
        cmocka_unit_test(test_progress_ticks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
