/* instances.c: the two-level BVH (instances.h). */
#include "instances.h"
#include "../base/affine.h"
#include "../base/mem_limits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The inverse of the affine m (row-major 3x4), in double: the cofactors over the
 * determinant, and the translation taken back. False when m is singular. */
static bool affine_inverse(const double m[3][4], double inv[3][4])
{
    const double det = sr_affine_det(m);
    if (!(fabs(det) > 0.0) || !isfinite(det)) return false;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {   /* inv[i][j] = cofactor(j, i) / det */
            const int j1 = (j + 1) % 3, j2 = (j + 2) % 3, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
            inv[i][j] = (m[j1][i1] * m[j2][i2] - m[j1][i2] * m[j2][i1]) / det;
        }
    for (int i = 0; i < 3; i++)
        inv[i][3] = -(inv[i][0] * m[0][3] + inv[i][1] * m[1][3] + inv[i][2] * m[2][3]);
    return true;
}

/* A double rounded to the float at or below it (lo) or at or above it (hi). */
static float round_down(double x)
{
    float f = (float)x;
    return (double)f > x ? nextafterf(f, -INFINITY) : f;
}

static float round_up(double x)
{
    float f = (float)x;
    return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/* The world box of the mesh box [lo, hi] placed by m: its eight corners in double, rounded
 * outwards and widened by a few float ulps of its size, so that the rays transformed into
 * object space in float (kernels/core/intersect.h) find every hit the box lets through. */
static void placed_box(const double m[3][4], sr_vec3 lo, sr_vec3 hi, sr_vec3 *wlo, sr_vec3 *whi)
{
    double l[3] = { INFINITY, INFINITY, INFINITY }, h[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (int c = 0; c < 8; c++) {
        const double p[3] = { c & 1 ? hi.x : lo.x, c & 2 ? hi.y : lo.y, c & 4 ? hi.z : lo.z };
        for (int i = 0; i < 3; i++) {
            const double w = m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + m[i][3];
            l[i] = w < l[i] ? w : l[i];
            h[i] = w > h[i] ? w : h[i];
        }
    }
    double pad = 0.0;
    for (int i = 0; i < 3; i++) {
        const double size = (h[i] - l[i]) + fabs(l[i]) + fabs(h[i]);
        pad = size > pad ? size : pad;
    }
    pad *= 1e-6;   /* about 8 ulps of the largest coordinate or extent */
    *wlo = sr_v3(round_down(l[0] - pad), round_down(l[1] - pad), round_down(l[2] - pad));
    *whi = sr_v3(round_up(h[0] + pad), round_up(h[1] + pad), round_up(h[2] + pad));
}

sr_status sr_levels_build(const sr_scene *scene, sr_levels *lv, sr_bvh *top, sr_error *err)
{
    memset(lv, 0, sizeof *lv);
    memset(top, 0, sizeof *top);
    const uint32_t nm = scene->shared_mesh_count, ni = scene->instance_count;
    lv->meshes = calloc(nm ? nm : 1u, sizeof *lv->meshes);
    lv->instances = calloc(ni ? ni : 1u, sizeof *lv->instances);
    const uint64_t n_top = (uint64_t)scene->prim_count + ni;
    sr_prim *in = n_top <= 0x7fffffffu ? malloc((size_t)(n_top ? n_top : 1u) * sizeof *in) : NULL;
    if (!lv->meshes || !lv->instances || !in) {
        free(in);
        sr_levels_free(lv);
        return n_top > 0x7fffffffu
                   ? sr_fail(err, SR_ERR_INPUT, "BVH: %llu primitives and instances is more than the %u supported; split "
                             "the scene", (unsigned long long)n_top, 0x7fffffffu)
                   : sr_fail(err, SR_ERR_RUNTIME, "out of host memory for %u instances", ni);
    }
    lv->mesh_count = nm;
    lv->instance_count = ni;
    sr_status st = SR_OK;
    for (uint32_t k = 0; !st && k < nm; k++) {
        const sr_shared_mesh *sm = &scene->shared_meshes[k];
        st = sr_bvh_build_sah(scene->shared_prims + sm->first, sm->count, &lv->meshes[k], err);
        if (!st && lv->meshes[k].node_count == 0)
            st = sr_fail(err, SR_ERR_INPUT, "instanced mesh %u has no triangles; expected a mesh with at least one", k);
    }
    /* the top level's input: the scene's prims, then one proxy per instance */
    if (scene->prim_count) memcpy(in, scene->prims, (size_t)scene->prim_count * sizeof *in);
    for (uint32_t k = 0; !st && k < ni; k++) {
        const sr_mesh_instance *si = &scene->instances[k];
        sr_instance *o = &lv->instances[k];
        double inv[3][4];
        if (si->mesh >= nm || !affine_inverse(si->m, inv)) {
            st = sr_fail(err, SR_ERR_INPUT, "instance %u: its transform is singular or its mesh %u unknown", k, si->mesh);
            break;
        }
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) {
                o->to_world[4 * i + j] = (float)si->m[i][j];
                o->to_object[4 * i + j] = (float)inv[i][j];
            }
        o->mirrors = sr_affine_det(si->m) < 0.0;
        const sr_bvh_node *root = &lv->meshes[si->mesh].nodes[0];
        sr_prim *p = &in[scene->prim_count + k];
        memset(p, 0, sizeof *p);
        p->kind = SR_PRIM_INSTANCE;
        p->material = k;
        placed_box(si->m, root->lo, root->hi, &p->a, &p->b);
    }
    if (!st) st = sr_bvh_build_sah(in, (uint32_t)n_top, top, err);
    free(in);
    if (st) {
        sr_bvh_free(top);
        sr_levels_free(lv);
        return st;
    }
    lv->instance_ids = top->prim_count;
    return SR_OK;
}

sr_status sr_levels_join(const sr_scene *scene, sr_levels *lv, const sr_bvh *top, const sr_tri_attr *top_attrs,
                         sr_error *err)
{
    uint64_t prims = top->prim_count, nodes = top->node_count;
    for (uint32_t k = 0; k < lv->mesh_count; k++) {
        prims += lv->meshes[k].prim_count;
        nodes += lv->meshes[k].node_count;
    }
    /* hit ids: the top level's, then every instance's mesh prims in turn */
    uint64_t ids = top->prim_count;
    for (uint32_t k = 0; k < lv->instance_count; k++) ids += lv->meshes[scene->instances[k].mesh].prim_count;
    if (ids > SR_MAX_PLACED_PRIMS)
        return sr_fail(err, SR_ERR_INPUT, "the scene's %u instances place %llu triangles and primitives in all, more "
                       "than the %u a hit can be numbered by; use fewer instances or smaller meshes", lv->instance_count,
                       (unsigned long long)ids, SR_MAX_PLACED_PRIMS);
    const bool with_attrs = top_attrs || scene->shared_attrs;
    lv->prims = malloc((size_t)prims * sizeof *lv->prims);
    lv->nodes = malloc((size_t)nodes * sizeof *lv->nodes);
    lv->attrs = with_attrs ? calloc((size_t)prims, sizeof *lv->attrs) : NULL;
    uint32_t *mesh_node = malloc((lv->mesh_count ? lv->mesh_count : 1u) * sizeof *mesh_node);
    uint32_t *mesh_prim = malloc((lv->mesh_count ? lv->mesh_count : 1u) * sizeof *mesh_prim);
    if (!lv->prims || !lv->nodes || (with_attrs && !lv->attrs) || !mesh_node || !mesh_prim) {
        free(mesh_node);
        free(mesh_prim);
        return sr_fail(err, SR_ERR_RUNTIME, "out of host memory joining the BVH's two levels (%llu prims, %llu nodes)",
                       (unsigned long long)prims, (unsigned long long)nodes);
    }
    memcpy(lv->prims, top->prims, (size_t)top->prim_count * sizeof *lv->prims);
    memcpy(lv->nodes, top->nodes, (size_t)top->node_count * sizeof *lv->nodes);
    if (top_attrs) memcpy(lv->attrs, top_attrs, (size_t)top->prim_count * sizeof *lv->attrs);
    uint32_t np = top->prim_count, nn = top->node_count;
    for (uint32_t k = 0; k < lv->mesh_count; k++) {
        const sr_bvh *b = &lv->meshes[k];
        const sr_shared_mesh *sm = &scene->shared_meshes[k];
        mesh_node[k] = nn;
        mesh_prim[k] = np;
        for (uint32_t i = 0; i < b->node_count; i++) {
            sr_bvh_node n = b->nodes[i];
            n.index += n.count > 0 ? np : nn;   /* a leaf's first prim; an interior's right child */
            lv->nodes[nn + i] = n;
        }
        memcpy(lv->prims + np, b->prims, (size_t)b->prim_count * sizeof *lv->prims);
        if (scene->shared_attrs)
            for (uint32_t i = 0; i < b->prim_count; i++) lv->attrs[np + i] = scene->shared_attrs[sm->first + b->order[i]];
        np += b->prim_count;
        nn += b->node_count;
    }
    uint32_t id = top->prim_count;
    for (uint32_t k = 0; k < lv->instance_count; k++) {
        sr_instance *o = &lv->instances[k];
        const uint32_t m = scene->instances[k].mesh;
        o->root = mesh_node[m];
        o->first_id = id;
        o->id_shift = id - mesh_prim[m];
        id += lv->meshes[m].prim_count;
    }
    free(mesh_node);
    free(mesh_prim);
    for (uint32_t k = 0; k < lv->mesh_count; k++) sr_bvh_free(&lv->meshes[k]);   /* copied: not needed again */
    lv->prim_count = np;
    lv->node_count = nn;
    return SR_OK;
}

void sr_levels_free(sr_levels *lv)
{
    if (!lv) return;
    for (uint32_t k = 0; lv->meshes && k < lv->mesh_count; k++) sr_bvh_free(&lv->meshes[k]);
    free(lv->meshes);
    free(lv->instances);
    free(lv->prims);
    free(lv->nodes);
    free(lv->attrs);
    memset(lv, 0, sizeof *lv);
}
