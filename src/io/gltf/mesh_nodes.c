/* mesh_nodes.c: a glTF file's node hierarchy walked for a caller that takes instances
 * (sr_mesh_opts.shared; mesh.c decides when): each node's matrix composed with ours in double,
 * a mesh that two or more nodes place read once and placed by instances, the others copied. */
#include "../meshes/mesh_emit.h"
#include "../../base/affine.h"
#include "../../base/mem_limits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper node hierarchies are refused (the walk recurses); glTF's checks (mesh_check_gltf.h)
 * already bound them at 1000 levels below a root, and assimp adds one above. */
#define SR_NODE_DEPTH_MAX 1024

/* a (row-major 3x4, affine) times b */
static void affine_mul(const double a[3][4], const double b[3][4], double out[3][4])
{
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 4; j++)
            out[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j] + (j == 3 ? a[i][3] : 0.0);
    }
}

/* Our transform as a matrix: the general one, or scale, then rotate, then translate. */
static void xform_matrix(const sr_mesh_xform *t, double m[3][4])
{
    if (t->affine) {
        memcpy(m, t->m, sizeof t->m);
        return;
    }
    for (int j = 0; j < 3; j++) {
        double c[3] = { 0, 0, 0 };
        c[j] = t->scale;
        sr_rotation_apply(&t->rot, &c[0], &c[1], &c[2]);
        for (int i = 0; i < 3; i++) m[i][j] = c[i];
    }
    m[0][3] = t->tx;
    m[1][3] = t->ty;
    m[2][3] = t->tz;
}

typedef struct node_walk {
    const sr_mesh_emit_ctx *ec;
    const struct aiScene *sc;
    uint32_t *uses;          /* per aiMesh: how many nodes place it                       */
    int32_t *shared_id;      /* per aiMesh: its shared mesh, -1 not yet read, -2 none      */
    bool *instanced;         /* per aiMesh: placed by instances                           */
    sr_mesh_shared *sh;
    bool with_attrs;         /* the caller keeps attributes (sr_mesh_load_ex's attrs)      */
    sr_prim *prims; sr_tri_attr *at; size_t *kept;   /* the flattened triangles        */
    bool placed_any;
    bool oom;
} node_walk;


/* Each node under n (world: its parent's matrix), depth first: count (counting) or place its
 * meshes. False when the hierarchy is deeper than SR_NODE_DEPTH_MAX. */
static bool walk_nodes(node_walk *w, const struct aiNode *n, const double parent[3][4], int depth, bool counting)
{
    if (!n) return true;
    if (depth > SR_NODE_DEPTH_MAX) return false;
    const struct aiMatrix4x4 *l = &n->mTransformation;
    const double local[3][4] = { { l->a1, l->a2, l->a3, l->a4 }, { l->b1, l->b2, l->b3, l->b4 }, { l->c1, l->c2, l->c3, l->c4 } };
    double world[3][4];
    affine_mul(parent, local, world);
    for (unsigned k = 0; k < n->mNumMeshes && !w->oom; k++) {
        const unsigned m = n->mMeshes[k];
        if (m >= w->sc->mNumMeshes) continue;
        if (counting) {
            if (w->uses[m] < UINT32_MAX) w->uses[m]++;
            continue;
        }
        const struct aiMesh *mesh = w->sc->mMeshes[m];
        if (!w->instanced[m]) {   /* copied, placed by this node */
            sr_mesh_transform mt;
            memset(&mt, 0, sizeof mt);
            mt.affine = 1;
            memcpy(mt.m, world, sizeof mt.m);
            const double det = sr_affine_det(world);
            if (!(fabs(det) > 0.0) || !isfinite(det)) continue;   /* flattened to nothing */
            const sr_mesh_xform t = sr_mesh_xform_make(&mt);
            sr_mesh_emit(w->ec, mesh, m, &t, w->prims, w->at, w->kept);
            continue;
        }
        if (w->shared_id[m] == -1) {   /* first placement: the mesh in its own space */
            sr_mesh_shared *sh = w->sh;
            sr_mesh_transform id;
            memset(&id, 0, sizeof id);
            id.affine = 1;
            id.m[0][0] = id.m[1][1] = id.m[2][2] = 1.0;
            const sr_mesh_xform t = sr_mesh_xform_make(&id);
            size_t end = *sh->count;
            sr_mesh_emit(w->ec, mesh, m, &t, *sh->prims, w->with_attrs ? *sh->attrs : NULL, &end);
            if (end == *sh->count) {
                w->shared_id[m] = -2;   /* nothing with an area: nothing to place */
                continue;
            }
            if (!sr_mesh_grow_pow2((void **)sh->meshes, sizeof **sh->meshes, *sh->mesh_count)) {
                w->oom = true;
                return true;
            }
            (*sh->meshes)[*sh->mesh_count].first = *sh->count;
            (*sh->meshes)[*sh->mesh_count].count = (uint32_t)(end - *sh->count);
            *sh->count = (uint32_t)end;
            w->shared_id[m] = (int32_t)(*sh->mesh_count)++;
        }
        if (w->shared_id[m] < 0) continue;
        const double det = sr_affine_det(world);
        bool finite = true;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) finite &= isfinite(world[i][j]) != 0;
        if (!(fabs(det) > 0.0) || !isfinite(det) || !finite) continue;   /* a node that squashes it flat */
        if (!sr_mesh_grow_pow2((void **)w->sh->instances, sizeof **w->sh->instances, *w->sh->instance_count)) {
            w->oom = true;
            return true;
        }
        sr_mesh_instance *in = &(*w->sh->instances)[(*w->sh->instance_count)++];
        in->mesh = (uint32_t)w->shared_id[m];
        memcpy(in->m, world, sizeof in->m);
        w->placed_any = true;
    }
    for (unsigned c = 0; c < n->mNumChildren; c++)
        if (!walk_nodes(w, n->mChildren[c], world, depth + 1, counting)) return false;
    return true;
}

/* The file's nodes, walked (mesh_import without PreTransformVertices): every mesh that two or
 * more nodes place read once onto the shared prims and placed by
 * an instance per node (our transform composed with the node's, in double); the others
 * placed by each node onto *prims. */
sr_status sr_mesh_place_nodes(const sr_mesh_emit_ctx *ec, const struct aiScene *sc, const char *path, const sr_mesh_transform *xf,
                             bool need_attrs, sr_prim **prims, sr_tri_attr **attrs, size_t *kept, bool *placed_any,
                             sr_error *err)
{
    sr_mesh_shared *sh = ec->opts->shared;
    const unsigned nm = sc->mNumMeshes;
    node_walk w;
    memset(&w, 0, sizeof w);
    w.ec = ec;
    w.sc = sc;
    w.sh = sh;
    w.uses = calloc(nm + 1u, sizeof *w.uses);
    w.shared_id = malloc((nm + 1u) * sizeof *w.shared_id);
    w.instanced = calloc(nm + 1u, sizeof *w.instanced);
    if (!w.uses || !w.shared_id || !w.instanced) {
        free(w.uses); free(w.shared_id); free(w.instanced);
        return sr_fail(err, SR_ERR_RUNTIME, "out of memory placing the nodes of mesh file %s", path);
    }
    const sr_mesh_xform ours = sr_mesh_xform_make(xf);
    double root[3][4];
    xform_matrix(&ours, root);
    sr_status st = SR_OK;
    if (!walk_nodes(&w, sc->mRootNode, root, 0, true))
        st = sr_fail(err, SR_ERR_INPUT, "mesh file %s: its node hierarchy is deeper than %d; expected a shallower one",
                     path, SR_NODE_DEPTH_MAX);
    /* what goes where: copies (triangles x nodes) and shared meshes (triangles once, placed
     * by an instance per node), all counted before anything is placed */
    uint64_t flat = 0, shared = 0, placements = 0, placed = 0, uses = 0;   /* placements: instanced */
    for (unsigned m = 0; !st && m < nm; m++) {
        w.shared_id[m] = -1;
        const struct aiMesh *mesh = sc->mMeshes[m];
        if (!mesh || !mesh->mFaces || !mesh->mVertices || !w.uses[m]) continue;
        uint64_t tris = 0;
        for (unsigned f = 0; f < mesh->mNumFaces; f++) tris += mesh->mFaces[f].mNumIndices == 3;
        w.instanced[m] = w.uses[m] > 1;
        if (w.instanced[m]) {
            shared += tris;
            placements += w.uses[m];
        } else {
            flat += tris * w.uses[m];
        }
        placed += tris * w.uses[m];
        uses += w.uses[m];
    }
    const uint64_t have = *kept, have_shared = *sh->count, have_instances = *sh->instance_count;
    if (!st && (have + flat > SR_MAX_PRIMS || have_shared + shared > SR_MAX_PRIMS))
        st = sr_fail(err, SR_ERR_INPUT, "mesh file %s places %llu triangles (and %llu more once, instanced); a scene holds "
                     "at most %u primitives", path, (unsigned long long)flat, (unsigned long long)shared, SR_MAX_PRIMS);
    /* every placement's triangles get a hit id of their own: counted here, not after the BVHs */
    uint64_t placed_before = have + have_instances;   /* the top level's prims and instance proxies */
    for (uint64_t k = 0; !st && k < have_instances; k++) placed_before += (*sh->meshes)[(*sh->instances)[k].mesh].count;
    if (!st && placed_before + placements + placed > SR_MAX_PLACED_PRIMS) {
        char before[64] = "";
        if (placed_before) snprintf(before, sizeof before, " on top of the scene's %llu", (unsigned long long)placed_before);
        st = sr_fail(err, SR_ERR_INPUT, "mesh file %s places %llu triangles in all (%llu placements of its meshes by its "
                     "nodes)%s, more than the %u a hit can be numbered by; expected fewer nodes or smaller meshes", path,
                     (unsigned long long)placed, (unsigned long long)uses, before, SR_MAX_PLACED_PRIMS);
    }
    if (!st) {
        const size_t attr_bytes = (attrs && (need_attrs || *attrs || *sh->attrs) ? sizeof(sr_tri_attr) : 0) +
                                  (ec->vts ? sizeof(sr_tri_tangent) : 0);   /* at most */
        char *what = sr_format("mesh file %s (%llu triangles placed, %llu instanced by %llu placements, then the BVHs)",
                               path, (unsigned long long)flat, (unsigned long long)shared,
                               (unsigned long long)placements);
        /* an instance per placement, and the top level's BVH over them and the placed copies */
        st = what ? sr_check_host_memory((flat + shared) * (sizeof(sr_prim) + attr_bytes) +
                                         placements * sizeof(sr_mesh_instance) +
                                         sr_bvh_build_bytes(have + flat + have_instances + placements) +
                                         sr_bvh_build_bytes(have_shared + shared), what, "", err)
                  : sr_fail(err, SR_ERR_RUNTIME, "out of memory loading mesh file %s", path);
        free(what);
    }
    if (!st) {
        sr_prim *g = realloc(*prims, (size_t)(have + flat ? have + flat : 1u) * sizeof *g);
        if (g) *prims = g;
        sr_prim *gs = g ? realloc(*sh->prims, (size_t)(have_shared + shared ? have_shared + shared : 1u) * sizeof *gs) : NULL;
        if (gs) *sh->prims = gs;
        const bool ok = g && gs && sr_mesh_attrs_grow(attrs, need_attrs, have, have + flat ? have + flat : 1u) &&
                        (!attrs || sr_mesh_attrs_grow(sh->attrs, need_attrs, have_shared,
                                              have_shared + shared ? have_shared + shared : 1u));
        if (!ok) st = sr_fail(err, SR_ERR_RUNTIME, "out of memory loading mesh file %s", path);
    }
    if (!st) {
        w.prims = *prims;
        w.at = attrs ? *attrs : NULL;
        w.kept = kept;
        w.with_attrs = attrs != NULL;   /* (without, the shared mesh gets none either) */
        walk_nodes(&w, sc->mRootNode, root, 0, false);
        if (w.oom) st = sr_fail(err, SR_ERR_RUNTIME, "out of memory placing the nodes of mesh file %s", path);
    }
    *placed_any = w.placed_any;
    free(w.uses);
    free(w.shared_id);
    free(w.instanced);
    return st;
}
