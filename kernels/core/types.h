/* types.h: the plain structs every stage reads. The host builds them (scene.c, bvh.c), the
 * backends copy them where the stages run, and nothing in here owns memory. */
#ifndef SR_TYPES_H
#define SR_TYPES_H

#include "vmath.h"

/* ---- materials ------------------------------------------------------------------------ */
typedef enum sr_material_kind {
    SR_MAT_DIFFUSE = 0, /* albedo (+ optional checker), lit by the scene's lights    */
    SR_MAT_MIRROR,      /* perfect reflection scaled by reflectance                   */
    SR_MAT_METAL,       /* reflection scaled by albedo, blurred by roughness          */
    SR_MAT_GLASS,       /* Fresnel-weighted reflection or refraction, tinted          */
    SR_MAT_EMISSIVE,    /* adds radiance (front side, or both with two_sided); Whitted ends
                           the path there, path mode reflects diffusely by color2 if set  */
    SR_MAT_PBR,         /* glTF metallic-roughness: base colour `color`, `metallic`,
                           `roughness`, emission `color2` (front side)                    */
    SR_MAT_KIND_COUNT
} sr_material_kind;

typedef struct sr_material {
    uint32_t kind;        /* sr_material_kind                                          */
    sr_vec3 color;        /* albedo | reflectance | albedo | tint | radiance            */
    sr_vec3 color2;       /* diffuse: checker's second colour; emissive: albedo (path);
                             pbr: emitted radiance                                     */
    float checker_scale;  /* diffuse: size of a checker cell in world units, 0 = none   */
    float roughness;      /* metal: 0 = mirror, 1 = very blurry                         */
    float ior;            /* glass: index of refraction                                 */
    float metallic;       /* pbr: 0 = dielectric (F0 = spec_f0), 1 = metal (F0 = color) */
    float spec_f0;        /* pbr: the dielectric's reflectance at normal incidence,
                             ((ior - 1) / (ior + 1))^2: 0.04 at ior 1.5 (sr_pbr_f0)        */
    uint32_t two_sided;   /* emissive: 1 = emits from both sides                        */
    uint32_t color_tex;   /* 1 + texture index multiplying `color` (albedo, reflectance); 0 = none */
    uint32_t rough_tex;   /* 1 + texture index multiplying `roughness` (its green channel); 0 = none */
    uint32_t metal_tex;   /* 1 + texture index multiplying `metallic` (its blue channel, glTF's); 0 = none */
    uint32_t emit_tex;    /* pbr: 1 + texture index multiplying the emission `color2`; 0 = none */
    uint32_t norm_tex;    /* 1 + texture index of a tangent-space normal map (linear); 0 = none.
                             Read where a prim's attributes carry SR_ATTR_NORMAL_MAP         */
    float normal_scale;   /* the normal map's X and Y scale (glTF's normalTexture.scale)     */
    /* Coverage (glTF's alphaMode), tested in traversal on prims whose attributes carry
     * SR_ATTR_CUTOUT: alpha = `alpha` x the alpha texture's red channel. */
    uint32_t alpha_mode;  /* SR_ALPHA_*                                                      */
    float alpha;          /* the base colour factor's alpha                                  */
    float alpha_cutoff;   /* SR_ALPHA_MASK: a hit counts where alpha >= this                 */
    uint32_t alpha_tex;   /* 1 + texture index holding alpha (in every channel); 0 = none    */
} sr_material;

/* A pbr material's spec_f0 for index of refraction ior, ((ior - 1) / (ior + 1))^2, in double
 * so that ior 1.5 gives 0.04f exactly (host only). */
static inline float sr_pbr_f0(float ior)
{
    const double r = ((double)ior - 1.0) / ((double)ior + 1.0);
    return (float)(r * r);
}

/* sr_material.alpha_mode: opaque; alpha-tested (a hit counts where alpha >= alpha_cutoff);
 * coverage (a hit counts with probability alpha: stochastic transparency). */
#define SR_ALPHA_OPAQUE 0u
#define SR_ALPHA_MASK 1u
#define SR_ALPHA_BLEND 2u

/* An image texture: width x height linear RGB float texels, row 0 at the top, starting at
 * texel `offset` of the scene's texel array. */
#define SR_WRAP_REPEAT 0u
#define SR_WRAP_CLAMP 1u
#define SR_FILTER_BILINEAR 0u
#define SR_FILTER_NEAREST 1u
typedef struct sr_texture {
    uint32_t offset;     /* in texels (3 floats each)                                    */
    uint32_t width, height;
    uint32_t wrap;       /* SR_WRAP_*                                                    */
    uint32_t filter;     /* SR_FILTER_*                                                  */
    /* has_xf: (u, v) becomes (xf[0] u + xf[1] v + xf[2], xf[3] u + xf[4] v + xf[5]) before
     * the lookup (a glTF texture's own KHR_texture_transform, relative to the UVs stored,
     * which carry the base colour's); another entry on the same texels when it has one. */
    uint32_t has_xf;
    float xf[6];
} sr_texture;

/* ---- primitives ----------------------------------------------------------------------- */
typedef enum sr_prim_kind {
    SR_PRIM_SPHERE = 0, /* a = centre, b.x = radius                                     */
    SR_PRIM_PLANE,      /* a = a point on it, b = unit normal (unbounded: not in the BVH) */
    SR_PRIM_QUAD,       /* a = corner, b = edge u, c = edge v (parallelogram a+s*b+t*c)  */
    SR_PRIM_TRIANGLE,   /* a, b, c = vertices, counter-clockwise seen from the front     */
    SR_PRIM_INSTANCE,   /* top level only: a = lo, b = hi of instance `material`'s world box */
    SR_PRIM_KIND_COUNT
} sr_prim_kind;

typedef struct sr_prim {
    uint32_t kind;      /* sr_prim_kind                                                  */
    uint32_t material;  /* index into the material table                               */
    sr_vec3 a, b, c;
} sr_prim;

/* Per-vertex data of a mesh triangle, read only when shading its hit (never by intersection):
 * the scene carries one entry per bounded prim, in the same (BVH) order, or none at all. */
#define SR_ATTR_NORMALS 1u   /* n[] holds unit shading normals at a, b, c                     */
#define SR_ATTR_UV 2u        /* uv[] holds texture coordinates (u, v) at a, b, c              */
#define SR_ATTR_NORMAL_MAP 4u /* with SR_ATTR_UV: the prim's material has a normal map (norm_tex) */
#define SR_ATTR_CUTOUT 8u    /* the prim's material is not opaque: traversal tests its alpha   */
/* flags >> SR_ATTR_TANGENT_SHIFT: 0, or 1 + the index of the prim's sr_tri_tangent in the
 * scene's tangent table (a normal-mapped prim whose mesh has per-vertex tangents). */
#define SR_ATTR_TANGENT_SHIFT 4u
typedef struct sr_tri_attr {
    sr_vec3 n[3];
    float uv[6];
    uint32_t flags;      /* SR_ATTR_* and the tangent index; 0 for prims without per-vertex data */
} sr_tri_attr;

/* Per-vertex tangents of a normal-mapped triangle (MikkTSpace's convention, as glTF's TANGENT
 * attribute): t[k] is the unit tangent at vertex k (along +u), w[k] its handedness (+-1): the
 * bitangent is w * cross(n, t). Kept in a table of their own, only for the prims that have
 * them, so that the attributes of every other mesh stay as they are. */
typedef struct sr_tri_tangent {
    sr_vec3 t[3];
    float w[3];
} sr_tri_tangent;

/* A flattened BVH node (32 bytes). Interior: the left child is the next node (depth-first
 * order) and `index` is the right child. Leaf (count > 0): prims [index, index + count)
 * of the BVH's primitive order. */
typedef struct sr_bvh_node {
    sr_vec3 lo;
    uint32_t index;
    sr_vec3 hi;
    uint32_t count;
} sr_bvh_node;

#define SR_BVH_STACK 64    /* traversal stack depth; the builder refuses deeper trees   */
#define SR_NO_HIT 0xffffffffu

/* A placed copy of a mesh stored once (docs/design.md, "Instances"). The mesh's prims and
 * tree follow the top level's in the scene's arrays, in object space; the instance's proxy
 * prim (SR_PRIM_INSTANCE) sits in the top-level tree. A hit on the mesh's stored prim i is
 * numbered i + id_shift: instance k's hits are [first_id, first_id + the mesh's prim count),
 * numbered after the top level's prims (sr_scene_view.instance_ids) in instance order. */
typedef struct sr_instance {
    float to_world[12];   /* row-major 3x4: world = M (p, 1)                                */
    float to_object[12];  /* its inverse (worked in double on the host, rounded once)      */
    uint32_t root;        /* node index of the mesh's tree root                          */
    uint32_t first_id;    /* the hit id of the mesh's first stored prim                  */
    uint32_t id_shift;    /* first_id - the mesh's first stored prim (modulo 2^32)       */
    uint32_t mirrors;     /* 1: to_world's 3x3 has a negative determinant (a tangent's
                             handedness flips with it)                                  */
} sr_instance;

/* ---- lights and camera ---------------------------------------------------------------- */
typedef enum sr_light_kind { SR_LIGHT_POINT = 0, SR_LIGHT_DIRECTIONAL, SR_LIGHT_SPOT } sr_light_kind;

typedef struct sr_light {
    uint32_t kind;      /* sr_light_kind                                                 */
    sr_vec3 v;          /* point, spot: position; directional: unit direction light travels */
    sr_vec3 axis;       /* spot: unit direction of the cone's axis (the way light travels) */
    float cone_scale, cone_offset;   /* spot: attenuation clamp(cos * scale + offset, 0, 1)^2 */
    sr_vec3 power;      /* point, spot: intensity (W/sr) x colour (spot: on its axis);     *
                         * directional: irradiance (W/m^2) x colour                        */
} sr_light;

/* An emissive bounded primitive, for light sampling in path mode: prim indexes the BVH-ordered
 * prims; cdf is the running sum of sr_emitter_power over the list, divided by the total (the
 * last entry is exactly 1), so an emitter is picked with probability proportional to its power. */
typedef struct sr_emitter {
    uint32_t prim;
    float cdf;
} sr_emitter;

/* The scene's "integrator" and --integrator; their names: src/base/names.c. */
typedef enum sr_integrator { SR_INTEGRATOR_WHITTED = 0, SR_INTEGRATOR_PATH, SR_INTEGRATOR_COUNT } sr_integrator;

/* Switches for tests (not in the scene format or on the command line): the same estimate by
 * other means, to check that each is unbiased. */
#define SR_PATH_NO_NEE 1u   /* no light sampling: emitters are found by BSDF sampling only   */
#define SR_PATH_NO_RR 2u    /* no Russian roulette                                           */
#define SR_PATH_NO_ENV_IS 4u /* the environment map found by BSDF sampling only             */

/* The camera as the stages use it: a thin lens with a pinhole when lens_radius == 0. */
typedef struct sr_camera {
    sr_vec3 origin;
    sr_vec3 lower_left;   /* image plane corner at the focus distance                  */
    sr_vec3 horizontal;   /* image plane extents                                        */
    sr_vec3 vertical;
    sr_vec3 u, v;         /* lens axes                                                  */
    float lens_radius;
} sr_camera;

/* Everything the stages read about the scene. Pointers are host or device memory,
 * depending on the backend that filled it in. */
typedef struct sr_scene_view {
    const sr_prim *prims;        /* BVH order: leaves index this array directly         */
    const sr_bvh_node *nodes;
    const sr_prim *planes;       /* unbounded primitives, tested one by one              */
    const sr_material *materials;
    const sr_light *lights;
    const sr_emitter *emitters;  /* emissive bounded prims (path mode's area lights)     */
    const sr_tri_attr *attrs;    /* NULL, or one per prim (BVH order): smooth normals, UVs */
    const sr_tri_tangent *tangents; /* NULL, or the table attrs' tangent indices point into */
    uint32_t tangent_count;
    const sr_texture *textures;  /* materials' color_tex / rough_tex index these          */
    const float *texels;         /* every texture's texels, RGB                           */
    uint32_t texture_count;
    uint32_t cutouts;            /* 1: some prim has SR_ATTR_CUTOUT (traversal tests alpha)  */
    uint32_t prim_count, node_count, plane_count, material_count, light_count, emitter_count;
    float emitter_power;         /* sum of sr_emitter_power over emitters                */
    sr_camera camera;
    sr_vec3 background;          /* radiance of escaping rays, when has_sky == 0         */
    sr_vec3 sky_zenith, sky_horizon, sky_ground;   /* the gradient, when has_sky != 0    */
    uint32_t has_sky;
    uint32_t env_tex;            /* 1 + texture index of the environment map; 0 = none    */
    sr_vec3 env_rot[3];          /* the map's rotation, as columns: world = R * map       */
    float env_intensity;
    const float *env_marginal;   /* [height + 1]: CDF over the map's rows                 */
    const float *env_conditional;/* [height][width + 1]: CDF within each row              */
    const float *env_pdf;        /* [height][width]: density in (u, v) of each texel      */
    sr_vec3 ambient;             /* Whitted's ambient term for diffuse surfaces          */
    uint32_t width, height, spp, max_depth;
    uint32_t integrator;         /* sr_integrator                                        */
    uint32_t path_flags;         /* SR_PATH_NO_NEE | SR_PATH_NO_RR (tests)               */
    /* Instances (sr_instance): none in a scene where no mesh repeats. prims, nodes and attrs
     * then hold the top level first, then each instanced mesh's prims and tree. */
    const sr_instance *instances;
    uint32_t instance_count;
    uint32_t instance_ids;       /* the first instanced hit id (the top level's prim count) */
} sr_scene_view;

/* A ray hit as intersect leaves it for shade. */
typedef struct sr_hit {
    float t;
    uint32_t prim;   /* index into prims, or (plane index | SR_HIT_PLANE_BIT), or SR_NO_HIT */
} sr_hit;

#define SR_HIT_PLANE_BIT 0x80000000u

#define SR_MAX_DEPTH 64u      /* deepest trace a scene or option may ask for             */

#endif
