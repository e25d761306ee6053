/* The BVH built on the GPU is the CPU's byte for byte: nodes, prims in leaf order, order and
 * depth, on every test mesh (tests/unit/bvhmeshes.h: a displaced sphere, degenerate
 * triangles, duplicates, all in one point, one Morton code, the code spine that needs the
 * 30-bit fallback, a mix of kinds) at several sizes, the device tree downloaded. (Images
 * through the GPU-built tree: test_gpu_match renders every scene on both backends.) Exits 77
 * (skipped) without a CUDA device. */
#include "../unit/testutil.h"
#include "../unit/bvhmeshes.h"
#include "../../src/backend/backend.h"
#include "../../src/render/bvh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SR_HAVE_CUDA

static void same_tree(const sr_prim *in, uint32_t n, const char *what)
{
    sr_error err;
    sr_backend be;
    memset(&err, 0, sizeof err);
    if (sr_backend_create(SR_BACKEND_CUDA, 0, &be, NULL, 0, &err)) fail_msg("CUDA backend: %s", err.msg);
    sr_bvh cpu, gpu;
    if (sr_bvh_build(in, n, &cpu, &err)) fail_msg("CPU build: %s", err.msg);
    if (sr_bvh_build_on(&be, in, n, 1, &gpu, &err)) fail_msg("GPU build of %s: %s", what, err.msg);
    printf("  %s: %u prims, %u nodes, depth %u\n", what, n, gpu.node_count, gpu.depth);
    assert_int_equal(gpu.prim_count, cpu.prim_count);
    assert_int_equal(gpu.node_count, cpu.node_count);
    assert_int_equal(gpu.depth, cpu.depth);
    if (n > 0) {
        assert_memory_equal(gpu.order, cpu.order, sizeof(uint32_t) * n);
        assert_memory_equal(gpu.prims, cpu.prims, sizeof(sr_prim) * n);
        assert_memory_equal(gpu.nodes, cpu.nodes, sizeof(sr_bvh_node) * cpu.node_count);
    }
    sr_bvh_free(&cpu);
    sr_bvh_free(&gpu);
    sr_backend_destroy(&be);
}

static void test_trees_identical(void **state)
{
    (void)state;
    const uint32_t sizes[] = { 1, 2, 3, 9, 100, 5000, 70000, 300000 };
    for (int k = 0; k < SR_MESH_KINDS; k++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            if (sizes[s] > 70000 && k != SR_MESH_SPHERE && k != SR_MESH_ONE_CODE) continue;
            uint32_t n = 0;
            sr_prim *in = sr_mesh_make(k, sizes[s], &n);
            assert_non_null(in);
            char what[96];
            snprintf(what, sizeof what, "%s (%u)", sr_mesh_names[k], sizes[s]);
            same_tree(in, n, what);
            free(in);
        }
    same_tree(NULL, 0, "no prims");
}

/* A mesh above the renderer's host-SAH size (render.c) is built on each backend: the CPU's
 * and the GPU's images must still agree bit for bit. A UV sphere of 2 x 256 x 128 triangles. */
static void test_render_large_mesh(void **state)
{
    (void)state;
    char obj[512], json[1024];
    sr_test_tmp_path(obj, sizeof obj, "gpu_bvh_sphere.obj");
    sr_test_write_uv_sphere(obj, 256, 128, 1, 0);
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0.5,3],\"look_at\":[0,0,0],\"fov\":45},"
             " \"image\":{\"width\":96,\"height\":64,\"spp\":2,\"max_depth\":4},"
             " \"materials\":{\"m\":{\"type\":\"metal\",\"albedo\":[0.8,0.7,0.5],\"roughness\":0.3},"
             " \"f\":{\"type\":\"diffuse\",\"albedo\":[0.5,0.5,0.5]}},"
             " \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"m\",\"normals\":\"smooth\"},"
             " {\"type\":\"plane\",\"point\":[0,-1,0],\"normal\":[0,1,0],\"material\":\"f\"}],"
             " \"lights\":[{\"type\":\"point\",\"position\":[2,4,3],\"color\":[1,1,1],\"intensity\":40}]}", obj);
    sr_scene scene;
    sr_test_parse("gpu_bvh.json", json, &scene);
    assert_true(scene.prim_count > 32768u);
    assert_int_equal(sr_test_gpu_matches_cpu(&scene, "large mesh, BVH built on each backend"), 1);
    sr_scene_free(&scene);
}

int main(int argc, char **argv)
{
    const int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trees_identical),
        cmocka_unit_test(test_render_large_mesh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
    printf("skipped: this stencilray was built without CUDA\n");
    return 77;
}

#endif
