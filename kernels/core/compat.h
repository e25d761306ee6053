/* compat.h: the few words that let one per-ray source compile as C11 (gcc, CPU backend)
 * and as CUDA (nvcc, GPU backend). Keep shared headers to the common subset of C and C++:
 * no compound literals, no designated initialisers, no `restrict`. */
#ifndef SR_COMPAT_H
#define SR_COMPAT_H

#include <stdint.h>
#include <stdbool.h>

#ifdef __CUDACC__
#  define SR_HD static inline __host__ __device__
#  define SR_DEVICE_CODE 1
#else
#  define SR_HD static inline
#  define SR_DEVICE_CODE 0
#endif


/* The kernels' second and third builds (kernels/frames/plain.cuh) set these: the per-ray code then
 * takes the features as absent at compile time. SR_NO_ASSETS: textures, the environment map,
 * vertex attributes. SR_NO_LIGHTS: point and directional lights, area emitters. */
#ifndef SR_NO_ASSETS
#define SR_NO_ASSETS 0
#endif
#ifndef SR_NO_LIGHTS
#define SR_NO_LIGHTS 0
#endif
/* SR_NO_MAPS: the glTF material maps (normal maps, alpha cutouts in traversal, metallic and
 * emission textures). The general GPU build leaves them out and the maps build has them
 * (kernels/frames/plain.cuh); the CPU backend has everything. */
#ifndef SR_NO_MAPS
#define SR_NO_MAPS SR_NO_ASSETS
#endif
/* SR_NO_INSTANCES: the two-level BVH's second level (meshes placed by instances). The GPU's
 * instances build and the CPU backend have it (and any other file, such as the sort keys');
 * the frame driver runs instanced scenes on that build (kernels/frames/plain.cuh). */
#ifndef SR_NO_INSTANCES
#define SR_NO_INSTANCES 0
#endif

/* Rays per stencil word, and the warp width the CPU frame imitates. */
#define SR_WARP 32u

SR_HD uint32_t sr_popc(uint32_t x)
{
#if defined(__CUDA_ARCH__)
    return (uint32_t)__popc(x);
#else
    return (uint32_t)__builtin_popcount(x);
#endif
}

/* Bits of the lanes below `lane`: a live lane's rank among the live lanes of its warp. */
SR_HD uint32_t sr_lanemask_lt(uint32_t lane) { return (1u << lane) - 1u; }

/* Stencil word w of a pool whose first `live` slots are live (after compaction): all ones,
 * the low bits, or none. Written once for both backends' prefix fills. */
SR_HD uint32_t sr_stencil_prefix_word(uint32_t w, uint32_t live)
{
    const uint32_t first = w * SR_WARP;
    return live >= first + SR_WARP ? 0xffffffffu : live > first ? (1u << (live - first)) - 1u : 0u;
}

#endif
