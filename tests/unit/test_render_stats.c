/* `render --stats FILE.json`: the summary's numbers as JSON, checked against the render that
 * wrote them (size, spp, depth, rays per bounce adding up to the rays, camera rays = pixels x
 * spp); `--stats -` leaves standard output to the JSON alone; a bad --stats path is refused with
 * exit 2 before any work (no image, no backend opened). */
#include "testutil.h"
#include "hardutil.h"

#include <cJSON.h>
#include <locale.h>
#include <wchar.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run `stencilray ARGS` with stdout into out_buf and stderr into err_buf; returns the exit code. */
static int run_both(const char *const *args, char *out_buf, size_t out_cap, char *err_buf, size_t err_cap)
{
    char out_path[1024], err_path[1024];
    sr_test_tmp_path(out_path, sizeof out_path, "stats_stdout.txt");
    sr_test_tmp_path(err_path, sizeof err_path, "stats_stderr.txt");
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen(out_path, "w", stdout) || !freopen(err_path, "w", stderr)) _exit(97);
        const char *argv[40] = { SR_CLI };
        for (int k = 0; args[k] && k < 38; k++) argv[k + 1] = args[k];
        execv(SR_CLI, (char *const *)argv);
        _exit(98);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    char *o = sr_test_read_text(out_path), *e = sr_test_read_text(err_path);
    assert_non_null(o);
    assert_non_null(e);
    snprintf(out_buf, out_cap, "%s", o);
    snprintf(err_buf, err_cap, "%s", e);
    free(o);
    free(e);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static double num(const cJSON *root, const char *name)
{
    const cJSON *x = cJSON_GetObjectItem(root, name);
    if (!cJSON_IsNumber(x)) fail_msg("\"%s\" is missing or not a number", name);
    return x->valuedouble;
}

static const char *str(const cJSON *root, const char *name)
{
    const cJSON *x = cJSON_GetObjectItem(root, name);
    if (!cJSON_IsString(x)) fail_msg("\"%s\" is missing or not a string", name);
    return x->valuestring;
}

/* The numbers agree with the render that was asked for and with each other. */
static void check_stats(const cJSON *root, const char *scene, const char *image, unsigned w, unsigned h, unsigned spp,
                        unsigned depth, const char *mask)
{
    assert_string_equal(str(root, "scene"), scene);
    assert_string_equal(str(root, "output"), image);
    assert_string_equal(str(root, "backend"), "cpu");
    assert_true(strlen(str(root, "device")) > 0);
    assert_int_equal((unsigned)num(root, "width"), w);
    assert_int_equal((unsigned)num(root, "height"), h);
    assert_int_equal((unsigned)num(root, "spp"), spp);
    assert_int_equal((unsigned)num(root, "depth"), depth);
    assert_string_equal(str(root, "mask"), mask);
#ifdef SR_HAVE_CUDA
    /* render keeps CUDA's lazy loading unless the person chose (cudaenv.h) */
    const char *loading = getenv("CUDA_MODULE_LOADING");
    assert_string_equal(str(root, "cuda_module_loading"), loading ? loading : "LAZY");
    assert_string_equal(str(root, "cuda_module_loading_from"), loading ? "environment" : "stencilray");
#endif
    assert_string_equal(str(root, "integrator"), "whitted");
    const double rays = num(root, "rays"), seconds = num(root, "render_s");
    assert_true(seconds > 0 && num(root, "setup_s") >= 0);
    /* the set-up's parts: each measured, together no more than the whole */
    const double read = num(root, "read_s"), build = num(root, "build_s"), upload = num(root, "upload_s");
    assert_true(read > 0 && build >= 0 && upload >= 0);
    assert_true(read + build + upload <= num(root, "setup_s") + 1e-9);
    /* the time to first pixel covers the set-up and the samples */
    assert_true(num(root, "first_frame_s") >= num(root, "setup_s") + seconds - 1e-9);
    assert_float_equal(num(root, "ms_per_sample"), 1e3 * seconds / spp, 1e-6 * seconds + 1e-9);
    assert_float_equal(num(root, "mrays_per_s"), rays / seconds / 1e6, 1e-6 * rays / seconds);
    const cJSON *per = cJSON_GetObjectItem(root, "rays_per_bounce");
    assert_true(cJSON_IsArray(per));
    assert_int_equal(cJSON_GetArraySize(per), (int)depth);
    double sum = 0, last = 1e300;
    for (int b = 0; b < cJSON_GetArraySize(per); b++) {
        const double n = cJSON_GetArrayItem(per, b)->valuedouble;
        assert_true(n <= last);   /* a bounce never has more rays than the one before it */
        last = n;
        sum += n;
    }
    assert_float_equal(sum, rays, 0.5);
    assert_float_equal(cJSON_GetArrayItem(per, 0)->valuedouble, (double)w * h * spp, 0.5);   /* camera rays */
}

static void test_stats_file(void **state)
{
    (void)state;
    char scene[1024], dir[1024], image[1100], stats[1100], out[4096], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/mirror_hall.json");
    sr_hard_fresh_dir(dir, sizeof dir, "render_stats");
    snprintf(image, sizeof image, "%s/hall.png", dir);
    snprintf(stats, sizeof stats, "%s/hall.json", dir);
    const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "24", "--height", "16", "--spp", "3",
                           "--depth", "5", "--mask", "compact", "-o", image, "--stats", stats, NULL };
    const int code = run_both(argv, out, sizeof out, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    assert_non_null(strstr(out, "-> "));   /* the summary line stays on stdout */
    assert_int_equal(sr_hard_count_files(dir), 2);   /* the image and the stats, no temporaries */
    char *text = sr_test_read_text(stats);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    check_stats(root, scene, image, 24, 16, 3, 5, "compact");
    assert_null(cJSON_GetObjectItem(root, "wave_way"));   /* only where the wave mask chose one */
    cJSON_Delete(root);
    free(text);
}

/* "-": standard output carries the JSON and nothing else; the summary line goes to stderr. */
static void test_stats_stdout(void **state)
{
    (void)state;
    char scene[1024], dir[1024], image[1100], out[8192], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_hard_fresh_dir(dir, sizeof dir, "render_stats_stdout");
    snprintf(image, sizeof image, "%s/d.png", dir);
    const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "16", "--height", "8", "--spp", "8",
                           "--depth", "3", "-o", image, "--stats", "-", NULL };
    const int code = run_both(argv, out, sizeof out, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    cJSON *root = cJSON_Parse(out);   /* the whole of stdout: one JSON object */
    if (!root) fail_msg("standard output is not JSON alone:\n%s", out);
    check_stats(root, scene, image, 16, 8, 8, 3, "wave");
    assert_true(strlen(str(root, "wave_way")) > 0);   /* the wave mask says what it chose */
    cJSON_Delete(root);
    char tail[1200];
    snprintf(tail, sizeof tail, "-> %s", image);
    if (!strstr(err, tail)) fail_msg("no summary line on stderr:\n%s", err);
}

/* 1 when text is well-formed UTF-8, as the C library's UTF-8 decoder reads it. */
static int valid_utf8(const char *text)
{
    mbstate_t ps;
    memset(&ps, 0, sizeof ps);
    const char *p = text;
    return mbsrtowcs(NULL, &p, 0, &ps) != (size_t)-1;
}

/* File names are bytes: a scene and an image named with 0xFF (not UTF-8) gave a --stats file
 * that was not valid JSON text (raw bytes inside its strings). Each byte that is not UTF-8
 * becomes U+FFFD; the rest of the name is kept. */
static void test_stats_non_utf8_names(void **state)
{
    (void)state;
    if (!setlocale(LC_CTYPE, "C.UTF-8")) skip();
    char dir[1024], scene[1100], image[1100], stats[1100], out[4096], err[8192];
    sr_hard_fresh_dir(dir, sizeof dir, "render_stats_bytes");
    snprintf(scene, sizeof scene, "%s/sc\xff\xe9ne.json", dir);   /* 0xFF, and 0xE9 (Latin-1 e-acute) */
    snprintf(image, sizeof image, "%s/out\xff.png", dir);
    snprintf(stats, sizeof stats, "%s/stats.json", dir);
    char src[1024];
    char *text = sr_test_read_text(sr_test_source_path(src, sizeof src, "scenes/default.json"));
    assert_non_null(text);
    FILE *f = fopen(scene, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(text);
    const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--spp", "1",
                           "-o", image, "--stats", stats, NULL };
    const int code = run_both(argv, out, sizeof out, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    text = sr_test_read_text(stats);
    assert_non_null(text);
    if (!valid_utf8(text)) fail_msg("the --stats file is not UTF-8:\n%s", text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    char want_scene[1200], want_image[1200];
    snprintf(want_scene, sizeof want_scene, "%s/sc\xef\xbf\xbd\xef\xbf\xbdne.json", dir);
    snprintf(want_image, sizeof want_image, "%s/out\xef\xbf\xbd.png", dir);
    assert_string_equal(str(root, "scene"), want_scene);
    assert_string_equal(str(root, "output"), want_image);
    cJSON_Delete(root);
    free(text);
    assert_true(sr_test_file_exists(image));   /* the files themselves keep their byte names */
}

/* A --stats that cannot be written is refused before anything is loaded or rendered. */
static void test_stats_bad_path(void **state)
{
    (void)state;
    char scene[1024], dir[1024], image[1100], missing[1100], spelled[1200], out[4096], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_hard_fresh_dir(dir, sizeof dir, "render_stats_bad");
    snprintf(image, sizeof image, "%s/x.png", dir);
    snprintf(missing, sizeof missing, "%s/no-such-folder/s.json", dir);
    snprintf(spelled, sizeof spelled, "%s/./x.png", dir);   /* the image, spelled otherwise */
    const char *const bad[] = { missing, dir, image, spelled };
    const char *const why[] = { "does not exist", "a directory", "the image's name too", "the image's name too" };
    for (int k = 0; k < 4; k++) {
        const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", image,
                               "--stats", bad[k], NULL };
        assert_int_equal(run_both(argv, out, sizeof out, err, sizeof err), 2);
        if (!strstr(err, "--stats") || !strstr(err, why[k])) fail_msg("%s", err);
        if (strstr(err, "backend")) fail_msg("the backend was opened before the refusal:\n%s", err);
        assert_false(sr_test_file_exists(image));
        assert_int_equal(sr_hard_count_files(dir), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_file),
        cmocka_unit_test(test_stats_stdout),
        cmocka_unit_test(test_stats_bad_path),
        cmocka_unit_test(test_stats_non_utf8_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
