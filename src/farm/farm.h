/* farm.h: one frame's samples spread over several workers in this process: each worker is a
 * backend of its own (a CUDA device, or the CPU) with its own renderer (its stream, ray pool
 * and film), driven by a host thread of its own that makes every call to it.
 *
 * A frame's samples are cut into sample passes whose size depends on spp alone
 * (sr_farm_pass_samples), so the float sums inside a pass never depend on the split. Workers
 * take the next pass from a shared counter (work stealing: a fast device simply takes more),
 * render it into their cleared film, and their backend adds the film, where it was rendered,
 * to its own fixed-point sum of its passes (film_sum.h, kernels/core/pass_sum.h); each
 * worker's sum is read back once, at the frame's end, and merged into the frame's. Integer
 * additions give the same bits in any order. Random numbers are
 * keyed by pixel and sample (kernels/core/rng.h), never by worker: a frame over 1, 2 or 3
 * workers, or over MPI ranks (each taking passes from rank 0 as it goes), is the same image.
 *
 *     sr_farm *fm;
 *     sr_farm_open(&fm, &scene, specs, n, &frame, &err);     // backends + prepare, in parallel
 *     sr_farm_render(fm, &frame, NULL, &sum, &stats, &err);  // all passes of the frame
 *     sr_film_sum_mean(&sum, rgb);
 *     sr_farm_close(fm);
 *
 * A measurement build (-DSR_MEASURE=ON) reads two switches: $SR_FARM_SLOW_WORKER=I:F makes
 * worker I idle (F-1) times each pass's time after it (a worker F times slower), and
 * $SR_FARM_FIXED_SPLIT=1 hands worker i the passes i, i+n, ... instead of stealing
 * (docs/performance.md#several-workers). */
#ifndef SR_FARM_H
#define SR_FARM_H

#include <stdint.h>
#include "film_sum.h"
#include "../render/render.h"

#define SR_FARM_MAX_WORKERS 64u
/* Passes a frame is cut into: at least SR_FARM_TARGET_PASSES when spp allows, for work
 * stealing among dozens of workers and a short tail (the frame waits for the last pass), of
 * at most SR_FARM_MAX_PASS_SAMPLES samples, so that a pass ends often (progress, Ctrl-C's
 * partial image). A pass's own cost is small: its film is summed where it was rendered and
 * read back once a frame (film_sum.h). A function of spp alone: the image never depends on
 * the split. */
#define SR_FARM_TARGET_PASSES 256u
#define SR_FARM_MAX_PASS_SAMPLES 16u

/* One worker: a backend kind (SR_BACKEND_CUDA or SR_BACKEND_CPU, or AUTO: CUDA if a device is
 * present) and the CUDA device. The same device may be named twice: two workers share it. */
typedef sr_worker_device sr_worker_spec;   /* a worker's backend kind and device (backend.h) */

typedef struct sr_farm_worker_stats {
    char device_name[256];
    sr_backend_kind kind;
    uint32_t passes;        /* passes this worker rendered                                  */
    uint64_t samples;       /* samples per pixel in them                                    */
    uint64_t rays;          /* rays that entered intersect                                  */
    uint64_t bounce_rays[SR_MAX_DEPTH];
    uint64_t dropped;       /* the Whitted split's spawned rays with no room (render.h)     */
    double busy_s;          /* time spent rendering and reading back its passes             */
    double first_pass_s;    /* its first pass of the frame (the kernels' first launches)    */
    double read_s;          /* reading its backend's sum of its passes back, at the end     */
} sr_farm_worker_stats;

typedef struct sr_farm_stats {
    double seconds;         /* wall time of the frame                                       */
    double merge_s;         /* the workers' sums merged into the frame's, at its end          */
    uint64_t rays;
    uint64_t bounce_rays[SR_MAX_DEPTH];
    uint64_t dropped;
    uint64_t samples;       /* samples per pixel rendered here (this share)                 */
    uint32_t passes;
    uint32_t workers;
    sr_farm_worker_stats w[SR_FARM_MAX_WORKERS];
} sr_farm_stats;

typedef struct sr_farm sr_farm;

/* Samples per pass and passes of a frame of spp samples (a function of spp alone). */
uint32_t sr_farm_pass_samples(uint32_t spp);
uint32_t sr_farm_pass_count(uint32_t spp);

/* Open n workers (1..SR_FARM_MAX_WORKERS) on `scene` for frames like f: each creates its
 * backend and prepares its renderer on its own thread. The first failure, in worker order,
 * is returned (naming the worker) and nothing is left open. */
sr_status sr_farm_open(sr_farm **out, const sr_scene *scene, const sr_worker_spec *specs, uint32_t n,
                       const sr_frame *f, sr_error *err);
void sr_farm_close(sr_farm *fm);
uint32_t sr_farm_workers(const sr_farm *fm);
/* Worker i's backend, for messages ("NVIDIA H100 (device 0)"). */
const sr_backend *sr_farm_backend(const sr_farm *fm, uint32_t i);
/* Why worker i, asked for AUTO, runs on the CPU ("" when it runs on CUDA or was asked for the CPU). */
const char *sr_farm_why(const sr_farm *fm, uint32_t i);
/* Worker i's renderer, between frames (for the wave mask's measured way). */
const sr_renderer *sr_farm_renderer(const sr_farm *fm, uint32_t i);

/* Which of a frame's passes this process renders: all of them (no share), a fixed share (the
 * passes p with p % count == index), or, with `take` set, the passes take hands out as the
 * workers ask: MPI ranks taking the frame's passes from one counter (ranks.h), so that a faster
 * rank takes more. take(ctx, done) returns a pass, or a number >= the frame's passes when none
 * is left; `done` is the samples of the asking worker's pass before (0 at its first), and
 * others_done (may be NULL) the samples the other processes have told of, for the progress
 * bar. The workers' threads call take, several at once. */
typedef struct sr_farm_share {
    uint32_t index, count;
    uint32_t (*take)(void *ctx, uint32_t done);
    uint64_t (*others_done)(void *ctx);
    void *ctx;
} sr_farm_share;

/* Render this process's share of frame f (NULL: all of it), added into sum (sized
 * width*height*3 and cleared by the caller). Ctrl-C stops it between samples:
 * SR_INTERRUPTED, with the passes completed so far in sum (st->samples of them). A worker's
 * failure stops the others and is returned. f->render.tick hears how far it is. */
sr_status sr_farm_render(sr_farm *fm, const sr_frame *f, const sr_farm_share *share, sr_film_sum *sum,
                         sr_farm_stats *st, sr_error *err);

/* Everything render allocates on the host for frame f over these workers, checked before any
 * of it is (render.h's sr_check_render_memory, times the workers): each worker's BVH build,
 * attributes and copy of its backend's sum (and on the CPU its ray pool and that sum), the
 * frame's fixed-point sum, the image and its encoding for `out` (NULL: none). SR_ERR_INPUT with the numbers when it does not fit. */
sr_status sr_farm_check_memory(const sr_scene *scene, const sr_frame *f, const sr_worker_spec *specs, uint32_t n,
                               const char *out, sr_error *err);

/* Parse a --device list: "all", "cpu", a device number, or several of them joined by commas
 * ("0,2,3", "all,cpu", "0,0"); with --backend cpu (`backend`), each number is a CPU worker
 * ("0,0": two). `cuda_count` is the CUDA devices present (for "all" and for
 * checks; negative: none, with `why`). Fills specs (at most SR_FARM_MAX_WORKERS) and *n;
 * returns 0, or -1 with a message for a person in msg. */
#define SR_FARM_COUNT_UNKNOWN (-2)   /* cuda_count for checking a list's form alone: "all" is one
                                        worker, no device number is checked against a count  */
int sr_farm_parse_devices(const char *list, sr_backend_kind backend, int cuda_count, const char *why,
                          sr_worker_spec *specs, uint32_t *n, char *msg, size_t cap);

#endif
