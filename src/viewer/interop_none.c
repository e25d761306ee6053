/* interop_none.c: stands in for interop.c in a build without CUDA: the display always takes
 * the host path. */
#include "interop.h"

#include <stdio.h>

int sr_interop_check(int device, char *why, size_t cap)
{
    (void)device;
    snprintf(why, cap, "this stencilray was built without CUDA");
    return 0;
}

sr_status sr_interop_register(unsigned int buffer, sr_interop **out, sr_error *err)
{
    (void)buffer;
    *out = NULL;
    return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: this stencilray was built without CUDA");
}

sr_status sr_interop_map(sr_interop *io, void **ptr, size_t *bytes, sr_error *err)
{
    (void)io; (void)ptr; (void)bytes;
    return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: this stencilray was built without CUDA");
}

sr_status sr_interop_unmap(sr_interop *io, sr_error *err)
{
    (void)io;
    return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: this stencilray was built without CUDA");
}

sr_status sr_interop_register_texture(unsigned int texture, sr_interop **out, sr_error *err)
{
    (void)texture;
    *out = NULL;
    return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: this stencilray was built without CUDA");
}

sr_status sr_interop_map_surface(sr_interop *io, void *stream, uint32_t width, uint32_t height, uint64_t *surface,
                                 sr_error *err)
{
    (void)io; (void)stream; (void)width; (void)height; (void)surface;
    return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: this stencilray was built without CUDA");
}

sr_status sr_interop_unmap_surface(sr_interop *io, void *stream, sr_error *err)
{
    (void)io; (void)stream;
    return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: this stencilray was built without CUDA");
}

void sr_interop_release(sr_interop *io) { (void)io; }

sr_status sr_shared_mem_create(int device, size_t bytes, sr_shared_mem **out, sr_error *err)
{
    (void)device; (void)bytes;
    *out = NULL;
    return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL shared memory: this stencilray was built without CUDA");
}

sr_status sr_shared_mem_export(sr_shared_mem *m, int *fd, uint64_t *size, sr_error *err)
{
    (void)m;
    *fd = -1;
    *size = 0;
    return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL shared memory: this stencilray was built without CUDA");
}

void *sr_shared_mem_ptr(const sr_shared_mem *m) { (void)m; return NULL; }

sr_status sr_shared_mem_fence(sr_shared_mem *m, void *stream, sr_error *err)
{
    (void)m; (void)stream;
    return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL shared memory: this stencilray was built without CUDA");
}

sr_status sr_shared_mem_wait(sr_shared_mem *m, sr_error *err)
{
    (void)m;
    return sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL shared memory: this stencilray was built without CUDA");
}

void sr_shared_mem_release(sr_shared_mem *m) { (void)m; }
