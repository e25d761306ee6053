/* GPU against the CPU reference for instanced meshes (docs/scene-format.md, "Instances"): a
 * smooth-shaded mesh placed three ways (Euler angles and a uniform scale, a non-uniform
 * scale, a "transform" matrix) plus 200 small placements of a second, flat-shaded mesh,
 * over a checkered floor plane beside a glass sphere (a top level that holds a world prim
 * and the Whitted split), by both integrators. Instanced scenes run on the instances build
 * (render.c). And a glTF file whose one mesh 400 nodes place, tilted, under a path-traced sky;
 * alpha-masked and blended glTF squares, each placed twice (the cut tested inside the
 * instances); and two emissive lamps of one file (light sampling through the instances).
 * Images must be bit-identical, with the wave mask and the compact mask. Exits 77 (skipped)
 * without a CUDA device. */
#include "../unit/gltfutil.h"
#include "../unit/gltf_corpus.h"
#include "../../src/scene/scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void instanced_scene(sr_scene *s, int integrator)
{
    char a[512], b[512];
    sr_test_tmp_path(a, sizeof a, "gpu_inst_a.obj");
    sr_test_write_uv_sphere(a, 16, 8, 1, 0);
    sr_test_tmp_path(b, sizeof b, "gpu_inst_b.obj");
    sr_test_write_uv_sphere(b, 6, 3, 0, 0);
    const size_t cap = 200u * 400u + 8192u;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t n = (size_t)snprintf(text, cap,
             "{\"camera\": {\"position\": [0, 2, 7], \"look_at\": [0, 1, 0]},"
             " \"integrator\": \"%s\", \"sky\": {\"zenith\": [0.3, 0.4, 0.6], \"horizon\": [0.8, 0.8, 0.9]},"
             " \"materials\": {\"gold\": {\"type\": \"metal\", \"albedo\": [1, 0.8, 0.4], \"roughness\": 0.2},"
             "  \"red\": {\"type\": \"diffuse\", \"albedo\": [0.8, 0.2, 0.2]},"
             "  \"glass\": {\"type\": \"glass\", \"ior\": 1.5},"
             "  \"floor\": {\"type\": \"diffuse\", \"albedo\": [0.8, 0.8, 0.8], \"checker\": {\"color\": [0.1, 0.1, 0.1], \"scale\": 1}}},"
             " \"lights\": [{\"type\": \"point\", \"position\": [-3, 6, 5], \"intensity\": 200}],"
             " \"objects\": [{\"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 1, 0], \"material\": \"floor\"},"
             "  {\"type\": \"sphere\", \"center\": [2.5, 0.7, 1], \"radius\": 0.7, \"material\": \"glass\"},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"gold\", \"normals\": \"file\","
             "   \"translate\": [-2, 1, 0], \"rotate\": [20, 30, 0], \"scale\": 0.9},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"gold\", \"normals\": \"file\","
             "   \"translate\": [0.2, 1.2, -1], \"scale\": [1.2, 0.6, 0.9]},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"gold\", \"normals\": \"file\","
             "   \"transform\": [0.8, 0.3, 0, 2, -0.2, 0.9, 0.1, 1, 0, -0.1, 1.1, 0.5, 0, 0, 0, 1]}",
             integrator == SR_INTEGRATOR_PATH ? "path" : "whitted", a, a, a);
    for (int k = 0; k < 200; k++)
        n += (size_t)snprintf(text + n, cap - n, ", {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"red\","
                              " \"translate\": [%g, 0.15, %g], \"rotate\": [0, %d, 0], \"scale\": 0.15}", b,
                              -5.0 + 0.5 * (k % 20), -6.0 + 0.5 * (k / 20), 17 * k % 360);
    snprintf(text + n, cap - n, "]}");
    sr_test_parse("gpu_instances.json", text, s);
    free(text);
    assert_int_equal(s->instance_count, 203);
    assert_int_equal(s->shared_mesh_count, 2);
    s->width = 160;
    s->height = 120;
    s->spp = 2;
    s->max_depth = 6;
}

/* The scene of `text` (parsed as `name`) with `instances` instances, rendered 160 wide at
 * `height`, `spp` and `max_depth` (0: the scene's own), GPU against CPU. */
static void match_small(const char *name, const char *text, uint32_t instances, uint32_t height, uint32_t spp,
                        uint32_t max_depth, const char *what)
{
    sr_scene s;
    sr_test_parse(name, text, &s);
    assert_int_equal(s.instance_count, instances);
    s.width = 160;
    s.height = height;
    s.spp = spp;
    if (max_depth) s.max_depth = max_depth;
    sr_test_assert_gpu_matches_cpu(&s, what);
    sr_scene_free(&s);
}

static void test_instances_match(void **state)
{
    (void)state;
    static const uint32_t integrators[] = { SR_INTEGRATOR_WHITTED, SR_INTEGRATOR_PATH };
    for (int k = 0; k < 2; k++) {
        sr_scene s;
        instanced_scene(&s, (int)integrators[k]);
        sr_test_assert_gpu_matches_cpu(&s, k ? "instances, path" : "instances, whitted");
        sr_scene_free(&s);
    }
}

static void test_gltf_nodes_match(void **state)
{
    (void)state;
    const size_t cap = 400u * 160u + 4096u;
    char *rest = malloc(cap), gl[512], text[1024];
    assert_non_null(rest);
    size_t n = (size_t)snprintf(rest, cap, "\"scene\": 0, \"scenes\": [{\"nodes\": [400]}], \"nodes\": [");
    for (int k = 0; k < 400; k++)   /* squares on a 20 x 20 grid, each turned about Y */
        n += (size_t)snprintf(rest + n, cap - n, "{\"mesh\": 0, \"translation\": [%d, %d, 0], \"rotation\": [0, %.9f, 0, %.9f]}, ",
                              k % 20 - 10, k / 20 - 10, sin(0.01 * k), cos(0.01 * k));
    snprintf(rest + n, cap - n, "{\"rotation\": [-0.3826834324, 0, 0, 0.9238795325], \"scale\": [0.4, 0.4, 0.4],"
             " \"children\": [");
    n = strlen(rest);
    for (int k = 0; k < 400; k++) n += (size_t)snprintf(rest + n, cap - n, "%s%d", k ? ", " : "", k);
    snprintf(rest + n, cap - n, "]}],");
    sr_gltf_write(gl, sizeof gl, "gpu_inst_nodes.gltf", rest);
    free(rest);
    snprintf(text, sizeof text, "{\"camera\": {\"position\": [0, 3, 9], \"look_at\": [0, 0, 0]},"
             " \"integrator\": \"path\", \"sky\": {\"zenith\": [0.3, 0.4, 0.6], \"horizon\": [0.8, 0.8, 0.9]},"
             " \"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.7, 0.6, 0.5]}},"
             " \"objects\": [{\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"m\"}]}", gl);
    match_small("gpu_inst_nodes.json", text, 400, 120, 2, 0, "glTF nodes instanced, path");
}

static void test_cutout_instances_match(void **state)
{
    (void)state;
    char mask[1024], blend[1024], text[6144];
    sr_gltf_alpha_file(mask, sizeof mask, "gpu_inst_mask", 1);
    sr_gltf_alpha_file(blend, sizeof blend, "gpu_inst_blend", 2);
    for (int integrator = 0; integrator < 2; integrator++) {
        snprintf(text, sizeof text,
                 "{\"camera\":{\"position\":[0,0,7],\"look_at\":[0,0,0],\"fov\":35},"
                 " \"integrator\":\"%s\", \"sky\":{\"zenith\":[0.3,0.4,0.6],\"horizon\":[0.8,0.8,0.9]},"
                 " \"lights\":[{\"type\":\"directional\",\"direction\":[0.2,0.1,-1],\"intensity\":3}],"
                 " \"materials\":{\"back\":{\"type\":\"diffuse\",\"albedo\":[0.1,0.8,0.2]}},"
                 " \"objects\":[{\"type\":\"quad\",\"corner\":[-5,-3,-1],\"edge_u\":[10,0,0],\"edge_v\":[0,6,0],"
                 "\"material\":\"back\"},"
                 " {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\",\"translate\":[-1.3,0.8,0]},"
                 " {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\",\"translate\":[1.3,0.8,0.2],"
                 "\"rotate\":[0,15,0]},"
                 " {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\",\"translate\":[-1.3,-0.9,0]},"
                 " {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\",\"translate\":[1.3,-0.9,0.2],"
                 "\"rotate\":[0,-15,0]}]}",
                 integrator ? "path" : "whitted", mask, mask, blend, blend);
        match_small("gpu_inst_cutout.json", text, 4, 96, 4, 4,
                    integrator ? "cut-out instances, path" : "cut-out instances, whitted");
    }
}

/* Emissive meshes instanced: light sampling picks a placed triangle by hit id. */
static void test_emissive_instances_match(void **state)
{
    (void)state;
    char a[512], text[2048];
    sr_test_tmp_path(a, sizeof a, "gpu_inst_lamp.obj");
    sr_test_write_uv_sphere(a, 12, 6, 1, 0);
    sr_test_lamp_pair_scene(text, sizeof text, a, a, 4);
    match_small("gpu_inst_lamps.json", text, 2, 96, 4, 4, "emissive instances, path");
}

int main(int argc, char **argv)
{
    int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_instances_match),
        cmocka_unit_test(test_gltf_nodes_match),
        cmocka_unit_test(test_cutout_instances_match),
        cmocka_unit_test(test_emissive_instances_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
