/* interop.c: CUDA–OpenGL sharing (built with the CUDA backend). Every CUDA call is checked and
 * a failure says which step failed, with CUDA's error name. */
#include "interop.h"

#include <GL/glew.h>          /* before cuda_gl_interop.h, which includes GL/gl.h */
#include <cuda_runtime_api.h>
#include <cuda_gl_interop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sr_interop {
    struct cudaGraphicsResource *res;
    int mapped;
    int texture;                  /* registered as an image (surface writes), not a buffer     */
    cudaArray_t array;            /* the texture's array at the last map                        */
    cudaSurfaceObject_t surface;  /* over `array`; 0 = none yet                                 */
    cudaStream_t stream;          /* where the last surface work was queued                     */
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

sr_status sr_interop_register_texture(unsigned int texture, sr_interop **out, sr_error *err)
{
    *out = NULL;
    sr_interop *io = (sr_interop *)calloc(1, sizeof *io);
    if (!io) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory");
    io->texture = 1;
    /* Surface load/store is what surf2Dwrite needs. */
    cudaError_t e = cudaGraphicsGLRegisterImage(&io->res, (GLuint)texture, GL_TEXTURE_2D,
                                                cudaGraphicsRegisterFlagsSurfaceLoadStore);
    /* Write-discard: the old content need not be kept at a map, the kernel writes every
     * texel. Only a hint, so a driver that refuses it costs nothing but the hint. */
    if (e == cudaSuccess && cudaGraphicsResourceSetMapFlags(io->res, cudaGraphicsMapFlagsWriteDiscard) != cudaSuccess)
        (void)cudaGetLastError();
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        free(io);
        return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: registering GL texture %u for surface writes failed: %s (%s)",
                       texture, cudaGetErrorString(e), cudaGetErrorName(e));
    }
    *out = io;
    return SR_OK;
}

sr_status sr_interop_map(sr_interop *io, void **ptr, size_t *bytes, sr_error *err)
{
    if (io->texture) return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: a texture has no device pointer; map it as a surface");
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

/* The surface object over the mapped texture's array, checked against the expected size. */
static sr_status sr_interop_surface_of(sr_interop *io, cudaStream_t s, uint32_t width, uint32_t height, sr_error *err)
{
    cudaArray_t array = NULL;
    SR_INTEROP_TRY(cudaGraphicsSubResourceGetMappedArray(&array, io->res, 0, 0), "getting the display texture's array");
    /* The array of a registered texture stays while its storage does (a resize registers
     * again), so one surface object serves every frame; should the array change anyway, the
     * old object goes only after the work that may still use it. */
    if (array == io->array && io->surface) return SR_OK;
    struct cudaChannelFormatDesc fmt;
    struct cudaExtent extent;
    unsigned int flags = 0;
    SR_INTEROP_TRY(cudaArrayGetInfo(&fmt, &extent, &flags, array), "reading the display texture's size");
    if (extent.width != width || extent.height != height || fmt.x != 8 || fmt.y != 8 || fmt.z != 8 || fmt.w != 8)
        return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: the display texture is %zux%zu with %d/%d/%d/%d-bit "
                       "channels; %ux%u RGBA8 expected (a surface write past its edge would trap)", extent.width,
                       extent.height, fmt.x, fmt.y, fmt.z, fmt.w, width, height);
    if (io->surface) {
        SR_INTEROP_TRY(cudaStreamSynchronize(io->stream ? io->stream : s), "waiting for the last display resolve");
        SR_INTEROP_TRY(cudaDestroySurfaceObject(io->surface), "destroying the old surface object");
        io->surface = 0;
        io->array = NULL;
    }
    struct cudaResourceDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.resType = cudaResourceTypeArray;
    desc.res.array.array = array;
    SR_INTEROP_TRY(cudaCreateSurfaceObject(&io->surface, &desc), "creating a surface object over the display texture");
    io->array = array;
    return SR_OK;
}

sr_status sr_interop_map_surface(sr_interop *io, void *stream, uint32_t width, uint32_t height, uint64_t *surface,
                                 sr_error *err)
{
    if (!io->texture) return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: a pixel buffer has no surface; map it as a buffer");
    cudaStream_t s = (cudaStream_t)stream;
    SR_INTEROP_TRY(cudaGraphicsMapResources(1, &io->res, s), "mapping the display texture");
    sr_status st = sr_interop_surface_of(io, s, width, height, err);
    if (st) {   /* leave it as it was: unmapped, GL's */
        (void)cudaGraphicsUnmapResources(1, &io->res, s);
        return st;
    }
    io->mapped = 1;
    io->stream = s;
    *surface = (uint64_t)io->surface;
    return SR_OK;
}

sr_status sr_interop_unmap_surface(sr_interop *io, void *stream, sr_error *err)
{
    io->mapped = 0;
    SR_INTEROP_TRY(cudaGraphicsUnmapResources(1, &io->res, (cudaStream_t)stream), "unmapping the display texture");
    return SR_OK;
}

void sr_interop_release(sr_interop *io)
{
    if (!io) return;
    if (io->mapped) (void)cudaGraphicsUnmapResources(1, &io->res, io->stream);
    if (io->surface) {   /* a resolve may still be writing through it */
        (void)cudaStreamSynchronize(io->stream);
        (void)cudaDestroySurfaceObject(io->surface);
    }
    cudaError_t e = cudaGraphicsUnregisterResource(io->res);
    if (e != cudaSuccess)   /* nothing to return to; say it, since a leak here lasts */
        fprintf(stderr, "stencilray: CUDA-OpenGL interop: unregistering the %s failed: %s\n",
                io->texture ? "display texture" : "pixel buffer", cudaGetErrorString(e));
    free(io);
}
