/* bvh_layout.h: the builder's step 6 (kernels/core/bvh_build.h): the collapsed tree written
 * in the depth-first layout that intersect.h walks, and the prims in leaf order. Written once
 * for both backends, as the rest of the builder. */
#ifndef SR_BVH_LAYOUT_H
#define SR_BVH_LAYOUT_H

#include "bvh_build.h"

SR_HD uint32_t sr_lbvh_first(const sr_lbvh *b, uint32_t node)
{
    return node >= b->n - 1u ? node - (b->n - 1u) : b->first[node];
}

/* Is the node in the collapsed tree, i.e. is no ancestor a leaf? Only ancestors of at most
 * SR_LBVH_MAX_LEAF prims can be leaves: a few steps up. */
SR_HD uint32_t sr_lbvh_kept(const sr_lbvh *b, uint32_t node)
{
    for (uint32_t p = b->parent[node]; p != SR_LBVH_NONE && b->count[p] <= SR_LBVH_MAX_LEAF; p = b->parent[p])
        if (b->leaf[p]) return 0;
    return 1;
}

/* Step 6a. The collapsed tree in depth-first order lists, for each sorted position f, the
 * kept nodes whose range starts at f together: a chain of left children from a node that
 * is the root or a right child, down to a leaf. The chain's top records its length at f. */
SR_HD void sr_lbvh_chain(const sr_lbvh *b, uint32_t node)
{
    const uint32_t p = b->parent[node];
    if (p != SR_LBVH_NONE && b->left[p] == node) return;
    if (!sr_lbvh_kept(b, node)) return;
    const uint32_t rank = node >= b->n - 1u ? 0u : b->rank[node];
    b->chain[sr_lbvh_first(b, node)] = rank + 1u;
}

/* Step 6b: a kept node's place in the depth-first order is the start of its chain plus its
 * distance from the chain's top; its right child tops a chain, which starts its place. */
SR_HD void sr_lbvh_emit(const sr_lbvh *b, uint32_t node)
{
    const uint32_t n = b->n;
    if (!sr_lbvh_kept(b, node)) return;
    const uint32_t f = sr_lbvh_first(b, node);
    const uint32_t internal = node < n - 1u;
    const uint32_t rank = internal ? b->rank[node] : 0u;
    const uint32_t at = b->base[f] + b->chain[f] - 1u - rank;
    const float *x = &b->box[6u * (size_t)node];
    sr_bvh_node o;
    o.lo = sr_v3(x[0], x[1], x[2]);
    o.hi = sr_v3(x[3], x[4], x[5]);
    if (!internal || b->leaf[node]) {
        o.index = f;
        o.count = internal ? b->count[node] : 1u;
    } else {
        o.index = b->base[sr_lbvh_first(b, b->right[node])];
        o.count = 0;
    }
    b->out[at] = o;
}

/* The layout of a tree whose leaves have moved (sr_lbvh_reorders), in place of steps
 * 6a and 6b: a kept node's place in the depth-first order and its prims' offset, from a walk
 * to the root (at most the tree's depth in steps, which the stack bounds): each ancestor
 * reached from its right child puts its left subtree's nodes and prims before. */
SR_HD uint32_t sr_lbvh_nodes_of(const sr_lbvh *b, uint32_t x)
{
    return x >= b->n - 1u ? 1u : b->size[x];
}

SR_HD uint32_t sr_lbvh_prims_of(const sr_lbvh *b, uint32_t x)
{
    return x >= b->n - 1u ? 1u : b->count[x];
}

SR_HD uint32_t sr_lbvh_place(const sr_lbvh *b, uint32_t node, uint32_t *prim_at)
{
    uint32_t at = 0, prim = 0;
    for (uint32_t x = node, p = b->parent[node]; p != SR_LBVH_NONE; x = p, p = b->parent[p]) {
        const uint32_t l = b->left[p];
        at += 1u;
        if (x != l) { at += sr_lbvh_nodes_of(b, l); prim += sr_lbvh_prims_of(b, l); }
    }
    *prim_at = prim;
    return at;
}

/* Step 6, reordered trees: node `node` written (if kept). */
SR_HD void sr_lbvh_emit_placed(const sr_lbvh *b, uint32_t node)
{
    const uint32_t n = b->n;
    if (!sr_lbvh_kept(b, node)) return;
    uint32_t prim = 0;
    const uint32_t at = sr_lbvh_place(b, node, &prim);
    const uint32_t internal = node < n - 1u;
    const float *x = &b->box[6u * (size_t)node];
    sr_bvh_node o;
    o.lo = sr_v3(x[0], x[1], x[2]);
    o.hi = sr_v3(x[3], x[4], x[5]);
    if (!internal || b->leaf[node]) {
        o.index = prim;
        o.count = internal ? b->count[node] : 1u;
    } else {
        o.index = at + 1u + sr_lbvh_nodes_of(b, b->left[node]);
        o.count = 0;
    }
    b->out[at] = o;
}

/* The prim at sorted position i to its place in a reordered tree's leaves. */
SR_HD void sr_lbvh_gather_placed(const sr_lbvh *b, uint32_t i)
{
    uint32_t prim = 0;
    (void)sr_lbvh_place(b, b->n - 1u + i, &prim);
    const uint32_t id = b->ids[i];
    b->out_prims[prim] = b->prims[id];
    b->order[prim] = id;
}

/* The prims in leaf order (any step after the sort). */
SR_HD void sr_lbvh_gather(const sr_lbvh *b, uint32_t i)
{
    const uint32_t id = b->ids[i];
    b->out_prims[i] = b->prims[id];
    b->order[i] = id;
}

#endif
