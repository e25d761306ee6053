/* wave_timeline.h: the warp timeline of a measurement build (kernels/frames/wave.h) as CSV. */
#ifndef SR_WAVE_TIMELINE_FILE_H
#define SR_WAVE_TIMELINE_FILE_H

#include <stdint.h>
#include "../base/status.h"
#include "../render/render.h"

/* Write `warps` records of SR_WAVE_TIMELINE_WORDS words (kernels/frames/wave.h) to `path` as CSV
 * (warp, start_ns, ran_ns, sm, deepest_bounce), whole or not at all; starts count from the
 * earliest record's, and records with no start (warps that ran no tile) are left out. */
sr_status sr_wave_timeline_write(const char *path, const uint32_t *records, uint32_t warps, sr_error *err);

#if SR_MEASURE
/* With $SR_WAVE_TIMELINE=FILE set, the last wave frame's warp records of backend `be` (a
 * width x height image) to FILE, by sr_wave_timeline_write; a failure is reported on stderr,
 * not returned (a measurement, not the run's result). `stencilray bench` calls it at its end. */
void sr_wave_timeline_report(sr_renderer *r, uint32_t width, uint32_t height);
#endif

#endif
