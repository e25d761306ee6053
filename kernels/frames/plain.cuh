/* plain.cuh: the kernels' builds for scenes that use fewer features.
 *
 * wave.cu and bounce.cu are compiled five times. The instances build (wave_instances.cu,
 * bounce_instances.cu) runs every scene, and is the only one with the two-level BVH's second
 * level (SR_NO_INSTANCES: meshes placed by instances; the frame driver runs it for scenes
 * that have any): its second traversal stack would cost every other build stack and spills.
 * The maps build (wave_maps.cu, bounce_maps.cu) runs every scene without instances, and it
 * and the instances build are the only ones with the glTF material maps (SR_NO_MAPS: normal
 * maps, alpha cutouts, metallic and emission textures; sr_scene_maps). The general build runs every
 * scene without them: inlined, they cost its bounce loop registers. The
 * no-assets build (wave_noassets.cu, bounce_noassets.cu: SR_NO_ASSETS) runs scenes without
 * textures, an environment map or per-vertex attributes (sr_scene_no_assets, stages.h); the
 * plain build (wave_plain.cu, bounce_plain.cu: SR_NO_ASSETS and SR_NO_LIGHTS) runs path-traced
 * scenes that have no lights or area emitters either (sr_scene_plain). The per-ray code takes
 * the missing features as absent at compile time (compat.h), so the compiler drops what such a
 * scene never runs (texturing, smooth normals, the map; next-event estimation and its shadow
 * rays), and SR_K names the kernels and launchers with the build's suffix. Which build
 * runs a scene is the frame driver's choice (render.c, sr_build_of: the narrowest that fits),
 * passed in sr_launch_args.build; the CUDA backend calls that build's launchers, and none of
 * them looks at the scene to pick another. Measured on the H200
 * (docs/design.md): the plain path kernel without a queue has 6 136 instructions and 128
 * bytes of spill loads against 16 352 and 1 500, and most of the general one's
 * instruction-cache stalls go. The image is bit-identical: each dropped branch is one the
 * scene's data never takes, in the same per-ray code. */
#ifndef SR_PLAIN_CUH
#define SR_PLAIN_CUH

#include "../integrators/stages.h"

#if SR_NO_ASSETS && SR_NO_LIGHTS
#define SR_K(name) name##_plain
#elif SR_NO_ASSETS
#define SR_K(name) name##_noassets
#elif !SR_NO_INSTANCES
#define SR_K(name) name##_instances
#elif !SR_NO_MAPS
#define SR_K(name) name##_maps
#else
#define SR_K(name) name
#endif

#endif
