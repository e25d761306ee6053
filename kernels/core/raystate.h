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

/* One slot's fields by value, so that a copy can load every field (of several rays) before
 * it stores any: the compiler cannot tell that two pools do not overlap, so a store between
 * two loads keeps the next load waiting for it, and a lone ray's copy would take a memory
 * round trip per field instead of one in all. */
typedef struct sr_ray_slot {
#define SR_X_VAL(type, name) type name;
    SR_RAY_FIELDS(SR_X_VAL)
#undef SR_X_VAL
} sr_ray_slot;

SR_HD sr_ray_slot sr_ray_fetch(sr_ray_soa src, uint32_t from)
{
    sr_ray_slot v;
#define SR_X_LOAD(type, name) v.name = src.name[from];
    SR_RAY_FIELDS(SR_X_LOAD)
#undef SR_X_LOAD
    return v;
}

SR_HD void sr_ray_put(sr_ray_soa dst, uint32_t to, const sr_ray_slot *v)
{
#define SR_X_STORE(type, name) dst.name[to] = v->name;
    SR_RAY_FIELDS(SR_X_STORE)
#undef SR_X_STORE
}

SR_HD void sr_ray_copy(sr_ray_soa dst, uint32_t to, sr_ray_soa src, uint32_t from)
{
    const sr_ray_slot v = sr_ray_fetch(src, from);
    sr_ray_put(dst, to, &v);
}

/* One ray's path state in registers: what the fused kernels (the megakernel and the wave
 * mask) carry from bounce to bounce, so that a ray goes through the pool only where it must:
 * between the launches of the one-stage-per-launch masks, and into and out of the wave
 * mask's queue. The pool's fields but `bounce` (the fused kernels count it themselves). */
typedef struct sr_ray {
    sr_vec3 o, d, tp;
    float pdf;
    uint32_t pixel;
} sr_ray;

SR_HD sr_ray sr_ray_load(sr_ray_soa pool, uint32_t slot)
{
    sr_ray r;
    r.o = sr_v3(pool.ox[slot], pool.oy[slot], pool.oz[slot]);
    r.d = sr_v3(pool.dx[slot], pool.dy[slot], pool.dz[slot]);
    r.tp = sr_v3(pool.tr[slot], pool.tg[slot], pool.tb[slot]);
    r.pdf = pool.pdf[slot];
    r.pixel = pool.pixel[slot];
    return r;
}

/* The fields a bounce changes: origin, direction, throughput, and with `with_pdf` the path
 * integrator's pdf (Whitted leaves it 0). */
SR_HD void sr_ray_store_next(sr_ray_soa pool, uint32_t slot, const sr_ray *r, bool with_pdf)
{
    pool.ox[slot] = r->o.x; pool.oy[slot] = r->o.y; pool.oz[slot] = r->o.z;
    pool.dx[slot] = r->d.x; pool.dy[slot] = r->d.y; pool.dz[slot] = r->d.z;
    pool.tr[slot] = r->tp.x; pool.tg[slot] = r->tp.y; pool.tb[slot] = r->tp.z;
    if (with_pdf) pool.pdf[slot] = r->pdf;
}
/* Every field but `bounce`. */
SR_HD void sr_ray_store(sr_ray_soa pool, uint32_t slot, const sr_ray *r)
{
    sr_ray_store_next(pool, slot, r, true);
    pool.pixel[slot] = r->pixel;
}

/* Everything a stage reads or writes, passed by value to every kernel. */
typedef struct sr_params {
    sr_scene_view scene;
    sr_ray_soa ray;        /* the current half of the ping-pong pool                    */
    float *hit_t;
    uint32_t *hit_prim;
    float *film;           /* width*height*3 linear radiance sums, indexed by pixel     */
    /* The Whitted split (whitted.h): the rays of a pixel that split are several, so their
     * radiance goes to film_fix, this sample's sums in fixed point (integer adds commute: the
     * same sums in any order), folded into the film once a sample (sr_film_fold_word,
     * camera.h). NULL: no split. */
    unsigned long long *film_fix;
    uint32_t *film_marks;  /* the pixels that split this sample, a bit each (camera.h)      */
    uint32_t *split;       /* [SR_SPLIT_CTL] the split's counters (camera.h); NULL: no split */
    uint32_t split_base;   /* the stage masks: spawned rays are appended at slots split_base.. */
    uint32_t split_end;    /* ..up to split_end (the pool's end); beyond it they are dropped  */
    uint32_t split_stack;  /* the most pending rays a lane keeps (<= SR_SPLIT_STACK)          */
    uint32_t *ray_count;   /* [SR_MAX_DEPTH] rays that entered intersect, per bounce    */
    uint32_t n;            /* rays in the pool (slots [0, n))                           */
    uint32_t sample;       /* which sample of every pixel this pass traces              */
    uint32_t seed;
} sr_params;

#endif
