/* scene.h: a JSON scene file read into host arrays (sr_scene). Every error names the file
 * and the line:column of the offending value, says what is wrong and what is expected. */
#ifndef SR_SCENE_H
#define SR_SCENE_H

#include <stddef.h>
#include "../base/status.h"
#include "../../kernels/core/types.h"
#include "../io/images/texfile.h"
#include "../io/meshes/mesh.h"   /* sr_shared_mesh, sr_mesh_instance */

typedef struct sr_camera_desc {
    sr_vec3 position, look_at, up;
    float vfov_deg;       /* vertical field of view                                       */
    float aperture;       /* lens diameter; 0 = pinhole                                   */
    float focus_distance; /* 0 = distance from position to look_at                       */
} sr_camera_desc;

/* A camera a glTF file holds (--camera-index picks one): kind 0 can be used; 1 is
 * orthographic and 2 placed by no node of the scene (both unsupported, named in messages). */
typedef struct sr_scene_camera {
    sr_camera_desc desc;
    float aspect;                /* width / height the file asks for; 0 = none            */
    uint32_t kind;               /* sr_gltf_camera_kind (io/gltf_scene.h)                 */
} sr_scene_camera;

/* A keyframe of "camera_path": the camera at a frame number (docs/scene-format.md). */
typedef struct sr_camera_key {
    uint32_t frame;
    sr_vec3 position, look_at;
    float vfov_deg;
} sr_camera_key;

typedef struct sr_scene {
    char *path;                  /* as given, for messages                               */
    sr_camera_desc camera;
    uint32_t width, height, spp, max_depth;
    float aspect;                /* the image's width / height when the file gives it exactly
                                  * (a glTF camera's aspectRatio); 0: width / height       */
    uint32_t integrator;         /* sr_integrator: "integrator" (default whitted)         */
    sr_vec3 background, ambient;
    int has_sky;                 /* "sky" given: escaping rays see the gradient below     */
    sr_vec3 sky_zenith, sky_horizon, sky_ground;
    uint32_t path_flags;         /* SR_PATH_NO_NEE | SR_PATH_NO_RR; tests set it, never a file */
    sr_material *materials; char **material_names; uint32_t material_count;
    sr_prim *prims; uint32_t prim_count;      /* bounded: spheres, quads, mesh triangles */
    sr_tri_attr *attrs;          /* NULL, or per-vertex data for each of prims (same order) */
    /* Normal-mapped triangles' vertex tangents, for prims and shared_prims alike (their
     * attrs' flags index it: SR_ATTR_TANGENT_SHIFT); NULL when none has any. */
    sr_tri_tangent *tangents; uint32_t tangent_count;
    sr_texture_set tex;          /* image textures the materials refer to                 */
    uint32_t env_tex;            /* 1 + index in tex of the "environment" map; 0 = none    */
    sr_vec3 env_rot[3];          /* its rotation's columns (world = R * map)               */
    float env_intensity;
    float *env_marginal, *env_conditional, *env_pdf;   /* its distribution (envmap.h)    */
    char *notices;               /* lines for stderr: what mesh files hold that is unused, or NULL */
    sr_prim *planes; uint32_t plane_count;    /* unbounded planes                        */
    sr_light *lights; uint32_t light_count;
    sr_scene_camera *file_cameras; uint32_t file_camera_count;   /* a glTF file's "cameras" */
    /* Meshes placed by several "mesh" objects: stored once (shared_prims, in object space,
     * with shared_attrs when any has normals or UVs) and placed by instances. */
    sr_prim *shared_prims; sr_tri_attr *shared_attrs; uint32_t shared_prim_count;
    sr_shared_mesh *shared_meshes; uint32_t shared_mesh_count;
    sr_mesh_instance *instances; uint32_t instance_count;
    /* A glTF file's "meshes": how many nodes place each. Inside one file, a mesh placed by
     * several nodes is copied per node (the file as a whole is what objects instance). */
    uint32_t *mesh_nodes; uint32_t mesh_count;
    sr_camera_key *camera_path; uint32_t camera_path_count;   /* keyframes by frame, or none */
} sr_scene;

/* Limits a scene is checked against before anything large is allocated. */
#define SR_MAX_RESOLUTION 16384u
#define SR_MAX_SPP 65536u

/* Read and validate a scene: a JSON scene file, or a model file (glTF 2.0: .gltf, .glb; a mesh:
 * .obj, .ply, .stl) read as the scene {"gltf": {"file": path}} (docs/scene-format.md). On failure: returns SR_ERR_INPUT (bad file) or SR_ERR_RUNTIME
 * (out of memory), err->msg holds "path:line:col: what is wrong; expected ...", and *out is
 * left empty (nothing to free). */
sr_status sr_scene_load(const char *path, sr_scene *out, sr_error *err);

/* The same from text already in memory; `path` is used for messages and to resolve mesh
 * paths (relative to its folder). */
sr_status sr_scene_parse(const char *path, const char *text, size_t len, sr_scene *out, sr_error *err);

void sr_scene_free(sr_scene *scene);

/* Whether the camera can be built: look_at differs from position and up is not parallel to
 * the view direction (look_at - position). A scene's camera and --camera are checked by it. */
int sr_camera_up_ok(const sr_camera_desc *desc);

/* The farthest look_at may be from position. The camera is built in float and squares that
 * distance, times the image plane's half-width (tan(fov / 2) x aspect), so the square must
 * stay well within FLT_MAX (3.4e38): 1e16 leaves a factor of 1e3 for wide views. */
#define SR_CAMERA_DIST_MAX 1e16f   /* a float, so that a file's 1e16 is within */

/* The distance from position to look_at, in double (a float difference may overflow): a
 * scene's camera and --camera need it above 0 and at most SR_CAMERA_DIST_MAX. */
double sr_camera_distance(const sr_camera_desc *desc);

/* tan(fov / 2) of a vertical field of view in degrees, in float as sr_camera_make works it:
 * the image plane's half-height at distance 1. */
float sr_camera_fov_tan(float vfov_deg);

/* Whether a vertical field of view (degrees) makes a camera: above 0 and below 180, its
 * sr_camera_fov_tan finite and above 0. A value within (0, 180) in double may round to 180
 * in float, whose tangent is negative (the image turns upside down). Every camera is checked
 * by it: the JSON camera and camera_path keyframes, a glTF file's cameras, --camera.
 * Messages give SR_CAMERA_FOV_RULE. */
int sr_camera_fov_ok(float vfov_deg);
#define SR_CAMERA_FOV_RULE "must be greater than 0 and less than 180 degrees as a float (the camera is built in float)"

/* The camera of frame `frame` on the scene's camera path: position, look-at and field of view
 * interpolated linearly between the keyframes around it (held before the first and after the
 * last); up, aperture and focus distance from "camera". The scene's camera without a path. */
sr_camera_desc sr_camera_at_frame(const sr_scene *scene, uint32_t frame);

/* The camera the stages use, for an image of width x height. */
sr_camera sr_camera_make(const sr_camera_desc *desc, uint32_t width, uint32_t height);

#endif
