/* bvh_build_gpu.h: the extern "C" entry of the GPU's BVH build (bvh_build.cu), which runs the
 * steps of kernels/core/bvh_build.h: the CPU's tree (src/backend/cpu/bvh_cpu.c) bit for bit. */
#ifndef SR_BVH_BUILD_GPU_H
#define SR_BVH_BUILD_GPU_H

#include <cuda_runtime_api.h>
#include "../core/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Build over the n device prims (finite, bounded: the host checks) into device memory:
 * nodes (room for 2n - 1), out_prims and order (n each). node_count and depth (host) get
 * the tree's size. Its work memory comes from the stream-ordered allocator and goes back
 * before it returns; it waits for the stream. */
cudaError_t sr_cuda_bvh_build(const sr_prim *prims, uint32_t n, sr_bvh_node *nodes, sr_prim *out_prims,
                              uint32_t *order, uint32_t *node_count, uint32_t *depth, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
