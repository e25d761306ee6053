/* render.h: the frame driver. Backend-neutral: it prepares a scene once (the BVH, the light
 * tables, the uploads) and runs generate -> (intersect -> shade -> [compact]) per bounce for
 * each sample of a frame, whose settings (camera, size, depth, spp, integrator, mask, seed:
 * src/render/frame.h) come with every call. The applications talk to the renderer only:
 * it is the one caller of the backend's operations, outside the backends themselves. */
#ifndef SR_RENDER_H
#define SR_RENDER_H

#include "../backend/backend.h"
#include "bvh.h"
#include "instances.h"
#include "../scene/scene.h"
#include "frame.h"
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

typedef struct sr_render_stats {
    double seconds;                     /* wall time of the samples, device work included */
    uint64_t rays;                      /* rays that entered intersect (camera + bounces)   */
    uint64_t bounce_rays[SR_MAX_DEPTH]; /* the same per bounce, summed over samples          */
    uint32_t samples;
    uint32_t compactions;
    uint32_t partial_samples;           /* after SR_INTERRUPTED with keep_partial: how many
                                           samples the mean left in rgb has (0: none)      */
    uint64_t dropped;                   /* the Whitted split's spawned rays dropped for want of
                                           room in the pool, queue or stack (whitted.h)     */
} sr_render_stats;

typedef struct sr_renderer {
    sr_backend *be;
    /* Where prepare's time went, in seconds (wall): the BVH build and the upload to the
     * backend (the light and attribute tables, the rest, are not counted in either). */
    double build_s, upload_s;
    sr_bvh bvh;
    sr_emitter *emitters; /* path mode's area lights, BVH order (view.emitters points here)  */
    sr_tri_attr *attrs;   /* per-prim normals / UVs, BVH order (view.attrs points here), or NULL */
    sr_levels levels;     /* a scene with instances: the two levels joined (view.prims, nodes
                             and attrs point there), else empty                             */
    sr_scene_view view;   /* the scene as uploaded: host pointers into the scene and the BVH,
                             and its scene-wide scalars; the per-frame fields stay 0 (each
                             frame's settings go to the backend's state)                    */
    /* The build of the kernels the scene runs on (backend.h, sr_build): scene_build, decided
     * at prepare, is the narrowest the scene fits for the path integrator; build, set with
     * each frame's settings, the one for its integrator. Every launch names it. */
    sr_build scene_build, build;
    /* A cache, not an owner: the image size the backend's pool was last sized for (0 x 0:
     * none), so that a frame of the same size reallocates nothing. */
    uint32_t sized_width, sized_height;
    /* Live fraction after each bounce in the last sample: the compaction policy's forecast
     * for the next one, so that deciding costs no GPU round trip. */
    float live_after[SR_MAX_DEPTH];
    int have_history;
    /* The wave mask left to the program (wave_way.c): samples measured so
     * far and the fastest way. wave_tune_depth and wave_tune_integrator are the measurement's
     * key, the frame's depth and integrator it was measured at (a frame with others measures
     * again), not settings. */
    uint32_t wave_tuned, wave_pick, wave_tune_depth, wave_tune_integrator;
    float wave_tune_ms[4][SR_WAVE_TUNE_RUNS];   /* [way][run], milliseconds                */
    uint32_t wave_ordered;      /* samples asked for slowest tiles first (kernels/frames/wave.h)  */
    /* The wave mask's schedule on the backend's pool, counted here and passed in every wave
     * launch (backend.h): the parity of its stencils and queue counters (wave samples run,
     * mod 2) and the order's slot (samples run in the order of the tiles, mod
     * SR_WAVE_ORDER_SLOTS). A new pool starts both at 0, as the backend's buffers do. */
    uint32_t wave_parity, wave_order_slot;
    int wave_launch_order;      /* a measurement build's $SR_WAVE_LAUNCH_ORDER: never ordered  */
    /* The wave drain's grid by build and integrator (path 1), the backend's answer
     * (resident_blocks), asked at the first sample that drains: 0 until then. */
    uint32_t wave_drain_blocks[SR_BUILDS][2];
    uint8_t wave_drain_asked[SR_BUILDS][2];
    int wave_warming;           /* this sample only gives the ordered way its order        */
    int has_glass;              /* the scene has glass: Whitted frames run the split        */
    uint32_t split_budget;      /* the split's rays a lane keeps and a launch appends, at most:
                                   unlimited (UINT32_MAX) but for the test switch
                                   $SR_SPLIT_BUDGET (render.c)                               */
} sr_renderer;

/* Build what rendering `scene` needs, once: the BVH over its prims, the emitter table, the
 * attributes in BVH order, the upload of all of it (textures included) to be, and the ray pool
 * for frame f's size. The scene must outlive r and is not changed. On failure r is left empty
 * (nothing to free). */
sr_status sr_renderer_prepare(sr_renderer *r, const sr_scene *scene, sr_backend *be, const sr_frame *f,
                              sr_error *err);
void sr_renderer_free(sr_renderer *r);

/* Make the backend ready for frame f: a size other than the last one reallocates what depends
 * on the size (ray pool, film, masks; the film is then undefined, clear it), never the BVH or
 * the uploaded scene; the camera, depth, spp and integrator are set for the next launches.
 * sr_render_sample and sr_render_image call it; the viewer calls it before clearing its film. */
sr_status sr_renderer_apply(sr_renderer *r, const sr_frame *f, sr_error *err);

/* Trace one sample of every pixel of frame f into the film (adds to it). */
sr_status sr_render_sample(sr_renderer *r, const sr_frame *f, uint32_t sample,
                           sr_render_stats *st, sr_error *err);

/* Clear the film, trace f->spp samples, and leave their mean in rgb (w*h*3).
 * Ctrl-C (interrupt.h) is checked between samples and bounces: the render stops and returns
 * SR_INTERRUPTED; with f->render.keep_partial, rgb then holds the mean of st->partial_samples
 * completed samples (none when 0). */
sr_status sr_render_image(sr_renderer *r, const sr_frame *f, float *rgb,
                          sr_render_stats *st, sr_error *err);

/* The film, for the viewer's display (src/viewer/display.c): zero it; its sums times `scale`
 * into rgb on the host, or into device memory at dst (queued); tonemapped as RGBA8 into a CUDA
 * surface or device rows (backend.h, resolve_display and resolve_display_rows; queued). The
 * backend's queue (a cudaStream_t, NULL on the CPU), and a wait for the work queued on it. */
sr_status sr_renderer_clear_film(sr_renderer *r, sr_error *err);
sr_status sr_renderer_read_film(sr_renderer *r, float *rgb, float scale, sr_error *err);
sr_status sr_renderer_resolve_film(sr_renderer *r, float *dst, float scale, sr_error *err);
sr_status sr_renderer_resolve_display(sr_renderer *r, uint64_t surface, uint32_t width, uint32_t height, float scale,
                                      float exposure, sr_tonemap tonemap, sr_error *err);
sr_status sr_renderer_resolve_display_rows(sr_renderer *r, void *rows, uint32_t width, uint32_t height, float scale,
                                           float exposure, sr_tonemap tonemap, sr_error *err);
void *sr_renderer_queue(sr_renderer *r);
/* The backend's own fixed-point sum of the sample passes it rendered (the farm's, src/farm;
 * kernels/core/pass_sum.h): zero it (allocated at the first clear after a size change); add
 * the film, the sums of a pass of `samples` samples, into it (queued: a pass costs no copy);
 * read it (width * height * 3 int64, after the queued work). */
sr_status sr_renderer_clear_film_sum(sr_renderer *r, sr_error *err);
sr_status sr_renderer_accumulate_film(sr_renderer *r, uint32_t samples, sr_error *err);
sr_status sr_renderer_read_film_sum(sr_renderer *r, int64_t *sum, sr_error *err);
/* Buffer b copied to host memory (backend.h, sr_buffer), after the queued work. */
sr_status sr_renderer_read(sr_renderer *r, sr_buffer b, void *host, sr_error *err);
sr_status sr_renderer_finish(sr_renderer *r, sr_error *err);
/* Timing marks in the backend's queue (backend.h, mark and elapsed_ms), for a caller's own
 * timings: ids below SR_MAX_MARKS that the samples do not use (from 0 up, and the last two). */
sr_status sr_renderer_mark(sr_renderer *r, uint32_t id, sr_error *err);
sr_status sr_renderer_elapsed_ms(sr_renderer *r, uint32_t a, uint32_t b, float *ms, sr_error *err);

double sr_now(void);   /* monotonic seconds */

/* The way the wave mask ran samples with options o, for summaries: what it measured fastest
 * ("measuring", "compact", ...), NULL when o names no way (another mask, or --wave-dense). */
const char *sr_wave_way_name(const sr_renderer *r, const sr_render_opts *o);
/* The dense threshold the wave mask's samples run with under options o (1..32; 1 never
 * repacks): the one o gives, or the measured way's; 0 where that way is the compact mask,
 * while it is still measuring, or for another mask. */
uint32_t sr_wave_dense_used(const sr_renderer *r, const sr_render_opts *o);
/* Which way the measuring keeps (an index into wave_way.c's ways), given each way's timings
 * [way][run] at a depth: the fastest by its median, except that a way moving rays between
 * warps (repacking, compaction) must beat the fastest that does not by SR_WAVE_MOVE_MARGIN.
 * Sorts each way's runs in place. */
#define SR_WAVE_MOVE_MARGIN 0.05f
uint32_t sr_wave_way_choose(float ms[][SR_WAVE_TUNE_RUNS], uint32_t depth);
/* Whether options o leave the way to run a sample to the wave mask's measurement, and whether
 * the next sample of frame f would still be one of its measuring samples. */
int sr_wave_chooses(const sr_render_opts *o);
int sr_wave_measuring(const sr_renderer *r, const sr_frame *f);

/* The emitter table's entries at most (sr_renderer_prepare): the scene's emissive bounded prims
 * plus, per instance, its mesh's emissive triangles; counted without building anything, so that
 * the table (sizeof(sr_emitter) each) is budgeted before it is allocated. */
uint64_t sr_scene_emitter_bound(const sr_scene *scene);

/* Everything `render` allocates on the host after the scene is loaded: the BVH build, the
 * CPU backend's pool and film (when be_kind is CPU) and the image read back for frame f, and
 * its encoding for `out` (NULL: no file). SR_ERR_INPUT with the numbers when it does not fit. */
/* A pool half's size in images for this scene: the Whitted split's room when it has glass. */
uint32_t sr_pool_factor(const sr_scene *scene);

sr_status sr_check_render_memory(const sr_scene *scene, const sr_frame *f, sr_backend_kind be_kind, const char *out,
                                 sr_error *err);

#endif
