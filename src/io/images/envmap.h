/* envmap.h: the host side of environment lighting: the sampling distribution of an
 * equirectangular map (kernels/core/envmap.h reads it). */
#ifndef SR_ENVMAP_HOST_H
#define SR_ENVMAP_HOST_H

#include "../../base/status.h"
#include "../../../kernels/core/types.h"

/* The largest radiance the environment may give (the map's brightest texel x intensity): the
 * film sums up to 65536 samples of it per pixel in 32-bit floats, and light sampling weights
 * a sample by up to some hundreds (radiance over the map's pdf), so 1e30 keeps those sums
 * below FLT_MAX (3.4e38) with room to spare. */
#define SR_ENV_RADIANCE_MAX 1e30

/* The largest channel value of texture t (texels: the scene's texel array). */
float sr_env_max_texel(const sr_texture *t, const float *texels);

/* Bytes sr_env_build allocates for a w x h map. */
uint64_t sr_env_build_bytes(uint32_t w, uint32_t h);

/* The piecewise-constant distribution of texel t (texels: the scene's texel array): each
 * texel weighted by its luminance times sin(theta) of its row's centre. marginal: h + 1
 * floats, conditional: h x (w + 1), pdf: h x w (density in (u, v), so 1 everywhere for a
 * uniform weight). Sums in double; each CDF ends at exactly 1. A black map gives pdf 0. */
sr_status sr_env_build(const sr_texture *t, const float *texels, float **marginal, float **conditional, float **pdf,
                       sr_error *err);

#endif
