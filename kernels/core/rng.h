/* rng.h: counter-based random numbers keyed by (pixel, sample, bounce, dimension, seed),
 * never by pool slot, so an image does not depend on where compaction put a ray, on the
 * backend, or on the masking strategy. */
#ifndef SR_RNG_H
#define SR_RNG_H

#include "compat.h"

/* A 32-bit integer hash with good avalanche (the "lowbias32" constants of Chris Wellons'
 * hash-prospector search). */
SR_HD uint32_t sr_hash32(uint32_t x)
{
    x ^= x >> 16; x *= 0x7feb352du;
    x ^= x >> 15; x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* Dimensions a stage draws, so two draws at one bounce never share a stream. */
enum { SR_DIM_PIXEL_X = 0, SR_DIM_PIXEL_Y, SR_DIM_LENS_U, SR_DIM_LENS_V,
       SR_DIM_CHOICE, SR_DIM_FUZZ_U, SR_DIM_FUZZ_V, SR_DIM_FUZZ_W,
       /* path tracing (kernels/integrators/path.h) */
       SR_DIM_LIGHT_PICK, SR_DIM_LIGHT_U, SR_DIM_LIGHT_V, SR_DIM_BSDF_U, SR_DIM_BSDF_V, SR_DIM_RR,
       SR_DIM_COUNT };

/* A uniform float in [0, 1) with 24 random bits. */
SR_HD float sr_rng(uint32_t seed, uint32_t pixel, uint32_t sample, uint32_t bounce, uint32_t dim)
{
    uint32_t h = sr_hash32(seed ^ 0x9e3779b9u);
    h = sr_hash32(h ^ pixel);
    h = sr_hash32(h ^ sample);
    h = sr_hash32(h ^ (bounce * SR_DIM_COUNT + dim));
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

#endif
