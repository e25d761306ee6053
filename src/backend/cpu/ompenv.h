/* ompenv.h: OpenMP's wait policy for the CPU backend.
 *
 * With OMP_WAIT_POLICY unset, libgomp's idle threads spin for about 300,000 iterations before
 * they sleep. On a machine shared with other processes the spinning threads take the cores
 * the working ones need: CPU frame times swung 10x between runs (compact at depth 3: 60, 53
 * and 5.7 ms, the last with OMP_WAIT_POLICY=PASSIVE). stencilray therefore runs its commands
 * with PASSIVE unless the person chose a policy (OMP_WAIT_POLICY or GOMP_SPINCOUNT set).
 *
 * It cannot be set from inside the program: the OpenMP specification says the runtime ignores
 * changes to its environment variables after the program has started, and libgomp reads them
 * in its ELF constructor, before main and before any .preinit_array function can reach
 * libc's environment (tried: GOMP_SPINCOUNT stays 300000 under OMP_DISPLAY_ENV=VERBOSE).
 * So the program starts itself again, once, with the variable in its environment. */
#ifndef SR_OMPENV_H
#define SR_OMPENV_H

/* Set in the environment of the second start, so that it knows the policy was stencilray's
 * choice (and never starts a third time). */
#define SR_OMP_DEFAULTED_ENV "SR_OMP_WAIT_POLICY_DEFAULTED"

/* Whether command `cmd` (argv[1]; may be NULL) should run again with OMP_WAIT_POLICY=PASSIVE,
 * given the values of OMP_WAIT_POLICY, GOMP_SPINCOUNT and SR_OMP_DEFAULTED_ENV (NULL when
 * unset): only render, bench and view run OpenMP work, and a policy the person set is theirs. */
int sr_omp_wants_passive(const char *cmd, const char *policy, const char *spincount, const char *defaulted);

/* At the start of main: if sr_omp_wants_passive says so, set OMP_WAIT_POLICY=PASSIVE and
 * execute /proc/self/exe with the same arguments; returns only when that is not wanted or
 * not possible (then the run goes on with the runtime's default). */
void sr_omp_wait_policy_default(int argc, char **argv);

/* The wait policy this process's OpenMP runtime read, for reports: "PASSIVE", "ACTIVE", or
 * "unset" (the runtime's default, spinning a while); and who chose it: "stencilray",
 * "environment" or "none". */
const char *sr_omp_wait_policy(void);
const char *sr_omp_wait_policy_source(void);
/* $GOMP_SPINCOUNT as set (NULL when unset), for the same reports. */
const char *sr_omp_spincount(void);

/* --threads: how many OpenMP threads the CPU backend's parallel loops run on. OpenMP keeps
 * the count per thread, so sr_omp_threads_set sets it for the calling thread and remembers
 * it, and sr_omp_threads_apply sets it on another thread that renders (a farm worker, the
 * viewer's render thread; the CPU backend calls it as it opens). Without --threads OpenMP's
 * own count stands: OMP_NUM_THREADS, else one per core. */
void sr_omp_threads_set(int threads);
void sr_omp_threads_apply(void);

#endif
