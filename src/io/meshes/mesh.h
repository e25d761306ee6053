/* mesh.h: triangle meshes from files (OBJ, PLY, STL, glTF, GLB: through the assimp C API, or the
 * project's own readers for plain binary PLY, GLB and OBJ files, mesh_direct.h). */
#ifndef SR_MESH_H
#define SR_MESH_H

#include <stddef.h>
#include "../../base/status.h"
#include "../../../kernels/core/types.h"

typedef struct sr_mesh_transform {
    sr_vec3 translate;
    float scale;           /* uniform                                                     */
    sr_vec3 rotate_deg;    /* Euler angles in degrees, applied X, then Y, then Z          */
    /* affine != 0: the general transform m instead (row-major 3x4: p' = m[i][0..2] . p +
     * m[i][3]), invertible; normals go through its inverse transpose. */
    int affine;
    double m[3][4];
} sr_mesh_transform;

/* Which normals a mesh is shaded with ("normals" in the scene). */
typedef enum sr_mesh_normals {
    SR_NORMALS_AUTO = 0,   /* the file's vertex normals when it has them, else flat          */
    SR_NORMALS_FILE,       /* the file's vertex normals; a file without them is an error     */
    SR_NORMALS_FLAT,       /* the geometric normal of each triangle                           */
    SR_NORMALS_SMOOTH,     /* generated: vertex normals averaged over faces within crease_deg */
} sr_mesh_normals;

/* An image a file material uses: a file (resolved against the mesh file's folder) or an image
 * embedded in the file (a GLB buffer view or a data URI), copied out of the import. */
typedef struct sr_file_texture {
    char *path;            /* malloc'd, or NULL                                           */
    unsigned char *bytes;  /* malloc'd embedded image (PNG or JPEG), or NULL              */
    size_t len;
    char name[64];         /* an embedded image's name in messages: "embedded image 2"    */
    uint32_t wrap;         /* SR_WRAP_*: clamp where the file clamps both axes (a glTF
                            * sampler's CLAMP_TO_EDGE, MTL -clamp on), else repeat        */
    int odd_wrap;          /* the file asks for a wrap that is not that (mirrored repeat,
                            * or a different mode per axis): repeated, and noticed        */
    uint32_t filter;       /* SR_FILTER_*: nearest where a glTF sampler asks for it       */
    int has_xf;            /* a UV transform of its own (sr_texture.has_xf, xf)           */
    float xf[6];
} sr_file_texture;

/* The images of a file material, by what they stand for. */
enum { SR_FTEX_BASE = 0,   /* base colour / diffuse (sRGB)                                  */
       SR_FTEX_MR,         /* glTF metallic-roughness: G = roughness, B = metallic (linear)   */
       SR_FTEX_EMIT,       /* emission (sRGB)                                                 */
       SR_FTEX_NORMAL,     /* glTF tangent-space normal map (linear)                          */
       SR_FTEX_ALPHA,      /* glTF alpha (MASK, BLEND): the base colour image's alpha channel  */
       SR_FTEX_COUNT };

/* A material read from a mesh file ("material": "file"): the project material it becomes and
 * the images its colour, metallic-roughness and emission come from, if any. */
typedef struct sr_file_material {
    char name[96];
    sr_material m;
    sr_file_texture tex[SR_FTEX_COUNT];   /* sr_file_materials_free frees them */
} sr_file_material;

/* Free n file materials (what sr_mesh_opts.file_mats received) and the texture paths they own. */
void sr_file_materials_free(sr_file_material *fm, uint32_t n);

/* Progress of a mesh read: fraction in [0, 1] of the file read; a nonzero return stops the
 * read (SR_INTERRUPTED). Called from the reading thread. */
typedef int (*sr_mesh_progress_fn)(void *ctx, double fraction);

/* Which reader takes a file: binary PLY and GLB files that hold one plain triangle mesh are
 * read directly (mesh_direct.h), everything else by assimp; SR_MESH_READER_ASSIMP sends every
 * file to assimp (tests compare the two). */
typedef enum sr_mesh_reader { SR_MESH_READER_AUTO = 0, SR_MESH_READER_ASSIMP } sr_mesh_reader;

/* A mesh placed several times (docs/scene-format.md, "Instances"): read once, in its own
 * space, as prims [first, first + count) of the scene's shared prims. */
typedef struct sr_shared_mesh {
    uint32_t first, count;
} sr_shared_mesh;

/* One placement of a shared mesh: world = m (p, 1), row-major 3x4, invertible. */
typedef struct sr_mesh_instance {
    uint32_t mesh;               /* index into the shared meshes                          */
    double m[3][4];
} sr_mesh_instance;

/* Where a glTF file's meshes that several of its nodes place go (sr_mesh_opts.shared): each
 * once, in its own space, onto the shared prims (and attributes, as *attrs in
 * sr_mesh_load_ex), with one instance per node; the arrays grow to a power of two (the
 * capacity of n entries is the next power of two at or above n). */
typedef struct sr_mesh_shared {
    sr_prim **prims; sr_tri_attr **attrs; uint32_t *count;
    sr_shared_mesh **meshes; uint32_t *mesh_count;
    sr_mesh_instance **instances; uint32_t *instance_count;
} sr_mesh_shared;

typedef struct sr_mesh_opts {
    sr_mesh_normals normals;
    float crease_deg;      /* SR_NORMALS_SMOOTH: faces meeting at a larger angle stay sharp   */
    int keep_uv;           /* keep the first UV channel (a textured material needs it)        */
    /* "material": "file": when file_mats is set, the file's materials are read into
     * *file_mats (malloc'd, *file_mat_count of them; sr_file_materials_free) and triangle i of the file's material k
     * gets material index `material` + k. */
    sr_file_material **file_mats;
    uint32_t *file_mat_count;
    /* When set, what the file holds that the renderer does not use, as one line (or ""). */
    char *notice;
    size_t notice_cap;
    /* The scene reads the file's cameras, lights and animations itself (a glTF scene): the
     * notice leaves them to it. */
    int scene_read;
    sr_mesh_progress_fn progress;   /* NULL: none                                               */
    void *progress_ctx;
    sr_mesh_reader reader;
    /* When set, a glTF file's meshes that several of its nodes place are instanced there
     * (emissive or cut-out ones aside); NULL: every node's copy is a triangle of *prims. */
    sr_mesh_shared *shared;
    /* When set (with file_mats), the per-vertex tangents of triangles whose material has a
     * normal map (the file's glTF TANGENT, else generated: mesh_tangents.h) are appended to
     * *tangents (capacity: the next power of two at or above *tangent_count), and each such
     * triangle's attributes hold 1 + its index (SR_ATTR_TANGENT_SHIFT). */
    sr_tri_tangent **tangents;
    uint32_t *tangent_count;
} sr_mesh_opts;

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

/* The same with options (NULL: automatic normals, no UVs) and per-triangle attributes:
 * *attrs is NULL or holds one sr_tri_attr per prim in *prims (as many as *count). It is
 * created when this mesh has normals or UVs to keep (earlier prims get empty entries) and
 * grown with the prims whenever it exists. */
sr_status sr_mesh_load_ex(const char *path, const sr_mesh_transform *xf, uint32_t material, const sr_mesh_opts *opts,
                          sr_prim **prims, uint32_t *count, sr_tri_attr **attrs, sr_error *err);

/* A program-wide listener to mesh reads (the render command's progress line, the viewer's
 * loading screen): told the file and the fraction read of every mesh whose options name no
 * progress callback of their own; a nonzero answer stops the read (SR_INTERRUPTED). NULL
 * removes it. Set it before loading starts; reads call it from their own thread. */
typedef int (*sr_mesh_listener_fn)(void *ctx, const char *path, double fraction);
void sr_mesh_listen(sr_mesh_listener_fn fn, void *ctx);

/* How many mesh files the direct readers (not assimp) have read in this process: tests check
 * which reader took a file. */
uint32_t sr_mesh_direct_loads(void);

#endif
