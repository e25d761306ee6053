/* ompenv.c: OpenMP's wait policy for the CPU backend (ompenv.h says why it is done this way). */
#include "ompenv.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int sr_omp_wants_passive(const char *cmd, const char *policy, const char *spincount, const char *defaulted)
{
    if (!cmd || (strcmp(cmd, "render") && strcmp(cmd, "bench") && strcmp(cmd, "view"))) return 0;
    if (policy || spincount) return 0;   /* the person's choice, or the second start */
    return defaulted == NULL;            /* never a third start, whatever happened */
}

void sr_omp_wait_policy_default(int argc, char **argv)
{
    if (argc < 2 || !sr_omp_wants_passive(argv[1], getenv("OMP_WAIT_POLICY"), getenv("GOMP_SPINCOUNT"),
                                          getenv(SR_OMP_DEFAULTED_ENV)))
        return;
    if (setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0 || setenv(SR_OMP_DEFAULTED_ENV, "1", 1) != 0) return;
    execv("/proc/self/exe", argv);
    /* No /proc (or no exec): go on as started, with the runtime's default; say nothing, the
     * benchmark reports the policy as "unset". The variables are taken back so that the
     * report and any child process see the truth. */
    unsetenv("OMP_WAIT_POLICY");
    unsetenv(SR_OMP_DEFAULTED_ENV);
}

const char *sr_omp_wait_policy(void)
{
    const char *p = getenv("OMP_WAIT_POLICY");
    if (!p) return "unset";
    if (!strcasecmp(p, "passive")) return "PASSIVE";
    if (!strcasecmp(p, "active")) return "ACTIVE";
    return "unset";   /* a value OpenMP does not know is ignored by it */
}

const char *sr_omp_wait_policy_source(void)
{
    if (!getenv("OMP_WAIT_POLICY")) return "none";
    return getenv(SR_OMP_DEFAULTED_ENV) ? "stencilray" : "environment";
}

const char *sr_omp_spincount(void) { return getenv("GOMP_SPINCOUNT"); }

static int sr_omp_threads;   /* --threads, or 0: OpenMP's own count */

void sr_omp_threads_set(int threads)
{
    sr_omp_threads = threads;
    sr_omp_threads_apply();
}

void sr_omp_threads_apply(void)
{
    if (sr_omp_threads > 0) omp_set_num_threads(sr_omp_threads);
}
