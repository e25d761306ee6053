/* wave.h: the wave mask's policy, the same for both backends (the frames are in wave.cu and
 * backend_cpu.c).
 *
 * A sample runs in rounds. Round 0 generates the camera rays (tiled slot order, stages.h)
 * and each warp keeps bouncing its rays in one kernel while its ballot shows at least
 * `dense_min` of 32 lanes alive; a warp that turns sparse writes its stencil word back and
 * leaves its survivors in the pool. Ballot partitioning then packs the survivors into the
 * other pool half, and the next round does the same over the dense pool. A finishing round
 * runs every warp to the end of its paths, as the megakernel would. */
#ifndef SR_WAVE_H
#define SR_WAVE_H

#include "compat.h"

#define SR_WAVE_DENSE_DEFAULT 16u   /* lanes: measured on the H200 (README, "The wave mask") */
#define SR_WAVE_ROUNDS 3u           /* the last round finishes every path                    */
#define SR_WAVE_FINISH_LIVE 8192u   /* fewer live rays than this: finish them in one round   */

/* Does round `round` (1 = the first after the camera round) finish its paths? */
SR_HD bool sr_wave_finishes(uint32_t round, uint32_t live)
{
    return round >= SR_WAVE_ROUNDS || live <= SR_WAVE_FINISH_LIVE;
}

#endif
