/* mesh_direct.h: binary PLY, GLB and plain OBJ files read straight into arrays, without assimp.
 *
 * assimp builds its own scene of the file, runs its steps over it and hands it over to be
 * copied; for a plain triangle mesh that is most of the wait before the first pixel
 * (docs/performance.md, "Time to first pixel"). These readers take only files that hold
 * nothing but one triangle mesh (positions, optionally normals, triangles) and say "not
 * mine" for anything else, which then goes to the checks and assimp as before:
 *
 *   PLY: binary (either byte order); "vertex" then "face" and no other element; vertex
 *       properties x, y, z (float) and optionally nx, ny, nz (float); one face property, the
 *       list vertex_indices (or vertex_index) with an 8, 16 or 32-bit count and 16 or 32-bit
 *       indices; every face a triangle.
 *   GLB: one mesh of one triangle primitive (POSITION as float VEC3, optional indices of 8,
 *       16 or 32 bits, nothing sparse) placed by one node without a transform, its data in the
 *       BIN chunk; no materials, skins, animations, cameras, morph targets or extensions.
 *
 * Both read the whole file once, in order: sr_mesh_direct_open reads the header and checks
 * that the body the header declares fits the file before anything is allocated; then
 * sr_mesh_direct_read fills the caller's arrays. A body that is cut short, a face without
 * three indices or an index past the vertices is SR_ERR_INPUT naming the file and the byte
 * offset or element. */
#ifndef SR_MESH_DIRECT_H
#define SR_MESH_DIRECT_H

#include <stdint.h>
#include <stdio.h>
#include "mesh.h"

typedef enum sr_direct_kind { SR_DIRECT_PLY = 1, SR_DIRECT_GLB } sr_direct_kind;

typedef struct sr_direct_mesh {
    sr_direct_kind kind;
    const char *path;
    uint64_t file_size;
    uint64_t vertex_count, tri_count;
    int has_normals;               /* the file has per-vertex normals (read when nrm is given) */
    /* Where the data are: positions (and normals) as 3 floats at byte offsets off[] of records
     * of `stride` bytes from byte `at` of the file; triangles as records of a count of
     * count_size bytes (0: none, GLB) and 3 indices of index_size bytes from tri_at. */
    int big_endian, count_signed, index_signed;
    uint64_t pos_at, nrm_at, tri_at;
    unsigned pos_stride, nrm_stride, pos_off[3], nrm_off[3];
    unsigned count_size, index_size;
} sr_direct_mesh;

/* 1: the file is one of these readers' (its header is in *m); 0: it is not (leave it to
 * assimp); -1: it is, and it is broken (err says how; SR_ERR_INPUT). ext: ".ply" or ".glb". */
int sr_mesh_direct_open(const char *path, const char *ext, uint64_t file_size, sr_direct_mesh *m, sr_error *err);

/* The format's own part of it (mesh_ply.c, mesh_glb.c): f is the file, at its start. */
int sr_ply_direct_open(FILE *f, sr_direct_mesh *m, sr_error *err);
int sr_glb_direct_open(FILE *f, sr_direct_mesh *m, sr_error *err);

/* An OBJ of vertices and triangles only (mesh_obj.c), read whole: *pos (3 floats a vertex) and
 * *tri (3 vertex indices a triangle, checked) malloc'd. 1: read; 0: not this reader's file
 * (nothing allocated); -1: an index out of range, an I/O error or a stop (err set). */
int sr_obj_direct_read(const char *path, uint64_t file_size, float **pos, uint64_t *nv, uint32_t **tri, uint64_t *nt,
                       sr_mesh_progress_fn progress, void *ctx, sr_error *err);

/* Read the data: pos gets 3 floats per vertex, nrm (NULL: not read) 3 per vertex, tri 3
 * vertex indices per triangle (each checked against the vertex count). *polygons is set when a
 * face is not a triangle: the read stops, SR_OK, and the file is assimp's. progress (may be
 * NULL) is told the fraction read; a nonzero answer stops the read with SR_INTERRUPTED. */
sr_status sr_mesh_direct_read(const sr_direct_mesh *m, float *pos, float *nrm, uint32_t *tri, int *polygons,
                              sr_mesh_progress_fn progress, void *ctx, sr_error *err);

#endif
