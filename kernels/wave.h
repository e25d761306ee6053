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

/* The refill way (regeneration): persistent warps claim tiles one at a time; a lane whose path
 * has ended takes the claimed tile's next camera ray, so a warp stays full until the image
 * runs out of tiles instead of waiting for its longest path. Paths never leave their lane.
 *
 * The pixels of tile (tile_x, tile_y) inside the image, as the tile's stencil bits. */
SR_HD uint32_t sr_tile_pixels(uint32_t width, uint32_t height, uint32_t tile_x, uint32_t tile_y)
{
    const uint32_t x0 = tile_x * SR_TILE_W, y0 = tile_y * SR_TILE_H;
    if (x0 >= width || y0 >= height) return 0u;
    const uint32_t cols = width - x0 < SR_TILE_W ? width - x0 : SR_TILE_W;
    const uint32_t rows = height - y0 < SR_TILE_H ? height - y0 : SR_TILE_H;
    const uint32_t row = (1u << cols) - 1u;
    uint32_t m = 0;
    for (uint32_t r = 0; r < rows; r++) m |= row << (r * SR_TILE_W);
    return m;
}

/* Position of the (n+1)-th set bit of m (n from 0), or 32 when m has n or fewer. */
SR_HD uint32_t sr_nth_bit(uint32_t m, uint32_t n)
{
#if defined(__CUDA_ARCH__)
    const uint32_t k = __fns(m, 0u, (int)n + 1);
    return k > 31u ? 32u : k;
#else
    for (; n && m; n--) m &= m - 1u;
    return m ? (uint32_t)__builtin_ctz(m) : 32u;
#endif
}

/* The hand-out: the idle lanes, in lane order, take the pending camera rays (`pend`, bits of
 * the claimed tile) in bit order. The bit lane `lane` takes, or 32 for none. */
SR_HD uint32_t sr_refill_take(uint32_t idle, uint32_t pend, uint32_t lane)
{
    if (!((idle >> lane) & 1u)) return 32u;
    return sr_nth_bit(pend, sr_popc(idle & sr_lanemask_lt(lane)));
}

/* The pending rays left after the hand-out: pend without its popc(idle) lowest bits. */
SR_HD uint32_t sr_refill_rest(uint32_t idle, uint32_t pend)
{
    const uint32_t k = sr_nth_bit(pend, sr_popc(idle));
    return k > 31u ? 0u : pend & ~((1u << k) - 1u);
}

/* A queue entry's bounce byte when the warp that reserved it found the queue full: no ray. */
#define SR_WAVE_TOMBSTONE 0xffu

/* The queue's counters (sr_wave_args.ctl): entries reserved; the refill way's tiles claimed
 * past each warp's first. */
#define SR_WAVE_QCOUNT 0u
#define SR_WAVE_TILES 1u
#define SR_WAVE_CTL 4u

/* The queue holds as many rays as the pool; a warp that finds it full runs its rays to the
 * end where they are. SR_WAVE_QUEUE_LIMIT=N (tests) makes it N entries, to exercise that. */
#define SR_WAVE_QUEUE_LIMIT_ENV "SR_WAVE_QUEUE_LIMIT"

/* The refill way hands camera rays out once at least this many lanes are idle (a warp with
 * none alive always refills): each hand-out generates rays in a partial warp, so waiting for
 * a few idle lanes may pay. SR_WAVE_REFILL_MIN=N (1..32) sets it, to measure. */
#define SR_WAVE_REFILL_MIN_ENV "SR_WAVE_REFILL_MIN"
#define SR_WAVE_REFILL_MIN 1u

#endif
