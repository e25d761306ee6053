/* `stencilray bench` output formats, on the CPU backend (the format is the same for the GPU):
 * the CSV has its header and one well-formed row per (depth, mask), the JSON parses and
 * carries the same rows and its setup as named fields, --plot writes PNG, SVG or PDF by the
 * name's ending when gnuplot is present and refuses other endings before running, and bad
 * arguments exit 2. */
#include "testutil.h"
#include "hardutil.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const masks[] = { "flags", "stencil", "compact", "wave", "megakernel" };

static double number(const cJSON *o, const char *name)
{
    const cJSON *x = cJSON_GetObjectItem(o, name);
    if (!cJSON_IsNumber(x)) fail_msg("\"%s\" is missing or not a number", name);
    return x->valuedouble;
}

/* "setup" is an object of named fields with the values of the run below. */
static void check_setup(const cJSON *setup, const char *scene, const char *json)
{
    assert_true(cJSON_IsObject(setup));
    assert_string_equal(cJSON_GetObjectItem(setup, "scene")->valuestring, scene);
    assert_int_equal((int)number(setup, "width"), 48);
    assert_int_equal((int)number(setup, "height"), 32);
    assert_int_equal((int)number(setup, "spp_per_frame"), 1);
    assert_int_equal((int)number(setup, "warmup_frames"), 1);
    assert_int_equal((int)number(setup, "timed_frames"), 3);
    assert_int_equal((int)number(setup, "depth_from"), 1);
    assert_int_equal((int)number(setup, "depth_to"), 3);
    assert_true(number(setup, "threads") >= 1);
    assert_true(number(setup, "noisy_spread") > 0);
    assert_string_equal(cJSON_GetObjectItem(setup, "backend")->valuestring, "cpu");
    assert_string_equal(cJSON_GetObjectItem(setup, "integrator")->valuestring, "whitted");
    assert_string_equal(cJSON_GetObjectItem(setup, "sort_key")->valuestring, "dir-morton");
    const cJSON *m = cJSON_GetObjectItem(setup, "masks");
    assert_int_equal(cJSON_GetArraySize(m), 5);
    for (int k = 0; k < 5; k++) assert_string_equal(cJSON_GetArrayItem(m, k)->valuestring, masks[k]);
    const cJSON *sorts = cJSON_GetObjectItem(setup, "sorts");
    assert_int_equal(cJSON_GetArraySize(sorts), 1);
    assert_string_equal(cJSON_GetArrayItem(sorts, 0)->valuestring, "none");
    int y, mo, d, h, mi, sec;
    char z = 0;
    assert_int_equal(sscanf(cJSON_GetObjectItem(setup, "date")->valuestring, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d,
                            &h, &mi, &sec, &z), 7);
    assert_int_equal(z, 'Z');
    const cJSON *cmd = cJSON_GetObjectItem(setup, "command");
    assert_true(cJSON_IsArray(cmd));
    assert_string_equal(cJSON_GetArrayItem(cmd, 0)->valuestring, "stencilray");
    assert_string_equal(cJSON_GetArrayItem(cmd, 1)->valuestring, "bench");
    const int n = cJSON_GetArraySize(cmd);
    assert_string_equal(cJSON_GetArrayItem(cmd, n - 2)->valuestring, json);   /* --json FILE -q: argv as given */
}

static void test_csv_and_json(void **state)
{
    (void)state;
    char scene[1024], csv[1024], json[1024], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_test_tmp_path(csv, sizeof csv, "bench.csv");
    sr_test_tmp_path(json, sizeof json, "bench.json");
    remove(csv);
    remove(json);
    const char *argv[] = { "bench", scene, "--backend", "cpu", "--width", "48", "--height", "32", "--depth", "1-3",
                           "--frames", "3", "--warmup", "1", "--breakdown", "--csv", csv, "--json", json, "-q", NULL };
    int code = sr_test_run_cli(argv, err, sizeof err);
    if (code) fprintf(stderr, "%s\n", err);
    assert_int_equal(code, 0);

    /* CSV: header, then 3 depths x 5 masks rows with the header's column count. */
    char *text = sr_test_read_text(csv);
    assert_non_null(text);
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    assert_string_equal(line, "depth,mask,sort,median_ms,fps,min_ms,max_ms,spread,noisy,rays_per_frame,mrays_per_s,"
                              "live_after,generate_ms,intersect_ms,shade_ms,compact_ms,sort_ms");
    int rows = 0;
    for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save), rows++) {
        int commas = 0;
        for (const char *c = line; *c; c++) commas += *c == ',';
        assert_int_equal(commas, 16);
        unsigned depth = 0;
        char mask[32], sort[32];
        double median = 0, fps = 0, lo = 0, hi = 0, spread = -1;
        int noisy = -1;
        assert_int_equal(sscanf(line, "%u,%31[^,],%31[^,],%lf,%lf,%lf,%lf,%lf,%d", &depth, mask, sort, &median, &fps,
                                &lo, &hi, &spread, &noisy), 9);
        assert_true(lo <= median && median <= hi && spread >= 0);
        /* (spread is printed to 4 decimals: within half a unit of 0.10 the printed value cannot
         * tell which side the flag was set on, as once happened in CI with 0.1000) */
        if (fabs(spread - 0.10) > 0.00005) assert_int_equal(noisy, spread > 0.10);
        if (rows % 5 != 2) assert_string_equal(sort, "none");   /* only compact sorts */
        else assert_true(!strcmp(sort, "none") || !strcmp(sort, "merge") || !strcmp(sort, "radix"));
        assert_int_equal(depth, 1u + (unsigned)rows / 5u);              /* depth-major order */
        assert_string_equal(mask, masks[rows % 5]);
        assert_true(median > 0 && fps > 0);
        assert_float_equal(fps, 1000.0 / median, fps * 0.01 + 0.01);
    }
    assert_int_equal(rows, 15);
    free(text);

    /* JSON: the same rows, with live fractions per bounce for the masks that count them. */
    text = sr_test_read_text(json);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_true(cJSON_IsString(cJSON_GetObjectItem(root, "device")));
    check_setup(cJSON_GetObjectItem(root, "setup"), scene, json);
    const double noisy_above = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "setup"), "noisy_spread")->valuedouble;
    cJSON *results = cJSON_GetObjectItem(root, "results");
    assert_int_equal(cJSON_GetArraySize(results), 15);
    for (int i = 0; i < 15; i++) {
        cJSON *r = cJSON_GetArrayItem(results, i);
        int depth = cJSON_GetObjectItem(r, "depth")->valueint;
        assert_int_equal(depth, 1 + i / 5);
        assert_string_equal(cJSON_GetObjectItem(r, "mask")->valuestring, masks[i % 5]);
        assert_true(cJSON_GetObjectItem(r, "median_ms")->valuedouble > 0);
        /* every time is one of the frames': min <= q1 <= median <= q3 <= max, and the spread
         * and the noisy flag are what they say */
        const double lo = number(r, "min_ms"), q1 = number(r, "q1_ms"), med = number(r, "median_ms"),
                     q3 = number(r, "q3_ms"), hi = number(r, "max_ms"), spread = number(r, "spread");
        assert_true(lo <= q1 && q1 <= med && med <= q3 && q3 <= hi);
        assert_float_equal(spread, (q3 - q1) / med, 1e-9);
        assert_true(cJSON_IsBool(cJSON_GetObjectItem(r, "noisy")));
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(r, "noisy")), spread > noisy_above);
        assert_null(cJSON_GetObjectItem(r, "p99_ms"));   /* over a few frames it was the max: gone */
        if (i % 5 == 3) {   /* the wave mask measured its ways in the warm-up, not in the timed frames */
            const cJSON *way = cJSON_GetObjectItem(r, "wave_way");
            assert_true(cJSON_IsString(way));
            assert_string_not_equal(way->valuestring, "measuring");
        }
        assert_true(cJSON_GetObjectItem(r, "rays_per_frame")->valuedouble >= 48 * 32);
        cJSON *live = cJSON_GetObjectItem(r, "live_after_bounce");
        assert_int_equal(cJSON_GetArraySize(live), i % 5 >= 3 ? 0 : depth - 1);   /* (wave, megakernel: the total only) */
        for (int k = 0; k < cJSON_GetArraySize(live); k++) {
            double f = cJSON_GetArrayItem(live, k)->valuedouble;
            assert_true(f >= 0.0 && f <= 1.0);
        }
        cJSON *bd = cJSON_GetObjectItem(r, "breakdown_ms");
        assert_non_null(bd);
        /* per-stage times for the masks that launch stages; wave and megakernel are one frame */
        if (i % 5 < 3) assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(bd, "intersect")), depth);
        else assert_null(cJSON_GetObjectItem(bd, "intersect"));
    }
    cJSON_Delete(root);
    free(text);
}

/* Every mask times the same samples: on a path-traced scene, where the paths' lengths follow
 * the samples' random numbers, the rays per frame at each depth are the same number for every
 * mask (the wave mask's measuring samples included in its warm-up take none of them). */
static void test_masks_trace_the_same_rays(void **state)
{
    (void)state;
    char scene[1024], json[1024], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/cornell_path.json");
    sr_test_tmp_path(json, sizeof json, "bench_same_rays.json");
    remove(json);
    const char *argv[] = { "bench", scene, "--backend", "cpu", "--width", "64", "--height", "36", "--depth", "1-4",
                           "--frames", "2", "--warmup", "1", "--json", json, "-q", NULL };
    const int code = sr_test_run_cli(argv, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    char *text = sr_test_read_text(json);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    const cJSON *results = cJSON_GetObjectItem(root, "results");
    assert_int_equal(cJSON_GetArraySize(results), 4 * 5);
    double first_depth_rays = 0;
    for (int i = 0; i < 4 * 5; i++) {
        const cJSON *r = cJSON_GetArrayItem(results, i), *same = cJSON_GetArrayItem(results, i - i % 5);
        const double rays = number(r, "rays_per_frame"), want = number(same, "rays_per_frame");
        if (rays != want)
            fail_msg("depth %d: %s traced %.1f rays per frame, %s %.1f", (int)number(r, "depth"),
                     cJSON_GetObjectItem(r, "mask")->valuestring, rays, cJSON_GetObjectItem(same, "mask")->valuestring, want);
        if (i == 0) first_depth_rays = rays;
    }
    /* deeper paths trace more rays: the counts compared above are not all one number */
    assert_true(number(cJSON_GetArrayItem(results, 3 * 5), "rays_per_frame") > first_depth_rays);
    cJSON_Delete(root);
    free(text);
}

/* The chart's format follows its name: PNG, SVG or PDF, told apart by their first bytes. */
static void test_plot(void **state)
{
    (void)state;
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) { skip(); }
    static const struct { const char *name, *magic, *also; } formats[] = {
        { "bench.png", "\x89PNG\r\n\x1a\n", NULL },
        { "bench.svg", "<?xml", "<svg" },
        { "bench.PDF", "%PDF-", NULL },
    };
    char scene[1024], path[1024], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    for (size_t k = 0; k < sizeof formats / sizeof formats[0]; k++) {
        sr_test_tmp_path(path, sizeof path, formats[k].name);
        remove(path);
        const char *argv[] = { "bench", scene, "--backend", "cpu", "--width", "32", "--height", "16", "--depth", "1-2",
                               "--frames", "2", "--warmup", "0", "--mask", "stencil,wave", "--plot", path, "-q", NULL };
        const int code = sr_test_run_cli(argv, err, sizeof err);
        if (code) fail_msg("%s: exit %d\n%s", formats[k].name, code, err);
        char *text = sr_test_read_text(path);
        assert_non_null(text);
        const size_t n = strlen(formats[k].magic);
        if (memcmp(text, formats[k].magic, n) != 0) fail_msg("%s does not start with its format's bytes", formats[k].name);
        if (formats[k].also && !strstr(text, formats[k].also)) fail_msg("%s has no %s", formats[k].name, formats[k].also);
        free(text);
    }
}

/* Any other ending is refused with exit 2 before the scene is even opened. */
static void test_plot_format_refused(void **state)
{
    (void)state;
    char scene[1024], path[1024], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    static const char *const names[] = { "bench.jpg", "bench", "bench.png.txt" };
    for (size_t k = 0; k < 3; k++) {
        sr_test_tmp_path(path, sizeof path, names[k]);
        remove(path);
        const char *argv[] = { "bench", scene, "--backend", "cpu", "--width", "16", "--height", "8", "--depth", "1",
                               "--frames", "1", "--plot", path, NULL };
        assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
        if (!strstr(err, "expected a name ending in .png, .svg or .pdf")) fail_msg("%s", err);
        if (strstr(err, "backend")) fail_msg("the benchmark started before the refusal:\n%s", err);
        assert_false(sr_test_file_exists(path));
    }
}

/* Names are data for gnuplot, never code: a --plot name and a scene file name holding quotes,
 * a semicolon, a backtick, a newline and system(...) give a chart at exactly that name and
 * run nothing (before the fix, set output '%s' ran the touch). */
static void test_plot_names_are_not_code(void **state)
{
    (void)state;
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) { skip(); }
    char dir[1024], scene_src[1024], scene[2048], png[2048], pwned[2048], err[8192];
    sr_test_tmp_path(dir, sizeof dir, "plot_names");
    mkdir(dir, 0755);
    snprintf(pwned, sizeof pwned, "%s/PWNED", dir);
    static const char *const evil[] = {
        "q'uote\"; set output 'x'; system(\"touch PWNED\") #.png",
        "a`touch PWNED`b.png",
        "new\nline'; system('touch PWNED'); x='.png",
        "\"; system(\"touch PWNED\"); \".png",
    };
    sr_test_source_path(scene_src, sizeof scene_src, "scenes/default.json");
    snprintf(scene, sizeof scene, "%s/sc'ene\"; system(\"touch PWNED\"); \".json", dir);
    sr_test_copy_file(scene_src, scene);
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);   /* where a relative touch would land */
    for (size_t k = 0; k < sizeof evil / sizeof evil[0]; k++) {
        snprintf(png, sizeof png, "%s/%s", dir, evil[k]);
        remove(png);
        const char *argv[] = { "bench", scene, "--backend", "cpu", "--width", "16", "--height", "8", "--depth", "1-2",
                               "--frames", "1", "--warmup", "0", "--mask", "stencil", "--plot", png, "-q", NULL };
        const int code = sr_test_run_cli(argv, err, sizeof err);
        if (code) fprintf(stderr, "%s\n", err);
        assert_int_equal(code, 0);
        if (!sr_test_file_exists(png)) fail_msg("no chart at the name %s", evil[k]);
        if (sr_test_file_exists(pwned)) fail_msg("the name %s ran gnuplot code", evil[k]);
        remove(png);
    }
    assert_int_equal(chdir(cwd), 0);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    char err[8192];
    const char *bad_depth[] = { "bench", "--depth", "0-3", "--backend", "cpu", NULL };
    assert_int_equal(sr_test_run_cli(bad_depth, err, sizeof err), 2);
    assert_non_null(strstr(err, "--depth"));
    const char *reversed[] = { "bench", "--depth", "5-2", "--backend", "cpu", NULL };
    assert_int_equal(sr_test_run_cli(reversed, err, sizeof err), 2);
    const char *bad_mask[] = { "bench", "--mask", "stencil,bogus", "--backend", "cpu", NULL };
    assert_int_equal(sr_test_run_cli(bad_mask, err, sizeof err), 2);
    assert_non_null(strstr(err, "bogus"));
    const char *twice[] = { "bench", "--mask", "compact,compact", "--backend", "cpu", NULL };
    assert_int_equal(sr_test_run_cli(twice, err, sizeof err), 2);
    const char *frames[] = { "bench", "--frames", "0", "--backend", "cpu", NULL };
    assert_int_equal(sr_test_run_cli(frames, err, sizeof err), 2);
}

/* Every result file appears whole under its own name, nothing else is left beside it, and
 * each has the mode a plain fopen() gives (0666 less the umask), though written through an
 * exclusive temporary (mkstemp makes 0600). */
static void test_outputs_whole_with_their_mode(void **state)
{
    (void)state;
    const int plot = system("command -v gnuplot >/dev/null 2>&1") == 0;
    char scene[1024], dir[1024], csv[1100], json[1100], svg[1100], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_hard_fresh_dir(dir, sizeof dir, "bench_modes");
    snprintf(csv, sizeof csv, "%s/b.csv", dir);
    snprintf(json, sizeof json, "%s/b.json", dir);
    snprintf(svg, sizeof svg, "%s/b.svg", dir);
    const mode_t old = umask(027);
    const char *argv[] = { "bench", scene, "--backend", "cpu", "--width", "16", "--height", "8", "--depth", "1",
                           "--frames", "1", "--csv", csv, "--json", json, plot ? "--plot" : "-q", plot ? svg : "-q",
                           "-q", NULL };
    const int code = sr_test_run_cli(argv, err, sizeof err);
    umask(old);
    if (code) fail_msg("exit %d:\n%s", code, err);
    const char *const files[] = { csv, json, svg };
    for (int k = 0; k < 2 + plot; k++) {
        struct stat st;
        assert_int_equal(stat(files[k], &st), 0);
        if ((st.st_mode & 0777) != 0640) fail_msg("%s: mode %o, expected 640", files[k], (unsigned)(st.st_mode & 0777));
        assert_true(st.st_size > 0);
    }
    assert_int_equal(sr_hard_count_files(dir), 2 + plot);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_and_json),
        cmocka_unit_test(test_masks_trace_the_same_rays),
        cmocka_unit_test(test_plot),
        cmocka_unit_test(test_plot_format_refused),
        cmocka_unit_test(test_plot_names_are_not_code),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_outputs_whole_with_their_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
