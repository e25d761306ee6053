/* wave_timeline.h: the warp timeline of a measurement build (kernels/frames/wave.h) as CSV. */
#ifndef SR_WAVE_TIMELINE_FILE_H
#define SR_WAVE_TIMELINE_FILE_H

#include <stdint.h>
#include "../base/status.h"

/* Write `warps` records of SR_WAVE_TIMELINE_WORDS words (kernels/frames/wave.h) to `path` as CSV
 * (warp, start_ns, ran_ns, sm, deepest_bounce), whole or not at all; starts count from the
 * earliest record's, and records with no start (warps that ran no tile) are left out. */
sr_status sr_wave_timeline_write(const char *path, const uint32_t *records, uint32_t warps, sr_error *err);

#endif
