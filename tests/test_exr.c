/* test_exr.c: EXR output read back through OpenEXR's own reader (OpenEXRCore): float
 * channels exact, half channels within half precision, exposure applied, nothing left behind;
 * and the command line's --exr-type. */
#include "testutil.h"
#include "hardutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <OpenEXR/openexr.h>

#include "image.h"
#include "texfile.h"

/* Read an RGB EXR into floats (row 0 = top), through the library's decoder. Returns the
 * pixel type of channel R in *ptype. Fails the test on any library error. */
static float *exr_read_rgb(const char *path, int *w_out, int *h_out, exr_pixel_type_t *ptype)
{
    exr_context_t ctx = NULL;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    assert_int_equal(exr_start_read(&ctx, path, &init), EXR_ERR_SUCCESS);
    exr_attr_box2i_t dw;
    assert_int_equal(exr_get_data_window(ctx, 0, &dw), EXR_ERR_SUCCESS);
    const int w = dw.max.x - dw.min.x + 1, h = dw.max.y - dw.min.y + 1;
    const exr_attr_chlist_t *chl = NULL;
    assert_int_equal(exr_get_channels(ctx, 0, &chl), EXR_ERR_SUCCESS);
    assert_int_equal(chl->num_channels, 3);
    *ptype = chl->entries[0].pixel_type;
    for (int c = 1; c < 3; c++) assert_int_equal(chl->entries[c].pixel_type, *ptype);
    int32_t lines = 0;
    assert_int_equal(exr_get_scanlines_per_chunk(ctx, 0, &lines), EXR_ERR_SUCCESS);
    float *rgb = calloc((size_t)w * h * 3, sizeof(float));
    assert_non_null(rgb);
    exr_decode_pipeline_t dec = EXR_DECODE_PIPELINE_INITIALIZER;
    int live = 0;
    for (int y = dw.min.y; y <= dw.max.y; y += lines) {
        exr_chunk_info_t ci;
        assert_int_equal(exr_read_scanline_chunk_info(ctx, 0, y, &ci), EXR_ERR_SUCCESS);
        assert_int_equal(live ? exr_decoding_update(ctx, 0, &ci, &dec) : exr_decoding_initialize(ctx, 0, &ci, &dec),
                         EXR_ERR_SUCCESS);
        for (int c = 0; c < dec.channel_count; c++) {
            exr_coding_channel_info_t *ch = &dec.channels[c];
            const char n = ch->channel_name[0];
            const int k = n == 'R' ? 0 : n == 'G' ? 1 : 2;
            ch->decode_to_ptr = (uint8_t *)(rgb + ((size_t)(ci.start_y - dw.min.y) * w * 3 + k));
            ch->user_pixel_stride = 3 * (int32_t)sizeof(float);
            ch->user_line_stride = w * 3 * (int32_t)sizeof(float);
            ch->user_data_type = EXR_PIXEL_FLOAT;
            ch->user_bytes_per_element = sizeof(float);
        }
        if (!live) {
            assert_int_equal(exr_decoding_choose_default_routines(ctx, 0, &dec), EXR_ERR_SUCCESS);
            live = 1;
        }
        assert_int_equal(exr_decoding_run(ctx, 0, &dec), EXR_ERR_SUCCESS);
    }
    exr_decoding_destroy(ctx, &dec);
    exr_finish(&ctx);
    *w_out = w;
    *h_out = h;
    return rgb;
}

/* Values over many magnitudes (and the channels told apart), all within the half range. */
static float *test_pixels(uint32_t w, uint32_t h)
{
    float *rgb = malloc((size_t)w * h * 3 * sizeof(float));
    assert_non_null(rgb);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            float *p = rgb + ((size_t)y * w + x) * 3;
            p[0] = (float)x / (float)w * 3.0f + 0.001f * (float)y;
            p[1] = powf(10.0f, -3.0f + 6.0f * (float)y / (float)h) * 1.2345678f;
            p[2] = 1.0f / (1.0f + (float)(x * y)) + 0.1f * (float)(y % 3);
        }
    return rgb;
}

static void write_and_read(const char *name, sr_exr_type type, float exposure, float **want, float **got)
{
    const uint32_t w = 37, h = 53;  /* several 16-line ZIP chunks, a partial last one */
    char dir[1024], path[1200];
    sr_hard_fresh_dir(dir, sizeof dir, name);
    snprintf(path, sizeof path, "%s/out.exr", dir);
    *want = test_pixels(w, h);
    const sr_image_opts o = { .exposure = exposure, .tonemap = SR_TONEMAP_ACES, .exr_type = type };
    sr_error err = { 0 };
    if (sr_image_write_as(path, *want, w, h, &o, NULL, &err)) fail_msg("%s", err.msg);
    assert_int_equal(sr_hard_count_files(dir), 1);  /* no temporary left */
    int rw = 0, rh = 0;
    exr_pixel_type_t pt;
    *got = exr_read_rgb(path, &rw, &rh, &pt);
    assert_int_equal(rw, (int)w);
    assert_int_equal(rh, (int)h);
    assert_int_equal(pt, type == SR_EXR_FLOAT ? EXR_PIXEL_FLOAT : EXR_PIXEL_HALF);
    for (size_t i = 0; i < (size_t)w * h * 3; i++) (*want)[i] *= exposure;
}

static void test_float_exact(void **state)
{
    (void)state;
    float *want, *got;
    write_and_read("exr_float", SR_EXR_FLOAT, 1.0f, &want, &got);
    assert_memory_equal(got, want, 37 * 53 * 3 * sizeof(float));
    free(want);
    free(got);
}

/* Half keeps 11 significant bits: rounding to nearest is off by at most 2^-11 relative for
 * normal halves (>= 2^-14), and by half a subnormal step (2^-25) below. */
static void test_half_within_precision(void **state)
{
    (void)state;
    float *want, *got;
    write_and_read("exr_half", SR_EXR_HALF, 2.0f, &want, &got);
    int inexact = 0;
    for (size_t i = 0; i < 37 * 53 * 3; i++) {
        const double tol = fmax(fabs((double)want[i]) * ldexp(1.0, -11), ldexp(1.0, -25));
        if (fabs((double)got[i] - (double)want[i]) > tol)
            fail_msg("value %zu: wrote %.9g, read %.9g (tolerance %.3g)", i, want[i], got[i], tol);
        inexact += got[i] != want[i];
    }
    assert_true(inexact > 0);  /* it really was stored as half */
    free(want);
    free(got);
}

static void test_cli_exr_type(void **state)
{
    (void)state;
    char scene[1024], dir[1024], out[1100], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_hard_fresh_dir(dir, sizeof dir, "exr_cli");
    snprintf(out, sizeof out, "%s/x.exr", dir);
    const char *bad[] = { "render", scene, "--backend", "cpu", "--exr-type", "double", "-o", out, NULL };
    assert_int_equal(sr_test_run_cli(bad, err, sizeof err), 2);
    if (!strstr(err, "--exr-type double: unknown pixel type; expected half or float")) fail_msg("%s", err);
    assert_int_equal(sr_hard_count_files(dir), 0);
    const char *good[] = { "render", scene, "--backend", "cpu", "--width", "16", "--height", "9", "--spp", "1",
                           "--exr-type", "float", "-o", out, "-q", NULL };
    const int code = sr_test_run_cli(good, err, sizeof err);
    if (code) fail_msg("exit %d: %s", code, err);
    int w = 0, h = 0;
    exr_pixel_type_t pt;
    float *rgb = exr_read_rgb(out, &w, &h, &pt);
    assert_int_equal(w, 16);
    assert_int_equal(h, 9);
    assert_int_equal(pt, EXR_PIXEL_FLOAT);
    double sum = 0;
    for (int i = 0; i < w * h * 3; i++) sum += rgb[i];
    assert_true(sum > 0);  /* a lit scene, not an empty buffer */
    free(rgb);
}

/* EXR as an input: a texture (or environment map) read back through sr_texture_load has the
 * written floats exactly, rows top first; a truncated file is refused naming it. */
static void test_exr_texture_input(void **state)
{
    (void)state;
    const uint32_t w = 5, h = 3;
    char dir[1024], path[1200], cut[1200];
    sr_hard_fresh_dir(dir, sizeof dir, "exr_input");
    snprintf(path, sizeof path, "%s/tex.exr", dir);
    float px[5 * 3 * 3];
    for (uint32_t i = 0; i < w * h * 3; i++) px[i] = 0.125f * (float)i + 1e-3f * (float)(i % 7);
    const sr_image_opts o = { .exposure = 1.0f, .tonemap = SR_TONEMAP_CLAMP, .exr_type = SR_EXR_FLOAT };
    sr_error err = { 0 };
    assert_int_equal(sr_image_write_as(path, px, w, h, &o, NULL, &err), SR_OK);
    sr_texture_set set = { 0 };
    uint32_t index = 9;
    if (sr_texture_load(path, 1, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &index, &err)) fail_msg("%s", err.msg);
    assert_int_equal(index, 0);
    assert_int_equal(set.items[0].width, w);
    assert_int_equal(set.items[0].height, h);
    assert_memory_equal(set.texels, px, sizeof px);   /* linear: no sRGB decoding of float data */
    sr_texture_set_free(&set);

    /* the first half of the file */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char buf[65536];
    const size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    snprintf(cut, sizeof cut, "%s/cut.exr", dir);
    f = fopen(cut, "wb");
    assert_non_null(f);
    fwrite(buf, 1, n / 2, f);
    fclose(f);
    sr_error e2 = { 0 };
    assert_int_equal(sr_texture_load(cut, 1, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &index, &e2), SR_ERR_INPUT);
    if (!strstr(e2.msg, "cut.exr")) fail_msg("%s", e2.msg);
    assert_int_equal(set.count, 0);
    sr_texture_set_free(&set);
}

/* Noise does not compress: every size must still read back (ZIP did not, with this library). */
static void test_incompressible_round_trip(void **state)
{
    (void)state;
    char dir[1024], path[1200];
    sr_hard_fresh_dir(dir, sizeof dir, "exr_noise");
    snprintf(path, sizeof path, "%s/noise.exr", dir);
    static const uint32_t sizes[][2] = { { 5, 3 }, { 5, 5 }, { 8, 46 }, { 113, 49 }, { 1, 1 }, { 64, 17 } };
    uint32_t state_rng = 12345u;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int t = 0; t < 2; t++) {
            const uint32_t w = sizes[k][0], h = sizes[k][1];
            float *px = malloc(sizeof(float) * 3 * w * h);
            assert_non_null(px);
            for (uint32_t i = 0; i < 3 * w * h; i++) {
                state_rng = state_rng * 1664525u + 1013904223u;
                px[i] = (float)(state_rng >> 8) * (1.0f / 16777216.0f) * 1000.0f;
            }
            const sr_image_opts o = { .exposure = 1.0f, .tonemap = SR_TONEMAP_CLAMP, .exr_type = t ? SR_EXR_HALF : SR_EXR_FLOAT };
            sr_error err = { 0 };
            assert_int_equal(sr_image_write_as(path, px, w, h, &o, NULL, &err), SR_OK);
            int rw = 0, rh = 0;
            exr_pixel_type_t pt;
            float *got = exr_read_rgb(path, &rw, &rh, &pt);
            for (uint32_t i = 0; i < 3 * w * h; i++) {
                const double tol = t ? fmax(fabs((double)px[i]) * ldexp(1.0, -11), ldexp(1.0, -25)) : 0.0;
                if (fabs((double)got[i] - (double)px[i]) > tol)
                    fail_msg("%ux%u %s: value %u wrote %.9g, read %.9g", w, h, t ? "half" : "float", i, px[i], got[i]);
            }
            free(got);
            free(px);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_exact),
        cmocka_unit_test(test_half_within_precision),
        cmocka_unit_test(test_cli_exr_type),
        cmocka_unit_test(test_exr_texture_input),
        cmocka_unit_test(test_incompressible_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
