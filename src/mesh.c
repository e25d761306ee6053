/* mesh.c: triangle meshes through the assimp C API. Node transforms are baked in by assimp
 * (PreTransformVertices); ours (scale, rotate X/Y/Z, translate) is applied in double and then
 * rounded once to float. Points, lines and degenerate triangles are skipped. */
#include "mesh.h"
#include "mem_limits.h"
#include "mesh_check.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Host memory while assimp imports a file, per byte of the file: measured 16x for OBJ
 * (1M triangles, 35 MiB) and 20x for binary PLY (19 MiB); 24x leaves a margin. Files
 * with unusually dense faces can need more (see tests/fuzz/README.md). */
#define SR_MESH_IMPORT_FACTOR 24u
#define PATH_MAX_MSG 640

/* ValidateDataStructure runs first and refuses faces whose indices are out of range:
 * assimp's PLY reader does not check them, and the steps after it then read outside the
 * vertex array (SIGSEGV; found by tests/fuzz). */
#define SR_MESH_FLAGS (aiProcess_ValidateDataStructure | aiProcess_Triangulate | aiProcess_PreTransformVertices | \
                       aiProcess_JoinIdenticalVertices | aiProcess_SortByPType)

/* sin and cos of an angle in degrees, exact at multiples of 90 so that a quarter turn moves
 * (1, 0, 0) to exactly (0, 0, -1) and not to (-4.4e-8, 0, -1). */
static void sincos_deg(double deg, double *s, double *c)
{
    double r = fmod(deg, 360.0);
    if (r < 0.0) r += 360.0;
    if (r == 0.0)        { *s = 0.0;  *c = 1.0; }
    else if (r == 90.0)  { *s = 1.0;  *c = 0.0; }
    else if (r == 180.0) { *s = 0.0;  *c = -1.0; }
    else if (r == 270.0) { *s = -1.0; *c = 0.0; }
    else {
        double rad = r * (3.14159265358979323846 / 180.0);
        *s = sin(rad);
        *c = cos(rad);
    }
}

typedef struct xform {
    double scale, sx, cx, sy, cy, sz, cz, tx, ty, tz;
} xform;

static xform xform_make(const sr_mesh_transform *xf)
{
    xform t;
    t.scale = xf ? xf->scale : 1.0;
    sincos_deg(xf ? xf->rotate_deg.x : 0.0, &t.sx, &t.cx);
    sincos_deg(xf ? xf->rotate_deg.y : 0.0, &t.sy, &t.cy);
    sincos_deg(xf ? xf->rotate_deg.z : 0.0, &t.sz, &t.cz);
    t.tx = xf ? xf->translate.x : 0.0;
    t.ty = xf ? xf->translate.y : 0.0;
    t.tz = xf ? xf->translate.z : 0.0;
    return t;
}

/* Rotate about X, then Y, then Z, in double (normals: no scale, no translation). */
static void xform_rotate(const xform *t, double *px, double *py, double *pz)
{
    double x = *px, y = *py, z = *pz, a, b;
    a = y * t->cx - z * t->sx; b = y * t->sx + z * t->cx; y = a; z = b;   /* X */
    a = x * t->cy + z * t->sy; b = -x * t->sy + z * t->cy; x = a; z = b;  /* Y */
    a = x * t->cz - y * t->sz; b = x * t->sz + y * t->cz; x = a; y = b;   /* Z */
    *px = x; *py = y; *pz = z;
}

/* A file's normal, rotated with the mesh and made unit length; false if it has none. */
static bool xform_normal(const xform *t, struct aiVector3D v, sr_vec3 *out)
{
    double x = v.x, y = v.y, z = v.z;
    xform_rotate(t, &x, &y, &z);
    double len = sqrt(x * x + y * y + z * z);
    if (!(len > 0.0) || !isfinite(len)) return false;
    *out = sr_v3((float)(x / len), (float)(y / len), (float)(z / len));
    return true;
}

/* Scale, then rotate about X, then Y, then Z (right-handed), then translate. */
static sr_vec3 xform_apply(const xform *t, struct aiVector3D p)
{
    double x = p.x * t->scale, y = p.y * t->scale, z = p.z * t->scale, a, b;
    a = y * t->cx - z * t->sx; b = y * t->sx + z * t->cx; y = a; z = b;   /* X */
    a = x * t->cy + z * t->sy; b = -x * t->sy + z * t->cy; x = a; z = b;  /* Y */
    a = x * t->cz - y * t->sz; b = x * t->sz + y * t->cz; x = a; y = b;   /* Z */
    return sr_v3((float)(x + t->tx), (float)(y + t->ty), (float)(z + t->tz));
}

static bool finite3(sr_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* Faces assimp kept as triangles (SortByPType leaves points and lines in their own meshes). */
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
static bool attrs_grow(sr_tri_attr **attrs, bool need, size_t from, size_t total)
{
    if (!attrs || (!*attrs && !need)) return true;
    size_t have = *attrs ? from : 0;
    sr_tri_attr *g = realloc(*attrs, total * sizeof *g);
    if (!g) return false;
    memset(g + have, 0, (total - have) * sizeof *g);
    *attrs = g;
    return true;
}

sr_status sr_mesh_load_ex(const char *path, const sr_mesh_transform *xf, uint32_t material, const sr_mesh_opts *opts,
                          sr_prim **prims, uint32_t *count, sr_tri_attr **attrs, sr_error *err)
{
    const sr_mesh_opts defaults = { .normals = SR_NORMALS_AUTO, .crease_deg = 180.0f, .keep_uv = 0 };
    if (!opts) opts = &defaults;
    if (!path || !prims || !count)
        return sr_fail(err, SR_ERR_RUNTIME, "sr_mesh_load: missing argument");

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
    if ((uint64_t)st.st_size > SR_MAX_MESH_BYTES)
        return sr_fail(err, SR_ERR_INPUT, "mesh file %s is %.1f GiB; at most %.1f GiB are supported", path,
                       (double)st.st_size / 1073741824.0, (double)SR_MAX_MESH_BYTES / 1073741824.0);
    /* A known extension picks assimp's importer; without one assimp guesses from the
     * content, and a file that merely contains "ply" went to its PLY reader unchecked. Only
     * the formats the project tests are accepted: assimp's other readers leak or worse on
     * malformed input (.3mf, .nff, .ogex, .sib, .zgl in a short fuzz run). */
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    char ext[16] = "";
    if (dot && (!slash || dot > slash) && strlen(dot) < sizeof ext)
        for (size_t i = 0; dot[i]; i++) ext[i] = (char)tolower((unsigned char)dot[i]);
    static const char *const accepted[] = { ".obj", ".ply", ".stl", ".gltf", ".glb" };
    int known = 0;
    for (size_t k = 0; k < sizeof accepted / sizeof accepted[0]; k++) known |= !strcmp(ext, accepted[k]);
    if (!known || !aiIsExtensionSupported(ext))
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: unsupported format; expected a name ending in "
                       ".obj, .ply, .stl, .gltf or .glb", path);
    /* What it pulls in, and what its header declares, before anything is imported. */
    uint64_t ref_bytes = 0;
    sr_status mem = sr_mesh_refs_check(path, ext, (uint64_t)st.st_size, &ref_bytes, err);
    if (mem) return mem;
    char what[PATH_MAX_MSG];
    snprintf(what, sizeof what, "importing mesh file %s (%.1f MiB with the files it refers to, about %ux that)", path,
             (double)((uint64_t)st.st_size + ref_bytes) / 1048576.0, SR_MESH_IMPORT_FACTOR);
    mem = sr_check_host_memory(((uint64_t)st.st_size + ref_bytes) * SR_MESH_IMPORT_FACTOR, what, "", err);
    if (mem) return mem;
    /* Inputs assimp mishandles, refused before it sees them (mesh_check.h). */
    if (!strcmp(ext, ".ply") && (mem = sr_ply_check(path, err))) return mem;
    if (!strcmp(ext, ".obj") && (mem = sr_obj_check(path, err))) return mem;
    if (!strcmp(ext, ".stl") && (mem = sr_stl_check(path, (uint64_t)st.st_size, err))) return mem;

    unsigned flags = SR_MESH_FLAGS;
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (opts->normals == SR_NORMALS_SMOOTH) {
        /* assimp's own generator (it merges vertices by position and keeps creases) */
        flags |= aiProcess_GenSmoothNormals | aiProcess_ForceGenNormals;
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
        if (has_no_faces(path))
            return sr_fail(err, SR_ERR_INPUT,
                           "mesh file %s has no triangles (no faces at all); expected a mesh with faces", path);
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s; expected OBJ, PLY, glTF or another format assimp reads",
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
    const size_t attr_bytes = (attrs && (need_attrs || *attrs)) ? sizeof(sr_tri_attr) : 0;
    /* The triangles and, later, the BVH over every primitive, before either is allocated. */
    snprintf(what, sizeof what, "mesh file %s (%zu triangles, then a BVH over %zu primitives)", path, n,
             (size_t)*count + n);
    mem = sr_check_host_memory((uint64_t)n * sizeof(sr_prim) + ((uint64_t)*count + n) * attr_bytes +
                               sr_bvh_build_bytes((uint64_t)*count + n), what, "", err);
    if (mem) {
        aiReleaseImport(sc);
        return mem;
    }
    sr_prim *grown = realloc(*prims, ((size_t)*count + n) * sizeof *grown);
    if (!grown) {
        aiReleaseImport(sc);
        return sr_fail(err, SR_ERR_RUNTIME, "out of memory loading mesh file %s (%zu triangles)", path, n);
    }
    *prims = grown;
    if (!attrs_grow(attrs, need_attrs, *count, (size_t)*count + n)) {
        aiReleaseImport(sc);
        return sr_fail(err, SR_ERR_RUNTIME, "out of memory loading mesh file %s (%zu triangles)", path, n);
    }
    sr_tri_attr *at = attrs ? *attrs : NULL;

    xform t = xform_make(xf);
    size_t kept = *count;
    for (unsigned m = 0; m < sc->mNumMeshes; m++) {
        const struct aiMesh *mesh = sc->mMeshes[m];
        if (!mesh || !mesh->mFaces || !mesh->mVertices) continue;
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
            p.a = xform_apply(&t, mesh->mVertices[ix[0]]);
            p.b = xform_apply(&t, mesh->mVertices[ix[1]]);
            p.c = xform_apply(&t, mesh->mVertices[ix[2]]);
            if (!finite3(p.a) || !finite3(p.b) || !finite3(p.c)) continue;
            sr_vec3 nrm = sr_cross(sr_sub(p.b, p.a), sr_sub(p.c, p.a));
            if (!(sr_dot(nrm, nrm) > 0.0f)) continue;   /* zero area (or underflow): no hit */
            if (at) {
                sr_tri_attr a;
                memset(&a, 0, sizeof a);
                if (use_normals && mesh->mNormals && xform_normal(&t, mesh->mNormals[ix[0]], &a.n[0]) &&
                    xform_normal(&t, mesh->mNormals[ix[1]], &a.n[1]) && xform_normal(&t, mesh->mNormals[ix[2]], &a.n[2]))
                    a.flags |= SR_ATTR_NORMALS;
                if (use_uv && mesh->mTextureCoords[0]) {
                    for (int k = 0; k < 3; k++) {
                        const struct aiVector3D uv = mesh->mTextureCoords[0][ix[k]];
                        a.uv[2 * k] = isfinite(uv.x) ? uv.x : 0.0f;
                        a.uv[2 * k + 1] = isfinite(uv.y) ? uv.y : 0.0f;
                    }
                    a.flags |= SR_ATTR_UV;
                }
                if (!(a.flags & SR_ATTR_NORMALS)) memset(a.n, 0, sizeof a.n);
                at[kept] = a;
            }
            grown[kept++] = p;
        }
    }
    aiReleaseImport(sc);

    if (kept == *count)
        return sr_fail(err, SR_ERR_INPUT,
                       "mesh file %s has no triangles with a non-zero area; expected a mesh with faces", path);
    *count = (uint32_t)kept;
    return SR_OK;
}
