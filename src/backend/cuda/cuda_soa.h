/* cuda_soa.h: a ray pool (sr_ray_soa, one device array per field) allocated and freed on the
 * device, for the CUDA backend and the micro-benchmarks. Include after cuda_check.h where a
 * file defines SR_CUDA_TRY_NOTE. */
#ifndef SR_CUDA_SOA_H
#define SR_CUDA_SOA_H

#include <string.h>
#include "cuda_check.h"
#include "../../../kernels/core/raystate.h"

/* Every field for `slots` rays; on failure the fields allocated so far stay set (free them
 * with sr_cuda_soa_free) and the message says `what` was being allocated. */
static inline sr_status sr_cuda_soa_alloc(sr_ray_soa *p, uint32_t slots, const char *what, sr_error *err)
{
#define SR_X_ALLOC(type, name) SR_CUDA_TRY(cudaMalloc((void **)&p->name, sizeof(type) * (size_t)slots), what);
    SR_RAY_FIELDS(SR_X_ALLOC)
#undef SR_X_ALLOC
    return SR_OK;
}

static inline void sr_cuda_soa_free(sr_ray_soa *p)
{
#define SR_X_FREE(type, name) cudaFree(p->name);
    SR_RAY_FIELDS(SR_X_FREE)
#undef SR_X_FREE
    memset(p, 0, sizeof *p);
}

#endif
