/* mesh.h: triangle meshes from files (OBJ, PLY, glTF, ... through the assimp C API). */
#ifndef SR_MESH_H
#define SR_MESH_H

#include "status.h"
#include "../kernels/types.h"

typedef struct sr_mesh_transform {
    sr_vec3 translate;
    float scale;           /* uniform                                                     */
    sr_vec3 rotate_deg;    /* Euler angles in degrees, applied X, then Y, then Z          */
} sr_mesh_transform;

/* Load every triangle of the file at `path`, transformed, as SR_PRIM_TRIANGLE prims with
 * `material`. Appends to *prims (realloc'd; *count updated). An unreadable file, a file
 * assimp cannot parse, or one without triangles is SR_ERR_INPUT naming the path. */
sr_status sr_mesh_load(const char *path, const sr_mesh_transform *xf, uint32_t material,
                       sr_prim **prims, uint32_t *count, sr_error *err);

/* The checks sr_mesh_load makes before it imports anything: the file (and every file it
 * refers to: an OBJ's mtllib, a glTF's buffers and images) must be a regular file of a
 * bounded size and not one of the run's outputs (outpath.h); the extension must be one the
 * project accepts. The scene runs it over every mesh before the first import when an output
 * would be overwritten. *size: the file's size; *ref_bytes: the sizes of what it refers to. */
sr_status sr_mesh_inputs_check(const char *path, uint64_t *size, uint64_t *ref_bytes, sr_error *err);

#endif
