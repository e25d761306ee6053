/* ranks.h: the processes of an MPI job (mpirun -np N stencilray render ...), or one process.
 * Built with -DSR_WITH_MPI=ON (SR_HAVE_MPI) and started by mpirun, the process joins the job;
 * otherwise, or started plainly, it is rank 0 of 1 and every call here is a no-op.
 *
 * The render command uses it so: every rank parses the options and loads the scene with its
 * standard error held back (sr_ranks_hold_stderr), the ranks agree on the outcome
 * (sr_ranks_agree: one message, from rank 0 or else from the lowest failing rank, and the same
 * exit code everywhere), render their shares, and the fixed-point films are summed on rank 0
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
/* Sum n int64 on every rank into rank 0's buf (exact). */
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

#endif
