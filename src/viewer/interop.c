/* interop.c: CUDA–OpenGL sharing (built with the CUDA backend). Every CUDA call is checked and
 * a failure says which step failed, with CUDA's error name. */
#include "interop.h"

#include <GL/glew.h>          /* before cuda_gl_interop.h, which includes GL/gl.h */
#include <cuda_runtime_api.h>
#include <cuda_gl_interop.h>
#include <cuda.h>             /* the driver API's types, for exportable memory (entry points found at run time) */
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

/* ---- memory GL imports once ------------------------------------------------------------ */

/* The driver API's virtual memory calls, found through the runtime (cudaGetDriverEntryPoint-
 * ByVersion) so that the program needs no link against libcuda beyond what cudart loads. */
typedef CUresult (*sr_cu_device_get_attribute)(int *, CUdevice_attribute, CUdevice);
typedef CUresult (*sr_cu_granularity)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
typedef CUresult (*sr_cu_mem_create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
typedef CUresult (*sr_cu_address_reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
typedef CUresult (*sr_cu_mem_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
typedef CUresult (*sr_cu_set_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
typedef CUresult (*sr_cu_export)(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType, unsigned long long);
typedef CUresult (*sr_cu_unmap)(CUdeviceptr, size_t);
typedef CUresult (*sr_cu_address_free)(CUdeviceptr, size_t);
typedef CUresult (*sr_cu_release)(CUmemGenericAllocationHandle);

static struct {
    int loaded;
    sr_cu_device_get_attribute device_get_attribute;
    sr_cu_granularity granularity;
    sr_cu_mem_create mem_create;
    sr_cu_address_reserve address_reserve;
    sr_cu_mem_map mem_map;
    sr_cu_set_access set_access;
    sr_cu_export export_handle;
    sr_cu_unmap unmap;
    sr_cu_address_free address_free;
    sr_cu_release release;
} sr_cu;

struct sr_shared_mem {
    CUmemGenericAllocationHandle handle;
    CUdeviceptr ptr;
    size_t size;            /* the allocation, rounded up to the granularity */
    int handle_made, reserved, mapped;
    cudaEvent_t done;       /* recorded by sr_shared_mem_fence */
    int fenced;
};

static sr_status sr_cu_load(sr_error *err)
{
    if (sr_cu.loaded) return SR_OK;
    const struct { const char *name; void **fn; } want[] = {
        { "cuDeviceGetAttribute", (void **)&sr_cu.device_get_attribute },
        { "cuMemGetAllocationGranularity", (void **)&sr_cu.granularity },
        { "cuMemCreate", (void **)&sr_cu.mem_create },
        { "cuMemAddressReserve", (void **)&sr_cu.address_reserve },
        { "cuMemMap", (void **)&sr_cu.mem_map },
        { "cuMemSetAccess", (void **)&sr_cu.set_access },
        { "cuMemExportToShareableHandle", (void **)&sr_cu.export_handle },
        { "cuMemUnmap", (void **)&sr_cu.unmap },
        { "cuMemAddressFree", (void **)&sr_cu.address_free },
        { "cuMemRelease", (void **)&sr_cu.release },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        /* 11020: the versions of these entry points that CUDA 11.2 and later have */
        cudaError_t e = cudaGetDriverEntryPointByVersion(want[i].name, want[i].fn, 11020, cudaEnableDefault, &found);
        if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !*want[i].fn) {
            (void)cudaGetLastError();
            return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL shared memory: the CUDA driver has no %s (%s)", want[i].name,
                           e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found or driver too old");
        }
    }
    sr_cu.loaded = 1;
    return SR_OK;
}

#define SR_CU_TRY(call, what)                                                                     \
    do {                                                                                          \
        CUresult r_ = (call);                                                                     \
        if (r_ != CUDA_SUCCESS) {                                                                 \
            sr_shared_mem_release(m);                                                             \
            return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL shared memory: %s failed: CUresult %d", what, \
                           (int)r_);                                                              \
        }                                                                                         \
    } while (0)

sr_status sr_shared_mem_create(int device, size_t bytes, sr_shared_mem **out, sr_error *err)
{
    *out = NULL;
    sr_status s = sr_cu_load(err);
    if (s) return s;
    SR_INTEROP_TRY(cudaSetDevice(device), "selecting the CUDA device");
    SR_INTEROP_TRY(cudaFree(NULL), "starting the CUDA context");   /* the VMM calls need a current context */
    sr_shared_mem *m = (sr_shared_mem *)calloc(1, sizeof *m);
    if (!m) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory");
    int exportable = 0;
    SR_CU_TRY(sr_cu.device_get_attribute(&exportable, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                                         (CUdevice)device), "asking whether memory exports to a file descriptor");
    if (!exportable) {
        sr_shared_mem_release(m);
        return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL shared memory: CUDA device %d cannot export memory to a file "
                       "descriptor", device);
    }
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t granularity = 0;
    SR_CU_TRY(sr_cu.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "reading the allocation granularity");
    if (!granularity) granularity = 2u << 20;
    m->size = (bytes + granularity - 1) / granularity * granularity;
    SR_CU_TRY(sr_cu.mem_create(&m->handle, m->size, &prop, 0), "allocating exportable device memory (cuMemCreate)");
    m->handle_made = 1;
    SR_CU_TRY(sr_cu.address_reserve(&m->ptr, m->size, granularity, 0, 0), "reserving device addresses");
    m->reserved = 1;
    SR_CU_TRY(sr_cu.mem_map(m->ptr, m->size, 0, m->handle, 0), "mapping the exportable memory");
    m->mapped = 1;
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    SR_CU_TRY(sr_cu.set_access(m->ptr, m->size, &access, 1), "allowing the device to read and write the memory");
    cudaError_t e = cudaEventCreateWithFlags(&m->done, cudaEventDisableTiming);
    if (e != cudaSuccess) {
        m->done = NULL;
        sr_shared_mem_release(m);
        return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL shared memory: creating an event failed: %s", cudaGetErrorString(e));
    }
    *out = m;
    return SR_OK;
}

sr_status sr_shared_mem_export(sr_shared_mem *m, int *fd, uint64_t *size, sr_error *err)
{
    *fd = -1;
    *size = m->size;
    CUresult r = sr_cu.export_handle(fd, m->handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    if (r != CUDA_SUCCESS || *fd < 0)
        return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL shared memory: exporting the memory to a file descriptor failed: "
                       "CUresult %d", (int)r);
    return SR_OK;
}

void *sr_shared_mem_ptr(const sr_shared_mem *m) { return (void *)(uintptr_t)m->ptr; }

sr_status sr_shared_mem_fence(sr_shared_mem *m, void *stream, sr_error *err)
{
    SR_INTEROP_TRY(cudaEventRecord(m->done, (cudaStream_t)stream), "marking the end of the writes to shared memory");
    m->fenced = 1;
    return SR_OK;
}

sr_status sr_shared_mem_wait(sr_shared_mem *m, sr_error *err)
{
    if (!m->fenced) return SR_OK;
    SR_INTEROP_TRY(cudaEventSynchronize(m->done), "waiting for the writes to shared memory");
    return SR_OK;
}

void sr_shared_mem_release(sr_shared_mem *m)
{
    if (!m) return;
    if (m->fenced) (void)cudaEventSynchronize(m->done);   /* no write may land in freed memory */
    if (m->done) (void)cudaEventDestroy(m->done);
    CUresult r = CUDA_SUCCESS;
    if (m->mapped && r == CUDA_SUCCESS) r = sr_cu.unmap(m->ptr, m->size);
    if (m->reserved && r == CUDA_SUCCESS) r = sr_cu.address_free(m->ptr, m->size);
    if (m->handle_made && r == CUDA_SUCCESS) r = sr_cu.release(m->handle);
    if (r != CUDA_SUCCESS)   /* nothing to return to; say it, since a leak here lasts */
        fprintf(stderr, "stencilray: CUDA-OpenGL shared memory: freeing it failed: CUresult %d\n", (int)r);
    free(m);
}
