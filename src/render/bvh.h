/* bvh.h: a bounding volume hierarchy over bounded primitives: binned SAH build on the host,
 * flattened depth-first for upload; traversal lives in kernels/core/intersect.h. */
#ifndef SR_BVH_H
#define SR_BVH_H

#include "../base/status.h"
#include "../../kernels/core/types.h"

typedef struct sr_bvh {
    sr_bvh_node *nodes; uint32_t node_count;
    sr_prim *prims; uint32_t prim_count;   /* the input primitives in leaf order          */
    uint32_t *order;                       /* prims[i] is input prim order[i]              */
    uint32_t depth;                        /* deepest leaf (root = 1)                      */
} sr_bvh;

/* Build over prims[0..n). n may be 0 (an empty tree: node_count 0). Fails with
 * SR_ERR_RUNTIME on out of memory, SR_ERR_INPUT if a primitive is not finite. */
sr_status sr_bvh_build(const sr_prim *prims, uint32_t n, sr_bvh *out, sr_error *err);
void sr_bvh_free(sr_bvh *bvh);
/* How many times sr_bvh_build has run in this process: tests check that a resize builds none. */
uint32_t sr_bvh_builds(void);

#endif
