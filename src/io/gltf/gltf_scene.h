/* gltf_scene.h: what a glTF 2.0 file holds beyond its triangles, read from its JSON: the node
 * hierarchy (4x4 "matrix" or translation/rotation/scale, composed from the roots down in
 * double), the cameras the nodes place, KHR_lights_punctual lights, how many nodes place each
 * mesh, and a notice naming the scene-level content that is not used. The triangles come
 * through assimp (mesh.h), which composes the same hierarchy.
 *
 *   sr_gltf_scene g;
 *   if (sr_gltf_scene_read("model.glb", &g, &err) == SR_OK) { ... g.cameras[0] ...; sr_gltf_scene_free(&g); }
 *
 * The file is checked as mesh_check_gltf.h says first (cycles, ranges), so a hostile file is
 * SR_ERR_INPUT naming the item. Units are the file's: candela (point, spot), lux
 * (directional), radians. */
#ifndef SR_GLTF_SCENE_H
#define SR_GLTF_SCENE_H

#include <stdint.h>
#include "../../base/status.h"
#include "../../../kernels/core/types.h"

typedef enum sr_gltf_camera_kind {
    SR_GLTF_CAMERA_PERSPECTIVE = 0,
    SR_GLTF_CAMERA_ORTHOGRAPHIC,   /* not supported: a notice names it                  */
    SR_GLTF_CAMERA_UNPLACED,       /* no node of the scene places it                    */
} sr_gltf_camera_kind;

/* One of the file's "cameras", where the first node (depth first from the scene's roots) that
 * places it puts it: glTF cameras look down their node's -Z with +Y up. */
typedef struct sr_gltf_camera {
    uint32_t kind;                 /* sr_gltf_camera_kind                               */
    sr_vec3 position, forward, up; /* world space; forward and up unit length           */
    float yfov_rad;                /* vertical field of view                            */
    float aspect;                  /* width / height, 0 when the file gives none         */
} sr_gltf_camera;

/* A KHR_lights_punctual light placed by a node (lights at their node's origin, shining down
 * its -Z). */
typedef struct sr_gltf_light {
    uint32_t kind;                 /* SR_LIGHT_POINT, SR_LIGHT_DIRECTIONAL or SR_LIGHT_SPOT */
    sr_vec3 position, direction;   /* direction: unit, the way the light travels        */
    sr_vec3 color;
    float intensity;               /* candela (point, spot) or lux (directional)        */
    float inner_rad, outer_rad;    /* spot: innerConeAngle, outerConeAngle              */
    uint32_t index;                /* its entry in KHR_lights_punctual.lights           */
} sr_gltf_light;

typedef struct sr_gltf_scene {
    sr_gltf_camera *cameras; uint32_t camera_count;   /* the file's "cameras", in order   */
    sr_gltf_light *lights; uint32_t light_count;      /* one per placing node, depth first */
    uint32_t *mesh_nodes; uint32_t mesh_count;        /* per "meshes" entry: nodes placing it */
    char notice[768];                                 /* "" or what is not used, one line  */
} sr_gltf_scene;

sr_status sr_gltf_scene_read(const char *path, sr_gltf_scene *out, sr_error *err);
void sr_gltf_scene_free(sr_gltf_scene *g);

#endif
