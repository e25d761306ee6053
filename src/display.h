/* display.h: the GL side of the viewer: shaders (shaders/display.vert, display.frag), the
 * film textures and the ways the film reaches them (sr_display_path). Works with any current
 * GL 3.3 core context, whoever made it (a GLFW window, an EGL pbuffer); never calls GLFW. */
#ifndef SR_DISPLAY_H
#define SR_DISPLAY_H

#include <stddef.h>
#include <stdint.h>
#include "backend.h"
#include "interop.h"
#include "status.h"
#include "../kernels/tonemap.h"

/* How the film reaches the texture that is drawn. */
typedef enum sr_display_path {
    SR_DISPLAY_HOST = 0,        /* read_film to host memory, glTexSubImage2D into the RGB32F
                                   texture; the shader tonemaps (any backend)                 */
    SR_DISPLAY_PIXEL_BUFFER,    /* CUDA writes linear floats into a mapped GL pixel buffer, GL
                                   copies it into the RGB32F texture; the shader tonemaps     */
    SR_DISPLAY_SURFACE          /* a CUDA kernel tonemaps straight into the RGBA8 texture
                                   through a surface; the shader only draws it (the default
                                   with a CUDA backend)                                      */
} sr_display_path;

typedef struct sr_display {
    unsigned int program, vao, tex, pbo;     /* GL names                                  */
    unsigned int tex8;                       /* RGBA8 texture of the surface path; 0: none */
    unsigned int timer[2];                   /* GL_TIME_ELAPSED queries around draws      */
    int timer_used[2], timer_next;
    double draw_ms;                          /* the GPU time of a recent draw; < 0: none  */
    int u_film, u_viewport, u_exposure, u_tonemap, u_encoded;
    uint32_t width, height;                  /* the texture's size: the film's            */
    sr_display_path path;
    sr_interop *interop;                     /* what CUDA has registered; NULL: host path */
    int interop_device;                      /* the CUDA device it was enabled for        */
    float shown_exposure;                    /* what the RGBA8 texture was tonemapped     */
    sr_tonemap shown_tonemap;                /* with (surface path), once shown_valid     */
    int shown_valid;
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

/* Size the textures and the pixel buffer for a w x h film. An interop registration is renewed
 * on the same path; if that fails the display drops to the host path, says why in `note` (may
 * be NULL) and still returns SR_OK. */
sr_status sr_display_resize(sr_display *d, uint32_t w, uint32_t h, char *note, size_t cap, sr_error *err);

/* Use CUDA–GL interop for a CUDA backend on `device`: checks that the context is on that
 * device (cudaGLGetDevices) and registers what `want` needs: SR_DISPLAY_SURFACE the RGBA8
 * texture (falling back to the pixel buffer if that fails), SR_DISPLAY_PIXEL_BUFFER the pixel
 * buffer only. Returns the path taken; SR_DISPLAY_HOST (0) if none, the display staying on
 * the host path. `why` says why a path was not taken (empty when `want` was). */
sr_display_path sr_display_enable_interop(sr_display *d, int device, sr_display_path want, char *why, size_t cap);

/* The film of `be` times `scale` into the texture that is drawn:
 * - surface path: map the texture on the backend's queue, one kernel applies scale, exposure
 *   and tonemap (kernels/tonemap.h, as `render` does for PNGs) and writes RGBA8 texels, unmap;
 *   queued, the CPU does not wait, GL's next use of the texture waits on the GPU;
 * - pixel buffer: map (waits for GL), the film resolve (sr_backend_resolve_film), wait, unmap, GL copy buffer -> texture;
 * - host: sr_backend_read_film to host memory, glTexSubImage2D.
 * The last two store linear radiance and the draw applies exposure and tonemap. */
sr_status sr_display_upload(sr_display *d, sr_backend *be, float scale, float exposure, sr_tonemap op, sr_error *err);

/* Whether a draw with this exposure and tonemap needs an upload first: on the surface path the
 * texture holds display values made with the settings of its upload. */
int sr_display_stale(const sr_display *d, float exposure, sr_tonemap op);

/* Draw the texture over a fb_w x fb_h framebuffer (whatever is bound) with exposure and
 * tonemap (unless the texture holds display values already); the film is stretched if its
 * size differs. The draw is timed on the GPU (a GL_TIME_ELAPSED query, read back two draws
 * later so that it never waits): see sr_display_draw_ms. */
sr_status sr_display_draw(sr_display *d, int fb_w, int fb_h, float exposure, sr_tonemap op, sr_error *err);

/* The GPU milliseconds of a recent draw (two draws back), or a negative value before any. */
double sr_display_draw_ms(const sr_display *d);

/* "surface", "pixel buffer" or "host": for titles and messages. */
const char *sr_display_path_name(sr_display_path path);

/* Read the current read buffer's w x h pixels as RGB bytes, row 0 = top (w*h*3). */
sr_status sr_display_read_rgb8(int w, int h, uint8_t *rgb, sr_error *err);

/* Read w x h pixels back and write them as PNG to path, through a temporary name and a rename. */
sr_status sr_display_save_png(const char *path, int w, int h, sr_error *err);

void sr_display_free(sr_display *d);

#endif
