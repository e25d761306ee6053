/* bvh.h: the bounding volume hierarchy over a scene's bounded primitives: built by the
 * backend (kernels/core/bvh_build.h, the same tree on the CPU and the GPU), traversed by
 * kernels/core/intersect.h. */
#ifndef SR_BVH_H
#define SR_BVH_H

#include "../base/status.h"
#include "../backend/backend.h"   /* sr_bvh */

/* SR_ERR_INPUT naming the first primitive that cannot go in the BVH: a plane or an unknown
 * kind, a coordinate that is not finite, a box that overflows; or more than 2^31 - 1. */
sr_status sr_bvh_check_prims(const sr_prim *prims, uint32_t n, sr_error *err);
/* Build over prims[0..n) on the host (the CPU backend's builder): nodes, prims and order in
 * host memory. n may be 0 (an empty tree: node_count 0). Fails with SR_ERR_RUNTIME on out
 * of memory, SR_ERR_INPUT as sr_bvh_check_prims. */
sr_status sr_bvh_build(const sr_prim *prims, uint32_t n, sr_bvh *out, sr_error *err);
/* The same on backend be (backend.h, build_bvh): the tree stays there for the upload; nodes
 * and prims come back to the host only with to_host (on the CPU they are always there). */
sr_status sr_bvh_build_on(sr_backend *be, const sr_prim *prims, uint32_t n, int to_host, sr_bvh *out, sr_error *err);
void sr_bvh_free(sr_bvh *bvh);
/* How many times a BVH has been built in this process: tests check that a resize builds none. */
uint32_t sr_bvh_builds(void);
/* The tree's SAH cost (host nodes): the sum over nodes of their area times 0.25 (interior)
 * or their prim count (leaves), over the root's area. A proxy for the traversal cost. */
double sr_bvh_sah_cost(const sr_bvh *b);
/* The host's binned SAH build: a better tree than the linear BVH's (SAH cost 10 to 45 %
 * lower on the shipped scenes), in host memory, slower to build (a second at a million
 * prims): the renderer uses it for small scenes (render.c, SR_BVH_HOST_SAH_MAX). */
sr_status sr_bvh_build_sah(const sr_prim *prims, uint32_t n, sr_bvh *out, sr_error *err);

#endif
