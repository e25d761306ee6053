/* test_image.c: tonemapping and sRGB against hand-computed values, PNG / HDR round trips
 * through stb_image, and failed writes that leave nothing behind. */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image.h>

#include "../../src/io/images/image.h"

/* ---- helpers ------------------------------------------------------------------------- */

/* An empty folder tmp/<name> (made, or emptied of plain files and empty folders). */
static const char *fresh_dir(char *buf, size_t cap, const char *name)
{
    sr_test_tmp_path(buf, cap, name);
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) { perror(buf); abort(); }
    DIR *d = opendir(buf);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", buf, e->d_name);
        if (unlink(p) != 0) rmdir(p);
    }
    closedir(d);
    return buf;
}

/* Entries in dir other than . and ..; those whose name holds ".tmp-" go to *tmp_count. */
static int count_entries(const char *dir, int *tmp_count)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0, t = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        n++;
        if (strstr(e->d_name, ".tmp-")) t++;
    }
    closedir(d);
    if (tmp_count) *tmp_count = t;
    return n;
}

/* A w x h test image: smooth ramps per channel, from black to over-bright (0 .. ~3). */
static float *gradient(uint32_t w, uint32_t h)
{
    float *rgb = malloc((size_t)w * h * 3 * sizeof(float));
    assert_non_null(rgb);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            float *p = rgb + ((size_t)y * w + x) * 3;
            p[0] = 3.0f * (float)x / (float)(w - 1);
            p[1] = (float)y / (float)(h - 1);
            p[2] = 0.001f + 0.25f * (float)((x + y) % 5);
        }
    return rgb;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int file_has_text(const char *path, const char *text)
{
    char buf[256] = { 0 };
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    return got == strlen(text) && memcmp(buf, text, got) == 0;
}

/* Read back a written file, as floats if its name ends in .hdr, else as bytes: it must be
 * w x h with 3 channels. Free with stbi_image_free. */
static void *load_back(const char *path, uint32_t w, uint32_t h)
{
    const char *dot = strrchr(path, '.');
    int x = 0, y = 0, comp = 0;
    void *got = dot && strcmp(dot, ".hdr") == 0 ? (void *)stbi_loadf(path, &x, &y, &comp, 0)
                                                : (void *)stbi_load(path, &x, &y, &comp, 0);
    assert_non_null(got);
    assert_int_equal(x, w);
    assert_int_equal(y, h);
    assert_int_equal(comp, 3);
    return got;
}

/* Write one pixel (1, 0.5, 0.25) to path: the failure tests' image. */
static sr_status write_pixel(const char *path, sr_error *err)
{
    const float rgb[3] = { 1.0f, 0.5f, 0.25f };
    return sr_image_write(path, rgb, 1, 1, 1.0f, SR_TONEMAP_CLAMP, err);
}

#define assert_close(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

/* ---- tonemap.h ----------------------------------------------------------------------- */

static void test_tonemap_clamp(void **state)
{
    (void)state;
    const sr_tonemap op = SR_TONEMAP_CLAMP;
    assert_true(sr_tonemap_channel(0.0f, op) == 0.0f);
    assert_true(sr_tonemap_channel(0.5f, op) == 0.5f);
    assert_true(sr_tonemap_channel(1.0f, op) == 1.0f);
    assert_true(sr_tonemap_channel(4.0f, op) == 1.0f);
    assert_true(sr_tonemap_channel(1e30f, op) == 1.0f);
    assert_true(sr_tonemap_channel(-1.0f, op) == 0.0f);
    assert_true(sr_tonemap_channel(NAN, op) == 0.0f);
}

static void test_tonemap_reinhard(void **state)
{
    (void)state;
    const sr_tonemap op = SR_TONEMAP_REINHARD; /* x / (1 + x) */
    assert_true(sr_tonemap_channel(0.0f, op) == 0.0f);
    assert_close(sr_tonemap_channel(0.5f, op), 1.0 / 3.0, 1e-7);
    assert_close(sr_tonemap_channel(1.0f, op), 0.5, 1e-7);
    assert_close(sr_tonemap_channel(4.0f, op), 0.8, 1e-7);
    assert_close(sr_tonemap_channel(1e6f, op), 1e6 / (1.0 + 1e6), 1e-7);
    assert_true(sr_tonemap_channel(-1.0f, op) == 0.0f);
    assert_true(sr_tonemap_channel(NAN, op) == 0.0f);
}

static void test_tonemap_aces(void **state)
{
    (void)state;
    const sr_tonemap op = SR_TONEMAP_ACES; /* x(2.51x + 0.03) / (x(2.43x + 0.59) + 0.14) */
    assert_true(sr_tonemap_channel(0.0f, op) == 0.0f);
    assert_close(sr_tonemap_channel(0.5f, op), 0.6425 / 1.0425, 1e-6);  /* 0.616307 */
    assert_close(sr_tonemap_channel(1.0f, op), 2.54 / 3.16, 1e-6);      /* 0.803797 */
    assert_close(sr_tonemap_channel(4.0f, op), 40.28 / 41.38, 1e-6);    /* 0.973417 */
    assert_true(sr_tonemap_channel(1e6f, op) == 1.0f); /* 2.51/2.43 > 1, clipped */
    assert_true(sr_tonemap_channel(-1.0f, op) == 0.0f);
    assert_true(sr_tonemap_channel(NAN, op) == 0.0f);
}

/* Very bright samples (fireflies, exposure on huge radiance) must saturate to white, for
 * every operator, and never turn into NaN. */
static void test_tonemap_huge_values(void **state)
{
    (void)state;
    for (int op = SR_TONEMAP_CLAMP; op <= SR_TONEMAP_ACES; op++) {
        assert_true(sr_tonemap_channel(1e30f, (sr_tonemap)op) == 1.0f);
        assert_true(sr_tonemap_channel(INFINITY, (sr_tonemap)op) == 1.0f);
        assert_int_equal(sr_display_byte(1e30f, 1.0f, (sr_tonemap)op), 255);
    }
}

static void test_tonemap_monotonic(void **state)
{
    (void)state;
    for (int op = SR_TONEMAP_CLAMP; op <= SR_TONEMAP_ACES; op++) {
        float prev = sr_tonemap_channel(0.0f, (sr_tonemap)op);
        int prev_byte = 0;
        for (int i = 1; i <= 4000; i++) {
            float x = 1e-4f * powf(1.005f, (float)i); /* 1e-4 .. ~4.8e4 */
            float v = sr_tonemap_channel(x, (sr_tonemap)op);
            assert_true(v >= prev);
            assert_true(v >= 0.0f && v <= 1.0f);
            int b = sr_display_byte(x, 1.0f, (sr_tonemap)op);
            assert_true(b >= prev_byte);
            prev = v;
            prev_byte = b;
        }
        assert_true(prev == 1.0f || op == SR_TONEMAP_REINHARD);
    }
}

static double srgb_ref(double x) /* IEC 61966-2-1 */
{
    return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1.0 / 2.4) - 0.055;
}

static void test_srgb_encode(void **state)
{
    (void)state;
    assert_true(sr_srgb_encode(0.0f) == 0.0f);
    assert_close(sr_srgb_encode(1.0f), 1.0, 1e-6);
    assert_close(sr_srgb_encode(0.5f), 0.735357, 1e-6);
    /* the two pieces meet at 0.0031308 (value 0.04045) */
    const float b = 0.0031308f;
    assert_close(sr_srgb_encode(b), 0.04045, 1e-6);
    assert_close(sr_srgb_encode(nextafterf(b, 1.0f)), sr_srgb_encode(b), 1e-6);
    assert_close(sr_srgb_encode(nextafterf(b, 0.0f)), sr_srgb_encode(b), 1e-6);
    for (int i = 0; i <= 1000; i++) {
        float x = (float)i / 1000.0f;
        assert_close(sr_srgb_encode(x), srgb_ref(x), 1e-6);
    }
}

static void test_display_byte(void **state)
{
    (void)state;
    assert_int_equal(sr_display_byte(0.0f, 1.0f, SR_TONEMAP_CLAMP), 0);
    assert_int_equal(sr_display_byte(0.5f, 1.0f, SR_TONEMAP_CLAMP), 188); /* 187.52 + 0.5 */
    assert_int_equal(sr_display_byte(1.0f, 1.0f, SR_TONEMAP_CLAMP), 255);
    assert_int_equal(sr_display_byte(0.21404114f, 1.0f, SR_TONEMAP_CLAMP), 128); /* sRGB 0.5 */
    assert_int_equal(sr_display_byte(0.25f, 2.0f, SR_TONEMAP_CLAMP), 188); /* exposure */
    assert_int_equal(sr_display_byte(-3.0f, 1.0f, SR_TONEMAP_CLAMP), 0);
    assert_int_equal(sr_display_byte(NAN, 1.0f, SR_TONEMAP_ACES), 0);
    /* the linear value at the centre of every code maps back to that code */
    for (int k = 0; k <= 255; k++) {
        double s = k / 255.0;
        double lin = s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
        assert_int_equal(sr_display_byte((float)lin, 1.0f, SR_TONEMAP_CLAMP), k);
    }
}

static void test_format_known(void **state)
{
    (void)state;
    assert_int_equal(sr_image_format_known("a.png"), 1);
    assert_int_equal(sr_image_format_known("dir.hdr/A.PNG"), 1);
    assert_int_equal(sr_image_format_known("x.hdr"), 2);
    assert_int_equal(sr_image_format_known("x.HdR"), 2);
    assert_int_equal(sr_image_format_known(".png"), 1);
    assert_int_equal(sr_image_format_known("x.jpg"), 0);
    assert_int_equal(sr_image_format_known("png"), 0);
    assert_int_equal(sr_image_format_known("x.png.tmp"), 0);
    assert_int_equal(sr_image_format_known(""), 0);
}

/* Large images take the OpenMP path: same bytes as channel-by-channel. */
static void test_srgb8_large(void **state)
{
    (void)state;
    const uint32_t w = 300, h = 200;
    float *rgb = gradient(w, h);
    uint8_t *out = malloc((size_t)w * h * 3);
    assert_non_null(out);
    sr_image_to_srgb8(rgb, w, h, 0.75f, SR_TONEMAP_ACES, out);
    for (size_t i = 0; i < (size_t)w * h * 3; i++)
        assert_int_equal(out[i], sr_display_byte(rgb[i], 0.75f, SR_TONEMAP_ACES));
    free(out);
    free(rgb);
}

/* ---- round trips --------------------------------------------------------------------- */

static void test_png_round_trip(void **state)
{
    (void)state;
    const uint32_t w = 7, h = 5;
    char dir[512], path[600];
    snprintf(path, sizeof path, "%s/out.png", fresh_dir(dir, sizeof dir, "image_png"));
    float *rgb = gradient(w, h);
    uint8_t want[7 * 5 * 3];
    sr_image_to_srgb8(rgb, w, h, 1.5f, SR_TONEMAP_REINHARD, want);

    sr_error err = { 0 };
    assert_int_equal(sr_image_write(path, rgb, w, h, 1.5f, SR_TONEMAP_REINHARD, &err), SR_OK);
    uint8_t *got = load_back(path, w, h);
    assert_memory_equal(got, want, sizeof want);
    /* row 0 is the top: the first pixel is the darkest red, the last row full green */
    assert_int_equal(got[0], 0);
    assert_int_equal(got[((h - 1) * w) * 3 + 1], sr_display_byte(1.0f, 1.5f, SR_TONEMAP_REINHARD));
    stbi_image_free(got);

    /* the file is readable like any other (not mkstemp's 0600), and nothing else is there */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
    int tmp = -1;
    assert_int_equal(count_entries(dir, &tmp), 1);
    assert_int_equal(tmp, 0);
    free(rgb);
}

static void test_overwrite_existing(void **state)
{
    (void)state;
    char dir[512], path[600];
    snprintf(path, sizeof path, "%s/out.PNG", fresh_dir(dir, sizeof dir, "image_overwrite"));
    write_text(path, "old contents");
    float *rgb = gradient(4, 3);
    sr_error err = { 0 };
    assert_int_equal(sr_image_write(path, rgb, 4, 3, 1.0f, SR_TONEMAP_CLAMP, &err), SR_OK);
    stbi_image_free(load_back(path, 4, 3));
    assert_int_equal(count_entries(dir, NULL), 1);
    free(rgb);
}

static void test_hdr_round_trip(void **state)
{
    (void)state;
    const uint32_t w = 9, h = 4;
    char dir[512], path[600];
    snprintf(path, sizeof path, "%s/out.hdr", fresh_dir(dir, sizeof dir, "image_hdr"));
    float *rgb = gradient(w, h);
    rgb[5] = 1000.0f; /* a highlight far over 1 keeps its value */

    sr_error err = { 0 };
    assert_int_equal(sr_image_write(path, rgb, w, h, 1.0f, SR_TONEMAP_ACES, &err), SR_OK);
    float *got = load_back(path, w, h);
    for (size_t p = 0; p < (size_t)w * h; p++) {
        const float *a = rgb + p * 3, *b = got + p * 3;
        float m = fmaxf(a[0], fmaxf(a[1], a[2])); /* RGBE shares one exponent per pixel */
        for (int c = 0; c < 3; c++) assert_close(b[c], a[c], m / 128.0f);
    }
    stbi_image_free(got);
    int tmp = -1;
    assert_int_equal(count_entries(dir, &tmp), 1);
    assert_int_equal(tmp, 0);
    free(rgb);
}

static void test_hdr_exposure_doubles(void **state)
{
    (void)state;
    const uint32_t w = 6, h = 6;
    char dir[512], p1[600], p2[600];
    snprintf(p1, sizeof p1, "%s/e1.hdr", fresh_dir(dir, sizeof dir, "image_exposure"));
    snprintf(p2, sizeof p2, "%s/e2.hdr", dir);
    float *rgb = gradient(w, h);
    sr_error err = { 0 };
    assert_int_equal(sr_image_write(p1, rgb, w, h, 1.0f, SR_TONEMAP_CLAMP, &err), SR_OK);
    assert_int_equal(sr_image_write(p2, rgb, w, h, 2.0f, SR_TONEMAP_CLAMP, &err), SR_OK);
    float *a = load_back(p1, w, h), *b = load_back(p2, w, h);
    double sum = 0.0;
    for (size_t i = 0; i < (size_t)w * h * 3; i++) {
        assert_close(b[i], 2.0 * a[i], 1e-6 * fabs(b[i]));
        sum += a[i];
    }
    assert_true(sum > 1.0);
    stbi_image_free(a);
    stbi_image_free(b);

    /* and for PNG, exposure scales radiance before the tonemap */
    float *twice = malloc((size_t)w * h * 3 * sizeof(float));
    assert_non_null(twice);
    for (size_t i = 0; i < (size_t)w * h * 3; i++) twice[i] = 2.0f * rgb[i];
    uint8_t e2[6 * 6 * 3], t1[6 * 6 * 3];
    sr_image_to_srgb8(rgb, w, h, 2.0f, SR_TONEMAP_ACES, e2);
    sr_image_to_srgb8(twice, w, h, 1.0f, SR_TONEMAP_ACES, t1);
    assert_memory_equal(e2, t1, sizeof e2);
    free(twice);
    free(rgb);
}

static void test_hdr_nonfinite_written_as_black(void **state)
{
    (void)state;
    char dir[512], path[600];
    snprintf(path, sizeof path, "%s/out.hdr", fresh_dir(dir, sizeof dir, "image_hdr_nan"));
    float rgb[2 * 3] = { NAN, -1.0f, 0.5f, 0.0f, 0.0f, 0.0f };
    sr_error err = { 0 };
    assert_int_equal(sr_image_write(path, rgb, 2, 1, 1.0f, SR_TONEMAP_CLAMP, &err), SR_OK);
    float *got = load_back(path, 2, 1);
    assert_true(got[0] == 0.0f && got[1] == 0.0f);
    assert_close(got[2], 0.5, 0.5 / 128.0);
    assert_true(got[3] == 0.0f && got[4] == 0.0f && got[5] == 0.0f);
    stbi_image_free(got);
}

/* ---- failures leave nothing ---------------------------------------------------------- */

static void test_unknown_extension(void **state)
{
    (void)state;
    char dir[512], path[600];
    snprintf(path, sizeof path, "%s/out.jpg", fresh_dir(dir, sizeof dir, "image_ext"));
    sr_error err = { 0 };
    assert_int_equal(write_pixel(path, &err), SR_ERR_INPUT);
    assert_int_equal(err.status, SR_ERR_INPUT);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, ".png"));
    assert_non_null(strstr(err.msg, ".hdr"));
    assert_int_equal(count_entries(dir, NULL), 0);
    /* checked before anything else: even a nonsense size is reported as the extension */
    assert_int_equal(sr_image_write(path, NULL, 0, 0, 1.0f, SR_TONEMAP_CLAMP, &err), SR_ERR_INPUT);
    assert_non_null(strstr(err.msg, ".png"));
    assert_int_equal(count_entries(dir, NULL), 0);
}

static void test_empty_image_is_input_error(void **state)
{
    (void)state;
    char dir[512], path[600];
    snprintf(path, sizeof path, "%s/out.png", fresh_dir(dir, sizeof dir, "image_empty"));
    float rgb[3] = { 0 };
    sr_error err = { 0 };
    assert_int_equal(sr_image_write(path, rgb, 0, 1, 1.0f, SR_TONEMAP_CLAMP, &err), SR_ERR_INPUT);
    assert_non_null(strstr(err.msg, path));
    assert_int_equal(sr_image_write(path, rgb, 1u << 31, 1u << 31, 1.0f, SR_TONEMAP_CLAMP, &err),
                     SR_ERR_INPUT);
    assert_int_equal(count_entries(dir, NULL), 0);
}

static void test_missing_folder(void **state)
{
    (void)state;
    char dir[512], path[600];
    snprintf(path, sizeof path, "%s/no/such/folder/out.png", fresh_dir(dir, sizeof dir, "image_missing"));
    sr_error err = { 0 };
    assert_int_equal(write_pixel(path, &err), SR_ERR_RUNTIME);
    assert_int_equal(err.status, SR_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, strerror(ENOENT)));
    assert_false(sr_test_file_exists(path));
    assert_int_equal(count_entries(dir, NULL), 0);
}

static void test_destination_is_directory(void **state)
{
    (void)state;
    char dir[512], path[600];
    snprintf(path, sizeof path, "%s/out.hdr", fresh_dir(dir, sizeof dir, "image_isdir"));
    assert_int_equal(mkdir(path, 0777), 0);
    sr_error err = { 0 };
    assert_int_equal(write_pixel(path, &err), SR_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, path));
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    int tmp = -1;
    assert_int_equal(count_entries(dir, &tmp), 1); /* the folder itself, no temp file */
    assert_int_equal(tmp, 0);
    rmdir(path);
}

/* A write that fails halfway (file size limit: stops root too) keeps the old file whole. */
static void test_failed_write_keeps_existing_file(void **state)
{
    (void)state;
    const uint32_t w = 64, h = 64;
    char dir[512], png[600], hdr[600];
    snprintf(png, sizeof png, "%s/out.png", fresh_dir(dir, sizeof dir, "image_fsize"));
    snprintf(hdr, sizeof hdr, "%s/out.hdr", dir);
    write_text(png, "old png");
    write_text(hdr, "old hdr");
    float *rgb = malloc((size_t)w * h * 3 * sizeof(float));
    assert_non_null(rgb);
    uint32_t s = 12345u; /* noise, so the PNG cannot compress under the limit */
    for (size_t i = 0; i < (size_t)w * h * 3; i++) {
        s = s * 1664525u + 1013904223u;
        rgb[i] = (float)(s >> 8) / 16777216.0f;
    }

    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = old;
    lim.rlim_cur = 1000;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    sr_error e1 = { 0 }, e2 = { 0 };
    sr_status s1 = sr_image_write(png, rgb, w, h, 1.0f, SR_TONEMAP_CLAMP, &e1);
    sr_status s2 = sr_image_write(hdr, rgb, w, h, 1.0f, SR_TONEMAP_CLAMP, &e2);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, old_handler);

    assert_int_equal(s1, SR_ERR_RUNTIME);
    assert_int_equal(s2, SR_ERR_RUNTIME);
    assert_non_null(strstr(e1.msg, png));
    assert_non_null(strstr(e2.msg, hdr));
    assert_non_null(strstr(e1.msg, strerror(EFBIG)));
    assert_true(file_has_text(png, "old png"));
    assert_true(file_has_text(hdr, "old hdr"));
    int tmp = -1;
    assert_int_equal(count_entries(dir, &tmp), 2);
    assert_int_equal(tmp, 0);
    free(rgb);
}

/* A stop asked for while the image was encoded: the old file stays, no temporary is left. */
static int always_stop(void) { return 1; }

static void test_stop_while_encoding_keeps_old_file(void **state)
{
    (void)state;
    char dir[512], path[600];
    snprintf(path, sizeof path, "%s/out.png", fresh_dir(dir, sizeof dir, "image_stop"));
    write_text(path, "old contents");
    float *rgb = gradient(4, 3);
    sr_error err = { 0 };
    const sr_image_opts o = { .exposure = 1.0f, .tonemap = SR_TONEMAP_CLAMP, .exr_type = SR_EXR_HALF };
    assert_int_equal(sr_image_write_as(path, rgb, 4, 3, &o, always_stop, &err), SR_INTERRUPTED);
    assert_true(file_has_text(path, "old contents"));
    assert_int_equal(count_entries(dir, NULL), 1);
    free(rgb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tonemap_clamp),
        cmocka_unit_test(test_tonemap_reinhard),
        cmocka_unit_test(test_tonemap_aces),
        cmocka_unit_test(test_tonemap_huge_values),
        cmocka_unit_test(test_tonemap_monotonic),
        cmocka_unit_test(test_srgb_encode),
        cmocka_unit_test(test_display_byte),
        cmocka_unit_test(test_format_known),
        cmocka_unit_test(test_srgb8_large),
        cmocka_unit_test(test_png_round_trip),
        cmocka_unit_test(test_overwrite_existing),
        cmocka_unit_test(test_hdr_round_trip),
        cmocka_unit_test(test_hdr_exposure_doubles),
        cmocka_unit_test(test_hdr_nonfinite_written_as_black),
        cmocka_unit_test(test_unknown_extension),
        cmocka_unit_test(test_empty_image_is_input_error),
        cmocka_unit_test(test_missing_folder),
        cmocka_unit_test(test_destination_is_directory),
        cmocka_unit_test(test_failed_write_keeps_existing_file),
        cmocka_unit_test(test_stop_while_encoding_keeps_old_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
