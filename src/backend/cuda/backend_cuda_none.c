/* backend_cuda_none.c: stands in for backend_cuda.c in a build without a CUDA compiler. */
#include "../backend.h"

#include <stdio.h>

int sr_cuda_device_count(char *why, size_t cap)
{
    snprintf(why, cap, "this stencilray was built without CUDA (no nvcc at configure time)");
    return -1;
}

void sr_cuda_describe(char *buf, size_t cap) { sr_cuda_device_count(buf, cap); }

sr_status sr_cuda_backend_create(int device, sr_backend *out, sr_error *err)
{
    (void)device; (void)out;
    return sr_fail(err, SR_ERR_INPUT, "this stencilray was built without CUDA; use --backend cpu");
}

void sr_cuda_gpu_summary(int device, char *buf, size_t cap)
{
    (void)device;
    snprintf(buf, cap, "no GPU (built without CUDA)");
}

sr_backend_warm *sr_backend_warm_begin(const sr_worker_device *workers, uint32_t n)
{
    (void)workers; (void)n;
    return NULL;
}

double sr_backend_warm_end(sr_backend_warm *w)
{
    (void)w;
    return 0.0;
}
