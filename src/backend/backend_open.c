/* backend_open.c: which backend a command gets (backend.h, sr_backend_create): the one place
 * that knows both implementations. */
#include "backend.h"

#include <stdio.h>
#include <string.h>

sr_status sr_backend_create(sr_backend_kind kind, int device, sr_backend *out,
                            char *why_not_cuda, size_t why_cap, sr_error *err)
{
    memset(out, 0, sizeof *out);
    if (why_not_cuda && why_cap) why_not_cuda[0] = '\0';
    if (kind == SR_BACKEND_CPU) return sr_cpu_backend_create(out, err);
    char why[256] = "";
    int count = sr_cuda_device_count(why, sizeof why);
    if (count > 0 && device >= count)
        return sr_fail(err, SR_ERR_INPUT, "--device %d: only %d CUDA device%s found (0..%d)",
                       device, count, count == 1 ? "" : "s", count - 1);
    if (count > 0) return sr_cuda_backend_create(device, out, err);
    if (kind == SR_BACKEND_CUDA)
        return sr_fail(err, SR_ERR_INPUT, "--backend cuda: %s; use --backend cpu (or auto)", why);
    if (why_not_cuda) snprintf(why_not_cuda, why_cap, "%s", why);
    return sr_cpu_backend_create(out, err);
}

sr_status sr_cuda_require_device(int device, sr_error *err)
{
    char why[256];
    int count = sr_cuda_device_count(why, sizeof why);
    if (count < 0) return sr_fail(err, SR_ERR_INPUT, "needs a CUDA device: %s", why);
    if (device < 0 || device >= count)
        return sr_fail(err, SR_ERR_INPUT, "needs a CUDA device: device %d does not exist (%d device%s found)",
                       device, count, count == 1 ? "" : "s");
    return SR_OK;
}
