/* GPU against the CPU reference for glTF materials (tests/unit/gltf_corpus.h's scenes):
 * embedded base colour images, a texture transform, a normal map (Whitted and path), an
 * emissive lamp that is light-sampled, alpha MASK and BLEND tested in traversal, normal maps
 * on per-vertex tangents (the file's, generated, and instanced with a mirror), and an
 * emissive texture with a KHR_texture_transform of its own. The
 * images must be bit-identical, with the wave mask and the compact mask. Exits 77 (skipped)
 * without a CUDA device. */
#include "../unit/testutil.h"
#include "../unit/gltf_corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Render on both backends with two masks; every image byte-equal to the CPU's. */
static void assert_bit_identical(const char *json, const char *label)
{
    sr_scene s;
    sr_test_parse("gpu_gltf.json", json, &s);
    sr_test_assert_gpu_matches_cpu(&s, label);
    sr_scene_free(&s);
}

static void test_textures_match(void **state)
{
    (void)state;
    char json[4096];
    sr_gltf_textured_scene(json, sizeof json, "gpu_gltf_tex", SR_GLTF_GLB, 1, "whitted");
    assert_bit_identical(json, "embedded texture, whitted");
    sr_gltf_textured_scene(json, sizeof json, "gpu_gltf_tex", SR_GLTF_DATA_URI, 1, "path");
    assert_bit_identical(json, "data URI texture, path");
    sr_gltf_transform_scene(json, sizeof json, "gpu_gltf_xf", 4.0f);
    assert_bit_identical(json, "texture transform");
}

static void test_normal_map_matches(void **state)
{
    (void)state;
    char json[4096];
    const unsigned char texel[3] = { 200, 90, 220 };
    const float l[3] = { 0.6f, 0.0f, 0.8f };
    sr_gltf_normal_map_scene(json, sizeof json, "gpu_gltf_nm", texel, l, "whitted");
    assert_bit_identical(json, "normal map, whitted");
    sr_gltf_normal_map_scene(json, sizeof json, "gpu_gltf_nm", texel, l, "path");
    assert_bit_identical(json, "normal map, path");
}

static void test_tangents_match(void **state)
{
    (void)state;
    char json[4096];
    const unsigned char texel[3] = { 200, 90, 220 };
    const float l[3] = { 0.6f, 0.0f, 0.8f };
    const float turned[4] = { 0, 1, 0, -1 };
    sr_gltf_tangent_scene(json, sizeof json, "gpu_gltf_tan", turned, texel, l);
    assert_bit_identical(json, "file tangents, whitted");
    sr_gltf_tangent_scene(json, sizeof json, "gpu_gltf_gen", NULL, texel, l);
    assert_bit_identical(json, "generated tangents, whitted");
    sr_gltf_tangent_instances_scene(json, sizeof json, "gpu_gltf_tani", turned, texel, l);
    assert_bit_identical(json, "instanced tangents, one mirrored");
}

static void test_texture_transform_per_texture_matches(void **state)
{
    (void)state;
    char json[4096];
    sr_gltf_emissive_xf_scene(json, sizeof json, "gpu_gltf_exf", 4.0f);
    assert_bit_identical(json, "emissive texture's own transform, path");
}

static void test_emissive_lamp_matches(void **state)
{
    (void)state;
    char json[4096];
    sr_gltf_lamp_scene(json, sizeof json, "gpu_gltf_lamp", 1, 4);
    assert_bit_identical(json, "glTF lamp, path");
}

static void test_alpha_matches(void **state)
{
    (void)state;
    char json[4096];
    sr_gltf_alpha_scene(json, sizeof json, "gpu_gltf_mask", 1, 1, 2);
    assert_bit_identical(json, "alpha MASK");
    sr_gltf_alpha_scene(json, sizeof json, "gpu_gltf_blend", 2, 1, 8);
    assert_bit_identical(json, "alpha BLEND");
}

int main(int argc, char **argv)
{
    int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_textures_match),
        cmocka_unit_test(test_normal_map_matches),
        cmocka_unit_test(test_tangents_match),
        cmocka_unit_test(test_texture_transform_per_texture_matches),
        cmocka_unit_test(test_emissive_lamp_matches),
        cmocka_unit_test(test_alpha_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
