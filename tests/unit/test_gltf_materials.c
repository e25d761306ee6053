/* test_gltf_materials.c: glTF materials with "material": "file", on files the tests write
 * (gltf_corpus.h). An image embedded in a .glb or a data: URI renders like the same image as
 * a file beside the .gltf, bit for bit; KHR_texture_transform's scale repeats the texture; a
 * normal map bends the shading normal as its texel says (the cosine law under directional
 * lights); an emissive glTF lamp with KHR_materials_emissive_strength is a light like the same
 * lamp written in JSON (same image within Monte Carlo error, same per-pixel variance within
 * 10 %); the extensions that are not supported are named once in one notice; a sampler that
 * clamps both axes clamps the texture, and one that mirrors or mixes modes is noticed; the
 * JSON's material fields reach the right materials whatever order assimp numbers them in. */
#include "testutil.h"
#include "gltf_corpus.h"
#include "gltfutil.h"
#include "../../src/io/gltf/gltf_materials.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float *render(const char *name, const char *json, uint32_t seed, sr_scene *keep)
{
    sr_scene s;
    sr_test_parse(name, json, &s);
    float *img = sr_test_render_cpu(&s, seed);
    if (keep) *keep = s;
    else sr_scene_free(&s);
    return img;
}

static void test_embedded_matches_external(void **state)
{
    (void)state;
    char json[4096];
    float *img[3];
    const size_t n = 48 * 40 * 3;
    for (int k = 0; k < 3; k++) {
        sr_gltf_textured_scene(json, sizeof json, "gm_emb", k, 1, "whitted");
        sr_scene s;
        img[k] = render("gm_emb.json", json, 3, &s);
        /* every image is used: nothing is left over for the notice */
        if (s.notices) fail_msg("storage %d: %s", k, s.notices);
        uint32_t textured = 0;
        for (uint32_t m = 0; m < s.material_count; m++) textured += s.materials[m].color_tex != 0;
        assert_int_equal(textured, 1);
        sr_scene_free(&s);
    }
    assert_memory_equal(img[0], img[1], n * sizeof(float));
    assert_memory_equal(img[0], img[2], n * sizeof(float));
    /* and the texture shows: without it the image differs */
    sr_gltf_textured_scene(json, sizeof json, "gm_emb", SR_GLTF_GLB, 0, "whitted");
    float *plain = render("gm_emb.json", json, 3, NULL);
    assert_true(memcmp(plain, img[0], n * sizeof(float)) != 0);
    free(plain);
    /* path tracing too */
    sr_gltf_textured_scene(json, sizeof json, "gm_embp", SR_GLTF_EXTERNAL_IMAGE, 1, "path");
    float *a = render("gm_embp.json", json, 5, NULL);
    sr_gltf_textured_scene(json, sizeof json, "gm_embp", SR_GLTF_GLB, 1, "path");
    float *b = render("gm_embp.json", json, 5, NULL);
    assert_memory_equal(a, b, n * sizeof(float));
    free(a);
    free(b);
    for (int k = 0; k < 3; k++) free(img[k]);
}

/* Runs of green above 0.6 of its peak along the middle row of a 64 x 64 image. */
static int middle_row_runs(const float *img)
{
    const float *row = img + 32 * 64 * 3;
    float peak = 0.0f;
    for (int x = 0; x < 64; x++) peak = fmaxf(peak, row[3 * x + 1]);
    assert_true(peak > 0.0f);
    int runs = 0, in = 0;
    for (int x = 0; x < 64; x++) {
        const int bright = row[3 * x + 1] > 0.6f * peak;
        runs += bright && !in;
        in = bright;
    }
    return runs;
}

/* Bright runs along the middle row: one per period of the black-and-white texture. */
static int bright_runs(float scale)
{
    char json[4096];
    sr_gltf_transform_scene(json, sizeof json, "gm_xf", scale);
    float *img = render("gm_xf.json", json, 1, NULL);
    const int runs = middle_row_runs(img);
    free(img);
    return runs;
}

static void test_texture_transform_scale(void **state)
{
    (void)state;
    assert_int_equal(bright_runs(1.0f), 1);
    assert_int_equal(bright_runs(4.0f), 4);
}

/* Bright runs of the emission along the middle row; *base_xf, *emit_xf: whether the base
 * colour's and the emission's textures carry a transform of their own. */
static int glow_runs(float scale, int *base_xf, float *emit_scale)
{
    char json[4096];
    sr_gltf_emissive_xf_scene(json, sizeof json, "gm_exf", scale);
    sr_scene s;
    float *img = render("gm_exf.json", json, 1, &s);
    const sr_material *m = NULL;
    for (uint32_t k = 0; k < s.material_count; k++)
        if (s.materials[k].emit_tex) m = &s.materials[k];
    assert_non_null(m);
    assert_true(m->color_tex != 0);
    *base_xf = (int)s.tex.items[m->color_tex - 1].has_xf;
    *emit_scale = s.tex.items[m->emit_tex - 1].has_xf ? s.tex.items[m->emit_tex - 1].xf[0] : 1.0f;
    if (s.notices) fail_msg("%s", s.notices);   /* the transform is used: nothing to notice */
    sr_scene_free(&s);
    const int runs = middle_row_runs(img);
    free(img);
    return runs;
}

/* The emissive texture's own KHR_texture_transform: scale 4 repeats it four times across the
 * square, while the base colour (the same image, no transform) keeps its UVs. */
static void test_emissive_transform_own(void **state)
{
    (void)state;
    int base_xf;
    float emit_scale;
    assert_int_equal(glow_runs(1.0f, &base_xf, &emit_scale), 1);
    assert_int_equal(base_xf, 0);
    assert_int_equal(glow_runs(4.0f, &base_xf, &emit_scale), 4);
    assert_int_equal(base_xf, 0);
    assert_float_equal(emit_scale, 4.0f, 0.0f);
}

/* Whitted lights a white square by E cos(ns, l) / pi times what does not depend on the light,
 * so two lights from opposite sides give the ratio of the cosines of the bent normal. */
static double centre(const unsigned char *rgb, const float to_light[3])
{
    char json[4096];
    sr_gltf_normal_map_scene(json, sizeof json, "gm_nm", rgb, to_light, "whitted");
    float *img = render("gm_nm.json", json, 1, NULL);
    const double v = img[(8 * 16 + 8) * 3 + 1];
    free(img);
    return v;
}

static void test_normal_map_cosine(void **state)
{
    (void)state;
    const float r = 0.70710678f;
    const float px[3] = { r, 0, r }, mx[3] = { -r, 0, r }, py[3] = { 0, r, r }, my[3] = { 0, -r, r };
    const unsigned char texel[3] = { 200, 90, 220 };
    /* the tangent-space normal: T = +x (u grows to the right), B = +y (up in the image), N = +z */
    const double tx = 2.0 * 200 / 255 - 1, ty = 2.0 * 90 / 255 - 1, tz = 2.0 * 220 / 255 - 1;
    const double want_x = (tx + tz) / (tz - tx), want_y = (ty + tz) / (tz - ty);
    const double got_x = centre(texel, px) / centre(texel, mx), got_y = centre(texel, py) / centre(texel, my);
    printf("normal map: x ratio %.6f (expected %.6f), y ratio %.6f (expected %.6f)\n", got_x, want_x, got_y, want_y);
    assert_true(fabs(got_x / want_x - 1.0) < 1e-4);
    assert_true(fabs(got_y / want_y - 1.0) < 1e-4);
    /* without the map the square faces +z: both sides light it alike */
    assert_true(fabs(centre(NULL, px) / centre(NULL, mx) - 1.0) < 1e-5);
    /* a flat map texel (128, 128, 255) bends the normal by under half a degree */
    const unsigned char flat[3] = { 128, 128, 255 };
    assert_true(fabs(centre(flat, px) / centre(flat, mx) - 1.0) < 0.02);
}

/* The glTF lamp and the JSON lamp: K independent renders of each (one sample a pixel). */
#define LAMP_RUNS 24
#define LAMP_PX (24 * 24 * 3)
static void lamp_runs(int gltf, double *mean, double *var)
{
    char json[4096];
    sr_gltf_lamp_scene(json, sizeof json, "gm_lamp", gltf, 1);
    sr_scene s;
    sr_test_parse("gm_lamp.json", json, &s);
    if (gltf) {   /* emissive strength 8 times the emissive factor */
        const sr_material *m = &s.materials[s.prims[s.prim_count - 1u].material];   /* a lamp triangle's */
        assert_int_equal(m->kind, SR_MAT_PBR);
        sr_test_assert_vec(m->color2, 8.0f, 6.0f, 4.0f);
    }
    memset(mean, 0, sizeof(double) * LAMP_PX);
    memset(var, 0, sizeof(double) * LAMP_PX);
    for (uint32_t k = 0; k < LAMP_RUNS; k++) {
        float *img = sr_test_render_cpu(&s, 100u + k);
        for (int i = 0; i < LAMP_PX; i++) {
            mean[i] += img[i];
            var[i] += (double)img[i] * img[i];
        }
        free(img);
    }
    for (int i = 0; i < LAMP_PX; i++) {
        mean[i] /= LAMP_RUNS;
        var[i] = (var[i] - LAMP_RUNS * mean[i] * mean[i]) / (LAMP_RUNS - 1);
    }
    sr_scene_free(&s);
}

static void test_emissive_lamp_is_a_light(void **state)
{
    (void)state;
    static double gm[LAMP_PX], gv[LAMP_PX], jm[LAMP_PX], jv[LAMP_PX];
    lamp_runs(1, gm, gv);
    lamp_runs(0, jm, jv);
    sr_test_stat st = { 0 };
    double sum_gv = 0, sum_jv = 0, sum_j = 0;
    for (int i = 0; i < LAMP_PX; i++) {
        /* both sides are estimates: the residual's variance is the sum of both means' */
        sr_test_stat_add(&st, gm[i], jm[i]);
        sum_gv += gv[i];
        sum_jv += jv[i];
        sum_j += jm[i];
    }
    assert_true(sum_j > LAMP_PX * 0.05);   /* the floor is lit */
    sr_test_stat_check("glTF lamp against the JSON lamp", &st, 0.02);
    const double ratio = sum_gv / sum_jv;
    printf("per-pixel variance: glTF lamp / JSON lamp = %.4f\n", ratio);
    assert_true(ratio > 0.9 && ratio < 1.1);
}

static void test_unsupported_extensions_noticed_once(void **state)
{
    (void)state;
    char path[1024], json[4096];
    sr_test_tmp_path(path, sizeof path, "gm_ext.gltf");
    sr_gltf_write_square(path, SR_GLTF_DATA_URI,
                         "{\"pbrMetallicRoughness\":{\"metallicFactor\":0},\"extensions\":{"
                         "\"KHR_materials_clearcoat\":{\"clearcoatFactor\":1},\"KHR_materials_sheen\":{},"
                         "\"KHR_materials_emissive_strength\":{\"emissiveStrength\":2}}}",
                         NULL, 0, NULL,
                         "\"KHR_materials_clearcoat\",\"KHR_materials_sheen\",\"KHR_materials_volume\","
                         "\"KHR_materials_emissive_strength\"");
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0]},\"image\":{\"width\":8,\"height\":8,\"spp\":1},"
             " \"materials\":{}, \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}", path);
    sr_scene s;
    sr_test_parse("gm_ext.json", json, &s);
    assert_non_null(s.notices);
    printf("%s", s.notices);
    const char *names[] = { "KHR_materials_clearcoat", "KHR_materials_sheen", "KHR_materials_volume" };
    for (int k = 0; k < 3; k++) {
        const char *at = strstr(s.notices, names[k]);
        if (!at) fail_msg("%s not named: %s", names[k], s.notices);
        assert_null(strstr(at + 1, names[k]));
    }
    assert_null(strstr(s.notices, "emissive_strength"));   /* supported */
    assert_null(strstr(strstr(s.notices, "notice:") + 1, "notice:"));   /* one line */
    sr_scene_free(&s);
}

/* The square with one material (its JSON), loaded with the file's materials; its notices go
 * to *notices (malloc'd, or NULL), its material to *out. */
static void load_square_material(const char *name, const char *material, const char *used, sr_material *out,
                                 char **notices)
{
    char path[1024], json[4096];
    sr_test_tmp_path(path, sizeof path, name);
    sr_gltf_write_square(path, SR_GLTF_DATA_URI, material, NULL, 0, NULL, used);
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0]},\"image\":{\"width\":8,\"height\":8,\"spp\":1},"
             " \"materials\":{}, \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}", path);
    sr_scene s;
    sr_test_parse("gm_square.json", json, &s);
    *out = s.materials[s.prims[0].material];
    *notices = s.notices ? strdup(s.notices) : NULL;
    sr_scene_free(&s);
}

/* KHR_materials_ior on an opaque material sets the dielectric's F0 = ((ior - 1) / (ior + 1))^2
 * (ior 2: 1/9); without it F0 is 0.04 exactly; an ior below 1 is named and 1.5 used. */
static void test_ior_sets_f0(void **state)
{
    (void)state;
    sr_material m;
    char *notices;
    load_square_material("gm_ior.gltf", "{\"pbrMetallicRoughness\":{\"metallicFactor\":0},"
                         "\"extensions\":{\"KHR_materials_ior\":{\"ior\":2}}}", "\"KHR_materials_ior\"", &m, &notices);
    assert_int_equal(m.kind, SR_MAT_PBR);
    assert_float_equal(m.ior, 2.0f, 0.0f);
    assert_float_equal(m.spec_f0, 1.0f / 9.0f, 1e-7);
    if (notices) fail_msg("%s", notices);   /* used: no notice */
    load_square_material("gm_ior_none.gltf", "{\"pbrMetallicRoughness\":{\"metallicFactor\":0}}", NULL, &m, &notices);
    assert_true(m.spec_f0 == 0.04f);
    free(notices);
    load_square_material("gm_ior_low.gltf", "{\"pbrMetallicRoughness\":{\"metallicFactor\":0},"
                         "\"extensions\":{\"KHR_materials_ior\":{\"ior\":0.5}}}", "\"KHR_materials_ior\"", &m, &notices);
    assert_true(m.spec_f0 == 0.04f);
    if (!notices || !strstr(notices, "KHR_materials_ior below 1 (1 material; 1.5 is used)")) fail_msg("%s", notices ? notices : "no notice");
    free(notices);
}

/* KHR_materials_transmission under 0.5 is rendered opaque, and between 0.5 and 1 as glass
 * that transmits everything: the notice names each with its value. */
static void test_partial_transmission_noticed(void **state)
{
    (void)state;
    sr_material m;
    char *notices;
    load_square_material("gm_thin.gltf", "{\"pbrMetallicRoughness\":{\"metallicFactor\":0},"
                         "\"extensions\":{\"KHR_materials_transmission\":{\"transmissionFactor\":0.3}}}",
                         "\"KHR_materials_transmission\"", &m, &notices);
    assert_int_equal(m.kind, SR_MAT_PBR);
    printf("%s", notices ? notices : "");
    if (!notices || !strstr(notices, "KHR_materials_transmission under 0.5 (1 material, e.g. 0.3: rendered opaque)"))
        fail_msg("%s", notices ? notices : "no notice");
    free(notices);
    load_square_material("gm_most.gltf", "{\"pbrMetallicRoughness\":{\"metallicFactor\":0},"
                         "\"extensions\":{\"KHR_materials_transmission\":{\"transmissionFactor\":0.7}}}",
                         "\"KHR_materials_transmission\"", &m, &notices);
    assert_int_equal(m.kind, SR_MAT_GLASS);
    if (!notices || !strstr(notices, "between 0.5 and 1 (1 material, e.g. 0.7: rendered as glass"))
        fail_msg("%s", notices ? notices : "no notice");
    free(notices);
    load_square_material("gm_full.gltf", "{\"pbrMetallicRoughness\":{\"metallicFactor\":0},"
                         "\"extensions\":{\"KHR_materials_transmission\":{\"transmissionFactor\":1}}}",
                         "\"KHR_materials_transmission\"", &m, &notices);
    assert_int_equal(m.kind, SR_MAT_GLASS);
    if (notices) fail_msg("%s", notices);   /* all of it transmitted, as glass does */
}

/* alphaMode MASK: where the texture's alpha is under the cutoff, the square is not there for
 * camera rays or shadow rays, so those pixels are the background's bit for bit; where it is
 * over, the square shows. */
static void test_alpha_mask_shows_behind(void **state)
{
    (void)state;
    char json[4096];
    sr_gltf_alpha_scene(json, sizeof json, "gm_mask", 1, 1, 1);
    sr_scene s;
    sr_test_parse("gm_mask.json", json, &s);
    if (s.notices) fail_msg("%s", s.notices);   /* alphaMode is used: no notice */
    float *with = sr_test_render_cpu(&s, 1);
    sr_scene_free(&s);
    sr_gltf_alpha_scene(json, sizeof json, "gm_mask", 1, 0, 1);
    float *without = render("gm_mask.json", json, 1, NULL);
    /* the square spans pixels 4..27 (fov 20 at distance 4: 2 units of 2.82); its halves meet at 16 */
    int same_right = 0, differ_left = 0;
    for (int y = 8; y < 24; y++) {
        for (int x = 20; x < 26; x++) same_right += !memcmp(&with[(y * 32 + x) * 3], &without[(y * 32 + x) * 3], 12);
        for (int x = 6; x < 12; x++) {
            const float *p = &with[(y * 32 + x) * 3];
            differ_left += p[0] > p[1];   /* red, not the green behind */
        }
    }
    free(with);
    free(without);
    assert_int_equal(same_right, 16 * 6);
    assert_int_equal(differ_left, 16 * 6);
}

/* alphaMode BLEND as coverage: alpha 0.25 lets three rays in four through, camera and shadow
 * rays alike, so a pixel averages 0.25 front + 0.75 x (0.75 of the back's light). */
static void test_alpha_blend_coverage(void **state)
{
    (void)state;
    char json[4096];
    sr_gltf_alpha_scene(json, sizeof json, "gm_blend", 2, 1, 64);
    float *blend = render("gm_blend.json", json, 2, NULL);
    sr_gltf_alpha_scene(json, sizeof json, "gm_blend", 2, 0, 64);
    float *back = render("gm_blend.json", json, 2, NULL);
    /* the square opaque: the same file with alphaMode left out */
    char path[1024];
    sr_test_tmp_path(path, sizeof path, "gm_blend_opaque.gltf");
    sr_gltf_write_square(path, SR_GLTF_DATA_URI,
                         "{\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,1,1,0.25],\"metallicFactor\":0,"
                         "\"roughnessFactor\":1}}", NULL, 0, NULL, NULL);
    char *at = strstr(json, "\"objects\"");
    assert_non_null(at);
    char json2[4096];
    snprintf(json2, sizeof json2, "%.*s\"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}",
             (int)(at - json), json, path);
    float *front = render("gm_blend2.json", json2, 2, NULL);
    double got = 0, want = 0;
    for (int y = 10; y < 22; y++)
        for (int x = 10; x < 22; x++)
            for (int c = 0; c < 3; c++) {
                const int i = (y * 32 + x) * 3 + c;
                got += blend[i];
                want += 0.25 * front[i] + 0.75 * 0.75 * back[i];
            }
    printf("alpha BLEND: mean %.5f, expected %.5f\n", got / 432, want / 432);
    assert_true(fabs(got / want - 1.0) < 0.03);
    free(blend);
    free(back);
    free(front);
}

/* Every map of a material is read (one embedded image for all of them here): metallic-
 * roughness, emission, normal, and the base colour's alpha for MASK; the notice names none. */
static void test_maps_read(void **state)
{
    (void)state;
    char path[1024], json[4096];
    sr_test_tmp_path(path, sizeof path, "gm_maps.glb");
    const unsigned char rgba[8] = { 10, 100, 200, 255, 30, 60, 90, 128 };
    size_t len = 0;
    unsigned char *png = sr_gltf_png(rgba, 2, 1, 4, &len);
    sr_gltf_write_square(path, SR_GLTF_GLB,
                         "{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0},\"metallicRoughnessTexture\":"
                         "{\"index\":0},\"metallicFactor\":0.5,\"roughnessFactor\":0.7},\"normalTexture\":{\"index\":0,"
                         "\"scale\":0.8},\"emissiveTexture\":{\"index\":0},\"emissiveFactor\":[1,1,1],\"alphaMode\":\"MASK\","
                         "\"alphaCutoff\":0.3}", png, len, NULL, NULL);
    free(png);
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0]},\"image\":{\"width\":8,\"height\":8},"
             " \"materials\":{}, \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}", path);
    sr_scene s;
    sr_test_parse("gm_maps.json", json, &s);
    if (s.notices) fail_msg("%s", s.notices);
    const sr_material *m = &s.materials[s.prims[0].material];
    assert_true(m->color_tex && m->rough_tex && m->metal_tex && m->emit_tex && m->norm_tex && m->alpha_tex);
    assert_int_equal(m->rough_tex, m->metal_tex);
    assert_int_equal(m->alpha_mode, SR_ALPHA_MASK);
    assert_float_equal(m->alpha_cutoff, 0.3f, 1e-7);
    assert_float_equal(m->normal_scale, 0.8f, 1e-7);
    assert_float_equal(m->metallic, 0.5f, 1e-7);
    /* the metallic-roughness and normal images are data (value / 255), the base colour sRGB */
    const sr_texture *mr = &s.tex.items[m->rough_tex - 1u], *bc = &s.tex.items[m->color_tex - 1u];
    assert_float_equal(s.tex.texels[3u * mr->offset + 1u], 100.0f / 255.0f, 1e-7);
    assert_float_equal(s.tex.texels[3u * bc->offset + 1u], sr_srgb_decode8(100), 1e-7);
    const sr_texture *al = &s.tex.items[m->alpha_tex - 1u];
    assert_float_equal(s.tex.texels[3u * (al->offset + 1u)], 128.0f / 255.0f, 1e-7);
    for (uint32_t i = 0; i < s.prim_count; i++)
        assert_int_equal(s.attrs[i].flags & (SR_ATTR_NORMAL_MAP | SR_ATTR_CUTOUT), SR_ATTR_NORMAL_MAP | SR_ATTR_CUTOUT);
    sr_scene_free(&s);
}

/* MTL's Ks has no counterpart in the pbr model: it is named, not dropped silently. */
static void test_mtl_ks_noticed(void **state)
{
    (void)state;
    char obj[1024], mtl[1024], json[4096];
    sr_test_write_file(mtl, sizeof mtl, "gm_ks.mtl", "newmtl shiny\nKd 0.5 0.5 0.5\nKs 0.8 0.8 0.8\nNs 200\n");
    sr_test_write_file(obj, sizeof obj, "gm_ks.obj", "mtllib gm_ks.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl shiny\nf 1 2 3\n");
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0]},\"image\":{\"width\":8,\"height\":8},"
             " \"materials\":{}, \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}", obj);
    sr_scene s;
    sr_test_parse("gm_ks.json", json, &s);
    if (!s.notices || !strstr(s.notices, "specular colour Ks (1 material")) fail_msg("%s", s.notices ? s.notices : "no notice");
    sr_scene_free(&s);
}

/* An embedded image that is not an image stops the scene (exit 2) naming the file, the image
 * and the material, as an image file would. */
static void test_embedded_garbage_refused(void **state)
{
    (void)state;
    char path[1024], json[4096];
    sr_test_tmp_path(path, sizeof path, "gm_bad.glb");
    const unsigned char junk[] = "GIF89a this is not a PNG at all";
    sr_gltf_write_square(path, SR_GLTF_GLB,
                         "{\"name\":\"skin\",\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}", junk,
                         sizeof junk, NULL, NULL);
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0]},\"image\":{\"width\":8,\"height\":8},"
             " \"materials\":{}, \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}", path);
    sr_scene s;
    sr_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(sr_scene_parse("gm_bad.json", json, strlen(json), &s, &err), SR_ERR_INPUT);
    if (!strstr(err.msg, "gm_bad.glb (embedded image 0)") || !strstr(err.msg, "\"skin\"") ||
        !strstr(err.msg, "gm_bad.json:1:"))
        fail_msg("%s", err.msg);
}

/* The GPU build a scene runs on: the maps build only for scenes with normal maps, cutouts,
 * metallic or emission textures; a base colour texture alone keeps the general build. */
static sr_build build_of(const char *json)
{
    sr_scene s;
    sr_test_parse("gm_build.json", json, &s);
    sr_error err = { SR_OK, "" };
    sr_backend be;
    assert_int_equal(sr_backend_create(SR_BACKEND_CPU, 0, &be, NULL, 0, &err), SR_OK);
    sr_renderer r;
    sr_frame f;
    sr_frame_from_scene(&f, &s);
    assert_int_equal(sr_renderer_prepare(&r, &s, &be, &f, &err), SR_OK);
    const sr_build b = r.scene_build;
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    sr_scene_free(&s);
    return b;
}

static void test_maps_build_chosen(void **state)
{
    (void)state;
    char json[4096];
    const unsigned char texel[3] = { 200, 90, 220 };
    const float l[3] = { 0, 0, 1 };
    sr_gltf_normal_map_scene(json, sizeof json, "gm_bnm", texel, l, "whitted");
    assert_int_equal(build_of(json), SR_BUILD_MAPS);
    sr_gltf_alpha_scene(json, sizeof json, "gm_bmask", 1, 1, 1);
    assert_int_equal(build_of(json), SR_BUILD_MAPS);
    sr_gltf_textured_scene(json, sizeof json, "gm_btex", SR_GLTF_GLB, 1, "whitted");
    assert_int_equal(build_of(json), SR_BUILD_GENERAL);
    sr_gltf_normal_map_scene(json, sizeof json, "gm_bflat", NULL, l, "whitted");
    assert_int_equal(build_of(json), SR_BUILD_GENERAL);   /* UVs and normals: attributes, no maps */
}

/* glTF's UV transform in its own convention (v down), through assimp's flipped v. */
static void test_uv_transform_math(void **state)
{
    (void)state;
    char json[4096];
    sr_gltf_transform_scene(json, sizeof json, "gm_xfm", 4.0f);
    sr_scene s;
    sr_test_parse("gm_xfm.json", json, &s);
    /* the square's UVs: u in [0, 4] across, v unchanged by a scale of 1 */
    float umax = 0.0f, vmax = 0.0f;
    for (uint32_t i = 0; i < s.prim_count; i++)
        for (int k = 0; k < 3; k++) {
            umax = fmaxf(umax, s.attrs[i].uv[2 * k]);
            vmax = fmaxf(vmax, s.attrs[i].uv[2 * k + 1]);
        }
    assert_float_equal(umax, 4.0f, 1e-6);
    assert_float_equal(vmax, 1.0f, 1e-6);
    sr_scene_free(&s);
}

/* A texture's own transform on top of the base colour's (rotated, offset, scaled both): on
 * the UVs as stored (the base colour's baked in) it gives what the file's transform gives on
 * the file's UVs. */
static void test_relative_transform_math(void **state)
{
    (void)state;
    char path[1024];
    sr_test_tmp_path(path, sizeof path, "gm_rel.glb");
    sr_gltf_write_square(path, SR_GLTF_GLB,
                         "{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0,\"extensions\":{\"KHR_texture_transform\":"
                         "{\"offset\":[0.25,0.5],\"scale\":[2,3],\"rotation\":0.3}}}},\"normalTexture\":{\"index\":0,"
                         "\"extensions\":{\"KHR_texture_transform\":{\"offset\":[0.1,0],\"scale\":[4,1],\"rotation\":1}}}}",
                         NULL, 0, NULL, "\"KHR_texture_transform\"");
    size_t size = 0;
    free(sr_test_read_bytes(path, &size));
    sr_gltf_materials gm;
    sr_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(sr_gltf_materials_read(path, ".glb", size, &gm, &err), SR_OK);
    assert_true(gm.count >= 1);
    const sr_gltf_material *m = &gm.mats[0];
    assert_true(m->has_uv_xf && m->has_tex_xf[SR_GLTF_XF_NORMAL] && !m->has_tex_xf[SR_GLTF_XF_MR] && !m->other_xf);
    /* the normal map's transform alone, as glTF writes it (T * R * S) */
    const float c = cosf(1.0f), sn = sinf(1.0f);
    const float own[6] = { c * 4, sn * 1, 0.1f, -sn * 4, c * 1, 0 };
    for (int k = 0; k < 9; k++) {
        const float ru = 0.1f * (float)k, rv = 1.0f - 0.07f * (float)k;
        float su = ru, sv = rv, wu = ru, wv = rv;
        sr_gltf_uv_apply(m->uv_xf, &su, &sv);   /* stored */
        sr_gltf_uv_apply(own, &wu, &wv);        /* wanted */
        const float *x = m->tex_xf[SR_GLTF_XF_NORMAL];
        const float gu = x[0] * su + x[1] * sv + x[2], gv = x[3] * su + x[4] * sv + x[5];
        assert_float_equal(gu, wu, 1e-5);
        assert_float_equal(gv, wv, 1e-5);
    }
    sr_gltf_materials_free(&gm);
}

/* The base colour texture of a square whose texture has `sampler` (NULL: none), as loaded. */
static sr_texture sampler_texture(const char *tag, const char *sampler, char *notice, size_t cap)
{
    char path[1024], name[64], json[4096];
    snprintf(name, sizeof name, "%s.gltf", tag);
    sr_test_tmp_path(path, sizeof path, name);
    const unsigned char rgb[12] = { 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255 };
    size_t len = 0;
    unsigned char *png = sr_gltf_png(rgb, 2, 2, 3, &len);
    sr_gltf_write_square(path, SR_GLTF_DATA_URI, "{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}",
                         png, len, NULL, NULL);
    free(png);
    if (sampler) {   /* give the texture a sampler */
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        char *text = calloc(1u << 16, 1);
        assert_non_null(text);
        const size_t n = fread(text, 1, (1u << 16) - 1, f);
        fclose(f);
        assert_true(n > 0 && n < (1u << 16) - 1);
        const char *from = "\"textures\":[{\"source\":0}]";
        char *at = strstr(text, from);
        assert_non_null(at);
        f = fopen(path, "wb");
        assert_non_null(f);
        fprintf(f, "%.*s\"textures\":[{\"source\":0,\"sampler\":0}],\"samplers\":[%s]%s", (int)(at - text), text, sampler,
                at + strlen(from));
        fclose(f);
        free(text);
    }
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0]},\"image\":{\"width\":8,\"height\":8},"
             " \"materials\":{}, \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}", path);
    sr_scene s;
    snprintf(name, sizeof name, "%s.json", tag);
    sr_test_parse(name, json, &s);
    snprintf(notice, cap, "%s", s.notices ? s.notices : "");
    const sr_material *m = &s.materials[s.prims[0].material];
    assert_true(m->color_tex != 0);
    const sr_texture tex = s.tex.items[m->color_tex - 1u];
    sr_scene_free(&s);
    return tex;
}

/* A glTF sampler's wrap: CLAMP_TO_EDGE on both axes clamps the texture; mirrored repeat, or a
 * different mode per axis, has no counterpart here: it repeats and the notice says so. */
static uint32_t sampler_wrap(const char *tag, const char *sampler, char *notice, size_t cap)
{
    return sampler_texture(tag, sampler, notice, cap).wrap;
}

/* A glTF sampler's filter: magFilter NEAREST (9728) is the JSON "filter": "nearest"; without
 * magFilter, a minFilter that is nearest within a level (9728, 9984, 9986) is too; LINEAR
 * (9729) and the rest are bilinear. */
static void test_sampler_filter(void **state)
{
    (void)state;
    char notice[1024];
    static const struct { const char *tag, *sampler; uint32_t filter; } cases[] = {
        { "gm_filter_none", NULL, SR_FILTER_BILINEAR },
        { "gm_filter_mag_near", "{\"magFilter\":9728}", SR_FILTER_NEAREST },
        { "gm_filter_both_near", "{\"magFilter\":9728,\"minFilter\":9984}", SR_FILTER_NEAREST },
        { "gm_filter_mag_lin", "{\"magFilter\":9729,\"minFilter\":9728}", SR_FILTER_BILINEAR },
        { "gm_filter_min_near", "{\"minFilter\":9986}", SR_FILTER_NEAREST },
        { "gm_filter_min_lin", "{\"minFilter\":9987}", SR_FILTER_BILINEAR },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const sr_texture t = sampler_texture(cases[k].tag, cases[k].sampler, notice, sizeof notice);
        if (t.filter != cases[k].filter) fail_msg("%s: filter %u, expected %u", cases[k].tag, t.filter, cases[k].filter);
    }
}

static void test_sampler_wrap(void **state)
{
    (void)state;
    char notice[1024];
    const char *odd = "texture wrap modes other than repeat or clamp on both axes (1 material; they repeat)";
    assert_int_equal(sampler_wrap("gm_wrap_none", NULL, notice, sizeof notice), SR_WRAP_REPEAT);
    assert_null(strstr(notice, "wrap"));
    assert_int_equal(sampler_wrap("gm_wrap_rep", "{\"wrapS\":10497,\"wrapT\":10497}", notice, sizeof notice), SR_WRAP_REPEAT);
    assert_null(strstr(notice, "wrap"));
    assert_int_equal(sampler_wrap("gm_wrap_clamp", "{\"wrapS\":33071,\"wrapT\":33071}", notice, sizeof notice), SR_WRAP_CLAMP);
    assert_null(strstr(notice, "wrap"));
    assert_int_equal(sampler_wrap("gm_wrap_mirror", "{\"wrapS\":33648,\"wrapT\":33648}", notice, sizeof notice), SR_WRAP_REPEAT);
    if (!strstr(notice, odd)) fail_msg("%s", notice);
    assert_int_equal(sampler_wrap("gm_wrap_mixed", "{\"wrapS\":33071,\"wrapT\":10497}", notice, sizeof notice), SR_WRAP_REPEAT);
    if (!strstr(notice, odd)) fail_msg("%s", notice);
}

/* assimp numbers a glTF's materials as its reader meets them (a node's children before its
 * own mesh; unused materials not at all), not in the file's order: the fields read from the
 * JSON (here alphaMode) still reach the material the file gives them to. The left square's
 * node holds the right square's node as a child, and the file lists an unused material first. */
static void test_material_order_as_assimp_meets_them(void **state)
{
    (void)state;
    char path[1024], json[4096];
    sr_test_write_file(path, sizeof path, "gm_order.gltf",
        "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}],\n"
        "\"nodes\": [{\"mesh\": 0, \"translation\": [-1, 0, 0], \"children\": [1]}, {\"mesh\": 1, \"translation\": [2, 0, 0]}],\n"
        "\"materials\": [{\"name\": \"unused\", \"alphaMode\": \"BLEND\"}, {\"name\": \"right\"},\n"
        "               {\"name\": \"left\", \"alphaMode\": \"MASK\", \"alphaCutoff\": 0.25}],\n"
        "\"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"indices\": 1, \"material\": 2}]},\n"
        "           {\"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"indices\": 1, \"material\": 1}]}],\n"
        "\"buffers\": [{\"byteLength\": 60, \"uri\": \"data:application/octet-stream;base64," SR_GLTF_SQUARE_B64 "\"}],\n"
        "\"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": 48}, {\"buffer\": 0, \"byteOffset\": 48, \"byteLength\": 12}],\n"
        "\"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 4, \"type\": \"VEC3\", \"min\": [-0.5, -0.5, 0], \"max\": [0.5, 0.5, 0]},\n"
        "              {\"bufferView\": 1, \"componentType\": 5123, \"count\": 6, \"type\": \"SCALAR\"}]}\n");
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0]},\"image\":{\"width\":8,\"height\":8},"
             " \"materials\":{}, \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}", path);
    sr_scene s;
    sr_test_parse("gm_order.json", json, &s);
    uint32_t left = 0, right = 0;
    for (uint32_t i = 0; i < s.prim_count; i++) {
        const uint32_t k = s.prims[i].material;
        const sr_material *m = &s.materials[k];
        if (s.prims[i].a.x < 0.0f) {   /* the left square: "left", MASK at 0.25 */
            if (!strstr(s.material_names[k], ":left")) fail_msg("left square has %s", s.material_names[k]);
            assert_int_equal(m->alpha_mode, SR_ALPHA_MASK);
            assert_float_equal(m->alpha_cutoff, 0.25f, 1e-7);
            left++;
        } else {                        /* the right square: "right", opaque */
            if (!strstr(s.material_names[k], ":right")) fail_msg("right square has %s", s.material_names[k]);
            assert_int_equal(m->alpha_mode, SR_ALPHA_OPAQUE);
            right++;
        }
    }
    assert_int_equal(left, 2);
    assert_int_equal(right, 2);
    sr_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_embedded_matches_external),
        cmocka_unit_test(test_texture_transform_scale),
        cmocka_unit_test(test_emissive_transform_own),
        cmocka_unit_test(test_uv_transform_math),
        cmocka_unit_test(test_relative_transform_math),
        cmocka_unit_test(test_normal_map_cosine),
        cmocka_unit_test(test_emissive_lamp_is_a_light),
        cmocka_unit_test(test_unsupported_extensions_noticed_once),
        cmocka_unit_test(test_ior_sets_f0),
        cmocka_unit_test(test_partial_transmission_noticed),
        cmocka_unit_test(test_alpha_mask_shows_behind),
        cmocka_unit_test(test_alpha_blend_coverage),
        cmocka_unit_test(test_embedded_garbage_refused),
        cmocka_unit_test(test_maps_read),
        cmocka_unit_test(test_mtl_ks_noticed),
        cmocka_unit_test(test_maps_build_chosen),
        cmocka_unit_test(test_sampler_wrap),
        cmocka_unit_test(test_sampler_filter),
        cmocka_unit_test(test_material_order_as_assimp_meets_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
