/* cuda_check.h: every CUDA call and launch is checked; a failure returns from the enclosing
 * function with SR_ERR_RUNTIME and a message naming what was being done and the CUDA error.
 * The function must have an `sr_error *err` in scope. */
#ifndef SR_CUDA_CHECK_H
#define SR_CUDA_CHECK_H

#include <cuda_runtime_api.h>
#include "../../base/status.h"

/* A file may define SR_CUDA_TRY_NOTE before including this: a string expression (it may
 * use the error, e_) appended to every message; backend_cuda.c names the last kernel. */
#ifndef SR_CUDA_TRY_NOTE
#define SR_CUDA_TRY_NOTE ""
#endif

#define SR_CUDA_TRY(call, what)                                                               \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess)                                                                \
            return sr_fail(err, SR_ERR_RUNTIME, "CUDA error while %s: %s (%s)%s", (what),     \
                           cudaGetErrorString(e_), cudaGetErrorName(e_), SR_CUDA_TRY_NOTE);   \
    } while (0)

#endif
