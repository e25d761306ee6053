/* wave.h: the wave mask's policy, the same for both backends (the frames are in wave.cu and
 * backend_cpu.c).
 *
 * A sample runs in rounds. Round 0 generates the camera rays (tiled slot order, stages.h)
 * and each warp keeps bouncing its rays while its ballot shows at least `dense_min` of 32
 * lanes alive. A warp that turns sparse moves its live rays by ballot partitioning into the
 * next round's queue, packed, and writes back an empty stencil word. Round r does the same
 * over queue r; the last round runs every warp to the end of its paths, as the megakernel
 * would. */
#ifndef SR_WAVE_H
#define SR_WAVE_H

#include "compat.h"

#define SR_WAVE_DENSE_DEFAULT 16u   /* lanes: measured on the H200 (README, "The wave mask") */
#define SR_WAVE_ROUNDS 2u           /* rounds after round 0; the last finishes every path    */
#define SR_WAVE_ROUNDS_MAX 8u
#define SR_WAVE_CTL (2u * SR_WAVE_ROUNDS_MAX + 2u)

#endif
