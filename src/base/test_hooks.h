/* test_hooks.h: the environment variables that tests and measurements set to steer the
 * renderer from outside (tests/README.md, "Test switches", lists each with what it does).
 * They are read here and nowhere else in the library; user settings are not among them:
 * the program reads those and passes them in (src/app, stencilray.h). */
#ifndef SR_TEST_HOOKS_H
#define SR_TEST_HOOKS_H

typedef enum sr_hook {
    SR_HOOK_FAULT,              /* SR_FAULT: a launch, kernel or allocation that fails (fault.h) */
    SR_HOOK_BVH_TREELETS,       /* SR_BVH_TREELETS: the BVH variant both backends build */
    SR_HOOK_WAVE_QUEUE_LIMIT,   /* SR_WAVE_QUEUE_LIMIT: the wave mask's queue cut to N entries */
    SR_HOOK_SPLIT_BUDGET,       /* SR_SPLIT_BUDGET: the Whitted split's room cut to N rays */
    SR_HOOK_FARM_PASS_LOG,      /* SR_FARM_PASS_LOG: a line per sample pass and per frame */
    SR_HOOK_TEST_KILL_RANK,     /* SR_TEST_KILL_RANK: MPI rank N kills itself mid-frame */
    SR_HOOK_NO_DENOISER,        /* SR_NO_DENOISER: Open Image Denoise counts as not installed */
    /* the measurement build's (-DSR_MEASURE=ON); other builds never ask for them */
    SR_HOOK_FARM_SLOW_WORKER,   /* SR_FARM_SLOW_WORKER: worker I at 1/FACTOR speed */
    SR_HOOK_FARM_FIXED_SPLIT,   /* SR_FARM_FIXED_SPLIT: passes dealt in turn instead of stolen */
    SR_HOOK_NO_PLAIN_KERNELS,   /* SR_NO_PLAIN_KERNELS: the general build of the kernels */
    SR_HOOK_NO_L2_WINDOW,       /* SR_NO_L2_WINDOW: no L2 persistence window for the stencils */
    SR_HOOK_WAVE_LAUNCH_ORDER,  /* SR_WAVE_LAUNCH_ORDER: wave tiles in launch order */
    SR_HOOK_WAVE_TIMELINE,      /* SR_WAVE_TIMELINE: the file bench writes the warp timeline to */
    SR_HOOK_COUNT
} sr_hook;

/* The variable's name ("SR_FAULT"); "?" for a value out of range. */
const char *sr_hook_name(sr_hook hook);

/* The variable's value as set, or NULL when it is not set. Read when asked, not once: a test
 * may change a hook between two renders in one process (SR_SPLIT_BUDGET, SR_WAVE_QUEUE_LIMIT).
 * Safe from any thread while nothing changes the environment; the library itself never does. */
const char *sr_test_hook(sr_hook hook);

#endif
