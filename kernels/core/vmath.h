/* vmath.h: small 3-vector math as plain functions (no operators, so it compiles as C). */
#ifndef SR_VMATH_H
#define SR_VMATH_H

#include "compat.h"
#include <math.h>

typedef struct sr_vec3 { float x, y, z; } sr_vec3;

#define SR_PI 3.14159265358979323846f
#define SR_INF 1e30f

SR_HD sr_vec3 sr_v3(float x, float y, float z) { sr_vec3 v; v.x = x; v.y = y; v.z = z; return v; }
SR_HD sr_vec3 sr_v3s(float s) { return sr_v3(s, s, s); }
SR_HD sr_vec3 sr_add(sr_vec3 a, sr_vec3 b) { return sr_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
SR_HD sr_vec3 sr_sub(sr_vec3 a, sr_vec3 b) { return sr_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
SR_HD sr_vec3 sr_mul(sr_vec3 a, sr_vec3 b) { return sr_v3(a.x * b.x, a.y * b.y, a.z * b.z); }
SR_HD sr_vec3 sr_scale(sr_vec3 a, float s) { return sr_v3(a.x * s, a.y * s, a.z * s); }
/* a + b*s, written out so both compilers round it the same way (FMA contraction is off). */
SR_HD sr_vec3 sr_madd(sr_vec3 a, sr_vec3 b, float s) { return sr_v3(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s); }
SR_HD sr_vec3 sr_neg(sr_vec3 a) { return sr_v3(-a.x, -a.y, -a.z); }
SR_HD float sr_dot(sr_vec3 a, sr_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
SR_HD sr_vec3 sr_cross(sr_vec3 a, sr_vec3 b)
{
    return sr_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
SR_HD float sr_length(sr_vec3 a) { return sqrtf(sr_dot(a, a)); }
SR_HD sr_vec3 sr_normalize(sr_vec3 a)
{
    float len = sr_length(a);
    return len > 0.0f ? sr_scale(a, 1.0f / len) : a;
}
SR_HD float sr_minf(float a, float b) { return a < b ? a : b; }
SR_HD float sr_maxf(float a, float b) { return a > b ? a : b; }
SR_HD float sr_clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
SR_HD sr_vec3 sr_vmin(sr_vec3 a, sr_vec3 b) { return sr_v3(sr_minf(a.x, b.x), sr_minf(a.y, b.y), sr_minf(a.z, b.z)); }
SR_HD sr_vec3 sr_vmax(sr_vec3 a, sr_vec3 b) { return sr_v3(sr_maxf(a.x, b.x), sr_maxf(a.y, b.y), sr_maxf(a.z, b.z)); }
SR_HD float sr_vget(sr_vec3 v, int axis) { return axis == 0 ? v.x : (axis == 1 ? v.y : v.z); }
SR_HD float sr_max3(sr_vec3 v) { return sr_maxf(v.x, sr_maxf(v.y, v.z)); }

/* Mirror d about the surface normal n (d points at the surface). */
SR_HD sr_vec3 sr_reflect(sr_vec3 d, sr_vec3 n) { return sr_sub(d, sr_scale(n, 2.0f * sr_dot(d, n))); }

/* Refract unit d through unit n (n faces d's origin side) with eta = n_from / n_to.
 * Returns false on total internal reflection. */
SR_HD bool sr_refract(sr_vec3 d, sr_vec3 n, float eta, sr_vec3 *out)
{
    float cos_i = -sr_dot(d, n);
    float k = 1.0f - eta * eta * (1.0f - cos_i * cos_i);
    if (k < 0.0f) return false;
    *out = sr_add(sr_scale(d, eta), sr_scale(n, eta * cos_i - sqrtf(k)));
    return true;
}

/* Schlick's approximation of the Fresnel reflectance for a dielectric. */
SR_HD float sr_schlick(float cos_i, float eta_from, float eta_to)
{
    float r0 = (eta_from - eta_to) / (eta_from + eta_to);
    r0 = r0 * r0;
    float m = 1.0f - cos_i;
    return r0 + (1.0f - r0) * m * m * m * m * m;
}

/* sin and cos of 2*pi*turns, and cube roots, from IEEE + - * / only. The C library and
 * CUDA's device library round sinf/cosf/cbrtf differently; these give the CPU and the GPU
 * the same bits (with FMA contraction off on both), so the two backends' images agree
 * exactly. Accuracy is a few ulp, plenty for sampling directions. */
SR_HD void sr_sincos_turns(float turns, float *s, float *c)
{
    float q4 = (turns - floorf(turns)) * 4.0f;
    float quadrant = floorf(q4);
    float a = (q4 - quadrant) * (0.5f * SR_PI);      /* [0, pi/2) */
    float a2 = a * a;
    float sa = a * (1.0f + a2 * (-1.0f / 6.0f + a2 * (1.0f / 120.0f + a2 * (-1.0f / 5040.0f
             + a2 * (1.0f / 362880.0f + a2 * (-1.0f / 39916800.0f))))));
    float ca = 1.0f + a2 * (-0.5f + a2 * (1.0f / 24.0f + a2 * (-1.0f / 720.0f + a2 * (1.0f / 40320.0f
             + a2 * (-1.0f / 3628800.0f + a2 * (1.0f / 479001600.0f))))));
    int q = (int)quadrant & 3;
    *s = q == 0 ? sa : q == 1 ? ca : q == 2 ? -sa : -ca;
    *c = q == 0 ? ca : q == 1 ? -sa : q == 2 ? -ca : sa;
}

/* Cube root of x >= 0: x = m * 2^(3k) exactly (frexpf/ldexpf are exact), then Newton's
 * method on m in [0.5, 4) from 1.6 >= cbrt(4), so it descends monotonically. */
SR_HD float sr_cbrt(float x)
{
    if (!(x > 0.0f)) return 0.0f;
    int e;
    float m = frexpf(x, &e);                 /* x = m * 2^e, m in [0.5, 1) */
    int r = ((e % 3) + 3) % 3;
    m = ldexpf(m, r);                        /* m in [0.5, 4), e - r divisible by 3 */
    float y = 1.6f;
    for (int i = 0; i < 8; i++) {
        float next = (2.0f * y + m / (y * y)) * (1.0f / 3.0f);
        if (!(next < y)) break;
        y = next;
    }
    return ldexpf(y, (e - r) / 3);
}

/* An orthonormal basis around unit n (Duff et al. 2017, branchless). */
SR_HD void sr_onb(sr_vec3 n, sr_vec3 *t, sr_vec3 *b)
{
    float s = n.z >= 0.0f ? 1.0f : -1.0f;
    float a = -1.0f / (s + n.z);
    float c = n.x * n.y * a;
    *t = sr_v3(1.0f + s * n.x * n.x * a, s * c, -s * n.x);
    *b = sr_v3(c, s + n.y * n.y * a, -n.y);
}

#endif
