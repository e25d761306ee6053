/* test_texture.c: image textures. A quad with a known texture at known UVs returns the texels
 * exactly (nearest filtering, an ambient-only diffuse surface shows its albedo); bilinear
 * filtering weights and repeat/clamp wrapping against hand-computed values; sRGB decoding
 * for colour maps and plain /255 for data maps; and bad texture files or textures on prims
 * without UVs stop with exit 2, naming the file and the scene's line:column, writing nothing. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stb_image_write.h>

#include "../../src/io/images/texfile.h"
#include "../../kernels/core/texture.h"

#define TW 4
#define TH 4

/* A 4x4 RGB image, every texel a different colour: (i, j) -> (40 i + 7, 50 j + 11, 13 i j + 3). */
static void texel_bytes(int i, int j, unsigned char out[3])
{
    out[0] = (unsigned char)(40 * i + 7);
    out[1] = (unsigned char)(50 * j + 11);
    out[2] = (unsigned char)(13 * i * j + 3);
}

static void write_png(const char *path)
{
    unsigned char px[TW * TH * 3];
    for (int j = 0; j < TH; j++)
        for (int i = 0; i < TW; i++) texel_bytes(i, j, px + 3 * (j * TW + i));
    assert_true(stbi_write_png(path, TW, TH, 3, px, TW * 3) != 0);
}

static void test_srgb_decode(void **state)
{
    (void)state;
    assert_true(sr_srgb_decode8(0) == 0.0f);
    assert_true(sr_srgb_decode8(255) == 1.0f);
    /* 10/255 is on the linear segment: /12.92 */
    assert_float_equal(sr_srgb_decode8(10), (10.0 / 255.0) / 12.92, 1e-9);
    /* code 128: ((128/255 + 0.055) / 1.055)^2.4 = 0.2158605 */
    assert_float_equal(sr_srgb_decode8(128), 0.2158605, 1e-6);
    for (int k = 1; k < 256; k++) assert_true(sr_srgb_decode8((uint8_t)k) > sr_srgb_decode8((uint8_t)(k - 1)));
}

/* The loader: a colour map is decoded from sRGB, a data map divided by 255, rows top first. */
static void test_load_colour_and_data(void **state)
{
    (void)state;
    char png[512];
    sr_test_tmp_path(png, sizeof png, "tex_4x4.png");
    write_png(png);
    sr_texture_set set = { 0 };
    sr_error e = { 0 };
    uint32_t a = 9, b = 9;
    assert_int_equal(sr_texture_load(png, 1, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &a, &e), SR_OK);
    assert_int_equal(sr_texture_load(png, 0, SR_WRAP_CLAMP, SR_FILTER_BILINEAR, &set, &b, &e), SR_OK);
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
    assert_int_equal(set.items[1].offset, TW * TH);
    for (int j = 0; j < TH; j++)
        for (int i = 0; i < TW; i++) {
            unsigned char t[3];
            texel_bytes(i, j, t);
            for (int c = 0; c < 3; c++) {
                assert_true(set.texels[3 * (j * TW + i) + c] == sr_srgb_decode8(t[c]));
                assert_true(set.texels[3 * (TW * TH + j * TW + i) + c] == (float)t[c] / 255.0f);
            }
        }
    sr_texture_set_free(&set);
}

/* sr_tex_sample on a 2x2 texture of known texels. */
static void test_bilinear_weights_and_wrap(void **state)
{
    (void)state;
    /* row 0 (top): A B; row 1: C D, one channel each plus distinct others */
    const float texels[12] = { 1, 10, 100, 2, 20, 200, 3, 30, 300, 4, 40, 400 };
    sr_texture t = { .offset = 0, .width = 2, .height = 2, .wrap = SR_WRAP_CLAMP, .filter = SR_FILTER_BILINEAR };
    sr_scene_view v;
    memset(&v, 0, sizeof v);
    v.texels = texels;
    v.textures = &t;
    /* texel centres (u = 0.25, 0.75; v = 0.75 is the top row) give the texel itself */
    sr_vec3 c = sr_tex_sample(&v, &t, 0.25f, 0.75f);
    assert_true(c.x == 1.0f && c.y == 10.0f && c.z == 100.0f);
    c = sr_tex_sample(&v, &t, 0.75f, 0.25f);
    assert_true(c.x == 4.0f && c.y == 40.0f && c.z == 400.0f);
    /* the middle: the mean of all four */
    c = sr_tex_sample(&v, &t, 0.5f, 0.5f);
    assert_float_equal(c.x, 2.5, 1e-6);
    assert_float_equal(c.z, 250.0, 1e-4);
    /* a quarter of the way from A's centre to B's (u = 0.375), on the top row: 0.75 A + 0.25 B */
    c = sr_tex_sample(&v, &t, 0.375f, 0.75f);
    assert_float_equal(c.x, 0.75 * 1 + 0.25 * 2, 1e-6);
    /* and down a quarter towards C (v = 0.625): rows weighted 0.75 / 0.25 */
    c = sr_tex_sample(&v, &t, 0.375f, 0.625f);
    assert_float_equal(c.x, 0.75 * (0.75 * 1 + 0.25 * 2) + 0.25 * (0.75 * 3 + 0.25 * 4), 1e-6);
    /* the left edge at the top row's centre: clamp keeps A; repeat blends A with B (the
     * wrapped neighbour), half and half */
    c = sr_tex_sample(&v, &t, 0.0f, 0.75f);
    assert_float_equal(c.x, 1.0, 0.0);
    t.wrap = SR_WRAP_REPEAT;
    c = sr_tex_sample(&v, &t, 0.0f, 0.75f);
    assert_float_equal(c.x, 1.5, 1e-6);
    /* repeat: u and u + 3 give the same value; clamp: far outside is the edge texel */
    sr_vec3 d = sr_tex_sample(&v, &t, 3.375f, 0.75f);
    c = sr_tex_sample(&v, &t, 0.375f, 0.75f);
    assert_float_equal(d.x, c.x, 1e-5);
    t.wrap = SR_WRAP_CLAMP;
    c = sr_tex_sample(&v, &t, -7.0f, 5.0f);
    assert_true(c.x == 1.0f);
    /* nearest: the texel the point falls in */
    t.filter = SR_FILTER_NEAREST;
    c = sr_tex_sample(&v, &t, 0.49f, 0.51f);
    assert_true(c.x == 1.0f);
    c = sr_tex_sample(&v, &t, 0.51f, 0.49f);
    assert_true(c.x == 4.0f);
}

/* Any size is a texture: a 3x5 image (no power of two) and a 1x1 one load with their own
 * size, and sampling them returns their texels: nearest at each texel's centre, and the one
 * texel of a 1x1 image everywhere, both filters, both wraps. */
static void test_odd_sizes(void **state)
{
    (void)state;
    char png[512];
    unsigned char px[3 * 5 * 3];
    for (int k = 0; k < 3 * 5 * 3; k++) px[k] = (unsigned char)(7 * k + 1);
    sr_test_tmp_path(png, sizeof png, "tex_3x5.png");
    assert_true(stbi_write_png(png, 3, 5, 3, px, 3 * 3) != 0);
    char one[512];
    const unsigned char single[3] = { 200, 100, 50 };
    sr_test_tmp_path(one, sizeof one, "tex_1x1.png");
    assert_true(stbi_write_png(one, 1, 1, 3, single, 3) != 0);
    sr_texture_set set = { 0 };
    sr_error e = { 0 };
    uint32_t a = 9, b = 9;
    assert_int_equal(sr_texture_load(png, 0, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &a, &e), SR_OK);
    assert_int_equal(sr_texture_load(one, 0, SR_WRAP_CLAMP, SR_FILTER_BILINEAR, &set, &b, &e), SR_OK);
    assert_int_equal(set.items[a].width, 3);
    assert_int_equal(set.items[a].height, 5);
    assert_int_equal(set.items[b].width, 1);
    assert_int_equal(set.items[b].height, 1);
    sr_scene_view v;
    memset(&v, 0, sizeof v);
    v.texels = set.texels;
    /* v = 1 is the top row (row 0 of the file): texel (i, j) is at u = (i + 0.5) / 3,
     * v = 1 - (j + 0.5) / 5 */
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 3; i++) {
            const sr_vec3 c = sr_tex_sample(&v, &set.items[a], (i + 0.5f) / 3.0f, 1.0f - (j + 0.5f) / 5.0f);
            assert_true(c.x == (float)px[3 * (j * 3 + i)] / 255.0f);
            assert_true(c.z == (float)px[3 * (j * 3 + i) + 2] / 255.0f);
        }
    for (int w = 0; w < 2; w++)
        for (int f = 0; f < 2; f++) {
            sr_texture t = set.items[b];
            t.wrap = w ? SR_WRAP_REPEAT : SR_WRAP_CLAMP;
            t.filter = f ? SR_FILTER_BILINEAR : SR_FILTER_NEAREST;
            const float uv[4][2] = { { 0.5f, 0.5f }, { 0.0f, 0.0f }, { 0.99f, 0.01f }, { 3.3f, -2.7f } };
            for (int k = 0; k < 4; k++) {
                const sr_vec3 c = sr_tex_sample(&v, &t, uv[k][0], uv[k][1]);
                assert_float_equal(c.x, 200.0 / 255.0, 1e-6);
                assert_float_equal(c.y, 100.0 / 255.0, 1e-6);
                assert_float_equal(c.z, 50.0 / 255.0, 1e-6);
            }
        }
    sr_texture_set_free(&set);
}

/* A 2x2 quad at z = 0 facing a pinhole camera at z = 3, lit only by an ambient term of 1:
 * each pixel shows the albedo texture's value at its UV. */
static void test_quad_returns_texels(void **state)
{
    (void)state;
    char png[512], json[2048];
    sr_test_tmp_path(png, sizeof png, "tex_quad.png");
    write_png(png);
    const int W = 80;
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,3],\"look_at\":[0,0,0],\"fov\":40},"
             " \"image\":{\"width\":%d,\"height\":%d,\"spp\":1,\"max_depth\":1}, \"ambient\":[1,1,1],"
             " \"materials\":{\"t\":{\"type\":\"diffuse\",\"albedo\":{\"texture\":\"%s\",\"filter\":\"nearest\"}}},"
             " \"objects\":[{\"type\":\"quad\",\"corner\":[-1,-1,0],\"edge_u\":[2,0,0],\"edge_v\":[0,2,0],\"material\":\"t\"}]}",
             W, W, png);
    sr_scene s;
    sr_test_parse("quad.json", json, &s);
    float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 1, NULL);
    const double half = 3.0 * tan(20.0 * M_PI / 180.0);   /* half the view's height at z = 0 */
    int checked = 0, seen[TW][TH] = { { 0 } };
    for (int y = 0; y < W; y++)
        for (int x = 0; x < W; x++) {
            const double wx = (2.0 * (x + 0.5) / W - 1.0) * half, wy = (1.0 - 2.0 * (y + 0.5) / W) * half;
            const double u = (wx + 1.0) / 2.0, v = (wy + 1.0) / 2.0;
            if (!(u > 0.0 && u < 1.0 && v > 0.0 && v < 1.0)) continue;
            const double fi = u * TW, fj = (1.0 - v) * TH;
            if (fabs(fi - floor(fi + 0.5)) < 1e-3 || fabs(fj - floor(fj + 0.5)) < 1e-3) continue;   /* on a texel edge */
            const int i = (int)fi, j = (int)fj;
            unsigned char t[3];
            texel_bytes(i, j, t);
            for (int c = 0; c < 3; c++)
                if (img[3 * (y * W + x) + c] != sr_srgb_decode8(t[c]))
                    fail_msg("pixel (%d, %d) channel %d: %.9g, expected texel (%d, %d) = %.9g", x, y, c,
                             img[3 * (y * W + x) + c], i, j, sr_srgb_decode8(t[c]));
            seen[i][j]++;
            checked++;
        }
    assert_true(checked > 3000);
    for (int i = 0; i < TW; i++)
        for (int j = 0; j < TH; j++) assert_true(seen[i][j] > 100);   /* every texel showed up */
    free(img);
    sr_scene_free(&s);
}

/* A scene whose material uses `albedo_json` on `object_json`, rendered through the CLI:
 * exit 2, a message with `want1` and `want2`, nothing written. */
static void expect_refused(const char *name, const char *albedo_json, const char *object_json, const char *want1,
                           const char *want2)
{
    char json[4096], scene[600], out[600], err[8192];
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,3],\"look_at\":[0,0,0]},\n"
             " \"materials\":{\"t\":{\"type\":\"diffuse\",\n"
             "   \"albedo\":%s}},\n"
             " \"objects\":[%s]}",
             albedo_json, object_json);
    sr_test_write_file(scene, sizeof scene, name, json);
    sr_test_tmp_path(out, sizeof out, "tex_never.png");
    remove(out);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
    if (!strstr(err, name) || !strstr(err, want1) || (want2 && !strstr(err, want2)))
        fail_msg("expected '%s' and '%s' in:\n%s", want1, want2 ? want2 : "", err);
    assert_false(sr_test_file_exists(out));
}

static void test_bad_textures(void **state)
{
    (void)state;
    const char *quad = "{\"type\":\"quad\",\"corner\":[-1,-1,0],\"edge_u\":[2,0,0],\"edge_v\":[0,2,0],\"material\":\"t\"}";
    char png[512], cut[512], text[512], albedo[1200];
    /* missing: the message names the file and the line:column of "texture"'s value */
    expect_refused("tex_missing.json", "{\"texture\":\"no_such.png\"}", quad, "tex_missing.json:3:24:", "no_such.png");
    /* truncated: the first half of a valid PNG */
    sr_test_tmp_path(png, sizeof png, "tex_full.png");
    write_png(png);
    FILE *f = fopen(png, "rb");
    assert_non_null(f);
    unsigned char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    sr_test_tmp_path(cut, sizeof cut, "tex_cut.png");
    f = fopen(cut, "wb");
    assert_non_null(f);
    fwrite(buf, 1, n / 2, f);
    fclose(f);
    snprintf(albedo, sizeof albedo, "{\"texture\":\"%s\"}", cut);
    expect_refused("tex_cut.json", albedo, quad, "tex_cut.png", "texture file");
    /* not an image at all */
    sr_test_write_file(text, sizeof text, "tex_text.png", "this is not a picture\n");
    snprintf(albedo, sizeof albedo, "{\"texture\":\"%s\"}", text);
    expect_refused("tex_text.json", albedo, quad, "tex_text.png", "expected a PNG, JPEG, TGA, Radiance HDR or OpenEXR image");
    /* a sphere has no UVs */
    snprintf(albedo, sizeof albedo, "{\"texture\":\"%s\"}", png);
    expect_refused("tex_sphere.json", albedo, "{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"t\"}",
                   "has no texture coordinates", "a sphere");
    /* a mesh without vt */
    char obj[512], mesh[1024];
    sr_test_tmp_path(obj, sizeof obj, "tex_plain_sphere.obj");
    sr_test_write_uv_sphere(obj, 8, 4, 1, 0);
    snprintf(mesh, sizeof mesh, "{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"t\"}", obj);
    expect_refused("tex_mesh.json", albedo, mesh, "has no texture coordinates", "tex_plain_sphere.obj");
    /* an unknown wrap mode */
    snprintf(albedo, sizeof albedo, "{\"texture\":\"%s\",\"wrap\":\"mirror\"}", png);
    expect_refused("tex_wrap.json", albedo, quad, "repeat", "clamp");
}

/* Only the formats the project documents reach stb_image: a BMP (which stb_image would decode)
 * is refused by its content whatever its name, also as .tga; a real TGA (named .tga) and a
 * JPEG load. */
static void test_texture_formats(void **state)
{
    (void)state;
    unsigned char px[TW * TH * 3];
    for (int j = 0; j < TH; j++)
        for (int i = 0; i < TW; i++) texel_bytes(i, j, px + 3 * (j * TW + i));
    static const char *const bmp_names[] = { "tex_bmp.png", "tex_bmp.tga", "tex_bmp.bmp" };
    for (size_t k = 0; k < sizeof bmp_names / sizeof bmp_names[0]; k++) {
        char path[512];
        sr_test_tmp_path(path, sizeof path, bmp_names[k]);
        assert_true(stbi_write_bmp(path, TW, TH, 3, px) != 0);
        sr_texture_set set = { 0 };
        sr_error e = { 0 };
        uint32_t ix = 0;
        assert_int_equal(sr_texture_load(path, 1, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &ix, &e), SR_ERR_INPUT);
        if (!strstr(e.msg, bmp_names[k]) || !strstr(e.msg, "expected a PNG, JPEG, TGA, Radiance HDR or OpenEXR image"))
            fail_msg("%s: %s", bmp_names[k], e.msg);
        sr_texture_set_free(&set);
    }
    char tga[512], jpg[512];
    sr_test_tmp_path(tga, sizeof tga, "tex_4x4.tga");
    assert_true(stbi_write_tga(tga, TW, TH, 3, px) != 0);
    sr_test_tmp_path(jpg, sizeof jpg, "tex_4x4.jpg");
    assert_true(stbi_write_jpg(jpg, TW, TH, 3, px, 100) != 0);
    const char *const good[] = { tga, jpg };
    for (int k = 0; k < 2; k++) {
        sr_texture_set set = { 0 };
        sr_error e = { 0 };
        uint32_t ix = 9;
        if (sr_texture_load(good[k], 1, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &ix, &e) != SR_OK)
            fail_msg("%s: %s", good[k], e.msg);
        assert_int_equal(ix, 0);
        assert_int_equal(set.items[0].width, TW);
        assert_int_equal(set.items[0].height, TH);
        sr_texture_set_free(&set);
    }
}

/* stb_image's run-length decoder for Radiance HDR spins forever on data cut short inside a
 * scanline (it reads zeros past the end, and a count of 0 makes no progress; fuzz_texture
 * found it): such a file is refused before it runs, wherever in the scanlines it ends. The
 * whole file loads, and so does one with a stray count of 0 (only a wasted byte). */
static void test_hdr_run_lengths(void **state)
{
    (void)state;
    float px[16 * 2 * 3];
    for (int k = 0; k < 16 * 2 * 3; k++) px[k] = (float)(k % 7) * 0.25f;
    char good[512], bad[512];
    sr_test_tmp_path(good, sizeof good, "tex_rle.hdr");
    assert_true(stbi_write_hdr(good, 16, 2, 3, px) != 0);   /* 16 wide: run-length scanlines */
    FILE *f = fopen(good, "rb");
    assert_non_null(f);
    unsigned char bytes[4096];
    const size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    size_t data = 0;   /* the first scanline: 2 2 0 16 */
    while (data + 4 <= n && !(bytes[data] == 2 && bytes[data + 1] == 2 && bytes[data + 2] == 0 && bytes[data + 3] == 16))
        data++;
    assert_true(data + 4 < n);
    sr_texture_set set = { 0 };
    sr_error e = { 0 };
    uint32_t ix = 0;
    if (sr_texture_load(good, 0, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &ix, &e) != SR_OK) fail_msg("%s", e.msg);
    sr_texture_set_free(&set);
    sr_test_tmp_path(bad, sizeof bad, "tex_rle_cut.hdr");
    size_t second = data + 4;   /* the second scanline's header */
    while (second + 4 <= n && !(bytes[second] == 2 && bytes[second + 1] == 2 && bytes[second + 2] == 0 &&
                                bytes[second + 3] == 16))
        second++;
    assert_true(second + 4 < n);
    /* cut where a count is read next: at the first and the second scanline's first count
     * (without the check these loads never return) */
    const size_t cuts[] = { data + 4, second + 4 };
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        f = fopen(bad, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(bytes, 1, cuts[c], f), cuts[c]);
        fclose(f);
        memset(&e, 0, sizeof e);
        assert_int_equal(sr_texture_load(bad, 0, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &ix, &e), SR_ERR_INPUT);
        if (!strstr(e.msg, "run-length data ends inside a scanline")) fail_msg("cut at %zu of %zu: %s", cuts[c], n, e.msg);
        sr_texture_set_free(&set);
    }
    /* 256 wide, cut after "2 2 1" of the first scanline's header: the missing byte reads as 0,
     * which is what a width of 256 needs there */
    static float wide[256 * 3];
    assert_true(stbi_write_hdr(good, 256, 1, 3, wide) != 0);
    f = fopen(good, "rb");
    assert_non_null(f);
    const size_t wn = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    size_t head = 0;
    while (head + 4 <= wn && !(bytes[head] == 2 && bytes[head + 1] == 2 && bytes[head + 2] == 1 && bytes[head + 3] == 0))
        head++;
    assert_true(head + 4 < wn);
    f = fopen(bad, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, head + 3, f), head + 3);
    fclose(f);
    memset(&e, 0, sizeof e);
    assert_int_equal(sr_texture_load(bad, 0, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &ix, &e), SR_ERR_INPUT);
    if (!strstr(e.msg, "run-length data ends inside a scanline")) fail_msg("256 wide, cut in its header: %s", e.msg);
    sr_texture_set_free(&set);
}

/* Huge images are refused from their header, before any decoding: a side over the limit, and
 * an image whose texels do not fit the memory that is free (simulated with SR_HOST_MEM_LIMIT). */
static void test_huge_textures(void **state)
{
    (void)state;
    const char *quad = "{\"type\":\"quad\",\"corner\":[-1,-1,0],\"edge_u\":[2,0,0],\"edge_v\":[0,2,0],\"material\":\"t\"}";
    char png[512], albedo[1200];
    /* a 1x1 PNG whose header is edited to say 40000 wide (stb_image reads the size from IHDR) */
    sr_test_tmp_path(png, sizeof png, "tex_wide.png");
    const unsigned char px[3] = { 1, 2, 3 };
    assert_true(stbi_write_png(png, 1, 1, 3, px, 3) != 0);
    FILE *f = fopen(png, "r+b");
    assert_non_null(f);
    const unsigned char wide[4] = { 0x00, 0x00, 0x9c, 0x40 };   /* 40000, big-endian, at byte 16 */
    assert_int_equal(fseek(f, 16, SEEK_SET), 0);
    assert_int_equal(fwrite(wide, 1, 4, f), 4);
    fclose(f);
    snprintf(albedo, sizeof albedo, "{\"texture\":\"%s\"}", png);
    expect_refused("tex_wide.json", albedo, quad, "40000x1 pixels", "expected 1 to 32768 on a side");

    /* 4096 x 4096 of one colour: a tiny file, 192 MiB as linear floats */
    sr_test_tmp_path(png, sizeof png, "tex_big.png");
    unsigned char *big = calloc((size_t)4096 * 4096, 3);
    assert_non_null(big);
    assert_true(stbi_write_png(png, 4096, 4096, 3, big, 4096 * 3) != 0);
    free(big);
    snprintf(albedo, sizeof albedo, "{\"texture\":\"%s\"}", png);
    setenv("SR_HOST_MEM_LIMIT", "100M", 1);
    expect_refused("tex_big.json", albedo, quad, "tex_big.png (4096x4096) needs", "of host memory");
    unsetenv("SR_HOST_MEM_LIMIT");
}

/* A mesh with UVs takes the texture: the UV sphere's texture coordinates reach the shader
 * (its colours are the texture's, not the material's tint alone). */
static void test_mesh_uvs(void **state)
{
    (void)state;
    char png[512], obj[512], json[2048];
    sr_test_tmp_path(png, sizeof png, "tex_mesh.png");
    write_png(png);
    sr_test_tmp_path(obj, sizeof obj, "tex_uv_sphere.obj");
    sr_test_write_uv_sphere(obj, 16, 8, 1, 1);
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0],\"fov\":40},"
             " \"image\":{\"width\":48,\"height\":48,\"spp\":1,\"max_depth\":1}, \"ambient\":[1,1,1],"
             " \"materials\":{\"t\":{\"type\":\"diffuse\",\"albedo\":{\"texture\":\"%s\",\"filter\":\"nearest\"}}},"
             " \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"t\"}]}",
             png, obj);
    sr_scene s;
    sr_test_parse("uvmesh.json", json, &s);
    assert_non_null(s.attrs);
    float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 1, NULL);
    /* every pixel on the sphere is one of the 16 texels; several different ones appear */
    int distinct = 0, on = 0;
    float seen[16];
    for (int p = 0; p < 48 * 48; p++) {
        const float r = img[3 * p];
        if (r == 0.0f && img[3 * p + 1] == 0.0f) continue;   /* background */
        on++;
        int match = 0;
        for (int j = 0; j < TH && !match; j++)
            for (int i = 0; i < TW && !match; i++) {
                unsigned char t[3];
                texel_bytes(i, j, t);
                match = r == sr_srgb_decode8(t[0]) && img[3 * p + 1] == sr_srgb_decode8(t[1]);
            }
        if (!match) fail_msg("pixel %d (%.9g, %.9g) is no texel", p, r, img[3 * p + 1]);
        int known = 0;
        for (int k = 0; k < distinct; k++) known |= seen[k] == r + 1000.0f * img[3 * p + 1];
        if (!known && distinct < 16) seen[distinct++] = r + 1000.0f * img[3 * p + 1];
    }
    assert_true(on > 500);
    assert_true(distinct >= 6);
    free(img);
    sr_scene_free(&s);
}

/* The bytes of a file (at most cap). */
static size_t read_bytes(const char *path, unsigned char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    const size_t n = fread(buf, 1, cap, f);
    fclose(f);
    assert_true(n < cap);
    return n;
}

static void write_bytes(const char *path, const unsigned char *buf, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    fclose(f);
}

/* sr_texture_load of `path` is SR_ERR_INPUT naming it, with `want`, and adds nothing. */
static void expect_load_refused(const char *path, const char *what, const char *want)
{
    sr_texture_set set = { 0 };
    sr_error e = { 0 };
    uint32_t ix = 0;
    const sr_status st = sr_texture_load(path, 1, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &ix, &e);
    if (st != SR_ERR_INPUT || !strstr(e.msg, path) || !strstr(e.msg, want))
        fail_msg("%s: status %d, expected %d with \"%s\": %s", what, (int)st, (int)SR_ERR_INPUT, want, e.msg);
    assert_int_equal(set.count, 0);
    sr_texture_set_free(&set);
}

/* Every prefix of the file from `from` bytes on (the whole pixel data cut short anywhere) is
 * refused, the whole file loads. */
static void expect_every_cut_refused(const char *full, const char *cut, size_t from, const char *what)
{
    static unsigned char bytes[65536];
    const size_t n = read_bytes(full, bytes, sizeof bytes);
    sr_texture_set set = { 0 };
    sr_error e = { 0 };
    uint32_t ix = 0;
    if (sr_texture_load(full, 1, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &set, &ix, &e)) fail_msg("%s whole: %s", what, e.msg);
    sr_texture_set_free(&set);
    for (size_t len = from; len < n; len++) {
        write_bytes(cut, bytes, len);
        char label[160];
        snprintf(label, sizeof label, "%s cut to %zu of %zu bytes", what, len, n);
        expect_load_refused(cut, label, "");
    }
}

/* A scene with `env` as its environment map renders with exit 2 and `want`, writing nothing. */
static void expect_env_refused(const char *name, const char *env, const char *want)
{
    char json[2048], scene[600], out[600], err[8192];
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,3],\"look_at\":[0,0,0]}, \"image\":{\"width\":8,\"height\":8,\"spp\":1},\n"
             " \"environment\":{\"file\":\"%s\"}, \"materials\":{\"m\":{\"type\":\"diffuse\"}},\n"
             " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"m\"}]}",
             env);
    sr_test_write_file(scene, sizeof scene, name, json);
    sr_test_tmp_path(out, sizeof out, "tex_env_never.png");
    remove(out);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    const int code = sr_test_run_cli(argv, err, sizeof err);
    if (code != 2 || !strstr(err, env) || !strstr(err, want))
        fail_msg("%s: exit %d, expected 2 with \"%s\":\n%s", name, code, want, err);
    assert_false(sr_test_file_exists(out));
}

/* A TGA is refused when its file is shorter than its header says: an 18-byte header that
 * claims 8192 x 8192 (decoded into 970 MiB of zeros before), uncompressed and run-length
 * files cut anywhere in their pixels, as a texture and as an environment map. stb_image reads
 * zeros past the end and reports nothing. */
static void test_tga_cut_short(void **state)
{
    (void)state;
    char head[512], full[512], cut[512];
    unsigned char h18[18] = { 0, 0, 2 };   /* no ID, no colour map, uncompressed true colour */
    h18[12] = 0x00, h18[13] = 0x20, h18[14] = 0x00, h18[15] = 0x20, h18[16] = 24;   /* 8192 x 8192, 24 bits */
    sr_test_tmp_path(head, sizeof head, "tex_head_only.tga");
    write_bytes(head, h18, sizeof h18);
    expect_load_refused(head, "header only", "is cut short: its TGA header says 8192x8192 pixels, which need "
                        "201326610 bytes of file, but it has 18");
    unsigned char px[16 * 8 * 3];
    for (int k = 0; k < 16 * 8 * 3; k++) px[k] = (unsigned char)(k / 7 * 13);   /* runs and literals */
    sr_test_tmp_path(full, sizeof full, "tex_full.tga");
    sr_test_tmp_path(cut, sizeof cut, "tex_cut.tga");
    for (int rle = 0; rle < 2; rle++) {
        stbi_write_tga_with_rle = rle;
        assert_true(stbi_write_tga(full, 16, 8, 3, px) != 0);
        expect_every_cut_refused(full, cut, 18, rle ? "run-length TGA" : "uncompressed TGA");
    }
    stbi_write_tga_with_rle = 1;
    unsigned char bytes[4096];
    const size_t n = read_bytes(full, bytes, sizeof bytes);
    write_bytes(cut, bytes, n - 2);
    expect_load_refused(cut, "run-length TGA", "its run-length data ends inside a scanline");
    expect_env_refused("tex_env_tga.json", cut, "its run-length data ends inside a scanline");
}

/* A Radiance HDR file cut short is refused wherever it ends: at a scanline's start (it used
 * to decode the rest as black), inside a run, or in flat data (narrower than 8 pixels); as a
 * texture and as an environment map. */
static void test_hdr_cut_short(void **state)
{
    (void)state;
    float px[16 * 3 * 3];
    for (int k = 0; k < 16 * 3 * 3; k++) px[k] = (float)(k / 5 % 4) * 0.5f + 0.25f;
    char full[512], cut[512];
    sr_test_tmp_path(full, sizeof full, "tex_full.hdr");
    sr_test_tmp_path(cut, sizeof cut, "tex_cut.hdr");
    static unsigned char bytes[4096];
    for (int flat = 0; flat < 2; flat++) {
        const int w = flat ? 4 : 16, h = flat ? 12 : 3;
        assert_true(stbi_write_hdr(full, w, h, 3, px) != 0);
        const size_t n = read_bytes(full, bytes, sizeof bytes);
        size_t data = 0;   /* after the size line */
        while (data + 3 < n && memcmp(bytes + data, "+X ", 3)) data++;
        while (data < n && bytes[data] != '\n') data++;
        expect_every_cut_refused(full, cut, data + 1, flat ? "flat HDR" : "run-length HDR");
        if (flat) continue;
        /* cut where the second scanline starts: "data ends before row 2 of 3" */
        size_t second = data + 5;
        while (second + 4 <= n && memcmp(bytes + second, "\x02\x02\x00\x10", 4)) second++;
        assert_true(second + 4 < n);
        write_bytes(cut, bytes, second);
        expect_load_refused(cut, "run-length HDR at a scanline", "its data ends before row 2 of 3");
        expect_env_refused("tex_env_hdr.json", cut, "its data ends before row 2 of 3");
    }
    write_bytes(cut, bytes, read_bytes(full, bytes, sizeof bytes) - 1);
    expect_load_refused(cut, "flat HDR", "is cut short: its Radiance HDR header says 4x12 pixels");
}

/* A PNG header larger than stb_image decodes is refused as too large, with the size and the
 * limit, not as "unknown image type" (stb_image's info call says only that). */
static void test_png_too_large(void **state)
{
    (void)state;
    char png[512];
    sr_test_tmp_path(png, sizeof png, "tex_huge.png");
    static const struct { unsigned char wh[8]; const char *want; } cases[] = {
        { { 0, 0, 0xff, 0xff, 0, 0, 0xff, 0xff }, "is too large: 65535x65535 pixels; expected 1 to 32768 on a side" },
        { { 0, 0, 0x4e, 0x20, 0, 0, 0x4e, 0x20 }, "is too large: 20000x20000 pixels of 3 channels, over the 1 GiB that "
                                                  "stb_image decodes" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const unsigned char px[3] = { 1, 2, 3 };
        assert_true(stbi_write_png(png, 1, 1, 3, px, 3) != 0);
        FILE *f = fopen(png, "r+b");
        assert_non_null(f);
        assert_int_equal(fseek(f, 16, SEEK_SET), 0);   /* IHDR's width and height, big-endian */
        assert_int_equal(fwrite(cases[k].wh, 1, 8, f), 8);
        fclose(f);
        expect_load_refused(png, cases[k].want, cases[k].want);
    }
}

/* One file named by many materials (by different spellings of its path) is decoded once and
 * shared; as a data map (roughness) it is decoded once more, its values being different. */
static void test_texture_decoded_once(void **state)
{
    (void)state;
    char png[512], dir[512], json[16384];
    sr_test_tmp_path(png, sizeof png, "tex_shared.png");
    write_png(png);
    sr_test_tmp_path(dir, sizeof dir, "");
    int at = snprintf(json, sizeof json, "{\"camera\":{\"position\":[0,0,3],\"look_at\":[0,0,0]}, \"materials\":{");
    for (int m = 0; m < 24; m++)
        at += snprintf(json + at, sizeof json - (size_t)at, "%s\"m%d\":{\"type\":\"diffuse\",\"albedo\":{\"texture\":\"%s%s\""
                       "%s}}", m ? "," : "", m, m % 3 == 0 ? png : dir, m % 3 == 0 ? "" : m % 3 == 1 ? "/tex_shared.png"
                       : "/./tex_shared.png", m % 2 ? ",\"filter\":\"nearest\"" : "");
    at += snprintf(json + at, sizeof json - (size_t)at, ",\"r\":{\"type\":\"metal\",\"roughness\":{\"texture\":\"%s\"}}}, "
                   "\"objects\":[", png);
    for (int m = 0; m < 25; m++) {
        char name[16] = "r";
        if (m < 24) snprintf(name, sizeof name, "m%d", m);
        at += snprintf(json + at, sizeof json - (size_t)at, "%s{\"type\":\"quad\",\"corner\":[%d,-1,0],\"edge_u\":[1,0,0],"
                       "\"edge_v\":[0,1,0],\"material\":\"%s\"}", m ? "," : "", m, name);
    }
    snprintf(json + at, sizeof json - (size_t)at, "]}");
    sr_scene s;
    sr_test_parse("shared.json", json, &s);
    assert_int_equal(s.tex.texel_count, 2 * TW * TH);   /* colour once, data once */
    assert_int_equal(s.tex.count, 3);                    /* bilinear and nearest colour, the data map */
    sr_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_srgb_decode),
        cmocka_unit_test(test_load_colour_and_data),
        cmocka_unit_test(test_bilinear_weights_and_wrap),
        cmocka_unit_test(test_odd_sizes),
        cmocka_unit_test(test_quad_returns_texels),
        cmocka_unit_test(test_bad_textures),
        cmocka_unit_test(test_texture_formats),
        cmocka_unit_test(test_hdr_run_lengths),
        cmocka_unit_test(test_huge_textures),
        cmocka_unit_test(test_mesh_uvs),
        cmocka_unit_test(test_tga_cut_short),
        cmocka_unit_test(test_hdr_cut_short),
        cmocka_unit_test(test_png_too_large),
        cmocka_unit_test(test_texture_decoded_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
