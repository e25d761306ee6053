/* plain.cuh: the kernels' builds for scenes that use fewer features.
 *
 * wave.cu and bounce.cu are compiled three times. The general build runs every scene. The
 * no-assets build (wave_noassets.cu, bounce_noassets.cu: SR_NO_ASSETS) runs scenes without
 * textures, an environment map or per-vertex attributes (sr_scene_no_assets, stages.h); the
 * plain build (wave_plain.cu, bounce_plain.cu: SR_NO_ASSETS and SR_NO_LIGHTS) runs path-traced
 * scenes that have no lights or area emitters either (sr_scene_plain). The per-ray code takes
 * the missing features as absent at compile time (compat.h), so the compiler drops what such a
 * scene never runs (texturing, smooth normals, the map; next-event estimation and its shadow
 * rays), and SR_K names the kernels and launchers with the build's suffix. The general
 * launchers hand a scene to the narrowest build that fits it. Measured on the H200
 * (docs/design.md): the plain path kernel without a queue has 6 136 instructions and 128
 * bytes of spill loads against 16 352 and 1 500, and most of the general one's
 * instruction-cache stalls go. The image is bit-identical: each dropped branch is one the
 * scene's data never takes, in the same per-ray code. */
#ifndef SR_PLAIN_CUH
#define SR_PLAIN_CUH

#if SR_MEASURE
#include <stdlib.h>
#endif
#include "../integrators/stages.h"

#if SR_NO_ASSETS && SR_NO_LIGHTS
#define SR_K(name) name##_plain
#elif SR_NO_ASSETS
#define SR_K(name) name##_noassets
#else
#define SR_K(name) name
#endif

enum { SR_BUILD_GENERAL, SR_BUILD_NO_ASSETS, SR_BUILD_PLAIN };

/* The build that runs the scene of p: the narrowest that fits it. Inside a narrower build,
 * that build. A measurement build (-DSR_MEASURE=ON) reads $SR_NO_PLAIN_KERNELS once: set, it
 * runs every scene on the general build (what the narrower builds gain, docs/design.md). */
static inline int sr_build_for(const sr_params *p)
{
    if (SR_NO_ASSETS || SR_NO_LIGHTS) return SR_BUILD_GENERAL;
#if SR_MEASURE
    static int off = -1;
    if (off < 0) off = getenv("SR_NO_PLAIN_KERNELS") != NULL;
    if (off) return SR_BUILD_GENERAL;
#endif
    if (!sr_scene_no_assets(&p->scene)) return SR_BUILD_GENERAL;
    return p->scene.integrator == SR_INTEGRATOR_PATH && sr_scene_plain(&p->scene) ? SR_BUILD_PLAIN : SR_BUILD_NO_ASSETS;
}

/* The start of a general launcher: a scene a narrower build fits goes to that build's twin. */
#define SR_HAND_OVER(launcher, ...)                                              \
    do {                                                                         \
        const int build_ = sr_build_for(p);                                      \
        if (build_ == SR_BUILD_PLAIN) return launcher##_plain(__VA_ARGS__);      \
        if (build_ == SR_BUILD_NO_ASSETS) return launcher##_noassets(__VA_ARGS__); \
    } while (0)

#endif
