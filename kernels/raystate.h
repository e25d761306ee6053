/* raystate.h: the ray pool, structure-of-arrays, described once. The X-macro list of
 * fields generates the struct of pointers, the allocation, the compaction copy and the
 * bytes-per-ray figure, so adding a field is one line. */
#ifndef SR_RAYSTATE_H
#define SR_RAYSTATE_H

#include "types.h"

/* Path state that survives a bounce (moved by compaction). pdf: the solid-angle pdf with which
 * path mode sampled this ray's direction, for MIS when it hits an emitter; 0 for camera rays
 * and after a specular (delta) bounce. Whitted mode leaves it 0. bounce: the next bounce this
 * ray takes, kept only by the wave mask, whose pools mix rays of different depths (the
 * one-stage-per-launch masks pass the bounce to every launch instead). */
#define SR_RAY_FIELDS(X) \
    X(float, ox) X(float, oy) X(float, oz) \
    X(float, dx) X(float, dy) X(float, dz) \
    X(float, tr) X(float, tg) X(float, tb) \
    X(float, pdf) \
    X(uint32_t, pixel) \
    X(uint8_t, bounce)

typedef struct sr_ray_soa {
#define SR_X_PTR(type, name) type *name;
    SR_RAY_FIELDS(SR_X_PTR)
#undef SR_X_PTR
} sr_ray_soa;

#define SR_X_SIZE(type, name) + sizeof(type)
#define SR_RAY_BYTES (0 SR_RAY_FIELDS(SR_X_SIZE))
/* Per-ray arrays that are not moved: the hit (intersect -> shade) and the masks. */
#define SR_HIT_BYTES (sizeof(float) + sizeof(uint32_t))

SR_HD void sr_ray_copy(sr_ray_soa dst, uint32_t to, sr_ray_soa src, uint32_t from)
{
#define SR_X_COPY(type, name) dst.name[to] = src.name[from];
    SR_RAY_FIELDS(SR_X_COPY)
#undef SR_X_COPY
}

/* Everything a stage reads or writes, passed by value to every kernel. */
typedef struct sr_params {
    sr_scene_view scene;
    sr_ray_soa ray;        /* the current half of the ping-pong pool                    */
    float *hit_t;
    uint32_t *hit_prim;
    float *film;           /* width*height*3 linear radiance sums, indexed by pixel     */
    uint32_t *ray_count;   /* [SR_MAX_DEPTH] rays that entered intersect, per bounce    */
    uint32_t n;            /* rays in the pool (slots [0, n))                           */
    uint32_t sample;       /* which sample of every pixel this pass traces              */
    uint32_t seed;
} sr_params;

#endif
