/* driver.h: the frame driver, the one place that decides how a frame's samples are scheduled:
 * its passes over this process's workers (the farm: farm.h) and over MPI ranks (ranks.h),
 * with the ranks' sums reduced onto rank 0, and the check that every rank renders the same
 * frame. The command line and the API (include/stencilray.h) render through it; only the
 * renderer and the backends below the farm call backend ops. */
#ifndef SR_DRIVER_H
#define SR_DRIVER_H

#include <stdint.h>
#include "farm.h"
#include "film_sum.h"

/* How one frame is driven. */
typedef struct sr_drive {
    int whole;             /* this rank renders every pass of the frame (one rank, or a frame
                              of a sequence handed to this rank); else the ranks share its
                              passes and rank 0 gets the job's sum                          */
    int time_reduce;       /* shared: wait for every rank before the reduce, the two timed
                              apart (sr_drive_result)                                       */
    /* Whole frames: called with the samples done before each pass and once at the end;
     * nonzero stops after the passes done (sr_drive_result.cancelled). NULL: none. */
    int (*progress)(void *user, uint32_t samples_done, uint32_t samples_total);
    void *user;
} sr_drive;

typedef struct sr_drive_result {
    double wait_s;         /* waiting for the other ranks' last passes (time_reduce)         */
    double reduce_s;       /* the ranks' sums to rank 0                                     */
    int cancelled;         /* the progress callback stopped the frame                       */
} sr_drive_result;

/* Render frame f as d says into sum (sized width*height*3, cleared by the caller) with this
 * process's stats in *fs; shared frames end with the job's sum and ray counts on rank 0.
 * Ctrl-C: SR_INTERRUPTED with the passes done so far in sum. */
sr_status sr_drive_frame(sr_farm *fm, const sr_frame *f, const sr_drive *d, sr_film_sum *sum, sr_farm_stats *fs,
                         sr_drive_result *res, sr_error *err);

/* Under MPI, whether every rank renders the frames rank 0 does: the same size, samples, depth,
 * integrator, seed, camera, exposure and tonemap, scene file bytes and primitives, and, for a
 * sequence (frames != NULL), the same frames, output name and EXR pixel type (each rank
 * writes its own frames). Collective; 0 when they agree (or one rank), else 2 after rank 0
 * has named the first rank and setting that differ, prefixed with `prefix`. */
int sr_drive_same_frame(const sr_frame *f, const sr_scene *scene, const char *scene_path, const uint32_t *frames,
                        uint32_t frame_count, const char *out, int exr_type, const char *prefix);

#endif
