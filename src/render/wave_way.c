/* wave_way.c: the wave mask's measured choice of how to run a sample. Its state is the
 * renderer's (render.h: wave_tuned, wave_pick, ...); the calls of the summaries and the
 * benchmark (sr_wave_way_name, sr_wave_measuring, ...) are declared in render.h. */
#include "wave_way.h"
#include "../../kernels/frames/sortkey.h"
#include "../../kernels/frames/wave.h"

/* The wave mask, left to the program (wave_dense 0, wave_order measured, no sort), measures
 * which way of running a sample is fastest for this scene, depth and integrator,
 * SR_WAVE_TUNE_RUNS samples each (their median counts), and keeps it: bouncing in registers
 * without repacking, in launch order or the slowest tiles first (kernels/frames/wave.h), repacking
 * half-empty warps, or the compact mask's compaction between bounces (which wins where paths
 * run long, cornell_path). Every way gives the same image. Measured again when the depth or
 * the integrator changes (the benchmark's sweep, the viewer). */
typedef struct sr_wave_way { sr_mask mask; uint32_t dense; sr_wave_order order; const char *name; } sr_wave_way;
static const sr_wave_way sr_wave_ways[] = {
    { SR_MASK_WAVE, 1u, SR_WAVE_ORDER_LAUNCH, "wave, no repacking" },
    { SR_MASK_WAVE, 1u, SR_WAVE_ORDER_SLOWEST, "wave, no repacking, slowest tiles first" },
    { SR_MASK_WAVE, 16u, SR_WAVE_ORDER_LAUNCH, "wave, repacking at 16" },
    { SR_MASK_COMPACT, 0u, SR_WAVE_ORDER_LAUNCH, "compact" },
};
#define SR_WAVE_WAY_SLOWEST 1u   /* the way above that takes the tiles slowest first */
#define SR_WAVE_WAYS (sizeof sr_wave_ways / sizeof sr_wave_ways[0])
_Static_assert(SR_WAVE_WAYS == sizeof ((sr_renderer *)0)->wave_tune_ms / sizeof ((sr_renderer *)0)->wave_tune_ms[0] &&
               SR_WAVE_TUNE_RUNS == sizeof ((sr_renderer *)0)->wave_tune_ms[0] / sizeof(float), "a timing per way and run");

/* Whether the measurement so far is for frame f's depth and integrator (its key). */
static int sr_wave_tuned_for(const sr_renderer *r, const sr_frame *f)
{
    return r->wave_tune_depth == f->depth && r->wave_tune_integrator == f->integrator;
}

/* Which way the next sample of frame f runs: the one being measured (*tuning set) or the one
 * kept. */
static uint32_t sr_wave_way_next(sr_renderer *r, const sr_frame *f, int *tuning)
{
    if (!sr_wave_tuned_for(r, f)) {
        r->wave_tuned = 0;
        r->wave_tune_depth = f->depth;
        r->wave_tune_integrator = f->integrator;
    }
    if (r->wave_tuned >= SR_WAVE_WAYS * SR_WAVE_TUNE_RUNS) return r->wave_pick;
    *tuning = 1;
    r->wave_warming = r->wave_ordered < SR_WAVE_ORDER_LAG;   /* until the tiles have an order */
    return r->wave_warming ? SR_WAVE_WAY_SLOWEST : r->wave_tuned % SR_WAVE_WAYS;
}

/* The median of a way's runs (sorted in place). */
static float sr_wave_way_median(float *ms)
{
    for (uint32_t i = 1; i < SR_WAVE_TUNE_RUNS; i++)
        for (uint32_t j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            const float t = ms[j];
            ms[j] = ms[j - 1];
            ms[j - 1] = t;
        }
    return 0.5f * (ms[(SR_WAVE_TUNE_RUNS - 1u) / 2u] + ms[SR_WAVE_TUNE_RUNS / 2u]);
}

uint32_t sr_wave_way_choose(float ms[][SR_WAVE_TUNE_RUNS], uint32_t depth)
{
    uint32_t best = 0, plain = 0;   /* the fastest way, and the fastest that keeps each ray in its warp (way 0 does) */
    float best_ms = sr_wave_way_median(ms[0]), plain_ms = best_ms;
    for (uint32_t c = 1; c < SR_WAVE_WAYS; c++) {
        const float m = sr_wave_way_median(ms[c]);
        if (m < best_ms) {
            best = c;
            best_ms = m;
        }
        if (sr_wave_ways[c].mask == SR_MASK_WAVE && sr_wave_ways[c].dense <= 1u && m < plain_ms) {
            plain = c;
            plain_ms = m;
        }
    }
    /* Moving rays between warps must win by more than three samples can tell apart: where
     * it gains little, its frames also vary more (a repacked path's last bounces start after
     * the first launch, so the longest one's chain lengthens the frame: the sphere field at
     * depth 50 repacked 0.61-0.70 ms a frame, 0.649-0.658 without), and the way that keeps
     * every path in its warp is the steadier choice. */
    if (!(best_ms < (1.0f - SR_WAVE_MOVE_MARGIN) * plain_ms)) best = plain;
    /* At depth 1 nothing is left to repack: repacking at 16 runs the same kernel as not
     * repacking, and the name should not depend on which of the two timings was luckier. */
    if (depth <= 1u && sr_wave_ways[best].mask == SR_MASK_WAVE && sr_wave_ways[best].order == SR_WAVE_ORDER_LAUNCH)
        best = 0;
    return best;
}

void sr_wave_way_timed(sr_renderer *r, float ms)
{
    if (r->wave_warming) return;   /* not a measurement: the order's first samples */
    r->wave_tune_ms[r->wave_tuned % SR_WAVE_WAYS][r->wave_tuned / SR_WAVE_WAYS] = ms;
    if (++r->wave_tuned < SR_WAVE_WAYS * SR_WAVE_TUNE_RUNS) return;
    r->wave_pick = sr_wave_way_choose(r->wave_tune_ms, r->wave_tune_depth);
}

uint32_t sr_wave_dense_of(const sr_render_opts *o)
{
    return o->wave_dense < 1u ? 1u : o->wave_dense > 32u ? 32u : o->wave_dense;
}

int sr_wave_chooses(const sr_render_opts *o)
{
    return o->mask == SR_MASK_WAVE && o->wave_dense == 0 && o->wave_order == SR_WAVE_ORDER_MEASURED && o->sort == SR_SORT_NONE;
}

const sr_render_opts *sr_wave_way_opts(sr_renderer *r, const sr_frame *f, sr_render_opts *way, int *tuning)
{
    if (!sr_wave_chooses(&f->render)) return &f->render;
    const sr_wave_way *k = &sr_wave_ways[sr_wave_way_next(r, f, tuning)];
    *way = f->render;
    way->mask = k->mask;
    way->wave_dense = k->dense;
    way->wave_order = k->order;
    return way;
}

int sr_wave_measuring(const sr_renderer *r, const sr_frame *f)
{
    if (!sr_wave_chooses(&f->render)) return 0;
    if (!sr_wave_tuned_for(r, f)) return 1;
    return r->wave_tuned < SR_WAVE_WAYS * SR_WAVE_TUNE_RUNS;
}

const char *sr_wave_way_name(const sr_renderer *r, const sr_render_opts *o)
{
    if (!sr_wave_chooses(o)) return NULL;
    if (r->wave_tuned < SR_WAVE_WAYS * SR_WAVE_TUNE_RUNS) return "measuring";
    return sr_wave_ways[r->wave_pick].name;
}

uint32_t sr_wave_dense_used(const sr_renderer *r, const sr_render_opts *o)
{
    if (o->mask != SR_MASK_WAVE) return 0;
    if (!sr_wave_chooses(o)) return sr_wave_dense_of(o);
    if (r->wave_tuned < SR_WAVE_WAYS * SR_WAVE_TUNE_RUNS) return 0;
    const sr_wave_way *w = &sr_wave_ways[r->wave_pick];
    return w->mask == SR_MASK_WAVE ? w->dense : 0;
}
