/* GPU against the CPU reference for scenes that use per-vertex data: smooth normals (from the
 * file and generated) on diffuse, mirror, metal and glass meshes, and image textures (colour,
 * reflectance and roughness; bilinear and nearest, repeat and clamp) on quads and UV-mapped
 * meshes, the environment map (seen, and importance-sampled in path mode) and the pbr
 * material (textured, rough and smooth), and the shipped showcase scene, in both
 * integrators. The
 * images must be bit-identical, with the wave mask and the compact mask. Exits 77 (skipped)
 * without a CUDA device. */
#include "../unit/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

static void smooth_scene(const char *integrator, sr_scene *s)
{
    char vn[512], plain[512], json[4096];
    sr_test_tmp_path(vn, sizeof vn, "gpu_sphere_vn.obj");
    sr_test_tmp_path(plain, sizeof plain, "gpu_sphere_plain.obj");
    sr_test_write_uv_sphere(vn, 12, 6, 1, 0);
    sr_test_write_uv_sphere(plain, 12, 6, 0, 0);
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,1.5,7],\"look_at\":[0,0.6,0],\"fov\":40},"
             " \"image\":{\"width\":160,\"height\":120,\"spp\":2,\"max_depth\":6},"
             " \"integrator\":\"%s\", \"sky\":{\"zenith\":[0.4,0.6,1],\"horizon\":[1,1,1]},"
             " \"materials\":{\"white\":{\"type\":\"diffuse\",\"albedo\":[0.8,0.8,0.8]},"
             "   \"floor\":{\"type\":\"diffuse\",\"albedo\":[0.6,0.6,0.6],\"checker\":{\"color\":[0.2,0.2,0.2]}},"
             "   \"chrome\":{\"type\":\"mirror\"}, \"gold\":{\"type\":\"metal\",\"albedo\":[1,0.8,0.4],\"roughness\":0.3},"
             "   \"glass\":{\"type\":\"glass\",\"ior\":1.5},"
             "   \"lamp\":{\"type\":\"emissive\",\"radiance\":[8,8,8]}},"
             " \"objects\":[{\"type\":\"plane\",\"point\":[0,-1,0],\"normal\":[0,1,0],\"material\":\"floor\"},"
             "   {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"white\",\"translate\":[-2.4,0,0]},"
             "   {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"chrome\",\"translate\":[0,0,0]},"
             "   {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"glass\",\"translate\":[2.4,0,0]},"
             "   {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"gold\",\"translate\":[0,0,-2.5],\"normals\":\"smooth\",\"crease_angle\":40},"
             "   {\"type\":\"quad\",\"corner\":[-1,4,-1],\"edge_u\":[2,0,0],\"edge_v\":[0,0,2],\"material\":\"lamp\"}],"
             " \"lights\":[{\"type\":\"point\",\"position\":[3,5,4],\"intensity\":60}]}",
             integrator, vn, vn, vn, plain);
    sr_test_parse("gpu_smooth.json", json, s);
}

static void test_smooth_normals_match(void **state)
{
    (void)state;
    static const char *const integrators[] = { "whitted", "path" };
    for (int k = 0; k < 2; k++) {
        sr_scene s;
        smooth_scene(integrators[k], &s);
        assert_non_null(s.attrs);
        sr_test_assert_gpu_matches_cpu(&s, integrators[k]);
        sr_scene_free(&s);
    }
}

/* A 16x8 RGB image: a checker of 2x2 cells with a colour ramp, so bilinear taps differ. */
static void write_texture(const char *path)
{
    unsigned char px[16 * 8 * 3];
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 16; i++) {
            const int odd = ((i / 2) + (j / 2)) & 1;
            px[3 * (j * 16 + i) + 0] = (unsigned char)(odd ? 230 : 20 + 10 * i);
            px[3 * (j * 16 + i) + 1] = (unsigned char)(odd ? 200 - 20 * j : 40);
            px[3 * (j * 16 + i) + 2] = (unsigned char)(odd ? 60 : 120 + 8 * j);
        }
    assert_true(stbi_write_png(path, 16, 8, 3, px, 16 * 3) != 0);
}

static void texture_scene(const char *integrator, sr_scene *s)
{
    char png[512], obj[512], json[8192];
    sr_test_tmp_path(png, sizeof png, "gpu_tex.png");
    sr_test_tmp_path(obj, sizeof obj, "gpu_uv_sphere.obj");
    write_texture(png);
    sr_test_write_uv_sphere(obj, 16, 8, 1, 1);
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,1.5,7],\"look_at\":[0,0.6,0],\"fov\":40},"
             " \"image\":{\"width\":160,\"height\":120,\"spp\":2,\"max_depth\":5},"
             " \"integrator\":\"%s\", \"background\":[0.5,0.6,0.8], \"ambient\":[0.1,0.1,0.1],"
             " \"materials\":{\"wall\":{\"type\":\"diffuse\",\"albedo\":{\"texture\":\"%s\"}},"
             "   \"tiles\":{\"type\":\"diffuse\",\"albedo\":{\"texture\":\"%s\",\"filter\":\"nearest\",\"wrap\":\"clamp\",\"tint\":[0.9,0.9,1]}},"
             "   \"mirror\":{\"type\":\"mirror\",\"reflectance\":{\"texture\":\"%s\"}},"
             "   \"brushed\":{\"type\":\"metal\",\"albedo\":[0.9,0.8,0.6],\"roughness\":{\"texture\":\"%s\",\"scale\":0.8}}},"
             " \"objects\":[{\"type\":\"quad\",\"corner\":[-4,-1,3],\"edge_u\":[8,0,0],\"edge_v\":[0,0,-8],\"material\":\"tiles\"},"
             "   {\"type\":\"quad\",\"corner\":[-4,-1,-3],\"edge_u\":[8,0,0],\"edge_v\":[0,5,0],\"material\":\"wall\"},"
             "   {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"wall\",\"translate\":[-2.2,0,0]},"
             "   {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"mirror\"},"
             "   {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"brushed\",\"translate\":[2.2,0,0]}],"
             " \"lights\":[{\"type\":\"point\",\"position\":[3,5,4],\"intensity\":60}]}",
             integrator, png, png, png, png, obj, obj, obj);
    sr_test_parse("gpu_texture.json", json, s);
}

static void test_textures_match(void **state)
{
    (void)state;
    static const char *const integrators[] = { "whitted", "path" };
    for (int k = 0; k < 2; k++) {
        sr_scene s;
        texture_scene(integrators[k], &s);
        /* one file, four uses: the wall's albedo and the mirror's reflectance are the same
         * file decoded the same way with the same wrap and filter, so one texture; the tiles
         * (nearest, clamp) and the roughness (data, not sRGB) are textures of their own */
        assert_int_equal(s.tex.count, 3);
        sr_test_assert_gpu_matches_cpu(&s, integrators[k]);
        sr_scene_free(&s);
    }
}

static void test_environment_matches(void **state)
{
    (void)state;
    char sky[1024], obj[512], png[512], json[4096];
    sr_test_source_path(sky, sizeof sky, "assets/sky.hdr");
    sr_test_tmp_path(obj, sizeof obj, "gpu_env_sphere.obj");
    sr_test_tmp_path(png, sizeof png, "gpu_env_tex.png");
    sr_test_write_uv_sphere(obj, 16, 8, 1, 1);
    write_texture(png);
    static const char *const integrators[] = { "whitted", "path" };
    for (int k = 0; k < 2; k++) {
        snprintf(json, sizeof json,
                 "{\"camera\":{\"position\":[0,1.2,5],\"look_at\":[0,0.8,0],\"fov\":50},"
                 " \"image\":{\"width\":160,\"height\":100,\"spp\":2,\"max_depth\":6}, \"integrator\":\"%s\","
                 " \"environment\":{\"file\":\"%s\",\"rotate\":[0,40,0],\"intensity\":0.8},"
                 " \"materials\":{\"white\":{\"type\":\"diffuse\",\"albedo\":[0.8,0.8,0.8]},\"chrome\":{\"type\":\"mirror\"},"
                 "   \"gold\":{\"type\":\"metal\",\"albedo\":[1,0.8,0.4],\"roughness\":0.3},"
                 "   \"tex\":{\"type\":\"pbr\",\"base_color\":{\"texture\":\"%s\"},\"roughness\":0.35,\"metallic\":0.2},"
                 "   \"plastic\":{\"type\":\"pbr\",\"base_color\":[0.1,0.3,0.8],\"roughness\":0,\"emission\":[0.2,0,0]}},"
                 " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"white\"},"
                 "   {\"type\":\"sphere\",\"center\":[-1.2,1,0],\"radius\":1,\"material\":\"chrome\"},"
                 "   {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"tex\",\"translate\":[0.3,0.6,1.2],\"scale\":0.6},"
                 "   {\"type\":\"sphere\",\"center\":[1.4,0.7,0.5],\"radius\":0.7,\"material\":\"gold\"},"
                 "   {\"type\":\"sphere\",\"center\":[0.2,0.3,2.2],\"radius\":0.3,\"material\":\"plastic\"}]}",
                 integrators[k], sky, png, obj);
        sr_scene s;
        sr_test_parse("gpu_env.json", json, &s);
        assert_true(s.env_tex > 0);
        sr_test_assert_gpu_matches_cpu(&s, integrators[k]);
        sr_scene_free(&s);
    }
}

/* The shipped showcase: file materials, a textured floor, smooth normals and the sky. */
static void test_showcase_matches(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_load_shipped("scenes/showcase.json", &s);
    s.width = 192;
    s.height = 108;
    s.spp = 2;
    sr_test_assert_gpu_matches_cpu(&s, "scenes/showcase.json");
    sr_scene_free(&s);
}

int main(int argc, char **argv)
{
    int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_smooth_normals_match),
        cmocka_unit_test(test_textures_match),
        cmocka_unit_test(test_environment_matches),
        cmocka_unit_test(test_showcase_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
