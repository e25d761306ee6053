/* launch.h: the extern "C" launchers the host (backend_cuda.c) calls. Each enqueues on
 * `stream` and returns the launch's error (cudaGetLastError), so every launch is checked. */
#ifndef SR_LAUNCH_H
#define SR_LAUNCH_H

#include <cuda_runtime_api.h>
#include "../core/raystate.h"
#include "wave.h"   /* sr_wave_args */

#ifdef __cplusplus
extern "C" {
#endif

/* Pools are allocated in multiples of this, so launches never run past a stencil word. */
#define SR_POOL_ALIGN 256u
#define SR_STAGE_BLOCK 128u
#define SR_COMPACT_BLOCK 256u

/* The per-bounce stages, as sr_launch_stage takes them (the values of sr_kernel's first three,
 * backend.h) and as bounce.cu's frames are instantiated; SRK_SHADE_PATH is the path-traced
 * shade frame, which the launchers pick for SRK_SHADE by the scene's integrator. */
enum { SRK_GENERATE = 0, SRK_INTERSECT = 1, SRK_SHADE = 2, SRK_SHADE_PATH = 3 };

/* The per-bounce ray counts on the device are SR_COUNT_COPIES copies of [SR_MAX_DEPTH]; a
 * block adds to copy blockIdx % SR_COUNT_COPIES and the host sums them. One copy took every
 * warp's add on one address: at depth 8, 500 K same-address atomics a frame on one L2 slice
 * (measured 7 % of the mirror_hall frame). */
#define SR_COUNT_COPIES 16u
#define SR_COUNT_WORDS (SR_MAX_DEPTH * SR_COUNT_COPIES)

/* One stage over slots [0, p->n) under the stencil (stencil != NULL) or flags mask. */
cudaError_t sr_launch_stage(int stage, const sr_params *p, uint32_t *stencil, uint32_t *flags,
                            uint32_t bounce, cudaStream_t stream);
/* The compacted pool's variants: the live count stays on the device (*live_n, written by
 * compaction), so a bounce needs no host round trip. `grid` blocks (sized by the host's
 * forecast of the count) loop grid-stride over the live slots, a warp at a time so the
 * stencil word and the ballot stay warp-aligned: launches follow the live count, and a
 * wrong forecast costs time, never correctness. */
cudaError_t sr_launch_stage_live(int stage, const sr_params *p, uint32_t *stencil, uint32_t bounce,
                                 const uint32_t *live_n, uint32_t grid, cudaStream_t stream);
/* Ballot partitioning of src's *live_n slots into dst: *counter (zero before) receives the
 * new count, the stencil's first ceil(count/32) words become the first count bits, and
 * *live_n is zeroed, ready to be the next round's counter (ping-pong the two counts).
 * Words past the new count are cleared up to the forecast's (within `stencil_words`, the
 * stencil's size), as the CPU backend does: the Whitted split appends rays past the new count
 * and ORs in their bits. `expected` (an upper estimate of *live_n) sizes the grids, and
 * live_share (the forecast share of those slots alive) picks how many rays a thread moves
 * at once (two from SR_COMPACT_PAIRS_FROM, measured between 0.1 and 0.5 in bench --micro);
 * any values are correct. Two launches: compaction, then the stencil prefix. */
#define SR_COMPACT_PAIRS_FROM 0.25f
cudaError_t sr_launch_compact_live(sr_ray_soa src, sr_ray_soa dst, uint32_t *stencil, uint32_t *live_n,
                                   uint32_t *counter, uint32_t expected, float live_share, uint32_t stencil_words,
                                   cudaStream_t stream);
/* Blocks for n slots at `block` threads, at least 1 and at most max_grid. */
static inline uint32_t sr_grid_for(uint32_t n, uint32_t block, uint32_t max_grid)
{
    uint32_t g = (n + block - 1u) / block;
    return g < 1u ? 1u : (g > max_grid ? max_grid : g);
}
/* __launch_bounds__'s resident blocks a SM, asked of blocks of `threads`: an SM of sm_75
 * holds 1024 threads, fewer than the 9 blocks of 128 measured on the H200, so there the
 * most that fit (ptxas would ignore the bound and warn). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define SR_MIN_BLOCKS(blocks, threads) ((blocks) * (threads) > 1024u ? 1024u / (threads) : (blocks))
#else
#define SR_MIN_BLOCKS(blocks, threads) (blocks)
#endif

/* Blocks of `block` threads the device holds at once running `kernel` (its SMs times the
 * blocks one SM fits): the grid of a launch whose warps claim work until none is left. */
static inline cudaError_t sr_resident_blocks(int device, const void *kernel, uint32_t block, uint32_t *blocks)
{
    int sms = 0, per_sm = 0;
    cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)block, 0);
    *blocks = (uint32_t)((sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1));
    return e;
}

/* The wave mask (wave.h): one launch over the tiled image (a warp per tile), with the queue
 * and its drain (queue != 0: drain_blocks blocks, sr_wave_drain_blocks) or without; in the
 * order of the tiles when w->take is set. */
#ifndef SR_WAVE_BLOCK
#define SR_WAVE_BLOCK 128u   /* against 32, 64, 256 and 512 on the H200: docs/experiments.md */
#endif
cudaError_t sr_launch_wave(const sr_params *p, const sr_wave_args *w, int queue, uint32_t drain_blocks,
                           cudaStream_t stream);
/* The drain's grid: the blocks of the drain kernel (the path-traced one if path) that device
 * `device` holds at once (sr_resident_blocks). */
cudaError_t sr_wave_drain_blocks(int device, int path, uint32_t *blocks);
/* Every bounce of every pixel in one launch (the megakernel baseline). */
cudaError_t sr_launch_megakernel(const sr_params *p, cudaStream_t stream);
/* The same launchers in the kernels' narrower builds (plain.cuh), named with the build's
 * suffix; the ones above are the general build's. The caller picks the build (the frame
 * driver's sr_launch_args.build): no launcher looks at the scene to pick another. */
#define SR_BUILD_LAUNCHERS(SUFFIX)                                                                          \
    cudaError_t sr_launch_stage##SUFFIX(int stage, const sr_params *p, uint32_t *stencil, uint32_t *flags,   \
                                        uint32_t bounce, cudaStream_t stream);                              \
    cudaError_t sr_launch_stage_live##SUFFIX(int stage, const sr_params *p, uint32_t *stencil, uint32_t bounce, \
                                             const uint32_t *live_n, uint32_t grid, cudaStream_t stream);   \
    cudaError_t sr_launch_wave##SUFFIX(const sr_params *p, const sr_wave_args *w, int queue, uint32_t drain_blocks, \
                                       cudaStream_t stream);                                                \
    cudaError_t sr_wave_drain_blocks##SUFFIX(int device, int path, uint32_t *blocks);                      \
    cudaError_t sr_launch_megakernel##SUFFIX(const sr_params *p, cudaStream_t stream);
SR_BUILD_LAUNCHERS(_noassets)
SR_BUILD_LAUNCHERS(_plain)
SR_BUILD_LAUNCHERS(_maps)
SR_BUILD_LAUNCHERS(_instances)
/* stencil[0..words) = the first `live` bits set, where live = *live_dev if live_dev is not
 * NULL (left on the device by compaction), else live_host; if n_out is not NULL it is set
 * to live_host (the device-side count the persistent kernels read). */
cudaError_t sr_launch_stencil_prefix(uint32_t *stencil, uint32_t words, const uint32_t *live_dev,
                                     uint32_t live_host, uint32_t *n_out, cudaStream_t stream);
/* *out (device, zeroed by the caller) += live rays among n slots. */
cudaError_t sr_launch_count_live(const uint32_t *stencil, const uint32_t *flags, uint32_t n,
                                 uint32_t *out, cudaStream_t stream);

/* The Whitted split: film[i] += fix[i] (fixed point, kernels/integrators/camera.h) and fix[i]
 * = 0, for i < count (film.cu). */
cudaError_t sr_launch_film_fold(float *film, unsigned long long *fix, uint32_t pixels, cudaStream_t stream);
/* *dst = value on the device (compact.cu): the live count after the split's appends. */
cudaError_t sr_launch_set_count(uint32_t *dst, uint32_t value, cudaStream_t stream);
/* sum[i] += the fixed point of film[i], a pass of `samples` samples, for i < count (film.cu;
 * kernels/core/pass_sum.h). */
cudaError_t sr_launch_film_accumulate(const float *film, int64_t *sum, uint32_t count, uint32_t samples,
                                      cudaStream_t stream);
/* dst[i] = film[i] * scale for i < count (film.cu: the film resolve into e.g. a mapped GL buffer). */
cudaError_t sr_launch_film_scale(const float *film, float *dst, uint32_t count, float scale, cudaStream_t stream);
/* The viewer's frame (display.cu): film (sums of a width x height image) times scale, then
 * exposure, tonemap (sr_tonemap) and sRGB as in tonemap.h, into the RGBA8 texels of
 * `surface` (alpha 255), film row y to surface row y. */
cudaError_t sr_launch_resolve_display(const float *film, uint32_t width, uint32_t height, float scale, float exposure,
                                      int tonemap, cudaSurfaceObject_t surface, cudaStream_t stream);
/* The same texels as packed RGBA8 rows (width * 4 bytes each, row 0 = the film's top) into
 * device memory at `rows`. */
cudaError_t sr_launch_resolve_display_rows(const float *film, uint32_t width, uint32_t height, float scale,
                                           float exposure, int tonemap, void *rows, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
