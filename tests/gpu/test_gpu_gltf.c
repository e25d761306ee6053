/* GPU against the CPU reference for glTF scenes (issue #37's scene half): a file with a node
 * hierarchy, its own camera and KHR_lights_punctual point, spot and directional lights, read
 * as the whole scene and rendered by both integrators; the framing camera and default sky of
 * a file without camera or lights; a JSON scene with a spot light and mesh "transform"s.
 * Images must be bit-identical, with the wave mask and the compact mask. Exits 77 (skipped)
 * without a CUDA device. */
#include "../unit/gltfutil.h"
#include "../../src/scene/scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void load(const char *path, sr_scene *s)
{
    sr_error e;
    memset(&e, 0, sizeof e);
    if (sr_scene_load(path, s, &e) != SR_OK) fail_msg("%s", e.msg);
    s->width = 160;
    s->height = 120;
    s->spp = 2;
}

static void test_gltf_lights_match(void **state)
{
    (void)state;
    char gl[512];
    sr_gltf_write(gl, sizeof gl, "gpu_gltf_lights.gltf",
                  "\"scene\": 0, \"scenes\": [{\"nodes\": [0, 3, 4, 5, 6]}],\n"
                  "\"nodes\": [{\"translation\": [0, -1, 0], \"rotation\": [0, 0.2588190451, 0, 0.9659258263],"
                  " \"scale\": [1, 0.5, 1], \"children\": [1, 2]},\n"
                  "  {\"mesh\": 0, \"rotation\": [-0.7071067812, 0, 0, 0.7071067812], \"scale\": [12, 12, 1]},\n"
                  "  {\"mesh\": 0, \"translation\": [0.5, 2, 0], \"scale\": [1.5, 3, 1]},\n"
                  "  {\"camera\": 0, \"translation\": [0, 2, 7], \"rotation\": [-0.1305261922, 0, 0, 0.9914448614]},\n"
                  "  {\"translation\": [-2, 3, 2], \"extensions\": {\"KHR_lights_punctual\": {\"light\": 0}}},\n"
                  "  {\"matrix\": [1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 2, 4, 1, 1],"
                  " \"extensions\": {\"KHR_lights_punctual\": {\"light\": 1}}},\n"
                  "  {\"rotation\": [-0.3826834324, 0, 0, 0.9238795325], \"extensions\": {\"KHR_lights_punctual\": {\"light\": 2}}}],\n"
                  "\"cameras\": [{\"type\": \"perspective\", \"perspective\": {\"yfov\": 0.8, \"aspectRatio\": 1.333}}],\n"
                  "\"extensionsUsed\": [\"KHR_lights_punctual\"],\n"
                  "\"extensions\": {\"KHR_lights_punctual\": {\"lights\": [\n"
                  "  {\"type\": \"point\", \"color\": [1, 0.8, 0.6], \"intensity\": 12},\n"
                  "  {\"type\": \"spot\", \"color\": [0.6, 0.8, 1], \"intensity\": 30,"
                  " \"spot\": {\"innerConeAngle\": 0.2, \"outerConeAngle\": 0.5}},\n"
                  "  {\"type\": \"directional\", \"intensity\": 0.45}]}},");
    static const uint32_t integrators[] = { SR_INTEGRATOR_WHITTED, SR_INTEGRATOR_PATH };
    for (int k = 0; k < 2; k++) {
        sr_scene s;
        load(gl, &s);
        assert_int_equal(s.light_count, 3);
        s.integrator = integrators[k];
        sr_test_assert_gpu_matches_cpu(&s, k ? "glTF lights, path" : "glTF lights, whitted");
        sr_scene_free(&s);
    }
}

static void test_gltf_framing_and_sky_match(void **state)
{
    (void)state;
    char gl[512];
    sr_gltf_write(gl, sizeof gl, "gpu_gltf_plain.gltf",
                  "\"scene\": 0, \"scenes\": [{\"nodes\": [0, 1]}],\n"
                  "\"nodes\": [{\"mesh\": 0, \"rotation\": [-0.7071067812, 0, 0, 0.7071067812], \"scale\": [6, 6, 1]},"
                  " {\"mesh\": 0, \"translation\": [0, 0.5, 0]}],");
    sr_scene s;
    load(gl, &s);
    assert_true(s.has_sky);
    sr_test_assert_gpu_matches_cpu(&s, "glTF framing camera and default sky, path");
    sr_scene_free(&s);
}

static void test_json_spot_and_transform_match(void **state)
{
    (void)state;
    char gl[512], sc[512];
    sr_gltf_write(gl, sizeof gl, "gpu_gltf_mesh.gltf", "\"scene\": 0, \"scenes\": [{\"nodes\": [0]}], \"nodes\": [{\"mesh\": 0}],");
    sr_test_write_file(sc, sizeof sc, "gpu_gltf_spot.json",
                       "{\"camera\": {\"position\": [0, 3, 8], \"look_at\": [0, 0.5, 0]},\n"
                       " \"integrator\": \"path\",\n"
                       " \"materials\": {\"white\": {\"type\": \"diffuse\", \"albedo\": [0.8, 0.8, 0.8]},"
                       " \"gold\": {\"type\": \"metal\", \"albedo\": [1, 0.8, 0.4], \"roughness\": 0.3}},\n"
                       " \"objects\": [{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 1, 0], \"material\": \"white\"},\n"
                       "   {\"type\": \"mesh\", \"file\": \"gpu_gltf_mesh.gltf\", \"material\": \"gold\","
                       " \"scale\": [2, 3, 1], \"rotate\": [0, 30, 0], \"translate\": [-1, 1.5, 0]},\n"
                       "   {\"type\": \"mesh\", \"file\": \"gpu_gltf_mesh.gltf\", \"material\": \"white\","
                       " \"transform\": [1, 0.5, 0, 1.5,  0, 2, 0, 1,  0, 0, 1, -1,  0, 0, 0, 1]}],\n"
                       " \"lights\": [{\"type\": \"spot\", \"position\": [0, 5, 1], \"direction\": [0, -1, -0.2],"
                       " \"intensity\": 40, \"inner_angle\": 15, \"outer_angle\": 35},\n"
                       "   {\"type\": \"directional\", \"direction\": [1, -1, -1], \"intensity\": 0.3}]}\n");
    static const uint32_t integrators[] = { SR_INTEGRATOR_WHITTED, SR_INTEGRATOR_PATH };
    for (int k = 0; k < 2; k++) {
        sr_scene s;
        load(sc, &s);
        s.integrator = integrators[k];
        sr_test_assert_gpu_matches_cpu(&s, k ? "JSON spot and transforms, path" : "JSON spot and transforms, whitted");
        sr_scene_free(&s);
    }
}

int main(int argc, char **argv)
{
    int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gltf_lights_match),
        cmocka_unit_test(test_gltf_framing_and_sky_match),
        cmocka_unit_test(test_json_spot_and_transform_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
