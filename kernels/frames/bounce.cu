/* bounce.cu: kernel frames around the shared stages (stages.h), one launch per stage and
 * bounce, and the megakernel baseline. The stage bodies are the CPU backend's too. */
/* Every build but the maps and instances builds leaves the material maps out, every one but
 * the instances build the instances (plain.cuh). */
#ifndef SR_NO_MAPS
#define SR_NO_MAPS 1
#endif
#ifndef SR_NO_INSTANCES
#define SR_NO_INSTANCES 1
#endif
#include "launch.h"
#include "../integrators/stages.h"
#include "split_frame.h"
#include "plain.cuh"
#include "stencil.cuh"

/* The stages (launch.h's SRK_*), as callables for the frame of stencil_frame.h (and its
 * grid-stride form, stencil.cuh). */
template <int STAGE>
struct sr_stage_call {
    const sr_params *p;
    uint32_t bounce;
    __device__ __forceinline__ bool operator()(uint32_t i) const
    {
        return STAGE == SRK_GENERATE ? sr_stage_generate(p, i)
             : STAGE == SRK_INTERSECT ? sr_stage_intersect(p, i)
             : STAGE == SRK_SHADE ? sr_stage_shade_whitted(p, i, bounce)
                                  : sr_stage_shade_path(p, i, bounce);
    }
};

/* Rays entering intersect are counted there, a word at a time. */
template <int STAGE>
__device__ __forceinline__ uint32_t *sr_stage_count(const sr_params &p, uint32_t bounce)
{
    return STAGE == SRK_INTERSECT ? &sr_count_copy(p.ray_count)[bounce] : NULL;
}

/* One thread per slot, under the stencil. */
template <int STAGE>
__device__ __forceinline__ void sr_stencil_stage(const sr_params &p, uint32_t *stencil, uint32_t bounce)
{
    const sr_stage_call<STAGE> stage = { &p, bounce };
    sr_stencil_frame(stencil, blockIdx.x * blockDim.x + threadIdx.x, stage, sr_stage_count<STAGE>(p, bounce));
}

/* The compacted pool's form: a grid-stride loop over the device-side live count. */
template <int STAGE>
__device__ __forceinline__ void sr_stencil_stage_live(const sr_params &p, uint32_t *stencil, uint32_t bounce,
                                                      const uint32_t *live_n)
{
    const sr_stage_call<STAGE> stage = { &p, bounce };
    sr_stencil_frame_loop(stencil, *live_n, stage, sr_stage_count<STAGE>(p, bounce));
}

/* The baseline the stencil replaces: one 32-bit flag per ray. */
template <int STAGE>
__device__ __forceinline__ void sr_flags_stage(const sr_params &p, uint32_t *flags, uint32_t bounce)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (STAGE == SRK_INTERSECT) {
        const uint32_t m = __ballot_sync(SR_FULL_MASK, i < p.n && flags[i] != 0);
        if ((threadIdx.x & 31u) == 0 && m) atomicAdd(&sr_count_copy(p.ray_count)[bounce], (unsigned)__popc(m));
    }
    if (i >= p.n || flags[i] == 0) return;
    const sr_stage_call<STAGE> stage = { &p, bounce };
    flags[i] = stage(i) ? 1u : 0u;
}

/* The Whitted split's shade (split_frame.h): spawned rays appended to the pool. */
extern "C" __global__ void SR_K(srk_shade_split)(sr_params p, uint32_t *mask, uint32_t bounce)
{
    sr_split_shade_stencil(&p, mask, blockIdx.x * blockDim.x + threadIdx.x, bounce);
}
extern "C" __global__ void SR_K(srk_shade_split_flags)(sr_params p, uint32_t *mask, uint32_t bounce)
{
    sr_split_shade_flags(&p, mask, blockIdx.x * blockDim.x + threadIdx.x, bounce);
}

/* The launches' names stay plain C (the fault switch and the profiler name them). */
#define SR_STAGE_ARGS sr_params p, uint32_t *mask, uint32_t bounce
extern "C" __global__ void SR_K(srk_generate)(SR_STAGE_ARGS) { sr_stencil_stage<SRK_GENERATE>(p, mask, bounce); }
extern "C" __global__ void SR_K(srk_intersect)(SR_STAGE_ARGS) { sr_stencil_stage<SRK_INTERSECT>(p, mask, bounce); }
extern "C" __global__ void SR_K(srk_shade)(SR_STAGE_ARGS) { sr_stencil_stage<SRK_SHADE>(p, mask, bounce); }
extern "C" __global__ void SR_K(srk_shade_path)(SR_STAGE_ARGS) { sr_stencil_stage<SRK_SHADE_PATH>(p, mask, bounce); }
extern "C" __global__ void SR_K(srk_intersect_live)(SR_STAGE_ARGS, const uint32_t *live_n)
{
    sr_stencil_stage_live<SRK_INTERSECT>(p, mask, bounce, live_n);
}
extern "C" __global__ void SR_K(srk_shade_live)(SR_STAGE_ARGS, const uint32_t *live_n)
{
    sr_stencil_stage_live<SRK_SHADE>(p, mask, bounce, live_n);
}
extern "C" __global__ void SR_K(srk_shade_path_live)(SR_STAGE_ARGS, const uint32_t *live_n)
{
    sr_stencil_stage_live<SRK_SHADE_PATH>(p, mask, bounce, live_n);
}
extern "C" __global__ void SR_K(srk_generate_flags)(SR_STAGE_ARGS) { sr_flags_stage<SRK_GENERATE>(p, mask, bounce); }
extern "C" __global__ void SR_K(srk_intersect_flags)(SR_STAGE_ARGS) { sr_flags_stage<SRK_INTERSECT>(p, mask, bounce); }
extern "C" __global__ void SR_K(srk_shade_flags)(SR_STAGE_ARGS) { sr_flags_stage<SRK_SHADE>(p, mask, bounce); }
extern "C" __global__ void SR_K(srk_shade_path_flags)(SR_STAGE_ARGS) { sr_flags_stage<SRK_SHADE_PATH>(p, mask, bounce); }

/* One thread per pixel, every bounce in a loop: what most simple CUDA ray tracers do, built
 * with the register budget of the wave mask's kernel without a queue (56 at 9 blocks of 128
 * on sm_90), which measured faster than nvcc's own choice in 46 of 48 benchmark cells (3-21 %;
 * docs/experiments.md, "The megakernel's launch bounds"); with the split, that of the wave
 * mask's split kernels. */
#ifndef SR_MEGAKERNEL_BLOCKS_SPLIT
#define SR_MEGAKERNEL_BLOCKS_SPLIT 7u   /* the split's: the budget of wave.cu's split kernels */
#endif
#define SR_MEGAKERNEL(NAME, PATH, SPLIT)                                                      \
    extern "C" __global__ void __launch_bounds__(SR_STAGE_BLOCK,                               \
                                                 SR_MIN_BLOCKS(SPLIT ? SR_MEGAKERNEL_BLOCKS_SPLIT : 9u, SR_STAGE_BLOCK)) \
        SR_K(NAME)(sr_params p)                                                               \
    {                                                                                         \
        const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;                             \
        const uint32_t segments = sr_warp_sum(i < p.n ? sr_megakernel_pixel(&p, i, PATH, SPLIT) : 0u); \
        if ((threadIdx.x & 31u) == 0 && segments) atomicAdd(sr_count_copy(p.ray_count), segments); \
    }

SR_MEGAKERNEL(srk_megakernel, false, false)
SR_MEGAKERNEL(srk_megakernel_path, true, false)
SR_MEGAKERNEL(srk_megakernel_split, false, true)   /* Whitted with the split: a stack of pending rays */

static uint32_t sr_blocks(uint32_t n, uint32_t block) { return (n + block - 1u) / block; }

extern "C" cudaError_t SR_K(sr_launch_stage)(int stage, const sr_params *p, uint32_t *stencil, uint32_t *flags,
                                       uint32_t bounce, cudaStream_t stream)
{
    if (p->n == 0) return cudaSuccess;
    const uint32_t grid = sr_blocks(p->n, SR_STAGE_BLOCK);
    const bool path = p->scene.integrator == SR_INTEGRATOR_PATH;
    if (stencil) {
        switch (stage) {
        case SRK_GENERATE: SR_K(srk_generate)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce); break;
        case SRK_INTERSECT: SR_K(srk_intersect)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce); break;
        default:
            if (path) SR_K(srk_shade_path)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce);
            else if (p->split) SR_K(srk_shade_split)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce);
            else SR_K(srk_shade)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce);
            break;
        }
    } else {
        switch (stage) {
        case SRK_GENERATE: SR_K(srk_generate_flags)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, flags, bounce); break;
        case SRK_INTERSECT: SR_K(srk_intersect_flags)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, flags, bounce); break;
        default:
            if (path) SR_K(srk_shade_path_flags)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, flags, bounce);
            else if (p->split) SR_K(srk_shade_split_flags)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, flags, bounce);
            else SR_K(srk_shade_flags)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, flags, bounce);
            break;
        }
    }
    return cudaGetLastError();
}

extern "C" cudaError_t SR_K(sr_launch_stage_live)(int stage, const sr_params *p, uint32_t *stencil, uint32_t bounce,
                                            const uint32_t *live_n, uint32_t grid, cudaStream_t stream)
{
    if (stage == SRK_INTERSECT) SR_K(srk_intersect_live)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce, live_n);
    else if (stage == SRK_SHADE && p->scene.integrator == SR_INTEGRATOR_PATH)
        SR_K(srk_shade_path_live)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce, live_n);
    else if (stage == SRK_SHADE) SR_K(srk_shade_live)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce, live_n);
    else return SR_K(sr_launch_stage)(stage, p, stencil, NULL, bounce, stream);   /* generate: the full pool */
    return cudaGetLastError();
}

extern "C" cudaError_t SR_K(sr_launch_megakernel)(const sr_params *p, cudaStream_t stream)
{
    if (p->n == 0) return cudaSuccess;
    const uint32_t grid = sr_blocks(p->n, SR_STAGE_BLOCK);
    if (p->scene.integrator == SR_INTEGRATOR_PATH) SR_K(srk_megakernel_path)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p);
    else if (p->split) SR_K(srk_megakernel_split)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p);
    else SR_K(srk_megakernel)<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p);
    return cudaGetLastError();
}
