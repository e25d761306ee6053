/* The compressed 8-wide tree (src/render/bvh_wide.h) on the GPU: every shipped scene, an
 * instanced scene and a mesh above the host SAH limit (the linear BVH read back from the
 * device for the collapse), both integrators, the wave mask and the megakernel: the GPU's
 * image through the wide tree is the CPU's through the binary tree, bit for bit, with the
 * same rays, and the stats name the wide tree (the binary one in a build without CMake's
 * SR_GPU_WIDE, whose kernels do not carry the wide walk). Exits 77 (skipped) without a CUDA
 * device. */
#include "../unit/testutil.h"
#include "../../src/render/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SR_GPU_WIDE
#define SR_GPU_WIDE 0   /* kernels without the wide walk: the GPU walks the binary tree */
#endif

static const char *const scenes[] = { "scenes/default.json", "scenes/cornell.json", "scenes/cornell_path.json",
                                      "scenes/mirror_hall.json", "scenes/mesh.json", "scenes/sphere_field.json",
                                      "scenes/showcase.json", "scenes/orbit.json" };

static void gpu_wide_matches_cpu(sr_scene *scene, const char *what)
{
    const sr_mask masks[] = { SR_MASK_WAVE, SR_MASK_MEGAKERNEL };
    for (uint32_t integrator = 0; integrator < SR_INTEGRATOR_COUNT; integrator++)
        for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
            scene->integrator = integrator;
            sr_render_opts o;
            sr_render_opts_default(&o);
            o.mask = masks[m];
            sr_render_stats cs, gs;
            float *cpu = sr_test_render_opts(scene, SR_BACKEND_CPU, &o, &cs);
            o.bvh_tree = SR_BVH_TREE_WIDE;
            float *gpu = sr_test_render_opts(scene, SR_BACKEND_CUDA, &o, &gs);
            assert_non_null(cpu);
            assert_non_null(gpu);
            assert_int_equal(gs.bvh_tree, SR_GPU_WIDE ? SR_BVH_TREE_WIDE : SR_BVH_TREE_BINARY);
            if (memcmp(cpu, gpu, sizeof(float) * 3u * scene->width * scene->height))
                fail_msg("%s (%s, mask %d): the GPU's image through the wide tree differs from the CPU's", what,
                         integrator ? "path" : "whitted", (int)masks[m]);
            assert_true(cs.rays == gs.rays);
            free(cpu);
            free(gpu);
        }
}

static void test_shipped_scenes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
        sr_scene scene;
        sr_test_load_shipped(scenes[i], &scene);
        scene.width = 160;
        scene.height = 90;
        scene.spp = 2;
        gpu_wide_matches_cpu(&scene, scenes[i]);
        sr_scene_free(&scene);
    }
}

static void test_instances_and_linear_tree(void **state)
{
    (void)state;
    char a[512], b[512], text[4096];
    sr_test_write_uv_sphere(sr_test_tmp_path(a, sizeof a, "gpu_wide_inst.obj"), 16, 8, 1, 0);
    sr_test_write_uv_sphere(sr_test_tmp_path(b, sizeof b, "gpu_wide_large.obj"), 200, 100, 1, 0);
    snprintf(text, sizeof text,
             "{\"camera\": {\"position\": [0, 2, 7], \"look_at\": [0, 1, 0]},"
             " \"image\": {\"width\": 160, \"height\": 96, \"spp\": 2, \"max_depth\": 4},"
             " \"sky\": {\"zenith\": [0.3, 0.4, 0.6], \"horizon\": [0.8, 0.8, 0.9]},"
             " \"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.7, 0.5, 0.3]},"
             "  \"gold\": {\"type\": \"metal\", \"albedo\": [1, 0.8, 0.4], \"roughness\": 0.2}},"
             " \"lights\": [{\"type\": \"point\", \"position\": [-3, 6, 5], \"intensity\": 200}],"
             " \"objects\": [{\"type\": \"quad\", \"corner\": [-6, 0, -6], \"edge_u\": [0, 0, 12], \"edge_v\": [12, 0, 0],"
             "  \"material\": \"m\"},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"gold\", \"translate\": [-2, 1, 0], \"rotate\": [20, 30, 0]},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"gold\", \"translate\": [0.2, 1.2, -1], \"scale\": [1.2, 0.6, 0.9]},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"gold\", \"translate\": [1.5, 3, -2], \"scale\": 0.4}]}",
             a, a, a);
    sr_scene scene;
    sr_test_parse("gpu_wide_instances.json", text, &scene);
    assert_int_equal(scene.instance_count, 3);
    gpu_wide_matches_cpu(&scene, "instanced spheres");
    sr_scene_free(&scene);
    snprintf(text, sizeof text,
             "{\"camera\": {\"position\": [0, 0.5, 3], \"look_at\": [0, 0, 0]},"
             " \"image\": {\"width\": 160, \"height\": 96, \"spp\": 1, \"max_depth\": 3}, \"background\": [0.3, 0.4, 0.5],"
             " \"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.7, 0.5, 0.3]}},"
             " \"lights\": [{\"type\": \"point\", \"position\": [-3, 6, 5], \"intensity\": 200}],"
             " \"objects\": [{\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"m\"}]}", b);
    sr_test_parse("gpu_wide_large.json", text, &scene);
    assert_true(scene.prim_count > 32768u);
    gpu_wide_matches_cpu(&scene, "a 40,000-triangle sphere (linear BVH)");
    sr_scene_free(&scene);
}

int main(int argc, char **argv)
{
    const int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_scenes),
        cmocka_unit_test(test_instances_and_linear_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
