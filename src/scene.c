/* scene.c: a JSON scene file read into an sr_scene. jsondoc.c reads the JSON (strictly, with
 * positions); this file says what a scene may hold, and every error names path:line:column,
 * the JSON path of the key, what is wrong and what is expected. */
#include "scene.h"
#include "mem_limits.h"
#include "jsondoc.h"
#include "mesh.h"
#include "outpath.h"
#include "envmap.h"
#include "interrupt.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file loader's error (mesh, texture, environment map) at the scene's "file" value. */
static sr_status loader_fail(sr_json_doc *c, const cJSON *file, const char *fjp, sr_status st, const sr_error *merr);

#define MAX_SCENE_BYTES ((size_t)256 << 20)   /* a scene is text; anything bigger is a mistake */

/* Value ranges (sr_json_range: lower and upper bound, each none, inclusive or exclusive). */
static const sr_json_range R_POS = {0, 0, SR_JSON_BOUND_EXCL, SR_JSON_BOUND_NONE};
static const sr_json_range R_NONNEG = {0, 0, SR_JSON_BOUND_INCL, SR_JSON_BOUND_NONE};
static const sr_json_range R_UNIT = {0, 1, SR_JSON_BOUND_INCL, SR_JSON_BOUND_INCL};
static const sr_json_range R_FOV = {0, 180, SR_JSON_BOUND_EXCL, SR_JSON_BOUND_EXCL};
static const sr_json_range R_IOR = {1, 0, SR_JSON_BOUND_INCL, SR_JSON_BOUND_NONE};
static const sr_json_range R_CREASE = {0, 180, SR_JSON_BOUND_INCL, SR_JSON_BOUND_INCL};

/* ---- the scene --------------------------------------------------------------------------- */

static const char *const top_keys[] = {"*camera", "image", "background", "ambient", "*materials", "*objects", "lights",
                                       "integrator", "sky", "environment", NULL};
static const char *const environment_keys[] = {"*file", "rotate", "intensity", NULL};
static const char *const integrator_names[] = {"whitted", "path", NULL};   /* sr_integrator order */
static const char *const sky_keys[] = {"*zenith", "*horizon", "ground", NULL};
static const char *const camera_keys[] = {"*position", "*look_at", "up", "fov", "aperture", "focus_distance", NULL};
static const char *const image_keys[] = {"width", "height", "spp", "max_depth", NULL};

static const char *const material_types[] = {"diffuse", "mirror", "metal", "glass", "emissive", "pbr", NULL};
static const char *const material_keys[][8] = {
    {"*type", "albedo", "checker", NULL},
    {"*type", "reflectance", NULL},
    {"*type", "albedo", "roughness", NULL},
    {"*type", "ior", "tint", NULL},
    {"*type", "*radiance", "albedo", "two_sided", NULL},
    {"*type", "base_color", "metallic", "roughness", "emission", "transmission", "ior", NULL},
};
static const char *const checker_keys[] = {"*color", "scale", NULL};

enum { OBJ_SPHERE, OBJ_PLANE, OBJ_QUAD, OBJ_MESH };
static const char *const object_types[] = {"sphere", "plane", "quad", "mesh", NULL};
static const char *const object_keys[][10] = {
    {"*type", "*center", "*radius", "*material", NULL},
    {"*type", "*point", "*normal", "*material", NULL},
    {"*type", "*corner", "*edge_u", "*edge_v", "*material", NULL},
    {"*type", "*file", "*material", "translate", "scale", "rotate", "normals", "crease_angle", NULL},
};

static const char *const light_types[] = {"point", "directional", NULL};
static const char *const light_keys[][5] = {
    {"*type", "*position", "color", "intensity", NULL},
    {"*type", "*direction", "color", "intensity", NULL},
};

static sr_status parse_camera(sr_json_doc *c, const cJSON *cam, sr_camera_desc *d)
{
    SR_TRY(sr_json_need_object(c, cam, "camera"));
    SR_TRY(sr_json_check_keys(c, cam, "camera", "the camera", camera_keys));
    SR_TRY(sr_json_opt_vec3(c, cam, "camera", "position", SR_JSON_VEC_ANY, sr_v3s(0), &d->position));
    SR_TRY(sr_json_opt_vec3(c, cam, "camera", "look_at", SR_JSON_VEC_ANY, sr_v3s(0), &d->look_at));
    SR_TRY(sr_json_opt_vec3(c, cam, "camera", "up", SR_JSON_VEC_DIR, sr_v3(0, 1, 0), &d->up));
    SR_TRY(sr_json_opt_float(c, cam, "camera", "fov", R_FOV, 40.0f, &d->vfov_deg));
    SR_TRY(sr_json_opt_float(c, cam, "camera", "aperture", R_NONNEG, 0.0f, &d->aperture));
    SR_TRY(sr_json_opt_float(c, cam, "camera", "focus_distance", R_NONNEG, 0.0f, &d->focus_distance));

    sr_vec3 view = sr_v3s(0.0f);
    if (!sr_json_unit_vector(sr_sub(d->look_at, d->position), &view))
        return sr_json_fail_val(c, sr_json_field(cam, "look_at"), "camera.look_at",
                                "must differ from camera.position (both are [%g, %g, %g]); the camera looks from position towards look_at",
                                d->position.x, d->position.y, d->position.z);
    sr_vec3 up = sr_v3s(0.0f);
    sr_json_unit_vector(d->up, &up);
    if (sr_length(sr_cross(up, view)) < 1e-5f) {
        const cJSON *at = sr_json_field(cam, "up");
        return sr_json_fail_val(c, at ? at : cam, "camera.up",
                                "%sup [%g, %g, %g] is parallel to the view direction (look_at - position); "
                                "expected an up vector that is not, e.g. [0, 0, 1]",
                                at ? "" : "the default ", d->up.x, d->up.y, d->up.z);
    }
    return SR_OK;
}

static sr_status parse_image(sr_json_doc *c, const cJSON *img, sr_scene *s)
{
    s->width = 640;
    s->height = 360;
    s->spp = 4;
    s->max_depth = 8;
    if (!img) return SR_OK;
    SR_TRY(sr_json_need_object(c, img, "image"));
    SR_TRY(sr_json_check_keys(c, img, "image", "the image", image_keys));
    SR_TRY(sr_json_opt_uint(c, img, "image", "width", 1, SR_MAX_RESOLUTION, 640, &s->width));
    SR_TRY(sr_json_opt_uint(c, img, "image", "height", 1, SR_MAX_RESOLUTION, 360, &s->height));
    SR_TRY(sr_json_opt_uint(c, img, "image", "spp", 1, SR_MAX_SPP, 4, &s->spp));
    SR_TRY(sr_json_opt_uint(c, img, "image", "max_depth", 1, SR_MAX_DEPTH, 8, &s->max_depth));
    return SR_OK;
}

/* A texture in place of a colour or a roughness: {"texture": file, "wrap", "filter", and
 * "tint" (colour) or "scale" (roughness)}. Appends the image to the scene's textures; *tex
 * gets 1 + its index, *factor the tint or scale. */
static const char *const texture_color_keys[] = {"*texture", "wrap", "filter", "tint", NULL};
static const char *const texture_data_keys[] = {"*texture", "wrap", "filter", "scale", NULL};
static const char *const wrap_names[] = {"repeat", "clamp", NULL};       /* SR_WRAP_* order   */
static const char *const filter_names[] = {"bilinear", "nearest", NULL}; /* SR_FILTER_* order */

static char *resolve_path(const char *scene_path, const char *file);

static sr_status parse_texture(sr_json_doc *c, const cJSON *t, const char *jp, int color, sr_scene *s, uint32_t *tex,
                               sr_vec3 *factor)
{
    SR_TRY(sr_json_check_keys(c, t, jp, color ? "a colour texture" : "a roughness texture",
                              color ? texture_color_keys : texture_data_keys));
    const cJSON *file = sr_json_field(t, "texture");
    char fjp[SR_JSON_PATH_MAX], got[96];
    sr_json_path_key(fjp, sizeof fjp, jp, "texture");
    if (!cJSON_IsString(file) || !file->valuestring[0]) {
        sr_json_describe(c, file, got, sizeof got);
        return sr_json_fail_val(c, file, fjp, "expected an image file path (PNG, JPEG, TGA or HDR, relative to the scene file), got %s", got);
    }
    int wrap = 0, filter = 0;
    const cJSON *n;
    char kjp[SR_JSON_PATH_MAX];
    if ((n = sr_json_field(t, "wrap"))) {
        sr_json_path_key(kjp, sizeof kjp, jp, "wrap");
        SR_TRY(sr_json_read_name(c, n, kjp, "wrap mode", wrap_names, &wrap));
    }
    if ((n = sr_json_field(t, "filter"))) {
        sr_json_path_key(kjp, sizeof kjp, jp, "filter");
        SR_TRY(sr_json_read_name(c, n, kjp, "filter", filter_names, &filter));
    }
    if (color) {
        SR_TRY(sr_json_opt_vec3(c, t, jp, "tint", SR_JSON_VEC_COLOR, sr_v3s(1.0f), factor));
    } else {
        float k = 1.0f;
        SR_TRY(sr_json_opt_float(c, t, jp, "scale", R_UNIT, 1.0f, &k));
        *factor = sr_v3s(k);
    }
    char *resolved = resolve_path(c->path, file->valuestring);
    if (!resolved) return sr_json_oom(c);
    sr_error terr;
    memset(&terr, 0, sizeof terr);
    uint32_t index = 0;
    sr_status st = sr_texture_load(resolved, color, (uint32_t)wrap, (uint32_t)filter, &s->tex, &index, &terr);
    free(resolved);
    SR_TRY(loader_fail(c, file, fjp, st, &terr));
    *tex = index + 1u;
    return SR_OK;
}

/* "roughness": a number in [0, 1] (default `def`), or a data texture whose scale is the
 * factor. */
static sr_status parse_roughness(sr_json_doc *c, const cJSON *m, const char *jp, float def, sr_scene *s,
                                 sr_material *out)
{
    const cJSON *rv = sr_json_field(m, "roughness");
    if (!cJSON_IsObject(rv)) return sr_json_opt_float(c, m, jp, "roughness", R_UNIT, def, &out->roughness);
    char rjp[SR_JSON_PATH_MAX];
    sr_json_path_key(rjp, sizeof rjp, jp, "roughness");
    sr_vec3 k;
    SR_TRY(parse_texture(c, rv, rjp, 0, s, &out->rough_tex, &k));
    out->roughness = k.x;
    return SR_OK;
}

/* A colour key that may hold a texture object instead of [r, g, b]. */
static sr_status parse_color_or_texture(sr_json_doc *c, const cJSON *m, const char *jp, const char *key, sr_vec3 def,
                                        sr_scene *s, sr_vec3 *color, uint32_t *tex)
{
    const cJSON *v = sr_json_field(m, key);
    if (!cJSON_IsObject(v)) return sr_json_opt_vec3(c, m, jp, key, SR_JSON_VEC_COLOR, def, color);
    char kjp[SR_JSON_PATH_MAX];
    sr_json_path_key(kjp, sizeof kjp, jp, key);
    return parse_texture(c, v, kjp, 1, s, tex, color);
}

static sr_status parse_material(sr_json_doc *c, const cJSON *m, const char *jp, sr_scene *s, sr_material *out)
{
    SR_TRY(sr_json_need_object(c, m, jp));
    int kind = 0;
    SR_TRY(sr_json_read_type(c, m, jp, "material", material_types, &kind));
    char what[48];
    snprintf(what, sizeof what, "%s %s material", kind == SR_MAT_EMISSIVE ? "an" : "a", material_types[kind]);
    SR_TRY(sr_json_check_keys(c, m, jp, what, material_keys[kind]));
    memset(out, 0, sizeof *out);
    out->kind = (uint32_t)kind;
    out->ior = 1.0f;
    switch (kind) {
    case SR_MAT_DIFFUSE: {
        SR_TRY(parse_color_or_texture(c, m, jp, "albedo", sr_v3s(0.8f), s, &out->color, &out->color_tex));
        const cJSON *ch = sr_json_field(m, "checker");
        if (ch && out->color_tex) {
            char cjp[SR_JSON_PATH_MAX];
            sr_json_path_key(cjp, sizeof cjp, jp, "checker");
            return sr_json_fail_key(c, ch, cjp, "a material has a checker or an albedo texture, not both");
        }
        if (ch) {
            char cjp[SR_JSON_PATH_MAX];
            sr_json_path_key(cjp, sizeof cjp, jp, "checker");
            SR_TRY(sr_json_need_object(c, ch, cjp));
            SR_TRY(sr_json_check_keys(c, ch, cjp, "the checker", checker_keys));
            SR_TRY(sr_json_opt_vec3(c, ch, cjp, "color", SR_JSON_VEC_COLOR, sr_v3s(0), &out->color2));
            SR_TRY(sr_json_opt_float(c, ch, cjp, "scale", R_POS, 1.0f, &out->checker_scale));
        }
        break;
    }
    case SR_MAT_MIRROR:
        SR_TRY(parse_color_or_texture(c, m, jp, "reflectance", sr_v3s(1.0f), s, &out->color, &out->color_tex));
        break;
    case SR_MAT_METAL:
        SR_TRY(parse_color_or_texture(c, m, jp, "albedo", sr_v3s(0.8f), s, &out->color, &out->color_tex));
        SR_TRY(parse_roughness(c, m, jp, 0.0f, s, out));
        break;
    case SR_MAT_GLASS:
        SR_TRY(sr_json_opt_float(c, m, jp, "ior", R_IOR, 1.5f, &out->ior));
        SR_TRY(sr_json_opt_vec3(c, m, jp, "tint", SR_JSON_VEC_COLOR, sr_v3s(1.0f), &out->color));
        break;
    case SR_MAT_PBR: {
        SR_TRY(parse_color_or_texture(c, m, jp, "base_color", sr_v3s(0.8f), s, &out->color, &out->color_tex));
        SR_TRY(sr_json_opt_float(c, m, jp, "metallic", R_UNIT, 0.0f, &out->metallic));
        SR_TRY(parse_roughness(c, m, jp, 0.5f, s, out));
        SR_TRY(sr_json_opt_vec3(c, m, jp, "emission", SR_JSON_VEC_COLOR, sr_v3s(0), &out->color2));
        float transmission = 0.0f;
        SR_TRY(sr_json_opt_float(c, m, jp, "transmission", R_UNIT, 0.0f, &transmission));
        SR_TRY(sr_json_opt_float(c, m, jp, "ior", R_IOR, 1.5f, &out->ior));
        if (transmission >= 0.5f) {   /* mostly transmissive: the glass model, tinted by the base colour */
            if (out->color_tex || out->rough_tex) {
                char tjp[SR_JSON_PATH_MAX];
                sr_json_path_key(tjp, sizeof tjp, jp, "transmission");
                return sr_json_fail_val(c, sr_json_field(m, "transmission"), tjp,
                                        "a transmissive pbr material becomes glass, which takes no textures; expected "
                                        "plain base_color and roughness");
            }
            out->kind = SR_MAT_GLASS;
        }
        break;
    }
    default: {
        SR_TRY(sr_json_opt_vec3(c, m, jp, "radiance", SR_JSON_VEC_COLOR, sr_v3s(0), &out->color));
        SR_TRY(sr_json_opt_vec3(c, m, jp, "albedo", SR_JSON_VEC_COLOR, sr_v3s(0), &out->color2));
        bool two = false;
        SR_TRY(sr_json_opt_bool(c, m, jp, "two_sided", false, &two));
        out->two_sided = two ? 1u : 0u;
        break;
    }
    }
    return SR_OK;
}

/* Material names sorted for lookup; equal names sort by document order. */
typedef struct name_ix { const char *name; uint32_t ix; } name_ix;

static int name_ix_cmp(const void *a, const void *b)
{
    const name_ix *x = a, *y = b;
    int d = strcmp(x->name, y->name);
    return d ? d : (x->ix > y->ix) - (x->ix < y->ix);
}

static sr_status parse_materials(sr_json_doc *c, const cJSON *mats, sr_scene *s, name_ix **sorted)
{
    SR_TRY(sr_json_need_object(c, mats, "materials"));
    int n = cJSON_GetArraySize(mats);
    if (n == 0) return SR_OK;
    s->materials = calloc((size_t)n, sizeof *s->materials);
    s->material_names = calloc((size_t)n, sizeof *s->material_names);
    *sorted = calloc((size_t)n, sizeof **sorted);
    if (!s->materials || !s->material_names || !*sorted) return sr_json_oom(c);

    const cJSON *m = mats->child;
    for (uint32_t i = 0; m; m = m->next, i++) {
        const char *name = m->string ? m->string : "";
        char jp[SR_JSON_PATH_MAX];
        sr_json_path_key(jp, sizeof jp, "materials", name);
        if (!name[0]) return sr_json_fail_key(c, m, jp, "material names must not be empty");
        s->material_names[i] = strdup(name);
        if (!s->material_names[i]) return sr_json_oom(c);
        s->material_count = i + 1;
        (*sorted)[i].name = s->material_names[i];
        (*sorted)[i].ix = i;
    }
    /* Duplicates before contents, so that "floor" given twice is reported as such. */
    qsort(*sorted, (size_t)n, sizeof **sorted, name_ix_cmp);
    uint32_t dup = UINT32_MAX, first = 0;
    for (size_t i = 1, g = 0; i < (size_t)n; i++) {   /* g: start of the run of equal names */
        if (strcmp((*sorted)[i].name, (*sorted)[g].name) != 0) { g = i; continue; }
        if ((*sorted)[i].ix < dup) { dup = (*sorted)[i].ix; first = (*sorted)[g].ix; }
    }
    if (dup != UINT32_MAX) {
        const cJSON *a = cJSON_GetArrayItem(mats, (int)first), *b = cJSON_GetArrayItem(mats, (int)dup);
        char jp[SR_JSON_PATH_MAX], safe[64], where[48];
        sr_json_path_key(jp, sizeof jp, "materials", s->material_names[dup]);
        sr_json_sanitize(safe, sizeof safe, s->material_names[dup]);
        sr_json_where(c, a, where, sizeof where);
        return sr_json_fail_key(c, b, jp, "duplicate material name \"%s\" (first given %s); give each material a different name",
                                safe, where);
    }

    m = mats->child;
    for (uint32_t i = 0; m; m = m->next, i++) {
        char jp[SR_JSON_PATH_MAX];
        sr_json_path_key(jp, sizeof jp, "materials", s->material_names[i]);
        SR_TRY(parse_material(c, m, jp, s, &s->materials[i]));
    }
    return SR_OK;
}

/* The scene's material named by obj's "material": one of the `named` materials of the
 * "materials" table (a mesh's file materials, appended after them, have no names to look up). */
static sr_status lookup_material(sr_json_doc *c, const cJSON *obj, const char *jp, const sr_scene *s,
                                 const name_ix *sorted, uint32_t named, uint32_t *out)
{
    const cJSON *m = sr_json_field(obj, "material");
    char mjp[SR_JSON_PATH_MAX], got[96];
    sr_json_path_key(mjp, sizeof mjp, jp, "material");
    if (!cJSON_IsString(m)) {
        sr_json_describe(c, m, got, sizeof got);
        return sr_json_fail_val(c, m, mjp, "expected a string naming one of the materials, got %s", got);
    }
    if (sorted && named) {
        size_t lo = 0, hi = named;
        while (lo < hi) {   /* the first entry >= the name: the first in document order */
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(sorted[mid].name, m->valuestring) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo < named && strcmp(sorted[lo].name, m->valuestring) == 0) {
            *out = sorted[lo].ix;
            return SR_OK;
        }
    }
    sr_json_sanitize(got, 48, m->valuestring);
    if (!named)
        return sr_json_fail_val(c, m, mjp, "unknown material \"%s\"; no materials are defined (add it to \"materials\")", got);
    char list[400], sug[96];
    size_t n = 0;
    list[0] = '\0';
    for (uint32_t i = 0; i < named; i++) {
        char safe[48];
        sr_json_sanitize(safe, sizeof safe, s->material_names[i]);
        int w = snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", safe);
        if (w < 0 || (size_t)w >= sizeof list - n) {
            if (n + 5 < sizeof list) strcpy(list + n, ", ...");
            break;
        }
        n += (size_t)w;
    }
    sr_json_suggest(sug, sizeof sug, m->valuestring, (const char *const *)s->material_names, named, false);
    return sr_json_fail_val(c, m, mjp, "unknown material \"%s\"%s; defined materials: %s", got, sug, list);
}

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

/* A mesh path relative to the scene file's folder; absolute paths are kept. */
static char *resolve_path(const char *scene_path, const char *file)
{
    const char *slash = strrchr(scene_path, '/');
    size_t dir = (file[0] == '/' || !slash) ? 0 : (size_t)(slash - scene_path) + 1;
    size_t n = strlen(file);
    char *out = malloc(dir + n + 1);
    if (!out) return NULL;
    memcpy(out, scene_path, dir);
    memcpy(out + dir, file, n + 1);
    return out;
}

static bool textured(const sr_scene *s, uint32_t mat)
{
    return (s->materials[mat].color_tex | s->materials[mat].rough_tex) != 0;
}

/* The notice a mesh file gets for what it holds that is not used, kept for the caller. */
static sr_status add_notice(sr_json_doc *c, sr_scene *s, const char *mesh, const char *what)
{
    if (!what[0]) return SR_OK;
    char line[1536];
    char clean[1024];
    sr_json_sanitize(clean, sizeof clean, mesh);
    snprintf(line, sizeof line, "notice: mesh file %s: not used: %s\n", clean, what);
    size_t have = s->notices ? strlen(s->notices) : 0, add = strlen(line);
    char *grown = realloc(s->notices, have + add + 1);
    if (!grown) return sr_json_oom(c);
    memcpy(grown + have, line, add + 1);
    s->notices = grown;
    return SR_OK;
}

/* "material": "file": the mesh file's materials appended to the scene's (named
 * "<file>:<name>"), their base colour images loaded as textures. */
static sr_status add_file_materials(sr_json_doc *c, const cJSON *file, const char *fjp, sr_scene *s, const char *mesh,
                                    const sr_file_material *fm, uint32_t n)
{
    sr_material *mats = realloc(s->materials, ((size_t)s->material_count + n) * sizeof *mats);
    if (!mats) return sr_json_oom(c);
    s->materials = mats;
    char **names = realloc(s->material_names, ((size_t)s->material_count + n) * sizeof *names);
    if (!names) return sr_json_oom(c);
    s->material_names = names;
    const char *base = strrchr(mesh, '/');
    base = base ? base + 1 : mesh;
    for (uint32_t k = 0; k < n; k++) {
        char name[256];
        snprintf(name, sizeof name, "%s:%s", base, fm[k].name[0] ? fm[k].name : "unnamed");
        s->material_names[s->material_count] = strdup(name);
        if (!s->material_names[s->material_count]) return sr_json_oom(c);
        s->materials[s->material_count] = fm[k].m;
        s->material_count++;
        if (!fm[k].texture[0]) continue;
        sr_error terr;
        memset(&terr, 0, sizeof terr);
        uint32_t index = 0;
        sr_status st = sr_texture_load(fm[k].texture, 1, SR_WRAP_REPEAT, SR_FILTER_BILINEAR, &s->tex, &index, &terr);
        char clean[sizeof terr.msg];
        sr_json_sanitize(clean, sizeof clean, terr.msg);
        if (st == SR_ERR_INPUT)
            return sr_json_fail_val(c, file, fjp, "material \"%s\" of the mesh file: %s", fm[k].name, clean);
        if (st != SR_OK) return sr_fail(c->err, st, "%s: %s: %s", c->path, fjp, clean);
        s->materials[s->material_count - 1u].color_tex = index + 1u;
    }
    return SR_OK;
}

static sr_status parse_mesh(sr_json_doc *c, const cJSON *o, const char *jp, sr_scene *s, uint32_t mat,
                            prim_buf *prims, bool file_materials)
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
    SR_TRY(sr_json_opt_vec3(c, o, jp, "translate", SR_JSON_VEC_ANY, sr_v3s(0), &xf.translate));
    SR_TRY(sr_json_opt_float(c, o, jp, "scale", R_POS, 1.0f, &xf.scale));
    SR_TRY(sr_json_opt_vec3(c, o, jp, "rotate", SR_JSON_VEC_ANY, sr_v3s(0), &xf.rotate_deg));
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
    mo.keep_uv = file_materials || textured(s, mat);
    const uint32_t first = *prims->count;
    sr_file_material *fm = NULL;
    uint32_t fm_count = 0;
    char notice[768] = "";
    mo.notice = notice;
    mo.notice_cap = sizeof notice;
    if (file_materials) {
        mat = s->material_count;   /* the file's materials go at the end of the table */
        mo.file_mats = &fm;
        mo.file_mat_count = &fm_count;
    }

    char *resolved = resolve_path(c->path, file->valuestring);
    if (!resolved) return sr_json_oom(c);
    sr_error merr;
    memset(&merr, 0, sizeof merr);
    sr_status st = sr_mesh_load_ex(resolved, &xf, mat, &mo, prims->items, prims->count, prims->attrs, &merr);
    prims->cap = *prims->count;   /* the mesh loader sized the array to fit                 */
    sr_status st2 = SR_OK;        /* a failure below has its message in c->err already      */
    if (st == SR_OK && file_materials) st2 = add_file_materials(c, file, fjp, s, resolved, fm, fm_count);
    if (st == SR_OK && st2 == SR_OK) st2 = add_notice(c, s, resolved, notice);
    free(fm);
    free(resolved);
    if (st2 != SR_OK) return st2;
    SR_TRY(loader_fail(c, file, fjp, st, &merr));
    if (mo.keep_uv)
        for (uint32_t i = first; i < *prims->count; i++)
            if (textured(s, (*prims->items)[i].material) && (!*prims->attrs || !((*prims->attrs)[i].flags & SR_ATTR_UV))) {
                char clean[sizeof merr.msg];
                sr_json_sanitize(clean, sizeof clean, file->valuestring);
                return sr_json_fail_val(c, file, fjp, "mesh file %s has no texture coordinates (OBJ vt, glTF TEXCOORD_0), "
                                        "but material \"%s\" has a texture; expected a mesh with UVs or an untextured material",
                                        clean, s->material_names[(*prims->items)[i].material]);
            }
    return SR_OK;
}

/* A file loader's error at the scene's "file" value. The message quotes the path (and the
 * library's words): no control bytes on the terminal. */
static sr_status loader_fail(sr_json_doc *c, const cJSON *file, const char *fjp, sr_status st, const sr_error *merr)
{
    char clean[sizeof merr->msg];
    sr_json_sanitize(clean, sizeof clean, merr->msg);
    if (st == SR_ERR_INPUT) return sr_json_fail_val(c, file, fjp, "%s", clean);
    if (st != SR_OK) return sr_fail(c->err, st, "%s: %s: %s", c->path, fjp, clean);
    return SR_OK;
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
        char *resolved = resolve_path(c->path, file->valuestring);
        if (!resolved) return sr_json_oom(c);
        sr_error merr;
        memset(&merr, 0, sizeof merr);
        uint64_t size = 0, ref_bytes = 0;
        sr_status st = sr_mesh_inputs_check(resolved, &size, &ref_bytes, &merr);
        free(resolved);
        SR_TRY(loader_fail(c, file, fjp, st, &merr));
    }
    return SR_OK;
}

static sr_status parse_objects(sr_json_doc *c, const cJSON *objs, sr_scene *s, const name_ix *sorted, uint32_t named)
{
    SR_TRY(sr_json_need_array(c, objs, "objects"));
    if (!objs->child)
        return sr_json_fail_val(c, objs, "objects", "must contain at least one object (sphere, plane, quad or mesh)");
    if (sr_output_guard_active()) SR_TRY(check_mesh_inputs(c, objs));
    prim_buf prims = {&s->prims, &s->prim_count, 0, &s->attrs};
    prim_buf planes = {&s->planes, &s->plane_count, 0, NULL};
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
        if (!file_materials) SR_TRY(lookup_material(c, o, jp, s, sorted, named, &mat));
        if ((kind == OBJ_SPHERE || kind == OBJ_PLANE) && textured(s, mat)) {
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
            SR_TRY(parse_mesh(c, o, jp, s, mat, &prims, file_materials));
            break;
        }
    }
    return SR_OK;
}

static sr_status parse_lights(sr_json_doc *c, const cJSON *ls, sr_scene *s)
{
    if (!ls) return SR_OK;
    SR_TRY(sr_json_need_array(c, ls, "lights"));
    int n = cJSON_GetArraySize(ls);
    if (n == 0) return SR_OK;
    s->lights = calloc((size_t)n, sizeof *s->lights);
    if (!s->lights) return sr_json_oom(c);
    size_t i = 0;
    for (const cJSON *l = ls->child; l; l = l->next, i++) {
        char jp[SR_JSON_PATH_MAX];
        sr_json_path_index(jp, sizeof jp, "lights", i);
        SR_TRY(sr_json_need_object(c, l, jp));
        int kind = 0;
        SR_TRY(sr_json_read_type(c, l, jp, "light", light_types, &kind));
        char what[32];
        snprintf(what, sizeof what, "a %s light", light_types[kind]);
        SR_TRY(sr_json_check_keys(c, l, jp, what, light_keys[kind]));
        sr_light *out = &s->lights[i];
        sr_vec3 color;
        float intensity;
        out->kind = (uint32_t)kind;
        if (kind == SR_LIGHT_POINT) {
            SR_TRY(sr_json_opt_vec3(c, l, jp, "position", SR_JSON_VEC_ANY, sr_v3s(0), &out->v));
        } else {
            SR_TRY(sr_json_opt_vec3(c, l, jp, "direction", SR_JSON_VEC_DIR, sr_v3(0, -1, 0), &out->v));
            sr_json_unit_vector(out->v, &out->v);
        }
        SR_TRY(sr_json_opt_vec3(c, l, jp, "color", SR_JSON_VEC_COLOR, sr_v3s(1), &color));
        SR_TRY(sr_json_opt_float(c, l, jp, "intensity", R_NONNEG, 1.0f, &intensity));
        out->power = sr_scale(color, intensity);
        if (!isfinite(out->power.x) || !isfinite(out->power.y) || !isfinite(out->power.z)) {
            char ijp[SR_JSON_PATH_MAX];
            sr_json_path_key(ijp, sizeof ijp, jp, "intensity");
            return sr_json_fail_val(c, sr_json_field(l, "intensity") ? sr_json_field(l, "intensity") : l, ijp,
                                    "color x intensity is too large for a 32-bit float; expected a product below 3.4e38");
        }
        s->light_count = (uint32_t)i + 1;
    }
    return SR_OK;
}

/* "integrator": "whitted" (default) or "path". */
static sr_status parse_integrator(sr_json_doc *c, const cJSON *n, sr_scene *s)
{
    s->integrator = SR_INTEGRATOR_WHITTED;
    if (!n) return SR_OK;
    int which = 0;
    SR_TRY(sr_json_read_name(c, n, "integrator", "integrator", integrator_names, &which));
    s->integrator = (uint32_t)which;
    return SR_OK;
}

/* "sky": {"zenith", "horizon", "ground"}: a gradient instead of the uniform "background". */
static sr_status parse_sky(sr_json_doc *c, const cJSON *root, sr_scene *s)
{
    const cJSON *sky = sr_json_field(root, "sky");
    if (!sky) return SR_OK;
    const cJSON *bg = sr_json_field(root, "background");
    if (bg) {   /* point at whichever of the two comes second */
        bool sky_later = sr_json_key_off(c, sky) > sr_json_key_off(c, bg);
        return sr_json_fail_key(c, sky_later ? sky : bg, sky_later ? "sky" : "background",
                                "\"background\" and \"sky\" are both given; give one: \"background\" is a uniform colour, "
                                "\"sky\" a gradient by direction");
    }
    SR_TRY(sr_json_need_object(c, sky, "sky"));
    SR_TRY(sr_json_check_keys(c, sky, "sky", "the sky", sky_keys));
    SR_TRY(sr_json_opt_vec3(c, sky, "sky", "zenith", SR_JSON_VEC_COLOR, sr_v3s(0), &s->sky_zenith));
    SR_TRY(sr_json_opt_vec3(c, sky, "sky", "horizon", SR_JSON_VEC_COLOR, sr_v3s(0), &s->sky_horizon));
    SR_TRY(sr_json_opt_vec3(c, sky, "sky", "ground", SR_JSON_VEC_COLOR, s->sky_horizon, &s->sky_ground));
    s->has_sky = 1;
    return SR_OK;
}

/* A rotation's columns: X, then Y, then Z, in degrees (as meshes turn), in double. */
static void rotation_columns(sr_vec3 deg, sr_vec3 cols[3])
{
    const double k = 3.14159265358979323846 / 180.0;
    const double sx = sin(deg.x * k), cx = cos(deg.x * k), sy = sin(deg.y * k), cy = cos(deg.y * k);
    const double sz = sin(deg.z * k), cz = cos(deg.z * k);
    for (int a = 0; a < 3; a++) {
        double x = a == 0, y = a == 1, z = a == 2, p, q;
        p = y * cx - z * sx; q = y * sx + z * cx; y = p; z = q;
        p = x * cy + z * sy; q = -x * sy + z * cy; x = p; z = q;
        p = x * cz - y * sz; q = x * sz + y * cz; x = p; y = q;
        cols[a] = sr_v3((float)x, (float)y, (float)z);
    }
}

/* "environment": {"file", "rotate", "intensity"}: an equirectangular map around the scene. */
static sr_status parse_environment(sr_json_doc *c, const cJSON *root, sr_scene *s)
{
    const cJSON *env = sr_json_field(root, "environment");
    if (!env) return SR_OK;
    const char *const other[] = {"background", "sky"};
    for (int k = 0; k < 2; k++) {
        const cJSON *o = sr_json_field(root, other[k]);
        if (!o) continue;
        bool env_later = sr_json_key_off(c, env) > sr_json_key_off(c, o);
        return sr_json_fail_key(c, env_later ? env : o, env_later ? "environment" : other[k],
                                "\"%s\" and \"environment\" are both given; give one of \"background\", \"sky\" and "
                                "\"environment\"", other[k]);
    }
    SR_TRY(sr_json_need_object(c, env, "environment"));
    SR_TRY(sr_json_check_keys(c, env, "environment", "the environment", environment_keys));
    const cJSON *file = sr_json_field(env, "file");
    if (!cJSON_IsString(file) || !file->valuestring[0]) {
        char got[96];
        sr_json_describe(c, file, got, sizeof got);
        return sr_json_fail_val(c, file, "environment.file",
                                "expected an image file path (an equirectangular Radiance HDR, PNG or JPEG), got %s", got);
    }
    sr_vec3 rot;
    SR_TRY(sr_json_opt_vec3(c, env, "environment", "rotate", SR_JSON_VEC_ANY, sr_v3s(0), &rot));
    SR_TRY(sr_json_opt_float(c, env, "environment", "intensity", R_NONNEG, 1.0f, &s->env_intensity));
    rotation_columns(rot, s->env_rot);
    char *resolved = resolve_path(c->path, file->valuestring);
    if (!resolved) return sr_json_oom(c);
    sr_error terr;
    memset(&terr, 0, sizeof terr);
    uint32_t index = 0;
    sr_status st = sr_texture_load(resolved, 1, SR_WRAP_REPEAT, SR_FILTER_NEAREST, &s->tex, &index, &terr);
    free(resolved);
    if (st == SR_OK) {
        const sr_texture *t = &s->tex.items[index];
        char what[96];
        snprintf(what, sizeof what, "the environment map's sampling distribution (%ux%u)", t->width, t->height);
        st = sr_check_host_memory(sr_env_build_bytes(t->width, t->height), what, "", &terr);
        if (st == SR_OK) st = sr_env_build(t, s->tex.texels, &s->env_marginal, &s->env_conditional, &s->env_pdf, &terr);
    }
    SR_TRY(loader_fail(c, file, "environment.file", st, &terr));
    s->env_tex = index + 1u;
    return SR_OK;
}

static sr_status parse_root(sr_json_doc *c, const cJSON *root, sr_scene *s)
{
    s->path = strdup(c->path);
    if (!s->path) return sr_json_oom(c);
    if (!cJSON_IsObject(root)) {
        char got[96];
        sr_json_describe(c, root, got, sizeof got);
        return sr_json_fail_val(c, root, "",
                                "the top level must be an object ({ \"camera\": ..., \"materials\": ..., \"objects\": ... }), got %s", got);
    }
    SR_TRY(sr_json_check_keys(c, root, "", "a scene", top_keys));
    SR_TRY(parse_camera(c, sr_json_field(root, "camera"), &s->camera));
    SR_TRY(parse_image(c, sr_json_field(root, "image"), s));
    SR_TRY(sr_json_opt_vec3(c, root, "", "background", SR_JSON_VEC_COLOR, sr_v3s(0), &s->background));
    SR_TRY(parse_sky(c, root, s));
    SR_TRY(parse_environment(c, root, s));
    SR_TRY(parse_integrator(c, sr_json_field(root, "integrator"), s));
    SR_TRY(sr_json_opt_vec3(c, root, "", "ambient", SR_JSON_VEC_COLOR, sr_v3s(0), &s->ambient));
    name_ix *sorted = NULL;
    sr_status st = parse_materials(c, sr_json_field(root, "materials"), s, &sorted);
    if (st == SR_OK) st = parse_objects(c, sr_json_field(root, "objects"), s, sorted, s->material_count);
    free(sorted);
    SR_TRY(st);
    return parse_lights(c, sr_json_field(root, "lights"), s);
}

/* ---- entry points ------------------------------------------------------------------------ */

sr_status sr_scene_parse(const char *path, const char *text, size_t len, sr_scene *out, sr_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path) path = "<scene>";
    if (!out) return sr_fail(err, SR_ERR_RUNTIME, "%s: sr_scene_parse: no output", path);
    sr_json_doc c;
    sr_status st = sr_json_open(&c, path, text, len, "an object with \"camera\", \"materials\" and \"objects\"", err);
    if (st != SR_OK) return st;
    sr_scene s;
    memset(&s, 0, sizeof s);
    st = parse_root(&c, c.root, &s);
    sr_json_close(&c);
    if (st != SR_OK) {
        sr_scene_free(&s);
        return st;
    }
    *out = s;
    return SR_OK;
}

#define SR_SCENE_PARSE_FACTOR 16u

sr_status sr_scene_load(const char *path, sr_scene *out, sr_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path) return sr_fail(err, SR_ERR_INPUT, "no scene file given");
    char *text = NULL;
    size_t len = 0;
    sr_status st = sr_json_read_file(path, "scene", MAX_SCENE_BYTES, &text, &len, err);
    if (st != SR_OK) return st;
    /* cJSON's tree, the positions and the scene's arrays: about 16x the text (an 85 MB scene
     * of a million spheres peaked at 1.26 GiB), budgeted before parsing. */
    char what[512];
    snprintf(what, sizeof what, "parsing scene file %.400s (%.1f MiB, about %ux its size)", path,
             (double)len / 1048576.0, SR_SCENE_PARSE_FACTOR);
    st = sr_check_host_memory((uint64_t)len * SR_SCENE_PARSE_FACTOR, what, "", err);
    if (st == SR_OK) st = sr_scene_parse(path, text, len, out, err);
    free(text);
    return st;
}

void sr_scene_free(sr_scene *scene)
{
    if (!scene) return;
    free(scene->path);
    free(scene->materials);
    if (scene->material_names)
        for (uint32_t i = 0; i < scene->material_count; i++) free(scene->material_names[i]);
    free(scene->material_names);
    free(scene->prims);
    free(scene->attrs);
    sr_texture_set_free(&scene->tex);
    free(scene->env_marginal);
    free(scene->env_conditional);
    free(scene->env_pdf);
    free(scene->notices);
    free(scene->planes);
    free(scene->lights);
    memset(scene, 0, sizeof *scene);
}

sr_camera sr_camera_make(const sr_camera_desc *d, uint32_t width, uint32_t height)
{
    sr_camera cam;
    memset(&cam, 0, sizeof cam);
    float aspect = height ? (float)width / (float)height : 1.0f;
    float focus = d->focus_distance > 0.0f ? d->focus_distance : sr_length(sr_sub(d->look_at, d->position));
    float h = tanf(d->vfov_deg * SR_PI / 360.0f);
    float vh = 2.0f * h * focus, vw = aspect * vh;
    sr_vec3 w = sr_normalize(sr_sub(d->position, d->look_at));
    sr_vec3 u = sr_normalize(sr_cross(d->up, w));
    sr_vec3 v = sr_cross(w, u);
    cam.origin = d->position;
    cam.horizontal = sr_scale(u, vw);
    cam.vertical = sr_scale(v, vh);
    cam.lower_left = sr_sub(sr_sub(sr_sub(cam.origin, sr_scale(cam.horizontal, 0.5f)), sr_scale(cam.vertical, 0.5f)),
                            sr_scale(w, focus));
    cam.u = u;
    cam.v = v;
    cam.lens_radius = 0.5f * d->aperture;
    return cam;
}

