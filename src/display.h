/* display.h: the GL side of the viewer: shaders (shaders/display.vert, display.frag), the
 * film texture and the pixel buffer it is uploaded from. Works with any current GL 3.3 core
 * context, whoever made it (a GLFW window, an EGL pbuffer); never calls GLFW. */
#ifndef SR_DISPLAY_H
#define SR_DISPLAY_H

#include <stddef.h>
#include <stdint.h>
#include "backend.h"
#include "interop.h"
#include "status.h"
#include "../kernels/tonemap.h"

typedef struct sr_display {
    unsigned int program, vao, tex, pbo;     /* GL names                                  */
    int u_film, u_viewport, u_exposure, u_tonemap;
    uint32_t width, height;                  /* the texture's size: the film's            */
    sr_interop *interop;                     /* PBO registered with CUDA; NULL: host path */
    int interop_device;                      /* the CUDA device it was enabled for        */
    float *host;                             /* host path staging (width*height*3)        */
    char shader_dir[1024];
    char gl_renderer[256];                   /* "llvmpipe (LLVM 15.0.6, 256 bits)", ...   */
} sr_display;

/* Load GL entry points (GLEW) for the current context and check that it is GL 3.3 or newer. */
sr_status sr_display_gl_load(sr_error *err);

/* Find the shader folder: `dir` when not NULL, else next to the binary (<exe dir>/shaders),
 * installed (<exe dir>/../share/stencilray/shaders), or the source tree (SR_DATA_DIR). */
sr_status sr_display_find_shaders(const char *dir, char *out, size_t cap, sr_error *err);

/* Compile the shaders (from shader_dir, see sr_display_find_shaders) and make the GL objects.
 * Starts on the host path; call sr_display_resize before the first upload. */
sr_status sr_display_init(sr_display *d, const char *shader_dir, sr_error *err);

/* Size the texture and the pixel buffer for a w x h film. An interop registration is renewed;
 * if that fails the display drops to the host path, says why in `note` (may be NULL) and
 * still returns SR_OK. */
sr_status sr_display_resize(sr_display *d, uint32_t w, uint32_t h, char *note, size_t cap, sr_error *err);

/* Use CUDA–GL interop for a CUDA backend on `device`: checks that the context is on that
 * device (cudaGLGetDevices) and registers the pixel buffer. 1 on success; 0 with the reason
 * in why (the display stays on the host path). */
int sr_display_enable_interop(sr_display *d, int device, char *why, size_t cap);

/* The film of `be` times `scale` into the texture: map -> resolve_device -> unmap -> upload
 * from the PBO (interop), or read_film to host -> glTexSubImage2D. Waits for the backend. */
sr_status sr_display_upload(sr_display *d, sr_backend *be, float scale, sr_error *err);

/* Draw the texture over a fb_w x fb_h framebuffer (whatever is bound) with exposure and
 * tonemap; the film is stretched if its size differs. */
sr_status sr_display_draw(sr_display *d, int fb_w, int fb_h, float exposure, sr_tonemap op, sr_error *err);

/* Read the current read buffer's w x h pixels as RGB bytes, row 0 = top (w*h*3). */
sr_status sr_display_read_rgb8(int w, int h, uint8_t *rgb, sr_error *err);

/* Read w x h pixels back and write them as PNG to path, through a temporary name and a rename. */
sr_status sr_display_save_png(const char *path, int w, int h, sr_error *err);

void sr_display_free(sr_display *d);

#endif
