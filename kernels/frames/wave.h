/* wave.h: the wave mask's policy, the same for both backends (the frame, also one for both,
 * is wave_frame.h; its GPU kernels wave.cu, its CPU driver backend_cpu.c).
 *
 * One thread per camera ray (tiled slot order, stages.h); each warp keeps bouncing its rays
 * while its ballot shows at least `dense_min` of 32 lanes alive. A warp that turns sparse
 * moves its live rays by ballot partitioning into a queue, packed, and writes back an empty
 * stencil word. A second launch of resident warps drains the queue: each warp claims the next
 * 32-ray chunk from a counter and runs it to its end (wave_frame.h). */
#ifndef SR_WAVE_H
#define SR_WAVE_H

#include "../core/compat.h"
#include "../core/types.h"

/* Samples per way when the renderer measures how to run the wave mask
 * (src/render/wave_way.c), whose median counts: one lucky sample (the fastest of the runs
 * counted before) picked a way 3 % slower. */
#define SR_WAVE_TUNE_RUNS 3u
/* The first samples taken slowest tiles first have no order yet (the order of the tiles,
 * below): they run in launch order. The measuring runs them first, uncounted, so that the
 * ordered way is judged on SR_WAVE_TUNE_RUNS samples like the others (counting only its
 * third, it once lost to launch order with a sample 29 % slow). */
#define SR_WAVE_ORDER_LAG 2u

/* The wave mask's slot order: warp t (slots 32t..32t+31) covers the t-th 8x4 pixel tile, row
 * by row, so a warp's rays start close together and stay coherent for longer than a 32x1 row.
 * Tiles overhang the right and bottom edges; their outside slots die at generate. */
#ifndef SR_TILE_W
#define SR_TILE_W 8u
#define SR_TILE_H 4u
#endif
SR_HD uint32_t sr_tiles_x(uint32_t width) { return (width + SR_TILE_W - 1u) / SR_TILE_W; }
SR_HD uint32_t sr_tiles(uint32_t width, uint32_t height) { return sr_tiles_x(width) * ((height + SR_TILE_H - 1u) / SR_TILE_H); }
SR_HD uint32_t sr_tiled_slots(uint32_t width, uint32_t height) { return sr_tiles(width, height) * 32u; }

/* Ray pool slots for a width x height image, rounded up to `align` (1: none): a slot per
 * pixel, or per slot of the tiled order where the tiles overhang the image. Both backends
 * and the memory budget (mem_limits.c) size the pool with it. */
SR_HD uint64_t sr_pool_slots(uint32_t width, uint32_t height, uint32_t align)
{
    const uint64_t pixels = (uint64_t)width * height, tiled = sr_tiled_slots(width, height);
    const uint64_t slots = pixels > tiled ? pixels : tiled;
    return (slots + align - 1u) / align * align;
}

/* A pool half's slots: `factor` times the image's (sr_pool_slots). For a scene with glass the
 * frame driver asks for SR_SPLIT_POOL_FACTOR: three times the image's slots again are the room
 * (the budget, known before the frame) into which the stage masks put the Whitted split's
 * spawned rays (kernels/frames/split_frame.h); past it they are dropped and counted. Four
 * nested glass spheres at depth 16 peak at 2.7 live rays a pixel (tests/unit/test_whitted_split.c).
 * Other scenes: 1. */
#define SR_SPLIT_POOL_FACTOR 4u
SR_HD uint64_t sr_pool_half_slots(uint32_t width, uint32_t height, uint32_t align, uint32_t factor)
{
    return (uint64_t)(factor ? factor : 1u) * sr_pool_slots(width, height, align);
}

/* A wave launch's memory, as the frame (wave_frame.h) takes it: the GPU's (backend_cuda.c),
 * or the CPU's (backend_cpu.c: the queue its pool's other half, no order, no timeline). */
typedef struct sr_wave_args {
    uint32_t queue_base;    /* the queue's first slot in p->ray (the GPU's: after the camera
                               rays'; the CPU's p->ray is the queue: 0)                    */
    uint32_t *first;        /* this sample's stencil of camera rays                         */
    uint32_t *first_next;   /* the next sample's, refilled (all ones) as this one is read   */
    uint32_t *stencil;      /* the queue's stencil: an entry's bit publishes it; zero
                               between samples (every chunk writes back an empty word)     */
    uint32_t *ctl;          /* [SR_WAVE_CTL] this sample's queue counters (zero at its start) */
    uint32_t generation;    /* the drain: the generation of the queue it drains (below)      */
    uint32_t generations;   /* the drains a sample runs: 1, or with the Whitted split up to
                               depth - 1 (the driver's sr_launch_args.generations)         */
    uint32_t *ctl_next;     /* the next sample's, cleared by this sample's kernel           */
    uint32_t capacity, dense_min;
    uint32_t bounce_counts;      /* count rays per bounce, else only their total (wave_frame.h) */
    uint32_t tiles_x, tiles;     /* the tiled image (wave.h): tiles a row, tiles in all      */
    /* The order of the tiles (wave.h), in a sample taken slowest tiles first (all NULL in
     * launch order), by groups of SR_WAVE_GROUP tiles. The ordered sample x takes the order
     * sample x - 1 placed from what sample x - 2 filed; counts and ranks are per class and
     * spread. */
    const uint32_t *take;         /* [groups] the groups, in the order this sample's blocks take them */
    const uint32_t *take_valid;   /* whether it is one (else launch order)                    */
    uint32_t *place, *place_valid;   /* the next ordered sample's order, placed here          */
    const uint32_t *prev_files;   /* [groups] by block: class << 24 | group, the previous one's */
    const uint32_t *prev_counts;  /* its files per class and spread                           */
    uint32_t *prev_ranks;         /* places in the next order taken so far (zero at the start) */
    uint32_t *files, *counts;     /* this sample's (counts zero at its start)                 */
    uint32_t *clear_counts, *clear_ranks;   /* zeroed here for the ordered samples to come    */
    uint32_t *timeline;           /* a measurement build's warp records (wave.h), else NULL   */
} sr_wave_args;

/* The order of the tiles: a frame ends with its slowest warps, and the GPU starts blocks
 * roughly in launch order, so a slow tile launched late (a reflective object low in the
 * image) lengthens the frame by its whole time. In a sample taken slowest tiles first, each
 * block files its group of tiles in a cost class by the cycles its slowest warp took (half
 * octaves, class 0 the slowest); the next such sample's blocks place those groups class by
 * class into an order, and the one after takes its groups in that order. The placing is
 * done inside the wave kernel, at each block's start and end, so a sample launches nothing
 * more and no warp waits for an atomic of its own (warps that waited at their end for one,
 * to learn where to list their tile, cost the default scene 5 us a frame at 1080p). Only
 * the order of the tiles changes, never what a ray computes, so the images stay the same.
 * The bookkeeping still costs a frame 12-17 us at 1080p (the filing about 5, the placing 2,
 * the rest of the block's start 9, not its group's load nor its barrier: docs/experiments.md),
 * so the renderer measures this order against the launch order (wave_way.c): it wins where
 * slow tiles sit late in the image (the mesh, 10-22 %) or paths run long. */
#define SR_WAVE_ORDER_CLASSES 16u
/* The order's unit is a block's group of SR_WAVE_GROUP tiles side by side (32 x 4 pixels):
 * ordering single tiles scattered neighbouring tiles over the frame, and with them the
 * film's lines, which cost the default scene 17 us a frame at 1080p (25 %). */
#define SR_WAVE_GROUP 4u   /* SR_WAVE_BLOCK / 32 (launch.h) */
SR_HD uint32_t sr_wave_groups(uint32_t tiles) { return (tiles + SR_WAVE_GROUP - 1u) / SR_WAVE_GROUP; }
#define SR_WAVE_CLASS0_HALF_OCTAVES 40u   /* class 0 from 2^20 cycles (0.5 ms at 2 GHz): 2 * 20 */
/* (The leading zeros by instruction: lane 0 looping over the bits, while the warp waited,
 * cost the default scene 9 us a frame at 1080p.) */
SR_HD uint32_t sr_wave_order_class(uint32_t cycles)
{
#ifdef __CUDA_ARCH__
    const uint32_t msb = cycles ? 31u - (uint32_t)__clz(cycles) : 0u;
#else
    const uint32_t msb = cycles ? 31u - (uint32_t)__builtin_clz(cycles) : 0u;
#endif
    const uint32_t half_octaves = 2u * msb + (msb ? (cycles >> (msb - 1u)) & 1u : 0u);
    const uint32_t below = half_octaves >= SR_WAVE_CLASS0_HALF_OCTAVES ? 0u : SR_WAVE_CLASS0_HALF_OCTAVES - half_octaves;
    return below < SR_WAVE_ORDER_CLASSES ? below : SR_WAVE_ORDER_CLASSES - 1u;
}
/* Most of a frame's blocks (16 200 at 1080p) file in one or two classes: so that blocks
 * finishing together do not queue on one counter, each class has SR_WAVE_ORDER_SPREAD
 * counters, 128 bytes apart, picked by the block's place in the launch; a class's part of
 * the order is its spreads' parts one after the other. */
#define SR_WAVE_ORDER_SPREAD 8u
#define SR_WAVE_ORDER_STRIDE 32u   /* words from one spread's counter to the next */
#define SR_WAVE_ORDER_COUNT_WORDS (SR_WAVE_ORDER_SPREAD * SR_WAVE_ORDER_STRIDE)
/* The order's memory (backend_cuda.c): three sets of counts and of ranks, two validity
 * words, then two arrays of files and two of orders, a word a group each. In a measurement
 * build (-DSR_MEASURE=ON), $SR_WAVE_LAUNCH_ORDER=1 keeps the launch order. */
#define SR_WAVE_ORDER_SMALL_WORDS (6u * SR_WAVE_ORDER_COUNT_WORDS + 2u)
#define SR_WAVE_ORDER_WORDS(tiles) (SR_WAVE_ORDER_SMALL_WORDS + 4u * (uint64_t)sr_wave_groups(tiles))
#define SR_WAVE_LAUNCH_ORDER_ENV "SR_WAVE_LAUNCH_ORDER"
/* The order's buffer sets cycle with the ordered samples: sample x uses count and rank set
 * x % 3 and file, order and validity x % 2, so the frame driver numbers the ordered samples
 * mod 6 (sr_launch_args.order_slot) and the backend addresses the sets by that number. */
#define SR_WAVE_ORDER_SLOTS 6u

/* Whether a sample runs the frame with the queue (and its drain), or sr_wave_direct: not at
 * depth 1, nor when a warp never repacks (dense 1). The frame driver decides (render.c) and
 * says so in sr_launch_args.queue. */
SR_HD bool sr_wave_queued(uint32_t max_depth, uint32_t dense_min) { return max_depth > 1u && dense_min > 1u; }

/* A queue entry's bounce byte when the warp that reserved it found the queue full: no ray. */
#define SR_WAVE_TOMBSTONE 0xffu

/* The queue's generations. The first launch pushes into generation 0 (its sparse warps' rays
 * and, with the Whitted split, the rays glass spawns); drain g runs generation g's rays and
 * pushes the rays they spawn into generation g + 1, which drain g + 1 runs: breadth first, so
 * a glass pixel's tree of rays is spread over warps instead of waiting in one lane, one ray
 * after another (that lane's stack made the split 3-4x slower: docs/design.md). Generation
 * g's entries start at the whole chunk after generation g - 1's last, which is final once
 * drain g starts (stream order), so each warp finds its region from the counters alone.
 * Without the split there is one generation and one drain, as before. A generation past
 * `generations` takes no pushes: the lanes keep those rays (whitted.h's stack). */
SR_HD uint32_t sr_wave_round_chunk(uint32_t n) { return n > 0xffffffe0u ? 0xffffffe0u : (n + 31u) & ~31u; }
/* The queue's counters (sr_wave_args.ctl), a pair per generation g: entries reserved
 * (SR_WAVE_QCOUNT + 2g) and chunks its drain claimed (SR_WAVE_DRAINED + 2g). */
#define SR_WAVE_QCOUNT 0u
#define SR_WAVE_DRAINED 1u   /* the drain: queue chunks claimed so far */
#define SR_WAVE_GENERATIONS_MAX SR_MAX_DEPTH
#define SR_WAVE_CTL (2u * SR_WAVE_GENERATIONS_MAX)

/* The warp timeline, for measuring where a frame's time goes: a measurement build
 * (-DSR_MEASURE=ON, which sets SR_WAVE_TIMELINE) records, for every warp of the kernel without
 * the queue, when it started and how long it ran (%globaltimer, ns), its SM and its deepest
 * bounce, by the warp's place in the launch: SR_WAVE_TIMELINE_WORDS words (start low, start
 * high, ns ran, SM << 16 | deepest bounce), sr_wave_timeline_warps of them. With
 * $SR_WAVE_TIMELINE=FILE set, the CUDA backend keeps them (clearing them before each frame, so
 * a frame run by the queue kernels leaves none) and `stencilray bench` writes the last frame's
 * as CSV (src/bench/wave_timeline.c); tests/perf/warps_over_time.py draws them. Other builds
 * record nothing, so the kernels carry none of it. */
#if defined(SR_MEASURE) && SR_MEASURE
#define SR_WAVE_TIMELINE 1
#else
#define SR_WAVE_TIMELINE 0
#endif
#define SR_WAVE_TIMELINE_ENV "SR_WAVE_TIMELINE"
#define SR_WAVE_TIMELINE_WORDS 4u
/* Warps of the launch-order grid, the larger: rows of whole groups of tiles. */
SR_HD uint32_t sr_wave_timeline_warps(uint32_t width, uint32_t height)
{
    const uint32_t tiles_x = sr_tiles_x(width);
    return (tiles_x + SR_WAVE_GROUP - 1u) / SR_WAVE_GROUP * SR_WAVE_GROUP * (sr_tiles(width, height) / tiles_x);
}

/* The queue holds as many rays as the pool; a warp that finds it full runs its rays to the
 * end where they are. SR_WAVE_QUEUE_LIMIT=N (tests) makes it N entries, to exercise that. */
#define SR_WAVE_QUEUE_LIMIT_ENV "SR_WAVE_QUEUE_LIMIT"

#endif
