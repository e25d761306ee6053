/* cudaenv.c: when CUDA loads this program's kernels (cudaenv.h says why). */
#include "cudaenv.h"

#include <stdlib.h>
#include <string.h>

#define SR_CUDA_LOADING_ENV "CUDA_MODULE_LOADING"

static int sr_cuda_loading_chosen;   /* 1 when stencilray set the variable */

void sr_cuda_loading_default(int argc, char **argv)
{
    if (getenv(SR_CUDA_LOADING_ENV)) return;   /* the person's choice */
    const int render = argc > 1 && !strcmp(argv[1], "render");
    sr_cuda_loading_chosen = setenv(SR_CUDA_LOADING_ENV, render ? "LAZY" : "EAGER", 0) == 0;
}

const char *sr_cuda_loading(void)
{
    const char *v = getenv(SR_CUDA_LOADING_ENV);
    return v ? v : "unset";
}

const char *sr_cuda_loading_source(void)
{
    if (!getenv(SR_CUDA_LOADING_ENV)) return "none";
    return sr_cuda_loading_chosen ? "stencilray" : "environment";
}
