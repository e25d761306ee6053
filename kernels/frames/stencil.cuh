/* stencil.cuh: the GPU's side of the stencil frame. The frame itself (stencil test, stage
 * call, ballot write-back through a single exit) is written once for both backends in
 * stencil_frame.h; here is only what needs a CUDA grid: the block's copy of the ray counts
 * (blockIdx), and the grid-stride form over a resident grid (gridDim), whose CPU twin is the
 * parallel loop over the words in backend_cpu.c (the CPU has no grid to stride over). */
#ifndef SR_STENCIL_CUH
#define SR_STENCIL_CUH

#include "../core/compat.h"
#include "launch.h"
#include "stencil_frame.h"

/* This block's copy of the ray counts (launch.h); blocks of a 2D grid (the wave mask's in
 * launch order) are numbered row by row. */
__device__ __forceinline__ uint32_t *sr_count_copy(uint32_t *ray_count)
{
    return ray_count + ((blockIdx.y * gridDim.x + blockIdx.x) % SR_COUNT_COPIES) * SR_MAX_DEPTH;
}

/* The frame of stencil_frame.h over slots [0, n) as a grid-stride loop over the resident grid.
 * The loop test is on the warp's first slot, so a warp enters and leaves together and its
 * ballot stays whole. */
template <typename Stage>
__device__ __forceinline__ void sr_stencil_frame_loop(uint32_t *stencil, uint32_t n, const Stage &stage, uint32_t *count)
{
    const uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; (i & ~31u) < n; i += stride)
        sr_stencil_frame(stencil, i, stage, count);
}

#endif
