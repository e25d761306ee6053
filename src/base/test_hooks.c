/* test_hooks.c: the one place the library reads its test switches (test_hooks.h). */
#include "test_hooks.h"

#include <stdlib.h>

static const char *const sr_test_hook_names[SR_HOOK_COUNT] = {
    [SR_HOOK_FAULT] = "SR_FAULT",
    [SR_HOOK_BVH_TREELETS] = "SR_BVH_TREELETS",
    [SR_HOOK_WAVE_QUEUE_LIMIT] = "SR_WAVE_QUEUE_LIMIT",
    [SR_HOOK_SPLIT_BUDGET] = "SR_SPLIT_BUDGET",
    [SR_HOOK_FARM_PASS_LOG] = "SR_FARM_PASS_LOG",
    [SR_HOOK_TEST_KILL_RANK] = "SR_TEST_KILL_RANK",
    [SR_HOOK_NO_DENOISER] = "SR_NO_DENOISER",
    [SR_HOOK_FARM_SLOW_WORKER] = "SR_FARM_SLOW_WORKER",
    [SR_HOOK_FARM_FIXED_SPLIT] = "SR_FARM_FIXED_SPLIT",
    [SR_HOOK_NO_PLAIN_KERNELS] = "SR_NO_PLAIN_KERNELS",
    [SR_HOOK_NO_L2_WINDOW] = "SR_NO_L2_WINDOW",
    [SR_HOOK_WAVE_LAUNCH_ORDER] = "SR_WAVE_LAUNCH_ORDER",
    [SR_HOOK_WAVE_TIMELINE] = "SR_WAVE_TIMELINE",
};

const char *sr_hook_name(sr_hook hook)
{
    return (unsigned)hook < SR_HOOK_COUNT ? sr_test_hook_names[hook] : "?";
}

const char *sr_test_hook(sr_hook hook)
{
    return (unsigned)hook < SR_HOOK_COUNT ? getenv(sr_test_hook_names[hook]) : NULL;
}
