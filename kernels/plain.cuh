/* plain.cuh: the kernels' second build, for plain scenes (sr_scene_plain, stages.h).
 *
 * A plain scene has no point or directional lights, no area emitters, no environment map, no
 * textures and no per-vertex attributes. wave_plain.cu and bounce_plain.cu compile wave.cu and
 * bounce.cu again with SR_PLAIN_BUILD 1: the per-ray code then takes those features as absent
 * (compat.h), so the compiler drops what a plain scene never runs (next-event estimation and
 * its shadow rays, the map, texturing, smooth normals), and names the kernels and launchers
 * with a _plain suffix. The general launchers hand a plain path-traced scene to them. Measured
 * on the H200 (README): the path kernel without a queue goes from about 16 000 instructions to
 * 6 600 and from 1.5 KB of spill loads to 128 bytes, and most of its instruction-cache stalls go.
 * The image is bit-identical: each dropped branch is one that a plain scene's data never takes,
 * in the same per-ray code. */
#ifndef SR_PLAIN_CUH
#define SR_PLAIN_CUH

#include <stdlib.h>
#include "stages.h"

#if SR_PLAIN_BUILD
#define SR_K(name) name##_plain
#else
#define SR_K(name) name
#endif

/* Whether a path-traced scene goes to the plain build: sr_scene_plain, unless
 * $SR_NO_PLAIN_KERNELS is set (a measurement switch: the general kernels on the same scene;
 * read once). */
static inline bool sr_use_plain(const sr_params *p)
{
    static int off = -1;
    if (off < 0) off = getenv("SR_NO_PLAIN_KERNELS") != NULL;
    return !SR_PLAIN_BUILD && !off && p->scene.integrator == SR_INTEGRATOR_PATH && sr_scene_plain(&p->scene);
}

#endif
