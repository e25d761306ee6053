/* bvh_resplit.h: the builder's collapse-and-re-split step (kernels/core/bvh_build.h, after
 * step 5's first pass): the small subtrees rebuilt by a full SAH sweep. Written once for
 * both backends, as the rest of the builder. */
#ifndef SR_BVH_RESPLIT_H
#define SR_BVH_RESPLIT_H

#include "bvh_build.h"

/* Collapsing and re-splitting (after the first pass): the subtree under internal node p, when
 * it holds at most `most` prims and its parent more, is rebuilt top down as the host SAH
 * builder would, each node split where the sweep over its prims' centroids along the best
 * axis gives the least area x count, reusing the subtree's internal nodes. A Morton tree's
 * lowest levels are where its box tests exceed the SAH tree's most (bench_bvh's counts), and
 * a treelet of a few leaves reaches only part of a subtree of tens of prims. Ties: the more
 * even split, then the lower axis and the earlier split; a centroid tie, the lower sorted
 * position. Where the new
 * subtree costs more than the old, the old stays: the cost never rises. The ancestors'
 * costs are left for the later passes to finish. */
SR_HD void sr_lbvh_resplit_sort(const float *cen, const uint32_t *leaf, unsigned char *set, uint32_t m, int axis)
{
    for (uint32_t i = 1; i < m; i++) {
        const unsigned char x = set[i];
        const float kx = cen[3u * x + axis];
        uint32_t j = i;
        while (j > 0) {
            const float kj = cen[3u * set[j - 1u] + axis];
            if (kj < kx || (kj == kx && leaf[set[j - 1u]] < leaf[x])) break;
            set[j] = set[j - 1u];
            j--;
        }
        set[j] = x;
    }
}

/* Is internal node p the root of a subtree that sr_lbvh_resplit rebuilds? */
SR_HD uint32_t sr_lbvh_resplit_root(const sr_lbvh *b, uint32_t p, uint32_t most)
{
    const uint32_t m = b->count[p], up = b->parent[p];
    return m <= most && m <= SR_LBVH_RESPLIT && m >= 3u && (up == SR_LBVH_NONE || b->count[up] > most);
}

SR_HD void sr_lbvh_resplit(const sr_lbvh *b, uint32_t p, uint32_t most)
{
    const uint32_t n = b->n;
    if (!sr_lbvh_resplit_root(b, p, most)) return;
    /* the subtree's prims (leaf nodes) and their centroids; its internal nodes */
    uint32_t leaf[SR_LBVH_RESPLIT], inner[SR_LBVH_RESPLIT], walk[SR_LBVH_RESPLIT];
    float cen[3u * SR_LBVH_RESPLIT];
    uint32_t nl = 0, ni = 0, nw = 0;
    walk[nw++] = p;
    while (nw) {
        const uint32_t x = walk[--nw];
        if (x < n - 1u) {
            inner[ni++] = x;
            walk[nw++] = b->right[x];
            walk[nw++] = b->left[x];
            continue;
        }
        const sr_vec3 c = sr_lbvh_centroid(&b->prims[b->ids[x - (n - 1u)]]);
        cen[3u * nl] = c.x; cen[3u * nl + 1u] = c.y; cen[3u * nl + 2u] = c.z;
        leaf[nl] = x;
        nl++;
    }
    /* the subtree as it is, kept in case the rebuild costs more */
    uint32_t old_left[SR_LBVH_RESPLIT], old_right[SR_LBVH_RESPLIT];
    const float old_cost = b->cost[p];
    for (uint32_t k = 0; k < ni; k++) { old_left[k] = b->left[inner[k]]; old_right[k] = b->right[inner[k]]; }
    /* the prims sorted along each axis once; a split then partitions the other axes' orders
     * stably, which keeps them sorted */
    unsigned char order[3][SR_LBVH_RESPLIT], tmp[SR_LBVH_RESPLIT], left_side[SR_LBVH_RESPLIT];
    for (int axis = 0; axis < 3; axis++) {
        for (uint32_t i = 0; i < nl; i++) order[axis][i] = (unsigned char)i;
        sr_lbvh_resplit_sort(cen, leaf, order[axis], nl, axis);
    }
    /* work items: a node, its first place in the orders and its prim count; made: nodes as
     * built */
    uint32_t item_node[SR_LBVH_RESPLIT], item_first[SR_LBVH_RESPLIT], item_count[SR_LBVH_RESPLIT];
    uint32_t made[SR_LBVH_RESPLIT];
    float right_area[SR_LBVH_RESPLIT];
    uint32_t nitems = 1, nm = 0, used = 1;
    item_node[0] = inner[0]; item_first[0] = 0; item_count[0] = nl;
    while (nitems) {
        nitems--;
        const uint32_t node = item_node[nitems], f = item_first[nitems], c = item_count[nitems];
        int best_axis = 0;
        uint32_t best_at = 1;
        float best = 0.0f;
        for (int axis = 0; axis < 3; axis++) {
            const unsigned char *part = &order[axis][f];
            float x[6] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
            for (uint32_t i = c; i-- > 1u;) {
                const float *y = &b->box[6u * (size_t)leaf[part[i]]];
                for (int k = 0; k < 3; k++) {
                    x[k] = i == c - 1u ? y[k] : sr_minf(x[k], y[k]);
                    x[k + 3] = i == c - 1u ? y[k + 3] : sr_maxf(x[k + 3], y[k + 3]);
                }
                right_area[i] = sr_lbvh_area(x);
            }
            for (uint32_t i = 0; i + 1u < c; i++) {
                const float *y = &b->box[6u * (size_t)leaf[part[i]]];
                for (int k = 0; k < 3; k++) {
                    x[k] = i == 0 ? y[k] : sr_minf(x[k], y[k]);
                    x[k + 3] = i == 0 ? y[k + 3] : sr_maxf(x[k + 3], y[k + 3]);
                }
                const float v = sr_lbvh_area(x) * (float)(i + 1u) + right_area[i + 1u] * (float)(c - 1u - i);
                const uint32_t off = 2u * (i + 1u) > c ? 2u * (i + 1u) - c : c - 2u * (i + 1u);
                const uint32_t best_off = 2u * best_at > c ? 2u * best_at - c : c - 2u * best_at;
                if ((axis == 0 && i == 0) || v < best || (v == best && off < best_off)) {
                    best = v; best_axis = axis; best_at = i + 1u;
                }
            }
        }
        for (uint32_t i = 0; i < c; i++) left_side[order[best_axis][f + i]] = i < best_at;
        for (int axis = 0; axis < 3; axis++) {
            if (axis == best_axis) continue;
            unsigned char *part = &order[axis][f];
            uint32_t nlft = 0, nrt = 0;
            for (uint32_t i = 0; i < c; i++) {
                if (left_side[part[i]]) part[nlft++] = part[i];
                else tmp[nrt++] = part[i];
            }
            for (uint32_t i = 0; i < nrt; i++) part[nlft + i] = tmp[i];
        }
        const uint32_t half_first[2] = { f, f + best_at }, half_count[2] = { best_at, c - best_at };
        uint32_t child[2];
        for (int side = 0; side < 2; side++) {
            if (half_count[side] == 1u) {
                child[side] = leaf[order[0][half_first[side]]];
            } else {
                child[side] = inner[used++];
                item_node[nitems] = child[side]; item_first[nitems] = half_first[side];
                item_count[nitems] = half_count[side]; nitems++;
            }
            b->parent[child[side]] = node;
        }
        b->left[node] = child[0];
        b->right[node] = child[1];
        b->count[node] = c;
        made[nm++] = node;
    }
    for (uint32_t k = nm; k-- > 0;) sr_lbvh_finish(b, made[k]);
    if (!(b->cost[p] > old_cost)) return;
    /* costlier (the sweep's greedy splits against the treelets' exact ones): the old tree
     * back, finished children first (inner is in preorder) */
    for (uint32_t k = 0; k < ni; k++) {
        const uint32_t x = inner[k];
        b->left[x] = old_left[k];
        b->right[x] = old_right[k];
        b->parent[old_left[k]] = x;
        b->parent[old_right[k]] = x;
    }
    for (uint32_t k = ni; k-- > 0;) {
        const uint32_t x = inner[k], l = old_left[k], r = old_right[k];
        b->count[x] = sr_lbvh_prims_below(b, l) + sr_lbvh_prims_below(b, r);
        sr_lbvh_finish(b, x);
    }
}

#endif
