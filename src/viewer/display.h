/* display.h: the GL side of the viewer: shaders (shaders/display.vert, display.frag), the
 * film textures and the ways the film reaches them (sr_display_path). Works with any current
 * GL 3.3 core context, whoever made it (a GLFW window, an EGL pbuffer); never calls GLFW. */
#ifndef SR_DISPLAY_H
#define SR_DISPLAY_H

#include <stddef.h>
#include <stdint.h>
#include "../render/render.h"
#include "interop.h"
#include "../base/status.h"
#include "../../kernels/core/tonemap.h"

/* How the film reaches the texture that is shown. */
typedef enum sr_display_path {
    SR_DISPLAY_HOST = 0,        /* read_film to host memory, glTexSubImage2D into the RGB32F
                                   texture; the shader tonemaps (any backend)                 */
    SR_DISPLAY_PIXEL_BUFFER,    /* CUDA writes linear floats into a mapped GL pixel buffer, GL
                                   copies it into the RGB32F texture; the shader tonemaps     */
    SR_DISPLAY_SURFACE,         /* a CUDA kernel tonemaps straight into the RGBA8 texture
                                   through a surface, mapped and unmapped each frame          */
    SR_DISPLAY_EXTMEM           /* a CUDA kernel tonemaps into RGBA8 rows in memory GL imported
                                   once (GL_EXT_memory_object_fd): no map, no unmap; GL copies
                                   the rows into the RGBA8 texture (ordered on the CPU)       */
} sr_display_path;

/* How the texture reaches the framebuffer, on the paths whose texture holds display values
 * already (surface, external memory); the others always draw (their shader tonemaps). */
typedef enum sr_display_present {
    SR_PRESENT_DRAW = 0,        /* a fullscreen triangle with shaders/display.frag          */
    SR_PRESENT_BLIT,            /* glBlitFramebuffer from a framebuffer over the texture: no
                                   shader; flipped and stretched as the draw is (nearest)   */
    SR_PRESENT_DRAW_ROWS        /* external memory only: the fullscreen triangle reads the
                                   shared rows through a buffer texture; GL copies nothing  */
} sr_display_present;

/* A display path as the environment variable SR_DISPLAY_PATH names it. */
typedef struct sr_display_choice {
    const char *name;           /* "extmem", "blit", "draw", "extmem-draw", "extmem-rows",
                                   "pbo", "host"                                            */
    sr_display_path path;
    sr_display_present present;
} sr_display_choice;

/* The choices, the default (the one expected to be fastest) first; count in *n. */
const sr_display_choice *sr_display_choices(int *n);

/* The choice named `name`, or NULL (names listed in `expected`, may be NULL). */
const sr_display_choice *sr_display_choice_find(const char *name, char *expected, size_t cap);

typedef struct sr_display {
    unsigned int program, vao, tex, pbo;     /* GL names                                  */
    unsigned int tex8;                       /* RGBA8 texture of the surface and external-
                                                memory paths; 0: none                    */
    unsigned int read_fbo;                   /* framebuffer over tex8, for the blit        */
    unsigned int read_fbo_tex;               /* what read_fbo has attached (0: nothing)    */
    unsigned int timer[2];                   /* GL_TIME_ELAPSED queries around GL's work  */
    int timer_used[2], timer_next, timer_open;
    double draw_ms;                          /* GPU time of a recent frame's GL work (the
                                                external-memory copy and the draw or blit);
                                                < 0: none                                 */
    int u_film, u_viewport, u_exposure, u_tonemap, u_encoded, u_rows, u_rows_size;
    uint32_t width, height;                  /* the texture's size: the film's            */
    sr_display_path path;
    sr_display_present present;              /* SR_PRESENT_BLIT: blit where the path allows */
    sr_interop *interop;                     /* what CUDA has registered; NULL: none      */
    sr_shared_mem *shared;                   /* external-memory path: CUDA's side          */
    unsigned int shared_mem, shared_buf;     /* ... GL's memory object and buffer over it  */
    unsigned int rows_tex;                   /* ... and a buffer texture over that; 0: none
                                                (more texels than the GL allows)          */
    void *shared_fence;                      /* GLsync after GL's last read of it; NULL: none */
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
 * device (cudaGLGetDevices) and sets up what `want` needs: SR_DISPLAY_EXTMEM exportable CUDA
 * memory imported into GL (falling back to the surface path if the GL lacks
 * GL_EXT_memory_object_fd or the import fails), SR_DISPLAY_SURFACE the RGBA8 texture
 * registered (falling back to the pixel buffer), SR_DISPLAY_PIXEL_BUFFER the pixel buffer only.
 * Returns the path taken; SR_DISPLAY_HOST (0) if none, the display staying on the host path.
 * `why` says why a path was not taken (empty when `want` was). */
sr_display_path sr_display_enable_interop(sr_display *d, int device, sr_display_path want, char *why, size_t cap);

/* Whether the current GL context has what the external-memory path needs
 * (GL_EXT_memory_object, GL_EXT_memory_object_fd); if not, says what is missing in why. */
int sr_display_extmem_supported(char *why, size_t cap);

/* Present by drawing or by blitting (see sr_display_present); a path that needs the shader
 * draws whatever this says. */
void sr_display_set_present(sr_display *d, sr_display_present present);

/* Whether the draw blits on the current path. */
int sr_display_blits(const sr_display *d);

/* Whether the draw reads the shared rows themselves (SR_PRESENT_DRAW_ROWS on the external-
 * memory path, where the GL allows a buffer texture that large); then GL copies nothing. */
int sr_display_draws_rows(const sr_display *d);

/* The film of the renderer `r` times `scale` into the texture that is drawn:
 * - surface path: map the texture on the backend's queue, one kernel applies scale, exposure
 *   and tonemap (kernels/core/tonemap.h, as `render` does for PNGs) and writes RGBA8 texels, unmap;
 *   queued, the CPU does not wait, GL's next use of the texture waits on the GPU;
 * - external memory: wait (CPU) for GL's last read of the shared rows (a GL fence, long
 *   passed as a rule), the same kernel writes RGBA8 rows into them, wait (CPU) for it, GL
 *   copies the rows into the RGBA8 texture and sets a fence;
 * - pixel buffer: map (waits for GL), the film resolve (sr_renderer_resolve_film), wait, unmap, GL copy buffer -> texture;
 * - host: sr_renderer_read_film to host memory, glTexSubImage2D.
 * The last two store linear radiance and the draw applies exposure and tonemap. */
sr_status sr_display_upload(sr_display *d, sr_renderer *r, float scale, float exposure, sr_tonemap op, sr_error *err);

/* GL's half of the external-memory upload, for measuring it alone: the shared rows (written
 * by CUDA and waited for) into the RGBA8 texture, then a fence CUDA's next write waits for.
 * Nothing when the draw reads the rows themselves (sr_display_draws_rows). */
sr_status sr_display_extmem_copy(sr_display *d, sr_error *err);

/* Whether a draw with this exposure and tonemap needs an upload first: on the surface and
 * external-memory paths the texture holds display values made with the settings of its upload. */
int sr_display_stale(const sr_display *d, float exposure, sr_tonemap op);

/* Draw the texture over a fb_w x fb_h framebuffer (whatever is bound for drawing) with
 * exposure and tonemap (unless the texture holds display values already), or blit it there
 * (SR_PRESENT_BLIT on the surface and external-memory paths); the film is stretched (nearest
 * texel) if its size differs, row 0 of the film at the top. GL's part of the frame (the
 * external-memory copy and this) is timed on the GPU (a GL_TIME_ELAPSED query, read back two
 * frames later so that it never waits): see sr_display_draw_ms. */
sr_status sr_display_draw(sr_display *d, int fb_w, int fb_h, float exposure, sr_tonemap op, sr_error *err);

/* The GPU milliseconds of a recent frame's GL work (two frames back), or a negative value
 * before any. */
double sr_display_draw_ms(const sr_display *d);

/* "external memory", "surface", "pixel buffer" or "host": for titles and messages. */
const char *sr_display_path_name(sr_display_path path);

/* Read the current read buffer's w x h pixels as RGB bytes, row 0 = top (w*h*3). */
sr_status sr_display_read_rgb8(int w, int h, uint8_t *rgb, sr_error *err);

/* Read w x h pixels back and write them as PNG to path, through a temporary name and a rename. */
sr_status sr_display_save_png(const char *path, int w, int h, sr_error *err);

void sr_display_free(sr_display *d);

#endif
