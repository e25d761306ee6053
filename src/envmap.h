/* envmap.h: the host side of environment lighting: the sampling distribution of an
 * equirectangular map (kernels/envmap.h reads it). */
#ifndef SR_ENVMAP_HOST_H
#define SR_ENVMAP_HOST_H

#include "status.h"
#include "../kernels/types.h"

/* Bytes sr_env_build allocates for a w x h map. */
uint64_t sr_env_build_bytes(uint32_t w, uint32_t h);

/* The piecewise-constant distribution of texel t (texels: the scene's texel array): each
 * texel weighted by its luminance times sin(theta) of its row's centre. marginal: h + 1
 * floats, conditional: h x (w + 1), pdf: h x w (density in (u, v), so 1 everywhere for a
 * uniform weight). Sums in double; each CDF ends at exactly 1. A black map gives pdf 0. */
sr_status sr_env_build(const sr_texture *t, const float *texels, float **marginal, float **conditional, float **pdf,
                       sr_error *err);

#endif
