/* test_envmap.c: environment maps. The hand-written atan2 against the C library's; the mapping
 * from directions to texels (and "rotate"); a constant map lights a scene as the same uniform
 * background does (within Monte Carlo error); importance sampling the map and finding it by
 * BSDF sampling alone agree, and for a small bright sun importance sampling has far less
 * variance; the shipped assets/sky.hdr loads; bad files exit 2 naming the file. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

#include "../../src/io/images/envmap.h"
#include "../../kernels/integrators/stages.h"

static void test_atan2(void **state)
{
    (void)state;
    double worst = 0;
    for (int i = -200; i <= 200; i++)
        for (int j = -200; j <= 200; j++) {
            const float y = (float)i * 0.013f, x = (float)j * 0.011f;
            if (i == 0 && j == 0) continue;
            const double e = fabs((double)sr_atan2(y, x) - atan2((double)y, (double)x));
            if (e > worst) worst = e;
        }
    printf("largest atan2 error: %.3g rad\n", worst);
    assert_true(worst < 2e-5);
    assert_true(sr_atan2(0.0f, -1.0f) > 3.14159f);   /* the branch cut: +pi, not -pi */
    assert_true(sr_atan2(0.0f, 0.0f) == 0.0f);
}

/* Write a w x h HDR whose texel (i, j) is f(i, j). */
static void write_hdr(const char *path, int w, int h, void (*f)(int, int, int, int, float *))
{
    float *px = malloc(sizeof(float) * 3 * w * h);
    assert_non_null(px);
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) f(i, j, w, h, px + 3 * (j * w + i));
    assert_true(stbi_write_hdr(path, w, h, 3, px) != 0);
    free(px);
}

static void texel_index(int i, int j, int w, int h, float *c)
{
    (void)h;
    c[0] = (float)(j * w + i + 1);   /* powers-of-two-friendly small integers survive RGBE exactly */
    c[1] = 0.5f;
    c[2] = 0.25f;
}

static void constant_map(int i, int j, int w, int h, float *c)
{
    (void)i; (void)j; (void)w; (void)h;
    c[0] = 0.75f; c[1] = 0.5f; c[2] = 0.25f;
}

/* 0.125 everywhere, and a 2x2 texel "sun" of 512 at 45 degrees up, in front. */
static void sun_map(int i, int j, int w, int h, float *c)
{
    const int si = w / 2 + 3, sj = h / 4;
    const float v = (i >= si && i < si + 2 && j >= sj && j < sj + 2) ? 512.0f : 0.125f;
    c[0] = c[1] = c[2] = v;
}

/* A broad bright patch over a dim sky: BSDF sampling alone converges on it too. */
static void broad_map(int i, int j, int w, int h, float *c)
{
    const double di = i - (w / 2 + 6), dj = j - h / 3;
    const double v = 0.2 + 4.0 * exp(-(di * di + dj * dj) / (2.0 * 16.0));
    c[0] = (float)v; c[1] = (float)(0.9 * v); c[2] = (float)(0.8 * v);
}

static float *render_json(const char *json, uint32_t flags, uint32_t seed, sr_scene *keep)
{
    sr_scene s;
    sr_test_parse("env.json", json, &s);
    s.path_flags = flags;
    float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, seed, NULL);
    if (keep) *keep = s;
    else sr_scene_free(&s);
    return img;
}

/* Texels seen along known directions, with and without a quarter turn. */
static void test_mapping(void **state)
{
    (void)state;
    char hdr[512], json[1024];
    sr_test_tmp_path(hdr, sizeof hdr, "env_index.hdr");
    write_hdr(hdr, 8, 4, texel_index);
    for (int turn = 0; turn < 2; turn++) {
        snprintf(json, sizeof json,
                 "{\"camera\":{\"position\":[0,0,0],\"look_at\":[0,0,-1]}, \"environment\":{\"file\":\"%s\"%s},"
                 " \"materials\":{\"m\":{\"type\":\"diffuse\"}},"
                 " \"objects\":[{\"type\":\"sphere\",\"center\":[0,-100,0],\"radius\":1,\"material\":\"m\"}]}",
                 hdr, turn ? ",\"rotate\":[0,90,0]" : "");
        sr_scene s;
        sr_test_parse("map.json", json, &s);
        sr_scene_view v;
        memset(&v, 0, sizeof v);
        v.textures = s.tex.items;
        v.texels = s.tex.texels;
        v.env_tex = s.env_tex;
        v.env_intensity = 1.0f;
        memcpy(v.env_rot, s.env_rot, sizeof v.env_rot);
        /* (direction, column, row): -z a little up and right is column 4 (u just over 1/2),
         * row 1; straight up is row 0; +x at the horizon is u = 3/4, column 6; below, row 3.
         * With the quarter turn about y the map's -z looks along world -x. */
        const struct { sr_vec3 d; int col, row; } cases[] = {
            { { 0.01f, 0.2f, -1.0f }, 4, 1 }, { { 0.0f, 1.0f, 0.0f }, 0, 0 },
            { { 1.0f, 0.1f, 0.01f }, 6, 1 }, { { 0.3f, -0.99f, -0.1f }, 0, 3 },
        };
        for (size_t k = 0; k < 4; k++) {
            sr_vec3 d = sr_normalize(cases[k].d);
            if (turn) d = sr_normalize(sr_v3(d.z, d.y, -d.x));   /* map -z -> world -x */
            sr_vec3 c = sr_env_radiance(&v, d);
            if (k == 1 || k == 3) {   /* the pole rows: only the row is certain */
                assert_true(c.x >= (float)(cases[k].row * 8 + 1) && c.x <= (float)(cases[k].row * 8 + 8));
                continue;
            }
            if (c.x != (float)(cases[k].row * 8 + cases[k].col + 1))
                fail_msg("turn %d case %zu: texel %g, expected column %d row %d", turn, k, c.x, cases[k].col, cases[k].row);
        }
        sr_scene_free(&s);
    }
}

static const char *lit_scene =
    "{\"camera\":{\"position\":[0,1.5,5],\"look_at\":[0,0.5,0],\"fov\":40},"
    " \"image\":{\"width\":48,\"height\":36,\"spp\":%d,\"max_depth\":4}, \"integrator\":\"path\", %s,"
    " \"materials\":{\"m\":{\"type\":\"diffuse\",\"albedo\":[0.7,0.6,0.5]},"
    "   \"g\":{\"type\":\"metal\",\"albedo\":[0.9,0.9,0.9],\"roughness\":0.4}},"
    " \"objects\":[{\"type\":\"sphere\",\"center\":[-0.6,0.5,0],\"radius\":0.5,\"material\":\"m\"},"
    "   {\"type\":\"sphere\",\"center\":[0.6,0.5,0],\"radius\":0.5,\"material\":\"g\"},"
    "   {\"type\":\"quad\",\"corner\":[-3,0,3],\"edge_u\":[6,0,0],\"edge_v\":[0,0,-6],\"material\":\"m\"}]}";

/* Compare two renders block by block (6x6-pixel blocks): the mean difference of each block
 * within 5 standard errors of the per-pixel differences. */
static void assert_same_within_noise(const float *a, const float *b, int w, int h, const char *what)
{
    int blocks = 0;
    for (int by = 0; by < h; by += 6)
        for (int bx = 0; bx < w; bx += 6) {
            double sum = 0, sum2 = 0;
            int n = 0;
            for (int y = by; y < by + 6 && y < h; y++)
                for (int x = bx; x < bx + 6 && x < w; x++)
                    for (int c = 0; c < 3; c++) {
                        const double d = (double)a[3 * (y * w + x) + c] - (double)b[3 * (y * w + x) + c];
                        sum += d;
                        sum2 += d * d;
                        n++;
                    }
            const double mean = sum / n, var = sum2 / n - mean * mean;
            const double se = sqrt(var > 0 ? var / n : 0) + 1e-6;
            if (fabs(mean) > 5.0 * se) fail_msg("%s: block (%d, %d) differs by %.4f (standard error %.4f)", what, bx, by, mean, se);
            blocks++;
        }
    assert_true(blocks >= 48);
}

static void test_constant_map_is_the_background(void **state)
{
    (void)state;
    char hdr[512], env[700], json[4096];
    sr_test_tmp_path(hdr, sizeof hdr, "env_const.hdr");
    write_hdr(hdr, 32, 16, constant_map);
    snprintf(env, sizeof env, "\"environment\":{\"file\":\"%s\",\"intensity\":2}", hdr);
    snprintf(json, sizeof json, lit_scene, 64, env);
    float *with_map = render_json(json, 0, 3, NULL);
    snprintf(json, sizeof json, lit_scene, 64, "\"background\":[1.5,1,0.5]");
    float *with_bg = render_json(json, 0, 4, NULL);
    assert_same_within_noise(with_map, with_bg, 48, 36, "constant map against the background");
    /* the sky itself, seen directly, is exactly the map's colour times the intensity */
    assert_float_equal(with_map[0], 1.5f, 1e-6);
    assert_float_equal(with_map[2], 0.5f, 1e-6);
    free(with_map);
    free(with_bg);
}

static void test_importance_sampling_agrees(void **state)
{
    (void)state;
    char hdr[512], env[700], json[4096];
    sr_test_tmp_path(hdr, sizeof hdr, "env_broad.hdr");
    write_hdr(hdr, 64, 32, broad_map);
    snprintf(env, sizeof env, "\"environment\":{\"file\":\"%s\",\"rotate\":[0,30,0]}", hdr);
    snprintf(json, sizeof json, lit_scene, 128, env);
    float *is = render_json(json, 0, 5, NULL);
    float *bsdf = render_json(json, SR_PATH_NO_ENV_IS, 6, NULL);
    assert_same_within_noise(is, bsdf, 48, 36, "map sampling against BSDF sampling");
    free(is);
    free(bsdf);
}

/* A diffuse floor seen from above, 1 sample per pixel, so each pixel is one estimate of the
 * same radiance (the floor is uniform and unbounded): both ways find the closed form, and
 * importance sampling with far less variance. */
static void test_small_sun_converges_faster(void **state)
{
    (void)state;
    char hdr[512], env[700], json[4096];
    sr_test_tmp_path(hdr, sizeof hdr, "env_sun.hdr");
    const int w = 64, h = 32;
    write_hdr(hdr, w, h, sun_map);
    snprintf(env, sizeof env, "\"environment\":{\"file\":\"%s\"}", hdr);
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,5,0],\"look_at\":[0,0,0],\"up\":[0,0,-1],\"fov\":30},"
             " \"image\":{\"width\":64,\"height\":64,\"spp\":1,\"max_depth\":1}, \"integrator\":\"path\", %s,"
             " \"materials\":{\"m\":{\"type\":\"diffuse\",\"albedo\":[0.5,0.5,0.5]}},"
             " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"m\"}]}",
             env);
    /* The closed form: albedo / pi times the irradiance, the sum over the upper rows' texels
     * of L * cos(theta) * solid angle (2 pi / w) (pi / h) sin(theta) at the row's centre. */
    double irradiance = 0;
    for (int j = 0; j < h / 2; j++)
        for (int i = 0; i < w; i++) {
            float c[3];
            sun_map(i, j, w, h, c);
            const double th = M_PI * (j + 0.5) / h;
            irradiance += c[0] * cos(th) * (2.0 * M_PI / w) * (M_PI / h) * sin(th);
        }
    const double expect = 0.5 / M_PI * irradiance;
    double mean[2], var[2];
    for (int k = 0; k < 2; k++) {
        float *img = render_json(json, k ? SR_PATH_NO_ENV_IS : 0, 9, NULL);
        double s = 0, s2 = 0;
        for (int p = 0; p < 64 * 64; p++) {
            s += img[3 * p];
            s2 += (double)img[3 * p] * img[3 * p];
        }
        mean[k] = s / 4096;
        var[k] = s2 / 4096 - mean[k] * mean[k];
        free(img);
    }
    printf("floor under a sun: closed form %.4f; mean %.4f (map sampled) / %.4f (BSDF only), variance %.4g / %.4g, "
           "ratio %.0f\n", expect, mean[0], mean[1], var[0], var[1], var[1] / var[0]);
    /* The sun covers 4 of 2048 texels (about 1/700 of the upper sphere's solid angle) and sends
     * most of the light: BSDF sampling finds it about once in a few hundred rays, map sampling
     * on most samples. The midpoint rule above is exact to 1 % for texels this size. */
    assert_true(var[1] > 20.0 * var[0]);
    assert_true(fabs(mean[0] - expect) < 0.01 * expect + 5.0 * sqrt(var[0] / 4096));
    assert_true(fabs(mean[1] - expect) < 0.01 * expect + 5.0 * sqrt(var[1] / 4096));
}

static void test_shipped_sky(void **state)
{
    (void)state;
    char sky[1024], json[2048];
    sr_test_source_path(sky, sizeof sky, "assets/sky.hdr");
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,1,5],\"look_at\":[0,1,0]}, \"environment\":{\"file\":\"%s\"},"
             " \"materials\":{\"m\":{\"type\":\"diffuse\"}},"
             " \"objects\":[{\"type\":\"sphere\",\"center\":[0,1,0],\"radius\":1,\"material\":\"m\"}]}",
             sky);
    sr_scene s;
    sr_test_parse("sky.json", json, &s);
    assert_int_equal(s.tex.items[s.env_tex - 1].width, 256);
    assert_int_equal(s.tex.items[s.env_tex - 1].height, 128);
    /* the sun dominates: the brightest texel is far above the sky's */
    float top = 0;
    for (uint32_t i = 0; i < 256 * 128 * 3; i++) top = s.tex.texels[i] > top ? s.tex.texels[i] : top;
    assert_true(top > 1000.0f);
    /* its distribution's CDFs end at 1 and its pdf integrates to 1 over (u, v) */
    assert_true(s.env_marginal[128] == 1.0f);
    double integral = 0;
    for (int k = 0; k < 256 * 128; k++) integral += s.env_pdf[k];
    assert_float_equal(integral / (256.0 * 128.0), 1.0, 1e-4);
    sr_scene_free(&s);
}

static void test_bad_environment(void **state)
{
    (void)state;
    char scene[600], out[600], err[8192], bad[512], json[2048];
    sr_test_tmp_path(out, sizeof out, "env_never.png");
    remove(out);
    sr_test_write_file(bad, sizeof bad, "env_bad.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y banana\n");
    const char *files[] = { "missing.hdr", bad };
    const char *want[] = { "missing.hdr", "env_bad.hdr" };
    for (int k = 0; k < 2; k++) {
        snprintf(json, sizeof json,
                 "{\"camera\":{\"position\":[0,1,5],\"look_at\":[0,1,0]},\n"
                 " \"environment\":{\"file\":\"%s\"},\n"
                 " \"materials\":{\"m\":{\"type\":\"diffuse\"}},\n"
                 " \"objects\":[{\"type\":\"sphere\",\"center\":[0,1,0],\"radius\":1,\"material\":\"m\"}]}",
                 files[k]);
        sr_test_write_file(scene, sizeof scene, "env_bad.json", json);
        const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
        assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
        if (!strstr(err, "env_bad.json:2:24:") || !strstr(err, want[k])) fail_msg("%s", err);
        assert_false(sr_test_file_exists(out));
    }
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,1,5],\"look_at\":[0,1,0]}, \"background\":[1,1,1],\n"
             " \"environment\":{\"file\":\"x.hdr\"}, \"materials\":{\"m\":{\"type\":\"diffuse\"}},"
             " \"objects\":[{\"type\":\"sphere\",\"center\":[0,1,0],\"radius\":1,\"material\":\"m\"}]}");
    sr_scene s;
    sr_error e = { 0 };
    assert_int_equal(sr_scene_parse("both.json", json, strlen(json), &s, &e), SR_ERR_INPUT);
    if (!strstr(e.msg, "both.json:2:") || !strstr(e.msg, "give one")) fail_msg("%s", e.msg);
}

/* A map of radiance `bright_value` everywhere. */
static float bright_value;
static void bright_map(int i, int j, int w, int h, float *c)
{
    (void)i; (void)j; (void)w; (void)h;
    c[0] = c[1] = c[2] = bright_value;
}

/* The map's brightest texel x intensity must leave room for the film's sums: 1000 x 3e35 is
 * a finite float (3e38), yet it rendered a black image with exit 0. Refused at the intensity
 * (or at the file, when the map alone is too bright), exit 2, nothing written; a product of
 * 1e29 renders. */
static void test_environment_too_bright(void **state)
{
    (void)state;
    char hdr[512], src[2048];
    sr_test_tmp_path(hdr, sizeof hdr, "env_bright.hdr");
    bright_value = 1000.0f;
    write_hdr(hdr, 8, 4, bright_map);
    snprintf(src, sizeof src, "{'camera': {'position': [0, 1, 5], 'look_at': [0, 1, 0]},\n"
                              " 'environment': {'file': '%s', 'intensity': @3e35}, " MATS ", " OBJS "}", hdr);
    EXPECT_ERR(src, "environment.intensity", "env_bright.hdr", "1000 x 3e+35 = 3e+38", "at most 1e+30");

    /* the same through the CLI: exit 2, no image, both integrators */
    char scene[600], out[600], err[8192], json[2048];
    sr_test_tmp_path(out, sizeof out, "env_bright.png");
    remove(out);
    static const char *const integ[] = { "whitted", "path" };
    for (int k = 0; k < 2; k++) {
        snprintf(json, sizeof json,
                 "{\"camera\":{\"position\":[0,1,5],\"look_at\":[0,1,0]}, \"integrator\":\"%s\",\n"
                 " \"environment\":{\"file\":\"%s\",\n  \"intensity\":3e35},\n"
                 " \"materials\":{\"m\":{\"type\":\"diffuse\"}},\n"
                 " \"objects\":[{\"type\":\"sphere\",\"center\":[0,1,0],\"radius\":1,\"material\":\"m\"}]}",
                 integ[k], hdr);
        sr_test_write_file(scene, sizeof scene, "env_bright.json", json);
        const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "16", "--height", "8", "-o", out, "-q", NULL };
        const int code = sr_test_run_cli(argv, err, sizeof err);
        printf("%s: exit %d: %s", integ[k], code, err);
        if (code != 2 || !strstr(err, "env_bright.json:3:15: environment.intensity: ") || !strstr(err, "at most 1e+30"))
            fail_msg("%s: exit %d, expected 2 and env_bright.json:3:15: environment.intensity: ...; got:\n%s", integ[k], code, err);
        assert_false(sr_test_file_exists(out));
    }

    /* a map too bright on its own: the file is named, at its key */
    char hot[512];
    sr_test_tmp_path(hot, sizeof hot, "env_hot.hdr");
    bright_value = 1e32f;
    write_hdr(hot, 8, 4, bright_map);
    snprintf(src, sizeof src, "{'camera': {'position': [0, 1, 5], 'look_at': [0, 1, 0]},\n"
                              " 'environment': {'file': @'%s'}, " MATS ", " OBJS "}", hot);
    EXPECT_ERR(src, "environment.file", "env_hot.hdr", "at most 1e+30");

    /* within the limit it loads */
    snprintf(src, sizeof src, "{'camera': {'position': [0, 1, 5], 'look_at': [0, 1, 0]},\n"
                              " 'environment': {'file': '%s', 'intensity': 1e26}, " MATS ", " OBJS "}", hdr);
    sr_scene s;
    sr_test_parse_ok(src, &s);
    assert_true(s.env_intensity == 1e26f);
    sr_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atan2),
        cmocka_unit_test(test_mapping),
        cmocka_unit_test(test_constant_map_is_the_background),
        cmocka_unit_test(test_importance_sampling_agrees),
        cmocka_unit_test(test_small_sun_converges_faster),
        cmocka_unit_test(test_shipped_sky),
        cmocka_unit_test(test_bad_environment),
        cmocka_unit_test(test_environment_too_bright),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
