/* scene_parse.h: what the scene parser's parts share, and nothing else includes. scene.c
 * reads the scene's root (camera, image, sky, environment, lights), scene_materials.c the
 * "materials" table and scene_objects.c the "objects" list; each error names
 * path:line:column and the JSON path of the key (jsondoc.h). */
#ifndef SR_SCENE_PARSE_H
#define SR_SCENE_PARSE_H

#include <stdbool.h>
#include "scene.h"
#include "jsondoc.h"
#include "../io/meshes/mesh.h"

/* Value ranges (sr_json_range: lower and upper bound, each none, inclusive or exclusive). */
static const sr_json_range R_POS = {0, 0, SR_JSON_BOUND_EXCL, SR_JSON_BOUND_NONE};
static const sr_json_range R_NONNEG = {0, 0, SR_JSON_BOUND_INCL, SR_JSON_BOUND_NONE};
static const sr_json_range R_UNIT = {0, 1, SR_JSON_BOUND_INCL, SR_JSON_BOUND_INCL};
static const sr_json_range R_FOV = {0, 180, SR_JSON_BOUND_EXCL, SR_JSON_BOUND_EXCL};
static const sr_json_range R_IOR = {1, 0, SR_JSON_BOUND_INCL, SR_JSON_BOUND_NONE};
static const sr_json_range R_CREASE = {0, 180, SR_JSON_BOUND_INCL, SR_JSON_BOUND_INCL};

/* obj's "fov" (a camera's vertical field of view in degrees), or def: within R_FOV and
 * sr_camera_fov_ok once a float (scene.c). */
sr_status sr_json_opt_fov(sr_json_doc *c, const cJSON *obj, const char *jp, float def, float *out);

/* ---- files the scene refers to (scene_files.c) ---- */

/* A file path relative to the scene file's folder; absolute paths are kept. malloc'd. */
char *sr_scene_resolve_path(const char *scene_path, const char *file);

/* A file loader's error (mesh, texture, environment map) at the scene's "file" value. */
sr_status sr_scene_loader_fail(sr_json_doc *c, const cJSON *file, const char *fjp, sr_status st, const sr_error *merr);

/* ---- materials (scene_materials.c) ---- */

/* The material names sorted for lookup (opaque to the other parts). */
typedef struct sr_name_ix sr_name_ix;

/* "materials": the scene's materials and their names; *sorted gets the names sorted for
 * sr_scene_lookup_material (the caller frees it, also on failure). */
sr_status sr_scene_parse_materials(sr_json_doc *c, const cJSON *mats, sr_scene *s, sr_name_ix **sorted);

/* The scene's material named by obj's "material": one of the `named` materials of the
 * "materials" table (a mesh's file materials, appended after them, have no names to look up). */
sr_status sr_scene_lookup_material(sr_json_doc *c, const cJSON *obj, const char *jp, const sr_scene *s,
                                   const sr_name_ix *sorted, uint32_t named, uint32_t *out);

/* "material": "file": the mesh file's materials appended to the scene's (named
 * "<file>:<name>"), their base colour images loaded as textures. */
sr_status sr_scene_add_file_materials(sr_json_doc *c, const cJSON *file, const char *fjp, sr_scene *s, const char *mesh,
                                      const sr_file_material *fm, uint32_t n);

/* Whether material `mat` reads a texture (and so needs texture coordinates). */
bool sr_scene_textured(const sr_scene *s, uint32_t mat);

/* ---- objects (scene_objects.c) ---- */

/* "objects": spheres, quads and mesh triangles into s->prims, planes into s->planes. */
sr_status sr_scene_parse_objects(sr_json_doc *c, const cJSON *objs, sr_scene *s, const sr_name_ix *sorted, uint32_t named);

/* "gltf" (g, at JSON path jp): the file's triangles placed by its node hierarchy, with its
 * own materials ("material": "file" or absent) or one of the scene's; the file's cameras,
 * lights and unused content are read by scene_gltf.c. */
sr_status sr_scene_parse_gltf_mesh(sr_json_doc *c, const cJSON *g, const char *jp, sr_scene *s, const sr_name_ix *sorted,
                                   uint32_t named);

/* ---- glTF files as scenes (scene_gltf.c) ---- */

/* The root's "gltf": its triangles and materials (sr_scene_parse_gltf_mesh), its cameras into
 * s->file_cameras and, unless the root has "lights", its KHR_lights_punctual lights;
 * *file_lights: how many lights the file holds (used or not). */
sr_status sr_scene_parse_gltf(sr_json_doc *c, const cJSON *root, sr_scene *s, const sr_name_ix *sorted, uint32_t named,
                             uint32_t *file_lights);

/* After everything else of a root with "gltf": what the JSON did not give. The camera (the
 * file's first usable one, else one framing the scene's bounds), the image's shape (the
 * camera's aspect ratio), a sky when the file has no lights (file_lights 0; lights the JSON
 * adds do not matter) and the JSON gives no background, and the path integrator. */
sr_status sr_scene_gltf_defaults(sr_json_doc *c, const cJSON *root, sr_scene *s, uint32_t file_lights);

/* "camera_path" (absent: none) into s->camera_path, after "camera" (its up and fov are the
 * keyframes' defaults): scene_camera_path.c. */
sr_status sr_scene_parse_camera_path(sr_json_doc *c, const cJSON *path, sr_scene *s);

#endif
