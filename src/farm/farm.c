/* farm.c: sample passes over several workers in one process (farm.h). */
#include "farm.h"
#include "../base/test_hooks.h"
#include "../base/interrupt.h"
#include "../base/mem_limits.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct sr_farm_worker {
    struct sr_farm *fm;
    uint32_t index;
    sr_worker_spec spec;
    pthread_t thread;
    int started, be_open, prepared;
    sr_backend be;
    sr_renderer r;
    int64_t *sum_mem;         /* its backend's sum of its passes read back (host_alloc:
                                 page-locked on CUDA), width*height*3                          */
    size_t sum_n;
    sr_film_sum own;          /* that sum, as the frame's merge takes it                       */
    uint32_t last_samples;    /* samples of its last pass in this job (told when taking the next) */
    sr_status status;         /* the last job's outcome                                        */
    sr_error err;
    sr_farm_worker_stats st;
    char why[256];            /* why AUTO did not pick CUDA, or ""                            */
    double pass_s;            /* its mean time per pass in this frame (under the farm's mu)   */
    int active;               /* still taking this frame's passes (under the farm's mu)        */
#ifdef SR_MEASURE
    double slow;              /* $SR_FARM_SLOW_WORKER: this worker idles (slow-1) x each pass  */
#endif
} sr_farm_worker;

struct sr_farm {
    const sr_scene *scene;
    sr_farm_worker w[SR_FARM_MAX_WORKERS];
    uint32_t n;
    pthread_mutex_t mu;
    pthread_cond_t job_cv, done_cv;
    uint32_t gen, done;       /* the job's number; workers done with it                       */
    int quit;
    /* the job: frame f's passes, as share says, into sum */
    const sr_frame *f;
    uint32_t first, step, count;
    const sr_farm_share *share;
    atomic_uint next;         /* the next k a worker takes                                    */
    atomic_int failed;        /* a worker failed: the others stop at their next pass          */
    sr_film_sum *sum;         /* the frame's, which the workers' sums are merged into         */
    FILE *pass_log;           /* $SR_FARM_PASS_LOG: each pass and frame logged (under mu), or NULL */
    uint64_t samples_done;    /* under mu, for the progress bar                               */
#ifdef SR_MEASURE
    int fixed_split;          /* $SR_FARM_FIXED_SPLIT=1: no stealing, for measuring the balance */
#endif
};

uint32_t sr_farm_pass_samples(uint32_t spp)
{
    const uint32_t ps = spp <= SR_FARM_TARGET_PASSES ? 1u : (spp + SR_FARM_TARGET_PASSES - 1u) / SR_FARM_TARGET_PASSES;
    return ps < SR_FARM_MAX_PASS_SAMPLES ? ps : SR_FARM_MAX_PASS_SAMPLES;
}

uint32_t sr_farm_pass_count(uint32_t spp)
{
    const uint32_t ps = sr_farm_pass_samples(spp);
    return (spp + ps - 1u) / ps;
}

/* ---- a worker's thread: open, then jobs until quit ----------------------------------------- */

/* The host memory its backend's sum is read into, for frames like f (page-locked on CUDA: a
 * 4K sum's 200 MB come back at the bus's speed). */
static sr_status sr_worker_buffers(sr_farm_worker *w, const sr_frame *f)
{
    const size_t n = (size_t)f->width * f->height * 3u;
    if (w->sum_n == n) return SR_OK;
    if (w->sum_mem) w->be.ops->host_free(w->be.impl, w->sum_mem);
    w->sum_n = 0;
    if (!(w->sum_mem = (int64_t *)w->be.ops->host_alloc(w->be.impl, sizeof(int64_t) * n)))
        return sr_fail(&w->err, SR_ERR_RUNTIME, "out of host memory for a %ux%u film sum", f->width, f->height);
    w->sum_n = n;
    return SR_OK;
}

static sr_status sr_worker_open(sr_farm_worker *w, const sr_frame *f)
{
    w->why[0] = '\0';
    sr_status s = sr_backend_create(w->spec.kind, w->spec.device, &w->be, w->why, sizeof w->why, &w->err);
    if (s) return s;
    w->be_open = 1;
    snprintf(w->st.device_name, sizeof w->st.device_name, "%s", w->be.device_name);
    w->st.kind = w->be.kind;
    if ((s = sr_renderer_prepare(&w->r, w->fm->scene, &w->be, f, &w->err))) return s;
    w->prepared = 1;
    return sr_worker_buffers(w, f);
}

/* One pass: its samples rendered into the cleared film, which the backend adds to its own sum
 * of the job's passes where it rendered them (no copy to the host: a 4K pass's film is 100 MB). */
static sr_status sr_worker_pass(sr_farm_worker *w, const sr_frame *f, uint32_t pass)
{
    sr_farm *fm = w->fm;
    const uint32_t ps = sr_farm_pass_samples(f->spp);
    const uint32_t s0 = pass * ps, s1 = s0 + ps < f->spp ? s0 + ps : f->spp;
    const double t0 = sr_now();
    sr_render_stats rs;
    memset(&rs, 0, sizeof rs);
    sr_status s = sr_renderer_apply(&w->r, f, &w->err);
    if (!s && !w->st.passes) s = sr_renderer_clear_film_sum(&w->r, &w->err);   /* allocated after a resize */
    if (!s) s = sr_renderer_clear_film(&w->r, &w->err);
    for (uint32_t i = s0; !s && i < s1; i++) s = sr_render_sample(&w->r, f, i, &rs, &w->err);
    if (!s) s = sr_renderer_accumulate_film(&w->r, s1 - s0, &w->err);
    if (!s) s = sr_renderer_finish(&w->r, &w->err);   /* the pass's time is its work's */
    if (s) return s;
    if (fm->pass_log) {   /* which pass went where, when two splits disagree */
        pthread_mutex_lock(&fm->mu);
        fprintf(fm->pass_log, "pass %u samples %u-%u worker %u\n", pass, s0, s1, w->index);
        pthread_mutex_unlock(&fm->mu);
    }
#ifdef SR_MEASURE
    if (w->slow > 1.0) {   /* a deliberately slow worker, for measuring the balance */
        const double idle = (w->slow - 1.0) * (sr_now() - t0);
        struct timespec ts = { (time_t)idle, (long)((idle - (double)(time_t)idle) * 1e9) };
        while (nanosleep(&ts, &ts) && errno == EINTR) {}
    }
#endif
    pthread_mutex_lock(&fm->mu);
    fm->samples_done += s1 - s0;
    w->pass_s = (w->pass_s * w->st.passes + (sr_now() - t0)) / (w->st.passes + 1u);
    pthread_mutex_unlock(&fm->mu);
    if (!w->st.passes) w->st.first_pass_s = sr_now() - t0;
    w->st.busy_s += sr_now() - t0;
    w->last_samples = s1 - s0;
    w->st.passes++;
    w->st.samples += s1 - s0;
    w->st.rays += rs.rays;
    for (uint32_t k = 0; k < SR_MAX_DEPTH; k++) w->st.bounce_rays[k] += rs.bounce_rays[k];
    w->st.dropped += rs.dropped;
    return SR_OK;
}

/* The job's end: the backend's sum of the worker's passes read back (also when interrupted:
 * the completed passes count), for the frame's merge. */
static sr_status sr_worker_read_sum(sr_farm_worker *w, const sr_frame *f)
{
    sr_film_sum_reset(&w->own);
    if (!w->st.passes) return SR_OK;
    sr_status s = sr_worker_buffers(w, f);
    const double t0 = sr_now();
    if (!s) s = sr_renderer_read_film_sum(&w->r, w->sum_mem, &w->err);
    if (s) return s;
    w->st.read_s = sr_now() - t0;
    w->own.v = w->sum_mem;
    w->own.n = w->sum_n;
    w->own.samples = w->st.samples;
    w->own.passes = w->st.passes;
    return SR_OK;
}

/* Whether worker w should leave the frame's remaining passes to the others: when they would
 * finish all of them (at their mean pass times so far) before w finished one more, w taking
 * one only makes the frame wait for it (a CPU worker beside GPUs, at the frame's end). */
static int sr_worker_declines(sr_farm_worker *w)
{
    sr_farm *fm = w->fm;
    const uint32_t next = atomic_load(&fm->next);
    if (next >= fm->count) return 0;
    const double remaining = (double)(fm->count - next);
    double others = 0.0;   /* passes per second of the others still taking passes */
    int faster = 0;        /* one of them is faster: the fastest never declines, so the passes get done */
    pthread_mutex_lock(&fm->mu);
    const double mine = w->pass_s;
    for (uint32_t i = 0; i < fm->n; i++) {
        const sr_farm_worker *o = &fm->w[i];
        if (o == w || !o->active || !(o->pass_s > 0.0)) continue;
        others += 1.0 / o->pass_s;
        faster |= o->pass_s < mine;
    }
    /* Leaving, it stops counting as active in the same step: another worker deciding after
     * it must not count on it (two workers each leaving the last pass to the other left it
     * undone: a frame of one sample fewer, 1 run in 8 with 3 workers on one GPU). */
    const int declines = mine > 0.0 && faster && remaining / others < mine;
    if (declines) w->active = 0;
    pthread_mutex_unlock(&fm->mu);
    return declines;
}

/* The index of the next pass this worker renders, or UINT32_MAX when none is left. */
static uint32_t sr_worker_take(sr_farm_worker *w)
{
    sr_farm *fm = w->fm;
#ifdef SR_MEASURE
    if (fm->fixed_split) {   /* the alternative measured against: pass i, i+n, ... to worker i */
        const uint32_t k = w->index + w->st.passes * fm->n;
        return k < fm->count ? fm->first + k * fm->step : UINT32_MAX;
    }
#endif
    if (fm->share && fm->share->take) {
        const uint32_t p = fm->share->take(fm->share->ctx, w->last_samples);
        return p < sr_farm_pass_count(fm->f->spp) ? p : UINT32_MAX;
    }
    const uint32_t k = atomic_fetch_add(&fm->next, 1u);
    return k < fm->count ? fm->first + k * fm->step : UINT32_MAX;
}

static void sr_worker_job(sr_farm_worker *w)
{
    sr_farm *fm = w->fm;
    const sr_frame *f = fm->f;
    w->status = SR_OK;
    w->last_samples = 0;
    for (;;) {
        if (atomic_load(&fm->failed)) break;
        if (sr_interrupt_pending()) { w->status = SR_INTERRUPTED; break; }
        if (sr_worker_declines(w)) break;
        const uint32_t p = sr_worker_take(w);
        if (p == UINT32_MAX) break;
        if ((w->status = sr_worker_pass(w, f, p))) {
            if (w->status != SR_INTERRUPTED) atomic_store(&fm->failed, 1);
            break;
        }
    }
    pthread_mutex_lock(&fm->mu);
    w->active = 0;
    pthread_mutex_unlock(&fm->mu);
    if (w->status == SR_OK || w->status == SR_INTERRUPTED) {
        const sr_status m = sr_worker_read_sum(w, f);
        if (m) {
            w->status = m;
            atomic_store(&fm->failed, 1);
        }
    }
}

static void *sr_worker_main(void *arg)
{
    sr_farm_worker *w = (sr_farm_worker *)arg;
    sr_farm *fm = w->fm;
    w->status = sr_worker_open(w, fm->f);
    uint32_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&fm->mu);
        fm->done++;
        pthread_cond_broadcast(&fm->done_cv);
        seen++;
        while (fm->gen < seen && !fm->quit) pthread_cond_wait(&fm->job_cv, &fm->mu);
        const int quit = fm->quit;
        pthread_mutex_unlock(&fm->mu);
        if (quit) break;
        sr_worker_job(w);
    }
    /* The backend is closed by the thread that made every other call to it. */
    if (w->sum_mem) w->be.ops->host_free(w->be.impl, w->sum_mem);
    w->sum_mem = NULL;
    w->sum_n = 0;
    if (w->prepared) sr_renderer_free(&w->r);
    if (w->be_open) sr_backend_destroy(&w->be);
    w->prepared = w->be_open = 0;
    return NULL;
}

/* Wait until every worker is done with the current job, telling the frame's tick how far it is. */
static void sr_farm_wait(sr_farm *fm, const sr_frame *progress_of, uint64_t total, double t0)
{
    const sr_render_opts *o = progress_of && progress_of->render.tick && total ? &progress_of->render : NULL;
    const sr_farm_share *sh = fm->share;   /* the other ranks' finished samples too */
    pthread_mutex_lock(&fm->mu);
    while (fm->done < fm->n) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000000L;
        if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&fm->done_cv, &fm->mu, &ts);
        if (o) o->tick(o->tick_ctx, fm->samples_done + (sh && sh->others_done ? sh->others_done(sh->ctx) : 0u), total,
                       sr_now() - t0, 0);
    }
    const uint64_t done = fm->samples_done;
    pthread_mutex_unlock(&fm->mu);
    if (o) o->tick(o->tick_ctx, done, total, sr_now() - t0, 1);
}

/* Start job number gen+1 on every worker. */
static void sr_farm_start(sr_farm *fm)
{
    pthread_mutex_lock(&fm->mu);
    fm->done = 0;
    fm->gen++;
    pthread_cond_broadcast(&fm->job_cv);
    pthread_mutex_unlock(&fm->mu);
}

void sr_farm_close(sr_farm *fm)
{
    if (!fm) return;
    pthread_mutex_lock(&fm->mu);
    fm->quit = 1;
    pthread_cond_broadcast(&fm->job_cv);
    pthread_mutex_unlock(&fm->mu);
    for (uint32_t i = 0; i < fm->n; i++)
        if (fm->w[i].started) pthread_join(fm->w[i].thread, NULL);
    if (fm->pass_log) fclose(fm->pass_log);
    pthread_cond_destroy(&fm->job_cv);
    pthread_cond_destroy(&fm->done_cv);
    pthread_mutex_destroy(&fm->mu);
    free(fm);
}

sr_status sr_farm_open(sr_farm **out, const sr_scene *scene, const sr_worker_spec *specs, uint32_t n,
                       const sr_frame *f, sr_error *err)
{
    *out = NULL;
    if (n == 0 || n > SR_FARM_MAX_WORKERS)
        return sr_fail(err, SR_ERR_INPUT, "%u workers asked for; expected 1 to %u", n, SR_FARM_MAX_WORKERS);
    sr_farm *fm = (sr_farm *)calloc(1, sizeof *fm);
    if (!fm) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory");
    fm->scene = scene;
    fm->f = f;
    pthread_mutex_init(&fm->mu, NULL);
    pthread_cond_init(&fm->job_cv, NULL);
    pthread_cond_init(&fm->done_cv, NULL);
    /* A test switch: $SR_FARM_PASS_LOG=FILE appends, for every pass, its samples, its worker and
     * a hash of its film as read back (tests/README.md). */
    const char *pass_log = sr_test_hook(SR_HOOK_FARM_PASS_LOG);
    if (pass_log && *pass_log) fm->pass_log = fopen(pass_log, "a");
#ifdef SR_MEASURE
    int slow_index = -1;
    double slow = 1.0;
    const char *slow_env = sr_test_hook(SR_HOOK_FARM_SLOW_WORKER);   /* "I:FACTOR": worker I at 1/FACTOR speed */
    if (slow_env && sscanf(slow_env, "%d:%lf", &slow_index, &slow) != 2) slow_index = -1;
    const char *fixed = sr_test_hook(SR_HOOK_FARM_FIXED_SPLIT);
    fm->fixed_split = fixed && !strcmp(fixed, "1");
#endif
    sr_status s = SR_OK;
    for (uint32_t i = 0; i < n; i++) {
        sr_farm_worker *w = &fm->w[i];
        w->fm = fm;
        w->index = i;
        w->spec = specs[i];
#ifdef SR_MEASURE
        w->slow = (int)i == slow_index ? slow : 1.0;
#endif
        fm->n = i + 1;
        const int e = pthread_create(&w->thread, NULL, sr_worker_main, w);
        if (e) {
            fm->n = i;
            s = sr_fail(err, SR_ERR_RUNTIME, "could not start the thread of worker %u: %s", i, strerror(e));
            break;
        }
        w->started = 1;
    }
    /* Wait for every started worker's open (each counts itself done once). */
    pthread_mutex_lock(&fm->mu);
    while (fm->done < fm->n) pthread_cond_wait(&fm->done_cv, &fm->mu);
    pthread_mutex_unlock(&fm->mu);
    for (uint32_t i = 0; !s && i < fm->n; i++) {
        sr_farm_worker *w = &fm->w[i];
        if (w->status) {
            s = w->status;
            if (fm->n > 1) sr_fail(err, s, "worker %u (%s): %s", i, w->be_open ? w->be.device_name : "not opened", w->err.msg);
            else sr_fail(err, s, "%s", w->err.msg);
        }
    }
    if (s) {
        sr_farm_close(fm);
        return s;
    }
    fm->f = NULL;
    *out = fm;
    return SR_OK;
}

uint32_t sr_farm_workers(const sr_farm *fm) { return fm->n; }

const sr_backend *sr_farm_backend(const sr_farm *fm, uint32_t i) { return &fm->w[i].be; }

const char *sr_farm_why(const sr_farm *fm, uint32_t i) { return fm->w[i].why; }

const sr_renderer *sr_farm_renderer(const sr_farm *fm, uint32_t i) { return &fm->w[i].r; }

sr_status sr_farm_render(sr_farm *fm, const sr_frame *f, const sr_farm_share *share, sr_film_sum *sum,
                         sr_farm_stats *st, sr_error *err)
{
    sr_farm_stats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    const uint32_t passes = sr_farm_pass_count(f->spp), ps = sr_farm_pass_samples(f->spp);
    const uint32_t index = share && !share->take ? share->index : 0u, count = share && !share->take ? share->count : 1u;
    if (count == 0 || index >= count)
        return sr_fail(err, SR_ERR_RUNTIME, "share %u of %u: no such share", index, count);
    fm->f = f;
    fm->share = share;
    fm->first = index;
    fm->step = count;
    fm->count = passes > index ? (passes - index + count - 1u) / count : 0u;
    atomic_store(&fm->next, 0u);
    atomic_store(&fm->failed, 0);
    fm->sum = sum;
    fm->samples_done = 0;
    uint64_t total = share && share->take ? f->spp : 0u;   /* the samples of this share (with take: the frame's) */
    for (uint32_t k = 0; k < fm->count && !(share && share->take); k++) {
        const uint32_t p = index + k * count;
        total += (p + 1u) * ps <= f->spp ? ps : f->spp - p * ps;
    }
    for (uint32_t i = 0; i < fm->n; i++) {
        memset(&fm->w[i].st, 0, sizeof fm->w[i].st);
        fm->w[i].pass_s = 0.0;
        fm->w[i].active = 1;
    }
    for (uint32_t i = 0; i < fm->n; i++) {
        memcpy(fm->w[i].st.device_name, fm->w[i].be.device_name, sizeof fm->w[i].st.device_name);
        fm->w[i].st.kind = fm->w[i].be.kind;
    }
    const double t0 = sr_now();
    sr_farm_start(fm);
    /* While the workers render: the frame's sum written once, so that its pages exist before
     * the merge (a fresh 4K sum's 200 MB of first touches cost the merge 0.1-0.3 s). */
    if (!sum->passes) memset(sum->v, 0, sum->n * sizeof *sum->v);
    sr_farm_wait(fm, f, total, t0);
    /* The workers' sums into the frame's, in one sweep. */
    const sr_film_sum *own[SR_FARM_MAX_WORKERS];
    uint32_t k = 0;
    for (uint32_t i = 0; i < fm->n; i++)
        if (fm->w[i].own.passes && fm->w[i].own.n == sum->n) own[k++] = &fm->w[i].own;
    const double m0 = sr_now();
    sr_film_sum_merge_all(sum, own, k);
    st->merge_s = sr_now() - m0;
    if (fm->pass_log) {
        uint64_t h = 1469598103934665603ull;
        for (size_t j = 0; j < sum->n; j++) h = (h ^ (uint64_t)sum->v[j]) * 1099511628211ull;
        fprintf(fm->pass_log, "frame: %u sums merged, %u passes, %llu samples, sum %016llx\n", k, sum->passes,
                (unsigned long long)sum->samples, (unsigned long long)h);
        fflush(fm->pass_log);
    }
    st->seconds = sr_now() - t0;
    st->workers = fm->n;
    sr_status s = SR_OK;
    for (uint32_t i = 0; i < fm->n; i++) {
        const sr_farm_worker *w = &fm->w[i];
        st->w[i] = w->st;
        st->rays += w->st.rays;
        for (uint32_t b = 0; b < SR_MAX_DEPTH; b++) st->bounce_rays[b] += w->st.bounce_rays[b];
        st->dropped += w->st.dropped;
        /* A failure outranks a stop; the first failing worker in order is the one named. */
        if (w->status && w->status != SR_INTERRUPTED && (s == SR_OK || s == SR_INTERRUPTED)) {
            s = w->status;
            if (fm->n > 1) sr_fail(err, s, "worker %u (%s): %s", i, w->be.device_name, w->err.msg);
            else sr_fail(err, s, "%s", w->err.msg);
        } else if (w->status == SR_INTERRUPTED && s == SR_OK) {
            s = SR_INTERRUPTED;
            sr_fail(err, s, "interrupted");
        }
    }
    if (!s && sr_interrupt_pending()) s = sr_fail(err, SR_INTERRUPTED, "interrupted");
    /* Every pass of the share is in the sum, or the frame is not written. */
    if (!s && !(share && share->take) && sum->samples != total)
        s = sr_fail(err, SR_ERR_RUNTIME, "internal error: %llu of the frame's %llu samples were rendered",
                    (unsigned long long)sum->samples, (unsigned long long)total);
    st->samples = sum->samples;
    st->passes = sum->passes;
    fm->f = NULL;
    fm->sum = NULL;
    fm->share = NULL;
    return s;
}

sr_status sr_farm_check_memory(const sr_scene *scene, const sr_frame *f, const sr_worker_spec *specs, uint32_t n,
                               const char *out, sr_error *err)
{
    const uint64_t px = (uint64_t)f->width * f->height;
    uint64_t cpu = 0;
    for (uint32_t i = 0; i < n; i++) cpu += specs[i].kind != SR_BACKEND_CUDA;   /* AUTO may be the CPU */
    /* each worker: its BVH build and its backend's sum read back (page-locked on CUDA); a CPU
     * worker also its ray pool and its backend's sum */
    const uint64_t per_worker = sr_bvh_build_bytes(scene->prim_count + scene->instance_count) +
                                sr_bvh_build_bytes(scene->shared_prim_count) +
                                (scene->attrs ? (uint64_t)scene->prim_count * sizeof(sr_tri_attr) : 0) +
                                (scene->shared_attrs ? (uint64_t)scene->shared_prim_count * sizeof(sr_tri_attr) : 0) +
                                (uint64_t)scene->instance_count * sizeof(sr_instance) +
                                sr_scene_emitter_bound(scene) * sizeof(sr_emitter) + px * 24u;
    const uint64_t own_sums = cpu * px * 3u * sizeof(int64_t);
    const uint64_t pools = cpu * sr_cpu_pool_bytes(f->width, f->height, sr_pool_factor(scene));
    const uint64_t sum = px * 3u * sizeof(int64_t), rgb = px * 12u;
    const uint64_t enc = out ? sr_image_write_bytes(f->width, f->height, out) : 0;
    const uint64_t need = per_worker * n + own_sums + pools + sum + rgb + enc;
    char what[512], b1[32], b2[32], b3[32], b4[32];
    snprintf(what, sizeof what, "a %ux%u render over %u worker%s (%s each for its BVH build, emitter table and film sum, CPU ray "
             "pools %s, the frame's sums %s, image and output %s)", f->width, f->height, n, n == 1 ? "" : "s",
             sr_fmt_bytes(b1, sizeof b1, per_worker), sr_fmt_bytes(b2, sizeof b2, pools),
             sr_fmt_bytes(b3, sizeof b3, sum + own_sums), sr_fmt_bytes(b4, sizeof b4, rgb + enc));
    return sr_check_host_memory(need, what, "; use a smaller --width/--height or fewer CPU workers", err);
}

/* ---- --device lists ------------------------------------------------------------------------ */

static int sr_farm_add(sr_worker_spec *specs, uint32_t *n, sr_backend_kind kind, int device, char *msg, size_t cap)
{
    if (*n >= SR_FARM_MAX_WORKERS) {
        snprintf(msg, cap, "more than %u workers; expected at most %u", SR_FARM_MAX_WORKERS, SR_FARM_MAX_WORKERS);
        return -1;
    }
    specs[*n].kind = kind;
    specs[*n].device = device;
    (*n)++;
    return 0;
}

int sr_farm_parse_devices(const char *list, sr_backend_kind backend, int cuda_count, const char *why,
                          sr_worker_spec *specs, uint32_t *n, char *msg, size_t cap)
{
    *n = 0;
    const char *p = list;
    for (;;) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[32];
        if (len == 0 || len >= sizeof item) {
            snprintf(msg, cap, "'%s': %s; expected all, cpu or a device number, joined by commas (0,2,3)", list,
                     len ? "an entry is too long" : "an empty entry");
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (!strcmp(item, "cpu")) {
            if (backend == SR_BACKEND_CUDA) {
                snprintf(msg, cap, "'%s': cpu is a CPU worker, and --backend cuda asks for CUDA devices only", list);
                return -1;
            }
            if (sr_farm_add(specs, n, SR_BACKEND_CPU, 0, msg, cap)) return -1;
        } else if (!strcmp(item, "all")) {
            if (backend == SR_BACKEND_CPU) {
                snprintf(msg, cap, "'%s': all means every CUDA device, and --backend cpu uses none; for several CPU "
                                   "workers write cpu,cpu", list);
                return -1;
            }
            if (cuda_count == SR_FARM_COUNT_UNKNOWN) {
                if (sr_farm_add(specs, n, SR_BACKEND_CUDA, 0, msg, cap)) return -1;
                if (!end) break;
                p = end + 1;
                continue;
            }
            if (cuda_count <= 0) {
                snprintf(msg, cap, "'%s': all means every CUDA device, and there is none (%s)", list,
                         why && why[0] ? why : "no device");
                return -1;
            }
            for (int d = 0; d < cuda_count; d++)
                if (sr_farm_add(specs, n, SR_BACKEND_CUDA, d, msg, cap)) return -1;
        } else {
            char *stop;
            errno = 0;
            const unsigned long d = strtoul(item, &stop, 10);
            if (*stop || item[0] == '-' || item[0] == '+' || errno || d > 64) {
                snprintf(msg, cap, "'%s': '%s' is not a device; expected all, cpu or a device number (0..64), "
                                   "joined by commas (0,2,3)", list, item);
                return -1;
            }
            if (backend == SR_BACKEND_CPU) {   /* --backend cpu: each entry is a CPU worker */
                if (sr_farm_add(specs, n, SR_BACKEND_CPU, 0, msg, cap)) return -1;
                if (!end) break;
                p = end + 1;
                continue;
            }
            if (cuda_count >= 0 && (int)d >= cuda_count) {
                snprintf(msg, cap, "'%s': there is no CUDA device %lu (%d found: 0..%d; see 'stencilray info')", list, d,
                         cuda_count, cuda_count - 1);
                return -1;
            }
            if (sr_farm_add(specs, n, backend == SR_BACKEND_AUTO && cuda_count <= 0 && cuda_count != SR_FARM_COUNT_UNKNOWN
                            ? SR_BACKEND_AUTO : SR_BACKEND_CUDA,
                            (int)d, msg, cap))
                return -1;
        }
        if (!end) break;
        p = end + 1;
    }
    return 0;
}
