/* launch.h: the extern "C" launchers the host (backend_cuda.c) calls. Each enqueues on
 * `stream` and returns the launch's error (cudaGetLastError), so every launch is checked. */
#ifndef SR_LAUNCH_H
#define SR_LAUNCH_H

#include <cuda_runtime_api.h>
#include "raystate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pools are allocated in multiples of this, so launches never run past a stencil word. */
#define SR_POOL_ALIGN 256u
#define SR_STAGE_BLOCK 128u
#define SR_COMPACT_BLOCK 256u

enum { SRK_GENERATE = 0, SRK_INTERSECT = 1, SRK_SHADE = 2 };

/* One stage over slots [0, p->n) under the stencil (stencil != NULL) or flags mask. */
cudaError_t sr_launch_stage(int stage, const sr_params *p, uint32_t *stencil, uint32_t *flags,
                            uint32_t bounce, cudaStream_t stream);
/* Every bounce of every pixel in one launch (the megakernel baseline). */
cudaError_t sr_launch_megakernel(const sr_params *p, cudaStream_t stream);
/* Ballot partitioning of the live rays of src (n slots) into dst; *counter (device) must be
 * zero before and holds the live count after. */
cudaError_t sr_launch_compact(sr_ray_soa src, sr_ray_soa dst, const uint32_t *stencil, uint32_t n,
                              uint32_t *counter, cudaStream_t stream);
/* stencil[0..words) = the first `live` bits set, where live = *live_dev if live_dev is not
 * NULL (left on the device by compaction), else live_host. */
cudaError_t sr_launch_stencil_prefix(uint32_t *stencil, uint32_t words, const uint32_t *live_dev,
                                     uint32_t live_host, cudaStream_t stream);
/* *out (device, zeroed by the caller) += live rays among n slots. */
cudaError_t sr_launch_count_live(const uint32_t *stencil, const uint32_t *flags, uint32_t n,
                                 uint32_t *out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
