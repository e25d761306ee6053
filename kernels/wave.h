/* wave.h: the wave mask's policy, the same for both backends (the frames are in wave.cu and
 * backend_cpu.c).
 *
 * One thread per camera ray (tiled slot order, stages.h); each warp keeps bouncing its rays
 * while its ballot shows at least `dense_min` of 32 lanes alive. A warp that turns sparse
 * moves its live rays by ballot partitioning into a queue, packed, and writes back an empty
 * stencil word. The warp whose rays fill a 32-ray chunk of the queue bounces that chunk next,
 * the same way (rays that go sparse again are queued again); a one-warp launch then runs
 * the last, partial chunk to its end. */
#ifndef SR_WAVE_H
#define SR_WAVE_H

#include "compat.h"

/* Samples per way when the renderer measures how to run the wave mask (src/render.c). */
#define SR_WAVE_TUNE_RUNS 2u

/* The wave mask's slot order: warp t (slots 32t..32t+31) covers the t-th 8x4 pixel tile, row
 * by row, so a warp's rays start close together and stay coherent for longer than a 32x1 row.
 * Tiles overhang the right and bottom edges; their outside slots die at generate. */
#ifndef SR_TILE_W
#define SR_TILE_W 8u
#define SR_TILE_H 4u
#endif
SR_HD uint32_t sr_tiles_x(uint32_t width) { return (width + SR_TILE_W - 1u) / SR_TILE_W; }
SR_HD uint32_t sr_tiled_slots(uint32_t width, uint32_t height)
{
    return sr_tiles_x(width) * ((height + SR_TILE_H - 1u) / SR_TILE_H) * 32u;
}

/* Ray pool slots for a width x height image, rounded up to `align` (1: none): a slot per
 * pixel, or per slot of the tiled order where the tiles overhang the image. Both backends
 * and the memory budget (mem_limits.c) size the pool with it. */
SR_HD uint64_t sr_pool_slots(uint32_t width, uint32_t height, uint32_t align)
{
    const uint64_t pixels = (uint64_t)width * height, tiled = sr_tiled_slots(width, height);
    const uint64_t slots = pixels > tiled ? pixels : tiled;
    return (slots + align - 1u) / align * align;
}

/* A queue entry's bounce byte when the warp that reserved it found the queue full: no ray. */
#define SR_WAVE_TOMBSTONE 0xffu

/* The queue's counters (sr_wave_args.ctl): entries reserved. */
#define SR_WAVE_QCOUNT 0u
#define SR_WAVE_CTL 4u

/* The queue holds as many rays as the pool; a warp that finds it full runs its rays to the
 * end where they are. SR_WAVE_QUEUE_LIMIT=N (tests) makes it N entries, to exercise that. */
#define SR_WAVE_QUEUE_LIMIT_ENV "SR_WAVE_QUEUE_LIMIT"

#endif
