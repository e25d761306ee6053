/* driver.c: the frame driver (driver.h). */
#include "driver.h"
#include "ranks.h"

#include <pthread.h>
#include <string.h>

/* A whole frame's passes in order, through the progress callback: the farm's take hook
 * (farm.h), which the workers' threads call, so under a lock. */
typedef struct sr_drive_run {
    pthread_mutex_t mu;
    uint32_t next, passes, done, spp;
    int cancelled;
    const sr_drive *d;
} sr_drive_run;

static uint32_t sr_drive_take(void *ctx, uint32_t last_samples)
{
    sr_drive_run *run = (sr_drive_run *)ctx;
    pthread_mutex_lock(&run->mu);
    run->done += last_samples;
    uint32_t p = UINT32_MAX;
    if (!run->cancelled && run->d->progress(run->d->user, run->done, run->spp)) run->cancelled = 1;
    if (!run->cancelled && run->next < run->passes) p = run->next++;
    pthread_mutex_unlock(&run->mu);
    return p;
}

static sr_status sr_drive_whole(sr_farm *fm, const sr_frame *f, const sr_drive *d, sr_film_sum *sum,
                                sr_farm_stats *fs, sr_drive_result *res, sr_error *err)
{
    if (!d->progress) return sr_farm_render(fm, f, NULL, sum, fs, err);
    sr_drive_run run = { PTHREAD_MUTEX_INITIALIZER, 0, sr_farm_pass_count(f->spp), 0, f->spp, 0, d };
    const sr_farm_share share = { 0, 1, sr_drive_take, NULL, &run };
    const sr_status s = sr_farm_render(fm, f, &share, sum, fs, err);
    pthread_mutex_destroy(&run.mu);
    res->cancelled = run.cancelled;
    return s;
}

/* This rank's passes of a shared frame: those rank 0 hands it as its workers ask (a fixed
 * interleave where MPI cannot take calls from the workers' threads). */
static sr_status sr_drive_share(sr_farm *fm, const sr_frame *f, sr_film_sum *sum, sr_farm_stats *fs, sr_error *err)
{
    sr_rank_passes *rp;
    sr_status s = sr_ranks_passes_begin(&rp, sr_farm_pass_count(f->spp), err);
    if (s) return s;
    sr_farm_share share = { (uint32_t)sr_ranks_rank(), (uint32_t)sr_ranks_size(), NULL, NULL, NULL };
    if (sr_ranks_passes_dynamic(rp)) {
        share.take = sr_ranks_passes_take;
        share.others_done = sr_ranks_passes_others_done;
        share.ctx = rp;
    }
    s = sr_farm_render(fm, f, &share, sum, fs, err);
    sr_ranks_passes_end(rp);
    return s;
}

/* The job's totals on rank 0: the film sums and the ray counts of every rank. */
static sr_status sr_drive_reduce(sr_film_sum *sum, sr_farm_stats *fs, sr_error *err)
{
    if (sr_ranks_size() < 2) return SR_OK;
    sr_status s = sr_ranks_sum_to_root(sum->v, sum->n, err);
    sum->samples = sr_ranks_sum_u64(sum->samples);
    fs->rays = sr_ranks_sum_u64(fs->rays);
    for (uint32_t b = 0; b < SR_MAX_DEPTH; b++) fs->bounce_rays[b] = sr_ranks_sum_u64(fs->bounce_rays[b]);
    fs->dropped = sr_ranks_sum_u64(fs->dropped);
    return s;
}

sr_status sr_drive_frame(sr_farm *fm, const sr_frame *f, const sr_drive *d, sr_film_sum *sum, sr_farm_stats *fs,
                         sr_drive_result *res, sr_error *err)
{
    memset(res, 0, sizeof *res);
    sr_status s = d->whole ? sr_drive_whole(fm, f, d, sum, fs, res, err) : sr_drive_share(fm, f, sum, fs, err);
    if (s) return s;
    sr_ranks_test_kill();   /* a test's rank that dies here (ranks.h) */
    if (d->whole) return SR_OK;
    /* Timed apart: waiting for the other ranks' last passes, then the sums' reduction. */
    const double t_wait = sr_now();
    if (d->time_reduce && sr_ranks_size() > 1) sr_ranks_barrier();
    const double t_reduce = sr_now();
    s = sr_drive_reduce(sum, fs, err);
    res->reduce_s = sr_now() - t_reduce;
    res->wait_s = t_reduce - t_wait;
    return s;
}

int sr_drive_same_frame(const sr_frame *f, const sr_scene *scene, const char *scene_path, const uint32_t *frames,
                        uint32_t frame_count, const char *out, int exr_type, const char *prefix)
{
    if (sr_ranks_size() < 2) return 0;
    const uint64_t h0 = SR_RANKS_HASH_START;
    const uint64_t look = sr_ranks_hash(h0, &f->camera, sizeof f->camera);
    const uint64_t tone = sr_ranks_hash(sr_ranks_hash(h0, &f->exposure, sizeof f->exposure), &f->tonemap, sizeof f->tonemap);
    const uint64_t prims = (uint64_t)scene->prim_count + scene->shared_prim_count + scene->plane_count;
    const uint64_t listed = frames ? sr_ranks_hash(h0, frames, sizeof(uint32_t) * frame_count) : 0;
    const uint64_t written = frames ? sr_ranks_hash(sr_ranks_hash(h0, out, strlen(out)), &exr_type, sizeof exr_type) : 0;
    const sr_rank_fact facts[] = {
        { "width", f->width, 0 }, { "height", f->height, 0 }, { "spp", f->spp, 0 }, { "depth", f->depth, 0 },
        { "integrator", f->integrator, 1 }, { "seed", f->render.seed, 0 }, { "camera", look, 1 },
        { "exposure or tonemap", tone, 1 }, { "scene file's bytes", sr_ranks_hash_file(scene_path), 1 },
        { "scene's primitive count", prims, 0 }, { "list of frames to render (--frames)", listed, 1 },
        { "-o or --exr-type (--frames)", written, 1 },
    };
    return sr_ranks_same_frame(facts, (int)(sizeof facts / sizeof facts[0]), prefix) ? 2 : 0;
}
