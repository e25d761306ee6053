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

/* The samplers (sr_params.sampler, the "sampler" of the scene file). Both are keyed by
 * (pixel, sample, bounce, dimension, seed) alone, so neither depends on masks, compaction,
 * backends or device splits. */
typedef enum sr_sampler {
    SR_SAMPLER_SOBOL = 0,      /* scrambled Sobol points (below): the default            */
    SR_SAMPLER_INDEPENDENT,    /* sr_rng: a fresh hash per draw                          */
    SR_SAMPLER_COUNT
} sr_sampler;

/* The 32 bits of x in reverse order. */
SR_HD uint32_t sr_reverse_bits(uint32_t x)
{
#if defined(__CUDA_ARCH__)
    return __brev(x);
#else
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
#endif
}

/* A nested uniform (Owen) scramble of the 32-bit fraction x, keyed by seed: each bit is
 * flipped by a function of the seed and of the bits above it only, so every elementary
 * interval maps onto one of the same size and a net stays a net. Burley's form ("Practical
 * Hash-based Owen Scrambling", JCGT 2020): in reversed bit order, an add and products by even
 * constants carry only from low bits to high ones; the constants are the paper's (Laine and
 * Karras' permutation with its improved multipliers). */
SR_HD uint32_t sr_owen_scramble(uint32_t x, uint32_t seed)
{
    x = sr_reverse_bits(x);
    x += seed;
    x ^= x * 0x6c50b47cu;
    x ^= x * 0xb82f1e52u;
    x ^= x * 0xc7afe638u;
    x ^= x * 0x8d22f6e6u;
    return sr_reverse_bits(x);
}

/* Coordinate `dim` (0 or 1) of Sobol point `index`, as a 32-bit fraction: together the
 * first two dimensions of Sobol's sequence, a (0,2)-sequence, so the first 2^k points form a
 * (0,k,2)-net: every elementary interval of area 2^-k holds one point. Coordinate 0 is the
 * van der Corput sequence; coordinate 1 takes dimension 2 of Joe and Kuo's table
 * (new-joe-kuo-6.21201): the primitive polynomial x + 1 with m_1 = 1, whose direction
 * numbers v_k = m_k / 2^k follow from Bratley and Fox's recurrence v_k = v_{k-1} ^ (v_{k-1} >> 1),
 * made as the index's bits are read (no table; one step per bit up to the highest). */
SR_HD uint32_t sr_sobol(uint32_t index, uint32_t dim)
{
    if (dim == 0u) return sr_reverse_bits(index);
    uint32_t x = 0u;
    for (uint32_t v = 0x80000000u; index; index >>= 1, v ^= v >> 1)
        if (index & 1u) x ^= v;
    return x;
}

/* Where each draw of a bounce takes its number in the Sobol sampler: a group of its own
 * (padding, as in Kollig and Keller's and pbrt-v4's padded Sobol samplers), coordinate 0 or 1
 * of that group's points (slot = group * 2 + coordinate). The 2D draws get both coordinates,
 * the best 2D points: the pixel position (the camera's first group), the lens, the point on
 * the emitter, the BSDF's direction, Whitted's fuzz or the environment map's direction. The
 * 1D decisions (the light pick, the lobe choice, the roulette, the fuzz's third number) each
 * take coordinate 0 of a group of their own: the coordinates of one Sobol point share their
 * top bit (the index's lowest), so a decision on the same point as a 2D draw would tie the
 * choice to the draw's quadrant. */
SR_HD uint32_t sr_sobol_slot(uint32_t dim)
{
    switch (dim) {
    case SR_DIM_PIXEL_X: return 0u;  case SR_DIM_PIXEL_Y: return 1u;
    case SR_DIM_LENS_U: return 2u;   case SR_DIM_LENS_V: return 3u;
    case SR_DIM_LIGHT_U: return 4u;  case SR_DIM_LIGHT_V: return 5u;
    case SR_DIM_BSDF_U: return 6u;   case SR_DIM_BSDF_V: return 7u;
    case SR_DIM_FUZZ_U: return 8u;   case SR_DIM_FUZZ_V: return 9u;
    case SR_DIM_LIGHT_PICK: return 10u;
    case SR_DIM_CHOICE: return 12u;
    case SR_DIM_RR: return 14u;
    default: return 16u;             /* SR_DIM_FUZZ_W */
    }
}

#define SR_SOBOL_GROUPS 9u   /* groups of two coordinates per bounce (sr_sobol_slot) */

/* A uniform float in [0, 1) from the Sobol sampler (Burley's design, "Practical Hash-based
 * Owen Scrambling", JCGT 2020). Each group of a bounce draws its own sequence, keyed by
 * hash(seed, pixel, bounce, group): the sample index is first shuffled by a nested uniform
 * scramble of its bits (XORed with the shuffle of 0, which keeps it in [0, 2^k) for
 * sample < 2^k and the loop in sr_sobol short), then each coordinate of that Sobol point is
 * Owen-scrambled with its own key. So the first 2^k samples of a pixel are, in each group,
 * a scrambled (0,k,2)-net, every power-of-two prefix of them is one too, and pixels and
 * groups are decorrelated by their keys. Between powers of two the samples are part of the
 * next net: well spread, though the error drops best at 2^k. */
SR_HD float sr_sobol_rng(uint32_t seed, uint32_t pixel, uint32_t sample, uint32_t bounce, uint32_t dim)
{
    const uint32_t slot = sr_sobol_slot(dim);
    uint32_t key = sr_hash32(seed ^ 0x5851f42du);
    key = sr_hash32(key ^ pixel);
    key = sr_hash32(key ^ (bounce * SR_SOBOL_GROUPS + (slot >> 1)));
    const uint32_t index = sr_owen_scramble(sample, key) ^ sr_owen_scramble(0u, key);
    const uint32_t x = sr_owen_scramble(sr_sobol(index, slot & 1u), sr_hash32(key + 1u + (slot & 1u)));
    return (float)(x >> 8) * (1.0f / 16777216.0f);
}

/* A uniform float in [0, 1) from the given sampler (sr_sampler). */
SR_HD float sr_sample_1d(uint32_t sampler, uint32_t seed, uint32_t pixel, uint32_t sample, uint32_t bounce, uint32_t dim)
{
    return sampler == SR_SAMPLER_INDEPENDENT ? sr_rng(seed, pixel, sample, bounce, dim)
                                             : sr_sobol_rng(seed, pixel, sample, bounce, dim);
}

#endif
