/* scene_materials.c: a scene's "materials" table (scene_parse.h): each material by its
 * type, the textures that may stand for a colour or a roughness, the names objects look
 * materials up by, and the materials a mesh file brings ("material": "file"). */
#include "scene_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A texture in place of a colour or a roughness: {"texture": file, "wrap", "filter", and
 * "tint" (colour) or "scale" (roughness)}. Appends the image to the scene's textures; *tex
 * gets 1 + its index, *factor the tint or scale. */
static const char *const texture_color_keys[] = {"*texture", "wrap", "filter", "tint", NULL};
static const char *const texture_data_keys[] = {"*texture", "wrap", "filter", "scale", NULL};
static const char *const wrap_names[] = {"repeat", "clamp", NULL};       /* SR_WRAP_* order   */
static const char *const filter_names[] = {"bilinear", "nearest", NULL}; /* SR_FILTER_* order */

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
    char *resolved = sr_scene_resolve_path(c->path, file->valuestring);
    if (!resolved) return sr_json_oom(c);
    sr_error terr;
    memset(&terr, 0, sizeof terr);
    uint32_t index = 0;
    sr_status st = sr_texture_load(resolved, color, (uint32_t)wrap, (uint32_t)filter, &s->tex, &index, &terr);
    free(resolved);
    SR_TRY(sr_scene_loader_fail(c, file, fjp, st, &terr));
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
        out->spec_f0 = sr_pbr_f0(out->ior);
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
struct sr_name_ix { const char *name; uint32_t ix; };

static int name_ix_cmp(const void *a, const void *b)
{
    const sr_name_ix *x = a, *y = b;
    int d = strcmp(x->name, y->name);
    return d ? d : (x->ix > y->ix) - (x->ix < y->ix);
}

sr_status sr_scene_parse_materials(sr_json_doc *c, const cJSON *mats, sr_scene *s, sr_name_ix **sorted)
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
        sr_sanitize(safe, sizeof safe, s->material_names[dup]);
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

sr_status sr_scene_lookup_material(sr_json_doc *c, const cJSON *obj, const char *jp, const sr_scene *s,
                                   const sr_name_ix *sorted, uint32_t named, uint32_t *out)
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
    sr_sanitize(got, 48, m->valuestring);
    if (!named)
        return sr_json_fail_val(c, m, mjp, "unknown material \"%s\"; no materials are defined (add it to \"materials\")", got);
    char list[400], sug[96];
    size_t n = 0;
    list[0] = '\0';
    for (uint32_t i = 0; i < named; i++) {
        char safe[48];
        sr_sanitize(safe, sizeof safe, s->material_names[i]);
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

bool sr_scene_textured(const sr_scene *s, uint32_t mat)
{
    const sr_material *m = &s->materials[mat];
    return (m->color_tex | m->rough_tex | m->metal_tex | m->emit_tex | m->norm_tex) != 0;
}

/* One image of a file material into the scene's textures (a file, or bytes embedded in the
 * mesh file); *tex gets 1 + its index, or stays 0 when the material has no such image. */
static sr_status add_file_texture(sr_json_doc *c, const cJSON *file, const char *fjp, sr_scene *s, const char *mesh,
                                  const sr_file_material *fm, const sr_file_texture *t, int srgb, uint32_t *tex)
{
    if (!t->path && !t->bytes) return SR_OK;
    sr_error terr;
    memset(&terr, 0, sizeof terr);
    uint32_t index = 0;
    sr_status st;
    if (t->bytes) {
        char *name = sr_format("%s (%s)", mesh, t->name);
        if (!name) return sr_json_oom(c);
        st = sr_texture_load_memory(name, t->bytes, t->len, srgb, t->wrap, t->filter, &s->tex, &index, &terr);
        free(name);
    } else {
        st = sr_texture_load(t->path, srgb, t->wrap, t->filter, &s->tex, &index, &terr);
    }
    char clean[sizeof terr.msg], mesh_clean[512];
    sr_sanitize(clean, sizeof clean, terr.msg);
    sr_sanitize(mesh_clean, sizeof mesh_clean, mesh);
    if (st == SR_ERR_INPUT)
        return sr_json_fail_val(c, file, fjp, "material \"%s\" of mesh file %s: %s", fm->name, mesh_clean, clean);
    if (st != SR_OK) return sr_fail(c->err, st, "%s: %s: %s", c->path, fjp, clean);
    /* its own UV transform: another entry on the same texels */
    if (t->has_xf && (st = sr_texture_transformed(&s->tex, index, t->xf, &index, &terr)))
        return sr_fail(c->err, st, "%s: %s: %s", c->path, fjp, terr.msg);
    *tex = index + 1u;
    return SR_OK;
}

sr_status sr_scene_add_file_materials(sr_json_doc *c, const cJSON *file, const char *fjp, sr_scene *s, const char *mesh,
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
        s->material_names[s->material_count] = sr_format("%s:%s", base, fm[k].name[0] ? fm[k].name : "unnamed");
        if (!s->material_names[s->material_count]) return sr_json_oom(c);
        sr_material *m = &s->materials[s->material_count];
        *m = fm[k].m;
        s->material_count++;
        SR_TRY(add_file_texture(c, file, fjp, s, mesh, &fm[k], &fm[k].tex[SR_FTEX_BASE], 1, &m->color_tex));
        /* glTF's metallic-roughness image: roughness from G, metallic from B (linear data) */
        SR_TRY(add_file_texture(c, file, fjp, s, mesh, &fm[k], &fm[k].tex[SR_FTEX_MR], 0, &m->rough_tex));
        m->metal_tex = m->rough_tex;
        SR_TRY(add_file_texture(c, file, fjp, s, mesh, &fm[k], &fm[k].tex[SR_FTEX_EMIT], 1, &m->emit_tex));
        SR_TRY(add_file_texture(c, file, fjp, s, mesh, &fm[k], &fm[k].tex[SR_FTEX_NORMAL], 0, &m->norm_tex));
        SR_TRY(add_file_texture(c, file, fjp, s, mesh, &fm[k], &fm[k].tex[SR_FTEX_ALPHA], SR_DECODE_ALPHA, &m->alpha_tex));
    }
    return SR_OK;
}
