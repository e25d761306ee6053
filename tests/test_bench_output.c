/* `stencilray bench` output formats, on the CPU backend (the format is the same for the GPU):
 * the CSV has its header and one well-formed row per (depth, mask), the JSON parses and
 * carries the same rows, --plot writes a PNG when gnuplot is present, and bad arguments
 * exit 2. */
#include "testutil.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

static const char *const masks[] = { "flags", "stencil", "compact", "wave", "megakernel" };

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
    char *text = read_all(csv);
    assert_non_null(text);
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    assert_string_equal(line, "depth,mask,sort,median_ms,fps,p99_ms,min_ms,rays_per_frame,mrays_per_s,live_after,"
                              "generate_ms,intersect_ms,shade_ms,compact_ms,sort_ms");
    int rows = 0;
    for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save), rows++) {
        int commas = 0;
        for (const char *c = line; *c; c++) commas += *c == ',';
        assert_int_equal(commas, 14);
        unsigned depth = 0;
        char mask[32], sort[32];
        double median = 0, fps = 0;
        assert_int_equal(sscanf(line, "%u,%31[^,],%31[^,],%lf,%lf", &depth, mask, sort, &median, &fps), 5);
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
    text = read_all(json);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_true(cJSON_IsString(cJSON_GetObjectItem(root, "device")));
    cJSON *results = cJSON_GetObjectItem(root, "results");
    assert_int_equal(cJSON_GetArraySize(results), 15);
    for (int i = 0; i < 15; i++) {
        cJSON *r = cJSON_GetArrayItem(results, i);
        int depth = cJSON_GetObjectItem(r, "depth")->valueint;
        assert_int_equal(depth, 1 + i / 5);
        assert_string_equal(cJSON_GetObjectItem(r, "mask")->valuestring, masks[i % 5]);
        assert_true(cJSON_GetObjectItem(r, "median_ms")->valuedouble > 0);
        assert_true(cJSON_GetObjectItem(r, "rays_per_frame")->valuedouble >= 48 * 32);
        cJSON *live = cJSON_GetObjectItem(r, "live_after_bounce");
        assert_int_equal(cJSON_GetArraySize(live), i % 5 == 4 ? 0 : depth - 1);
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

static void test_plot(void **state)
{
    (void)state;
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) { skip(); }
    char scene[1024], png[1024], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_test_tmp_path(png, sizeof png, "bench.png");
    remove(png);
    const char *argv[] = { "bench", scene, "--backend", "cpu", "--width", "32", "--height", "16", "--depth", "1-2",
                           "--frames", "2", "--warmup", "0", "--plot", png, "-q", NULL };
    assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 0);
    FILE *f = fopen(png, "rb");
    assert_non_null(f);
    unsigned char magic[8] = { 0 };
    assert_int_equal(fread(magic, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(magic, "\x89PNG\r\n\x1a\n", 8);
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
    FILE *in = fopen(scene_src, "rb"), *out = fopen(scene, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0) assert_int_equal(fwrite(buf, 1, got, out), got);
    fclose(in);
    fclose(out);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_and_json),
        cmocka_unit_test(test_plot),
        cmocka_unit_test(test_plot_names_are_not_code),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
