/* mesh_tangents.h: per-vertex tangents of a normal-mapped mesh, in MikkTSpace's convention
 * (glTF's): the file's own (glTF TANGENT, which assimp passes on as mTangents with
 * mBitangents = cross(N, T) * w), else generated from the positions, normals and first UV set.
 *
 *   sr_vertex_tangents vt;
 *   if (sr_vertex_tangents_make(mesh, &vt)) { ... sr_vertex_tangent(&vt, face, vertex, t, &w) ...;
 *       sr_vertex_tangents_free(&vt); }
 */
#ifndef SR_MESH_TANGENTS_H
#define SR_MESH_TANGENTS_H

#include <stdbool.h>

struct aiMesh;

typedef struct sr_vertex_tangents {
    float *v;                  /* [vertex][side][4]: unit tangent xyz and handedness w (0: none) */
    unsigned char *side;       /* [face]: which of a vertex's two tangents the face uses         */
    unsigned vertex_count, face_count;
    int from_file;             /* the file's TANGENT, not generated                             */
} sr_vertex_tangents;

/* The tangents of mesh (in its own space), or all empty when it has neither tangents nor
 * UVs. False only when memory runs out. */
bool sr_vertex_tangents_make(const struct aiMesh *mesh, sr_vertex_tangents *out);

/* Face f's tangent at its vertex v: false when there is none (degenerate UVs, a non-finite
 * or zero tangent in the file). */
bool sr_vertex_tangent(const sr_vertex_tangents *vt, unsigned f, unsigned v, float t[3], float *w);

void sr_vertex_tangents_free(sr_vertex_tangents *vt);

#endif
