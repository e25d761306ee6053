/* wave_way.h: the renderer's side of the wave mask's measured choice of how to run a sample
 * (wave_way.c). */
#ifndef SR_WAVE_WAY_H
#define SR_WAVE_WAY_H

#include "render.h"

/* The options a sample of frame f runs with: f's own, or where they leave the way to the
 * wave mask's measurement (sr_wave_chooses), the way being measured (*tuning set: time the
 * sample and pass the time to sr_wave_way_timed) or the one kept, filled into *way. */
const sr_render_opts *sr_wave_way_opts(sr_renderer *r, const sr_frame *f, sr_render_opts *way, int *tuning);
/* A measuring sample's time, in milliseconds. */
void sr_wave_way_timed(sr_renderer *r, float ms);
/* The dense threshold a wave sample given options o runs with: o's, in 1..32 (0, the default
 * with --wave-order, never repacks). */
uint32_t sr_wave_dense_of(const sr_render_opts *o);

#endif
