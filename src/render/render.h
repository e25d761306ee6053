/* render.h: the frame driver. Backend-neutral: it builds the BVH, uploads the scene, and
 * runs generate -> (intersect -> shade -> [compact]) per bounce for each sample. */
#ifndef SR_RENDER_H
#define SR_RENDER_H

#include "../backend/backend.h"
#include "bvh.h"
#include "../scene/scene.h"
#include "../../kernels/frames/wave.h"

/* Where the time of a sample went, in milliseconds, summed over samples (bench --breakdown).
 * Taken with CUDA events on the GPU, so the figures are device time between stages. */
typedef struct sr_stage_times {
    double generate;
    double intersect[SR_MAX_DEPTH], shade[SR_MAX_DEPTH], compact[SR_MAX_DEPTH];
    double sort[SR_MAX_DEPTH];   /* the coherence sort: keys, sort and gather       */
    double total;          /* first mark to last: the whole sample                          */
    double megakernel;
    int per_stage;         /* mark every stage (costs a little host time per launch); else
                            * only the sample's start and end are marked                  */
} sr_stage_times;

typedef enum sr_wave_order {
    SR_WAVE_ORDER_MEASURED = 0,   /* left to the program: one of the ways it measures */
    SR_WAVE_ORDER_LAUNCH,         /* the launch order (rows of tiles, top to bottom) */
    SR_WAVE_ORDER_SLOWEST,        /* the slowest of the previous such sample first   */
} sr_wave_order;

typedef struct sr_render_opts {
    sr_mask mask;
    uint32_t seed;
    float compact_below;   /* compact when the live fraction is below this: 1 always, 0 never */
    uint32_t wave_dense;   /* wave mask: a warp keeps bouncing while this many of its 32
                              lanes are alive (1..32; 1 never repacks); 0 = measure the ways
                              to run a sample on a few samples, keep the fastest (render.c) */
    int wave_order;        /* wave mask: sr_wave_order, the order warps take the tiles in
                              (kernels/frames/wave.h); given, or with wave_dense given, nothing is
                              measured (wave_dense 0 is then 1)                            */
    int sort;              /* sr_sort_algo (kernels/frames/sortkey.h): sort live rays by a coherence key
                              after every bounce (compacting first); SR_SORT_NONE: never      */
    int sort_key;          /* sr_sort_key: dir-morton or material                             */
    int progress;          /* progress bar on stderr once a render has run a second          */
    sr_stage_times *times; /* when not NULL: time every stage (adds to it)                     */
    int keep_partial;      /* on Ctrl-C, leave the mean of the completed samples in rgb        */
} sr_render_opts;

typedef struct sr_render_stats {
    double seconds;                     /* wall time of the samples, device work included */
    uint64_t rays;                      /* rays that entered intersect (camera + bounces)   */
    uint64_t bounce_rays[SR_MAX_DEPTH]; /* the same per bounce, summed over samples          */
    uint32_t samples;
    uint32_t compactions;
    uint32_t partial_samples;           /* after SR_INTERRUPTED with keep_partial: how many
                                           samples the mean left in rgb has (0: none)      */
} sr_render_stats;

typedef struct sr_renderer {
    sr_backend *be;
    sr_bvh bvh;
    sr_emitter *emitters; /* path mode's area lights, BVH order (view.emitters points here)  */
    sr_tri_attr *attrs;   /* per-prim normals / UVs, BVH order (view.attrs points here), or NULL */
    sr_scene_view view;   /* host pointers into the scene and the BVH                      */
    /* Live fraction after each bounce in the last sample: the compaction policy's forecast
     * for the next one, so that deciding costs no GPU round trip. */
    float live_after[SR_MAX_DEPTH];
    int have_history;
    /* The wave mask left to the program (render.c, sr_wave_way_next): samples measured so
     * far, the fastest way, and for which depth and integrator it was measured. */
    uint32_t wave_tuned, wave_pick, wave_tune_depth, wave_tune_integrator;
    float wave_tune_ms[4][SR_WAVE_TUNE_RUNS];   /* [way][run], milliseconds                */
    uint32_t wave_ordered;      /* samples launched slowest tiles first (kernels/frames/wave.h)   */
    int wave_warming;           /* this sample only gives the ordered way its order        */
} sr_renderer;

void sr_render_opts_default(sr_render_opts *o);

/* Build the BVH over scene's prims and upload everything to be. The scene must outlive r. */
sr_status sr_renderer_init(sr_renderer *r, const sr_scene *scene, sr_backend *be, sr_error *err);
void sr_renderer_free(sr_renderer *r);

/* Trace one sample of every pixel into the film (adds to it). */
sr_status sr_render_sample(sr_renderer *r, const sr_render_opts *o, uint32_t sample,
                           sr_render_stats *st, sr_error *err);

/* Clear the film, trace r->view.spp samples, and leave their mean in rgb (w*h*3).
 * Ctrl-C (interrupt.h) is checked between samples and bounces: the render stops and returns
 * SR_INTERRUPTED; with o->keep_partial, rgb then holds the mean of st->partial_samples
 * completed samples (none when 0). */
sr_status sr_render_image(sr_renderer *r, const sr_render_opts *o, float *rgb,
                          sr_render_stats *st, sr_error *err);

double sr_now(void);   /* monotonic seconds */

/* The way the wave mask ran samples with options o, for summaries: what it measured fastest
 * ("measuring", "compact", ...), NULL when o names no way (another mask, or --wave-dense). */
const char *sr_wave_way_name(const sr_renderer *r, const sr_render_opts *o);
/* The dense threshold the wave mask's samples run with under options o (1..32; 1 never
 * repacks): the one o gives, or the measured way's; 0 where that way is the compact mask,
 * while it is still measuring, or for another mask. */
uint32_t sr_wave_dense_used(const sr_renderer *r, const sr_render_opts *o);
/* Which way the measuring keeps (an index into render.c's ways), given each way's timings
 * [way][run] at a depth: the fastest by its median, except that a way moving rays between
 * warps (repacking, compaction) must beat the fastest that does not by SR_WAVE_MOVE_MARGIN.
 * Sorts each way's runs in place. */
#define SR_WAVE_MOVE_MARGIN 0.05f
uint32_t sr_wave_way_choose(float ms[][SR_WAVE_TUNE_RUNS], uint32_t depth);
/* Whether options o leave the way to run a sample to the wave mask's measurement, and whether
 * the next sample with them would still be one of its measuring samples. */
int sr_wave_chooses(const sr_render_opts *o);
int sr_wave_measuring(const sr_renderer *r, const sr_render_opts *o);

/* Everything `render` allocates on the host after the scene is loaded: the BVH build, the
 * CPU backend's pool and film (when be_kind is CPU), the image read back and its encoding
 * for `out` (NULL: no file). SR_ERR_INPUT with the numbers when it does not fit. */
sr_status sr_check_render_memory(const sr_scene *scene, sr_backend_kind be_kind, const char *out,
                                 sr_error *err);

#endif
