/* bvh_cpu.h: the BVH build on the CPU (kernels/core/bvh_build.h over OpenMP): the tree the
 * GPU builds, bit for bit. */
#ifndef SR_BVH_CPU_H
#define SR_BVH_CPU_H

#include "../backend.h"
#include "../../../kernels/core/bvh_build.h"

/* Build over prims[0..n) (finite, bounded: the caller checks) into host memory: nodes,
 * prims in leaf order, order, depth. n may be 0 (an empty tree). SR_ERR_RUNTIME when out
 * of memory. */
sr_status sr_cpu_bvh_build(const sr_prim *prims, uint32_t n, sr_bvh *out, sr_error *err);
/* The same with `bits` per axis of the Morton codes (1..21) and `treelets` one of
 * SR_LBVH_TREELETS_NONE, _INORDER, _REORDER, _REORDER2, _REORDER_G8, _REORDER_G24_48 or
 * _REORDER_G32_64 (kernels/core/bvh_build.h); with bits 1..21 no fallback, whatever the depth
 * (measurement and tests). bits 0 and sr_bvh_treelets() is sr_cpu_bvh_build. */
sr_status sr_cpu_bvh_build_with(const sr_prim *prims, uint32_t n, uint32_t bits, int treelets, sr_bvh *out,
                                sr_error *err);

#endif
