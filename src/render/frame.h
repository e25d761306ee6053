/* frame.h: the settings of a frame, in one struct: the camera, the image's size, the samples
 * per pixel, the trace depth, the integrator, how bounces skip finished rays (the mask and its
 * knobs, the seed, the coherence sort), and how radiance becomes pixels (exposure, tonemap).
 *
 * Whoever asks for frames owns one (the render command, the viewer, the benchmark) and passes
 * it to the renderer with each frame or sample (src/render/render.h); nothing else holds a
 * copy that must be kept in step. The scene stays as parsed: sr_frame_from_scene gives the
 * scene file's values as the defaults, and options (options.h) change the frame, not the scene.
 *
 *     sr_frame f;
 *     sr_frame_from_scene(&f, &scene);
 *     f.depth = 3;
 *     sr_renderer_prepare(&r, &scene, &be, &f, &err);   // BVH, lights, uploads: once
 *     sr_render_image(&r, &f, rgb, NULL, &err);
 *     f.width = 1280;                                    // the next frame resizes: the pool,
 *     sr_render_image(&r, &f, rgb2, NULL, &err);         // film and masks, not the BVH
 *
 * It lives with the renderer, whose input it is; src/settings parses options into it. */
#ifndef SR_FRAME_H
#define SR_FRAME_H

#include <stdint.h>
#include "../backend/backend.h"
#include "../scene/scene.h"
#include "../../kernels/core/tonemap.h"

struct sr_stage_times;   /* render.h */

typedef enum sr_wave_order {
    SR_WAVE_ORDER_MEASURED = 0,   /* left to the program: one of the ways it measures */
    SR_WAVE_ORDER_LAUNCH,         /* the launch order (rows of tiles, top to bottom) */
    SR_WAVE_ORDER_SLOWEST,        /* the slowest of the previous such sample first   */
} sr_wave_order;

/* How the renderer runs a frame's samples; every choice gives the same image. */
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
    struct sr_stage_times *times; /* when not NULL: time every stage (adds to it)             */
    int keep_partial;      /* on Ctrl-C, leave the mean of the completed samples in rgb        */
    int bounce_counts;     /* wave mask: count the rays per bounce (sr_render_stats.bounce_rays:
                              --stats, the viewer's heads-up), else only their total, as the
                              megakernel does, which costs its warps less (wave_frame.h)   */
    /* The farm's progress (src/farm): while it waits for a frame's workers, about ten times a
     * second on the waiting thread, the samples done of total (every rank's when the ranks
     * share the frame) and the seconds since the frame started; once more with final 1 when
     * they are done. The caller draws what it likes (the render command's bar); NULL: none. */
    void (*tick)(void *ctx, uint64_t done, uint64_t total, double elapsed, int final);
    void *tick_ctx;
} sr_render_opts;

typedef struct sr_frame {
    sr_camera_desc camera;
    uint32_t width, height;   /* pixels; a change reallocates only what depends on the size */
    uint32_t spp;             /* samples per pixel of an image (sr_render_image); above 1,
                                 each sample is jittered inside its pixel                   */
    uint32_t depth;           /* the deepest bounce traced, 1..SR_MAX_DEPTH                  */
    uint32_t integrator;      /* sr_integrator                                              */
    sr_render_opts render;
    float exposure;           /* radiance times this before the tonemap                     */
    sr_tonemap tonemap;
} sr_frame;

void sr_render_opts_default(sr_render_opts *o);
/* Whether a sample with these options counts its rays per bounce: the stage masks always, the
 * wave mask when asked (bounce_counts), the megakernel never (only their total, in bounce 0's
 * place of sr_render_stats.bounce_rays). */
int sr_mask_counts_bounces(const sr_render_opts *o);
/* The scene file's camera, size, spp, depth and integrator; the defaults for the rest. */
void sr_frame_from_scene(sr_frame *f, const sr_scene *scene);

#endif
