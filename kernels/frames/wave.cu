/* wave.cu: the wave mask's kernels (policy in wave.h, the frame in wave_frame.h, shared with
 * the CPU backend), one or two launches per sample. What is the GPU's own is here: the
 * launches and their geometry, each warp's start (which tile: launch order, or the order of
 * the tiles, which the frame runs the same either way) and end, and the timeline of a
 * measurement build. */
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
#include "plain.cuh"
#include "stencil.cuh"
#include "wave.h"

/* Resident blocks of SR_WAVE_BLOCK threads per SM each kernel must allow (so its registers
 * per thread), measured on the H200 (docs/design.md, docs/experiments.md): 9 (56 registers, 36 warps): the
 * occupancy pays for the spills (64 registers: 2-9 % slower at depth 1, 48: 5-16 % slower;
 * with the rays in registers, path tracing at 7, 8, 10 or 11 blocks was up to 10 % slower on
 * sphere_field). The kernels with the queue hold nothing across the bounces that the others
 * do not, and run at the same budget. */
#ifndef SR_WAVE_BLOCKS_NO_QUEUE
#define SR_WAVE_BLOCKS_NO_QUEUE 9
#endif
#ifndef SR_WAVE_BLOCKS_NO_QUEUE_PATH
#define SR_WAVE_BLOCKS_NO_QUEUE_PATH 9
#endif
#ifndef SR_WAVE_BLOCKS_QUEUE
#define SR_WAVE_BLOCKS_QUEUE 9
#endif
/* The Whitted split's kernels (a 16-ray stack in local memory on every lane): 7 blocks (72
 * registers, 28 warps): their spills fell from 424 to 104 bytes and they ran 13-34 % faster
 * than at 9 on the H100 (docs/performance-history.md, "Whitted glass: the split"). */
#ifndef SR_WAVE_BLOCKS_SPLIT
#define SR_WAVE_BLOCKS_SPLIT 7
#endif

static_assert(SR_WAVE_GROUP * 32u == SR_WAVE_BLOCK, "the order's group is a block's tiles (wave.h)");
static_assert(SR_WAVE_CTL <= SR_WAVE_BLOCK, "block 0 clears the next sample's queue counters, a thread each");

/* The block's order state, in shared memory rather than in registers the bounce loop needs:
 * the group it runs, the placing warp 0 finishes at its end, and its warps' ends, which
 * each warp adds in one atomic: 1 << 60 (the count of warps done) plus 15 - its class in
 * its own 4 bits (a warp past the last tile adds nothing: 15 - 0, the fastest class). One
 * atomic, so the last warp sees every other's class without a fence (a minimum and a count
 * apart needed one between them). */
typedef struct sr_wave_order_block {
    uint32_t group, place, prev_group;
    unsigned long long ends;
} sr_wave_order_block;
static __shared__ sr_wave_order_block sr_order_block;
#define SR_NO_PLACE 0xffffffffu

/* The placing of the next order, by warp 0 of the ordered sample's block at place b: the
 * group block b filed in the previous ordered sample goes to its class and spread's part of
 * the next order, at a rank reserved now (lane 0's *rank) and written at the warp's end, so
 * that no warp waits for an atomic. Lane l holds the counts of class l / 2, spreads
 * (l % 2) * 4 .. + 3: the lanes are in the order's order. */
__device__ __forceinline__ void sr_wave_order_place(const sr_wave_args &w, uint32_t b, uint32_t *rank)
{
    static_assert(SR_WAVE_ORDER_CLASSES * SR_WAVE_ORDER_SPREAD == 4u * 32u, "4 counts a lane");
    const uint32_t lane = threadIdx.x & 31u, c = lane >> 1, j0 = (lane & 1u) * 4u;
    uint32_t filed = 0;
    if (lane == 0) filed = w.prev_files[b];
    uint32_t n[4], sum = 0;
    for (uint32_t q = 0; q < 4u; q++) {
        n[q] = w.prev_counts[(j0 + q) * SR_WAVE_ORDER_STRIDE + c];
        sum += n[q];
    }
    uint32_t end = sum;   /* where this lane's parts end in the next order: an inclusive scan */
    for (uint32_t off = 1u; off < 32u; off <<= 1) {
        const uint32_t e = __shfl_up_sync(SR_FULL_MASK, end, off);
        if (lane >= off) end += e;
    }
    const bool whole = __shfl_sync(SR_FULL_MASK, end, 31) == sr_wave_groups(w.tiles);   /* every group filed */
    if ((blockIdx.x | threadIdx.x) == 0) *w.place_valid = whole;
    const uint32_t filed_class = __shfl_sync(SR_FULL_MASK, filed, 0) >> 24, j = b % SR_WAVE_ORDER_SPREAD;
    uint32_t before = end - sum;
    for (uint32_t q = 0; q < (j & 3u); q++) before += n[q];
    const uint32_t base = __shfl_sync(SR_FULL_MASK, before, 2u * filed_class + (j >> 2));
    if (lane == 0) {
        sr_order_block.place = whole ? base : SR_NO_PLACE;
        sr_order_block.prev_group = filed & 0xffffffu;   /* tiles < 2^24 (options.c) */
        if (whole) *rank = atomicAdd(&w.prev_ranks[j * SR_WAVE_ORDER_STRIDE + filed_class], 1u);
    }
}

/* The end of a warp's own tile in an ordered sample: warp 0 puts the group it placed into
 * the next order, and the block's last warp done files its group by the cycles its slowest
 * warp took (no atomic waited for but the block's own: the count is a reduction). */
template <bool ORDER>
__device__ __forceinline__ void sr_wave_order_end(const sr_wave_args &w, uint32_t rank, uint32_t started)
{
    if (!ORDER || (threadIdx.x & 31u) != 0u) return;
    if (threadIdx.x == 0 && sr_order_block.place != SR_NO_PLACE) w.place[sr_order_block.place + rank] = sr_order_block.prev_group;
    static_assert(SR_WAVE_ORDER_CLASSES == 16u && SR_WAVE_GROUP * 4u <= 60u, "4 bits a warp's class");
    const uint32_t group = sr_order_block.group;
    const uint32_t warps = min(SR_WAVE_GROUP, w.tiles - group * SR_WAVE_GROUP);
    const unsigned long long mine = (1ull << 60) |
        ((unsigned long long)(15u - sr_wave_order_class((uint32_t)clock() - started)) << (4u * (threadIdx.x >> 5)));
    const unsigned long long ends = atomicAdd_block(&sr_order_block.ends, mine) + mine;
    if ((uint32_t)(ends >> 60) != warps) return;
    uint32_t fastest_left = 0;   /* 15 - the slowest class */
    for (uint32_t k = 0; k < SR_WAVE_GROUP; k++) fastest_left = max(fastest_left, (uint32_t)(ends >> (4u * k)) & 15u);
    const uint32_t c = 15u - fastest_left;
    w.files[blockIdx.x] = (c << 24) | group;
    atomicAdd(&w.counts[(blockIdx.x % SR_WAVE_ORDER_SPREAD) * SR_WAVE_ORDER_STRIDE + c], 1u);
}

/* Lane 0's load of the warp's stencil word k and its refill of the next sample's word k. The
 * lanes get the word by sr_wave_take_word once the camera ray is made, so that the load's
 * latency hides behind the ray's arithmetic (the shuffle waiting on it at once took 4.6 % of
 * the kernel's stall samples on the default scene). */
__device__ __forceinline__ uint32_t sr_wave_load_word(const sr_wave_args &w, uint32_t k)
{
    uint32_t first = 0;
    if ((threadIdx.x & 31u) == 0u) {
        first = w.first[k];
        w.first_next[k] = SR_FULL_MASK;   /* next sample's, refilled */
    }
    return first;
}
/* The word to every lane, and the lane's ray alive where its stencil bit is set and its pixel
 * `inside` the image. */
__device__ __forceinline__ void sr_wave_take_word(uint32_t first, uint32_t i, bool inside, uint32_t *word, bool *alive)
{
    *word = __shfl_sync(SR_FULL_MASK, first, 0);
    *alive = inside && SR_STENCIL_TEST(*word, i);
}

/* A warp's start; false (warp-uniform) for a warp past the last tile. In launch order
 * (ORDER false: the kernels as they were before the order, which its bookkeeping would
 * slow by 5-10 %) the grid is the tiled image, a row of tiles per block row (no division),
 * and a warp's slots are its tile's. Ordered (wave.h, launch.h), block b takes the b-th
 * group of the order (b itself without one), its warp w that group's tile w, and the warp's
 * slots, stencil word and ballot write-back are its place's in the launch (k = 4b + w, its
 * slots k * 32 + lane: every word is all ones at a sample's start). The first block clears
 * the counters of the samples to come (the next one's queue, the order's), as each warp
 * refills the next sample's stencil word: a frame with no memset of its own. */
template <bool ORDER>
__device__ __forceinline__ bool sr_wave_first(const sr_params *p, const sr_wave_args &w, uint32_t *i, uint32_t *word,
                                              bool *alive, sr_ray *r, uint32_t *started, uint32_t *rank)
{
    const uint32_t lane = threadIdx.x & 31u;
    if ((blockIdx.x | blockIdx.y) == 0 && threadIdx.x < SR_WAVE_CTL) w.ctl_next[threadIdx.x] = 0;
    if (!ORDER) {
        const uint32_t tile_x = blockIdx.x * SR_WAVE_GROUP + (threadIdx.x >> 5), tile_y = blockIdx.y;
        if (tile_x >= w.tiles_x) return false;
        *i = ((tile_y * w.tiles_x + tile_x) << 5) + lane;
        const uint32_t first = sr_wave_load_word(w, *i >> 5);
        sr_wave_take_word(first, *i, sr_camera_tile(p, lane, tile_x, tile_y, r), word, alive);
        return true;
    }
    const uint32_t k = blockIdx.x * SR_WAVE_GROUP + (threadIdx.x >> 5);
    *i = (k << 5) + lane;   /* (k < the stencil's words: the pool is whole blocks, launch.h) */
    const uint32_t first = sr_wave_load_word(w, k);
    *rank = 0;
    if (blockIdx.x == 0)
        for (uint32_t x = threadIdx.x; x < SR_WAVE_ORDER_COUNT_WORDS; x += SR_WAVE_BLOCK)
            w.clear_counts[x] = w.clear_ranks[x] = 0;
    uint32_t valid = 0, took = 0;
    if (lane == 0) {
        valid = *w.take_valid;
        took = w.take[blockIdx.x];
    }
    const uint32_t group = __shfl_sync(SR_FULL_MASK, valid ? took : blockIdx.x, 0);
    if (threadIdx.x == 0) {
        sr_order_block.group = group;
        sr_order_block.ends = 0;
    }
    if (threadIdx.x < 32u) sr_wave_order_place(w, blockIdx.x, rank);
    __syncthreads();   /* the block's state set before any warp can end (a named barrier
                          that only the ends waited at measured slower, 3-4 %) */
    const uint32_t t = group * SR_WAVE_GROUP + (threadIdx.x >> 5);
    if (t >= w.tiles) return false;
    const uint32_t tile_y = t / w.tiles_x;
    *started = (uint32_t)clock();
    sr_wave_take_word(first, *i, sr_camera_tile(p, lane, t - tile_y * w.tiles_x, tile_y, r), word, alive);
    return true;
}

#if SR_WAVE_TIMELINE
/* The warp's record in a timeline build (wave.h), by lane 0 at the warp's end. */
__device__ __forceinline__ unsigned long long sr_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ void sr_wave_timeline_end(const sr_wave_args &w, unsigned long long start, uint32_t bounce)
{
    for (int off = 16; off > 0; off >>= 1) bounce = max(bounce, __shfl_xor_sync(SR_FULL_MASK, bounce, off));
    if (w.timeline == NULL || (threadIdx.x & 31u) != 0u) return;
    const unsigned long long end = sr_globaltimer();
    uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    uint32_t *const rec = w.timeline + ((blockIdx.y * gridDim.x + blockIdx.x) * SR_WAVE_GROUP + (threadIdx.x >> 5)) *
                                           SR_WAVE_TIMELINE_WORDS;
    rec[0] = (uint32_t)start;
    rec[1] = (uint32_t)(start >> 32);
    rec[2] = (uint32_t)min(end - start, 0xffffffffull);
    rec[3] = sm << 16 | min(bounce, 0xffffu);
}
#endif

/* The frame's hooks (wave_frame.h): a warp's start and end, in launch order or in the order
 * of the tiles (`order`, a constant where the kernels call the frame). The frame's `warp`
 * is the CPU's: here a warp's tile comes from the grid. */
__device__ __forceinline__ bool sr_wave_start(const sr_params *p, const sr_wave_args *w, bool order, uint32_t warp,
                                              uint32_t *i, uint32_t *word, bool *alive, sr_ray *r, uint32_t *started,
                                              uint32_t *rank)
{
    (void)warp;
    return order ? sr_wave_first<true>(p, *w, i, word, alive, r, started, rank)
                 : sr_wave_first<false>(p, *w, i, word, alive, r, started, rank);
}
__device__ __forceinline__ void sr_wave_end(const sr_wave_args *w, bool order, uint32_t rank, uint32_t started)
{
    if (order) sr_wave_order_end<true>(*w, rank, started);
    else sr_wave_order_end<false>(*w, rank, started);
}
#include "wave_frame.h"

/* The parameters stay in parameter memory (__grid_constant__: no copy is made). Counts go to
 * the block's copy of the counters (launch.h). */
#define SR_WAVE_KERNEL(NAME, PATH, SPLIT, MODE, ORDER, MINB)                                          \
    extern "C" __global__ void __launch_bounds__(SR_WAVE_BLOCK, SR_MIN_BLOCKS(MINB, SR_WAVE_BLOCK))   \
        SR_K(NAME)(const __grid_constant__ sr_params p, const __grid_constant__ sr_wave_args w)        \
    {                                                                                                  \
        sr_wave_frame(&p, &w, sr_count_copy(p.ray_count), PATH, SPLIT, MODE, ORDER, 0u);                \
    }
SR_WAVE_KERNEL(srk_wave, false, false, SR_WAVE_QUEUE, false, SR_WAVE_BLOCKS_QUEUE)
SR_WAVE_KERNEL(srk_wave_path, true, false, SR_WAVE_QUEUE, false, SR_WAVE_BLOCKS_QUEUE)
SR_WAVE_KERNEL(srk_wave_ordered, false, false, SR_WAVE_QUEUE, true, SR_WAVE_BLOCKS_QUEUE)
SR_WAVE_KERNEL(srk_wave_path_ordered, true, false, SR_WAVE_QUEUE, true, SR_WAVE_BLOCKS_QUEUE)
SR_WAVE_KERNEL(srk_wave_drain, false, false, SR_WAVE_DRAIN, false, SR_WAVE_BLOCKS_QUEUE)   /* resident warps */
SR_WAVE_KERNEL(srk_wave_drain_path, true, false, SR_WAVE_DRAIN, false, SR_WAVE_BLOCKS_QUEUE)
/* Whitted with the split (kernels/integrators/whitted.h): spawned rays into the queue or the
 * lanes' stacks. Kernels of their own, so that Whitted scenes without glass run the ones
 * above, which carry no stack. */
SR_WAVE_KERNEL(srk_wave_split, false, true, SR_WAVE_QUEUE, false, SR_WAVE_BLOCKS_SPLIT)
SR_WAVE_KERNEL(srk_wave_ordered_split, false, true, SR_WAVE_QUEUE, true, SR_WAVE_BLOCKS_SPLIT)
SR_WAVE_KERNEL(srk_wave_drain_split, false, true, SR_WAVE_DRAIN, false, SR_WAVE_BLOCKS_SPLIT)
/* The kernels without a queue: no repacking. */
#define SR_WAVE_NO_QUEUE_KERNEL(NAME, PATH, SPLIT, ORDER, MINB)                                       \
    extern "C" __global__ void __launch_bounds__(SR_WAVE_BLOCK, SR_MIN_BLOCKS(MINB, SR_WAVE_BLOCK))   \
        SR_K(NAME)(const __grid_constant__ sr_params p, const __grid_constant__ sr_wave_args w)        \
    {                                                                                                  \
        sr_wave_direct(&p, &w, sr_count_copy(p.ray_count), PATH, SPLIT, ORDER, 0u);                    \
    }
SR_WAVE_NO_QUEUE_KERNEL(srk_wave_no_queue, false, false, false, SR_WAVE_BLOCKS_NO_QUEUE)
SR_WAVE_NO_QUEUE_KERNEL(srk_wave_no_queue_path, true, false, false, SR_WAVE_BLOCKS_NO_QUEUE_PATH)
SR_WAVE_NO_QUEUE_KERNEL(srk_wave_no_queue_ordered, false, false, true, SR_WAVE_BLOCKS_NO_QUEUE)
SR_WAVE_NO_QUEUE_KERNEL(srk_wave_no_queue_path_ordered, true, false, true, SR_WAVE_BLOCKS_NO_QUEUE_PATH)
SR_WAVE_NO_QUEUE_KERNEL(srk_wave_no_queue_split, false, true, false, SR_WAVE_BLOCKS_SPLIT)
SR_WAVE_NO_QUEUE_KERNEL(srk_wave_no_queue_ordered_split, false, true, true, SR_WAVE_BLOCKS_SPLIT)


extern "C" cudaError_t SR_K(sr_wave_drain_blocks)(int device, int path, uint32_t *blocks)
{
    return sr_resident_blocks(device, path ? (const void *)SR_K(srk_wave_drain_path) : (const void *)SR_K(srk_wave_drain),
                              SR_WAVE_BLOCK, blocks);
}

extern "C" cudaError_t SR_K(sr_launch_wave)(const sr_params *p, const sr_wave_args *w, int queue, uint32_t drain_blocks,
                                            cudaStream_t stream)
{
    const bool path = p->scene.integrator == SR_INTEGRATOR_PATH, split = !path && p->split != NULL;
    const bool ordered = w->take != NULL;
    /* In launch order, block (bx, by) covers tiles bx * 4 .. bx * 4 + 3 of tile row by;
     * ordered, block b the b-th group of the order (sr_wave_first). */
    const dim3 grid = ordered ? dim3(sr_wave_groups(w->tiles), 1u)
                              : dim3((w->tiles_x + SR_WAVE_GROUP - 1u) / SR_WAVE_GROUP, w->tiles / w->tiles_x);
#define SR_WAVE_LAUNCH(NAME) SR_K(NAME)<<<grid, SR_WAVE_BLOCK, 0, stream>>>(*p, *w)
    if (!queue) {
        if (path) ordered ? SR_WAVE_LAUNCH(srk_wave_no_queue_path_ordered) : SR_WAVE_LAUNCH(srk_wave_no_queue_path);
        else if (split) ordered ? SR_WAVE_LAUNCH(srk_wave_no_queue_ordered_split) : SR_WAVE_LAUNCH(srk_wave_no_queue_split);
        else ordered ? SR_WAVE_LAUNCH(srk_wave_no_queue_ordered) : SR_WAVE_LAUNCH(srk_wave_no_queue);
        return cudaGetLastError();
    }
    if (path) ordered ? SR_WAVE_LAUNCH(srk_wave_path_ordered) : SR_WAVE_LAUNCH(srk_wave_path);
    else if (split) ordered ? SR_WAVE_LAUNCH(srk_wave_ordered_split) : SR_WAVE_LAUNCH(srk_wave_split);
    else ordered ? SR_WAVE_LAUNCH(srk_wave_ordered) : SR_WAVE_LAUNCH(srk_wave);
#undef SR_WAVE_LAUNCH
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    /* The drain: as many blocks as the GPU holds at once (the caller's drain_blocks, asked
     * of sr_wave_drain_blocks once), each warp claiming chunks until none is left (the chunk
     * count is on the device; a grid per chunk would wait for it). */
    const uint32_t blocks = drain_blocks;
    if (path) SR_K(srk_wave_drain_path)<<<blocks, SR_WAVE_BLOCK, 0, stream>>>(*p, *w);
    else if (!split) SR_K(srk_wave_drain)<<<blocks, SR_WAVE_BLOCK, 0, stream>>>(*p, *w);
    else   /* a drain per generation of the queue, each over the rays the one before spawned (wave.h) */
        for (uint32_t g = 0; g < w->generations && g < SR_WAVE_GENERATIONS_MAX; g++) {
            sr_wave_args wg = *w;
            wg.generation = g;
            SR_K(srk_wave_drain_split)<<<blocks, SR_WAVE_BLOCK, 0, stream>>>(*p, wg);   /* (the same bounds: grid) */
            if ((e = cudaGetLastError()) != cudaSuccess) return e;
        }
    return cudaGetLastError();
}
