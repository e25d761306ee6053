/* warp.h: the warp, for code written once for a CUDA warp and the CPU's imitation of one (the
 * wave mask's frame, kernels/frames/wave_frame.h).
 *
 * A warp body is the code a warp runs. Outside SR_FOR_LANES it is warp-uniform: on the GPU
 * every lane runs it with the same values, on the CPU it runs once; its stores and atomics
 * go under `if (SR_LEADER)` (lane 0 on the GPU). Inside SR_FOR_LANES { ... } each lane runs
 * its own part: on the GPU once, lane = threadIdx.x & 31, its values in registers; on the CPU
 * as a loop over the 32 lanes, its values in arrays of 32. Between the lane segments stand
 * the collectives (ballot, min, max, the leader's load or atomic, broadcast to every lane),
 * which on the CPU read the lanes' arrays. So the CPU runs the GPU's frame, segment by
 * segment, in lane order; a lane segment must not `break` out of the lanes (on the CPU that
 * would skip the lanes after it; `continue` is fine).
 *
 *   SR_LANE_VAR(type, name)   a per-lane variable (GPU: type name; CPU: type name[32])
 *   SR_L(name)                this lane's value of it, inside SR_FOR_LANES
 *   SR_LANE_IN(type, name)    a per-lane parameter, passed by its name (GPU: the lane's value;
 *                             CPU: the 32 values)
 *   SR_LANE_REF(name)         a pointer to the lane's value (GPU) or to the 32 values (CPU),
 *                             for a function that fills a per-lane variable
 *   SR_LANE_OUT(type, name)   a per-lane parameter passed by SR_LANE_REF, which the function
 *                             reads and writes: SR_LO(name) inside SR_FOR_LANES, and
 *                             SR_LANE_FWD(name) to pass it on as an SR_LANE_IN
 *   SR_UNIFORM(name)          a per-lane value whose lanes agree (or the part they agree on,
 *                             e.g. slot >> 5), read in warp-uniform code (CPU: lane 0's)
 *
 * Atomics: on the CPU the warps are OpenMP threads, so a warp's atomic on shared memory is
 * a real one (relaxed: the launches' ends order the data, as the GPU's launch boundaries do). */
#ifndef SR_WARP_H
#define SR_WARP_H

#include "compat.h"

#ifndef SR_FULL_MASK
#define SR_FULL_MASK 0xffffffffu
#endif

#ifdef __CUDACC__
#define SR_WARP_FN static __device__ __forceinline__
#define SR_LANE_VAR(type, name) type name
#define SR_LANE_IN(type, name) type name
#define SR_L(name) (name)
#define SR_LANE_REF(name) (&(name))
#define SR_UNIFORM(name) (name)
#define SR_LANE_OUT(type, name) type *name
#define SR_LO(name) (*(name))
#define SR_LANE_FWD(name) (*(name))
/* One pass, the lane's own (a segment need not use `lane`). */
#define SR_FOR_LANES for ([[maybe_unused]] uint32_t lane = threadIdx.x & 31u, sr_lane_pass_ = 1u; sr_lane_pass_; sr_lane_pass_ = 0u)
#define SR_LEADER ((threadIdx.x & 31u) == 0u)
#else
#define SR_WARP_FN static inline
#define SR_LANE_VAR(type, name) type name[SR_WARP]
#define SR_LANE_IN(type, name) const type *name
#define SR_L(name) ((name)[lane])
#define SR_LANE_REF(name) (name)
#define SR_UNIFORM(name) ((name)[0])
#define SR_LANE_OUT(type, name) type *name
#define SR_LO(name) ((name)[lane])
#define SR_LANE_FWD(name) (name)
#define SR_FOR_LANES for (uint32_t lane = 0; lane < SR_WARP; lane++)
#define SR_LEADER true
#endif

/* Before a loop whose trip count is usually 1 or 2: no unrolling (nvcc unrolls by 4 and
 * pays for the remainder's bookkeeping every time). */
#ifdef __CUDACC__
#define SR_LOOP_ONCE _Pragma("unroll 1")
#else
#define SR_LOOP_ONCE
#endif

/* The lanes' votes: bit l is lane l's pred. */
SR_WARP_FN uint32_t sr_warp_ballot(SR_LANE_IN(bool, pred))
{
#ifdef __CUDACC__
    return __ballot_sync(SR_FULL_MASK, pred);
#else
    uint32_t m = 0;
    SR_FOR_LANES m |= (uint32_t)SR_L(pred) << lane;
    return m;
#endif
}

/* The smallest and the largest of the lanes' values. */
SR_WARP_FN uint32_t sr_warp_min(SR_LANE_IN(uint32_t, v))
{
#if defined(__CUDACC__) && __CUDA_ARCH__ >= 800
    return __reduce_min_sync(SR_FULL_MASK, v);
#elif defined(__CUDACC__)
    for (int off = 16; off > 0; off >>= 1) v = min(v, __shfl_xor_sync(SR_FULL_MASK, v, off));
    return v;
#else
    uint32_t x = v[0];
    SR_FOR_LANES x = SR_L(v) < x ? SR_L(v) : x;
    return x;
#endif
}
SR_WARP_FN uint32_t sr_warp_max(SR_LANE_IN(uint32_t, v))
{
#if defined(__CUDACC__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(SR_FULL_MASK, v);
#elif defined(__CUDACC__)
    for (int off = 16; off > 0; off >>= 1) v = max(v, __shfl_xor_sync(SR_FULL_MASK, v, off));
    return v;
#else
    uint32_t x = v[0];
    SR_FOR_LANES x = SR_L(v) > x ? SR_L(v) : x;
    return x;
#endif
}

/* The sum of the lanes' values. */
SR_WARP_FN uint32_t sr_warp_sum(SR_LANE_IN(uint32_t, v))
{
#if defined(__CUDACC__) && __CUDA_ARCH__ >= 800
    return __reduce_add_sync(SR_FULL_MASK, v);
#elif defined(__CUDACC__)
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(SR_FULL_MASK, v, off);
    return v;
#else
    uint32_t x = 0;
    SR_FOR_LANES x += SR_L(v);
    return x;
#endif
}

/* a[k], read once for the warp (by lane 0) and given to every lane. */
SR_WARP_FN uint32_t sr_warp_load(const uint32_t *a, uint32_t k)
{
#ifdef __CUDACC__
    uint32_t x = 0;
    if (SR_LEADER) x = a[k];
    return __shfl_sync(SR_FULL_MASK, x, 0);
#else
    return a[k];
#endif
}

/* Atomic *a += v by one thread (GPU) or warp (CPU), returning the old value to it. */
SR_WARP_FN uint32_t sr_atomic_add(uint32_t *a, uint32_t v)
{
#ifdef __CUDACC__
    return atomicAdd(a, v);
#else
    return __atomic_fetch_add(a, v, __ATOMIC_RELAXED);
#endif
}
SR_WARP_FN void sr_atomic_or(uint32_t *a, uint32_t v)
{
#ifdef __CUDACC__
    atomicOr(a, v);
#else
    __atomic_fetch_or(a, v, __ATOMIC_RELAXED);
#endif
}

/* *a += v once for the warp (by lane 0); every lane gets the old value (a reservation). */
SR_WARP_FN uint32_t sr_warp_atomic_add(uint32_t *a, uint32_t v)
{
#ifdef __CUDACC__
    uint32_t old = 0;
    if (SR_LEADER) old = atomicAdd(a, v);
    return __shfl_sync(SR_FULL_MASK, old, 0);
#else
    return sr_atomic_add(a, v);
#endif
}

#endif
