/* bvh_wide.c: the binary tree collapsed into the compressed 8-wide one (bvh_wide.h). Nodes
 * are made breadth first from a queue: a node's interior children sit together from its
 * child_base, its leaves' prim indices together from its prim_base. */
#include "bvh_wide.h"
#include "../../kernels/core/intersect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(sr_wide_node) == 80, "a wide node is 80 bytes: eight children's boxes in 48");

const char *sr_bvh_tree_name(int tree)
{
    switch (tree) {
    case SR_BVH_TREE_BINARY: return "binary";
    case SR_BVH_TREE_WIDE: return "wide";
    case SR_BVH_TREE_AUTO: return "auto";
    default: return "unknown";
    }
}

int sr_bvh_tree_parse(const char *name)
{
    for (int t = SR_BVH_TREE_BINARY; t <= SR_BVH_TREE_AUTO; t++)
        if (name && strcmp(name, sr_bvh_tree_name(t)) == 0) return t;
    return -1;
}

/* A child in the making: a binary interior node (count 0), or a range of prims (a binary
 * leaf, or a part of one with more prims than a wide leaf holds). */
typedef struct sr_wide_item {
    uint32_t node;            /* count 0: the binary node                                  */
    uint32_t first, count;    /* count > 0: prims [first, first + count)                   */
    float lo[3], hi[3];
} sr_wide_item;

/* A wide node waiting for its children: its index and the item it stands for. */
typedef struct sr_wide_task {
    uint32_t at, depth;
    sr_wide_item item;
} sr_wide_task;

typedef struct sr_wide_maker {
    const sr_bvh_node *nodes;
    const sr_prim *prims;
    sr_wide *out;
    uint32_t node_cap, prim_cap;
    sr_wide_task *queue;
    uint32_t queue_head, queue_tail, queue_cap;
} sr_wide_maker;

static sr_wide_item item_of_node(const sr_wide_maker *w, uint32_t id)
{
    const sr_bvh_node *n = &w->nodes[id];
    sr_wide_item it;
    it.node = id;
    it.first = n->count ? n->index : 0;
    it.count = n->count;
    it.lo[0] = n->lo.x; it.lo[1] = n->lo.y; it.lo[2] = n->lo.z;
    it.hi[0] = n->hi.x; it.hi[1] = n->hi.y; it.hi[2] = n->hi.z;
    return it;
}

/* prims [first, first + count): their exact box. */
static sr_wide_item item_of_range(const sr_wide_maker *w, uint32_t first, uint32_t count)
{
    sr_wide_item it;
    it.node = 0;
    it.first = first;
    it.count = count;
    for (int k = 0; k < 3; k++) { it.lo[k] = INFINITY; it.hi[k] = -INFINITY; }
    for (uint32_t i = first; i < first + count; i++) {
        sr_vec3 lo, hi;
        sr_prim_bounds(&w->prims[i], &lo, &hi);
        const float l[3] = { lo.x, lo.y, lo.z }, h[3] = { hi.x, hi.y, hi.z };
        for (int k = 0; k < 3; k++) {
            it.lo[k] = l[k] < it.lo[k] ? l[k] : it.lo[k];
            it.hi[k] = h[k] > it.hi[k] ? h[k] : it.hi[k];
        }
    }
    return it;
}

static int range_has_instance(const sr_wide_maker *w, const sr_wide_item *it)
{
    for (uint32_t i = it->first; i < it->first + it->count; i++)
        if (w->prims[i].kind == SR_PRIM_INSTANCE) return 1;
    return 0;
}

/* A leaf slot as it is: a range of at most SR_WIDE_LEAF_MAX prims, an instance's proxy alone. */
static int is_leaf(const sr_wide_maker *w, const sr_wide_item *it)
{
    return it->count > 0 && it->count <= SR_WIDE_LEAF_MAX && (it->count == 1 || !range_has_instance(w, it));
}

/* Its two halves: the binary node's children, or the range split in the middle. */
static void split_item(const sr_wide_maker *w, const sr_wide_item *it, sr_wide_item *a, sr_wide_item *b)
{
    if (it->count == 0) {
        const uint32_t left = it->node + 1u, right = w->nodes[it->node].index;
        *a = w->nodes[left].count ? item_of_range(w, w->nodes[left].index, w->nodes[left].count) : item_of_node(w, left);
        *b = w->nodes[right].count ? item_of_range(w, w->nodes[right].index, w->nodes[right].count) : item_of_node(w, right);
        return;
    }
    const uint32_t half = (it->count + 1u) / 2u;
    *a = item_of_range(w, it->first, half);
    *b = item_of_range(w, it->first + half, it->count - half);
}

static float item_area(const sr_wide_item *it)
{
    const float dx = it->hi[0] - it->lo[0], dy = it->hi[1] - it->lo[1], dz = it->hi[2] - it->lo[2];
    return dx * dy + dy * dz + dz * dx;
}

/* Up to eight children of `it`: split in two, then the largest child that is no leaf split
 * again while there is room. Returns their count. */
static uint32_t gather_children(const sr_wide_maker *w, const sr_wide_item *it, sr_wide_item c[8])
{
    if (is_leaf(w, it)) { c[0] = *it; return 1; }
    split_item(w, it, &c[0], &c[1]);
    uint32_t n = 2;
    while (n < 8) {
        int best = -1;
        float best_area = -1.0f;
        for (uint32_t k = 0; k < n; k++)
            if (!is_leaf(w, &c[k]) && item_area(&c[k]) > best_area) { best = (int)k; best_area = item_area(&c[k]); }
        if (best < 0) break;
        sr_wide_item a, b;
        split_item(w, &c[best], &a, &b);
        for (uint32_t k = n; k > (uint32_t)best + 1u; k--) c[k] = c[k - 1];   /* keep the prims' order */
        c[best] = a;
        c[best + 1] = b;
        n++;
    }
    return n;
}

/* Axis `a` of a node over children c[0..n): its step's exponent and each child's bounds,
 * the smallest step (from 2^-126 up) at which every child's box, decoded as the walk decodes
 * it (sr_wide_bound), holds the child's exact one within 255 steps of the origin. */
static void quantize_axis(sr_wide_node *node, int a, float origin, float top, const sr_wide_item *c, uint32_t n)
{
    int e = 1;
    const double extent = (double)top - (double)origin;
    if (extent > 0.0) {
        int x;
        frexp(extent / 255.0, &x);   /* 2^x >= extent / 255 */
        e = x + 127;
        e = e < 1 ? 1 : e > 254 ? 254 : e;
    }
    for (;; e++) {
        const float step = sr_wide_step((uint8_t)e);
        uint32_t k = 0;
        for (; k < n; k++) {
            double ql = floor(((double)c[k].lo[a] - (double)origin) / (double)step);
            double qh = ceil(((double)c[k].hi[a] - (double)origin) / (double)step);
            int lo = ql < 0.0 ? 0 : ql > 255.0 ? 255 : (int)ql;
            int hi = qh < 0.0 ? 0 : qh > 256.0 ? 256 : (int)qh;
            while (lo > 0 && sr_wide_bound(origin, (uint8_t)lo, step) > c[k].lo[a]) lo--;
            while (hi <= 255 && sr_wide_bound(origin, (uint8_t)hi, step) < c[k].hi[a]) hi++;
            if (hi > 255 || e == 254) {
                if (e < 254) break;
                hi = 255;   /* 255 * 2^127 decodes to +inf: it holds anything */
            }
            node->qlo[a][k] = (uint8_t)lo;
            node->qhi[a][k] = (uint8_t)hi;
        }
        if (k == n) break;
    }
    node->exp[a] = (uint8_t)e;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap) return 1;
    uint32_t c = *cap ? *cap : 64u;
    while (c < need) c = c > 0x7fffffffu ? need : 2u * c;
    void *q = realloc(*p, (size_t)c * size);
    if (!q) return 0;
    *p = q;
    *cap = c;
    return 1;
}

/* Node task->at: its children quantized, its leaves' prims listed, its interior children
 * queued. 0 when out of memory. */
static int make_node(sr_wide_maker *w, const sr_wide_task *task)
{
    sr_wide_item c[8];
    const uint32_t n = gather_children(w, &task->item, c);
    uint32_t interior = 0, listed = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (is_leaf(w, &c[k])) listed += c[k].count;
        else interior++;
    }
    sr_wide *out = w->out;
    if (!grow((void **)&out->nodes, &w->node_cap, out->node_count + interior, sizeof *out->nodes) ||
        !grow((void **)&out->prims, &w->prim_cap, out->prim_count + listed, sizeof *out->prims) ||
        !grow((void **)&w->queue, &w->queue_cap, w->queue_tail + interior, sizeof *w->queue))
        return 0;
    sr_wide_node *node = &out->nodes[task->at];
    memset(node, 0, sizeof *node);
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t k = 0; k < n; k++)
        for (int a = 0; a < 3; a++) {
            lo[a] = c[k].lo[a] < lo[a] ? c[k].lo[a] : lo[a];
            hi[a] = c[k].hi[a] > hi[a] ? c[k].hi[a] : hi[a];
        }
    node->origin = sr_v3(lo[0], lo[1], lo[2]);
    for (int a = 0; a < 3; a++) quantize_axis(node, a, lo[a], hi[a], c, n);
    node->child_base = out->node_count;
    node->prim_base = out->prim_count;
    uint32_t rank = 0, offset = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (is_leaf(w, &c[k])) {
            node->meta[k] = (uint8_t)(c[k].count << 5 | offset);
            for (uint32_t i = 0; i < c[k].count; i++) out->prims[out->prim_count + offset + i] = c[k].first + i;
            offset += c[k].count;
            continue;
        }
        node->imask |= (uint8_t)(1u << k);
        node->meta[k] = (uint8_t)rank;
        sr_wide_task *t = &w->queue[w->queue_tail++];
        t->at = node->child_base + rank;
        t->depth = task->depth + 1u;
        t->item = c[k];
        rank++;
    }
    out->node_count += interior;
    out->prim_count += listed;
    return 1;
}

/* The tree under binary root `root`, its root at the next node; its depth. 0: no memory. */
static uint32_t make_tree(sr_wide_maker *w, uint32_t root)
{
    sr_wide *out = w->out;
    if (!grow((void **)&out->nodes, &w->node_cap, out->node_count + 1u, sizeof *out->nodes) ||
        !grow((void **)&w->queue, &w->queue_cap, 1u, sizeof *w->queue))
        return 0;
    w->queue_head = w->queue_tail = 0;
    sr_wide_task *t = &w->queue[w->queue_tail++];
    t->at = out->node_count++;
    t->depth = 1;
    t->item = w->nodes[root].count ? item_of_range(w, w->nodes[root].index, w->nodes[root].count) : item_of_node(w, root);
    uint32_t depth = 1;
    while (w->queue_head < w->queue_tail) {
        const sr_wide_task task = w->queue[w->queue_head++];
        depth = task.depth > depth ? task.depth : depth;
        if (!make_node(w, &task)) return 0;
    }
    return depth;
}

sr_status sr_wide_build(const sr_bvh_node *nodes, const sr_prim *prims, const uint32_t *roots, uint32_t root_count,
                        uint32_t *wide_roots, sr_wide *out, sr_error *err)
{
    memset(out, 0, sizeof *out);
    if (root_count == 0 || !nodes) return SR_OK;
    sr_wide_maker w;
    memset(&w, 0, sizeof w);
    w.nodes = nodes;
    w.prims = prims;
    w.out = out;
    uint32_t top_depth = 0, mesh_depth = 0;
    for (uint32_t r = 0; r < root_count; r++) {
        uint32_t same = r;   /* a mesh placed again: its tree is made once */
        for (uint32_t q = 0; q < r && same == r; q++)
            if (roots[q] == roots[r]) same = q;
        if (same != r) { wide_roots[r] = wide_roots[same]; continue; }
        wide_roots[r] = out->node_count;
        const uint32_t depth = make_tree(&w, roots[r]);
        if (depth == 0) {
            free(w.queue);
            sr_wide_free(out);
            return sr_fail(err, SR_ERR_RUNTIME, "out of host memory collapsing the BVH into the wide tree (%u nodes so far)",
                           w.node_cap);
        }
        if (r == 0) top_depth = depth;
        else mesh_depth = depth > mesh_depth ? depth : mesh_depth;
    }
    free(w.queue);
    out->depth = top_depth > mesh_depth ? top_depth : mesh_depth;
    /* a level pushes at most 7 entries beyond the one it pops; an instance adds its marker */
    if (7u * (top_depth + mesh_depth) + 2u > SR_WIDE_STACK) sr_wide_free(out);
    return SR_OK;
}

uint64_t sr_wide_bytes(const sr_wide *w)
{
    return (uint64_t)w->node_count * sizeof(sr_wide_node) + (uint64_t)w->prim_count * sizeof(uint32_t);
}

void sr_wide_free(sr_wide *w)
{
    if (!w) return;
    free(w->nodes);
    free(w->prims);
    memset(w, 0, sizeof *w);
}
