/* wave_frame.h: the wave mask's frame (policy in wave.h), written once for both backends as a
 * warp body (kernels/core/warp.h): the GPU runs it as a warp of threads (wave.cu), the CPU as
 * a loop over 32 lanes per warp, a warp per OpenMP thread (backend_cpu.c).
 *
 * One lane per slot of the tiled image: stencil test, generate, bounce in registers while the
 * warp is dense, ballot write-back. A warp that turns sparse moves its live rays into the
 * queue by ballot partitioning (one atomicAdd per warp, rank = popc(ballot & lanemask_lt))
 * and writes back an empty word. A second launch of resident warps drains the queue: each
 * claims the next 32-ray chunk from a counter and runs it to the end, the same frame around
 * it, so the rays of sparse warps run on in dense ones. Without repacking (depth 1,
 * --wave-dense 1) a frame without the queue runs each lane's path to its end.
 *
 * The queue is p->ray's slots queue_base + k (on the GPU the pool's second half, so one pool
 * pointer serves both). A queue entry is published by its stencil bit (set with the warp's
 * others by one atomicOr); the launch boundary (the CPU: the end of the parallel loop) orders
 * the entries' stores before the drain's loads. The order in which warps reserve queue
 * entries differs between the backends and between runs; nothing a ray computes depends on
 * its slot (random numbers are keyed by pixel, sample and bounce), so the images do not.
 *
 * The driver defines, before including this file:
 *   sr_wave_start(p, w, order, warp, i, word, alive, r, started, rank): a first-launch warp's
 *     start, false (warp-uniform) for a warp past the last tile: its slots i, stencil word,
 *     camera rays r and alive flags (per lane), and the order's state (started, rank). Not
 *     shared: the GPU's maps its grid to tiles (in launch order or the order of the tiles,
 *     wave.h, which only the GPU keeps: it orders blocks, which the CPU does not have),
 *     refills the next sample's stencil and clears its counters; the CPU's warp `warp` is
 *     tile `warp` (its stencil filled before the launch).
 *   sr_wave_end(w, order, rank, started): a first-launch warp's end (the GPU's files its tile
 *     in the order; the CPU's does nothing).
 *   SR_WAVE_STOP() (optional): true to skip the rest of the rays' bounces (the CPU's Ctrl-C). */
#ifndef SR_WAVE_FRAME_H
#define SR_WAVE_FRAME_H

#include "../core/warp.h"
#include "stencil_frame.h"
#include "../integrators/stages.h"
#include "wave.h"

#ifndef SR_WAVE_STOP
#define SR_WAVE_STOP() false
#endif

#define SR_NO_CHUNK 0xffffffffu
/* The first launch (its tiles, pushing its sparse warps' rays) or the drain of the queue. */
enum { SR_WAVE_QUEUE = 1, SR_WAVE_DRAIN };

/* One bounce of the ray *r; whether it lives on (and, Whitted's split, whether it spawned
 * *spawn). `path` is a constant where the GPU kernels call it, so each is built for one
 * integrator. */
SR_WARP_FN bool sr_wave_trace(const sr_params *p, bool path, sr_ray *r, uint32_t bounce, sr_ray *spawn, bool *spawns)
{
    if (SR_WAVE_STOP()) return false;
    return path ? sr_trace_path_deferred(p, r, bounce) : sr_trace_whitted(p, r, bounce, spawn, spawns);
}

/* A lane's count of the bounces of its earlier rays (the Whitted split's pending ones), which
 * the warp's count at the word's end does not see. Per bounce (w->bounce_counts): bounces
 * below SR_WAVE_KEPT_LEVELS in a byte each of *kept, summed over the warp once at its end
 * (sr_wave_count_kept); a deeper bounce, or a byte that would overflow, goes to `count` at once
 * (an atomic for every bounce of every ended ray filled the load-store queue of the split
 * kernels: docs/performance.md). Else *kept is the plain number of the rays' bounces. */
#define SR_WAVE_KEPT_LEVELS 8u
SR_WARP_FN void sr_wave_keep_count(const sr_wave_args *w, uint32_t *count, uint64_t *kept, uint32_t b0, uint32_t b1)
{
    if (!w->bounce_counts) {
        *kept += b1 > b0 ? b1 - b0 : 0u;
        return;
    }
    for (uint32_t b = b0; b < b1; b++) {
        if (b < SR_WAVE_KEPT_LEVELS && ((*kept >> (8u * b)) & 0xffu) != 0xffu) *kept += 1ull << (8u * b);
        else sr_atomic_add(&count[b], 1u);
    }
}

/* A lane whose ray ended takes its next pending ray (the Whitted split's, whitted.h), if it
 * has one: the ended ray's bounces [first_bounce, bounce) are counted into *kept (the warp's
 * count at the word's end sees only the lane's last ray). */
SR_WARP_FN bool sr_wave_next_pending(const sr_wave_args *w, uint32_t *count, uint64_t *kept, sr_split_stack *st, sr_ray *r, uint32_t *bounce,
                                     uint32_t *first_bounce, uint32_t max_depth)
{
    if (st->n == 0) return false;
    const uint32_t hi = *bounce < max_depth ? *bounce : max_depth;
    sr_wave_keep_count(w, count, kept, *first_bounce, hi);
    sr_split_pop(st, r, bounce);
    *first_bounce = *bounce;
    return true;
}

/* Where generation `gen` of the queue starts (wave.h): the whole chunks of the generations
 * before it, whose counts are final by then. */
SR_WARP_FN uint32_t sr_wave_region(const sr_wave_args *w, uint32_t gen)
{
    uint32_t start = 0;
    for (uint32_t g = 0; g < gen && start < w->capacity; g++) start += sr_wave_round_chunk(w->ctl[SR_WAVE_QCOUNT + 2u * g]);
    return start < w->capacity ? start : w->capacity;
}

/* Ballot partitioning of the warp's live lanes (ballot m) into generation `gen` of the queue,
 * which starts at entry `start`: one atomicAdd reserves popc(m) entries, each lane writes its
 * ray r (from registers) at base + popc(m & lanemask_lt), and the entries are published by
 * their stencil bits. Returns false when the queue is full (the entries past its end are not
 * written, the ones before it become tombstones; the rays stay here). On the GPU kept out of
 * line: it is rare, and inlined it costs the bounce loop registers. */
#ifndef SR_WAVE_PUSH_INLINE
#define SR_WAVE_PUSH_INLINE __noinline__
#endif
#ifdef __CUDACC__
#define SR_WAVE_PUSH_FN static __device__ SR_WAVE_PUSH_INLINE
#else
#define SR_WAVE_PUSH_FN static
#endif
SR_WAVE_PUSH_FN bool sr_wave_push(const sr_params *p, const sr_wave_args *w, uint32_t gen, uint32_t start, uint32_t m,
                                  SR_LANE_IN(bool, alive), SR_LANE_IN(uint32_t, bounce), SR_LANE_IN(sr_ray, r))
{
    const uint32_t c = sr_popc(m);
    const uint32_t reserved = sr_warp_atomic_add(&w->ctl[SR_WAVE_QCOUNT + 2u * gen], c);
    const uint32_t base = reserved < w->capacity - start ? start + reserved : w->capacity;
    const bool fits = c <= w->capacity - base;
    SR_FOR_LANES {
        const uint32_t to = base + sr_popc(m & sr_lanemask_lt(lane));
        if (SR_L(alive) && to < w->capacity) {
            if (fits) sr_ray_store(p->ray, w->queue_base + to, &SR_L(r));
            p->ray.bounce[w->queue_base + to] = fits ? (uint8_t)SR_L(bounce) : (uint8_t)SR_WAVE_TOMBSTONE;
        }
    }
    if (SR_LEADER && base < w->capacity) {   /* publish: set the entries' stencil bits */
        const uint32_t left = w->capacity - base, n = c < left ? c : left, s = base & 31u;
        const uint64_t bits = (n == 32u ? 0xffffffffull : ((1ull << n) - 1ull)) << s;
        sr_atomic_or(&w->stencil[base >> 5], (uint32_t)bits);
        if (bits >> 32) sr_atomic_or(&w->stencil[(base >> 5) + 1u], (uint32_t)(bits >> 32));
    }
    return fits;
}

/* The Whitted split after a bounce of the warp's lanes: spawned rays go to the queue by
 * ballot partitioning (sr_wave_push: one atomicAdd for the warp, each at its rank), into
 * generation `gen` at `start` when `to_queue` (the first launch's generation 0, where the
 * sparse rays go too, or the drain's next), else, or when the queue is full (then a
 * first-launch warp finishes its rays here: *finish), to the lane's stack; a lane whose ray
 * ended takes its next pending one. */
SR_WARP_FN void sr_wave_split(const sr_params *p, const sr_wave_args *w, uint32_t *count, bool to_queue, uint32_t gen,
                              uint32_t start, bool *finish,
                              SR_LANE_IN(bool, spawns), SR_LANE_IN(sr_ray, spawn), SR_LANE_OUT(bool, alive),
                              SR_LANE_OUT(uint32_t, bounce), SR_LANE_OUT(uint32_t, first_bounce), SR_LANE_OUT(sr_ray, r),
                              SR_LANE_OUT(sr_split_stack, st), SR_LANE_OUT(uint64_t, kept))
{
    const uint32_t s = sr_warp_ballot(spawns);
    bool pushed = false;
    if (to_queue && s != 0) {   /* (a spawned ray's bounce is the lane's next) */
        pushed = sr_wave_push(p, w, gen, start, s, spawns, SR_LANE_FWD(bounce), spawn);
        if (!pushed) *finish = true;
    }
    SR_FOR_LANES {
        if (SR_L(spawns) && !pushed) sr_split_keep(p, &SR_LO(st), &SR_L(spawn), SR_LO(bounce));
        if (!SR_LO(alive))
            SR_LO(alive) = sr_wave_next_pending(w, count, &SR_LO(kept), &SR_LO(st), &SR_LO(r), &SR_LO(bounce),
                                                &SR_LO(first_bounce), p->scene.max_depth);
    }
}

/* Rays entering intersect, counted when the warp is done with a stencil word, for its lanes'
 * last rays, which traced bounces [b0, b1). Per bounce (w->bounce_counts): a vote per bounce
 * level and one add from the leader into count[b] (the GPU: the block's copy of the counts,
 * launch.h; the lanes' paths are contiguous runs of bounces, so nothing is counted inside
 * the loop). Else each lane adds its bounces to *kept, summed once at the warp's end
 * (sr_wave_count_kept). */
SR_WARP_FN void sr_wave_count(const sr_wave_args *w, uint32_t *count, SR_LANE_IN(uint32_t, b0),
                              SR_LANE_IN(uint32_t, b1), SR_LANE_OUT(uint64_t, kept), uint32_t max_depth)
{
    SR_LANE_VAR(uint32_t, lo);
    SR_LANE_VAR(uint32_t, hi);
    SR_FOR_LANES {
        SR_L(hi) = SR_L(b1) < max_depth ? SR_L(b1) : max_depth;   /* a path's last segment (bounce max_depth) is not counted */
        SR_L(lo) = SR_L(hi) > SR_L(b0) ? SR_L(b0) : 0xffffffffu;
        if (!w->bounce_counts && SR_L(hi) > SR_L(b0)) SR_LO(kept) += SR_L(hi) - SR_L(b0);
    }
    if (!w->bounce_counts) return;
    const uint32_t from = sr_warp_min(lo), to = sr_warp_max(hi);
    SR_LOOP_ONCE
    for (uint32_t b = from; b < to; b++) {
        SR_LANE_VAR(bool, in);
        SR_FOR_LANES SR_L(in) = SR_L(b0) <= b && b < SR_L(hi);
        const uint32_t c = sr_popc(sr_warp_ballot(in));
        if (SR_LEADER && c) sr_atomic_add(&count[b], c);
    }
}

/* The lanes' kept counts (sr_wave_keep_count, sr_wave_count) into `count` at the warp's end:
 * per bounce, the split's pending rays, a warp sum and one add from the leader per level;
 * else the total into count[0], one warp sum and one add, as the megakernel counts. On the
 * default scene at 1080p and depth 1 the total saves a warp 14 of its 749 instructions on the
 * GPU (docs/performance.md, "The frame's floor"). */
SR_WARP_FN void sr_wave_count_kept(const sr_wave_args *w, uint32_t *count, SR_LANE_IN(uint64_t, kept), bool split)
{
    if (!w->bounce_counts) {
        SR_LANE_VAR(uint32_t, n);
        SR_FOR_LANES SR_L(n) = (uint32_t)SR_L(kept);
        const uint32_t c = sr_warp_sum(n);
        if (SR_LEADER && c) sr_atomic_add(count, c);
        return;
    }
    if (!split) return;   /* (a constant on the GPU) */
    SR_LANE_VAR(bool, any);
    SR_FOR_LANES SR_L(any) = SR_L(kept) != 0u;
    if (!sr_warp_ballot(any)) return;
    for (uint32_t b = 0; b < SR_WAVE_KEPT_LEVELS; b++) {
        SR_LANE_VAR(uint32_t, c);
        SR_FOR_LANES SR_L(c) = (uint32_t)(SR_L(kept) >> (8u * b)) & 0xffu;
        const uint32_t sum = sr_warp_sum(c);
        if (SR_LEADER && sum) sr_atomic_add(&count[b], sum);
    }
}

/* The drain's next chunk of generation `gen`, which starts at entry `start` (warp-uniform),
 * or SR_NO_CHUNK once every chunk pushed into it is claimed. */
SR_WARP_FN uint32_t sr_wave_claim(const sr_wave_args *w, uint32_t gen, uint32_t start)
{
    const uint32_t q = w->ctl[SR_WAVE_QCOUNT + 2u * gen], room = w->capacity - start, n = q < room ? q : room;
    const uint32_t chunks = (n + 31u) >> 5;
    if (sr_warp_load(&w->ctl[SR_WAVE_DRAINED + 2u * gen], 0u) >= chunks) return SR_NO_CHUNK;   /* (no atomic: an empty generation's drain is cheap) */
    const uint32_t c = sr_warp_atomic_add(&w->ctl[SR_WAVE_DRAINED + 2u * gen], 1u);
    return c < chunks ? c : SR_NO_CHUNK;
}

/* A warp of the first launch (mode SR_WAVE_QUEUE): its own stencil word of camera rays,
 * bounced while the warp is dense, then its live rays pushed into the queue; or a warp of the
 * drain (SR_WAVE_DRAIN): queue chunks claimed one after another, each run to its end. Each
 * pass is the kernel frame: the stencil test, the bounces, the ballot write-back through the
 * single exit. One loop, so that the stages are inlined once. A drain runs generation
 * w->generation of the queue and, with the split, pushes the rays its glass spawns into the
 * next (wave.h). `warp` is the CPU's warp (its tile); `path`, `split` (the Whitted split is
 * on: p->split set), `mode` and `order` are constants where the GPU kernels call it. */
SR_WARP_FN void sr_wave_frame(const sr_params *p, const sr_wave_args *w, uint32_t *count, bool path, bool split, int mode,
                              bool order, uint32_t warp)
{
    const bool queue = mode == SR_WAVE_QUEUE;
    uint32_t word = 0, started = 0, rank = 0;   /* (rank: lane 0's on the GPU) */
    uint32_t take = SR_NO_CHUNK;   /* the drain's chunk */
    bool finish = !queue;
    SR_LANE_VAR(uint32_t, i);
    SR_LANE_VAR(uint32_t, bounce);
    SR_LANE_VAR(uint32_t, first_bounce);
    SR_LANE_VAR(bool, alive);
    SR_LANE_VAR(sr_ray, r);
    SR_LANE_VAR(sr_ray, spawn);
    SR_LANE_VAR(bool, spawns);
    SR_LANE_VAR(sr_split_stack, st);
    SR_LANE_VAR(uint64_t, kept);   /* the split's kept counts, or the lane's total (sr_wave_count) */
    SR_FOR_LANES {
        SR_L(i) = SR_L(bounce) = SR_L(first_bounce) = 0;
        SR_L(alive) = false;
        SR_L(st).n = 0;
        SR_L(kept) = 0u;
    }
    /* The generation drained (the first launch: none) and the one spawned rays go to. */
    const uint32_t gen = split && !queue ? w->generation : 0u;
    const uint32_t start = split && !queue ? sr_wave_region(w, gen) : 0u;
    const bool push_spawns = queue || gen + 1u < w->generations;
    const uint32_t spawn_gen = queue ? 0u : gen + 1u;
    const uint32_t spawn_start = queue || !push_spawns ? 0u : sr_wave_region(w, spawn_gen);
    if (!queue) {
        if ((take = sr_wave_claim(w, gen, start)) == SR_NO_CHUNK) return;
    } else if (!sr_wave_start(p, w, order, warp, SR_LANE_REF(i), &word, SR_LANE_REF(alive), SR_LANE_REF(r), &started,
                              &rank)) {
        return;
    }
    for (;;) {
        /* The queue's stencil is indexed by slot, like the pool. */
        uint32_t *const stencil = queue ? w->first : w->stencil - (w->queue_base >> 5);
        if (!queue) {   /* the chunk's stencil word and rays (warp-uniform) */
            SR_FOR_LANES SR_L(i) = w->queue_base + start + take * 32u + lane;
            word = sr_warp_load(stencil, SR_UNIFORM(i) >> 5);
            SR_FOR_LANES {
                SR_L(alive) = ((word >> (SR_L(i) & 31u)) & 1u) != 0u;
                SR_L(bounce) = SR_L(alive) ? (uint32_t)p->ray.bounce[SR_L(i)] : 0u;
                if (SR_L(bounce) == SR_WAVE_TOMBSTONE) SR_L(alive) = false;
                if (SR_L(alive)) SR_L(r) = sr_ray_load(p->ray, SR_L(i));
                else SR_L(bounce) = 0;
                SR_L(first_bounce) = SR_L(bounce);
            }
        }
        /* (One call of the stages per kernel: a second inlined copy costs registers.) */
        uint32_t m = sr_warp_ballot(alive);
        while (m != 0 && (finish || sr_popc(m) >= w->dense_min)) {
            SR_FOR_LANES {
                SR_L(spawns) = false;
                if (SR_L(alive)) {
                    SR_L(alive) = sr_wave_trace(p, path, &SR_L(r), SR_L(bounce), split ? &SR_L(spawn) : (sr_ray *)0, &SR_L(spawns));
                    SR_L(bounce)++;
                }
            }
            if (!path && split)   /* (constants on the GPU: kernels without the split carry none of it) */
                sr_wave_split(p, w, count, push_spawns && !(queue && finish), spawn_gen, spawn_start, &finish, spawns,
                              spawn, SR_LANE_REF(alive),
                              SR_LANE_REF(bounce), SR_LANE_REF(first_bounce), SR_LANE_REF(r), SR_LANE_REF(st),
                              SR_LANE_REF(kept));
            m = sr_warp_ballot(alive);
        }
        if (queue && m != 0) {   /* sparse: ballot partitioning into the queue (warp-uniform) */
            if (!sr_wave_push(p, w, 0u, 0u, m, alive, bounce, r)) { finish = true; continue; }   /* full: finish here */
            SR_FOR_LANES SR_L(alive) = false;   /* moved: this slot no longer holds a live ray */
        }
        sr_stencil_write_back(stencil, SR_UNIFORM(i) >> 5, word, alive);
        if (queue) sr_wave_end(w, order, rank, started);
        sr_wave_count(w, count, first_bounce, bounce, SR_LANE_REF(kept), p->scene.max_depth);
        if (queue || (take = sr_wave_claim(w, gen, start)) == SR_NO_CHUNK) break;
    }
    sr_wave_count_kept(w, count, kept, !path && split);
}

/* Without repacking (depth 1, or --wave-dense 1): each lane runs its path to the end on its
 * own, with no warp vote per bounce (measured faster on the GPU: lanes need not wait for
 * each other's bounce); then the ballot write-back and the counts. Its own function: the
 * queue's state kept alive across the bounces cost this loop registers. (The timeline is a
 * GPU measurement build's, wave.cu.) */
SR_WARP_FN void sr_wave_direct(const sr_params *p, const sr_wave_args *w, uint32_t *count, bool path, bool split,
                               bool order, uint32_t warp)
{
    uint32_t word, started, rank;
    SR_LANE_VAR(uint32_t, i);
    SR_LANE_VAR(uint32_t, bounce);
    SR_LANE_VAR(uint32_t, first_bounce);
    SR_LANE_VAR(bool, alive);
    SR_LANE_VAR(sr_ray, r);
    SR_LANE_VAR(sr_split_stack, st);
    SR_LANE_VAR(uint64_t, kept);
#if SR_WAVE_TIMELINE && SR_DEVICE_CODE   /* the warp timeline is the GPU's (wave.cu) */
    const unsigned long long timeline_start = sr_globaltimer();
#endif
    if (!sr_wave_start(p, w, order, warp, SR_LANE_REF(i), &word, SR_LANE_REF(alive), SR_LANE_REF(r), &started, &rank))
        return;
    SR_FOR_LANES {
        SR_L(bounce) = SR_L(first_bounce) = 0;
        SR_L(st).n = 0;
        SR_L(kept) = 0u;
        while (SR_L(alive)) {
            sr_ray spawn;
            bool spawns = false;
            SR_L(alive) = sr_wave_trace(p, path, &SR_L(r), SR_L(bounce), split ? &spawn : (sr_ray *)0, &spawns);
            SR_L(bounce)++;
            if (path || !split) continue;   /* (constants on the GPU: those kernels carry no stack) */
            if (spawns) sr_split_keep(p, &SR_L(st), &spawn, SR_L(bounce));
            if (!SR_L(alive))
                SR_L(alive) = sr_wave_next_pending(w, count, &SR_L(kept), &SR_L(st), &SR_L(r), &SR_L(bounce),
                                                   &SR_L(first_bounce), p->scene.max_depth);
        }
    }
#if SR_WAVE_TIMELINE && SR_DEVICE_CODE
    sr_wave_timeline_end(*w, timeline_start, bounce);
#endif
    sr_stencil_write_back(w->first, SR_UNIFORM(i) >> 5, word, alive);   /* (every lane's alive is false) */
    sr_wave_end(w, order, rank, started);
    sr_wave_count(w, count, first_bounce, bounce, SR_LANE_REF(kept), p->scene.max_depth);
    sr_wave_count_kept(w, count, kept, !path && split);
}

#endif
