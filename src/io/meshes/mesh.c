/* mesh.c: triangle meshes through the assimp C API, or, for binary PLY, GLB and plain OBJ
 * files of one triangle mesh, through the direct readers (mesh_direct.h), which give the same
 * triangles faster. Node transforms are baked in by assimp (PreTransformVertices); ours (scale,
 * rotate X/Y/Z, translate, or a general affine matrix) is applied in double and then rounded
 * once to float. Points, lines and degenerate triangles are skipped. A glTF file whose nodes
 * place a mesh more than once, read for a caller that takes instances (sr_mesh_opts.shared),
 * is walked node by node instead (mesh_nodes.c): such a mesh is read once and placed by
 * instances, the rest placed by each node's matrix composed with ours in double. */
#include "mesh.h"
#include "../../base/affine.h"
#include "../../base/mem_limits.h"
#include "mesh_check.h"
#include "mesh_direct.h"
#include "../gltf/gltf_materials.h"
#include "mesh_materials.h"
#include "mesh_tangents.h"
#include "mesh_emit.h"
#include "../gltf/gltf_scene.h"
#include "../../../kernels/integrators/lights.h"
#include "../../base/interrupt.h"
#include "../output/outpath.h"
#include "../../base/rotation.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Only the steps whose result the renderer uses. ValidateDataStructure runs first and refuses
 * faces whose indices are out of range: assimp's PLY reader does not check them, and the
 * steps after it then read outside the vertex array (SIGSEGV; found by tests/fuzz).
 * Triangulate and PreTransformVertices give the triangles in the file's frame. Joining
 * identical vertices (the slowest step, and it changes no triangle) runs only before smooth
 * normals are generated; points and lines are skipped by face size, not sorted out. */
#define SR_MESH_FLAGS (aiProcess_ValidateDataStructure | aiProcess_Triangulate | aiProcess_PreTransformVertices)


sr_mesh_xform sr_mesh_xform_make(const sr_mesh_transform *xf)
{
    sr_mesh_xform t;
    memset(&t, 0, sizeof t);
    if (xf && xf->affine) {
        const double (*m)[4] = xf->m;
        t.affine = 1;
        memcpy(t.m, xf->m, sizeof t.m);
        /* cofactors / det: the inverse transpose (the caller checked det != 0) */
        const double det = sr_affine_det(m);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
                t.n[i][j] = (m[i1][j1] * m[i2][j2] - m[i1][j2] * m[i2][j1]) / det;
            }
        return t;
    }
    t.scale = xf ? xf->scale : 1.0;
    t.rot = sr_rotation_deg(xf ? xf->rotate_deg : sr_v3s(0.0f));
    t.tx = xf ? xf->translate.x : 0.0;
    t.ty = xf ? xf->translate.y : 0.0;
    t.tz = xf ? xf->translate.z : 0.0;
    return t;
}

/* A file's normal, rotated with the mesh (no scale, no translation; a general transform's
 * inverse transpose) and made unit length; false if it has none. */
static bool xform_normal(const sr_mesh_xform *t, struct aiVector3D v, sr_vec3 *out)
{
    double x = v.x, y = v.y, z = v.z;
    if (t->affine) {
        const double (*n)[3] = t->n;
        const double nx = n[0][0] * x + n[0][1] * y + n[0][2] * z, ny = n[1][0] * x + n[1][1] * y + n[1][2] * z,
                     nz = n[2][0] * x + n[2][1] * y + n[2][2] * z;
        x = nx, y = ny, z = nz;
    } else {
        sr_rotation_apply(&t->rot, &x, &y, &z);
    }
    double len = sqrt(x * x + y * y + z * z);
    if (!(len > 0.0) || !isfinite(len)) return false;
    *out = sr_v3((float)(x / len), (float)(y / len), (float)(z / len));
    return true;
}

/* Scale, then rotate about X, then Y, then Z (right-handed), then translate. */
static sr_vec3 xform_point(const sr_mesh_xform *t, float px, float py, float pz)
{
    if (t->affine) {
        const double (*m)[4] = t->m;
        return sr_v3((float)(m[0][0] * px + m[0][1] * py + m[0][2] * pz + m[0][3]),
                     (float)(m[1][0] * px + m[1][1] * py + m[1][2] * pz + m[1][3]),
                     (float)(m[2][0] * px + m[2][1] * py + m[2][2] * pz + m[2][3]));
    }
    double x = px * t->scale, y = py * t->scale, z = pz * t->scale;
    sr_rotation_apply(&t->rot, &x, &y, &z);
    return sr_v3((float)(x + t->tx), (float)(y + t->ty), (float)(z + t->tz));
}

static sr_vec3 xform_apply(const sr_mesh_xform *t, struct aiVector3D p) { return xform_point(t, p.x, p.y, p.z); }

static bool finite3(sr_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* Faces assimp kept as triangles (points and lines are faces of 1 and 2 indices). */
static size_t count_triangles(const struct aiScene *sc)
{
    size_t n = 0;
    for (unsigned m = 0; m < sc->mNumMeshes; m++) {
        const struct aiMesh *mesh = sc->mMeshes[m];
        if (!mesh || !mesh->mFaces || !mesh->mVertices) continue;
        for (unsigned f = 0; f < mesh->mNumFaces; f++)
            if (mesh->mFaces[f].mNumIndices == 3) n++;
    }
    return n;
}

/* assimp's post-processing rejects a file with no faces at all ("No output meshes"), which
 * says nothing useful to the person: import it raw to tell "empty" from "broken". */
static bool has_no_faces(const char *path)
{
    const struct aiScene *raw = aiImportFile(path, 0);
    if (!raw) return false;
    size_t polys = 0;
    for (unsigned m = 0; m < raw->mNumMeshes; m++) {
        const struct aiMesh *mesh = raw->mMeshes[m];
        if (!mesh || !mesh->mFaces) continue;
        for (unsigned f = 0; f < mesh->mNumFaces; f++)
            if (mesh->mFaces[f].mNumIndices >= 3) polys++;
    }
    aiReleaseImport(raw);
    return polys == 0;
}

sr_status sr_mesh_load(const char *path, const sr_mesh_transform *xf, uint32_t material,
                       sr_prim **prims, uint32_t *count, sr_error *err)
{
    return sr_mesh_load_ex(path, xf, material, NULL, prims, count, NULL, err);
}

/* Grow *attrs (when it exists or `need`) to `total` entries, zeroing from `from`. */
bool sr_mesh_attrs_grow(sr_tri_attr **attrs, bool need, size_t from, size_t total)
{
    if (!attrs || (!*attrs && !need)) return true;
    size_t have = *attrs ? from : 0;
    sr_tri_attr *g = realloc(*attrs, total * sizeof *g);
    if (!g) return false;
    memset(g + have, 0, (total - have) * sizeof *g);
    *attrs = g;
    return true;
}

/* Room for one more entry in an array whose capacity is the next power of two at or above
 * its count (sr_mesh_shared). */
bool sr_mesh_grow_pow2(void **arr, size_t elem, uint32_t count)
{
    if (count & (count - 1u)) return true;
    void *g = realloc(*arr, (count ? 2u * (size_t)count : 1u) * elem);
    if (!g) return false;
    *arr = g;
    return true;
}

/* The extension, lower-cased, when it is one the project accepts, else "". Without one
 * assimp guesses from the content, and a file that merely contains "ply" went to its PLY
 * reader unchecked. Only the formats the project tests are accepted: assimp's other
 * readers leak or worse on malformed input (.3mf, .nff, .ogex, .sib, .zgl in a short fuzz
 * run). */
static void accepted_ext(const char *path, char ext[16])
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    ext[0] = '\0';
    if (dot && (!slash || dot > slash) && strlen(dot) < 16)
        for (size_t i = 0; i <= strlen(dot); i++) ext[i] = (char)tolower((unsigned char)dot[i]);
    static const char *const accepted[] = { ".obj", ".ply", ".stl", ".gltf", ".glb" };
    int known = 0;
    for (size_t k = 0; k < sizeof accepted / sizeof accepted[0]; k++) known |= !strcmp(ext, accepted[k]);
    if (!known || !aiIsExtensionSupported(ext)) ext[0] = '\0';
}

sr_status sr_mesh_inputs_check(const char *path, uint64_t *size, uint64_t *ref_bytes, sr_error *err)
{
    *size = *ref_bytes = 0;
    /* Say why a file cannot be read in the system's words before assimp says it vaguely.
     * O_NONBLOCK: opening a FIFO must not wait for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return sr_fail(err, SR_ERR_INPUT, "cannot read mesh file %s: %s", path, strerror(errno));
    struct stat st;
    int stat_ok = fstat(fd, &st) == 0;
    close(fd);
    if (stat_ok && S_ISDIR(st.st_mode)) return sr_fail(err, SR_ERR_INPUT, "cannot read mesh file %s: it is a directory", path);
    /* A device, FIFO or socket could block or never end (/dev/zero); assimp needs a file. */
    if (!stat_ok || !S_ISREG(st.st_mode))
        return sr_fail(err, SR_ERR_INPUT, "cannot read mesh file %s: not a regular file", path);
    char out[PATH_MAX + 32];
    if (sr_output_guard_match(&st, out, sizeof out))
        return sr_fail(err, SR_ERR_INPUT, "mesh file %s is also the output (%s), which would overwrite it; choose "
                       "another output name", path, out);
    if ((uint64_t)st.st_size > SR_MAX_MESH_BYTES)
        return sr_fail(err, SR_ERR_INPUT, "mesh file %s is %.1f GiB; at most %.1f GiB are supported", path,
                       (double)st.st_size / 1073741824.0, (double)SR_MAX_MESH_BYTES / 1073741824.0);
    char ext[16];
    accepted_ext(path, ext);
    if (!ext[0])
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: unsupported format; expected a name ending in "
                       ".obj, .ply, .stl, .gltf or .glb", path);
    /* What it pulls in, and what its header declares, before anything is imported: read
     * from the file (a glTF's JSON whole), so budgeted first as the import of the file alone. */
    *size = (uint64_t)st.st_size;
    char *what = sr_format("importing mesh file %s (%.1f MiB, about %ux that)", path, (double)*size / 1048576.0,
                           SR_MESH_IMPORT_FACTOR);
    if (!what) return sr_fail(err, SR_ERR_RUNTIME, "out of memory checking mesh file %s", path);
    sr_status mem = sr_check_host_memory(*size * SR_MESH_IMPORT_FACTOR, what, "", err);
    free(what);
    if (mem) return mem;
    return sr_mesh_refs_check(path, ext, *size, ref_bytes, err);
}

/* For sr_mesh_direct_loads; atomic: contexts on several threads load at once. */
static atomic_uint sr_direct_loads;

uint32_t sr_mesh_direct_loads(void) { return atomic_load_explicit(&sr_direct_loads, memory_order_relaxed); }

/* The vertices and triangles of a file the direct readers take (mesh_direct.h): 1 with *pos
 * and *tri malloc'd, 0 when the file is assimp's, -1 on error. has_normals: the file has
 * vertex normals (not read). */
static int direct_arrays(const char *path, const char *ext, uint64_t size, const sr_mesh_opts *opts, uint32_t count,
                         const sr_tri_attr *const *attrs, float **pos, uint64_t *nv, uint32_t **tri, uint64_t *nt,
                         int *has_normals, sr_error *err)
{
    *pos = NULL;
    *tri = NULL;
    *has_normals = 0;
    if (!strcmp(ext, ".obj"))
        return sr_obj_direct_read(path, size, pos, nv, tri, nt, opts->progress, opts->progress_ctx, err);
    sr_direct_mesh m;
    const int r = sr_mesh_direct_open(path, ext, size, &m, err);
    if (r <= 0) return r;
    if (m.has_normals && opts->normals != SR_NORMALS_FLAT) return 0;   /* assimp's way with normals */
    *nv = m.vertex_count;
    *nt = m.tri_count;
    *has_normals = m.has_normals;
    if (count > SR_MAX_PRIMS || m.tri_count > (uint64_t)(SR_MAX_PRIMS - count)) {
        sr_fail(err, SR_ERR_INPUT, "mesh file %s has %llu triangles; a scene holds at most %u primitives", path,
                (unsigned long long)m.tri_count, SR_MAX_PRIMS);
        return -1;
    }
    /* What the read holds at once, and the BVH after it, before any of it is allocated. */
    const uint64_t attr_bytes = (attrs && *attrs) ? sizeof(sr_tri_attr) : 0;
    char *what = sr_format("mesh file %s (%llu vertices and %llu triangles, then a BVH over %llu primitives)", path,
                           (unsigned long long)m.vertex_count, (unsigned long long)m.tri_count,
                           (unsigned long long)(count + m.tri_count));
    if (!what) {
        sr_fail(err, SR_ERR_RUNTIME, "out of memory loading mesh file %s", path);
        return -1;
    }
    const sr_status st = sr_check_host_memory(m.vertex_count * 12u + m.tri_count * (12u + sizeof(sr_prim)) +
                                              (count + m.tri_count) * attr_bytes +
                                              sr_bvh_build_bytes((uint64_t)count + m.tri_count), what, "", err);
    free(what);
    if (st) return -1;
    *pos = malloc((size_t)m.vertex_count * 12u);
    *tri = malloc((size_t)m.tri_count * 12u);
    int polygons = 0;
    if (!*pos || !*tri) sr_fail(err, SR_ERR_RUNTIME, "out of memory loading mesh file %s (%llu triangles)", path,
                                (unsigned long long)m.tri_count);
    else if (!sr_mesh_direct_read(&m, *pos, NULL, *tri, &polygons, opts->progress, opts->progress_ctx, err) && !polygons)
        return 1;
    free(*pos);
    free(*tri);
    *pos = NULL;
    *tri = NULL;
    return polygons ? 0 : -1;   /* polygons: assimp triangulates them */
}

/* A binary PLY, GLB or OBJ of one plain triangle mesh, read without assimp: the same
 * triangles, in the same order, as assimp gives with SR_MESH_FLAGS. *taken = 0: the file (or
 * what is asked of it: UVs, the file's normals or materials, generated normals) is assimp's,
 * and nothing was changed. */
static sr_status mesh_load_direct(const char *path, const char *ext, uint64_t size, const sr_mesh_transform *xf,
                                  uint32_t material, const sr_mesh_opts *opts, sr_prim **prims, uint32_t *count,
                                  sr_tri_attr **attrs, int *taken, sr_error *err)
{
    *taken = 0;
    if (opts->reader == SR_MESH_READER_ASSIMP || opts->file_mats || opts->keep_uv || opts->normals == SR_NORMALS_SMOOTH ||
        opts->normals == SR_NORMALS_FILE)
        return SR_OK;
    float *pos;
    uint32_t *tri;
    uint64_t nv = 0, n = 0;
    int has_normals;
    const int r = direct_arrays(path, ext, size, opts, *count, (const sr_tri_attr *const *)attrs, &pos, &nv, &tri, &n,
                                &has_normals, err);
    if (r < 0) return err->status ? err->status : SR_ERR_INPUT;
    if (r == 0) return SR_OK;
    if (*count > SR_MAX_PRIMS || n > (uint64_t)(SR_MAX_PRIMS - *count)) {
        free(pos);
        free(tri);
        return sr_fail(err, SR_ERR_INPUT, "mesh file %s has %llu triangles; a scene holds at most %u primitives", path,
                       (unsigned long long)n, SR_MAX_PRIMS);
    }
    /* The triangles and, later, the BVH over every primitive, before either is allocated. */
    const uint64_t attr_bytes = (attrs && *attrs) ? sizeof(sr_tri_attr) : 0;
    char *what = sr_format("mesh file %s (%llu triangles, then a BVH over %llu primitives)", path, (unsigned long long)n,
                           (unsigned long long)(*count + n));
    sr_status st = what ? sr_check_host_memory(n * sizeof(sr_prim) + (*count + n) * attr_bytes +
                                               sr_bvh_build_bytes((uint64_t)*count + n), what, "", err)
                        : sr_fail(err, SR_ERR_RUNTIME, "out of memory loading mesh file %s", path);
    free(what);
    if (st) {
        free(pos);
        free(tri);
        return st;
    }
    /* Each vertex transformed once, in place (the same arithmetic as assimp's path per corner). */
    const sr_mesh_xform t = sr_mesh_xform_make(xf);
    for (uint64_t v = 0; v < nv; v++) {
        const sr_vec3 p = xform_point(&t, pos[3 * v], pos[3 * v + 1], pos[3 * v + 2]);
        pos[3 * v] = p.x;
        pos[3 * v + 1] = p.y;
        pos[3 * v + 2] = p.z;
    }
    sr_prim *grown = realloc(*prims, ((size_t)*count + n) * sizeof *grown);
    if (grown) *prims = grown;
    if (!grown || !sr_mesh_attrs_grow(attrs, false, *count, (size_t)*count + n)) {
        free(pos);
        free(tri);
        return sr_fail(err, SR_ERR_RUNTIME, "out of memory loading mesh file %s (%llu triangles)", path,
                       (unsigned long long)n);
    }
    size_t kept = *count;
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t *ix = tri + 3 * i;
        sr_prim p;
        memset(&p, 0, sizeof p);
        p.kind = SR_PRIM_TRIANGLE;
        p.material = material;
        p.a = sr_v3(pos[3 * ix[0]], pos[3 * ix[0] + 1], pos[3 * ix[0] + 2]);
        p.b = sr_v3(pos[3 * ix[1]], pos[3 * ix[1] + 1], pos[3 * ix[1] + 2]);
        p.c = sr_v3(pos[3 * ix[2]], pos[3 * ix[2] + 1], pos[3 * ix[2] + 2]);
        if (!finite3(p.a) || !finite3(p.b) || !finite3(p.c)) continue;
        sr_vec3 nrm = sr_cross(sr_sub(p.b, p.a), sr_sub(p.c, p.a));
        if (!(sr_dot(nrm, nrm) > 0.0f)) continue;   /* zero area (or underflow): no hit */
        grown[kept++] = p;
    }
    free(pos);
    free(tri);
    *taken = 1;
    atomic_fetch_add_explicit(&sr_direct_loads, 1u, memory_order_relaxed);
    if (opts->notice && opts->notice_cap) {
        opts->notice[0] = '\0';
        if (has_normals) sr_list_append(opts->notice, opts->notice_cap, "vertex normals (1 mesh; \"normals\": \"flat\")");
    }
    if (kept == *count)
        return sr_fail(err, SR_ERR_INPUT,
                       "mesh file %s has no triangles with a non-zero area; expected a mesh with faces", path);
    *count = (uint32_t)kept;
    return SR_OK;
}

static sr_status mesh_import(const char *path, const sr_mesh_transform *xf, uint32_t material, const sr_mesh_opts *opts,
                             const sr_gltf_materials *gm, bool walk, sr_prim **prims, uint32_t *count, sr_tri_attr **attrs,
                             sr_error *err);

static sr_status mesh_load(const char *path, const sr_mesh_transform *xf, uint32_t material, const sr_mesh_opts *opts,
                           sr_prim **prims, uint32_t *count, sr_tri_attr **attrs, sr_error *err)
{
    uint64_t size = 0, ref_bytes = 0;
    sr_status mem = sr_mesh_inputs_check(path, &size, &ref_bytes, err);
    if (mem) return mem;
    const uint64_t bytes = size + ref_bytes;
    char ext[16];
    accepted_ext(path, ext);
    char *what = sr_format("importing mesh file %s (%.1f MiB with the files it refers to, about %ux that)", path,
                           (double)bytes / 1048576.0, SR_MESH_IMPORT_FACTOR);
    if (!what) return sr_fail(err, SR_ERR_RUNTIME, "out of memory loading mesh file %s", path);
    mem = sr_check_host_memory(bytes * SR_MESH_IMPORT_FACTOR, what, "", err);
    free(what);
    if (mem) return mem;
    int taken = 0;
    mem = mesh_load_direct(path, ext, size, xf, material, opts, prims, count, attrs, &taken, err);
    if (mem || taken) return mem;
    /* Inputs assimp mishandles, refused before it sees them (mesh_check.h). */
    if (!strcmp(ext, ".ply") && (mem = sr_ply_check(path, err))) return mem;
    if (!strcmp(ext, ".obj") && (mem = sr_obj_check(path, err))) return mem;
    char missing[1024] = "";   /* an OBJ's material files that do not exist */
    if (!strcmp(ext, ".obj") && (mem = sr_obj_mtl_check(path, missing, sizeof missing, err))) return mem;
    if (!strcmp(ext, ".stl") && (mem = sr_stl_check(path, size, err))) return mem;
    if ((!strcmp(ext, ".gltf") || !strcmp(ext, ".glb")) && (mem = sr_gltf_data_check(path, ext, size, err))) return mem;
    /* What assimp does not pass on of a glTF's materials, read from its JSON before the
     * import (so the two are never held at once). */
    sr_gltf_materials gm;
    memset(&gm, 0, sizeof gm);
    if ((!strcmp(ext, ".gltf") || !strcmp(ext, ".glb")) && (mem = sr_gltf_materials_read(path, ext, size, &gm, err)))
        return mem;
    /* a glTF file whose nodes place a mesh more than once, for a caller taking instances */
    bool walk = false;
    if (gm.is_gltf && opts->shared) {
        sr_gltf_scene info;
        sr_error gerr;
        memset(&gerr, 0, sizeof gerr);
        if (sr_gltf_scene_read(path, &info, &gerr) == SR_OK) {
            for (uint32_t k = 0; k < info.mesh_count; k++) walk |= info.mesh_nodes[k] > 1;
            sr_gltf_scene_free(&info);
        }   /* (else the import below says what is wrong) */
    }
    mem = mesh_import(path, xf, material, opts, &gm, walk, prims, count, attrs, err);
    sr_gltf_materials_free(&gm);
    if (!mem && missing[0] && opts->notice && opts->notice_cap && opts->file_mats)
        sr_list_append(opts->notice, opts->notice_cap, "%s", missing);
    return mem;
}


/* Whether mesh's material (a file material) has a normal map. */
static bool normal_mapped(const sr_mesh_opts *o, const struct aiMesh *mesh)
{
    if (!mesh || !o->file_mats || !*o->file_mats || mesh->mMaterialIndex >= *o->file_mat_count) return false;
    const sr_file_texture *nt = &(*o->file_mats)[mesh->mMaterialIndex].tex[SR_FTEX_NORMAL];
    return nt->path || nt->bytes;
}

/* A tangent from the mesh's space into the scene's, as a direction, made unit length. */
static bool xform_tangent(const sr_mesh_xform *t, const float v[3], sr_vec3 *out)
{
    double x = v[0], y = v[1], z = v[2];
    if (t->affine) {
        const double (*m)[4] = t->m;
        const double tx = m[0][0] * x + m[0][1] * y + m[0][2] * z, ty = m[1][0] * x + m[1][1] * y + m[1][2] * z,
                     tz = m[2][0] * x + m[2][1] * y + m[2][2] * z;
        x = tx, y = ty, z = tz;
    } else {
        x *= t->scale, y *= t->scale, z *= t->scale;
        sr_rotation_apply(&t->rot, &x, &y, &z);
    }
    const double len = sqrt(x * x + y * y + z * z);
    if (!(len > 0.0) || !isfinite(len)) return false;
    *out = sr_v3((float)(x / len), (float)(y / len), (float)(z / len));
    return true;
}

/* Whether t mirrors (its 3x3's determinant is negative): the handedness flips with it. */
static bool xform_mirrors(const sr_mesh_xform *t)
{
    if (!t->affine) return t->scale < 0.0;
    return sr_affine_det(t->m) < 0.0;
}

/* Face fi's vertex tangents (placed by t) onto the sink, and their index into a's flags;
 * nothing when a vertex has none (the triangle's own frame then serves). */
static void emit_tangents(sr_mesh_tan_sink *sink, const sr_vertex_tangents *vt, unsigned fi, const unsigned *ix,
                          const sr_mesh_xform *t, bool mirror, sr_tri_attr *a)
{
    sr_tri_tangent tg;
    for (int k = 0; k < 3; k++) {
        float v[3], w;
        if (!sr_vertex_tangent(vt, fi, ix[k], v, &w) || !xform_tangent(t, v, &tg.t[k])) return;
        tg.w[k] = mirror ? -w : w;
    }
    if (*sink->count >= (UINT32_MAX >> SR_ATTR_TANGENT_SHIFT) - 1u) return;
    if (!sr_mesh_grow_pow2((void **)sink->items, sizeof **sink->items, *sink->count)) {
        sink->oom = true;
        return;
    }
    (*sink->items)[*sink->count] = tg;
    a->flags |= (*sink->count + 1u) << SR_ATTR_TANGENT_SHIFT;
    (*sink->count)++;
}

/* mesh's triangles placed by t, onto out[*kept...] (and at, if not NULL); degenerate and
 * non-finite ones skipped. */
void sr_mesh_emit(const sr_mesh_emit_ctx *e, const struct aiMesh *mesh, unsigned mesh_index, const sr_mesh_xform *t, sr_prim *out,
                      sr_tri_attr *at, size_t *kept)
{
    const sr_vertex_tangents *vt = e->vts && e->sink && e->vts[mesh_index].v ? &e->vts[mesh_index] : NULL;
    const bool mirror = vt && xform_mirrors(t);
    const sr_mesh_opts *opts = e->opts;
    const sr_gltf_materials *gm = e->gm;
    const uint32_t material = e->material;
    const bool use_normals = e->use_normals, use_uv = e->use_uv, mapped = e->mapped;
    if (!mesh || !mesh->mFaces || !mesh->mVertices) return;
    for (unsigned fi = 0; fi < mesh->mNumFaces; fi++) {
        const struct aiFace *face = &mesh->mFaces[fi];
        if (face->mNumIndices != 3) continue;
        const unsigned *ix = face->mIndices;
        if (ix[0] >= mesh->mNumVertices || ix[1] >= mesh->mNumVertices || ix[2] >= mesh->mNumVertices)
            continue;
        sr_prim p;
        memset(&p, 0, sizeof p);
        p.kind = SR_PRIM_TRIANGLE;
        p.material = material;
        if (opts->file_mats && mesh->mMaterialIndex < *opts->file_mat_count) p.material = material + mesh->mMaterialIndex;
        p.a = xform_apply(t, mesh->mVertices[ix[0]]);
        p.b = xform_apply(t, mesh->mVertices[ix[1]]);
        p.c = xform_apply(t, mesh->mVertices[ix[2]]);
        if (!finite3(p.a) || !finite3(p.b) || !finite3(p.c)) continue;
        sr_vec3 nrm = sr_cross(sr_sub(p.b, p.a), sr_sub(p.c, p.a));
        if (!(sr_dot(nrm, nrm) > 0.0f)) continue;   /* zero area (or underflow): no hit */
        if (at) {
            sr_tri_attr a;
            memset(&a, 0, sizeof a);
            if (use_normals && mesh->mNormals && xform_normal(t, mesh->mNormals[ix[0]], &a.n[0]) &&
                xform_normal(t, mesh->mNormals[ix[1]], &a.n[1]) && xform_normal(t, mesh->mNormals[ix[2]], &a.n[2]))
                a.flags |= SR_ATTR_NORMALS;
            if (use_uv && mesh->mTextureCoords[0]) {
                /* a glTF material's KHR_texture_transform, baked into the UVs */
                const sr_gltf_material *gx = mesh->mMaterialIndex < gm->count ? &gm->mats[mesh->mMaterialIndex] : NULL;
                for (int k = 0; k < 3; k++) {
                    const struct aiVector3D uv = mesh->mTextureCoords[0][ix[k]];
                    a.uv[2 * k] = isfinite(uv.x) ? uv.x : 0.0f;
                    a.uv[2 * k + 1] = isfinite(uv.y) ? uv.y : 0.0f;
                    if (gx && gx->has_uv_xf) sr_gltf_uv_apply(gx->uv_xf, &a.uv[2 * k], &a.uv[2 * k + 1]);
                }
                a.flags |= SR_ATTR_UV;
                if (mapped && mesh->mMaterialIndex < *opts->file_mat_count) {
                    const sr_file_texture *nt = &(*opts->file_mats)[mesh->mMaterialIndex].tex[SR_FTEX_NORMAL];
                    if (nt->path || nt->bytes) a.flags |= SR_ATTR_NORMAL_MAP;
                    if ((a.flags & SR_ATTR_NORMAL_MAP) && vt) emit_tangents(e->sink, vt, fi, ix, t, mirror, &a);
                }
            }
            if (mapped && mesh->mMaterialIndex < *opts->file_mat_count &&
                (*opts->file_mats)[mesh->mMaterialIndex].m.alpha_mode != SR_ALPHA_OPAQUE)
                a.flags |= SR_ATTR_CUTOUT;
            if (!(a.flags & SR_ATTR_NORMALS)) memset(a.n, 0, sizeof a.n);
            at[*kept] = a;
        }
        out[(*kept)++] = p;
    }
}

/* The import itself (mesh_load has checked the file and read gm, a glTF's material fields). */
static sr_status mesh_import(const char *path, const sr_mesh_transform *xf, uint32_t material, const sr_mesh_opts *opts,
                             const sr_gltf_materials *gm, bool walk, sr_prim **prims, uint32_t *count, sr_tri_attr **attrs,
                             sr_error *err)
{
    sr_status mem;
    char *what;
    unsigned flags = walk ? SR_MESH_FLAGS & ~(unsigned)aiProcess_PreTransformVertices : SR_MESH_FLAGS;
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (opts->normals == SR_NORMALS_SMOOTH) {
        /* assimp's own generator (it merges vertices by position and keeps creases) */
        flags |= aiProcess_JoinIdenticalVertices | aiProcess_GenSmoothNormals | aiProcess_ForceGenNormals;
        if (props) aiSetImportPropertyFloat(props, AI_CONFIG_PP_GSN_MAX_SMOOTHING_ANGLE, opts->crease_deg);
    }
    const struct aiScene *sc = props ? aiImportFileExWithProperties(path, flags, NULL, props) : NULL;
    if (props) aiReleasePropertyStore(props);
    if (!sc) {
        /* copied: the raw import below may overwrite assimp's message */
        char why[400];
        snprintf(why, sizeof why, "%s", aiGetErrorString() && *aiGetErrorString() ? aiGetErrorString() : "unknown error");
        size_t n = strlen(why);
        while (n > 0 && (why[n - 1] == '.' || why[n - 1] == '\n' || why[n - 1] == ' ')) why[--n] = '\0';
        if (sr_interrupt_pending())   /* a stop, not a bad file: no second import */
            return sr_fail(err, SR_INTERRUPTED, "interrupted while reading mesh file %s", path);
        if (has_no_faces(path))
            return sr_fail(err, SR_ERR_INPUT,
                           "mesh file %s has no triangles (no faces at all); expected a mesh with faces", path);
        if (gm && gm->is_gltf) {   /* its structure passed sr_mesh_check_gltf_struct: likely assimp's limit */
            char used[600] = "";
            if (gm->unsupported[0]) snprintf(used, sizeof used, " (it uses %s, which stencilray does not support)", gm->unsupported);
            return sr_fail(err, SR_ERR_INPUT,
                           "cannot read glTF file %s: assimp stopped at \"%s\"; the file's structure passed stencilray's "
                           "checks, so it likely holds something assimp cannot read%s; expected a glTF 2.0 file "
                           "without it (for example exported without animations)",
                           path, why, used);
        }
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s; expected a well-formed OBJ, PLY, STL, glTF or GLB file",
                       path, why);
    }

    size_t n = count_triangles(sc);
    if (n == 0) {
        aiReleaseImport(sc);
        return sr_fail(err, SR_ERR_INPUT,
                       "mesh file %s has no triangles (only points, lines or nothing); expected a mesh with faces", path);
    }
    if (*count > SR_MAX_PRIMS || n > (size_t)(SR_MAX_PRIMS - *count)) {
        aiReleaseImport(sc);
        return sr_fail(err, SR_ERR_INPUT, "mesh file %s has %zu triangles; a scene holds at most %u primitives",
                       path, n, SR_MAX_PRIMS);
    }
    /* Which per-vertex data this mesh keeps. */
    bool file_normals = true, any_uv = false;
    for (unsigned m = 0; m < sc->mNumMeshes; m++) {
        const struct aiMesh *mesh = sc->mMeshes[m];
        if (!mesh || !mesh->mFaces || !mesh->mVertices) continue;
        if (!mesh->mNormals) file_normals = false;
        if (mesh->mTextureCoords[0]) any_uv = true;
    }
    if (opts->normals == SR_NORMALS_FILE && !file_normals) {
        aiReleaseImport(sc);
        return sr_fail(err, SR_ERR_INPUT, "mesh file %s has no vertex normals (OBJ vn, PLY nx ny nz, glTF NORMAL); "
                       "expected a file with normals, or \"normals\": \"smooth\" to generate them or \"flat\"", path);
    }
    const bool use_normals = opts->normals != SR_NORMALS_FLAT && file_normals;
    const bool use_uv = opts->keep_uv && any_uv;
    const bool need_attrs = use_normals || use_uv;
    /* (a normal-mapped triangle's tangents too, at most one entry each) */
    const size_t attr_bytes = (attrs && (need_attrs || *attrs)) ? sizeof(sr_tri_attr) : 0;
    const size_t tan_bytes = attrs && opts->tangents && opts->file_mats && use_uv ? sizeof(sr_tri_tangent) : 0;
    /* The triangles and, later, the BVH over every primitive, before either is allocated
     * (a walk of the nodes sizes its own: place_nodes). */
    sr_prim *grown = *prims;
    if (!walk) {
        what = sr_format("mesh file %s (%zu triangles, then a BVH over %zu primitives)", path, n, (size_t)*count + n);
        if (!what) {
            aiReleaseImport(sc);
            return sr_fail(err, SR_ERR_RUNTIME, "out of memory loading mesh file %s", path);
        }
        mem = sr_check_host_memory((uint64_t)n * (sizeof(sr_prim) + tan_bytes) + ((uint64_t)*count + n) * attr_bytes +
                                   sr_bvh_build_bytes((uint64_t)*count + n), what, "", err);
        free(what);
        if (mem) {
            aiReleaseImport(sc);
            return mem;
        }
        grown = realloc(*prims, ((size_t)*count + n) * sizeof *grown);
        if (!grown) {
            aiReleaseImport(sc);
            return sr_fail(err, SR_ERR_RUNTIME, "out of memory loading mesh file %s (%zu triangles)", path, n);
        }
        *prims = grown;
        if (!sr_mesh_attrs_grow(attrs, need_attrs, *count, (size_t)*count + n)) {
            aiReleaseImport(sc);
            return sr_fail(err, SR_ERR_RUNTIME, "out of memory loading mesh file %s (%zu triangles)", path, n);
        }
    }
    sr_tri_attr *at = attrs ? *attrs : NULL;

    const bool is_gltf = gm->is_gltf != 0;
    unsigned char *used_images = calloc(sc->mNumTextures + 1u, 1);
    if (!used_images) {
        aiReleaseImport(sc);
        return sr_fail(err, SR_ERR_RUNTIME, "out of memory reading the materials of mesh file %s", path);
    }
    if (opts->file_mats) {
        const unsigned nm = sc->mNumMaterials ? sc->mNumMaterials : 1;
        sr_file_material *fm = calloc(nm, sizeof *fm);
        bool ok = fm != NULL;
        for (unsigned k = 0; ok && k < sc->mNumMaterials; k++)
            ok &= sr_mesh_file_material(sc, sc->mMaterials[k], path, is_gltf, k < gm->count ? &gm->mats[k] : NULL, used_images, &fm[k]);
        if (ok && !sc->mNumMaterials) ok &= sr_mesh_file_material(sc, NULL, path, is_gltf, NULL, used_images, &fm[0]);
        if (!ok) {
            sr_file_materials_free(fm, nm);
            free(used_images);
            aiReleaseImport(sc);
            return sr_fail(err, SR_ERR_RUNTIME, "out of memory reading the materials of mesh file %s", path);
        }
        *opts->file_mats = fm;
        *opts->file_mat_count = nm;
    }

    /* Per-vertex tangents, only for the meshes whose material has a normal map. */
    sr_vertex_tangents *vts = NULL;
    sr_mesh_tan_sink sink = { opts->tangents, opts->tangent_count, false };
    bool any_mapped = false;
    for (unsigned m = 0; at && opts->tangents && opts->tangent_count && use_uv && m < sc->mNumMeshes; m++)
        any_mapped |= normal_mapped(opts, sc->mMeshes[m]);
    if (any_mapped) {
        vts = calloc(sc->mNumMeshes, sizeof *vts);
        sink.oom = !vts;
        for (unsigned m = 0; vts && m < sc->mNumMeshes; m++)
            if (normal_mapped(opts, sc->mMeshes[m]) && !sr_vertex_tangents_make(sc->mMeshes[m], &vts[m])) sink.oom = true;
    }
    const sr_mesh_emit_ctx ec = { material, opts, gm, use_normals, use_uv, opts->file_mats && *opts->file_mats, vts,
                          vts ? &sink : NULL };
    size_t kept = *count;
    bool placed_any = false;   /* (a walk: some instance placed) */
    mem = SR_OK;
    if (sink.oom) {
        mem = sr_fail(err, SR_ERR_RUNTIME, "out of memory making the tangents of mesh file %s", path);
    } else if (walk) {
        mem = sr_mesh_place_nodes(&ec, sc, path, xf, need_attrs, prims, attrs, &kept, &placed_any, err);
    } else {
        sr_mesh_xform t = sr_mesh_xform_make(xf);
        for (unsigned m = 0; m < sc->mNumMeshes; m++) sr_mesh_emit(&ec, sc->mMeshes[m], m, &t, grown, at, &kept);
    }
    if (!mem && sink.oom) mem = sr_fail(err, SR_ERR_RUNTIME, "out of memory storing the tangents of mesh file %s", path);
    for (unsigned m = 0; vts && m < sc->mNumMeshes; m++) sr_vertex_tangents_free(&vts[m]);
    free(vts);
    if (mem) {
        free(used_images);
        aiReleaseImport(sc);
        return mem;
    }
    if (opts->notice && opts->notice_cap)
        sr_mesh_unused_notice(sc, opts, path, use_normals, use_uv, used_images, gm, opts->notice, opts->notice_cap);
    free(used_images);
    aiReleaseImport(sc);

    if (kept == *count && !placed_any)
        return sr_fail(err, SR_ERR_INPUT,
                       "mesh file %s has no triangles with a non-zero area; expected a mesh with faces", path);
    *count = (uint32_t)kept;
    return SR_OK;
}

static sr_mesh_listener_fn sr_listener;
static void *sr_listener_ctx;

void sr_mesh_listen(sr_mesh_listener_fn fn, void *ctx)
{
    sr_listener = fn;
    sr_listener_ctx = ctx;
}

typedef struct listened { const char *path; } listened;

/* A read's progress to the listener; Ctrl-C stops it too. */
static int tell_listener(void *ctx, double fraction)
{
    const listened *l = (const listened *)ctx;
    return (sr_listener && sr_listener(sr_listener_ctx, l->path, fraction)) || sr_interrupt_pending();
}

sr_status sr_mesh_load_ex(const char *path, const sr_mesh_transform *xf, uint32_t material, const sr_mesh_opts *opts,
                          sr_prim **prims, uint32_t *count, sr_tri_attr **attrs, sr_error *err)
{
    const sr_mesh_opts defaults = { .normals = SR_NORMALS_AUTO, .crease_deg = 180.0f, .keep_uv = 0 };
    if (!opts) opts = &defaults;
    if (!path || !prims || !count)
        return sr_fail(err, SR_ERR_RUNTIME, "sr_mesh_load: missing argument");
    sr_mesh_opts told;
    listened l = { path };
    if (!opts->progress) {   /* the listener hears it, and a stop ends the read */
        told = *opts;
        told.progress = tell_listener;
        told.progress_ctx = &l;
        opts = &told;
    }
    if (opts->progress(opts->progress_ctx, 0.0))
        return sr_fail(err, SR_INTERRUPTED, "interrupted before reading mesh file %s", path);
    sr_status s = mesh_load(path, xf, material, opts, prims, count, attrs, err);
    if (!s && opts->progress(opts->progress_ctx, 1.0))
        s = sr_fail(err, SR_INTERRUPTED, "interrupted after reading mesh file %s", path);
    /* A read that Ctrl-C or SIGTERM interrupted (EINTR: a slow file system, or a file swapped
     * for a FIFO after the checks) fails in our checks or in assimp as a parse error. */
    if (s && s != SR_INTERRUPTED && sr_interrupt_pending())
        return sr_fail(err, SR_INTERRUPTED, "interrupted while reading mesh file %s", path);
    return s;
}
