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

#include "../../src/io/images/image.h"
#include "../../src/io/images/texfile.h"

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

/* ---- the other channel layouts OpenEXR defines for colour, written through its C API ---- */

/* One channel to write: its name, sampling and w x h source values (one per pixel; only the
 * sampled pixels are written). */
typedef struct exr_chan {
    const char *name;
    int xs, ys;
    const float *px;
} exr_chan;

/* A one-part scanline EXR of half channels with `comp` compression; chroma (when not NULL)
 * sets the chromaticities attribute. */
static void write_channels(const char *path, int w, int h, const exr_chan *ch, int n, exr_compression_t comp,
                           const exr_attr_chromaticities_t *chroma)
{
    exr_context_t ctx = NULL;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    int part = 0;
    assert_int_equal(exr_start_write(&ctx, path, EXR_WRITE_FILE_DIRECTLY, &init), EXR_ERR_SUCCESS);
    assert_int_equal(exr_add_part(ctx, "yc", EXR_STORAGE_SCANLINE, &part), EXR_ERR_SUCCESS);
    assert_int_equal(exr_initialize_required_attr_simple(ctx, part, w, h, comp), EXR_ERR_SUCCESS);
    for (int c = 0; c < n; c++)
        assert_int_equal(exr_add_channel(ctx, part, ch[c].name, EXR_PIXEL_HALF, EXR_PERCEPTUALLY_LINEAR, ch[c].xs, ch[c].ys),
                         EXR_ERR_SUCCESS);
    if (chroma) assert_int_equal(exr_attr_set_chromaticities(ctx, part, "chromaticities", chroma), EXR_ERR_SUCCESS);
    assert_int_equal(exr_write_header(ctx), EXR_ERR_SUCCESS);
    int32_t lines = 1;
    assert_int_equal(exr_get_scanlines_per_chunk(ctx, part, &lines), EXR_ERR_SUCCESS);
    /* each channel's samples, packed: ((w - 1) / xs + 1) x ((h - 1) / ys + 1) */
    float *packed[8];
    for (int c = 0; c < n; c++) {
        const int cw = (w - 1) / ch[c].xs + 1, chh = (h - 1) / ch[c].ys + 1;
        packed[c] = malloc(sizeof(float) * (size_t)cw * (size_t)chh);
        assert_non_null(packed[c]);
        for (int j = 0; j < chh; j++)
            for (int i = 0; i < cw; i++) packed[c][j * cw + i] = ch[c].px[(j * ch[c].ys) * w + i * ch[c].xs];
    }
    exr_encode_pipeline_t enc = EXR_ENCODE_PIPELINE_INITIALIZER;
    int live = 0;
    for (int y = 0; y < h; y += lines) {
        exr_chunk_info_t ci;
        assert_int_equal(exr_write_scanline_chunk_info(ctx, part, y, &ci), EXR_ERR_SUCCESS);
        assert_int_equal(live ? exr_encoding_update(ctx, part, &ci, &enc) : exr_encoding_initialize(ctx, part, &ci, &enc),
                         EXR_ERR_SUCCESS);
        for (int e = 0; e < enc.channel_count; e++) {
            exr_coding_channel_info_t *info = &enc.channels[e];
            int c = 0;
            while (c < n && strcmp(ch[c].name, info->channel_name)) c++;
            assert_true(c < n);
            const int cw = (w - 1) / ch[c].xs + 1, row = (ci.start_y + ch[c].ys - 1) / ch[c].ys;
            info->encode_from_ptr = (const uint8_t *)(packed[c] + (size_t)row * cw);
            info->user_pixel_stride = (int32_t)sizeof(float);
            info->user_line_stride = cw * (int32_t)sizeof(float);
            info->user_data_type = EXR_PIXEL_FLOAT;
            info->user_bytes_per_element = (int16_t)sizeof(float);
        }
        if (!live) {
            assert_int_equal(exr_encoding_choose_default_routines(ctx, part, &enc), EXR_ERR_SUCCESS);
            live = 1;
        }
        assert_int_equal(exr_encoding_run(ctx, part, &enc), EXR_ERR_SUCCESS);
    }
    exr_encoding_destroy(ctx, &enc);
    assert_int_equal(exr_finish(&ctx), EXR_ERR_SUCCESS);
    for (int c = 0; c < n; c++) free(packed[c]);
}

/* A smooth RGB image as Y, RY, BY planes with luminance weights yw: chroma linear in x and y
 * up to the last even column and row and the same beyond (OpenEXR wants sides that are
 * multiples of the sampling, so the last column and row hold no chroma sample when it is 2x,
 * and the reader holds the edge sample): 2x upsampling is then exact. */
static void yc_planes(int w, int h, const double yw[3], float *rgb, float *y, float *ry, float *by)
{
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            const int p = j * w + i;
            const double Y = 0.25 + 0.5 * i / w + 0.125 * j / h;
            const int ci = i < w - 2 ? i : w - 2, cj = j < h - 2 ? j : h - 2;
            const double RY = -0.3 + 0.05 * ci + 0.03 * cj, BY = 0.4 - 0.04 * ci + 0.02 * cj;
            const double R = (RY + 1.0) * Y, B = (BY + 1.0) * Y, G = (Y - R * yw[0] - B * yw[2]) / yw[1];
            rgb[3 * p] = (float)R, rgb[3 * p + 1] = (float)G, rgb[3 * p + 2] = (float)B;
            y[p] = (float)Y, ry[p] = (float)RY, by[p] = (float)BY;
        }
}

/* sr_texture_load on `path`: w x h texels within half precision (relative 2^-9) of rgb. */
static void expect_texels(const char *path, const char *what, int w, int h, const float *rgb)
{
    sr_texture_set set = { 0 };
    sr_error err = { 0 };
    uint32_t ix = 9;
    if (sr_texture_load(path, 1, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &ix, &err)) fail_msg("%s: %s", what, err.msg);
    assert_int_equal(set.items[ix].width, w);
    assert_int_equal(set.items[ix].height, h);
    for (int i = 0; i < 3 * w * h; i++)
        if (fabs((double)set.texels[i] - rgb[i]) > 0.004 * fabs((double)rgb[i]) + 1e-4)
            fail_msg("%s: texel %d channel %d: read %.6g, expected %.6g", what, i / 3, i % 3, set.texels[i], rgb[i]);
    sr_texture_set_free(&set);
}

/* Luminance/chroma (Y, RY, BY; chroma full or subsampled 2x on each axis, chunks of 1 and of
 * 32 lines) and luminance with other channels (Y, A, Z) read as colour: they crashed
 * exr_decoding_run (SIGSEGV) because the channels not used got no destination. The file's
 * chromaticities (Rec. 2020 here) decide the luminance weights. */
static void test_exr_luminance_chroma_layouts(void **state)
{
    (void)state;
    enum { W = 10, H = 8 };
    char dir[1024], path[1200];
    sr_hard_fresh_dir(dir, sizeof dir, "exr_layouts");
    static const double rec709[3] = { 0.2126, 0.7152, 0.0722 }, rec2020[3] = { 0.2627, 0.6780, 0.0593 };
    float rgb[W * H * 3], y[W * H], ry[W * H], by[W * H], a[W * H], z[W * H];
    static const int samplings[][2] = { { 1, 1 }, { 2, 2 }, { 2, 1 }, { 1, 2 } };
    static const exr_compression_t comps[] = { EXR_COMPRESSION_NONE, EXR_COMPRESSION_PIZ };
    for (int g = 0; g < 2; g++) {
        const exr_attr_chromaticities_t bt2020 = { 0.708f, 0.292f, 0.170f, 0.797f, 0.131f, 0.046f, 0.3127f, 0.3290f };
        yc_planes(W, H, g ? rec2020 : rec709, rgb, y, ry, by);
        for (size_t s = 0; s < sizeof samplings / sizeof samplings[0]; s++)
            for (size_t c = 0; c < sizeof comps / sizeof comps[0]; c++) {
                const int xs = samplings[s][0], ys = samplings[s][1];
                const exr_chan ch[] = { { "Y", 1, 1, y }, { "RY", xs, ys, ry }, { "BY", xs, ys, by } };
                char what[128];
                snprintf(what, sizeof what, "Y RY BY, chroma every %dx%d, %s, %s", xs, ys, c ? "PIZ" : "uncompressed",
                         g ? "Rec. 2020" : "no chromaticities");
                snprintf(path, sizeof path, "%s/yc.exr", dir);
                write_channels(path, W, H, ch, 3, comps[c], g ? &bt2020 : NULL);
                expect_texels(path, what, W, H, rgb);
            }
    }
    /* Y with A and Z: grey from Y, the others ignored */
    float grey[W * H * 3];
    for (int p = 0; p < W * H; p++) {
        a[p] = 0.5f, z[p] = 100.0f + (float)p;
        grey[3 * p] = grey[3 * p + 1] = grey[3 * p + 2] = y[p];
    }
    const exr_chan yaz[] = { { "Y", 1, 1, y }, { "A", 1, 1, a }, { "Z", 1, 1, z } };
    snprintf(path, sizeof path, "%s/yaz.exr", dir);
    write_channels(path, W, H, yaz, 3, EXR_COMPRESSION_PIZ, NULL);
    expect_texels(path, "Y A Z", W, H, grey);
    /* R, G, B with A and Y beside them: R, G, B */
    const exr_chan rgbay[] = { { "A", 1, 1, a }, { "B", 1, 1, by }, { "G", 1, 1, ry }, { "R", 1, 1, z }, { "Y", 1, 1, y } };
    float want[W * H * 3];
    for (int p = 0; p < W * H; p++) want[3 * p] = z[p], want[3 * p + 1] = fmaxf(ry[p], 0.0f), want[3 * p + 2] = by[p];
    snprintf(path, sizeof path, "%s/rgbay.exr", dir);
    write_channels(path, W, H, rgbay, 5, EXR_COMPRESSION_NONE, NULL);
    expect_texels(path, "R G B A Y", W, H, want);
    /* an environment map through the command line */
    const exr_chan ch[] = { { "Y", 1, 1, y }, { "RY", 2, 2, ry }, { "BY", 2, 2, by } };
    snprintf(path, sizeof path, "%s/env.exr", dir);
    write_channels(path, W, H, ch, 3, EXR_COMPRESSION_PIZ, NULL);
    char json[1600], scene[1300], out[1300];
    snprintf(json, sizeof json,
             "{\"camera\": {\"position\": [0, 0, 5], \"look_at\": [0, 0, 0]}, \"image\": {\"width\": 8, \"height\": 8, "
             "\"spp\": 1}, \"environment\": {\"file\": \"%s\"}, \"materials\": {\"m\": {\"type\": \"diffuse\"}},"
             " \"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1, \"material\": \"m\"}]}",
             path);
    snprintf(scene, sizeof scene, "%s/env.json", dir);
    FILE *f = fopen(scene, "w");
    assert_non_null(f);
    fputs(json, f);
    fclose(f);
    snprintf(out, sizeof out, "%s/env.png", dir);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    sr_child child;
    assert_int_equal(sr_hard_run(&child, argv, NULL, 120.0), 0);
    assert_true(sr_test_file_exists(out));
}

/* Layouts that are not colour are refused naming the file and what was expected. */
static void test_exr_layouts_refused(void **state)
{
    (void)state;
    enum { W = 4, H = 4 };
    char dir[1024], path[1200];
    sr_hard_fresh_dir(dir, sizeof dir, "exr_refused");
    float v[W * H];
    for (int p = 0; p < W * H; p++) v[p] = 0.5f;
    static const struct {
        exr_chan ch[3];
        int n;
        const char *want;
    } cases[] = {
        { { { "Z", 1, 1, NULL }, { "A", 1, 1, NULL } }, 2, "has channels A, Z; expected R, G, B (RGB or RGBA), Y" },
        { { { "Y", 1, 1, NULL }, { "RY", 1, 1, NULL } }, 2, "has Y and RY but no BY" },
        { { { "Y", 1, 1, NULL }, { "RY", 4, 4, NULL }, { "BY", 4, 4, NULL } }, 3, "sampled every 4x4 pixels" },
        { { { "Y", 2, 2, NULL }, { "RY", 2, 2, NULL }, { "BY", 2, 2, NULL } }, 3, "channel Y is subsampled" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        exr_chan ch[3];
        for (int c = 0; c < cases[k].n; c++) ch[c] = cases[k].ch[c], ch[c].px = v;
        snprintf(path, sizeof path, "%s/bad%zu.exr", dir, k);
        write_channels(path, W, H, ch, cases[k].n, EXR_COMPRESSION_NONE, NULL);
        sr_texture_set set = { 0 };
        sr_error err = { 0 };
        uint32_t ix = 0;
        assert_int_equal(sr_texture_load(path, 1, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &ix, &err), SR_ERR_INPUT);
        if (!strstr(err.msg, path) || !strstr(err.msg, cases[k].want)) fail_msg("case %zu: %s", k, err.msg);
        assert_int_equal(set.count, 0);
        sr_texture_set_free(&set);
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
        cmocka_unit_test(test_exr_luminance_chroma_layouts),
        cmocka_unit_test(test_exr_layouts_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
