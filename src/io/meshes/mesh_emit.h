/* mesh_emit.h: what mesh.c (the import and its triangles) and mesh_nodes.c (a glTF file's
 * node walk) share: our transform, in double, and the triangles of one import as they are
 * emitted. Internal to src/io. */
#ifndef SR_MESH_EMIT_H
#define SR_MESH_EMIT_H

#include "mesh.h"
#include "../gltf/gltf_materials.h"
#include "mesh_tangents.h"
#include "../../base/rotation.h"

#include <assimp/scene.h>
#include <stdbool.h>

/* Our transform: scale, rotation and translation, or a general affine matrix. */
typedef struct sr_mesh_xform {
    double scale;
    sr_rotation rot;
    double tx, ty, tz;
    int affine;            /* a general transform: m, and n (the inverse transpose) for normals */
    double m[3][4], n[3][3];
} sr_mesh_xform;

/* The transform of xf, worked in double. */
sr_mesh_xform sr_mesh_xform_make(const sr_mesh_transform *xf);

/* Where a normal-mapped triangle's tangents go: the scene's table (sr_mesh_opts.tangents),
 * whose capacity is the next power of two at or above its count. */
typedef struct sr_mesh_tan_sink {
    sr_tri_tangent **items;
    uint32_t *count;
    bool oom;
} sr_mesh_tan_sink;

/* What the triangles of one import share as they are emitted (mesh_import). */
typedef struct sr_mesh_emit_ctx {
    uint32_t material;
    const sr_mesh_opts *opts;
    const sr_gltf_materials *gm;
    bool use_normals, use_uv, mapped;
    const sr_vertex_tangents *vts;   /* per aiMesh (normal-mapped ones), or NULL    */
    sr_mesh_tan_sink *sink;
} sr_mesh_emit_ctx;

/* Mesh `mesh` (index mesh_index of its file) placed by t: its triangles with an area onto
 * out[*kept...] (and their attributes onto at, when given), *kept advanced. */
void sr_mesh_emit(const sr_mesh_emit_ctx *e, const struct aiMesh *mesh, unsigned mesh_index, const sr_mesh_xform *t,
                  sr_prim *out, sr_tri_attr *at, size_t *kept);

/* Grow *attrs (when it exists or `need`) to `total` entries, zeroing from `from`. */
bool sr_mesh_attrs_grow(sr_tri_attr **attrs, bool need, size_t from, size_t total);

/* Room for one more entry in an array whose capacity is the next power of two at or above
 * its count (sr_mesh_shared, the tangent table). */
bool sr_mesh_grow_pow2(void **arr, size_t elem, uint32_t count);

/* The file's nodes, walked (an import without PreTransformVertices): every mesh that two or
 * more nodes place read once onto the shared prims (ec->opts->shared) and placed by an
 * instance per node, our transform xf composed with the node's in double; the others placed
 * by each node onto *prims (*kept of them so far). *placed_any: whether any instance was
 * placed. Errors name `path`. */
sr_status sr_mesh_place_nodes(const sr_mesh_emit_ctx *ec, const struct aiScene *sc, const char *path,
                              const sr_mesh_transform *xf, bool need_attrs, sr_prim **prims, sr_tri_attr **attrs,
                              size_t *kept, bool *placed_any, sr_error *err);

#endif
