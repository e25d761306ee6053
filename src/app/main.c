/* main.c: stencilray's entry point; everything else lives in cli.c and below. */
#include "cli.h"
#include "env_settings.h"
#include "../backend/cuda/cudaenv.h"
#include "../backend/cpu/ompenv.h"

int main(int argc, char **argv)
{
    sr_omp_wait_policy_default(argc, argv);   /* may start the program again (ompenv.h) */
    sr_cuda_loading_default(argc, argv);      /* when the kernels load: cudaenv.h */
    sr_env_settings_apply();                  /* the memory caps: env_settings.h */
    return sr_cli_main(argc, argv);
}
