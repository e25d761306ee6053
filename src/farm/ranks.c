/* ranks.c: the MPI job, or one process (ranks.h). */
#define _GNU_SOURCE   /* memfd_create */
#include "ranks.h"
#include "../base/test_hooks.h"
#include "film_sum.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#ifdef SR_HAVE_MPI
#include <mpi.h>
#endif

static int sr_rank, sr_size = 1, sr_mpi_on;
static int sr_mpi_threads;   /* threads other than the main one may call MPI, one at a time */
static int sr_held_fd = -1, sr_saved_fd = -1;   /* the memory file standard error goes to; the real one */

int sr_ranks_rank(void) { return sr_rank; }
int sr_ranks_size(void) { return sr_size; }

/* Started by mpirun (Open MPI, or any PMIx launcher)? */
static int sr_launched_by_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

sr_status sr_ranks_init(int *argc, char ***argv, sr_error *err)
{
#ifdef SR_HAVE_MPI
    if (!sr_launched_by_mpirun()) return SR_OK;
    int provided = 0;
    /* Serialized: besides the main thread, the workers ask rank 0 for passes (one at a time,
     * under a lock) and rank 0's pass server answers them, while the main thread waits. */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        return sr_fail(err, SR_ERR_RUNTIME, "could not join the MPI job (MPI_Init_thread failed)");
    sr_mpi_on = 1;
    sr_mpi_threads = provided >= MPI_THREAD_SERIALIZED;
    MPI_Comm_rank(MPI_COMM_WORLD, &sr_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &sr_size);
#else
    (void)argc;
    (void)argv;
    /* Started by mpirun without MPI built in: N copies would each render the whole frame and
     * write the same file. Refused, said by the first copy only. */
    const char *size = getenv("OMPI_COMM_WORLD_SIZE"), *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (sr_launched_by_mpirun() && size && strcmp(size, "1")) {
        if (rank && strcmp(rank, "0")) sr_rank = 1;   /* sr_ranks_rank(): the message is rank 0's */
        return sr_fail(err, SR_ERR_INPUT, "started by mpirun as %s processes, but this stencilray was built without "
                       "MPI: each would render the whole frame; build with -DSR_WITH_MPI=ON (docs/commands.md), or "
                       "run it without mpirun", size);
    }
#endif
    return SR_OK;
}

void sr_ranks_finalize(void)
{
#ifdef SR_HAVE_MPI
    if (sr_mpi_on) MPI_Finalize();
#endif
    sr_mpi_on = 0;
}

void sr_ranks_hold_stderr(void)
{
    if (sr_rank == 0 || sr_size < 2 || sr_held_fd >= 0) return;
    fflush(stderr);
    sr_held_fd = memfd_create("stencilray-stderr", 0);
    if (sr_held_fd < 0) return;   /* nothing held back: the messages are said by every rank */
    sr_saved_fd = dup(2);
    if (sr_saved_fd < 0 || dup2(sr_held_fd, 2) < 0) {
        close(sr_held_fd);
        sr_held_fd = -1;
    }
}

/* Standard error back to where it went; what was held back printed when `say`. */
static void sr_release_stderr(int say, int rank)
{
    if (sr_held_fd < 0) return;
    fflush(stderr);
    dup2(sr_saved_fd, 2);
    close(sr_saved_fd);
    if (say) {
        char buf[4096];
        off_t at = 0;
        ssize_t got;
        int line_start = 1;
        while ((got = pread(sr_held_fd, buf, sizeof buf, at)) > 0) {
            for (ssize_t i = 0; i < got; i++) {
                if (line_start) fprintf(stderr, "rank %d: ", rank);
                fputc(buf[i], stderr);
                line_start = buf[i] == '\n';
            }
            at += got;
        }
        fflush(stderr);
    }
    close(sr_held_fd);
    sr_held_fd = sr_saved_fd = -1;
}

int sr_ranks_agree(int code)
{
#ifdef SR_HAVE_MPI
    if (sr_mpi_on && sr_size > 1) {
        int job = 0, root = code, first_bad = code ? sr_rank : sr_size;
        MPI_Allreduce(&code, &job, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Bcast(&root, 1, MPI_INT, 0, MPI_COMM_WORLD);
        int lowest = sr_size;
        MPI_Allreduce(&first_bad, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        /* Rank 0 has said its own failure; otherwise the lowest failing rank says its own. */
        sr_release_stderr(job && root == 0 && sr_rank == lowest, sr_rank);
        return job;
    }
#endif
    sr_release_stderr(0, sr_rank);
    return code;
}

/* ---- the frame's sum in memory every rank of the machine can read ------------------------- */

#ifdef SR_HAVE_MPI
#define SR_RANKS_SHARED_MAX 1024   /* ranks of one machine whose sums share a window */
static MPI_Win sr_sum_win = MPI_WIN_NULL;   /* the window of sr_ranks_film_sum_init, or none */
static MPI_Comm sr_node_comm = MPI_COMM_NULL;
static int64_t *sr_sum_mine;                 /* this rank's part of it                        */
#endif

sr_status sr_ranks_film_sum_init(sr_film_sum *s, size_t n, sr_error *err)
{
#ifdef SR_HAVE_MPI
    if (sr_mpi_on && sr_size > 1 && sr_sum_win == MPI_WIN_NULL) {
        /* One machine for the whole job: each rank's sum in a shared window, which rank 0 adds
         * up in place (sr_ranks_sum_to_root) instead of an MPI_Reduce of 200 MB a rank at 4K. */
        int node_size = 0, ok = 1, all_ok = 0;
        MPI_Comm node = MPI_COMM_NULL;
        if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS) ok = 0;
        if (ok) {
            MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
            MPI_Comm_size(node, &node_size);
        }
        void *base = NULL;
        MPI_Win win = MPI_WIN_NULL;
        const int one_machine = ok && node_size == sr_size && sr_size <= SR_RANKS_SHARED_MAX;
        if (one_machine && MPI_Win_allocate_shared((MPI_Aint)(n * sizeof(int64_t)), (int)sizeof(int64_t), MPI_INFO_NULL,
                                                   node, &base, &win) != MPI_SUCCESS)
            ok = 0;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (one_machine && all_ok) {
            memset(s, 0, sizeof *s);
            s->v = (int64_t *)base;
            s->n = n;
            memset(s->v, 0, n * sizeof(int64_t));   /* (its pages made here, in the set-up) */
            MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
            sr_sum_win = win;
            sr_node_comm = node;
            sr_sum_mine = s->v;
            return SR_OK;
        }
        if (win != MPI_WIN_NULL) MPI_Win_free(&win);
        if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
    }
#endif
    return sr_film_sum_init(s, n, err);
}

void sr_ranks_film_sum_free(sr_film_sum *s)
{
#ifdef SR_HAVE_MPI
    if (sr_sum_win != MPI_WIN_NULL && s->v && s->v == sr_sum_mine) {
        MPI_Win_unlock_all(sr_sum_win);
        MPI_Win_free(&sr_sum_win);
        MPI_Comm_free(&sr_node_comm);
        sr_sum_win = MPI_WIN_NULL;
        sr_sum_mine = NULL;
        memset(s, 0, sizeof *s);
        return;
    }
#endif
    sr_film_sum_free(s);
}

#ifdef SR_HAVE_MPI
/* Whether every rank sums films of n values (collective): a peer's film of another size is
 * refused, not read past its end or truncated. */
static int sr_ranks_same_film_size(size_t n)
{
    uint64_t mine = (uint64_t)n, most = 0, least = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &least, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    return most == least;
}
#endif

sr_status sr_ranks_sum_to_root(int64_t *buf, size_t n, sr_error *err)
{
#ifdef SR_HAVE_MPI
    if (sr_mpi_on && sr_size > 1 && !sr_ranks_same_film_size(n))
        return sr_fail(err, SR_ERR_RUNTIME, "the ranks' films differ in size (%zu values here); every rank must "
                       "render the same frame", n);
    if (sr_mpi_on && sr_size > 1 && sr_sum_win != MPI_WIN_NULL && buf == sr_sum_mine) {
        /* Every rank's sum is written: rank 0 reads the others' in place and adds them into its
         * own (integers: any order gives the same bits), then lets them go on. */
        MPI_Win_sync(sr_sum_win);
        MPI_Barrier(sr_node_comm);
        MPI_Win_sync(sr_sum_win);
        if (sr_rank == 0) {   /* (as sums with passes: the merge adds, it does not store) */
            sr_film_sum mine = { buf, n, 1u, 1u };
            sr_film_sum peer[SR_RANKS_SHARED_MAX];
            const sr_film_sum *peers[SR_RANKS_SHARED_MAX];
            int k = 0, node_rank = 0;
            MPI_Comm_rank(sr_node_comm, &node_rank);
            for (int r = 0; r < sr_size && k < SR_RANKS_SHARED_MAX; r++) {
                if (r == node_rank) continue;
                MPI_Aint size = 0;
                int unit = 0;
                void *at = NULL;
                MPI_Win_shared_query(sr_sum_win, r, &size, &unit, &at);
                if ((size_t)size < n * sizeof(int64_t)) continue;   /* never past a peer's end */
                peer[k] = (sr_film_sum){ (int64_t *)at, n, 1u, 1u };
                peers[k] = &peer[k];
                k++;
            }
            sr_film_sum_merge_all(&mine, peers, (uint32_t)k);
        }
        MPI_Win_sync(sr_sum_win);
        MPI_Barrier(sr_node_comm);
        (void)err;
        return SR_OK;
    }
    if (sr_mpi_on && sr_size > 1) {
        /* In chunks: MPI counts are int. */
        const size_t chunk = (size_t)1 << 28;
        for (size_t at = 0; at < n; at += chunk) {
            const int c = (int)(n - at < chunk ? n - at : chunk);
            const int e = sr_rank == 0 ? MPI_Reduce(MPI_IN_PLACE, buf + at, c, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD)
                                       : MPI_Reduce(buf + at, NULL, c, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
            if (e != MPI_SUCCESS) return sr_fail(err, SR_ERR_RUNTIME, "summing the films of the ranks failed (MPI_Reduce)");
        }
    }
#else
    (void)buf;
    (void)n;
    (void)err;
#endif
    return SR_OK;
}

uint64_t sr_ranks_sum_u64(uint64_t x)
{
#ifdef SR_HAVE_MPI
    if (sr_mpi_on && sr_size > 1) {
        uint64_t total = 0;
        MPI_Reduce(&x, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        return total;
    }
#endif
    return x;
}

void sr_ranks_abort(int code)
{
#ifdef SR_HAVE_MPI
    if (sr_mpi_on && sr_size > 1) {
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
#endif
    (void)code;
}

void sr_ranks_barrier(void)
{
#ifdef SR_HAVE_MPI
    if (sr_mpi_on && sr_size > 1) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

/* ---- every rank renders the same frame ------------------------------------------------------ */

uint64_t sr_ranks_hash(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *b = (const unsigned char *)bytes;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t sr_ranks_hash_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    uint64_t h = SR_RANKS_HASH_START;
    unsigned char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) h = sr_ranks_hash(h, buf, got);
    fclose(f);
    return h;
}

int sr_ranks_same_frame(const sr_rank_fact *facts, int n, const char *prefix)
{
#ifdef SR_HAVE_MPI
    if (!sr_mpi_on || sr_size < 2) return 0;
    /* Rank 0's facts to all (their count first); each rank finds its first difference, and
     * the lowest rank with one tells rank 0 which and its value. */
    uint64_t root[SR_RANK_FACTS_MAX + 1] = { 0 };
    root[0] = (uint64_t)n;
    for (int k = 0; k < n && k < SR_RANK_FACTS_MAX; k++) root[k + 1] = facts[k].value;
    MPI_Bcast(root, SR_RANK_FACTS_MAX + 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    int differ = -1;   /* the first differing fact; n when the counts differ */
    if (root[0] != (uint64_t)n) differ = n;
    for (int k = 0; differ < 0 && k < n; k++)
        if (root[k + 1] != facts[k].value) differ = k;
    int me = differ >= 0 ? sr_rank : sr_size, lowest = sr_size;
    MPI_Allreduce(&me, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (lowest == sr_size) return 0;
    uint64_t told[2] = { (uint64_t)differ, differ >= 0 && differ < n ? facts[differ].value : 0 };
    MPI_Bcast(told, 2, MPI_UINT64_T, lowest, MPI_COMM_WORLD);
    if (sr_rank == 0) {
        const int k = (int)told[0];
        fprintf(stderr, "%s: rank %d of %d would render another frame than rank 0: ", prefix, lowest, sr_size);
        if (k >= n) fprintf(stderr, "it compares other settings (another stencilray?)");
        else if (facts[k].is_hash) fprintf(stderr, "its %s differs from rank 0's", facts[k].what);
        else fprintf(stderr, "its %s is %llu, rank 0's is %llu", facts[k].what, (unsigned long long)told[1],
                     (unsigned long long)facts[k].value);
        fprintf(stderr, "; start every rank with the same options and scene; nothing written\n");
        fflush(stderr);
    }
    return lowest;
#else
    (void)facts;
    (void)n;
    (void)prefix;
    return 0;
#endif
}

void sr_ranks_test_kill(void)
{
    const char *v = sr_test_hook(SR_HOOK_TEST_KILL_RANK);
    if (!v || !*v) return;
    char *end;
    const long r = strtol(v, &end, 10);
    if (*end == '\0' && r == sr_rank && sr_size > 1) raise(SIGKILL);
}

/* ---- a frame's passes handed out to the ranks ----------------------------------------------- */

/* Messages of frame `gen` use the tags SR_TAG_ASK + (gen & 1) (an ask, or a rank's "done")
 * and SR_TAG_GIVE + (gen & 1) (the pass given): a rank done with one frame may ask for the
 * next one's passes while rank 0 still waits for the others' "done", and those asks wait for
 * the next frame's server. Two frames never overlap further: the next-but-one needs rank 0's
 * answers to the next one first. */
#define SR_TAG_ASK 7100
#define SR_TAG_GIVE 7110
/* An ask carries the samples the asking worker finished since its last ask (>= 0); a rank's
 * "done" is -1. */
#define SR_ASK_DONE (-1)

struct sr_rank_passes {
    uint32_t passes;
    uint32_t gen;
    atomic_uint next;          /* rank 0: the next pass to hand out                          */
    atomic_ullong told;        /* rank 0: the samples the other ranks said they finished     */
    pthread_mutex_t mu;        /* other ranks: one ask in flight at a time                   */
    pthread_t server;          /* rank 0: answers the other ranks                            */
    int serving;
    int dynamic;               /* several ranks and MPI that threads may call               */
};

static uint32_t sr_rank_passes_gen;

#ifdef SR_HAVE_MPI
static void *sr_rank_passes_serve(void *arg)
{
    sr_rank_passes *rp = (sr_rank_passes *)arg;
    const int tag = SR_TAG_ASK + (int)(rp->gen & 1u);
    int done = 0;
    while (done < sr_size - 1) {
        int what = 0;
        MPI_Status st;
        if (MPI_Recv(&what, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st) != MPI_SUCCESS) break;
        if (what == SR_ASK_DONE) {
            done++;
            continue;
        }
        atomic_fetch_add(&rp->told, (unsigned long long)what);
        const uint32_t p = atomic_fetch_add(&rp->next, 1u);
        MPI_Send(&p, 1, MPI_UINT32_T, st.MPI_SOURCE, SR_TAG_GIVE + (int)(rp->gen & 1u), MPI_COMM_WORLD);
    }
    return NULL;
}
#endif

sr_status sr_ranks_passes_begin(sr_rank_passes **out, uint32_t passes, sr_error *err)
{
    *out = NULL;
    sr_rank_passes *rp = (sr_rank_passes *)calloc(1, sizeof *rp);
    if (!rp) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory");
    rp->passes = passes;
    rp->gen = sr_rank_passes_gen++;
    atomic_store(&rp->next, 0u);
    pthread_mutex_init(&rp->mu, NULL);
#ifdef SR_HAVE_MPI
    rp->dynamic = sr_mpi_on && sr_size > 1 && sr_mpi_threads;
    if (rp->dynamic && sr_rank == 0) {
        const int e = pthread_create(&rp->server, NULL, sr_rank_passes_serve, rp);
        if (e) {
            pthread_mutex_destroy(&rp->mu);
            free(rp);
            return sr_fail(err, SR_ERR_RUNTIME, "could not start the thread that hands out passes: %s", strerror(e));
        }
        rp->serving = 1;
    }
#endif
    *out = rp;
    return SR_OK;
}

int sr_ranks_passes_dynamic(const sr_rank_passes *rp) { return rp->dynamic; }

uint64_t sr_ranks_passes_others_done(void *ctx) { return atomic_load(&((sr_rank_passes *)ctx)->told); }

uint32_t sr_ranks_passes_take(void *ctx, uint32_t done)
{
    sr_rank_passes *rp = (sr_rank_passes *)ctx;
#ifdef SR_HAVE_MPI
    if (rp->dynamic && sr_rank != 0) {
        uint32_t p = UINT32_MAX;
        int what = (int)done;
        pthread_mutex_lock(&rp->mu);
        if (MPI_Send(&what, 1, MPI_INT, 0, SR_TAG_ASK + (int)(rp->gen & 1u), MPI_COMM_WORLD) != MPI_SUCCESS ||
            MPI_Recv(&p, 1, MPI_UINT32_T, 0, SR_TAG_GIVE + (int)(rp->gen & 1u), MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
                MPI_SUCCESS)
            p = UINT32_MAX;
        pthread_mutex_unlock(&rp->mu);
        return p;
    }
#else
    (void)done;
#endif
    return atomic_fetch_add(&rp->next, 1u);
}

void sr_ranks_passes_end(sr_rank_passes *rp)
{
    if (!rp) return;
#ifdef SR_HAVE_MPI
    if (rp->dynamic && sr_rank != 0) {
        int what = SR_ASK_DONE;
        MPI_Send(&what, 1, MPI_INT, 0, SR_TAG_ASK + (int)(rp->gen & 1u), MPI_COMM_WORLD);
    }
    if (rp->serving) pthread_join(rp->server, NULL);
#endif
    pthread_mutex_destroy(&rp->mu);
    free(rp);
}
