/* backend_launch.c: every launch a backend is asked for goes through sr_backend_launch, the
 * one place where the SR_FAULT test hook (fault.h) is checked. */
#include "backend.h"
#include "fault.h"

#include <string.h>

sr_status sr_backend_resolve_film(sr_backend *be, float *dst, float scale, sr_error *err)
{
    sr_launch_args a;
    memset(&a, 0, sizeof a);
    a.n = be->state->capacity;
    a.dst = dst;
    a.scale = scale;
    return sr_backend_launch(be, SR_KERNEL_FILM_RESOLVE, &a, err);
}

sr_status sr_backend_launch(sr_backend *be, sr_kernel k, const sr_launch_args *a, sr_error *err)
{
    const sr_fault_kind f = sr_fault_check(SR_FAULT_LAUNCH, sr_kernel_name(k));
    if (f == SR_FAULT_NONE) return be->ops->launch(be->impl, k, a, err);
    sr_launch_args faulty = *a;
    faulty.fault = (int)f;
    return be->ops->launch(be->impl, k, &faulty, err);
}
