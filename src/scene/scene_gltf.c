/* scene_gltf.c: a glTF 2.0 file as (part of) a scene, the root's "gltf" (scene_parse.h): its
 * triangles and materials through the mesh loader, its cameras and KHR_lights_punctual lights
 * from io/gltf_scene.h, and the defaults a file that is the whole scene needs. */
#include "scene_parse.h"
#include "../io/gltf/gltf_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const gltf_keys[] = {"*file", "material", NULL};

/* glTF gives point and spot lights in candela (lm/sr), directional lights in lux (lm/m^2) and
 * emission in nits (cd/m^2, the emissive factor x KHR_materials_emissive_strength). All three
 * are taken as they are, as the Khronos sample viewer, three.js and Babylon.js take them: a
 * file's radiance 1 (emissive 1, the default sky's white) is white on the film, and a
 * candela is then what 1 m^2 of 1 nit radiates along its normal, so lamps and emitters of a
 * file keep their ratio. A point light of 5 cd is "intensity": 5 in JSON. The file's light g
 * becomes the renderer's; one whose colour x intensity or position overflows a float is
 * refused at the "gltf" key's file (path: the glTF file) naming the light. */
static sr_status convert_light(sr_json_doc *c, const cJSON *file, const char *path, const sr_gltf_light *g, sr_light *out)
{
    memset(out, 0, sizeof *out);
    out->kind = g->kind;
    out->power = sr_scale(g->color, g->intensity);
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

/* Why a placed camera d (at the file camera's position p) cannot be built, into why: the
 * point it looks at is lost to float rounding or overflow so far out, or its node turns its
 * up onto its view direction. */
static void unusable_camera_why(sr_vec3 p, const sr_camera_desc *d, char *why, size_t cap)
{
    if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z))
        snprintf(why, cap, "its node puts it beyond what a float holds");
    else if (!(sr_camera_distance(d) > 0.0))
        snprintf(why, cap, "its node puts it at [%.3g, %.3g, %.3g], too far out for a float camera to look from",
                 (double)p.x, (double)p.y, (double)p.z);
    else
        snprintf(why, cap, "its node turns its up onto its view direction");
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
            if (gc->yfov_rad > 0.0f && !sr_camera_fov_ok(sc->desc.vfov_deg)) {
                char clean[512];
                sr_sanitize(clean, sizeof clean, resolved);
                st = sr_json_fail_val(c, file, "gltf.file", "cannot parse mesh file %s: cameras[%u].perspective.yfov: "
                                      "the field of view " SR_CAMERA_FOV_RULE ", got %.9g radians, %.9g degrees as a "
                                      "float", clean, k, (double)gc->yfov_rad, (double)sc->desc.vfov_deg);
                break;
            }
            if (gc->kind == SR_GLTF_CAMERA_PERSPECTIVE &&
                (!sr_camera_up_ok(&sc->desc) || !(sr_camera_distance(&sc->desc) > 0.0))) {
                sc->kind = SR_GLTF_CAMERA_UNPLACED;   /* named in the notice, with why */
                char why[128];
                unusable_camera_why(gc->position, &sc->desc, why, sizeof why);
                sr_list_append(info.notice, sizeof info.notice, "cameras[%u] (%s)", k, why);
            }
        }
        if (!st) s->file_camera_count = info.camera_count;
    }
    if (!st) st = add_notice(c, s, resolved, info.notice);
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
    sr_gltf_scene_free(&info);
    free(resolved);
    return st;
}

/* A camera that sees the whole of the scene's bounds: their bounding sphere fits the
 * narrower of the two fields of view; it looks from the front (+Z, glTF's front), a little
 * from the right and above. Bounds too large for a float camera to stand back from (it
 * squares its distance, SR_CAMERA_DIST_MAX), or too far from the origin for float to place
 * it at its distance, are refused at the file's name: the image would be black. */
static sr_status framing_camera(sr_json_doc *c, const cJSON *file, const sr_scene *s, sr_camera_desc *d)
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
    /* the same distance in double, from the bounds' extent in double (its float length
     * overflows from about 1e19) */
    const double ex = (double)hi.x - lo.x, ey = (double)hi.y - lo.y, ez = (double)hi.z - lo.z;
    const double radius_d = 0.5 * sqrt(ex * ex + ey * ey + ez * ez), dist_d = radius_d / sin(half) * 1.02;
    const double placed = sr_camera_distance(d);
    if (dist_d <= (double)SR_CAMERA_DIST_MAX && fabs(placed - dist_d) <= 0.01 * dist_d) return SR_OK;
    char why[256];
    if (!(dist_d <= (double)SR_CAMERA_DIST_MAX))
        snprintf(why, sizeof why, "its bounds (a sphere of radius %.3g) are too large to frame: the camera would "
                 "stand %.3g from their centre, and a camera looks at most %g far (it is built in float)", radius_d,
                 dist_d, (double)SR_CAMERA_DIST_MAX);
    else
        snprintf(why, sizeof why, "its bounds' centre [%.3g, %.3g, %.3g] is too far from the origin to frame: a "
                 "float camera there cannot stand %.3g from it", (double)center.x, (double)center.y, (double)center.z,
                 dist_d);
    char clean[512];
    sr_sanitize(clean, sizeof clean, file->valuestring);
    return sr_json_fail_val(c, file, "gltf.file", "%s has no camera, and %s; give the scene a \"camera\" "
                            "(a JSON scene with \"gltf\" and \"camera\"), or scale the model to a size float holds",
                            clean, why);
}

sr_status sr_scene_gltf_defaults(sr_json_doc *c, const cJSON *root, sr_scene *s, uint32_t file_lights)
{
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
        else SR_TRY(framing_camera(c, sr_json_field(sr_json_field(root, "gltf"), "file"), s, &s->camera));
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
