/* interop.c: CUDA–OpenGL buffer sharing (built with the CUDA backend). Every CUDA call is
 * checked and a failure says which step failed, with CUDA's error name. */
#include "interop.h"

#include <GL/glew.h>          /* before cuda_gl_interop.h, which includes GL/gl.h */
#include <cuda_runtime_api.h>
#include <cuda_gl_interop.h>
#include <stdio.h>
#include <stdlib.h>

struct sr_interop {
    struct cudaGraphicsResource *res;
    int mapped;
};

#define SR_INTEROP_TRY(call, what)                                                              \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess)                                                                  \
            return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: %s failed: %s (%s)", what, \
                           cudaGetErrorString(e_), cudaGetErrorName(e_));                       \
    } while (0)

int sr_interop_check(int device, char *why, size_t cap)
{
    unsigned int count = 0;
    int devices[16];
    cudaError_t e = cudaGLGetDevices(&count, devices, 16, cudaGLDeviceListAll);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();   /* not sticky, but leave nothing behind for the backend */
        const char *gl = (const char *)glGetString(GL_RENDERER);
        snprintf(why, cap, "the OpenGL context (%s) is not on a CUDA device: cudaGLGetDevices: %s",
                 gl ? gl : "unknown renderer", cudaGetErrorString(e));
        return 0;
    }
    for (unsigned int i = 0; i < count && i < 16; i++)
        if (devices[i] == device) return 1;
    snprintf(why, cap, "the OpenGL context is on CUDA device %d, the renderer on device %d",
             count ? devices[0] : -1, device);
    return 0;
}

sr_status sr_interop_register(unsigned int buffer, sr_interop **out, sr_error *err)
{
    *out = NULL;
    sr_interop *io = (sr_interop *)calloc(1, sizeof *io);
    if (!io) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory");
    cudaError_t e = cudaGraphicsGLRegisterBuffer(&io->res, (GLuint)buffer, cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
        free(io);
        return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: registering GL buffer %u failed: %s (%s)",
                       buffer, cudaGetErrorString(e), cudaGetErrorName(e));
    }
    *out = io;
    return SR_OK;
}

sr_status sr_interop_map(sr_interop *io, void **ptr, size_t *bytes, sr_error *err)
{
    SR_INTEROP_TRY(cudaGraphicsMapResources(1, &io->res, 0), "mapping the pixel buffer");
    io->mapped = 1;
    /* The map orders GL's earlier use of the buffer before later work on stream 0 only; the
     * backend runs on its own non-blocking stream, so wait here. */
    SR_INTEROP_TRY(cudaStreamSynchronize(0), "waiting for the mapped pixel buffer");
    SR_INTEROP_TRY(cudaGraphicsResourceGetMappedPointer(ptr, bytes, io->res), "getting the mapped pointer");
    return SR_OK;
}

sr_status sr_interop_unmap(sr_interop *io, sr_error *err)
{
    io->mapped = 0;
    SR_INTEROP_TRY(cudaGraphicsUnmapResources(1, &io->res, 0), "unmapping the pixel buffer");
    return SR_OK;
}

void sr_interop_release(sr_interop *io)
{
    if (!io) return;
    if (io->mapped) (void)cudaGraphicsUnmapResources(1, &io->res, 0);
    cudaError_t e = cudaGraphicsUnregisterResource(io->res);
    if (e != cudaSuccess)   /* nothing to return to; say it, since a leak here lasts */
        fprintf(stderr, "stencilray: CUDA-OpenGL interop: unregistering the pixel buffer failed: %s\n",
                cudaGetErrorString(e));
    free(io);
}
