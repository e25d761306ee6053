/* bvh_build_gpu.h: the extern "C" entry of the GPU's BVH build (bvh_build.cu), which runs the
 * steps of kernels/core/bvh_build.h: the CPU's tree (src/backend/cpu/bvh_cpu.c) bit for bit. */
#ifndef SR_BVH_BUILD_GPU_H
#define SR_BVH_BUILD_GPU_H

#include <cuda_runtime_api.h>
#include "../core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The build's stages, timed by CUDA events when asked (sr_cuda_bvh_build's stage_ms):
 * the work memory's allocation, the centroid bounds and Morton codes, CUB's sort, Karras's
 * internal nodes, the bottom-up pass (boxes, SAH collapse and the treelets in one kernel),
 * the wait for the depth (the fallback's test), the layout (depth-first nodes and prims).
 * With the fallback, the stages of the second tree replace the first's. */
enum {
    SR_LBVH_STAGE_ALLOC = 0, SR_LBVH_STAGE_MORTON, SR_LBVH_STAGE_SORT, SR_LBVH_STAGE_KARRAS,
    SR_LBVH_STAGE_BOTTOM_UP, SR_LBVH_STAGE_DEPTH, SR_LBVH_STAGE_LAYOUT, SR_LBVH_GPU_STAGES
};
#define SR_LBVH_STAGE_NAMES { "alloc", "morton", "sort", "karras", "bottom-up", "depth", "layout" }

/* Build over the n device prims (finite, bounded: the host checks) into device memory:
 * nodes (room for 2n - 1), out_prims and order (n each), with the treelets `treelets`
 * (SR_LBVH_TREELETS_*, kernels/core/bvh_build.h; the backend passes sr_bvh_treelets(), as
 * the CPU's build does). node_count and depth (host) get the tree's size; unless stage_ms is
 * NULL, stage_ms[SR_LBVH_GPU_STAGES] each stage's device time in milliseconds (measurement:
 * the events cost a little). Its work memory comes from the stream-ordered allocator and
 * goes back before it returns; it waits for the stream. */
cudaError_t sr_cuda_bvh_build(const sr_prim *prims, uint32_t n, int treelets, sr_bvh_node *nodes, sr_prim *out_prims,
                              uint32_t *order, uint32_t *node_count, uint32_t *depth, float *stage_ms,
                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
