/* plain.cuh: the path kernels' twins for plain scenes (sr_scene_plain, stages.h).
 *
 * A plain scene has no point or directional lights, no area emitters, no environment map, no
 * textures and no per-vertex attributes. Its twin kernels read the parameters through a copy
 * in which those fields are constants (empty), so the compiler drops what a plain scene never
 * runs: next-event estimation and its shadow rays, the map's sampling, texturing, smooth
 * normals. Measured on the H200 (README): the path kernel without a queue goes from about
 * 16 000 instructions and 1.5 KB of spill loads to 6 600 and 128 bytes, and most of its
 * instruction-cache stalls go. The image is bit-identical: each dropped branch is one that a
 * plain scene's data never takes, in the same per-ray code. */
#ifndef SR_PLAIN_CUH
#define SR_PLAIN_CUH

#include <stdlib.h>
#include "raystate.h"
#include "stages.h"

__device__ __forceinline__ sr_params sr_params_plain(const sr_params &p)
{
    sr_params q = p;
    q.scene.lights = NULL;
    q.scene.light_count = 0u;
    q.scene.emitters = NULL;
    q.scene.emitter_count = 0u;
    q.scene.emitter_power = 0.0f;
    q.scene.attrs = NULL;
    q.scene.textures = NULL;
    q.scene.texels = NULL;
    q.scene.texture_count = 0u;
    q.scene.env_tex = 0u;
    return q;
}

/* body(const sr_params *): with the kernel's own parameters, or with their plain copy. */
template <bool PLAIN, typename BODY>
__device__ __forceinline__ void sr_with_params(const sr_params &p, BODY body)
{
    if constexpr (PLAIN) {
        const sr_params q = sr_params_plain(p);
        body(&q);
    } else {
        body(&p);
    }
}

/* Whether to launch the plain twins for scene s: sr_scene_plain, unless $SR_NO_PLAIN_KERNELS
 * is set (a measurement switch: the general kernels on the same scene, read once). */
static inline bool sr_use_plain(const sr_scene_view *s)
{
    static int off = -1;
    if (off < 0) off = getenv("SR_NO_PLAIN_KERNELS") != NULL;
    return !off && sr_scene_plain(s);
}

#endif
