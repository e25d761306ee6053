/* bounce.cu: kernel frames around the shared stages (stages.h), one launch per stage and
 * bounce, and the megakernel baseline. The stage bodies are the CPU backend's too. */
#include "launch.h"
#include "stages.h"
#include "stencil.cuh"

/* A stencil-masked stage kernel. A warp whose word is 0 leaves at once, all lanes together
 * (a uniform exit, so no ballot is left waiting); otherwise every lane reaches the ballot. */
#define SR_STENCIL_KERNEL(NAME, CALL, COUNT)                                           \
    extern "C" __global__ void NAME(sr_params p, uint32_t *stencil, uint32_t bounce)     \
    {                                                                                    \
        const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;                        \
        const uint32_t word = sr_stencil_load(stencil, i);                               \
        if (word == 0) return;                                                           \
        if (COUNT && (threadIdx.x & 31u) == 0)                                           \
            atomicAdd(&p.ray_count[bounce], (unsigned)__popc(word));                     \
        bool alive = SR_STENCIL_TEST(word, i);                                           \
        if (alive) alive = (CALL);                                                       \
        sr_stencil_write_back(stencil, i, word, alive);                                  \
    }

/* The baseline the stencil replaces: one 32-bit flag per ray. */
#define SR_FLAGS_KERNEL(NAME, CALL, COUNT)                                             \
    extern "C" __global__ void NAME(sr_params p, uint32_t *flags, uint32_t bounce)       \
    {                                                                                    \
        const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;                        \
        if (COUNT) {                                                                     \
            const uint32_t m = __ballot_sync(SR_FULL_MASK, i < p.n && flags[i] != 0);    \
            if ((threadIdx.x & 31u) == 0 && m)                                           \
                atomicAdd(&p.ray_count[bounce], (unsigned)__popc(m));                    \
        }                                                                                \
        if (i >= p.n || flags[i] == 0) return;                                           \
        flags[i] = (CALL) ? 1u : 0u;                                                     \
    }

/* The same frame as a persistent grid-stride loop over *live_n slots. The loop test is on the
 * warp's first slot, so a warp enters and leaves together and its ballot stays whole. */
#define SR_STENCIL_LOOP_KERNEL(NAME, CALL, COUNT)                                                  \
    extern "C" __global__ void NAME(sr_params p, uint32_t *stencil, uint32_t bounce, const uint32_t *live_n) \
    {                                                                                                \
        const uint32_t n = *live_n, stride = gridDim.x * blockDim.x;                                 \
        for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; (i & ~31u) < n; i += stride) {     \
            const uint32_t word = sr_stencil_load(stencil, i);                                       \
            if (word == 0) continue;                                                                 \
            if (COUNT && (threadIdx.x & 31u) == 0)                                                   \
                atomicAdd(&p.ray_count[bounce], (unsigned)__popc(word));                             \
            bool alive = SR_STENCIL_TEST(word, i);                                                   \
            if (alive) alive = (CALL);                                                               \
            sr_stencil_write_back(stencil, i, word, alive);                                          \
        }                                                                                            \
    }

SR_STENCIL_KERNEL(srk_generate, sr_stage_generate(&p, i), 0)
SR_STENCIL_KERNEL(srk_intersect, sr_stage_intersect(&p, i), 1)
SR_STENCIL_KERNEL(srk_shade, sr_stage_shade_whitted(&p, i, bounce), 0)
SR_STENCIL_KERNEL(srk_shade_path, sr_stage_shade_path(&p, i, bounce), 0)
SR_STENCIL_LOOP_KERNEL(srk_intersect_live, sr_stage_intersect(&p, i), 1)
SR_STENCIL_LOOP_KERNEL(srk_shade_live, sr_stage_shade_whitted(&p, i, bounce), 0)
SR_STENCIL_LOOP_KERNEL(srk_shade_path_live, sr_stage_shade_path(&p, i, bounce), 0)
SR_FLAGS_KERNEL(srk_generate_flags, sr_stage_generate(&p, i), 0)
SR_FLAGS_KERNEL(srk_intersect_flags, sr_stage_intersect(&p, i), 1)
SR_FLAGS_KERNEL(srk_shade_flags, sr_stage_shade_whitted(&p, i, bounce), 0)
SR_FLAGS_KERNEL(srk_shade_path_flags, sr_stage_shade_path(&p, i, bounce), 0)

/* One thread per pixel, every bounce in a loop: what most simple CUDA ray tracers do. */
#define SR_MEGAKERNEL(NAME, TRACE)                                                            \
    extern "C" __global__ void NAME(sr_params p)                                              \
    {                                                                                         \
        const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;                             \
        uint32_t segments = 0;                                                                \
        if (i < p.n) {                                                                        \
            sr_stage_generate(&p, i);                                                         \
            for (uint32_t b = 0; b < p.scene.max_depth; b++) {                                \
                segments++;                                                                   \
                if (!TRACE(&p, i, b)) break;                                                  \
            }                                                                                 \
        }                                                                                     \
        for (int off = 16; off > 0; off >>= 1) segments += __shfl_down_sync(SR_FULL_MASK, segments, off); \
        if ((threadIdx.x & 31u) == 0 && segments) atomicAdd(&p.ray_count[0], segments);      \
    }

SR_MEGAKERNEL(srk_megakernel, sr_stage_trace_whitted)
SR_MEGAKERNEL(srk_megakernel_path, sr_stage_trace_path)

static uint32_t sr_blocks(uint32_t n, uint32_t block) { return (n + block - 1u) / block; }

extern "C" cudaError_t sr_launch_stage(int stage, const sr_params *p, uint32_t *stencil, uint32_t *flags,
                                       uint32_t bounce, cudaStream_t stream)
{
    if (p->n == 0) return cudaSuccess;
    const uint32_t grid = sr_blocks(p->n, SR_STAGE_BLOCK);
    const bool path = p->scene.integrator == SR_INTEGRATOR_PATH;
    if (stencil) {
        switch (stage) {
        case SRK_GENERATE: srk_generate<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce); break;
        case SRK_INTERSECT: srk_intersect<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce); break;
        default:
            if (path) srk_shade_path<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce);
            else srk_shade<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce);
            break;
        }
    } else {
        switch (stage) {
        case SRK_GENERATE: srk_generate_flags<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, flags, bounce); break;
        case SRK_INTERSECT: srk_intersect_flags<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, flags, bounce); break;
        default:
            if (path) srk_shade_path_flags<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, flags, bounce);
            else srk_shade_flags<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, flags, bounce);
            break;
        }
    }
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_stage_live(int stage, const sr_params *p, uint32_t *stencil, uint32_t bounce,
                                            const uint32_t *live_n, uint32_t grid, cudaStream_t stream)
{
    if (stage == SRK_INTERSECT) srk_intersect_live<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce, live_n);
    else if (stage == SRK_SHADE && p->scene.integrator == SR_INTEGRATOR_PATH)
        srk_shade_path_live<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce, live_n);
    else if (stage == SRK_SHADE) srk_shade_live<<<grid, SR_STAGE_BLOCK, 0, stream>>>(*p, stencil, bounce, live_n);
    else return sr_launch_stage(stage, p, stencil, NULL, bounce, stream);   /* generate: the full pool */
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_megakernel(const sr_params *p, cudaStream_t stream)
{
    if (p->n == 0) return cudaSuccess;
    if (p->scene.integrator == SR_INTEGRATOR_PATH)
        srk_megakernel_path<<<sr_blocks(p->n, SR_STAGE_BLOCK), SR_STAGE_BLOCK, 0, stream>>>(*p);
    else
        srk_megakernel<<<sr_blocks(p->n, SR_STAGE_BLOCK), SR_STAGE_BLOCK, 0, stream>>>(*p);
    return cudaGetLastError();
}
