/* scene.c: a JSON scene file read into an sr_scene. jsondoc.c reads the JSON (strictly, with
 * positions); this file reads the scene's root: the camera, the image, the background (colour,
 * sky or environment map), the integrator and the lights, and hands "materials" to
 * scene_materials.c, "objects" to scene_objects.c and "gltf" to scene_gltf.c (scene_parse.h);
 * a glTF file given as the scene is read as {"gltf": {"file": ...}}. Every error names
 * path:line:column, the JSON path of the key, what is wrong and what is expected. */
#include "scene_parse.h"
#include "../base/mem_limits.h"
#include "../io/images/envmap.h"
#include "../base/rotation.h"
#include "../base/names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_SCENE_BYTES ((size_t)256 << 20)   /* a scene is text; anything bigger is a mistake */

/* ---- the root ---------------------------------------------------------------------------- */

static const char *const top_keys[] = {"*camera", "image", "background", "ambient", "*materials", "*objects", "lights",
                                       "integrator", "sky", "environment", "gltf", "camera_path", NULL};
/* With "gltf" the file gives the camera, materials and objects: the JSON may add to them. */
static const char *const top_keys_gltf[] = {"camera", "image", "background", "ambient", "materials", "objects", "lights",
                                            "integrator", "sky", "environment", "gltf", "camera_path", NULL};
static const char *const environment_keys[] = {"*file", "rotate", "intensity", NULL};
static const char *const sky_keys[] = {"*zenith", "*horizon", "ground", NULL};
static const char *const camera_keys[] = {"*position", "*look_at", "up", "fov", "aperture", "focus_distance", NULL};
static const char *const image_keys[] = {"width", "height", "spp", "max_depth", NULL};

static const char *const light_types[] = {"point", "directional", "spot", NULL};
static const char *const light_keys[][8] = {
    {"*type", "*position", "color", "intensity", NULL},
    {"*type", "*direction", "color", "intensity", NULL},
    {"*type", "*position", "*direction", "color", "intensity", "inner_angle", "outer_angle", NULL},
};
static const sr_json_range R_CONE = {0, 90, SR_JSON_BOUND_INCL, SR_JSON_BOUND_INCL};

static sr_status parse_camera(sr_json_doc *c, const cJSON *cam, sr_camera_desc *d)
{
    SR_TRY(sr_json_need_object(c, cam, "camera"));
    SR_TRY(sr_json_check_keys(c, cam, "camera", "the camera", camera_keys));
    SR_TRY(sr_json_opt_vec3(c, cam, "camera", "position", SR_JSON_VEC_ANY, sr_v3s(0), &d->position));
    SR_TRY(sr_json_opt_vec3(c, cam, "camera", "look_at", SR_JSON_VEC_ANY, sr_v3s(0), &d->look_at));
    SR_TRY(sr_json_opt_vec3(c, cam, "camera", "up", SR_JSON_VEC_DIR, sr_v3(0, 1, 0), &d->up));
    SR_TRY(sr_json_opt_fov(c, cam, "camera", 40.0f, &d->vfov_deg));
    SR_TRY(sr_json_opt_float(c, cam, "camera", "aperture", R_NONNEG, 0.0f, &d->aperture));
    SR_TRY(sr_json_opt_float(c, cam, "camera", "focus_distance", R_NONNEG, 0.0f, &d->focus_distance));

    const double dist = sr_camera_distance(d);
    if (!(dist > 0.0))
        return sr_json_fail_val(c, sr_json_field(cam, "look_at"), "camera.look_at",
                                "must differ from camera.position (both are [%g, %g, %g]); the camera looks from position towards look_at",
                                d->position.x, d->position.y, d->position.z);
    if (!(dist <= (double)SR_CAMERA_DIST_MAX))
        return sr_json_fail_val(c, sr_json_field(cam, "look_at"), "camera.look_at",
                                "is %g from camera.position; expected at most %g apart (the camera is built in float "
                                "and squares that distance)",
                                dist, (double)SR_CAMERA_DIST_MAX);
    if (!sr_camera_up_ok(d)) {
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
        if (kind == SR_LIGHT_DIRECTIONAL) {
            SR_TRY(sr_json_opt_vec3(c, l, jp, "direction", SR_JSON_VEC_DIR, sr_v3(0, -1, 0), &out->v));
            sr_json_unit_vector(out->v, &out->v);
        } else {
            SR_TRY(sr_json_opt_vec3(c, l, jp, "position", SR_JSON_VEC_ANY, sr_v3s(0), &out->v));
        }
        if (kind == SR_LIGHT_SPOT) {   /* glTF's cone (scene_gltf.c), angles in degrees from the axis */
            float inner, outer;
            SR_TRY(sr_json_opt_vec3(c, l, jp, "direction", SR_JSON_VEC_DIR, sr_v3(0, -1, 0), &out->axis));
            sr_json_unit_vector(out->axis, &out->axis);
            SR_TRY(sr_json_opt_float(c, l, jp, "inner_angle", R_CONE, 0.0f, &inner));
            SR_TRY(sr_json_opt_float(c, l, jp, "outer_angle", R_CONE, 45.0f, &outer));
            if (!(inner < outer)) {
                char ajp[SR_JSON_PATH_MAX];
                sr_json_path_key(ajp, sizeof ajp, jp, sr_json_field(l, "inner_angle") ? "inner_angle" : "outer_angle");
                const cJSON *at = sr_json_field(l, "inner_angle") ? sr_json_field(l, "inner_angle") : sr_json_field(l, "outer_angle");
                return sr_json_fail_val(c, at, ajp, "inner_angle %g is not below outer_angle %g; expected the full "
                                        "beam inside the cone's edge", inner, outer);
            }
            const float cos_outer = cosf(outer * (SR_PI / 180.0f)), cos_inner = cosf(inner * (SR_PI / 180.0f));
            out->cone_scale = 1.0f / sr_maxf(1e-3f, cos_inner - cos_outer);
            out->cone_offset = -cos_outer * out->cone_scale;
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
    SR_TRY(sr_json_read_name(c, n, "integrator", "integrator", sr_integrator_names, &which));
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
    const sr_rotation turn = sr_rotation_deg(rot);   /* as meshes turn */
    sr_rotation_columns(&turn, s->env_rot);
    char *resolved = sr_scene_resolve_path(c->path, file->valuestring);
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
    SR_TRY(sr_scene_loader_fail(c, file, "environment.file", st, &terr));
    s->env_tex = index + 1u;
    /* As lights refuse color x intensity beyond a float, the map refuses a radiance that
     * the film's sums would take beyond one (which rendered black, exit 0); in float, as the
     * kernels multiply. */
    const float texel = sr_env_max_texel(&s->tex.items[index], s->tex.texels);
    const float radiance = texel * s->env_intensity;
    if (!(radiance <= (float)SR_ENV_RADIANCE_MAX)) {
        const cJSON *at = sr_json_field(env, "intensity");
        return sr_json_fail_val(c, at ? at : file, at ? "environment.intensity" : "environment.file",
                                "the brightest texel of %s x intensity is too large: %g x %g = %g; expected a product "
                                "of at most %g (the film sums up to 65536 samples of it per pixel in 32-bit floats)",
                                file->valuestring, texel, s->env_intensity, (double)texel * s->env_intensity,
                                SR_ENV_RADIANCE_MAX);
    }
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
    const bool gltf = sr_json_field(root, "gltf") != NULL;
    SR_TRY(sr_json_check_keys(c, root, "", "a scene", gltf ? top_keys_gltf : top_keys));
    if (sr_json_field(root, "camera")) SR_TRY(parse_camera(c, sr_json_field(root, "camera"), &s->camera));
    SR_TRY(sr_scene_parse_camera_path(c, sr_json_field(root, "camera_path"), s));
    SR_TRY(parse_image(c, sr_json_field(root, "image"), s));
    SR_TRY(sr_json_opt_vec3(c, root, "", "background", SR_JSON_VEC_COLOR, sr_v3s(0), &s->background));
    SR_TRY(parse_sky(c, root, s));
    SR_TRY(parse_environment(c, root, s));
    SR_TRY(parse_integrator(c, sr_json_field(root, "integrator"), s));
    SR_TRY(sr_json_opt_vec3(c, root, "", "ambient", SR_JSON_VEC_COLOR, sr_v3s(0), &s->ambient));
    sr_name_ix *sorted = NULL;
    const cJSON *mats = sr_json_field(root, "materials"), *objs = sr_json_field(root, "objects");
    sr_status st = (mats || !gltf) ? sr_scene_parse_materials(c, mats, s, &sorted) : SR_OK;
    const uint32_t named = s->material_count;
    uint32_t file_lights = 0;
    if (st == SR_OK && gltf) st = sr_scene_parse_gltf(c, root, s, sorted, named, &file_lights);
    if (st == SR_OK && (objs || !gltf)) st = sr_scene_parse_objects(c, objs, s, sorted, named);
    free(sorted);
    SR_TRY(st);
    /* "lights" replace a glTF file's (sr_scene_parse_gltf left them out) */
    SR_TRY(parse_lights(c, sr_json_field(root, "lights"), s));
    return gltf ? sr_scene_gltf_defaults(c, root, s, file_lights) : SR_OK;
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

/* Whether path names a model file (glTF: .gltf, .glb; a mesh: .obj, .ply, .stl; any case):
 * read as a scene of its own. */
static bool is_model_path(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return false;
    static const char *const model_exts[] = { ".gltf", ".glb", ".obj", ".ply", ".stl" };
    for (size_t k = 0; k < sizeof model_exts / sizeof model_exts[0]; k++)
        if (!strcasecmp(dot, model_exts[k])) return true;
    return false;
}

/* A model file as the scene {"gltf": {"file": NAME}}, NAME its name in its folder (so that it
 * resolves to path). The loaders' messages then start "path:1:N: gltf.file: ", which says
 * nothing about a file that has no such line: that part is cut. */
static sr_status load_model_scene(const char *path, sr_scene *out, sr_error *err)
{
    const char *slash = strrchr(path, '/');
    cJSON *doc = cJSON_CreateObject(), *g = cJSON_AddObjectToObject(doc, "gltf");
    char *text = g && cJSON_AddStringToObject(g, "file", slash ? slash + 1 : path) ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (!text) return sr_fail(err, SR_ERR_RUNTIME, "out of memory reading model scene %s", path);
    sr_status st = sr_scene_parse(path, text, strlen(text), out, err);
    free(text);
    if (st && err) {
        const char *cut = strstr(err->msg, "gltf.file: ");
        if (cut) memmove(err->msg, cut + 11, strlen(cut + 11) + 1);
    }
    return st;
}

sr_status sr_scene_load(const char *path, sr_scene *out, sr_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path) return sr_fail(err, SR_ERR_INPUT, "no scene file given");
    if (is_model_path(path)) return load_model_scene(path, out, err);
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
    free(scene->tangents);
    sr_texture_set_free(&scene->tex);
    free(scene->env_marginal);
    free(scene->env_conditional);
    free(scene->env_pdf);
    free(scene->notices);
    free(scene->planes);
    free(scene->lights);
    free(scene->file_cameras);
    free(scene->mesh_nodes);
    free(scene->shared_prims);
    free(scene->shared_attrs);
    free(scene->shared_meshes);
    free(scene->instances);
    free(scene->camera_path);
    memset(scene, 0, sizeof *scene);
}

double sr_camera_distance(const sr_camera_desc *d)
{
    const double x = (double)d->look_at.x - d->position.x, y = (double)d->look_at.y - d->position.y,
                 z = (double)d->look_at.z - d->position.z;
    return sqrt(x * x + y * y + z * z);
}

int sr_camera_up_ok(const sr_camera_desc *d)
{
    sr_vec3 view = sr_v3s(0.0f), up = sr_v3s(0.0f);
    if (!sr_json_unit_vector(sr_sub(d->look_at, d->position), &view)) return 0;
    if (!sr_json_unit_vector(d->up, &up)) return 0;
    return sr_length(sr_cross(up, view)) >= 1e-5f;
}

float sr_camera_fov_tan(float vfov_deg) { return tanf(vfov_deg * SR_PI / 360.0f); }

int sr_camera_fov_ok(float vfov_deg)
{
    const float t = sr_camera_fov_tan(vfov_deg);
    return vfov_deg > 0.0f && vfov_deg < 180.0f && isfinite(t) && t > 0.0f;
}

sr_status sr_json_opt_fov(sr_json_doc *c, const cJSON *obj, const char *jp, float def, float *out)
{
    SR_TRY(sr_json_opt_float(c, obj, jp, "fov", R_FOV, def, out));
    const cJSON *n = sr_json_field(obj, "fov");
    if (!n || sr_camera_fov_ok(*out)) return SR_OK;
    char kjp[SR_JSON_PATH_MAX], got[64];
    sr_json_path_key(kjp, sizeof kjp, jp, "fov");
    sr_json_number_text(c, n, got, sizeof got);
    return sr_json_fail_val(c, n, kjp, SR_CAMERA_FOV_RULE ", got %s (%.9g as a float)", got, (double)*out);
}

sr_camera sr_camera_make(const sr_camera_desc *d, uint32_t width, uint32_t height)
{
    sr_camera cam;
    memset(&cam, 0, sizeof cam);
    float aspect = height ? (float)width / (float)height : 1.0f;
    float focus = d->focus_distance > 0.0f ? d->focus_distance : sr_length(sr_sub(d->look_at, d->position));
    float h = sr_camera_fov_tan(d->vfov_deg);
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

