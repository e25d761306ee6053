/* scene_gltf.c: a glTF 2.0 file as (part of) a scene, the root's "gltf" (scene_parse.h): its
 * triangles and materials through the mesh loader, its cameras and KHR_lights_punctual lights
 * from io/gltf_scene.h, and the defaults a file that is the whole scene needs. */
#include "scene_parse.h"
#include "../io/gltf_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const gltf_keys[] = {"*file", "material", NULL};

/* glTF gives point and spot lights in candela (lm/sr) and directional lights in lux (lm/m^2);
 * the renderer's lights are radiometric: W/sr and W/m^2 (radiance 1 is white on the film).
 * One watt of light at 555 nm is 683 lumens (the SI definition of the candela), so
 * W/sr = cd / 683 and W/m^2 = lux / 683, for every colour alike (the file's colour is
 * already the light's linear RGB). A point light of 683 cd is "intensity": 1 in JSON. */
#define SR_LUMENS_PER_WATT 683.0f

/* The file's light g as the renderer's; a light whose watts or position overflow a float is
 * refused at the "gltf" key's file (path: the glTF file) naming the light. */
static sr_status convert_light(sr_json_doc *c, const cJSON *file, const char *path, const sr_gltf_light *g, sr_light *out)
{
    memset(out, 0, sizeof *out);
    out->kind = g->kind;
    out->power = sr_scale(g->color, g->intensity / SR_LUMENS_PER_WATT);
    if (g->kind == SR_LIGHT_DIRECTIONAL) {
        out->v = g->direction;
    } else {
        out->v = g->position;
    }
    if (g->kind == SR_LIGHT_SPOT) {
        out->axis = g->direction;
        /* glTF's cone: clamp((cos - cos_outer) / (cos_inner - cos_outer), 0, 1)^2 */
        const float cos_outer = cosf(g->outer_rad), cos_inner = cosf(g->inner_rad);
        out->cone_scale = 1.0f / sr_maxf(1e-3f, cos_inner - cos_outer);
        out->cone_offset = -cos_outer * out->cone_scale;
    }
    if (!isfinite(out->power.x) || !isfinite(out->power.y) || !isfinite(out->power.z) || !isfinite(out->v.x) ||
        !isfinite(out->v.y) || !isfinite(out->v.z))
    {
        char clean[512];
        sr_sanitize(clean, sizeof clean, path);
        return sr_json_fail_val(c, file, "gltf.file", "glTF file %s: KHR_lights_punctual.lights[%u]: its colour x "
                                "intensity or its node's position is too large for a 32-bit float; expected values "
                                "below 3.4e38", clean, g->index);
    }
    return SR_OK;
}

/* Append "notice: glTF file PATH: not used: WHAT\n" to the scene's notices. */
static sr_status add_notice(sr_json_doc *c, sr_scene *s, const char *file, const char *what)
{
    if (!what[0]) return SR_OK;
    char clean[512];
    sr_sanitize(clean, sizeof clean, file);
    char *line = sr_format("notice: glTF file %s: not used: %s\n", clean, what);
    if (!line) return sr_json_oom(c);
    size_t have = s->notices ? strlen(s->notices) : 0, add = strlen(line);
    char *grown = realloc(s->notices, have + add + 1);
    if (grown) memcpy(grown + have, line, add + 1);
    free(line);
    if (!grown) return sr_json_oom(c);
    s->notices = grown;
    return SR_OK;
}

/* The box of instance `in`: its mesh's box, its corners placed (in double). */
static void instance_bounds(const sr_scene *s, const sr_mesh_instance *in, sr_vec3 *lo, sr_vec3 *hi)
{
    const sr_shared_mesh *m = &s->shared_meshes[in->mesh];
    sr_vec3 mlo = sr_v3s(SR_INF), mhi = sr_v3s(-SR_INF);
    for (uint32_t i = m->first; i < m->first + m->count; i++) {
        const sr_prim *p = &s->shared_prims[i];
        mlo = sr_vmin(mlo, sr_vmin(p->a, sr_vmin(p->b, p->c)));
        mhi = sr_vmax(mhi, sr_vmax(p->a, sr_vmax(p->b, p->c)));
    }
    for (int c = 0; c < 8; c++) {
        const double q[3] = { c & 1 ? mhi.x : mlo.x, c & 2 ? mhi.y : mlo.y, c & 4 ? mhi.z : mlo.z };
        float w[3];
        for (int r = 0; r < 3; r++)
            w[r] = (float)(in->m[r][0] * q[0] + in->m[r][1] * q[1] + in->m[r][2] * q[2] + in->m[r][3]);
        *lo = sr_vmin(*lo, sr_v3(w[0], w[1], w[2]));
        *hi = sr_vmax(*hi, sr_v3(w[0], w[1], w[2]));
    }
}

/* The scene's bounds: every bounded primitive's box, and every instance's. False when there
 * is none. */
static bool scene_bounds(const sr_scene *s, sr_vec3 *lo, sr_vec3 *hi)
{
    *lo = sr_v3s(SR_INF);
    *hi = sr_v3s(-SR_INF);
    for (uint32_t i = 0; i < s->prim_count; i++) {
        const sr_prim *p = &s->prims[i];
        sr_vec3 pts[4];
        int n = 0;
        if (p->kind == SR_PRIM_SPHERE) {
            pts[n++] = sr_sub(p->a, sr_v3s(p->b.x));
            pts[n++] = sr_add(p->a, sr_v3s(p->b.x));
        } else if (p->kind == SR_PRIM_QUAD) {
            pts[n++] = p->a;
            pts[n++] = sr_add(p->a, p->b);
            pts[n++] = sr_add(p->a, p->c);
            pts[n++] = sr_add(sr_add(p->a, p->b), p->c);
        } else if (p->kind == SR_PRIM_TRIANGLE) {
            pts[n++] = p->a;
            pts[n++] = p->b;
            pts[n++] = p->c;
        }
        for (int k = 0; k < n; k++) {
            *lo = sr_vmin(*lo, pts[k]);
            *hi = sr_vmax(*hi, pts[k]);
        }
    }
    for (uint32_t k = 0; k < s->instance_count; k++) instance_bounds(s, &s->instances[k], lo, hi);
    return lo->x <= hi->x;
}

/* Whether name ends in .gltf or .glb (any case); the other mesh files hold only triangles
 * and materials. */
static bool is_gltf_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcasecmp(dot, ".gltf") || !strcasecmp(dot, ".glb"));
}

sr_status sr_scene_parse_gltf(sr_json_doc *c, const cJSON *root, sr_scene *s, const sr_name_ix *sorted, uint32_t named,
                             uint32_t *file_lights)
{
    *file_lights = 0;
    const cJSON *g = sr_json_field(root, "gltf");
    SR_TRY(sr_json_need_object(c, g, "gltf"));
    SR_TRY(sr_json_check_keys(c, g, "gltf", "\"gltf\"", gltf_keys));
    const cJSON *file = sr_json_field(g, "file");
    if (!cJSON_IsString(file) || !file->valuestring[0]) {
        char got[96];
        sr_json_describe(c, file, got, sizeof got);
        return sr_json_fail_val(c, file, "gltf.file", "expected a glTF file path (.gltf or .glb, relative to the scene "
                                "file), got %s", got);
    }
    /* the triangles first: the mesh loader budgets and checks the file (and what it names) */
    SR_TRY(sr_scene_parse_gltf_mesh(c, g, "gltf", s, sorted, named));
    if (!is_gltf_name(file->valuestring)) return SR_OK;   /* a mesh file: no cameras, no lights */
    char *resolved = sr_scene_resolve_path(c->path, file->valuestring);
    if (!resolved) return sr_json_oom(c);
    sr_gltf_scene info;
    sr_error gerr;
    memset(&gerr, 0, sizeof gerr);
    sr_status st = sr_gltf_scene_read(resolved, &info, &gerr);
    if (st) {
        free(resolved);
        return sr_scene_loader_fail(c, file, "gltf.file", st, &gerr);
    }
    *file_lights = info.light_count;
    st = add_notice(c, s, resolved, info.notice);
    /* A camera looks at the point of its view axis nearest the file's centre (the viewer
     * orbits about look_at), or 1 ahead when that centre is behind it. */
    sr_vec3 lo, hi, centre = sr_v3s(0.0f);
    const bool bounded = scene_bounds(s, &lo, &hi);
    if (bounded) centre = sr_scale(sr_add(lo, hi), 0.5f);
    if (!st && info.camera_count) {
        s->file_cameras = calloc(info.camera_count, sizeof *s->file_cameras);
        if (!s->file_cameras) st = sr_json_oom(c);
        for (uint32_t k = 0; !st && k < info.camera_count; k++) {
            const sr_gltf_camera *gc = &info.cameras[k];
            sr_scene_camera *sc = &s->file_cameras[k];
            sc->kind = gc->kind;
            sc->aspect = gc->aspect;
            sc->desc.position = gc->position;
            const float ahead = bounded ? sr_dot(sr_sub(centre, gc->position), gc->forward) : 0.0f;
            sc->desc.look_at = sr_madd(gc->position, gc->forward, ahead > 1e-3f && ahead < 1e15f ? ahead : 1.0f);
            sc->desc.up = gc->up;
            sc->desc.vfov_deg = gc->yfov_rad * (180.0f / SR_PI);
            if (gc->kind == SR_GLTF_CAMERA_PERSPECTIVE &&
                (!sr_camera_up_ok(&sc->desc) || !(sr_camera_distance(&sc->desc) > 0.0)))
                sc->kind = SR_GLTF_CAMERA_UNPLACED;   /* a node that squashes its camera flat */
        }
        if (!st) s->file_camera_count = info.camera_count;
    }
    if (!st && info.mesh_count) {
        s->mesh_nodes = malloc(info.mesh_count * sizeof *s->mesh_nodes);
        if (!s->mesh_nodes) st = sr_json_oom(c);
        else {
            memcpy(s->mesh_nodes, info.mesh_nodes, info.mesh_count * sizeof *s->mesh_nodes);
            s->mesh_count = info.mesh_count;
        }
    }
    /* the file's lights, unless the scene gives its own "lights" (which replace them) */
    if (!st && info.light_count && !sr_json_field(root, "lights")) {
        s->lights = calloc(info.light_count, sizeof *s->lights);
        if (!s->lights) st = sr_json_oom(c);
        for (uint32_t k = 0; !st && k < info.light_count; k++)
            st = convert_light(c, file, resolved, &info.lights[k], &s->lights[k]);
        if (!st) s->light_count = info.light_count;
    }
    free(resolved);
    sr_gltf_scene_free(&info);
    return st;
}

/* A camera that sees the whole of the scene's bounds: their bounding sphere fits the
 * narrower of the two fields of view; it looks from the front (+Z, glTF's front), a little
 * from the right and above. */
static void framing_camera(const sr_scene *s, sr_camera_desc *d)
{
    sr_vec3 lo, hi;
    if (!scene_bounds(s, &lo, &hi)) lo = sr_v3s(-1.0f), hi = sr_v3s(1.0f);
    const sr_vec3 center = sr_scale(sr_add(lo, hi), 0.5f);
    float radius = 0.5f * sr_length(sr_sub(hi, lo));
    if (!(radius > 0.0f)) radius = 1.0f;
    memset(d, 0, sizeof *d);
    d->vfov_deg = 40.0f;
    const double aspect = s->height ? (double)s->width / s->height : 1.0;
    const double half_v = 20.0 * 3.14159265358979323846 / 180.0;
    const double half_h = atan(tan(half_v) * aspect);
    const double half = half_v < half_h ? half_v : half_h;
    const float dist = (float)(radius / sin(half)) * 1.02f;   /* a margin for rounding */
    const sr_vec3 dir = sr_normalize(sr_v3(0.5f, 0.4f, 1.0f));
    d->position = sr_madd(center, dir, dist);
    d->look_at = center;
    d->up = sr_v3(0.0f, 1.0f, 0.0f);
}

sr_status sr_scene_gltf_defaults(sr_json_doc *c, const cJSON *root, sr_scene *s, uint32_t file_lights)
{
    (void)c;
    const cJSON *img = sr_json_field(root, "image");
    const bool sized = img && (sr_json_field(img, "width") || sr_json_field(img, "height"));
    if (!sr_json_field(root, "camera")) {
        const sr_scene_camera *first = NULL;
        for (uint32_t k = 0; k < s->file_camera_count && !first; k++)
            if (s->file_cameras[k].kind == SR_GLTF_CAMERA_PERSPECTIVE) first = &s->file_cameras[k];
        if (first && first->aspect > 0.0f && !sized) {
            const double h = (double)s->width / first->aspect;
            s->height = h < 1.0 ? 1u : h > SR_MAX_RESOLUTION ? SR_MAX_RESOLUTION : (uint32_t)lround(h);
            s->aspect = first->aspect;
        }
        if (first) s->camera = first->desc;
        else framing_camera(s, &s->camera);
    }
    if (!sr_json_field(root, "integrator")) s->integrator = SR_INTEGRATOR_PATH;
    const bool background = sr_json_field(root, "background") || sr_json_field(root, "sky") ||
                            sr_json_field(root, "environment");
    if (!background && file_lights == 0) {   /* an overcast sky lights a file without lights */
        s->has_sky = 1;
        s->sky_zenith = sr_v3(0.75f, 0.82f, 1.0f);
        s->sky_horizon = sr_v3(1.0f, 1.0f, 1.0f);
        s->sky_ground = sr_v3(0.35f, 0.33f, 0.3f);
    }
    return SR_OK;
}
