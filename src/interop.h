/* interop.h: CUDA–OpenGL sharing for the display, registered once (again after a resize) and
 * mapped each frame. Two kinds: the GL texture itself, written by a kernel through a CUDA
 * surface (the display's default: no copy on the GL side), or a GL pixel buffer the CUDA
 * backend writes linear floats into and GL then copies into the texture (the older path,
 * kept as a fallback and for comparison). interop.c with CUDA, interop_none.c without. */
#ifndef SR_INTEROP_H
#define SR_INTEROP_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"

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

#endif
