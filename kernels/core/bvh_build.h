/* bvh_build.h: the BVH builder's steps, written once for both backends (gcc as C11 with
 * OpenMP loops over the "threads", nvcc as CUDA kernels): a linear BVH over Morton codes
 * (Karras, "Maximizing Parallelism in the Construction of BVHs, Octrees, and k-d Trees",
 * HPG 2012), boxes and SAH costs bottom-up, small treelets rebuilt to the cheapest tree
 * over their leaves, subtrees collapsed into leaves where the SAH says a leaf is cheaper,
 * and the tree written in the depth-first layout that
 * intersect.h walks. Every step is exact or a fixed sequence of IEEE operations, so the
 * CPU and the GPU build the same tree bit for bit; the order in which threads arrive
 * changes nothing (min and max are exact).
 *
 * The driver (src/backend/cpu/bvh_cpu.c, kernels/frames/bvh_build.cu) runs, over n >= 2
 * prims:
 *   1. sr_lbvh_centroid for every prim, reduced to the centroid bounds by min/max of
 *      sr_lbvh_ord (an exact order on floats);
 *   2. sr_lbvh_code for every prim: `bits` per axis (SR_LBVH_BITS_FINE, or _COARSE);
 *   3. a stable sort of (code, prim index) by code, ascending: ties stay in index order;
 *   4. sr_lbvh_internal for i in [0, n-1): children, parents and ranges;
 *   5. sr_lbvh_bottom_up for every leaf (visits zeroed first): boxes, costs, collapse,
 *      and each node's treelet restructured: in order (sr_lbvh_treelet) or reordering
 *      (sr_lbvh_treelet_any; with SR_LBVH_TREELETS_REORDER2 the pass runs twice), as
 *      `treelets` says; then, where sr_lbvh_resplits says so, sr_lbvh_resplit
 *      (bvh_resplit.h) for every internal node; each later pass k of sr_lbvh_passes
 *      with sr_lbvh_gamma(k) > 0 instead sr_lbvh_refine_init, then sr_lbvh_refine, for
 *      every internal node;
 *   6. (bvh_layout.h) sr_lbvh_chain for every node (chain zeroed first), an exclusive sum
 *      of chain into base, then sr_lbvh_emit for every node: the flattened tree, base[n-1] + chain[n-1]
 *      nodes, the prims in key order, depth = height[0]; after reordering treelets
 *      instead sr_lbvh_emit_placed for every node and sr_lbvh_gather_placed for every
 *      sorted position: size[0] nodes.
 * If the depth exceeds SR_BVH_STACK (possible with the fine codes or the treelets), the
 * driver builds again with SR_LBVH_BITS_COARSE and no treelets: 30-bit codes and 31-bit
 * indices give at most 61 prefix lengths, so at most 62 levels. */
#ifndef SR_BVH_BUILD_H
#define SR_BVH_BUILD_H

#include "intersect.h"
#include <stddef.h>

#define SR_LBVH_BITS_FINE 21u     /* 63-bit codes                                          */
#define SR_LBVH_BITS_COARSE 10u   /* 30-bit codes: the depth is bounded by construction    */
#ifndef SR_LBVH_CUBIC
#define SR_LBVH_CUBIC 0   /* 1: cubic cells (measured: no better; docs/design.md) */
#endif
#ifndef SR_LBVH_TREELET
#define SR_LBVH_TREELET 8u        /* leaves of a restructured treelet (3 .. 16)            */
#endif
/* Treelet restructuring (the bottom-up pass's `treelets`): none, trees over the leaves in
 * their Morton order (every node a contiguous range), or any tree over the leaves
 * (Karras and Aila's subset DP: leaves move, so the layout takes the place pass), in one
 * bottom-up pass or two. */
#define SR_LBVH_TREELETS_NONE 0
#define SR_LBVH_TREELETS_INORDER 1
#define SR_LBVH_TREELETS_REORDER 2
#define SR_LBVH_TREELETS_REORDER2 3
/* Reordering, then later passes only at the nodes of at least 8 prims; 24, then 48; or 32,
 * then 64 (after Karras and Aila's schedule: see sr_lbvh_refine). */
#define SR_LBVH_TREELETS_REORDER_G8 4
#define SR_LBVH_TREELETS_REORDER_G24_48 5
#define SR_LBVH_TREELETS_REORDER_G32_64 6
/* As REORDER_G32_64, with the subtrees of at most SR_LBVH_RESPLIT prims rebuilt by a full
 * SAH sweep after the first pass (sr_lbvh_resplit), whose treelets then skip those subtrees. */
#define SR_LBVH_TREELETS_RESPLIT_G32_64 7
/* As RESPLIT_G32_64, with the first pass's treelets at every node, the re-split subtrees'
 * too (the old subtree stays where it costs less than the sweep's). */
#define SR_LBVH_TREELETS_REORDER_RESPLIT_G32_64 8
#ifndef SR_LBVH_RESPLIT
#define SR_LBVH_RESPLIT 64u    /* at most 256: the rebuild's indices are bytes */
#endif
#ifndef SR_LBVH_TREELETS_DEFAULT
#define SR_LBVH_TREELETS_DEFAULT SR_LBVH_TREELETS_RESPLIT_G32_64   /* both backends' builds */
#endif
/* Leaves of a reordering treelet (3 .. 8): 5 costs about what the in-order treelet of 8
 * does and gives most of 7's gain (docs/design.md has the figures). */
#ifndef SR_LBVH_TREELET_ANY
#define SR_LBVH_TREELET_ANY 5u
#endif
/* Leaves of the later passes' treelets (SR_LBVH_TREELET_ANY .. 8): they visit the large
 * subtrees only, few nodes, so a wider DP costs little time there. */
#ifndef SR_LBVH_TREELET_LATER
#define SR_LBVH_TREELET_LATER 5u
#endif
#define SR_LBVH_TREELET_MAX (SR_LBVH_TREELET_LATER > SR_LBVH_TREELET_ANY ? SR_LBVH_TREELET_LATER : SR_LBVH_TREELET_ANY)
#define SR_LBVH_MAX_LEAF 8u       /* a collapsed leaf holds at most this many prims        */
/* The cost of a node visit against a primitive test, as the SAH weighs them. */
#define SR_LBVH_COST_TRAVERSE 0.25f
#define SR_LBVH_COST_INTERSECT 1.0f
#define SR_LBVH_NONE 0xffffffffu

/* Node numbering: internal nodes 0 .. n-2 (0 is the root), leaf of sorted position i is
 * n - 1 + i. Arrays marked [2n-1] are indexed by node, [n-1] by internal node, [n] by
 * sorted position. */
typedef struct sr_lbvh {
    uint32_t n;
    const sr_prim *prims;    /* the input, n prims                                        */
    uint64_t *keys;          /* [n] the sorted codes                                       */
    uint32_t *ids;           /* [n] the prim at each sorted position                       */
    uint32_t *left, *right;  /* [n-1] children                                            */
    uint32_t *parent;        /* [2n-1] SR_LBVH_NONE for the root                          */
    uint32_t *first, *count; /* [n-1] the range of sorted positions under an internal node */
    float *box;              /* [2n-1][6] lo xyz, hi xyz                                  */
    float *cost;             /* [2n-1] SAH cost of the subtree as collapsed               */
    uint32_t *rank;          /* [n-1] 0 if collapsed to a leaf, else 1 + left child's     */
    uint32_t *height;        /* [n-1] levels of the subtree as collapsed (a leaf: 1)      */
    uint32_t *leaf;          /* [n-1] 1 where the subtree is collapsed to one leaf       */
    uint32_t *visits;        /* [n-1] bottom-up arrivals (zeroed before step 5)           */
    uint32_t *size;          /* [n-1] nodes of the subtree as collapsed (a leaf: 1)       */
    uint32_t *chain;         /* [n] see sr_lbvh_chain (zeroed before step 6)              */
    uint32_t *base;          /* [n] exclusive sums of chain                               */
    sr_bvh_node *out;        /* [base[n-1] + chain[n-1]] the flattened tree               */
    sr_prim *out_prims;      /* [n] prims in leaf order                                   */
    uint32_t *order;         /* [n] out_prims[i] is prims[order[i]]                        */
} sr_lbvh;

/* Loads of what another thread wrote (bottom-up): past the GPU's L1, which is not coherent. */
#if defined(__CUDA_ARCH__)
#  define SR_LBVH_LDF(p) __ldcg(p)
#  define SR_LBVH_LDU(p) __ldcg(p)
#else
#  define SR_LBVH_LDF(p) (*(p))
#  define SR_LBVH_LDU(p) (*(p))
#endif

/* An unsigned order that agrees with < on finite floats (-0 sorts before +0, which the
 * centroid's "+ 0.0f" rules out), and its inverse: min and max by it are exact. */
SR_HD uint32_t sr_lbvh_ord(float f)
{
    const uint32_t u = sr_float_bits(f);   /* intersect.h */
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

SR_HD float sr_lbvh_unord(uint32_t u)
{
    u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    union { float f; uint32_t u; } v;
    v.u = u;
    return v.f;
#endif
}

/* The prim's box centre; + 0.0f turns -0 into +0. */
SR_HD sr_vec3 sr_lbvh_centroid(const sr_prim *p)
{
    sr_vec3 lo, hi;
    sr_prim_bounds(p, &lo, &hi);
    return sr_v3(0.5f * lo.x + 0.5f * hi.x + 0.0f, 0.5f * lo.y + 0.5f * hi.y + 0.0f,
                 0.5f * lo.z + 0.5f * hi.z + 0.0f);
}

/* Quantisation scales over the centroid bounds [lo, hi]: 2^bits cells along each axis
 * (0 where the bounds are flat), or with `cubic` cubes whose side is the largest extent's. */
SR_HD float sr_lbvh_scale1(float ext, uint32_t bits)
{
    return ext > 0.0f ? (float)(1u << bits) / ext : 0.0f;
}

SR_HD sr_vec3 sr_lbvh_scales(sr_vec3 lo, sr_vec3 hi, uint32_t bits, int cubic)
{
    const sr_vec3 e = sr_sub(hi, lo);
    if (cubic) {
        const float s = sr_lbvh_scale1(sr_max3(e), bits);
        return sr_v3(s, s, s);
    }
    return sr_v3(sr_lbvh_scale1(e.x, bits), sr_lbvh_scale1(e.y, bits), sr_lbvh_scale1(e.z, bits));
}

SR_HD uint64_t sr_lbvh_cell(float c, float lo, float scale, uint32_t bits)
{
    float f = (c - lo) * scale;
    float top = (float)((1u << bits) - 1u);
    if (!(f > 0.0f)) return 0;
    if (f >= top) return (uint64_t)((1u << bits) - 1u);
    return (uint64_t)f;
}

/* Spread the low 21 bits of x to every third bit. */
SR_HD uint64_t sr_lbvh_spread(uint64_t x)
{
    x &= 0x1fffffull;
    x = (x | x << 32) & 0x1f00000000ffffull;
    x = (x | x << 16) & 0x1f0000ff0000ffull;
    x = (x | x << 8) & 0x100f00f00f00f00full;
    x = (x | x << 4) & 0x10c30c30c30c30c3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x;
}

/* The Morton code of a centroid: 3 * bits bits, x highest. */
SR_HD uint64_t sr_lbvh_code(sr_vec3 c, sr_vec3 lo, sr_vec3 scale, uint32_t bits)
{
    return sr_lbvh_spread(sr_lbvh_cell(c.x, lo.x, scale.x, bits)) << 2 |
           sr_lbvh_spread(sr_lbvh_cell(c.y, lo.y, scale.y, bits)) << 1 |
           sr_lbvh_spread(sr_lbvh_cell(c.z, lo.z, scale.z, bits));
}

SR_HD int sr_lbvh_clz64(uint64_t x)
{
#if defined(__CUDA_ARCH__)
    return __clzll((long long)x);
#else
    return x ? __builtin_clzll(x) : 64;
#endif
}

/* The common prefix of sorted keys i and j (j may be out of range: -1); equal codes
 * compare their positions, so that every key is distinct. */
SR_HD int sr_lbvh_delta(const uint64_t *keys, uint32_t n, int64_t i, int64_t j)
{
    if (j < 0 || j >= (int64_t)n) return -1;
    uint64_t a = keys[i], b = keys[j];
    if (a != b) return sr_lbvh_clz64(a ^ b);
    return 64 + sr_lbvh_clz64((uint64_t)(uint32_t)(i ^ j)) - 32;
}

/* Step 4, internal node i: the range it covers (one end is i), its split, its children. */
SR_HD void sr_lbvh_internal(const sr_lbvh *b, uint32_t i)
{
    const uint32_t n = b->n;
    const int64_t ii = i;
    const int d = sr_lbvh_delta(b->keys, n, ii, ii + 1) > sr_lbvh_delta(b->keys, n, ii, ii - 1) ? 1 : -1;
    const int dmin = sr_lbvh_delta(b->keys, n, ii, ii - d);
    int64_t lmax = 2;
    while (sr_lbvh_delta(b->keys, n, ii, ii + lmax * d) > dmin) lmax *= 2;
    int64_t l = 0;
    for (int64_t t = lmax / 2; t >= 1; t /= 2)
        if (sr_lbvh_delta(b->keys, n, ii, ii + (l + t) * d) > dmin) l += t;
    const int64_t j = ii + l * d;
    const int dnode = sr_lbvh_delta(b->keys, n, ii, j);
    int64_t s = 0;
    for (int64_t t = (l + 1) / 2;; t = (t + 1) / 2) {
        if (sr_lbvh_delta(b->keys, n, ii, ii + (s + t) * d) > dnode) s += t;
        if (t == 1) break;
    }
    const int64_t gamma = ii + s * d + (d < 0 ? -1 : 0);
    const int64_t lo = d > 0 ? ii : j, hi = d > 0 ? j : ii;
    const uint32_t lc = lo == gamma ? n - 1u + (uint32_t)gamma : (uint32_t)gamma;
    const uint32_t rc = hi == gamma + 1 ? n - 1u + (uint32_t)(gamma + 1) : (uint32_t)(gamma + 1);
    b->left[i] = lc;
    b->right[i] = rc;
    b->parent[lc] = i;
    b->parent[rc] = i;
    b->first[i] = (uint32_t)lo;
    b->count[i] = (uint32_t)(hi - lo + 1);
    if (i == 0) b->parent[0] = SR_LBVH_NONE;
}

/* Half the surface area of a box (lo xyz, hi xyz); boxes here are never empty. */
SR_HD float sr_lbvh_area(const float *x)
{
    float dx = x[3] - x[0], dy = x[4] - x[1], dz = x[5] - x[2];
    return dx * dy + dy * dz + dz * dx;
}

/* One thread's arrival at a node: the first of two children to finish stops (1), the
 * second goes on (0). The counter's read-modify-write orders the first child's writes
 * before the second's reads. */
SR_HD uint32_t sr_lbvh_arrive(uint32_t *visits)
{
#if defined(__CUDA_ARCH__)
    __threadfence();
    const uint32_t first = atomicAdd(visits, 1u) == 0u;
    __threadfence();
    return first;
#else
    return __atomic_fetch_add(visits, 1u, __ATOMIC_ACQ_REL) == 0u;
#endif
}

/* Internal node p from its children: box, SAH cost, and whether it collapses into a leaf
 * (at most SR_LBVH_MAX_LEAF prims, and splitting would cost no less: the host SAH
 * builder's rule), its rank (0 if a leaf, else 1 + its left child's) and height. */
SR_HD void sr_lbvh_finish(const sr_lbvh *b, uint32_t p)
{
    const uint32_t n = b->n;
    const uint32_t l = SR_LBVH_LDU(&b->left[p]), r = SR_LBVH_LDU(&b->right[p]);
    const float *lb = &b->box[6u * (size_t)l], *rb = &b->box[6u * (size_t)r];
    float *pb = &b->box[6u * (size_t)p];
    for (int k = 0; k < 3; k++) {
        pb[k] = sr_minf(SR_LBVH_LDF(&lb[k]), SR_LBVH_LDF(&rb[k]));
        pb[k + 3] = sr_maxf(SR_LBVH_LDF(&lb[k + 3]), SR_LBVH_LDF(&rb[k + 3]));
    }
    const float area = sr_lbvh_area(pb);
    const uint32_t cnt = SR_LBVH_LDU(&b->count[p]);
    const float split = SR_LBVH_COST_TRAVERSE * area + (SR_LBVH_LDF(&b->cost[l]) + SR_LBVH_LDF(&b->cost[r]));
    const float as_leaf = SR_LBVH_COST_INTERSECT * area * (float)cnt;
    const uint32_t leaf = cnt <= SR_LBVH_MAX_LEAF && !(split < as_leaf);
    const uint32_t lrank = l >= n - 1u ? 0u : SR_LBVH_LDU(&b->rank[l]);
    const uint32_t lh = l >= n - 1u ? 1u : SR_LBVH_LDU(&b->height[l]);
    const uint32_t rh = r >= n - 1u ? 1u : SR_LBVH_LDU(&b->height[r]);
    b->cost[p] = leaf ? as_leaf : split;
    b->leaf[p] = leaf;
    b->rank[p] = leaf ? 0u : lrank + 1u;
    b->height[p] = leaf ? 1u : 1u + (lh > rh ? lh : rh);
    const uint32_t ls = l >= n - 1u ? 1u : SR_LBVH_LDU(&b->size[l]);
    const uint32_t rs = r >= n - 1u ? 1u : SR_LBVH_LDU(&b->size[r]);
    b->size[p] = leaf ? 1u : 1u + ls + rs;
}

/* Step 5b, at a finished internal node p: its treelet (p's children, then the treelet leaf
 * of largest area expanded into its two children, until SR_LBVH_TREELET leaves) rebuilt
 * with the cheapest binary tree over the leaves in their order, found by dynamic
 * programming over intervals (treelet restructuring after Karras and Aila, HPG 2013, kept
 * to trees over the ordered leaves, so that every node still covers a contiguous range of
 * sorted prims, as step 6 needs). The old tree is one of the candidates: the cost never
 * rises. The treelet's internal nodes are reused, p stays its root. */
SR_HD void sr_lbvh_treelet(const sr_lbvh *b, uint32_t p)
{
    const uint32_t n = b->n;
    uint32_t leaf_of[SR_LBVH_TREELET], inner[SR_LBVH_TREELET];
    uint32_t nl = 2, ni = 1;
    inner[0] = p;
    leaf_of[0] = SR_LBVH_LDU(&b->left[p]);
    leaf_of[1] = SR_LBVH_LDU(&b->right[p]);
    while (nl < SR_LBVH_TREELET) {
        int best = -1;
        float best_area = -1.0f;
        for (uint32_t i = 0; i < nl; i++) {
            const uint32_t x = leaf_of[i];
            if (x >= n - 1u || SR_LBVH_LDU(&b->leaf[x])) continue;
            float xb[6];
            for (int k = 0; k < 6; k++) xb[k] = SR_LBVH_LDF(&b->box[6u * (size_t)x + k]);
            const float a = sr_lbvh_area(xb);
            if (a > best_area) { best_area = a; best = (int)i; }
        }
        if (best < 0) break;
        const uint32_t x = leaf_of[best];
        inner[ni++] = x;
        for (uint32_t i = nl; i > (uint32_t)best + 1u; i--) leaf_of[i] = leaf_of[i - 1u];
        leaf_of[best] = SR_LBVH_LDU(&b->left[x]);
        leaf_of[best + 1] = SR_LBVH_LDU(&b->right[x]);
        nl++;
    }
    if (nl < 3) return;
    /* intervals [a, c] of the leaves: box, prims, cheapest cost and its split */
    float box[SR_LBVH_TREELET][SR_LBVH_TREELET][6], cost[SR_LBVH_TREELET][SR_LBVH_TREELET];
    uint32_t cnt[SR_LBVH_TREELET][SR_LBVH_TREELET], cut[SR_LBVH_TREELET][SR_LBVH_TREELET];
    for (uint32_t a = 0; a < nl; a++) {
        const uint32_t x = leaf_of[a];
        for (int k = 0; k < 6; k++) box[a][a][k] = SR_LBVH_LDF(&b->box[6u * (size_t)x + k]);
        cost[a][a] = SR_LBVH_LDF(&b->cost[x]);
        cnt[a][a] = x >= n - 1u ? 1u : SR_LBVH_LDU(&b->count[x]);
        for (uint32_t c = a + 1u; c < nl; c++) {
            const uint32_t y = leaf_of[c];
            for (int k = 0; k < 3; k++) {
                box[a][c][k] = sr_minf(box[a][c - 1u][k], SR_LBVH_LDF(&b->box[6u * (size_t)y + k]));
                box[a][c][k + 3] = sr_maxf(box[a][c - 1u][k + 3], SR_LBVH_LDF(&b->box[6u * (size_t)y + k + 3]));
            }
            cnt[a][c] = cnt[a][c - 1u] + (y >= n - 1u ? 1u : SR_LBVH_LDU(&b->count[y]));
        }
    }
    for (uint32_t len = 2; len <= nl; len++)
        for (uint32_t a = 0; a + len <= nl; a++) {
            const uint32_t c = a + len - 1u;
            /* the cheapest split; among equals the one whose sides hold the most equal numbers
             * of prims (flat or coincident prims cost nothing, and a chain of them would
             * only deepen the tree) */
            float best = cost[a][a] + cost[a + 1u][c];
            uint32_t at = a;
            for (uint32_t s = a + 1u; s < c; s++) {
                const float v = cost[a][s] + cost[s + 1u][c];
                const uint32_t l1 = cnt[a][s], r1 = cnt[s + 1u][c], l0 = cnt[a][at], r0 = cnt[at + 1u][c];
                const uint32_t off = l1 > r1 ? l1 - r1 : r1 - l1, off_at = l0 > r0 ? l0 - r0 : r0 - l0;
                if (v < best || (v == best && off < off_at)) { best = v; at = s; }
            }
            const float area = sr_lbvh_area(box[a][c]);
            const float split = SR_LBVH_COST_TRAVERSE * area + best;
            const float as_leaf = SR_LBVH_COST_INTERSECT * area * (float)cnt[a][c];
            cost[a][c] = cnt[a][c] <= SR_LBVH_MAX_LEAF && !(split < as_leaf) ? as_leaf : split;
            cut[a][c] = at;
        }
    /* the new tree, top down over an explicit list: node k of `made` covers [lo[k], hi[k]] */
    uint32_t made[SR_LBVH_TREELET], lo[SR_LBVH_TREELET], hi[SR_LBVH_TREELET];
    uint32_t nm = 1, used = 1;
    made[0] = p; lo[0] = 0; hi[0] = nl - 1u;
    for (uint32_t k = 0; k < nm; k++) {
        const uint32_t node = made[k], s = cut[lo[k]][hi[k]];
        uint32_t child[2];
        const uint32_t clo[2] = { lo[k], s + 1u }, chi[2] = { s, hi[k] };
        for (int side = 0; side < 2; side++) {
            if (clo[side] == chi[side]) {
                child[side] = leaf_of[clo[side]];
            } else {
                child[side] = inner[used++];
                made[nm] = child[side]; lo[nm] = clo[side]; hi[nm] = chi[side]; nm++;
            }
            b->parent[child[side]] = node;
        }
        b->left[node] = child[0];
        b->right[node] = child[1];
        const uint32_t f = leaf_of[lo[k]];
        b->first[node] = f >= n - 1u ? f - (n - 1u) : SR_LBVH_LDU(&b->first[f]);
        b->count[node] = cnt[lo[k]][hi[k]];
    }
    for (uint32_t k = nm; k-- > 0;) sr_lbvh_finish(b, made[k]);
}

/* Do these treelets move leaves (the layout is then sr_lbvh_emit_placed's)? How many
 * bottom-up passes do they take, and from which subtree size on does pass k >= 1 restructure
 * (0: all of them, a second sr_lbvh_bottom_up)? */
SR_HD int sr_lbvh_reorders(int treelets)
{
    return treelets >= SR_LBVH_TREELETS_REORDER && treelets <= SR_LBVH_TREELETS_REORDER_RESPLIT_G32_64;
}

/* The largest subtree that sr_lbvh_resplit rebuilds after the first pass; 0: none. The
 * first later pass's gamma must not exceed it + 1, so that the later passes finish every
 * ancestor of a rebuilt subtree again. */
SR_HD uint32_t sr_lbvh_resplits(int treelets)
{
    return treelets == SR_LBVH_TREELETS_RESPLIT_G32_64 || treelets == SR_LBVH_TREELETS_REORDER_RESPLIT_G32_64
               ? SR_LBVH_RESPLIT
               : 0u;
}

/* The first pass restructures the treelets of the nodes of more prims than this. */
SR_HD uint32_t sr_lbvh_treelets_above(int treelets)
{
    return treelets == SR_LBVH_TREELETS_RESPLIT_G32_64 ? SR_LBVH_RESPLIT : 0u;
}

SR_HD uint32_t sr_lbvh_passes(int treelets)
{
    return treelets == SR_LBVH_TREELETS_REORDER2 || treelets == SR_LBVH_TREELETS_REORDER_G8 ? 2u
           : treelets == SR_LBVH_TREELETS_REORDER_G24_48 ? 3u
           : treelets == SR_LBVH_TREELETS_REORDER_G32_64 || sr_lbvh_resplits(treelets) ? 3u
                                                                                                         : 1u;
}

SR_HD uint32_t sr_lbvh_gamma(int treelets, uint32_t pass)
{
    return treelets == SR_LBVH_TREELETS_REORDER_G8       ? 8u
           : treelets == SR_LBVH_TREELETS_REORDER_G24_48 ? 24u << (pass - 1u)
           : treelets == SR_LBVH_TREELETS_REORDER_G32_64 || sr_lbvh_resplits(treelets) ? 32u << (pass - 1u)
                                                         : 0u;
}

/* Step 5b, reordering: p's treelet (grown as in sr_lbvh_treelet, to SR_LBVH_TREELET_ANY
 * leaves) rebuilt as the cheapest binary tree over any grouping of its leaves (Karras and
 * Aila, "Fast Parallel Construction of High-Quality Bounding Volume Hierarchies", HPG
 * 2013): dynamic programming over the 2^k subsets of the leaves, each subset split into
 * every pair of non-empty halves. Subsets are visited in increasing order, so a subset's
 * halves are done before it; among equal costs the first split, or the one whose halves
 * hold the most equal numbers of prims, wins, the same on both backends. The old tree is
 * one of the candidates: the cost never rises. Leaves move, so a node's prims are no
 * longer a range of the sorted ones: the layout is sr_lbvh_place's. */
SR_HD void sr_lbvh_treelet_any(const sr_lbvh *b, uint32_t p, uint32_t leaves)
{
    const uint32_t n = b->n;
    uint32_t leaf_of[SR_LBVH_TREELET_MAX], inner[SR_LBVH_TREELET_MAX];
    uint32_t nl = 2, ni = 1;
    inner[0] = p;
    leaf_of[0] = SR_LBVH_LDU(&b->left[p]);
    leaf_of[1] = SR_LBVH_LDU(&b->right[p]);
    while (nl < leaves) {
        int best = -1;
        float best_area = -1.0f;
        for (uint32_t i = 0; i < nl; i++) {
            const uint32_t x = leaf_of[i];
            if (x >= n - 1u || SR_LBVH_LDU(&b->leaf[x])) continue;
            float xb[6];
            for (int k = 0; k < 6; k++) xb[k] = SR_LBVH_LDF(&b->box[6u * (size_t)x + k]);
            const float a = sr_lbvh_area(xb);
            if (a > best_area) { best_area = a; best = (int)i; }
        }
        if (best < 0) break;
        const uint32_t x = leaf_of[best];
        inner[ni++] = x;
        leaf_of[best] = SR_LBVH_LDU(&b->left[x]);
        leaf_of[nl++] = SR_LBVH_LDU(&b->right[x]);
    }
    if (nl < 3) return;
    float lbox[SR_LBVH_TREELET_MAX][6];
    float cost[1u << SR_LBVH_TREELET_MAX], area[1u << SR_LBVH_TREELET_MAX];
    uint32_t cnt[1u << SR_LBVH_TREELET_MAX];
    unsigned char part[1u << SR_LBVH_TREELET_MAX];
    for (uint32_t a = 0; a < nl; a++) {
        const uint32_t x = leaf_of[a];
        for (int k = 0; k < 6; k++) lbox[a][k] = SR_LBVH_LDF(&b->box[6u * (size_t)x + k]);
        cost[1u << a] = SR_LBVH_LDF(&b->cost[x]);
        cnt[1u << a] = x >= n - 1u ? 1u : SR_LBVH_LDU(&b->count[x]);
    }
    const uint32_t all = (1u << nl) - 1u;
    for (uint32_t m = 1; m <= all; m++) {
        if (!(m & (m - 1u))) continue;   /* one leaf: its own cost */
        uint32_t a0 = 0;
        while (!(m >> a0 & 1u)) a0++;
        float x[6];
        for (int k = 0; k < 6; k++) x[k] = lbox[a0][k];
        uint32_t c = cnt[1u << a0];
        for (uint32_t a = a0 + 1u; a < nl; a++) {
            if (!(m >> a & 1u)) continue;
            c += cnt[1u << a];
            for (int k = 0; k < 3; k++) {
                x[k] = sr_minf(x[k], lbox[a][k]);
                x[k + 3] = sr_maxf(x[k + 3], lbox[a][k + 3]);
            }
        }
        area[m] = sr_lbvh_area(x);
        cnt[m] = c;
        /* each split once: d, the half holding the lowest leaf, takes every proper subset
         * of the other leaves, from the most to none */
        const uint32_t low = m & (0u - m), rest = m ^ low;
        float best = 0.0f;
        uint32_t at = 0, off_at = SR_LBVH_NONE;   /* the imbalance of `at`, found on a tie */
        for (uint32_t e = (rest - 1u) & rest;; e = (e - 1u) & rest) {
            const uint32_t d = low | e;
            const float v = cost[d] + cost[m ^ d];
            if (!at || v < best) {
                best = v; at = d; off_at = SR_LBVH_NONE;
            } else if (v == best) {
                const uint32_t l1 = cnt[d], r1 = cnt[m ^ d], off = l1 > r1 ? l1 - r1 : r1 - l1;
                if (off_at == SR_LBVH_NONE) {
                    const uint32_t l0 = cnt[at], r0 = cnt[m ^ at];
                    off_at = l0 > r0 ? l0 - r0 : r0 - l0;
                }
                if (off < off_at) { at = d; off_at = off; }
            }
            if (!e) break;
        }
        const float split = SR_LBVH_COST_TRAVERSE * area[m] + best;
        const float as_leaf = SR_LBVH_COST_INTERSECT * area[m] * (float)c;
        cost[m] = c <= SR_LBVH_MAX_LEAF && !(split < as_leaf) ? as_leaf : split;
        part[m] = (unsigned char)at;
    }
    /* the new tree, top down: node k of `made` covers the leaves in mask[k] */
    uint32_t made[SR_LBVH_TREELET_MAX], mask[SR_LBVH_TREELET_MAX];
    uint32_t nm = 1, used = 1;
    made[0] = p; mask[0] = all;
    for (uint32_t k = 0; k < nm; k++) {
        const uint32_t node = made[k], half[2] = { part[mask[k]], mask[k] ^ part[mask[k]] };
        uint32_t child[2];
        for (int side = 0; side < 2; side++) {
            if (!(half[side] & (half[side] - 1u))) {
                uint32_t a = 0;
                while (!(half[side] >> a & 1u)) a++;
                child[side] = leaf_of[a];
            } else {
                child[side] = inner[used++];
                made[nm] = child[side]; mask[nm] = half[side]; nm++;
            }
            b->parent[child[side]] = node;
        }
        b->left[node] = child[0];
        b->right[node] = child[1];
        b->count[node] = cnt[mask[k]];
    }
    for (uint32_t k = nm; k-- > 0;) sr_lbvh_finish(b, made[k]);
}

/* Step 5, from the leaf at sorted position i up: each internal node is finished by the
 * second of its children to arrive, then its treelet restructured (with `treelets`). */
SR_HD void sr_lbvh_bottom_up(const sr_lbvh *b, uint32_t i, int treelets)
{
    const uint32_t n = b->n;
    uint32_t node = n - 1u + i;
    sr_vec3 lo, hi;
    sr_prim_bounds(&b->prims[b->ids[i]], &lo, &hi);
    float *x = &b->box[6u * (size_t)node];
    x[0] = lo.x; x[1] = lo.y; x[2] = lo.z; x[3] = hi.x; x[4] = hi.y; x[5] = hi.z;
    b->cost[node] = SR_LBVH_COST_INTERSECT * sr_lbvh_area(x);
    for (;;) {
        const uint32_t p = SR_LBVH_LDU(&b->parent[node]);
        if (p == SR_LBVH_NONE) return;
        if (sr_lbvh_arrive(&b->visits[p])) return;
        sr_lbvh_finish(b, p);
        if (treelets == SR_LBVH_TREELETS_INORDER) sr_lbvh_treelet(b, p);
        else if (sr_lbvh_reorders(treelets) && SR_LBVH_LDU(&b->count[p]) > sr_lbvh_treelets_above(treelets))
            sr_lbvh_treelet_any(b, p, SR_LBVH_TREELET_ANY);
        node = p;
    }
}

/* A later pass at the large subtrees only (after Karras and Aila's schedule, where later
 * passes grow the threshold): the treelets of the nodes of at least gamma prims are
 * restructured again, bottom up from those whose children both hold fewer, which leaves
 * most nodes alone. sr_lbvh_refine_init, for every internal node before the pass, sets its
 * arrival counter: SR_LBVH_START where a walk starts, SR_LBVH_SKIP below gamma (no walk
 * reaches those), else the number of children it does not wait for, so that the one
 * arrival it waits for, or the second of two, goes on. Then sr_lbvh_refine for every
 * internal node, or (the GPU) for the starts alone. */
#define SR_LBVH_START 4u
#define SR_LBVH_SKIP 5u

SR_HD uint32_t sr_lbvh_prims_below(const sr_lbvh *b, uint32_t x)
{
    return x >= b->n - 1u ? 1u : b->count[x];
}

SR_HD void sr_lbvh_refine_init(const sr_lbvh *b, uint32_t p, uint32_t gamma)
{
    if (b->count[p] < gamma) { b->visits[p] = SR_LBVH_SKIP; return; }
    const uint32_t small = (sr_lbvh_prims_below(b, b->left[p]) < gamma) + (sr_lbvh_prims_below(b, b->right[p]) < gamma);
    b->visits[p] = small == 2u ? SR_LBVH_START : small;
}

SR_HD void sr_lbvh_refine(const sr_lbvh *b, uint32_t p)
{
    if (SR_LBVH_LDU(&b->visits[p]) != SR_LBVH_START) return;
    for (;;) {
        sr_lbvh_finish(b, p);
        sr_lbvh_treelet_any(b, p, SR_LBVH_TREELET_LATER);
        const uint32_t q = SR_LBVH_LDU(&b->parent[p]);
        if (q == SR_LBVH_NONE || sr_lbvh_arrive(&b->visits[q])) return;
        p = q;
    }
}

#endif
