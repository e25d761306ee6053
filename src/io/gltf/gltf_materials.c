/* gltf_materials.c: the glTF material fields assimp 5.2 does not pass on (gltf_materials.h),
 * read from the file's JSON with cJSON. assimp 5.2 reads KHR_texture_transform into its own
 * aiUVTransform, rotated about a different centre and with its offset converted for its V
 * flip; reading glTF's numbers directly keeps the transform exactly as the spec writes it. */
#include "gltf_materials.h"
#include "../meshes/mesh_check.h"

#include <cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The extensions whose material fields are used (the lights of KHR_lights_punctual are
 * reported with the file's lights, by count). */
static const char *const supported[] = {
    "KHR_materials_emissive_strength", "KHR_texture_transform", "KHR_materials_transmission", "KHR_materials_ior",
    "KHR_lights_punctual", NULL,
};

static int is_supported(const char *name)
{
    for (int k = 0; supported[k]; k++)
        if (!strcmp(name, supported[k])) return 1;
    return 0;
}

/* Add `name` to the ", "-separated list unless it is there or supported. */
static void add_unsupported(char *list, size_t cap, const char *name)
{
    if (!name || !name[0] || is_supported(name)) return;
    char clean[96];
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof clean; p++)   /* the file's words reach the terminal */
        clean[n++] = (*p >= 0x21 && *p <= 0x7e) ? *p : '?';
    clean[n] = '\0';
    for (const char *at = strstr(list, clean); at; at = strstr(at + 1, clean)) {
        const size_t l = strlen(clean);
        if ((at == list || at[-1] == ' ') && (at[l] == ',' || at[l] == '\0')) return;
    }
    const size_t have = strlen(list);
    if (have + strlen(clean) + 3 >= cap) return;
    snprintf(list + have, cap - have, "%s%s", have ? ", " : "", clean);
}

static float num(const cJSON *v, float def)
{
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? (float)v->valuedouble : def;
}

/* A textureInfo's KHR_texture_transform as a 2x3 matrix (T * R * S, glTF's order); 0 without
 * one. *texcoord: the set it reads (the transform's texCoord overrides the textureInfo's). */
static int texture_xf(const cJSON *info, float xf[6], int *texcoord)
{
    *texcoord = (int)num(cJSON_GetObjectItemCaseSensitive(info, "texCoord"), 0.0f);
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(info, "extensions");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(ext, "KHR_texture_transform");
    if (!cJSON_IsObject(t)) return 0;
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(t, "offset");
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(t, "scale");
    const float ox = num(cJSON_GetArrayItem(off, 0), 0.0f), oy = num(cJSON_GetArrayItem(off, 1), 0.0f);
    const float sx = num(cJSON_GetArrayItem(sc, 0), 1.0f), sy = num(cJSON_GetArrayItem(sc, 1), 1.0f);
    const double r = num(cJSON_GetObjectItemCaseSensitive(t, "rotation"), 0.0f);
    const float c = (float)cos(r), s = (float)sin(r);
    xf[0] = c * sx, xf[1] = s * sy, xf[2] = ox;
    xf[3] = -s * sx, xf[4] = c * sy, xf[5] = oy;
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(t, "texCoord");
    if (cJSON_IsNumber(tc)) *texcoord = (int)num(tc, 0.0f);
    return 1;
}

/* a (row-major 2x3, affine) after b: a(b(p)) */
static void affine2_mul(const double a[6], const double b[6], double out[6])
{
    out[0] = a[0] * b[0] + a[1] * b[3];
    out[1] = a[0] * b[1] + a[1] * b[4];
    out[2] = a[0] * b[2] + a[1] * b[5] + a[2];
    out[3] = a[3] * b[0] + a[4] * b[3];
    out[4] = a[3] * b[1] + a[4] * b[4];
    out[5] = a[3] * b[2] + a[4] * b[5] + a[5];
}

/* A texture's transform xf (glTF's convention, on the file's UVs) as one on the UVs stored
 * (assimp's convention, v up, with the base colour's transform base baked in, or NULL):
 * F xf base^-1 F, F the flip (u, v) -> (u, 1 - v), worked in double and rounded once.
 * False when base is singular (its UVs cannot be undone). */
static int relative_xf(const float *base, const float xf[6], float out[6])
{
    double inv[6] = { 1, 0, 0, 0, 1, 0 };
    if (base) {
        const double det = (double)base[0] * base[4] - (double)base[1] * base[3];
        if (!(det != 0.0) || !isfinite(det)) return 0;
        inv[0] = base[4] / det, inv[1] = -base[1] / det, inv[3] = -base[3] / det, inv[4] = base[0] / det;
        inv[2] = -(inv[0] * base[2] + inv[1] * base[5]);
        inv[5] = -(inv[3] * base[2] + inv[4] * base[5]);
    }
    const double flip[6] = { 1, 0, 0, 0, -1, 1 }, x[6] = { xf[0], xf[1], xf[2], xf[3], xf[4], xf[5] };
    double a[6], b[6], c[6];
    affine2_mul(inv, flip, a);
    affine2_mul(x, a, b);
    affine2_mul(flip, b, c);
    for (int k = 0; k < 6; k++) {
        if (!isfinite(c[k])) return 0;
        out[k] = (float)c[k];
    }
    return 1;
}

/* assimp 5.2 numbers a glTF's materials in the order its reader first meets them, not the
 * file's: the default scene's nodes depth first, a node's children before its own mesh, each
 * mesh's primitives in order; then every skin's joints and every animation's target nodes. A
 * material met nowhere is not imported. The walk below meets them the same way, so that
 * material k here is material k of assimp's import (a file whose materials are listed in
 * another order, e.g. Khronos's TextureTransformTest, had its transforms on other materials). */
typedef struct mat_walk {
    const cJSON **nodes, **meshes;
    int node_count, mesh_count, mat_count;
    unsigned char *node_seen, *mesh_seen, *mat_seen;
    int *order;   /* file material index of assimp's material k */
    int met;
} mat_walk;

/* An index into an array of `count` as assimp takes one (an unsigned integer), else -1. */
static int index_of(const cJSON *v, int count)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0.0 && v->valuedouble < (double)count &&
           v->valuedouble == floor(v->valuedouble) ? (int)v->valuedouble : -1;
}

static void walk_mesh(mat_walk *w, int m)
{
    if (m < 0 || w->mesh_seen[m]) return;
    w->mesh_seen[m] = 1;
    const cJSON *prims = cJSON_GetObjectItemCaseSensitive(w->meshes[m], "primitives");
    for (const cJSON *p = cJSON_IsArray(prims) ? prims->child : NULL; p; p = p->next) {
        const int k = index_of(cJSON_GetObjectItemCaseSensitive(p, "material"), w->mat_count);
        if (k >= 0 && !w->mat_seen[k]) {
            w->mat_seen[k] = 1;
            w->order[w->met++] = k;
        }
    }
}

/* depth: the structure check has bounded the levels of nodes (and refused cycles); the guard
 * only keeps a file that skipped it from recursing without end */
static void walk_node(mat_walk *w, int i, int depth)
{
    if (i < 0 || w->node_seen[i] || depth > 2000) return;
    w->node_seen[i] = 1;
    const cJSON *children = cJSON_GetObjectItemCaseSensitive(w->nodes[i], "children");
    for (const cJSON *c = cJSON_IsArray(children) ? children->child : NULL; c; c = c->next)
        walk_node(w, index_of(c, w->node_count), depth + 1);
    walk_mesh(w, index_of(cJSON_GetObjectItemCaseSensitive(w->nodes[i], "mesh"), w->mesh_count));
}

/* Fill order[] with the file's material indices in assimp's order; the count of them, or -1
 * when memory runs out. */
static int assimp_material_order(const cJSON *root, int mat_count, int *order)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes"), *meshes = cJSON_GetObjectItemCaseSensitive(root, "meshes");
    mat_walk w;
    memset(&w, 0, sizeof w);
    w.node_count = cJSON_IsArray(nodes) ? cJSON_GetArraySize(nodes) : 0;
    w.mesh_count = cJSON_IsArray(meshes) ? cJSON_GetArraySize(meshes) : 0;
    w.mat_count = mat_count;
    w.order = order;
    w.nodes = calloc((size_t)w.node_count + 1, sizeof *w.nodes);
    w.meshes = calloc((size_t)w.mesh_count + 1, sizeof *w.meshes);
    w.node_seen = calloc((size_t)w.node_count + 1, 1);
    w.mesh_seen = calloc((size_t)w.mesh_count + 1, 1);
    w.mat_seen = calloc((size_t)mat_count + 1, 1);
    int met = -1;
    if (w.nodes && w.meshes && w.node_seen && w.mesh_seen && w.mat_seen) {
        int k = 0;
        for (const cJSON *n = w.node_count ? nodes->child : NULL; n && k < w.node_count; n = n->next) w.nodes[k++] = n;
        k = 0;
        for (const cJSON *m = w.mesh_count ? meshes->child : NULL; m && k < w.mesh_count; m = m->next) w.meshes[k++] = m;
        const cJSON *scenes = cJSON_GetObjectItemCaseSensitive(root, "scenes");
        const cJSON *which = cJSON_GetObjectItemCaseSensitive(root, "scene");
        const int scene = cJSON_IsNumber(which) ? index_of(which, cJSON_IsArray(scenes) ? cJSON_GetArraySize(scenes) : 0) : 0;
        const cJSON *roots = cJSON_GetObjectItemCaseSensitive(cJSON_IsArray(scenes) ? cJSON_GetArrayItem(scenes, scene) : NULL, "nodes");
        for (const cJSON *r = cJSON_IsArray(roots) ? roots->child : NULL; r; r = r->next) walk_node(&w, index_of(r, w.node_count), 0);
        const cJSON *skins = cJSON_GetObjectItemCaseSensitive(root, "skins");
        for (const cJSON *s = cJSON_IsArray(skins) ? skins->child : NULL; s; s = s->next) {
            const cJSON *joints = cJSON_GetObjectItemCaseSensitive(s, "joints");
            for (const cJSON *j = cJSON_IsArray(joints) ? joints->child : NULL; j; j = j->next) walk_node(&w, index_of(j, w.node_count), 0);
        }
        const cJSON *anims = cJSON_GetObjectItemCaseSensitive(root, "animations");
        for (const cJSON *a = cJSON_IsArray(anims) ? anims->child : NULL; a; a = a->next) {
            const cJSON *channels = cJSON_GetObjectItemCaseSensitive(a, "channels");
            for (const cJSON *c = cJSON_IsArray(channels) ? channels->child : NULL; c; c = c->next)
                walk_node(&w, index_of(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "target"), "node"),
                                       w.node_count), 0);
        }
        met = w.met;
    }
    free(w.nodes);
    free(w.meshes);
    free(w.node_seen);
    free(w.mesh_seen);
    free(w.mat_seen);
    return met;
}

static void read_material(const cJSON *m, sr_gltf_material *out, char *unsupported, size_t cap)
{
    const cJSON *pbr = cJSON_GetObjectItemCaseSensitive(m, "pbrMetallicRoughness");
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(pbr, "baseColorTexture");
    int tc = 0;
    if (cJSON_IsObject(base)) {
        out->has_uv_xf = texture_xf(base, out->uv_xf, &tc);
        out->other_texcoord |= tc != 0;
    }
    /* (the occlusion texture is not sampled: its transform does not matter) */
    const cJSON *others[] = {
        [SR_GLTF_XF_MR] = cJSON_GetObjectItemCaseSensitive(pbr, "metallicRoughnessTexture"),
        [SR_GLTF_XF_NORMAL] = cJSON_GetObjectItemCaseSensitive(m, "normalTexture"),
        [SR_GLTF_XF_EMIT] = cJSON_GetObjectItemCaseSensitive(m, "emissiveTexture"),
    };
    for (int k = 0; k < 3; k++) {
        if (!cJSON_IsObject(others[k])) continue;
        float xf[6] = { 1, 0, 0, 0, 1, 0 };
        const int has = texture_xf(others[k], xf, &tc);
        out->other_texcoord |= tc != 0;
        if (has != out->has_uv_xf || (has && memcmp(xf, out->uv_xf, sizeof xf))) {
            if (relative_xf(out->has_uv_xf ? out->uv_xf : NULL, xf, out->tex_xf[k])) out->has_tex_xf[k] = 1;
            else out->other_xf = 1;
        }
    }
    out->normal_scale = num(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "normalTexture"), "scale"), 1.0f);
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(m, "alphaMode");
    if (cJSON_IsString(mode))
        out->alpha_mode = !strcmp(mode->valuestring, "MASK") ? SR_ALPHA_MASK
                        : !strcmp(mode->valuestring, "BLEND") ? SR_ALPHA_BLEND : SR_ALPHA_OPAQUE;
    out->alpha_cutoff = num(cJSON_GetObjectItemCaseSensitive(m, "alphaCutoff"), 0.5f);
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(m, "extensions");
    const cJSON *es = cJSON_GetObjectItemCaseSensitive(ext, "KHR_materials_emissive_strength");
    const float k = num(cJSON_GetObjectItemCaseSensitive(es, "emissiveStrength"), 1.0f);
    if (k >= 0.0f) out->emissive_strength = k;
    const cJSON *ior = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ext, "KHR_materials_ior"), "ior");
    if (ior) {
        const float v = num(ior, 0.0f);
        if (v >= 1.0f) out->ior = v;
        else out->bad_ior = 1;
    }
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(ext, "KHR_materials_transmission");
    out->transmission = fminf(fmaxf(num(cJSON_GetObjectItemCaseSensitive(tr, "transmissionFactor"), 0.0f), 0.0f), 1.0f);
    for (const cJSON *e = ext ? ext->child : NULL; e; e = e->next) add_unsupported(unsupported, cap, e->string);
}

sr_status sr_gltf_materials_read(const char *path, const char *ext, uint64_t size, sr_gltf_materials *out, sr_error *err)
{
    memset(out, 0, sizeof *out);
    out->is_gltf = 1;
    char *json = NULL;
    size_t len = 0;
    sr_status st = sr_gltf_json_read(path, ext, size, &json, &len, err);
    if (st || !json) return st;
    cJSON *root = cJSON_ParseWithLength(json, len);
    free(json);
    if (!root) return SR_OK;
    const cJSON *used = cJSON_GetObjectItemCaseSensitive(root, "extensionsUsed");
    for (const cJSON *e = cJSON_IsArray(used) ? used->child : NULL; e; e = e->next)
        if (cJSON_IsString(e)) add_unsupported(out->unsupported, sizeof out->unsupported, e->valuestring);
    const cJSON *mats = cJSON_GetObjectItemCaseSensitive(root, "materials");
    const int n = cJSON_IsArray(mats) ? cJSON_GetArraySize(mats) : 0;
    if (n > 0) {
        out->mats = calloc((size_t)n, sizeof *out->mats);
        if (!out->mats) {
            cJSON_Delete(root);
            return sr_fail(err, SR_ERR_RUNTIME, "out of memory reading the materials of mesh file %s", path);
        }
        int k = 0;
        for (const cJSON *m = mats->child; m; m = m->next, k++) {
            out->mats[k].emissive_strength = 1.0f;
            out->mats[k].alpha_cutoff = 0.5f;
            out->mats[k].normal_scale = 1.0f;
            out->mats[k].ior = 1.5f;
            if (cJSON_IsObject(m)) read_material(m, &out->mats[k], out->unsupported, sizeof out->unsupported);
        }
        /* into assimp's order (assimp_material_order) */
        int *order = malloc((size_t)n * sizeof *order);
        sr_gltf_material *sorted = calloc((size_t)n, sizeof *sorted);
        const int met = order && sorted ? assimp_material_order(root, n, order) : -1;
        if (met < 0) {
            free(order);
            free(sorted);
            sr_gltf_materials_free(out);
            cJSON_Delete(root);
            return sr_fail(err, SR_ERR_RUNTIME, "out of memory reading the materials of mesh file %s", path);
        }
        for (int i = 0; i < met; i++) sorted[i] = out->mats[order[i]];
        free(order);
        free(out->mats);
        out->mats = sorted;
        out->count = (uint32_t)met;
    }
    cJSON_Delete(root);
    return SR_OK;
}

void sr_gltf_materials_free(sr_gltf_materials *gm)
{
    if (!gm) return;
    free(gm->mats);
    gm->mats = NULL;
    gm->count = 0;
}

void sr_gltf_uv_apply(const float xf[6], float *u, float *v)
{
    const float gu = *u, gv = 1.0f - *v;   /* glTF's v runs down the image; assimp flipped it */
    *u = xf[0] * gu + xf[1] * gv + xf[2];
    *v = 1.0f - (xf[3] * gu + xf[4] * gv + xf[5]);
}
