/* scene_objects.c: a scene's "objects" list (scene_parse.h): spheres, planes and quads, and
 * meshes read from files (with their transform, normals and file materials), each with its
 * material looked up by name. */
#include "scene_parse.h"
#include "../base/affine.h"
#include "../io/output/outpath.h"
#include "../base/interrupt.h"
#include "../base/rotation.h"
#include "../../kernels/integrators/lights.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OBJ_SPHERE, OBJ_PLANE, OBJ_QUAD, OBJ_MESH };
static const char *const object_types[] = {"sphere", "plane", "quad", "mesh", NULL};
static const char *const object_keys[][10] = {
    {"*type", "*center", "*radius", "*material", NULL},
    {"*type", "*point", "*normal", "*material", NULL},
    {"*type", "*corner", "*edge_u", "*edge_v", "*material", NULL},
    {"*type", "*file", "*material", "translate", "scale", "rotate", "transform", "normals", "crease_angle", NULL},
};

/* attrs: NULL (planes), or the scene's per-prim attributes, which grow with the prims
 * (to the same capacity) once a mesh has created them. */
typedef struct prim_buf { sr_prim **items; uint32_t *count; size_t cap; sr_tri_attr **attrs; } prim_buf;

static bool push_prim(prim_buf *b, sr_prim p)
{
    if (*b->count == UINT32_MAX) return false;
    if (*b->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 16;
        sr_prim *grown = realloc(*b->items, cap * sizeof *grown);
        if (!grown) return false;
        *b->items = grown;
        if (b->attrs && *b->attrs) {
            sr_tri_attr *ga = realloc(*b->attrs, cap * sizeof *ga);
            if (!ga) return false;
            *b->attrs = ga;
        }
        b->cap = cap;
    }
    if (b->attrs && *b->attrs) memset(&(*b->attrs)[*b->count], 0, sizeof(sr_tri_attr));
    (*b->items)[(*b->count)++] = p;
    return true;
}

/* The notice a mesh file gets for what it holds that is not used, kept for the caller; it
 * names the object (jp, "objects[N]"), as one file may serve several with other materials. */
static sr_status add_notice(sr_json_doc *c, sr_scene *s, const char *jp, const char *mesh, const char *what)
{
    if (!what[0]) return SR_OK;
    const size_t cap = strlen(mesh) + 1;
    char *clean = malloc(cap);
    if (clean) sr_sanitize(clean, cap, mesh);
    const bool object = !strncmp(jp, "objects[", 8);
    char *line = clean ? sr_format("notice: mesh file %s%s%s%s: not used: %s\n", clean, object ? " (" : "",
                                   object ? jp : "", object ? ")" : "", what) : NULL;
    free(clean);
    if (!line) return sr_json_oom(c);
    size_t have = s->notices ? strlen(s->notices) : 0, add = strlen(line);
    char *grown = realloc(s->notices, have + add + 1);
    if (grown) memcpy(grown + have, line, add + 1);
    free(line);
    if (!grown) return sr_json_oom(c);
    s->notices = grown;
    return SR_OK;
}

/* A mesh's placement: "transform", a 4x4 matrix given row by row (row-major: p' = M p for
 * column vectors, the translation in the 4th, 8th and 12th numbers, the last row 0 0 0 1),
 * or "scale" (a number, or [x, y, z] along the mesh's own axes), then "rotate" (X, then Y,
 * then Z, degrees), then "translate". A uniform scale keeps the transform of old (scale,
 * rotation, translation in turn); the others become one matrix, worked in double. */
static sr_status parse_transform(sr_json_doc *c, const cJSON *o, const char *jp, sr_mesh_transform *xf)
{
    memset(xf, 0, sizeof *xf);
    const cJSON *tf = sr_json_field(o, "transform");
    char tjp[SR_JSON_PATH_MAX], got[96];
    if (tf) {
        static const char *const trs[] = {"translate", "rotate", "scale"};
        for (int k = 0; k < 3; k++) {
            const cJSON *other = sr_json_field(o, trs[k]);
            if (!other) continue;
            sr_json_path_key(tjp, sizeof tjp, jp, trs[k]);
            return sr_json_fail_key(c, other, tjp, "\"transform\" and \"%s\" are both given; give either \"transform\" "
                                    "(a 4x4 matrix) or \"scale\", \"rotate\" and \"translate\"", trs[k]);
        }
        sr_json_path_key(tjp, sizeof tjp, jp, "transform");
        double v[16];
        int n = 0;
        const cJSON *x;
        bool numbers = cJSON_IsArray(tf) && cJSON_GetArraySize(tf) == 16;
        cJSON_ArrayForEach(x, tf) {
            if (!numbers || n >= 16) break;
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) numbers = false;
            else v[n++] = x->valuedouble;
        }
        if (!numbers) {
            sr_json_describe(c, tf, got, sizeof got);
            return sr_json_fail_val(c, tf, tjp, "expected a 4x4 matrix as 16 finite numbers, row by row (row-major: the "
                                    "translation is the 4th, 8th and 12th number), got %s", got);
        }
        if (v[12] != 0.0 || v[13] != 0.0 || v[14] != 0.0 || v[15] != 1.0)
            return sr_json_fail_val(c, tf, tjp, "its last row is [%g, %g, %g, %g]; expected [0, 0, 0, 1] (an affine "
                                    "transform, no projection)", v[12], v[13], v[14], v[15]);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) xf->m[i][j] = v[4 * i + j];
        xf->affine = 1;
    } else {
        SR_TRY(sr_json_opt_vec3(c, o, jp, "translate", SR_JSON_VEC_ANY, sr_v3s(0), &xf->translate));
        SR_TRY(sr_json_opt_vec3(c, o, jp, "rotate", SR_JSON_VEC_ANY, sr_v3s(0), &xf->rotate_deg));
        const cJSON *sc = sr_json_field(o, "scale");
        if (!cJSON_IsArray(sc)) return sr_json_opt_float(c, o, jp, "scale", R_POS, 1.0f, &xf->scale);
        sr_vec3 s3;
        SR_TRY(sr_json_opt_vec3(c, o, jp, "scale", SR_JSON_VEC_ANY, sr_v3s(1), &s3));
        sr_json_path_key(tjp, sizeof tjp, jp, "scale");
        if (!(s3.x > 0.0f && s3.y > 0.0f && s3.z > 0.0f))
            return sr_json_fail_val(c, sc, tjp, "each factor must be greater than 0, got [%g, %g, %g]; expected a "
                                    "number or three positive factors (x, y, z)", s3.x, s3.y, s3.z);
        const sr_rotation rot = sr_rotation_deg(xf->rotate_deg);
        const double f[3] = { s3.x, s3.y, s3.z }, t[3] = { xf->translate.x, xf->translate.y, xf->translate.z };
        for (int j = 0; j < 3; j++) {   /* column j: the mesh's axis j, scaled, then turned */
            double col[3] = { 0, 0, 0 };
            col[j] = f[j];
            sr_rotation_apply(&rot, &col[0], &col[1], &col[2]);
            for (int i = 0; i < 3; i++) xf->m[i][j] = col[i];
        }
        for (int i = 0; i < 3; i++) xf->m[i][3] = t[i];
        xf->affine = 1;
        return SR_OK;
    }
    const double (*m)[4] = xf->m;
    const double det = sr_affine_det(m);
    if (!(fabs(det) > 1e-30) || !isfinite(det))
        return sr_json_fail_val(c, tf, tjp, "is singular (its 3x3 part has determinant %g, so the mesh would be "
                                "flattened); expected an invertible transform", det);
    return SR_OK;
}

/* A mesh object's triangles into *prims: placed by its transform, or with object_space read
 * in the mesh's own space (a shared mesh); *xf_out (if not NULL) gets the transform. */
static sr_status parse_mesh(sr_json_doc *c, const cJSON *o, const char *jp, sr_scene *s, uint32_t mat,
                            prim_buf *prims, bool file_materials, bool scene_level, bool object_space,
                            sr_mesh_transform *xf_out)
{
    const cJSON *file = sr_json_field(o, "file");
    char fjp[SR_JSON_PATH_MAX], got[96];
    sr_json_path_key(fjp, sizeof fjp, jp, "file");
    if (!cJSON_IsString(file)) {
        sr_json_describe(c, file, got, sizeof got);
        return sr_json_fail_val(c, file, fjp, "expected a string (a mesh file path, relative to the scene file), got %s", got);
    }
    if (!file->valuestring[0]) return sr_json_fail_val(c, file, fjp, "must not be empty; expected a mesh file path");
    sr_mesh_transform xf;
    SR_TRY(parse_transform(c, o, jp, &xf));
    if (xf_out) *xf_out = xf;
    if (object_space) {   /* the identity: the file's own coordinates, exactly */
        memset(&xf, 0, sizeof xf);
        xf.affine = 1;
        xf.m[0][0] = xf.m[1][1] = xf.m[2][2] = 1.0;
    }
    sr_mesh_opts mo = { .normals = SR_NORMALS_AUTO, .crease_deg = 180.0f, .keep_uv = 0 };
    const cJSON *nv = sr_json_field(o, "normals");
    if (nv) {
        static const char *const normal_names[] = {"file", "flat", "smooth", NULL};
        char njp[SR_JSON_PATH_MAX];
        sr_json_path_key(njp, sizeof njp, jp, "normals");
        int which = 0;
        SR_TRY(sr_json_read_name(c, nv, njp, "normals", normal_names, &which));
        mo.normals = (sr_mesh_normals)(which + 1);
    }
    const cJSON *ca = sr_json_field(o, "crease_angle");
    if (ca && mo.normals != SR_NORMALS_SMOOTH) {
        char cjp[SR_JSON_PATH_MAX];
        sr_json_path_key(cjp, sizeof cjp, jp, "crease_angle");
        return sr_json_fail_key(c, ca, cjp, "applies only to generated normals; expected it with \"normals\": \"smooth\"");
    }
    SR_TRY(sr_json_opt_float(c, o, jp, "crease_angle", R_CREASE, 180.0f, &mo.crease_deg));
    mo.keep_uv = file_materials || sr_scene_textured(s, mat);
    const uint32_t first = *prims->count;
    sr_file_material *fm = NULL;
    uint32_t fm_count = 0;
    char notice[768] = "";
    mo.notice = notice;
    mo.notice_cap = sizeof notice;
    mo.scene_read = scene_level;
    if (file_materials) {
        mat = s->material_count;   /* the file's materials go at the end of the table */
        mo.file_mats = &fm;
        mo.file_mat_count = &fm_count;
        mo.tangents = &s->tangents;
        mo.tangent_count = &s->tangent_count;
    }

    /* a glTF file's own repeated meshes become instances, unless this object's mesh is read
     * in its own space (it is itself instanced: the file's copies stay copies) */
    sr_mesh_shared sh = { &s->shared_prims, &s->shared_attrs, &s->shared_prim_count, &s->shared_meshes,
                          &s->shared_mesh_count, &s->instances, &s->instance_count };
    if (!object_space) mo.shared = &sh;
    const uint32_t shared_first = s->shared_prim_count;
    char *resolved = sr_scene_resolve_path(c->path, file->valuestring);
    if (!resolved) return sr_json_oom(c);
    sr_error merr;
    memset(&merr, 0, sizeof merr);
    sr_status st = sr_mesh_load_ex(resolved, &xf, mat, &mo, prims->items, prims->count, prims->attrs, &merr);
    prims->cap = *prims->count;   /* the mesh loader sized the array to fit                 */
    sr_status st2 = SR_OK;        /* a failure below has its message in c->err already      */
    if (st == SR_OK && file_materials) st2 = sr_scene_add_file_materials(c, file, fjp, s, resolved, fm, fm_count);
    if (st == SR_OK && st2 == SR_OK) st2 = add_notice(c, s, jp, resolved, notice);
    sr_file_materials_free(fm, fm_count);
    free(resolved);
    if (st2 != SR_OK) return st2;
    SR_TRY(sr_scene_loader_fail(c, file, fjp, st, &merr));
    if (mo.keep_uv)   /* the triangles placed, then those of the file's instanced meshes */
        for (int pass = 0; pass < 2; pass++) {
            const sr_prim *items = pass ? s->shared_prims : *prims->items;
            const sr_tri_attr *at = pass ? s->shared_attrs : *prims->attrs;
            const uint32_t from = pass ? shared_first : first, to = pass ? s->shared_prim_count : *prims->count;
            if (pass && object_space) break;   /* (then *prims are the shared prims: checked) */
            for (uint32_t i = from; i < to; i++)
                if (sr_scene_textured(s, items[i].material) && (!at || !(at[i].flags & SR_ATTR_UV))) {
                    char clean[sizeof merr.msg];
                    sr_sanitize(clean, sizeof clean, file->valuestring);
                    return sr_json_fail_val(c, file, fjp, "mesh file %s has no texture coordinates (OBJ vt, glTF "
                                            "TEXCOORD_0), but material \"%s\" has a texture; expected a mesh with UVs or "
                                            "an untextured material", clean, s->material_names[items[i].material]);
                }
        }
    return SR_OK;
}

/* ---- instances: a mesh placed by several objects is read once (docs/scene-format.md) ---- */

/* What makes two mesh objects place the same mesh: the same file string, material, normals
 * and crease angle (the transform aside). NULL for an object that is not a mesh (or whose
 * keys the objects' pass will refuse), or on out of memory (*oom). */
static char *mesh_key(const cJSON *o, bool *oom)
{
    const cJSON *type = cJSON_IsObject(o) ? sr_json_field(o, "type") : NULL;
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "mesh")) return NULL;
    const cJSON *file = sr_json_field(o, "file"), *mat = sr_json_field(o, "material");
    const cJSON *nv = sr_json_field(o, "normals"), *ca = sr_json_field(o, "crease_angle");
    if (!cJSON_IsString(file) || !cJSON_IsString(mat) || (nv && !cJSON_IsString(nv)) || (ca && !cJSON_IsNumber(ca)))
        return NULL;
    char *key = sr_format("%s%c%s%c%s%c%.17g", file->valuestring, 1, mat->valuestring, 1, nv ? nv->valuestring : "",
                          1, ca ? ca->valuedouble : -1.0);
    if (!key) *oom = true;
    return key;
}

typedef struct keyed { char *key; uint32_t obj; } keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    const int k = strcmp(x->key, y->key);
    return k ? k : (x->obj > y->obj) - (x->obj < y->obj);
}

/* groups[i]: for object i, the group of mesh objects that place the same mesh when it has
 * two or more (0, 1, ...; in order of first use), else -1. *groups stays NULL when no mesh
 * repeats. */
static sr_status mesh_groups(sr_json_doc *c, const cJSON *objs, int32_t **groups, uint32_t *group_count)
{
    *groups = NULL;
    *group_count = 0;
    size_t n = 0, meshes = 0;
    for (const cJSON *o = objs->child; o; o = o->next) n++;
    keyed *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) return sr_json_oom(c);
    bool oom = false;
    size_t i = 0;
    for (const cJSON *o = objs->child; o && !oom; o = o->next, i++) {
        char *key = mesh_key(o, &oom);
        if (key) keys[meshes++] = (keyed){ key, (uint32_t)i };
    }
    int32_t *g = NULL;
    if (!oom && meshes > 1) {
        qsort(keys, meshes, sizeof *keys, keyed_cmp);
        bool repeats = false;
        for (size_t k = 1; k < meshes; k++) repeats |= !strcmp(keys[k].key, keys[k - 1].key);
        if (repeats && !(g = malloc(n * sizeof *g))) oom = true;
        if (g) {
            for (size_t k = 0; k < n; k++) g[k] = -1;
            /* a run of equal keys is a group; numbered by its first object so that the
             * shared meshes come in the order the objects name them */
            for (size_t a = 0, b; a < meshes; a = b) {
                for (b = a + 1; b < meshes && !strcmp(keys[a].key, keys[b].key); b++) {}
                if (b - a > 1)
                    for (size_t k = a; k < b; k++) g[keys[k].obj] = (int32_t)keys[a].obj;   /* provisional */
            }
            /* renumbered in the order of first use: g[k] <= k, so its first object's number
             * is known when k is reached */
            int32_t next = 0;
            for (size_t k = 0; k < n; k++) {
                if (g[k] < 0) continue;
                if ((size_t)g[k] == k) g[k] = -2 - next++;   /* a first object: its number, marked */
                else g[k] = g[g[k]];                          /* the first object's, marked      */
            }
            for (size_t k = 0; k < n; k++) if (g[k] <= -2) g[k] = -2 - g[k];
            *group_count = (uint32_t)next;
        }
    }
    for (size_t k = 0; k < meshes; k++) free(keys[k].key);
    free(keys);
    if (oom) { free(g); return sr_json_oom(c); }
    *groups = g;
    return SR_OK;
}

/* The transform as a row-major 3x4 matrix in double (the mesh loader's: scale, then rotate,
 * then translate, or the general one). */
static void transform_matrix(const sr_mesh_transform *xf, double m[3][4])
{
    if (xf->affine) {
        memcpy(m, xf->m, sizeof xf->m);
        return;
    }
    const sr_rotation rot = sr_rotation_deg(xf->rotate_deg);
    for (int j = 0; j < 3; j++) {
        double col[3] = { 0, 0, 0 };
        col[j] = xf->scale;
        sr_rotation_apply(&rot, &col[0], &col[1], &col[2]);
        for (int i = 0; i < 3; i++) m[i][j] = col[i];
    }
    m[0][3] = xf->translate.x;
    m[1][3] = xf->translate.y;
    m[2][3] = xf->translate.z;
}

static sr_status add_instance(sr_json_doc *c, sr_scene *s, uint32_t mesh, const sr_mesh_transform *xf)
{
    if ((s->instance_count & (s->instance_count - 1u)) == 0) {   /* 0, 1, 2, 4, ...: grow */
        const size_t cap = s->instance_count ? 2u * (size_t)s->instance_count : 1u;
        sr_mesh_instance *grown = realloc(s->instances, cap * sizeof *grown);
        if (!grown) return sr_json_oom(c);
        s->instances = grown;
    }
    sr_mesh_instance *in = &s->instances[s->instance_count++];
    in->mesh = mesh;
    transform_matrix(xf, in->m);
    return SR_OK;
}

/* A mesh object: into the world-space prims as before, unless its mesh repeats (group >= 0):
 * then the first object of the group reads the mesh once into the shared prims and every
 * object adds an instance of it. group_mesh[group]: -1 not read yet, else the shared mesh's
 * index. */
static sr_status place_mesh(sr_json_doc *c, const cJSON *o, const char *jp, sr_scene *s, uint32_t mat, prim_buf *prims,
                            prim_buf *shared, bool file_materials, int32_t group, int32_t *group_mesh)
{
    if (group < 0) return parse_mesh(c, o, jp, s, mat, prims, file_materials, false, false, NULL);
    sr_mesh_transform xf;
    if (group_mesh[group] >= 0) {   /* read already: only this object's transform */
        SR_TRY(parse_transform(c, o, jp, &xf));
        return add_instance(c, s, (uint32_t)group_mesh[group], &xf);
    }
    const uint32_t first = s->shared_prim_count;
    SR_TRY(parse_mesh(c, o, jp, s, mat, shared, file_materials, false, true, &xf));
    const uint32_t end = s->shared_prim_count;
    if ((s->shared_mesh_count & (s->shared_mesh_count - 1u)) == 0) {
        const size_t cap = s->shared_mesh_count ? 2u * (size_t)s->shared_mesh_count : 1u;
        sr_shared_mesh *grown = realloc(s->shared_meshes, cap * sizeof *grown);
        if (!grown) return sr_json_oom(c);
        s->shared_meshes = grown;
    }
    s->shared_meshes[s->shared_mesh_count] = (sr_shared_mesh){ first, end - first };
    group_mesh[group] = (int32_t)s->shared_mesh_count++;
    return add_instance(c, s, (uint32_t)group_mesh[group], &xf);
}

/* When the run would overwrite an existing file: every mesh, and what each refers to, is
 * checked against the outputs before the first one is imported (outpath.h), so that the
 * refusal comes before any work. Anything else wrong is left to the objects' own pass. */
static sr_status check_mesh_inputs(sr_json_doc *c, const cJSON *objs)
{
    size_t i = 0;
    for (const cJSON *o = cJSON_IsArray(objs) ? objs->child : NULL; o; o = o->next, i++) {
        const cJSON *type = cJSON_IsObject(o) ? sr_json_field(o, "type") : NULL;
        const cJSON *file = type ? sr_json_field(o, "file") : NULL;
        if (!cJSON_IsString(type) || strcmp(type->valuestring, "mesh") || !cJSON_IsString(file) || !file->valuestring[0])
            continue;
        char jp[SR_JSON_PATH_MAX], fjp[SR_JSON_PATH_MAX];
        sr_json_path_index(jp, sizeof jp, "objects", i);
        sr_json_path_key(fjp, sizeof fjp, jp, "file");
        char *resolved = sr_scene_resolve_path(c->path, file->valuestring);
        if (!resolved) return sr_json_oom(c);
        sr_error merr;
        memset(&merr, 0, sizeof merr);
        uint64_t size = 0, ref_bytes = 0;
        sr_status st = sr_mesh_inputs_check(resolved, &size, &ref_bytes, &merr);
        free(resolved);
        SR_TRY(sr_scene_loader_fail(c, file, fjp, st, &merr));
    }
    return SR_OK;
}

static sr_status parse_objects(sr_json_doc *c, const cJSON *objs, sr_scene *s, const sr_name_ix *sorted, uint32_t named,
                               prim_buf *prims_p, prim_buf *planes_p, prim_buf *shared_p, const int32_t *groups,
                               int32_t *group_mesh);

sr_status sr_scene_parse_objects(sr_json_doc *c, const cJSON *objs, sr_scene *s, const sr_name_ix *sorted, uint32_t named)
{
    SR_TRY(sr_json_need_array(c, objs, "objects"));
    if (!objs->child)
        return sr_json_fail_val(c, objs, "objects", "must contain at least one object (sphere, plane, quad or mesh)");
    if (sr_output_guard_active()) SR_TRY(check_mesh_inputs(c, objs));
    /* what a "gltf" file put there before is sized to fit */
    prim_buf prims = {&s->prims, &s->prim_count, s->prim_count, &s->attrs};
    prim_buf planes = {&s->planes, &s->plane_count, s->plane_count, NULL};
    prim_buf shared = {&s->shared_prims, &s->shared_prim_count, s->shared_prim_count, &s->shared_attrs};
    int32_t *groups = NULL, *group_mesh = NULL;
    uint32_t group_count = 0;
    SR_TRY(mesh_groups(c, objs, &groups, &group_count));
    if (groups && !(group_mesh = malloc(group_count * sizeof *group_mesh))) {
        free(groups);
        return sr_json_oom(c);
    }
    for (uint32_t k = 0; k < group_count; k++) group_mesh[k] = -1;
    sr_status st = parse_objects(c, objs, s, sorted, named, &prims, &planes, &shared, groups, group_mesh);
    free(groups);
    free(group_mesh);
    return st;
}

static sr_status parse_objects(sr_json_doc *c, const cJSON *objs, sr_scene *s, const sr_name_ix *sorted, uint32_t named,
                               prim_buf *prims_p, prim_buf *planes_p, prim_buf *shared_p, const int32_t *groups,
                               int32_t *group_mesh)
{
    prim_buf prims = *prims_p, planes = *planes_p, shared = *shared_p;
    size_t i = 0;
    for (const cJSON *o = objs->child; o; o = o->next, i++) {
        if ((i & 1023u) == 0 && sr_interrupt_pending())   /* a million objects take seconds */
            return sr_fail(c->err, SR_INTERRUPTED, "%s: interrupted while reading the scene", c->path);
        char jp[SR_JSON_PATH_MAX];
        sr_json_path_index(jp, sizeof jp, "objects", i);
        SR_TRY(sr_json_need_object(c, o, jp));
        int kind = 0;
        SR_TRY(sr_json_read_type(c, o, jp, "object", object_types, &kind));
        char what[32];
        snprintf(what, sizeof what, "a %s", object_types[kind]);
        SR_TRY(sr_json_check_keys(c, o, jp, what, object_keys[kind]));
        uint32_t mat = 0;
        const cJSON *mv = sr_json_field(o, "material");
        const bool file_materials = kind == OBJ_MESH && cJSON_IsString(mv) && !strcmp(mv->valuestring, "file");
        if (!file_materials) SR_TRY(sr_scene_lookup_material(c, o, jp, s, sorted, named, &mat));
        if ((kind == OBJ_SPHERE || kind == OBJ_PLANE) && sr_scene_textured(s, mat)) {
            char mjp[SR_JSON_PATH_MAX];
            sr_json_path_key(mjp, sizeof mjp, jp, "material");
            return sr_json_fail_val(c, sr_json_field(o, "material"), mjp,
                                    "material \"%s\" has a texture, and a %s has no texture coordinates; expected a quad or a "
                                    "mesh with UVs", s->material_names[mat], object_types[kind]);
        }

        sr_prim p;
        memset(&p, 0, sizeof p);
        p.material = mat;
        char kjp[SR_JSON_PATH_MAX];
        switch (kind) {
        case OBJ_SPHERE:
            p.kind = SR_PRIM_SPHERE;
            SR_TRY(sr_json_opt_vec3(c, o, jp, "center", SR_JSON_VEC_ANY, sr_v3s(0), &p.a));
            SR_TRY(sr_json_opt_float(c, o, jp, "radius", R_POS, 1.0f, &p.b.x));
            if (!push_prim(&prims, p)) return sr_json_oom(c);
            break;
        case OBJ_PLANE:
            p.kind = SR_PRIM_PLANE;
            SR_TRY(sr_json_opt_vec3(c, o, jp, "point", SR_JSON_VEC_ANY, sr_v3s(0), &p.a));
            SR_TRY(sr_json_opt_vec3(c, o, jp, "normal", SR_JSON_VEC_DIR, sr_v3(0, 1, 0), &p.b));
            sr_json_unit_vector(p.b, &p.b);
            if (!push_prim(&planes, p)) return sr_json_oom(c);
            break;
        case OBJ_QUAD: {
            p.kind = SR_PRIM_QUAD;
            SR_TRY(sr_json_opt_vec3(c, o, jp, "corner", SR_JSON_VEC_ANY, sr_v3s(0), &p.a));
            SR_TRY(sr_json_opt_vec3(c, o, jp, "edge_u", SR_JSON_VEC_DIR, sr_v3(1, 0, 0), &p.b));
            SR_TRY(sr_json_opt_vec3(c, o, jp, "edge_v", SR_JSON_VEC_DIR, sr_v3(0, 1, 0), &p.c));
            sr_vec3 u = sr_v3s(0.0f), v = sr_v3s(0.0f);
            sr_json_unit_vector(p.b, &u);
            sr_json_unit_vector(p.c, &v);
            if (sr_length(sr_cross(u, v)) < 1e-6f) {
                sr_json_path_key(kjp, sizeof kjp, jp, "edge_v");
                return sr_json_fail_val(c, sr_json_field(o, "edge_v"), kjp,
                                        "is parallel to edge_u, so the quad has no area; expected two edges that span a parallelogram");
            }
            if (!push_prim(&prims, p)) return sr_json_oom(c);
            break;
        }
        default:
            SR_TRY(place_mesh(c, o, jp, s, mat, &prims, &shared, file_materials, groups ? groups[i] : -1, group_mesh));
            break;
        }
    }
    return SR_OK;
}

sr_status sr_scene_parse_gltf_mesh(sr_json_doc *c, const cJSON *g, const char *jp, sr_scene *s, const sr_name_ix *sorted,
                                   uint32_t named)
{
    const cJSON *mv = sr_json_field(g, "material");
    const bool file_materials = !mv || (cJSON_IsString(mv) && !strcmp(mv->valuestring, "file"));
    uint32_t mat = 0;
    if (!file_materials) SR_TRY(sr_scene_lookup_material(c, g, jp, s, sorted, named, &mat));
    prim_buf prims = {&s->prims, &s->prim_count, s->prim_count, &s->attrs};
    return parse_mesh(c, g, jp, s, mat, &prims, file_materials, true, false, NULL);
}
