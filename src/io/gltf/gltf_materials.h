/* gltf_materials.h: what a glTF file's materials say that assimp 5.2 (Debian 12) does not pass
 * on, read from the file's JSON: KHR_materials_emissive_strength (assimp 5.2 drops it),
 * KHR_texture_transform in glTF's own convention, alphaMode, the texCoord sets the textures
 * use, KHR_materials_ior and the transmission factor (for the notice, with its value), and
 * the extensions the file uses that the renderer does not support (for the notice).
 *
 *   sr_gltf_materials gm;
 *   if (sr_gltf_materials_read(path, ".glb", size, &gm, err) == SR_OK) { ... gm.mats[k] ...;
 *       sr_gltf_materials_free(&gm); }
 *
 * mats[k] is material k of assimp's import, which numbers the materials as its reader meets
 * them from the default scene (not in the file's order, and without the unused ones), and
 * appends its default material after them. */
#ifndef SR_GLTF_MATERIALS_H
#define SR_GLTF_MATERIALS_H

#include <stddef.h>
#include <stdint.h>
#include "../../base/status.h"
#include "../../../kernels/core/types.h"   /* SR_ALPHA_* */


typedef struct sr_gltf_material {
    float emissive_strength;   /* KHR_materials_emissive_strength; 1 without it              */
    /* KHR_texture_transform of the base colour texture as glTF defines it, on glTF's UVs
     * (v down): u' = uv_xf[0] u + uv_xf[1] v + uv_xf[2], v' = uv_xf[3] u + uv_xf[4] v + uv_xf[5] */
    int has_uv_xf;
    float uv_xf[6];
    /* The metallic-roughness, normal and emissive textures' own transforms (SR_GLTF_XF_*),
     * on the UVs as stored (assimp's convention, the base colour's transform baked in):
     * u' = tex_xf[k][0] u + tex_xf[k][1] v + tex_xf[k][2], v' = tex_xf[k][3] u + ... */
    int has_tex_xf[3];
    float tex_xf[3][6];
    int other_xf;              /* a texture's transform differs from the base colour's and
                                * cannot be honoured (the base colour's is singular)          */
    int other_texcoord;        /* a texture reads a texCoord set other than 0                 */
    float normal_scale;        /* normalTexture.scale; 1 without it                           */
    uint32_t alpha_mode;       /* SR_ALPHA_*                                                  */
    float alpha_cutoff;        /* MASK: 0.5 unless given                                      */
    float ior;                 /* KHR_materials_ior's ior; 1.5 without it (or below 1)        */
    int bad_ior;               /* the file's ior is below 1 or not a number: 1.5 is used      */
    float transmission;        /* KHR_materials_transmission's transmissionFactor; 0 without it */
} sr_gltf_material;

enum { SR_GLTF_XF_MR = 0, SR_GLTF_XF_NORMAL, SR_GLTF_XF_EMIT };

typedef struct sr_gltf_materials {
    int is_gltf;               /* read from a glTF file (0: all empty)                         */
    sr_gltf_material *mats;    /* malloc'd, `count` of them: the file's "materials" that assimp
                                * imports, in its order                                       */
    uint32_t count;
    char unsupported[512];     /* the extensions used that are not supported, ", "-separated   */
} sr_gltf_materials;

/* Read them from the .gltf or .glb at path (ext: ".gltf" or ".glb", size: its size, already
 * checked by sr_mesh_inputs_check). JSON that cJSON cannot parse leaves everything at its
 * defaults (assimp reports the file); SR_ERR_RUNTIME only when memory runs out. */
sr_status sr_gltf_materials_read(const char *path, const char *ext, uint64_t size, sr_gltf_materials *out, sr_error *err);

void sr_gltf_materials_free(sr_gltf_materials *gm);

/* UV (u, v) in assimp's convention (v up, as the stages read it) through a glTF transform. */
void sr_gltf_uv_apply(const float xf[6], float *u, float *v);

#endif
