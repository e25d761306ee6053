/* bvh_wide.h: the compressed 8-wide tree (kernels/core/types.h, sr_wide_node), collapsed on
 * the host from a binary tree whichever builder made it (the host's SAH or the linear BVH read
 * back), and walked by kernels/core/intersect_wide.h. Its leaves list the binary tree's prim
 * indices, so prims, attributes, emitters and hit ids stay as they are. */
#ifndef SR_BVH_WIDE_H
#define SR_BVH_WIDE_H

#include "../base/status.h"
#include "../../kernels/core/types.h"

/* Which tree a scene is walked with (sr_render_opts.bvh_tree, the scene's "bvh"). */
typedef enum sr_bvh_tree { SR_BVH_TREE_BINARY = 0, SR_BVH_TREE_WIDE, SR_BVH_TREE_AUTO } sr_bvh_tree;

/* "binary", "wide", "auto"; sr_bvh_tree_parse: -1 for any other name. */
const char *sr_bvh_tree_name(int tree);
int sr_bvh_tree_parse(const char *name);

typedef struct sr_wide {
    sr_wide_node *nodes; uint32_t node_count;
    uint32_t *prims; uint32_t prim_count;   /* the leaves' prim indices, in leaf order      */
    uint32_t depth;                         /* the deepest tree's levels (root = 1)         */
} sr_wide;

/* Collapse the binary trees rooted at roots[0..root_count) (nodes and prims: the arrays the
 * stages read, the instanced meshes' trees after the top level's) into one wide node array:
 * wide_roots[k] gets root k's wide root (roots[0]'s is 0). Greedy: a node's children are
 * the binary node's two, and the one with the largest surface area that is not yet a leaf of
 * at most SR_WIDE_LEAF_MAX prims is replaced by its own two until there are eight. An
 * instance's proxy is a leaf alone. Leaves the tree empty (node_count 0: walk the binary
 * one) when it could overflow the walk's stack (SR_WIDE_STACK). SR_ERR_RUNTIME when out of
 * memory. */
sr_status sr_wide_build(const sr_bvh_node *nodes, const sr_prim *prims, const uint32_t *roots, uint32_t root_count,
                        uint32_t *wide_roots, sr_wide *out, sr_error *err);
/* Bytes of the tree's nodes and prim list. */
uint64_t sr_wide_bytes(const sr_wide *w);
void sr_wide_free(sr_wide *w);

#endif
