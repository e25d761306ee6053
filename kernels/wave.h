/* wave.h: the wave mask's policy, the same for both backends (the frames are in wave.cu and
 * backend_cpu.c).
 *
 * One thread per camera ray (tiled slot order, stages.h); each warp keeps bouncing its rays
 * while its ballot shows at least `dense_min` of 32 lanes alive. A warp that turns sparse
 * moves its live rays by ballot partitioning into a queue, packed, and writes back an empty
 * stencil word. The warp whose rays fill a 32-ray chunk of the queue bounces that chunk next,
 * the same way (rays that go sparse again are queued again); a one-warp launch then runs
 * the last, partial chunk to its end. */
#ifndef SR_WAVE_H
#define SR_WAVE_H

#include "compat.h"

/* Samples per way when the renderer measures how to run the wave mask (src/render.c). */
#define SR_WAVE_TUNE_RUNS 2u

/* The queue's counters (sr_wave_args.ctl): entries reserved. */
#define SR_WAVE_QCOUNT 0u
#define SR_WAVE_CTL 4u

/* The queue holds as many rays as the pool; a warp that finds it full runs its rays to the
 * end where they are. SR_WAVE_QUEUE_LIMIT=N (tests) makes it N entries, to exercise that. */
#define SR_WAVE_QUEUE_LIMIT_ENV "SR_WAVE_QUEUE_LIMIT"

#endif
