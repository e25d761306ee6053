/* test_gltf_tangents.c: normal maps' tangent frames from glTF files the tests write
 * (gltf_corpus.h). A file's TANGENT attribute is what the map's X axis follows, with its
 * handedness w deciding Y (the analytic cosine check of test_gltf_materials.c, with the
 * tangent turned 90 degrees from the UVs' +u); a curved mesh without tangents gets one
 * tangent per vertex, shared by the triangles that meet there, in the plane of the vertex
 * normal; a TANGENT accessor that is not VEC4 of floats, or of another count than the
 * positions, is refused naming the file; non-finite tangents leave the triangle's own frame. */
#include "testutil.h"
#include "gltf_corpus.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char texel[3] = { 200, 90, 220 };

/* The centre pixel's green (Whitted: E cos(ns, l) / pi times what does not depend on l). */
static double centre(const float *tangent, const float to_light[3], sr_scene *keep)
{
    char json[4096];
    sr_gltf_tangent_scene(json, sizeof json, "gt_file", tangent, texel, to_light);
    sr_scene s;
    sr_test_parse("gt_file.json", json, &s);
    float *img = sr_test_render_cpu(&s, 1);
    const double v = img[(8 * 16 + 8) * 3 + 1];
    free(img);
    if (keep) *keep = s;
    else sr_scene_free(&s);
    return v;
}

/* The ratio of the lights from +a and -a (a = x or y) through the map's bent normal. */
static void ratios(const float *tangent, double *rx, double *ry)
{
    const float r = 0.70710678f;
    const float px[3] = { r, 0, r }, mx[3] = { -r, 0, r }, py[3] = { 0, r, r }, my[3] = { 0, -r, r };
    *rx = centre(tangent, px, NULL) / centre(tangent, mx, NULL);
    *ry = centre(tangent, py, NULL) / centre(tangent, my, NULL);
}

static void test_file_tangents_followed(void **state)
{
    (void)state;
    const double tx = 2.0 * 200 / 255 - 1, ty = 2.0 * 90 / 255 - 1, tz = 2.0 * 220 / 255 - 1;
    double rx, ry;
    /* T = +y (the UVs' +u is +x), w = 1: B = cross(N, T) = -x. The bent normal's x is -ty, its y tx. */
    const float turned[4] = { 0, 1, 0, 1 };
    ratios(turned, &rx, &ry);
    double want_x = (-ty + tz) / (tz + ty), want_y = (tx + tz) / (tz - tx);
    printf("T = +y, w = +1: x ratio %.6f (expected %.6f), y ratio %.6f (expected %.6f)\n", rx, want_x, ry, want_y);
    assert_true(fabs(rx / want_x - 1.0) < 1e-4);
    assert_true(fabs(ry / want_y - 1.0) < 1e-4);
    /* w = -1 mirrors B to +x: the bent normal's x is +ty */
    const float mirrored[4] = { 0, 1, 0, -1 };
    ratios(mirrored, &rx, &ry);
    want_x = (ty + tz) / (tz - ty);
    printf("T = +y, w = -1: x ratio %.6f (expected %.6f), y ratio %.6f (expected %.6f)\n", rx, want_x, ry, want_y);
    assert_true(fabs(rx / want_x - 1.0) < 1e-4);
    assert_true(fabs(ry / want_y - 1.0) < 1e-4);
    /* the table holds the file's tangents, one entry per triangle */
    sr_scene s;
    const float up[3] = { 0, 0, 1 };
    centre(turned, up, &s);
    assert_int_equal(s.tangent_count, 2);
    for (uint32_t i = 0; i < s.prim_count; i++) {
        const uint32_t k = s.attrs[i].flags >> SR_ATTR_TANGENT_SHIFT;
        assert_true(k >= 1 && k <= 2);
        for (int v = 0; v < 3; v++) {
            const sr_tri_tangent *t = &s.tangents[k - 1];
            assert_float_equal(t->t[v].x, 0.0f, 0.0f);
            assert_float_equal(t->t[v].y, 1.0f, 0.0f);
            assert_float_equal(t->t[v].z, 0.0f, 0.0f);
            assert_float_equal(t->w[v], 1.0f, 0.0f);
        }
    }
    sr_scene_free(&s);
}

/* Without TANGENT the generated frame is the UVs': T = +x, B = +y on the flat square. */
static void test_generated_on_flat_square(void **state)
{
    (void)state;
    const double tx = 2.0 * 200 / 255 - 1, ty = 2.0 * 90 / 255 - 1, tz = 2.0 * 220 / 255 - 1;
    double rx, ry;
    ratios(NULL, &rx, &ry);
    const double want_x = (tx + tz) / (tz - tx), want_y = (ty + tz) / (tz - ty);
    assert_true(fabs(rx / want_x - 1.0) < 1e-4);
    assert_true(fabs(ry / want_y - 1.0) < 1e-4);
}

/* A quad bent along its diagonal (0-2): corner 3 lifted, normals per vertex. */
static void bent_quad(const char *path, const float *tan, unsigned tan_count)
{
    const float pos[12] = { -1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0.8f };
    const float nrm[12] = { 0.17f, -0.17f, 0.97f, 0, 0, 1, 0.17f, -0.17f, 0.97f, 0.33f, -0.33f, 0.88f };
    const float uv[8] = { 0, 1, 1, 1, 1, 0, 0, 0 };
    const unsigned short ix[6] = { 0, 1, 2, 0, 2, 3 };
    const unsigned char flat[3] = { 128, 128, 255 };
    size_t len = 0;
    unsigned char *png = sr_gltf_png(flat, 1, 1, 3, &len);
    sr_gltf_write_mesh(path, pos, nrm, uv, tan, tan_count, 4, ix, 6,
                       "{\"pbrMetallicRoughness\":{\"metallicFactor\":0},\"normalTexture\":{\"index\":0}}", png, len);
    free(png);
}

static sr_status parse_mesh(const char *name, const char *path, sr_scene *s, sr_error *err)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0]},\"image\":{\"width\":8,\"height\":8},"
             " \"materials\":{}, \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\"}]}", path);
    memset(err, 0, sizeof *err);
    return sr_scene_parse(name, json, strlen(json), s, err);
}

static int same_point(sr_vec3 a, float x, float y, float z) { return a.x == x && a.y == y && a.z == z; }

static void test_generated_per_vertex(void **state)
{
    (void)state;
    char path[1024];
    sr_test_tmp_path(path, sizeof path, "gt_bent.gltf");
    bent_quad(path, NULL, 0);
    sr_scene s;
    sr_error err;
    assert_int_equal(parse_mesh("gt_bent.json", path, &s, &err), SR_OK);
    assert_int_equal(s.prim_count, 2);
    assert_int_equal(s.tangent_count, 2);
    /* each triangle's tangent at the shared corners (-1, -1, 0) and (1, 1, 0) */
    sr_vec3 at[2][2];
    sr_vec3 facet[2];
    for (uint32_t i = 0; i < 2; i++) {
        const sr_prim *p = &s.prims[i];
        const uint32_t k = s.attrs[i].flags >> SR_ATTR_TANGENT_SHIFT;
        assert_true(k >= 1);
        const sr_tri_tangent *t = &s.tangents[k - 1];
        const sr_vec3 v[3] = { p->a, p->b, p->c };
        int found = 0;
        for (int c = 0; c < 3; c++) {
            assert_float_equal(t->w[c], 1.0f, 0.0f);
            const float len = sr_length(t->t[c]);
            assert_true(fabsf(len - 1.0f) < 1e-6f);
            /* in the plane of the vertex normal */
            const sr_vec3 n = sr_normalize(s.attrs[i].n[c]);
            assert_true(fabsf(sr_dot(n, t->t[c])) < 1e-5f);
            if (same_point(v[c], -1, -1, 0)) at[i][0] = t->t[c], found++;
            if (same_point(v[c], 1, 1, 0)) at[i][1] = t->t[c], found++;
        }
        assert_int_equal(found, 2);
        /* the triangle's own dP/du (its UVs run u = (x + 1) / 2 along the bottom edge) */
        const sr_vec3 e = i == 0 ? sr_sub(p->b, p->a) : sr_sub(p->a, p->c);
        facet[i] = sr_normalize(e);
    }
    for (int c = 0; c < 2; c++) {
        printf("shared corner %d: (%.6f %.6f %.6f) and (%.6f %.6f %.6f)\n", c, at[0][c].x, at[0][c].y, at[0][c].z,
               at[1][c].x, at[1][c].y, at[1][c].z);
        assert_memory_equal(&at[0][c], &at[1][c], sizeof(sr_vec3));
    }
    /* the two facets' own frames differ: the shared tangent is a blend, not either one */
    assert_true(sr_dot(facet[0], facet[1]) < 0.999f);
    sr_scene_free(&s);
}

/* The brightest pixel of the image's left and right halves (each square shades evenly). */
static void halves(const float *tangent, const float to_light[3], double *left, double *right, uint32_t *instances)
{
    char json[4096];
    sr_gltf_tangent_instances_scene(json, sizeof json, "gt_inst", tangent, texel, to_light);
    sr_scene s;
    sr_test_parse("gt_inst.json", json, &s);
    *instances = s.instance_count;
    float *img = sr_test_render_cpu(&s, 1);
    sr_scene_free(&s);
    *left = *right = 0.0;
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 32; x++) {
            const double g = img[(y * 32 + x) * 3 + 1];
            if (x < 16) *left = g > *left ? g : *left;
            else *right = g > *right ? g : *right;
        }
    free(img);
}

/* Instances turn the file's tangents with them, and one that mirrors flips the handedness:
 * the mirrored square's bitangent is the mirror image of the other's. */
static void test_instanced_tangents(void **state)
{
    (void)state;
    const double ty = 2.0 * 90 / 255 - 1, tz = 2.0 * 220 / 255 - 1;
    const float r = 0.70710678f;
    const float px[3] = { r, 0, r }, mx[3] = { -r, 0, r };
    const float turned[4] = { 0, 1, 0, 1 };
    double lp, rp, lm, rm;
    uint32_t instances;
    halves(turned, px, &lp, &rp, &instances);
    halves(turned, mx, &lm, &rm, &instances);
    assert_int_equal(instances, 2);
    const double want_plain = (-ty + tz) / (tz + ty), want_mirrored = (ty + tz) / (tz - ty);
    printf("instances: x ratio %.6f (expected %.6f), mirrored %.6f (expected %.6f)\n", lp / lm, want_plain, rp / rm,
           want_mirrored);
    assert_true(fabs(lp / lm / want_plain - 1.0) < 1e-4);
    assert_true(fabs(rp / rm / want_mirrored - 1.0) < 1e-4);
}

static void test_bad_tangents(void **state)
{
    (void)state;
    char path[1024];
    sr_scene s;
    sr_error err;
    /* three tangents for four positions */
    float tan[16];
    for (int v = 0; v < 4; v++) tan[4 * v] = 1, tan[4 * v + 1] = 0, tan[4 * v + 2] = 0, tan[4 * v + 3] = 1;
    sr_test_tmp_path(path, sizeof path, "gt_count.gltf");
    bent_quad(path, tan, 3);
    assert_int_equal(parse_mesh("gt_count.json", path, &s, &err), SR_ERR_INPUT);
    if (!strstr(err.msg, "gt_count.gltf") || !strstr(err.msg, "TANGENT")) fail_msg("%s", err.msg);
    /* a NaN tangent at one vertex: the triangles there keep their own frame, the file loads */
    tan[4 * 3 + 1] = NAN;
    sr_test_tmp_path(path, sizeof path, "gt_nan.gltf");
    bent_quad(path, tan, 4);
    assert_int_equal(parse_mesh("gt_nan.json", path, &s, &err), SR_OK);
    uint32_t with = 0;
    for (uint32_t i = 0; i < s.prim_count; i++) with += (s.attrs[i].flags >> SR_ATTR_TANGENT_SHIFT) != 0;
    assert_int_equal(with, 1);   /* the triangle (0, 1, 2) without vertex 3 */
    sr_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_tangents_followed),
        cmocka_unit_test(test_generated_on_flat_square),
        cmocka_unit_test(test_generated_per_vertex),
        cmocka_unit_test(test_instanced_tangents),
        cmocka_unit_test(test_bad_tangents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
