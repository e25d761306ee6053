/* ranks.h: the processes of an MPI job (mpirun -np N stencilray render ...), or one process.
 * Built with -DSR_WITH_MPI=ON (SR_HAVE_MPI) and started by mpirun, the process joins the job;
 * otherwise, or started plainly, it is rank 0 of 1 and every call here is a no-op.
 *
 * The render command uses it so: every rank parses the options and loads the scene with its
 * standard error held back (sr_ranks_hold_stderr), the ranks agree on the outcome
 * (sr_ranks_agree: one message, from rank 0 or else from the lowest failing rank, and the same
 * exit code everywhere), render the frame's passes as rank 0 hands them out
 * (sr_ranks_passes_begin), and the fixed-point films are summed on rank 0
 * (sr_ranks_sum_to_root), which alone writes. A rank that fails later ends the job
 * (sr_ranks_abort); one that is killed makes mpirun end it. */
#ifndef SR_RANKS_H
#define SR_RANKS_H

#include <stddef.h>
#include <stdint.h>
#include "../base/status.h"

/* Join the MPI job when built with MPI and started by mpirun (its environment says so). A
 * build without MPI started by mpirun as several processes is refused (SR_ERR_INPUT; only
 * sr_ranks_rank() 0 should say so). */
sr_status sr_ranks_init(int *argc, char ***argv, sr_error *err);
void sr_ranks_finalize(void);
int sr_ranks_rank(void);
int sr_ranks_size(void);

/* Ranks above 0 keep their standard error in memory from here until sr_ranks_agree, so that a
 * bad option or scene, found by every rank alike, is said once. */
void sr_ranks_hold_stderr(void);
/* Every rank calls this with its exit code so far (0: ready). Returns the job's code: the
 * largest. When rank 0 failed, its own message has been printed; when only other ranks failed,
 * the lowest of them prints what it held back, prefixed with its rank. Standard error is
 * released on every rank. */
int sr_ranks_agree(int code);
/* The frame's fixed-point sum of n values, on every rank (collective): when every rank runs on
 * this machine, in memory they all can read (an MPI shared window), else on the heap. Free
 * with sr_ranks_film_sum_free (collective too; a second call does nothing). */
struct sr_film_sum;
sr_status sr_ranks_film_sum_init(struct sr_film_sum *s, size_t n, sr_error *err);
void sr_ranks_film_sum_free(struct sr_film_sum *s);
/* Sum n int64 on every rank into rank 0's buf (exact): read in place and added by rank 0's
 * threads when buf is sr_ranks_film_sum_init's shared sum, else an MPI_Reduce. */
sr_status sr_ranks_sum_to_root(int64_t *buf, size_t n, sr_error *err);
/* Sum one count over all ranks, on rank 0. */
uint64_t sr_ranks_sum_u64(uint64_t x);
/* End the whole job with `code` after a failure on this rank (its message printed). */
void sr_ranks_abort(int code);
/* A test switch: with $SR_TEST_KILL_RANK=N, rank N kills itself (SIGKILL) here, once its share
 * is rendered and before its film reaches rank 0 (tests/unit/test_mpi.c: a killed rank ends the
 * job with nothing written). Nothing happens without the variable. */
void sr_ranks_test_kill(void);
/* Wait for every rank (a barrier); no-op with one. */
void sr_ranks_barrier(void);

/* What a rank's frame depends on, compared across the ranks before they render (a rank
 * started with other options or another scene file would add its film to the others').
 * `value` is a number, or a hash (sr_ranks_hash) when `is_hash`. */
typedef struct sr_rank_fact { const char *what; uint64_t value; int is_hash; } sr_rank_fact;
#define SR_RANK_FACTS_MAX 24
/* Collective: rank 0 compares every rank's n facts (n <= SR_RANK_FACTS_MAX, the same n and
 * order everywhere) with its own. Returns 0 when all agree; else, on every rank, the lowest
 * rank that differs, and rank 0 has printed one message naming it and the first fact that
 * differs, prefixed with `prefix`. */
int sr_ranks_same_frame(const sr_rank_fact *facts, int n, const char *prefix);
/* FNV-1a over n bytes, continuing from h (start with SR_RANKS_HASH_START). */
#define SR_RANKS_HASH_START 14695981039346656037ull
uint64_t sr_ranks_hash(uint64_t h, const void *bytes, size_t n);
/* The hash of a file's bytes; 0 when it cannot be read. */
uint64_t sr_ranks_hash_file(const char *path);

/* A frame's passes handed out to the ranks as their workers ask (farm.h's sr_farm_share take),
 * so that a faster rank takes more passes: rank 0 keeps the counter and answers the other
 * ranks from a thread of its own while its workers render. Every rank calls begin before it
 * renders the frame and end after (end waits, on rank 0, for every rank's end). With one rank
 * the counter is this process's. Without MPI threads (an MPI that cannot serialize calls from
 * several threads) dynamic is 0 and the caller splits the passes in a fixed way instead. */
typedef struct sr_rank_passes sr_rank_passes;
sr_status sr_ranks_passes_begin(sr_rank_passes **out, uint32_t passes, sr_error *err);
int sr_ranks_passes_dynamic(const sr_rank_passes *rp);
/* The next pass (any number >= the frame's passes: none left), telling rank 0 that `done`
 * samples were finished since this worker's last ask; from any thread. */
uint32_t sr_ranks_passes_take(void *rp, uint32_t done);
/* On rank 0: the samples the other ranks have told of so far (its progress bar). */
uint64_t sr_ranks_passes_others_done(void *rp);
void sr_ranks_passes_end(sr_rank_passes *rp);

#endif
