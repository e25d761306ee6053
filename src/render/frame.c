/* frame.c: a frame's settings from a scene, and the defaults of the rest. */
#include "frame.h"
#include "../../kernels/frames/sortkey.h"

#include <string.h>

void sr_render_opts_default(sr_render_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mask = SR_MASK_WAVE;
    o->seed = 1;
    o->sort = SR_SORT_NONE;     /* the measured default (docs/performance.md, "Coherence sort") */
    o->sort_key = SR_SORT_KEY_DIR_MORTON;
    o->compact_below = 0.1f;    /* measured best or near it (docs/performance.md) */
    o->wave_dense = 0;          /* by integrator (kernels/frames/wave.h) */
    o->progress = 0;
}

int sr_mask_counts_bounces(const sr_render_opts *o)
{
    return o->mask == SR_MASK_WAVE ? o->bounce_counts : o->mask != SR_MASK_MEGAKERNEL;
}

void sr_frame_from_scene(sr_frame *f, const sr_scene *scene)
{
    memset(f, 0, sizeof *f);
    f->camera = scene->camera;
    f->width = scene->width;
    f->height = scene->height;
    f->spp = scene->spp;
    f->depth = scene->max_depth;
    f->integrator = scene->integrator;
    sr_render_opts_default(&f->render);
    f->exposure = 1.0f;
    f->tonemap = SR_TONEMAP_CLAMP;
}
