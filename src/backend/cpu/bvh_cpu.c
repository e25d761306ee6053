/* bvh_cpu.c: the BVH build on the CPU: the steps of kernels/core/bvh_build.h as OpenMP
 * loops, with a stable LSD radix sort of the codes, so that the tree is the GPU's bit for
 * bit (kernels/frames/bvh_build.cu runs the same steps). */
#include "bvh_cpu.h"
#include "../../base/mem_limits.h"
#include "../../../kernels/core/bvh_layout.h"
#include "../../../kernels/core/bvh_resplit.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define SR_RADIX_BITS 11u
/* Up to this many prims every step runs on one thread: starting the team costs more (and on
 * a loaded machine a team's barrier can wait a time slice). */
#define SR_CPU_BVH_SERIAL 8192
#define SR_RADIX_BUCKETS (1u << SR_RADIX_BITS)

/* Stable sort of (keys, ids) by the low `bits` bits of the keys, into keys/ids (tk/ti are
 * scratch of n each): 11-bit digits, least significant first. */
static void sr_radix_sort64(uint64_t *keys, uint32_t *ids, uint64_t *tk, uint32_t *ti, uint32_t n, uint32_t bits)
{
    size_t hist[SR_RADIX_BUCKETS];
    uint64_t *k0 = keys, *k1 = tk;
    uint32_t *i0 = ids, *i1 = ti;
    for (uint32_t shift = 0; shift < bits; shift += SR_RADIX_BITS) {
        memset(hist, 0, sizeof hist);
        for (uint32_t i = 0; i < n; i++) hist[(k0[i] >> shift) & (SR_RADIX_BUCKETS - 1u)]++;
        size_t sum = 0;
        for (uint32_t k = 0; k < SR_RADIX_BUCKETS; k++) { size_t c = hist[k]; hist[k] = sum; sum += c; }
        for (uint32_t i = 0; i < n; i++) {
            size_t at = hist[(k0[i] >> shift) & (SR_RADIX_BUCKETS - 1u)]++;
            k1[at] = k0[i];
            i1[at] = i0[i];
        }
        uint64_t *sk = k0; k0 = k1; k1 = sk;
        uint32_t *si = i0; i0 = i1; i1 = si;
    }
    if (k0 != keys) {   /* an odd number of passes: the result is in the scratch */
        memcpy(keys, k0, (size_t)n * sizeof *keys);
        memcpy(ids, i0, (size_t)n * sizeof *ids);
    }
}

/* Steps 1-5 with `bits` per axis, treelets restructured or not; returns the depth of the
 * collapsed tree. */
static uint32_t sr_cpu_lbvh_tree(const sr_lbvh *b, uint64_t *tk, uint32_t *ti, uint32_t bits, int treelets)
{
    const int64_t n = b->n;
    uint32_t lo[3] = { UINT32_MAX, UINT32_MAX, UINT32_MAX }, hi[3] = { 0, 0, 0 };
#pragma omp parallel if (n > SR_CPU_BVH_SERIAL)
    {
        uint32_t tlo[3] = { UINT32_MAX, UINT32_MAX, UINT32_MAX }, thi[3] = { 0, 0, 0 };
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            const sr_vec3 c = sr_lbvh_centroid(&b->prims[i]);
            const uint32_t o[3] = { sr_lbvh_ord(c.x), sr_lbvh_ord(c.y), sr_lbvh_ord(c.z) };
            for (int k = 0; k < 3; k++) {
                if (o[k] < tlo[k]) tlo[k] = o[k];
                if (o[k] > thi[k]) thi[k] = o[k];
            }
        }
#pragma omp critical
        for (int k = 0; k < 3; k++) {
            if (tlo[k] < lo[k]) lo[k] = tlo[k];
            if (thi[k] > hi[k]) hi[k] = thi[k];
        }
    }
    const sr_vec3 clo = sr_v3(sr_lbvh_unord(lo[0]), sr_lbvh_unord(lo[1]), sr_lbvh_unord(lo[2]));
    const sr_vec3 chi = sr_v3(sr_lbvh_unord(hi[0]), sr_lbvh_unord(hi[1]), sr_lbvh_unord(hi[2]));
    const sr_vec3 scale = sr_lbvh_scales(clo, chi, bits, SR_LBVH_CUBIC);
#pragma omp parallel for schedule(static) if (n > SR_CPU_BVH_SERIAL)
    for (int64_t i = 0; i < n; i++) {
        b->keys[i] = sr_lbvh_code(sr_lbvh_centroid(&b->prims[i]), clo, scale, bits);
        b->ids[i] = (uint32_t)i;
    }
    sr_radix_sort64(b->keys, b->ids, tk, ti, (uint32_t)n, 3u * bits);
#pragma omp parallel for schedule(static) if (n > SR_CPU_BVH_SERIAL)
    for (int64_t i = 0; i < n - 1; i++) sr_lbvh_internal(b, (uint32_t)i);
    memset(b->visits, 0, (size_t)(n - 1) * sizeof *b->visits);
#pragma omp parallel for schedule(static, 1024) if (n > SR_CPU_BVH_SERIAL)
    for (int64_t i = 0; i < n; i++) sr_lbvh_bottom_up(b, (uint32_t)i, treelets);
    const uint32_t most = sr_lbvh_resplits(treelets);
    if (most) {
#pragma omp parallel for schedule(dynamic, 4096) if (n > SR_CPU_BVH_SERIAL)
        for (int64_t i = 0; i < n - 1; i++) sr_lbvh_resplit(b, (uint32_t)i, most);
    }
    for (uint32_t pass = 1; pass < sr_lbvh_passes(treelets); pass++) {
        const uint32_t gamma = sr_lbvh_gamma(treelets, pass);
        if (gamma) {
#pragma omp parallel for schedule(static) if (n > SR_CPU_BVH_SERIAL)
            for (int64_t i = 0; i < n - 1; i++) sr_lbvh_refine_init(b, (uint32_t)i, gamma);
#pragma omp parallel for schedule(static, 1024) if (n > SR_CPU_BVH_SERIAL)
            for (int64_t i = 0; i < n - 1; i++) sr_lbvh_refine(b, (uint32_t)i);
            continue;
        }
        memset(b->visits, 0, (size_t)(n - 1) * sizeof *b->visits);
#pragma omp parallel for schedule(static, 1024) if (n > SR_CPU_BVH_SERIAL)
        for (int64_t i = 0; i < n; i++) sr_lbvh_bottom_up(b, (uint32_t)i, treelets);
    }
    return b->height[0];
}

sr_status sr_cpu_bvh_build(const sr_prim *prims, uint32_t n, sr_bvh *out, sr_error *err)
{
    return sr_cpu_bvh_build_with(prims, n, 0, sr_bvh_treelets(), out, err);
}

sr_status sr_cpu_bvh_build_with(const sr_prim *prims, uint32_t n, uint32_t bits, int treelets, sr_bvh *out,
                                sr_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0) return SR_OK;
    const size_t nodes = 2u * (size_t)n - 1u;
    out->nodes = malloc(nodes * sizeof *out->nodes);
    out->prims = malloc((size_t)n * sizeof *out->prims);
    out->order = malloc((size_t)n * sizeof *out->order);
    sr_lbvh b;
    memset(&b, 0, sizeof b);
    b.n = n;
    b.prims = prims;
    b.out = out->nodes;
    b.out_prims = out->prims;
    b.order = out->order;
    const size_t in = n - 1u;   /* internal nodes */
    b.keys = malloc(2u * (size_t)n * sizeof *b.keys);
    b.ids = malloc(2u * (size_t)n * sizeof *b.ids);
    b.left = malloc((in ? in : 1u) * 9u * sizeof(uint32_t));
    b.parent = malloc(nodes * sizeof *b.parent);
    b.box = malloc(nodes * 6u * sizeof *b.box);
    b.cost = malloc(nodes * sizeof *b.cost);
    b.chain = malloc(2u * (size_t)n * sizeof *b.chain);
    if (!out->nodes || !out->prims || !out->order || !b.keys || !b.ids || !b.left || !b.parent || !b.box || !b.cost ||
        !b.chain) {
        free(b.keys); free(b.ids); free(b.left); free(b.parent); free(b.box); free(b.cost); free(b.chain);
        free(out->nodes); free(out->prims); free(out->order);
        memset(out, 0, sizeof *out);
        return sr_fail(err, SR_ERR_RUNTIME, "BVH: out of host memory building over %u primitives (about %llu MiB "
                       "needed)", n, (unsigned long long)(sr_bvh_build_bytes(n) >> 20));
    }
    b.right = b.left + in; b.first = b.left + 2u * in; b.count = b.left + 3u * in; b.rank = b.left + 4u * in;
    b.height = b.left + 5u * in; b.leaf = b.left + 6u * in; b.visits = b.left + 7u * in;
    b.size = b.left + 8u * in;
    b.base = b.chain + n;

    uint32_t depth = 1;
    if (n == 1) {
        sr_prim_bounds(&prims[0], &out->nodes[0].lo, &out->nodes[0].hi);
        out->nodes[0].index = 0;
        out->nodes[0].count = 1;
        out->prims[0] = prims[0];
        out->order[0] = 0;
        out->node_count = 1;
    } else {
        depth = sr_cpu_lbvh_tree(&b, b.keys + n, b.ids + n, bits ? bits : SR_LBVH_BITS_FINE, treelets);
        if (!bits && depth > SR_BVH_STACK) {
            treelets = SR_LBVH_TREELETS_NONE;
            depth = sr_cpu_lbvh_tree(&b, b.keys + n, b.ids + n, SR_LBVH_BITS_COARSE, treelets);
        }
        const int64_t all = (int64_t)nodes;
        if (sr_lbvh_reorders(treelets)) {
            out->node_count = b.size[0];
#pragma omp parallel for schedule(static) if (n > SR_CPU_BVH_SERIAL)
            for (int64_t i = 0; i < all; i++) sr_lbvh_emit_placed(&b, (uint32_t)i);
#pragma omp parallel for schedule(static) if (n > SR_CPU_BVH_SERIAL)
            for (int64_t i = 0; i < (int64_t)n; i++) sr_lbvh_gather_placed(&b, (uint32_t)i);
            goto built;
        }
        memset(b.chain, 0, (size_t)n * sizeof *b.chain);
#pragma omp parallel for schedule(static) if (n > SR_CPU_BVH_SERIAL)
        for (int64_t i = 0; i < all; i++) sr_lbvh_chain(&b, (uint32_t)i);
        uint32_t sum = 0;
        for (uint32_t f = 0; f < n; f++) { b.base[f] = sum; sum += b.chain[f]; }
        out->node_count = sum;
#pragma omp parallel for schedule(static) if (n > SR_CPU_BVH_SERIAL)
        for (int64_t i = 0; i < all; i++) sr_lbvh_emit(&b, (uint32_t)i);
#pragma omp parallel for schedule(static) if (n > SR_CPU_BVH_SERIAL)
        for (int64_t i = 0; i < (int64_t)n; i++) sr_lbvh_gather(&b, (uint32_t)i);
    }
built:
    free(b.keys); free(b.ids); free(b.left); free(b.parent); free(b.box); free(b.cost); free(b.chain);
    sr_bvh_node *shrunk = realloc(out->nodes, (size_t)out->node_count * sizeof *out->nodes);
    if (shrunk) out->nodes = shrunk;
    out->prim_count = n;
    out->depth = depth;
    return SR_OK;
}
