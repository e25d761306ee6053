/* interop.h: CUDA–OpenGL sharing for the display. Registered once (again after a resize) and
 * mapped each frame: the GL texture itself, written by a kernel through a CUDA surface, or a
 * GL pixel buffer the CUDA backend writes linear floats into and GL then copies into the
 * texture (the older path, kept as a fallback and for comparison). Or never mapped: device
 * memory CUDA allocates exportable and GL imports once (sr_shared_mem, below).
 * interop.c with CUDA, interop_none.c without. */
#ifndef SR_INTEROP_H
#define SR_INTEROP_H

#include <stddef.h>
#include <stdint.h>
#include "../base/status.h"

typedef struct sr_interop sr_interop;

/* Can the current GL context share buffers with CUDA device `device`? 1 if so; 0 with the
 * reason in why (no CUDA build, GL on another GPU or on a software renderer). */
int sr_interop_check(int device, char *why, size_t cap);

/* Register GL buffer object `buffer` (its storage already allocated) for write-discard use. */
sr_status sr_interop_register(unsigned int buffer, sr_interop **out, sr_error *err);

/* Map for CUDA: *ptr is device memory of *bytes bytes until sr_interop_unmap. Work already
 * issued to GL on the buffer is finished before this returns. */
sr_status sr_interop_map(sr_interop *io, void **ptr, size_t *bytes, sr_error *err);

/* Give the buffer back to GL. CUDA work writing it must be finished (backend finish). */
sr_status sr_interop_unmap(sr_interop *io, sr_error *err);

/* Register GL texture `texture` (GL_TEXTURE_2D, GL_RGBA8, storage allocated) for surface
 * writes that replace all of it (the kernel never reads it). */
sr_status sr_interop_register_texture(unsigned int texture, sr_interop **out, sr_error *err);

/* Map a registered texture for CUDA, ordered on `stream` (a cudaStream_t): GL's earlier use of
 * the texture completes before later work on that stream starts, and the CPU does not wait.
 * *surface is a cudaSurfaceObject_t over it, for work queued before sr_interop_unmap_surface;
 * fails unless the texture is width x height.
 * A texture must not stay mapped while GL draws from it (CUDA leaves that undefined), so this
 * pair runs each frame. */
sr_status sr_interop_map_surface(sr_interop *io, void *stream, uint32_t width, uint32_t height, uint64_t *surface,
                                 sr_error *err);

/* Give the texture back to GL once the work queued on `stream` so far is done: GL's later
 * commands wait for it on the GPU; the CPU does not wait. */
sr_status sr_interop_unmap_surface(sr_interop *io, void *stream, sr_error *err);

void sr_interop_release(sr_interop *io);   /* unregister; NULL is fine */

/* Device memory shared with GL without a per-frame map: CUDA allocates it exportable
 * (cuMemCreate with a POSIX file descriptor handle), GL imports it once as a memory object
 * (GL_EXT_memory_object_fd) and backs a buffer with it. CUDA and GL alone have no semaphore
 * to share (CUDA and GL only import them; Vulkan would create them), so the two are ordered
 * on the CPU: CUDA's writes end with sr_shared_mem_fence + sr_shared_mem_wait before GL reads,
 * and GL's reads end with a GL fence the display waits for before CUDA writes again. */
typedef struct sr_shared_mem sr_shared_mem;

/* At least `bytes` of exportable memory on CUDA device `device`. */
sr_status sr_shared_mem_create(int device, size_t bytes, sr_shared_mem **out, sr_error *err);

/* A new file descriptor for the memory, for one import (glImportMemoryFdEXT owns it once the
 * import succeeds; close it otherwise), and the allocation's size to import. */
sr_status sr_shared_mem_export(sr_shared_mem *m, int *fd, uint64_t *size, sr_error *err);

void *sr_shared_mem_ptr(const sr_shared_mem *m);   /* device address of the memory */

/* Mark the end of the work queued on `stream` (a cudaStream_t) so far; sr_shared_mem_wait
 * blocks the CPU until it is done (CUDA's writes are then visible to GL's later commands). */
sr_status sr_shared_mem_fence(sr_shared_mem *m, void *stream, sr_error *err);
sr_status sr_shared_mem_wait(sr_shared_mem *m, sr_error *err);

/* Wait for the last fence, then free (GL keeps the memory until its own import is deleted). */
void sr_shared_mem_release(sr_shared_mem *m);

#endif
