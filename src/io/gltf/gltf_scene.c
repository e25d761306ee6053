/* gltf_scene.c: a glTF file's nodes, cameras and KHR_lights_punctual lights (gltf_scene.h).
 * Node transforms are composed here in double, from each root of the scene down the tree
 * (depth first, with a stack of our own: a chain of nodes is as deep as the file is long). */
#include "gltf_scene.h"
#include "../meshes/mesh_check.h"
#include "mesh_check_gltf.h"
#include "../../base/mem_limits.h"

#include <cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define SR_PI_D 3.14159265358979323846

/* A camera's aspectRatio sets the image's height at the default width of 640 pixels: from 1
 * to 16384 rows (the scene's SR_MAX_RESOLUTION), so 640 / 16384 to 640. */
#define SR_GLTF_ASPECT_MIN (640.0 / 16384.0)
#define SR_GLTF_ASPECT_MAX 640.0

/* An affine transform, row-major 3x4: p' = m[0..2] . p + m[3], one row per output axis. */
typedef struct sr_affine { double m[3][4]; } sr_affine;

static const cJSON *sr_field(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

static double sr_num(const cJSON *arr, int i, double def)
{
    const cJSON *v = cJSON_GetArrayItem(arr, i);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

static sr_affine sr_affine_mul(const sr_affine *a, const sr_affine *b)
{
    sr_affine r;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 4; j++)
            r.m[i][j] = a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] + a->m[i][2] * b->m[2][j];
        r.m[i][3] += a->m[i][3];
    }
    return r;
}

/* A node's local transform: "matrix" (column-major, as glTF stores it) or T x R x S. */
static sr_affine sr_node_local(const cJSON *node)
{
    sr_affine r;
    memset(&r, 0, sizeof r);
    const cJSON *mat = sr_field(node, "matrix");
    if (mat) {
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) r.m[i][j] = sr_num(mat, 4 * j + i, i == j ? 1.0 : 0.0);
        return r;
    }
    const cJSON *t = sr_field(node, "translation"), *q = sr_field(node, "rotation"), *s = sr_field(node, "scale");
    double x = sr_num(q, 0, 0), y = sr_num(q, 1, 0), z = sr_num(q, 2, 0), w = sr_num(q, 3, 1);
    const double len = sqrt(x * x + y * y + z * z + w * w);
    if (len > 0.0) { x /= len; y /= len; z /= len; w /= len; } else { x = y = z = 0; w = 1; }
    const double rot[3][3] = {
        { 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w) },
        { 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w) },
        { 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y) },
    };
    const double sc[3] = { sr_num(s, 0, 1), sr_num(s, 1, 1), sr_num(s, 2, 1) };
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) r.m[i][j] = rot[i][j] * sc[j];
        r.m[i][3] = sr_num(t, i, 0);
    }
    return r;
}

static sr_vec3 sr_affine_point(const sr_affine *a, double x, double y, double z)
{
    double o[3];
    for (int i = 0; i < 3; i++) o[i] = a->m[i][0] * x + a->m[i][1] * y + a->m[i][2] * z + a->m[i][3];
    return sr_v3((float)o[0], (float)o[1], (float)o[2]);
}

/* A direction through the linear part, unit length; false when it vanishes (a zero scale). */
static bool sr_affine_dir(const sr_affine *a, double x, double y, double z, sr_vec3 *out)
{
    double o[3];
    for (int i = 0; i < 3; i++) o[i] = a->m[i][0] * x + a->m[i][1] * y + a->m[i][2] * z;
    const double len = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
    if (!(len > 0.0) || !isfinite(len)) return false;
    *out = sr_v3((float)(o[0] / len), (float)(o[1] / len), (float)(o[2] / len));
    return true;
}


static const char *sr_s(int n) { return n == 1 ? "" : "s"; }

/* Extensions of the scene level that are read (KHR_lights_punctual) or belong to materials
 * and textures (mesh.c names those it does not use): the others are named in the notice. */
static bool sr_scene_ext_known(const char *e)
{
    return !strcmp(e, "KHR_lights_punctual") || !strncmp(e, "KHR_materials_", 14) || !strncmp(e, "KHR_texture_", 12);
}

static void sr_scene_notice(const cJSON *root, sr_gltf_scene *g, int ortho, int unplaced, int ranged)
{
    char *b = g->notice;
    const size_t cap = sizeof g->notice;
    const int anims = cJSON_GetArraySize(sr_field(root, "animations")), skins = cJSON_GetArraySize(sr_field(root, "skins"));
    const int scenes = cJSON_GetArraySize(sr_field(root, "scenes"));
    if (ortho) sr_list_append(b, cap, "%d orthographic camera%s (perspective only)", ortho, sr_s(ortho));
    if (unplaced) sr_list_append(b, cap, "%d camera%s no node of the scene places", unplaced, sr_s(unplaced));
    if (ranged) sr_list_append(b, cap, "the \"range\" of %d light%s (lights reach everywhere)", ranged, sr_s(ranged));
    if (anims) sr_list_append(b, cap, "%d animation%s (the rest pose is rendered)", anims, sr_s(anims));
    if (skins) sr_list_append(b, cap, "%d skin%s", skins, sr_s(skins));
    if (scenes > 1) sr_list_append(b, cap, "%d other scene%s (only \"scene\" is rendered)", scenes - 1, sr_s(scenes - 1));
    const cJSON *e;
    cJSON_ArrayForEach(e, sr_field(root, "extensionsUsed")) {
        if (!cJSON_IsString(e) || sr_scene_ext_known(e->valuestring)) continue;
        char clean[64];
        size_t k = 0;
        for (const char *p = e->valuestring; *p && k + 1 < sizeof clean; p++)
            clean[k++] = isprint((unsigned char)*p) ? *p : '?';
        clean[k] = '\0';
        sr_list_append(b, cap, "extension %s", clean);
    }
}

/* The file's cameras (by index; placed below). */
static sr_status sr_read_cameras(const char *path, const cJSON *root, sr_gltf_scene *g, sr_error *err)
{
    const cJSON *cams = sr_field(root, "cameras"), *c;
    const int n = cJSON_GetArraySize(cams);
    if (!n) return SR_OK;
    g->cameras = calloc((size_t)n, sizeof *g->cameras);
    if (!g->cameras) return sr_fail(err, SR_ERR_RUNTIME, "out of memory reading the cameras of %s", path);
    int i = 0;
    cJSON_ArrayForEach(c, cams) {
        sr_gltf_camera *out = &g->cameras[i];
        const cJSON *type = sr_field(c, "type"), *p = sr_field(c, "perspective");
        out->kind = SR_GLTF_CAMERA_UNPLACED;
        if (cJSON_IsString(type) && !strcmp(type->valuestring, "perspective")) {
            const cJSON *yfov = sr_field(p, "yfov"), *aspect = sr_field(p, "aspectRatio");
            if (!cJSON_IsNumber(yfov) || !(yfov->valuedouble > 0.0 && yfov->valuedouble < SR_PI_D))
                return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: cameras[%d].perspective.yfov is missing "
                               "or not an angle in radians between 0 and pi; expected one", path, i);
            if (aspect && (!cJSON_IsNumber(aspect) || !(aspect->valuedouble >= SR_GLTF_ASPECT_MIN &&
                                                         aspect->valuedouble <= SR_GLTF_ASPECT_MAX))) {
                char got[40] = "not a number";
                if (cJSON_IsNumber(aspect)) snprintf(got, sizeof got, "%.9g", aspect->valuedouble);
                return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: cameras[%d].perspective.aspectRatio is "
                               "%s; expected width / height from %g to %g (an image 640 pixels wide and 1 to 16384 "
                               "high), or none", path, i, got, SR_GLTF_ASPECT_MIN, SR_GLTF_ASPECT_MAX);
            }
            out->yfov_rad = (float)yfov->valuedouble;
            out->aspect = aspect ? (float)aspect->valuedouble : 0.0f;
        } else if (cJSON_IsString(type) && !strcmp(type->valuestring, "orthographic")) {
            out->kind = SR_GLTF_CAMERA_ORTHOGRAPHIC;
        } else {
            return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: cameras[%d].type is not \"perspective\" or "
                           "\"orthographic\"; expected one of them", path, i);
        }
        i++;
    }
    g->camera_count = (uint32_t)n;
    return SR_OK;
}

/* KHR_lights_punctual light `ix` placed by world transform w; its values were checked by
 * sr_gltf_struct_check (type, colour, intensity, cone). */
static void sr_place_light(const cJSON *const *defs, uint64_t ix, const sr_affine *w, sr_gltf_light *out, int *ranged)
{
    const cJSON *l = defs[ix];
    const cJSON *type = sr_field(l, "type"), *color = sr_field(l, "color"), *inten = sr_field(l, "intensity");
    memset(out, 0, sizeof *out);
    out->index = (uint32_t)ix;
    out->kind = !strcmp(type->valuestring, "spot") ? SR_LIGHT_SPOT
              : !strcmp(type->valuestring, "directional") ? SR_LIGHT_DIRECTIONAL : SR_LIGHT_POINT;
    out->color = color ? sr_v3((float)sr_num(color, 0, 1), (float)sr_num(color, 1, 1), (float)sr_num(color, 2, 1))
                       : sr_v3(1, 1, 1);
    out->intensity = inten ? (float)inten->valuedouble : 1.0f;
    if (out->kind == SR_LIGHT_SPOT) {
        const cJSON *spot = sr_field(l, "spot"), *in = sr_field(spot, "innerConeAngle"), *outer = sr_field(spot, "outerConeAngle");
        out->inner_rad = cJSON_IsNumber(in) ? (float)in->valuedouble : 0.0f;
        out->outer_rad = cJSON_IsNumber(outer) ? (float)outer->valuedouble : (float)(SR_PI_D / 4.0);
    }
    *ranged += sr_field(l, "range") != NULL;
    out->position = sr_affine_point(w, 0, 0, 0);
    if (!sr_affine_dir(w, 0, 0, -1, &out->direction)) out->direction = sr_v3(0, 0, -1);
}

static void sr_reverse(int *a, int n)
{
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        const int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Depth first from the scene's roots: cameras placed, lights listed, meshes counted. Lists
 * are walked once each (cJSON finds an array's n-th item by walking it). */
static sr_status sr_walk(const char *path, const cJSON *root, sr_gltf_scene *g, sr_error *err)
{
    const cJSON *nodes = sr_field(root, "nodes");
    const int count = cJSON_GetArraySize(nodes);
    g->mesh_count = (uint32_t)cJSON_GetArraySize(sr_field(root, "meshes"));
    if (g->mesh_count && !(g->mesh_nodes = calloc(g->mesh_count, sizeof *g->mesh_nodes)))
        return sr_fail(err, SR_ERR_RUNTIME, "out of memory reading the nodes of %s", path);
    if (count <= 0) return SR_OK;
    const cJSON *scenes = sr_field(root, "scenes"), *which = sr_field(root, "scene");
    const cJSON *scene = cJSON_GetArrayItem(scenes, cJSON_IsNumber(which) ? (int)which->valuedouble : 0);
    const cJSON *defs_arr = sr_field(sr_field(sr_field(root, "extensions"), "KHR_lights_punctual"), "lights"), *d;
    const int ndefs = cJSON_GetArraySize(defs_arr);
    const cJSON **defs = malloc(((size_t)ndefs + 1) * sizeof *defs);
    const cJSON **items = malloc((size_t)count * sizeof *items);
    int *stack = malloc((size_t)count * sizeof *stack);
    sr_affine *world = malloc((size_t)count * sizeof *world);
    unsigned char *is_child = calloc((size_t)count, 1);
    sr_status st = SR_OK;
    int ranged = 0, top = 0, i = 0;
    if (!items || !stack || !world || !is_child || !defs) {
        st = sr_fail(err, SR_ERR_RUNTIME, "out of memory reading the nodes of %s", path);
        goto done;
    }
    const cJSON *n;
    cJSON_ArrayForEach(n, nodes) items[i++] = n;
    i = 0;
    cJSON_ArrayForEach(d, defs_arr) defs[i++] = d;
    /* The roots: the scene's nodes, or (no "scenes") every node no other node holds. */
    if (scene) {
        const cJSON *r;
        cJSON_ArrayForEach(r, sr_field(scene, "nodes")) {
            const int r0 = (int)r->valuedouble;
            /* sr_gltf_struct_check refused a root listed twice; the stack holds each node once */
            if (!is_child[r0]) stack[top++] = r0;
            is_child[r0] = 1;
        }
        sr_reverse(stack, top);   /* the first root on top */
    } else {
        for (i = 0; i < count; i++) {
            const cJSON *c;
            cJSON_ArrayForEach(c, sr_field(items[i], "children")) is_child[(int)c->valuedouble] = 1;
        }
        for (i = count - 1; i >= 0; i--) if (!is_child[i]) stack[top++] = i;
    }
    memset(is_child, 0, (size_t)count);   /* now: visited */
    for (i = 0; i < top; i++) {
        world[stack[i]] = sr_node_local(items[stack[i]]);
        is_child[stack[i]] = 1;
    }
    while (top && !st) {
        const int at = stack[--top];
        const cJSON *node = items[at], *v;
        uint64_t ix;
        if ((v = sr_field(node, "mesh")) && sr_json_index(v, 4294967295.0, &ix) && ix < g->mesh_count) g->mesh_nodes[ix]++;
        if ((v = sr_field(node, "camera")) && sr_json_index(v, 4294967295.0, &ix) && ix < g->camera_count) {
            sr_gltf_camera *cam = &g->cameras[ix];
            if (cam->kind == SR_GLTF_CAMERA_UNPLACED && cam->yfov_rad > 0.0f) {
                cam->position = sr_affine_point(&world[at], 0, 0, 0);
                if (sr_affine_dir(&world[at], 0, 0, -1, &cam->forward) && sr_affine_dir(&world[at], 0, 1, 0, &cam->up))
                    cam->kind = SR_GLTF_CAMERA_PERSPECTIVE;
            }
        }
        const cJSON *lref = sr_field(sr_field(sr_field(node, "extensions"), "KHR_lights_punctual"), "light");
        if (lref) {
            if (!sr_json_index(lref, 4294967295.0, &ix) || ix >= (uint64_t)ndefs) {
                st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: nodes[%d].extensions.KHR_lights_punctual.light "
                             "is not an index into the file's KHR_lights_punctual lights (%d of them); expected one",
                             path, at, ndefs);
                break;
            }
            sr_gltf_light *grown = realloc(g->lights, ((size_t)g->light_count + 1) * sizeof *grown);
            if (!grown) {
                st = sr_fail(err, SR_ERR_RUNTIME, "out of memory reading the lights of %s", path);
                break;
            }
            g->lights = grown;
            sr_place_light(defs, ix, &world[at], &g->lights[g->light_count], &ranged);
            g->light_count++;
        }
        /* children pushed, then turned over, so that they come out in the file's order */
        const cJSON *kids = sr_field(node, "children"), *kid;
        const int first = top;
        cJSON_ArrayForEach(kid, kids) {
            const int ch = (int)kid->valuedouble;
            if (is_child[ch]) continue;   /* sr_gltf_struct_check refused cycles; never twice */
            is_child[ch] = 1;
            const sr_affine local = sr_node_local(items[ch]);
            world[ch] = sr_affine_mul(&world[at], &local);
            stack[top++] = ch;
        }
        sr_reverse(stack + first, top - first);
    }
    if (!st) {
        int ortho = 0, unplaced = 0;
        for (uint32_t c = 0; c < g->camera_count; c++) {
            ortho += g->cameras[c].kind == SR_GLTF_CAMERA_ORTHOGRAPHIC;
            unplaced += g->cameras[c].kind == SR_GLTF_CAMERA_UNPLACED && g->cameras[c].yfov_rad > 0.0f;
        }
        sr_scene_notice(root, g, ortho, unplaced, ranged);
    }
done:
    free(defs);
    free(items);
    free(stack);
    free(world);
    free(is_child);
    return st;
}

sr_status sr_gltf_scene_read(const char *path, sr_gltf_scene *out, sr_error *err)
{
    memset(out, 0, sizeof *out);
    const char *dot = strrchr(path, '.');
    const char *ext = dot && !strcasecmp(dot, ".glb") ? ".glb" : ".gltf";
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return sr_fail(err, SR_ERR_INPUT, "cannot read glTF file %s: not a regular file", path);
    char *json = NULL;
    size_t len = 0;
    uint64_t bin_at = 0, bin_len = 0;
    sr_status st = sr_gltf_read_json(path, ext, (uint64_t)sb.st_size, &json, &len, &bin_at, &bin_len, err);
    if (st) return st;
    if (!json) return sr_fail(err, SR_ERR_INPUT, "cannot read glTF file %s", path);
    /* cJSON's tree of the JSON and the node arrays: budgeted as a JSON scene is, 16x the text
     * (the text itself is at most the file, which the mesh import budgeted 24x) */
    char *what = sr_format("reading the nodes of glTF file %s (%.1f MiB of JSON, about 16x that)", path,
                           (double)len / 1048576.0);
    st = what ? sr_check_host_memory((uint64_t)len * 16u, what, "", err)
              : sr_fail(err, SR_ERR_RUNTIME, "out of memory reading glTF file %s", path);
    free(what);
    if (st) {
        free(json);
        return st;
    }
    st = sr_gltf_struct_check(path, json, len, bin_at, bin_len, err);
    cJSON *root = st ? NULL : cJSON_ParseWithLength(json, len);
    free(json);
    if (st) return st;
    if (!root) return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: its glTF JSON is malformed", path);
    st = sr_read_cameras(path, root, out, err);
    if (!st) st = sr_walk(path, root, out, err);
    cJSON_Delete(root);
    if (st) sr_gltf_scene_free(out);
    return st;
}

void sr_gltf_scene_free(sr_gltf_scene *g)
{
    free(g->cameras);
    free(g->lights);
    free(g->mesh_nodes);
    memset(g, 0, sizeof *g);
}
