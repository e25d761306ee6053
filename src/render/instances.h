/* instances.h: the two-level BVH of a scene whose meshes repeat (scene.h: shared meshes and
 * instances; docs/design.md, "Instances"). Each shared mesh gets its own tree over its
 * object-space prims (the host's SAH builder); the top level is the host's SAH tree over the
 * scene's world-space prims and one proxy prim (SR_PRIM_INSTANCE) per instance, boxed by the
 * mesh's root box placed in world space. Joined, the arrays the stages read hold the top
 * level first, then each mesh's prims and tree (kernels/core/types.h, sr_instance).
 *
 *   sr_levels lv;
 *   sr_levels_build(scene, &lv, &top, err);     // meshes' trees, instances, the top tree
 *   ... the emitters and attributes over top ...
 *   sr_levels_join(scene, &lv, &top, top_attrs, err);   // lv.prims, lv.nodes, lv.attrs
 *   sr_levels_free(&lv);
 */
#ifndef SR_INSTANCES_H
#define SR_INSTANCES_H

#include "../scene/scene.h"
#include "bvh.h"

typedef struct sr_levels {
    sr_bvh *meshes; uint32_t mesh_count;            /* one tree per shared mesh          */
    sr_instance *instances; uint32_t instance_count;
    uint32_t instance_ids;                          /* the top level's prim count        */
    /* joined (sr_levels_join): top level, then each mesh in turn */
    sr_prim *prims; uint32_t prim_count;
    sr_bvh_node *nodes; uint32_t node_count;
    sr_tri_attr *attrs;                             /* NULL when no prim has any          */
} sr_levels;

/* The meshes' trees, the instances' matrices and the top-level tree (into *top, in host
 * memory). SR_ERR_INPUT when the hits would need more ids than 2^31 - 1, or as
 * sr_bvh_check_prims; SR_ERR_RUNTIME on out of memory. */
sr_status sr_levels_build(const sr_scene *scene, sr_levels *lv, sr_bvh *top, sr_error *err);

/* The arrays the stages read: top's prims and nodes, then each mesh's (their node and prim
 * indices moved past what comes before); attributes from top_attrs (the top level's, BVH
 * order, or NULL) and the scene's shared_attrs. The meshes' own trees are freed. */
sr_status sr_levels_join(const sr_scene *scene, sr_levels *lv, const sr_bvh *top, const sr_tri_attr *top_attrs,
                         sr_error *err);

void sr_levels_free(sr_levels *lv);

#endif
