/* interop.h: CUDA–OpenGL buffer sharing for the display. A GL pixel buffer is registered with
 * CUDA once (again after a resize) and mapped each frame, so the CUDA backend writes the image
 * straight into GL memory. interop.c with CUDA, interop_none.c without. */
#ifndef SR_INTEROP_H
#define SR_INTEROP_H

#include <stddef.h>
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

void sr_interop_release(sr_interop *io);   /* unregister; NULL is fine */

#endif
