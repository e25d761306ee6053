/* bvh.c: the BVH's host side: the check of the prims every build makes, the builds by
 * backend (sr_bvh_build_on) and on the host (sr_bvh_build, the CPU backend's builder), the
 * SAH cost of a tree, and the host's binned SAH build (sr_bvh_build_sah), which gives small
 * scenes a better tree than the linear BVH (render.c picks).
 *
 * The host SAH build: each node's range of the work array is binned along all three axes at
 * once (SR_BVH_BINS bins over the centroid bounds), the cheapest plane by the surface area
 * heuristic is taken, and the range is partitioned in place. Work items carry their own box
 * and centroid so the passes read memory in order. Depth is guaranteed: once a node could not finish with
 * balanced splits before SR_BVH_STACK, the builder switches to median splits, which need
 * exactly ceil(log2(n)) more levels. */
#include "bvh.h"
#include "../backend/cpu/bvh_cpu.h"
#include "../base/interrupt.h"
#include "../../kernels/core/intersect.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SR_BVH_BINS 16
#define SR_BVH_MAX_LEAF 8      /* larger ranges are always split                        */
/* The cost of a node visit (two boxes from one 64-byte pair) against a primitive test. At
 * 0.25 every leaf of the Cornell box and the mirror hall holds one prim; the values tried and
 * what each cost are in docs/design.md, "The BVH's traversal cost". */
#ifndef SR_BVH_COST_TRAVERSE
#define SR_BVH_COST_TRAVERSE 0.25f
#endif
#define SR_BVH_COST_INTERSECT 1.0f
/* Median splits from this depth budget on: a subtree rooted at depth d over n prims ends
 * by depth d + ceil(log2 n), which is kept <= SR_BVH_MEDIAN_DEPTH < SR_BVH_STACK. */
#define SR_BVH_MEDIAN_DEPTH (SR_BVH_STACK - 4)

typedef struct sr_bvh_item {
    float lo[3], hi[3], c[3];
    uint32_t id;               /* index into the input prims                             */
} sr_bvh_item;

typedef struct sr_bvh_box {
    float lo[3], hi[3];
} sr_bvh_box;

typedef struct sr_bvh_builder {
    sr_bvh_item *items;
    sr_bvh_node *nodes;
    uint32_t node_count;
    uint32_t depth;
} sr_bvh_builder;

static void box_empty(sr_bvh_box *b)
{
    for (int k = 0; k < 3; k++) { b->lo[k] = INFINITY; b->hi[k] = -INFINITY; }
}

static void box_grow(sr_bvh_box *b, const float *lo, const float *hi)
{
    for (int k = 0; k < 3; k++) {   /* branch-free (minss/maxss): this is the hot loop */
        b->lo[k] = lo[k] < b->lo[k] ? lo[k] : b->lo[k];
        b->hi[k] = hi[k] > b->hi[k] ? hi[k] : b->hi[k];
    }
}

static void box_union(sr_bvh_box *b, const sr_bvh_box *o) { box_grow(b, o->lo, o->hi); }

/* Half the surface area; 0 for an empty box. */
static float box_area(const sr_bvh_box *b)
{
    float dx = b->hi[0] - b->lo[0], dy = b->hi[1] - b->lo[1], dz = b->hi[2] - b->lo[2];
    if (!(dx >= 0.0f && dy >= 0.0f && dz >= 0.0f)) return 0.0f;
    return dx * dy + dy * dz + dz * dx;
}

static uint32_t ceil_log2(uint32_t n)
{
    uint32_t k = 0;
    while (k < 32 && (1ull << k) < n) k++;
    return k;
}

static const char *kind_name(uint32_t kind)
{
    switch (kind) {
    case SR_PRIM_SPHERE: return "sphere";
    case SR_PRIM_PLANE: return "plane";
    case SR_PRIM_QUAD: return "quad";
    case SR_PRIM_TRIANGLE: return "triangle";
    case SR_PRIM_INSTANCE: return "instance";
    default: return "unknown";
    }
}

static int vec_finite(sr_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* The bin of centroid coordinate c, computed the same way when binning and partitioning. */
static int bin_of(float c, float cmin, float scale)
{
    float f = (c - cmin) * scale;
    if (f >= (float)(SR_BVH_BINS - 1)) return SR_BVH_BINS - 1;
    if (f > 0.0f) return (int)f;
    return 0;
}

/* Order items [0, n) so that the one at position k sits there in sorted order along axis
 * (quickselect, three-way partition so that equal keys cost nothing). */
static void select_kth(sr_bvh_item *it, uint32_t n, uint32_t k, int axis)
{
    uint32_t lo = 0, hi = n;   /* [lo, hi) holds position k */
    while (hi - lo > 1) {
        float a = it[lo].c[axis], b = it[lo + (hi - lo) / 2].c[axis], c = it[hi - 1].c[axis];
        float pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        uint32_t lt = lo, i = lo, gt = hi;   /* [lo,lt) < pivot, [lt,i) == pivot, [gt,hi) > */
        while (i < gt) {
            float v = it[i].c[axis];
            if (v < pivot) {
                sr_bvh_item tmp = it[lt]; it[lt] = it[i]; it[i] = tmp;
                lt++; i++;
            } else if (v > pivot) {
                gt--;
                sr_bvh_item tmp = it[gt]; it[gt] = it[i]; it[i] = tmp;
            } else {
                i++;
            }
        }
        if (k < lt) hi = lt;
        else if (k >= gt) lo = gt;
        else return;
    }
}

typedef struct sr_bvh_task {
    uint32_t begin, end, depth;
    uint32_t node;            /* the node this task fills in                            */
} sr_bvh_task;

/* Decide how to split items [begin, end) of a node with box `nb` and centroid box `cbp`;
 * returns the split
 * position (begin < mid < end) or 0 for a leaf. */
static uint32_t split_range(sr_bvh_item *items, uint32_t begin, uint32_t end, uint32_t depth,
                            const sr_bvh_box *nb, const sr_bvh_box *cbp)
{
    uint32_t n = end - begin;
    if (n <= 1) return 0;

    sr_bvh_box cb = *cbp;
    int axis = 0;
    float ext[3];
    for (int k = 0; k < 3; k++) {
        ext[k] = cb.hi[k] - cb.lo[k];
        if (ext[k] > ext[axis]) axis = k;
    }

    if (depth + ceil_log2(n) < SR_BVH_MEDIAN_DEPTH) {
        /* binned SAH on every axis with a centroid extent */
        uint32_t count[3][SR_BVH_BINS];
        sr_bvh_box bins[3][SR_BVH_BINS];
        float scale[3];
        int usable[3];
        for (int k = 0; k < 3; k++) {
            scale[k] = (float)SR_BVH_BINS / ext[k];
            usable[k] = ext[k] > 0.0f && isfinite(scale[k]);
            for (int b = 0; b < SR_BVH_BINS; b++) { count[k][b] = 0; box_empty(&bins[k][b]); }
        }
        for (uint32_t i = begin; i < end; i++) {
            const sr_bvh_item *it = &items[i];
            for (int k = 0; k < 3; k++) {
                if (!usable[k]) continue;
                int b = bin_of(it->c[k], cb.lo[k], scale[k]);
                count[k][b]++;
                box_grow(&bins[k][b], it->lo, it->hi);
            }
        }
        float best_cost = INFINITY;
        int best_axis = -1, best_bin = 0;
        for (int k = 0; k < 3; k++) {
            if (!usable[k]) continue;
            float right_area[SR_BVH_BINS];
            uint32_t right_count[SR_BVH_BINS];
            sr_bvh_box acc;
            box_empty(&acc);
            uint32_t c = 0;
            for (int b = SR_BVH_BINS - 1; b > 0; b--) {
                box_union(&acc, &bins[k][b]);
                c += count[k][b];
                right_area[b] = box_area(&acc);
                right_count[b] = c;
            }
            box_empty(&acc);
            c = 0;
            for (int b = 1; b < SR_BVH_BINS; b++) {   /* split plane before bin b */
                box_union(&acc, &bins[k][b - 1]);
                c += count[k][b - 1];
                if (c == 0 || right_count[b] == 0) continue;
                float cost = box_area(&acc) * (float)c + right_area[b] * (float)right_count[b];
                if (cost < best_cost) { best_cost = cost; best_axis = k; best_bin = b; }
            }
        }
        if (best_axis >= 0) {
            /* SAH in units of the intersection cost, multiplied through by the node's area */
            float area = box_area(nb);
            float split_cost = SR_BVH_COST_TRAVERSE * area + SR_BVH_COST_INTERSECT * best_cost;
            float leaf_cost = SR_BVH_COST_INTERSECT * area * (float)n;
            if (n <= SR_BVH_MAX_LEAF && !(split_cost < leaf_cost)) return 0;
            uint32_t i = begin, j = end;
            int k = best_axis;
            while (i < j) {
                if (bin_of(items[i].c[k], cb.lo[k], scale[k]) < best_bin) {
                    i++;
                } else {
                    j--;
                    sr_bvh_item tmp = items[i]; items[i] = items[j]; items[j] = tmp;
                }
            }
            if (i > begin && i < end) return i;
        }
        if (n <= SR_BVH_MAX_LEAF) return 0;   /* no useful plane (centroids coincide)    */
    }
    /* median split: along the widest centroid axis, or in half when all coincide */
    uint32_t mid = begin + n / 2;
    if (ext[axis] > 0.0f) select_kth(items + begin, n, mid - begin, axis);
    return mid;
}

/* Builds in this process, for tests; atomic: contexts on several threads build at once. */
static atomic_uint sr_bvh_build_calls;

uint32_t sr_bvh_builds(void) { return atomic_load_explicit(&sr_bvh_build_calls, memory_order_relaxed); }

sr_status sr_bvh_check_prims(const sr_prim *prims, uint32_t n, sr_error *err)
{
    if (n > 0x7fffffffu)
        return sr_fail(err, SR_ERR_INPUT, "BVH: %u primitives is more than the %u supported; "
                       "split the scene", n, 0x7fffffffu);
    for (uint32_t i = 0; i < n; i++) {
        const sr_prim *p = &prims[i];
        if (p->kind != SR_PRIM_SPHERE && p->kind != SR_PRIM_QUAD && p->kind != SR_PRIM_TRIANGLE &&
            p->kind != SR_PRIM_INSTANCE)
            return sr_fail(err, SR_ERR_INPUT, "BVH: primitive %u is a %s (kind %u); only spheres, "
                           "quads, triangles and instances go in the BVH", i, kind_name(p->kind), p->kind);
        int ok = vec_finite(p->a);
        if (p->kind == SR_PRIM_SPHERE) ok = ok && isfinite(p->b.x);
        else ok = ok && vec_finite(p->b) && vec_finite(p->c);
        if (ok) {
            sr_vec3 lo, hi;
            sr_prim_bounds(p, &lo, &hi);
            ok = vec_finite(lo) && vec_finite(hi);
        }
        if (!ok)
            return sr_fail(err, SR_ERR_INPUT, "BVH: primitive %u (%s) has a coordinate that is not "
                           "a finite number (NaN, infinite, or overflowing); fix the scene or mesh",
                           i, kind_name(p->kind));
    }
    return SR_OK;
}

/* Every build starts with the prims' check, and stops there after Ctrl-C or SIGTERM (the
 * linear builds take under a second a million prims; the SAH build also checks as it goes). */
static sr_status sr_bvh_start(const sr_prim *prims, uint32_t n, sr_bvh *out, sr_error *err)
{
    memset(out, 0, sizeof *out);
    sr_status st = sr_bvh_check_prims(prims, n, err);
    if (st) return st;
    if (sr_interrupt_pending()) return SR_INTERRUPTED;
    return SR_OK;
}

sr_status sr_bvh_build(const sr_prim *prims, uint32_t n, sr_bvh *out, sr_error *err)
{
    sr_status st = sr_bvh_start(prims, n, out, err);
    if (st) return st;
    atomic_fetch_add_explicit(&sr_bvh_build_calls, 1u, memory_order_relaxed);
    return sr_cpu_bvh_build(prims, n, out, err);
}

sr_status sr_bvh_build_on(sr_backend *be, const sr_prim *prims, uint32_t n, int to_host, sr_bvh *out, sr_error *err)
{
    sr_status st = sr_bvh_start(prims, n, out, err);
    if (st) return st;
    atomic_fetch_add_explicit(&sr_bvh_build_calls, 1u, memory_order_relaxed);
    return be->ops->build_bvh(be->impl, prims, n, to_host, out, err);
}

double sr_bvh_sah_cost(const sr_bvh *b)
{
    if (b->node_count == 0 || !b->nodes) return 0.0;
    const sr_bvh_node *r = &b->nodes[0];
    sr_bvh_box rb;
    memcpy(rb.lo, &r->lo, sizeof rb.lo);
    memcpy(rb.hi, &r->hi, sizeof rb.hi);
    const double root = box_area(&rb);
    double sum = 0.0;
    for (uint32_t i = 0; i < b->node_count; i++) {
        const sr_bvh_node *nd = &b->nodes[i];
        sr_bvh_box x;
        memcpy(x.lo, &nd->lo, sizeof x.lo);
        memcpy(x.hi, &nd->hi, sizeof x.hi);
        const double a = box_area(&x);
        sum += nd->count ? a * SR_BVH_COST_INTERSECT * nd->count : a * SR_BVH_COST_TRAVERSE;
    }
    return root > 0.0 ? sum / root : sum;
}

sr_status sr_bvh_build_sah(const sr_prim *prims, uint32_t n, sr_bvh *out, sr_error *err)
{
    sr_status cst = sr_bvh_start(prims, n, out, err);
    if (cst) return cst;
    atomic_fetch_add_explicit(&sr_bvh_build_calls, 1u, memory_order_relaxed);
    if (n == 0) return SR_OK;

    uint32_t max_nodes = 2u * n - 1u;
    sr_bvh_builder b;
    b.items = malloc((size_t)n * sizeof *b.items);
    b.nodes = malloc((size_t)max_nodes * sizeof *b.nodes);
    b.node_count = 0;
    b.depth = 0;
    sr_prim *out_prims = malloc((size_t)n * sizeof *out_prims);
    uint32_t *order = malloc((size_t)n * sizeof *order);
    if (!b.items || !b.nodes || !out_prims || !order) {
        free(b.items); free(b.nodes); free(out_prims); free(order);
        return sr_fail(err, SR_ERR_RUNTIME, "BVH: out of memory building over %u primitives "
                       "(about %zu MiB needed)", n,
                       ((size_t)n * (sizeof *b.items + sizeof *out_prims) +
                        (size_t)max_nodes * sizeof *b.nodes) >> 20);
    }

    for (uint32_t i = 0; i < n; i++) {
        sr_vec3 lo, hi;
        sr_prim_bounds(&prims[i], &lo, &hi);
        sr_bvh_item *it = &b.items[i];
        it->lo[0] = lo.x; it->lo[1] = lo.y; it->lo[2] = lo.z;
        it->hi[0] = hi.x; it->hi[1] = hi.y; it->hi[2] = hi.z;
        for (int k = 0; k < 3; k++) it->c[k] = 0.5f * it->lo[k] + 0.5f * it->hi[k];
        it->id = i;
    }

    /* Depth-first, left before right: a node's left child is allocated right after it.
     * The explicit stack holds right children waiting for their subtree; depth is bounded,
     * so SR_BVH_STACK entries suffice. */
    sr_bvh_task stack[SR_BVH_STACK + 1];
    uint32_t sp = 0;
    sr_bvh_task task;
    task.begin = 0; task.end = n; task.depth = 1; task.node = b.node_count++;
    for (;;) {
        if (sr_interrupt_pending()) {   /* Ctrl-C or SIGTERM: a million triangles take seconds */
            free(b.items);
            free(b.nodes);
            free(out_prims);
            free(order);
            return SR_INTERRUPTED;
        }
        sr_bvh_box nb, cb;
        box_empty(&nb);
        box_empty(&cb);
        for (uint32_t i = task.begin; i < task.end; i++) {
            const sr_bvh_item *it = &b.items[i];
            box_grow(&nb, it->lo, it->hi);
            box_grow(&cb, it->c, it->c);
        }
        sr_bvh_node *node = &b.nodes[task.node];
        node->lo = sr_v3(nb.lo[0], nb.lo[1], nb.lo[2]);
        node->hi = sr_v3(nb.hi[0], nb.hi[1], nb.hi[2]);
        if (task.depth > b.depth) b.depth = task.depth;

        uint32_t mid = split_range(b.items, task.begin, task.end, task.depth, &nb, &cb);
        if (mid == 0 || task.depth >= SR_BVH_STACK) {   /* the depth check never fires */
            node->index = task.begin;
            node->count = task.end - task.begin;
            if (sp == 0) break;
            task = stack[--sp];
            uint32_t parent = task.node;
            task.node = b.node_count++;
            b.nodes[parent].index = task.node;   /* the parent's right child */
            continue;
        }
        node->count = 0;
        sr_bvh_task right;
        right.begin = mid; right.end = task.end; right.depth = task.depth + 1;
        right.node = task.node;          /* the parent, until the right child gets its id */
        stack[sp++] = right;
        task.end = mid;
        task.depth++;
        task.node = b.node_count++;
    }

    for (uint32_t i = 0; i < n; i++) {
        out_prims[i] = prims[b.items[i].id];
        order[i] = b.items[i].id;
    }
    free(b.items);
    sr_bvh_node *shrunk = realloc(b.nodes, (size_t)b.node_count * sizeof *b.nodes);
    out->nodes = shrunk ? shrunk : b.nodes;
    out->node_count = b.node_count;
    out->prims = out_prims;
    out->order = order;
    out->prim_count = n;
    out->depth = b.depth;
    return SR_OK;
}

void sr_bvh_free(sr_bvh *bvh)
{
    if (!bvh) return;
    free(bvh->nodes);
    free(bvh->prims);
    free(bvh->order);
    memset(bvh, 0, sizeof *bvh);
}
