/* tonemap.h: linear radiance to display values, shared by the CPU writer, the CUDA display
 * path and (in GLSL, kept in step by a test) shaders/display.frag. */
#ifndef SR_TONEMAP_H
#define SR_TONEMAP_H

#include "vmath.h"

typedef enum sr_tonemap {
    SR_TONEMAP_CLAMP = 0,  /* radiance x exposure, clipped at 1: what the scene says      */
    SR_TONEMAP_REINHARD,   /* x / (1 + x): keeps highlights, flattens contrast             */
    SR_TONEMAP_ACES,       /* Narkowicz's fit of the ACES filmic curve                     */
    SR_TONEMAP_COUNT       /* names: src/base/names.c                                           */
} sr_tonemap;

SR_HD float sr_tonemap_channel(float x, sr_tonemap op)
{
    if (!(x > 0.0f)) return 0.0f; /* also maps NaN to 0 */
    x = sr_minf(x, 1e8f);         /* every curve is 1 by then; keeps inf/inf (NaN) out of ACES */
    switch (op) {
    case SR_TONEMAP_REINHARD: x = x / (1.0f + x); break;
    case SR_TONEMAP_ACES: x = (x * (2.51f * x + 0.03f)) / (x * (2.43f * x + 0.59f) + 0.14f); break;
    default: break;
    }
    return sr_clampf(x, 0.0f, 1.0f);
}

/* The sRGB transfer function (IEC 61966-2-1), for values in [0, 1]. */
SR_HD float sr_srgb_encode(float x)
{
    return x <= 0.0031308f ? 12.92f * x : 1.055f * powf(x, 1.0f / 2.4f) - 0.055f;
}

/* One channel, linear radiance to an 8-bit sRGB code. */
SR_HD uint8_t sr_display_byte(float x, float exposure, sr_tonemap op)
{
    float v = sr_srgb_encode(sr_tonemap_channel(x * exposure, op));
    return (uint8_t)(v * 255.0f + 0.5f);
}

#endif
