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
#include "../../src/backend/cpu/bvh_cpu.h"
#ifdef SR_HAVE_CUDA
#include "../../kernels/frames/bvh_build_gpu.h"
#endif

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

/* Every treelet variant (none, in order, reordering in one pass or two) on both builders directly: the same
 * bytes, the reordering tree's layout (sr_lbvh_place) included. */
static void same_variant(const sr_prim *in, uint32_t n, int treelets, const char *what)
{
    sr_error err;
    memset(&err, 0, sizeof err);
    sr_bvh cpu;
    if (sr_cpu_bvh_build_with(in, n, 0, treelets, &cpu, &err)) fail_msg("CPU build: %s", err.msg);
    sr_prim *dp = NULL, *dout = NULL;
    sr_bvh_node *dn = NULL;
    uint32_t *dord = NULL, count = 0, depth = 0;
    assert_int_equal(cudaMalloc((void **)&dp, sizeof(sr_prim) * n), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&dout, sizeof(sr_prim) * n), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&dn, sizeof(sr_bvh_node) * (2u * (size_t)n - 1u)), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&dord, sizeof(uint32_t) * n), cudaSuccess);
    assert_int_equal(cudaMemcpy(dp, in, sizeof(sr_prim) * n, cudaMemcpyHostToDevice), cudaSuccess);
    float stage[SR_LBVH_GPU_STAGES];
    assert_int_equal(sr_cuda_bvh_build(dp, n, treelets, dn, dout, dord, &count, &depth, stage, 0), cudaSuccess);
    printf("  %s, treelets %d: %u nodes, depth %u\n", what, treelets, count, depth);
    assert_int_equal(count, cpu.node_count);
    assert_int_equal(depth, cpu.depth);
    sr_bvh_node *nodes = malloc(sizeof(sr_bvh_node) * count);
    sr_prim *prims = malloc(sizeof(sr_prim) * n);
    uint32_t *order = malloc(sizeof(uint32_t) * n);
    assert_non_null(nodes); assert_non_null(prims); assert_non_null(order);
    assert_int_equal(cudaMemcpy(nodes, dn, sizeof(sr_bvh_node) * count, cudaMemcpyDeviceToHost), cudaSuccess);
    assert_int_equal(cudaMemcpy(prims, dout, sizeof(sr_prim) * n, cudaMemcpyDeviceToHost), cudaSuccess);
    assert_int_equal(cudaMemcpy(order, dord, sizeof(uint32_t) * n, cudaMemcpyDeviceToHost), cudaSuccess);
    assert_memory_equal(nodes, cpu.nodes, sizeof(sr_bvh_node) * count);
    assert_memory_equal(prims, cpu.prims, sizeof(sr_prim) * n);
    assert_memory_equal(order, cpu.order, sizeof(uint32_t) * n);
    free(nodes); free(prims); free(order);
    cudaFree(dp); cudaFree(dout); cudaFree(dn); cudaFree(dord);
    sr_bvh_free(&cpu);
}

static void test_variants_identical(void **state)
{
    (void)state;
    const uint32_t sizes[] = { 2, 3, 9, 100, 5000, 70000 };
    const int variants[] = { SR_LBVH_TREELETS_NONE, SR_LBVH_TREELETS_INORDER, SR_LBVH_TREELETS_REORDER,
                             SR_LBVH_TREELETS_REORDER2, SR_LBVH_TREELETS_REORDER_G8,
                             SR_LBVH_TREELETS_REORDER_G24_48, SR_LBVH_TREELETS_REORDER_G32_64,
                             SR_LBVH_TREELETS_RESPLIT_G32_64, SR_LBVH_TREELETS_REORDER_RESPLIT_G32_64 };
    for (int k = 0; k < SR_MESH_KINDS; k++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
                uint32_t n = 0;
                sr_prim *in = sr_mesh_make(k, sizes[s], &n);
                assert_non_null(in);
                char what[96];
                snprintf(what, sizeof what, "%s (%u)", sr_mesh_names[k], sizes[s]);
                same_variant(in, n, variants[v], what);
                free(in);
            }
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
        cmocka_unit_test(test_variants_identical),
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
