/* image.h: from linear radiance to files: tonemapping, 8-bit sRGB PNG and Radiance HDR
 * through stb_image_write, OpenEXR through OpenEXRCore, always written to a temporary name and
 * renamed. */
#ifndef SR_IMAGE_H
#define SR_IMAGE_H

#include <stdint.h>
#include "../../base/status.h"
#include "image_exr.h"
#include "../../../kernels/core/tonemap.h"

/* Write w x h linear RGB floats (row 0 = top) to path; the format follows the extension:
 * .png (exposure, tonemap, sRGB, 8-bit), .hdr or .exr (linear radiance, exposure applied;
 * EXR as half floats with these two calls, see sr_image_write_as).
 * Any other extension is SR_ERR_INPUT. Nothing is left at `path` on failure. */
sr_status sr_image_write(const char *path, const float *rgb, uint32_t w, uint32_t h,
                         float exposure, sr_tonemap op, sr_error *err);

/* Everything that decides the file's content apart from the pixels. */
typedef struct sr_image_opts {
    float exposure;
    sr_tonemap tonemap;     /* PNG only */
    sr_exr_type exr_type;   /* EXR only: half (default) or float */
} sr_image_opts;
/* The same with every option; if stop() (may be NULL) says so before or after any write, the
 * temporary is removed and nothing replaces `path`: SR_INTERRUPTED (Ctrl-C while encoding).
 * PNG and HDR create the temporary at their first write: stb deflates a whole PNG before it
 * writes a byte. With stop given (the CLI's sr_interrupt_pending), what comes before that
 * write (the sRGB conversion, the deflate) is a quick-stop step (interrupt.h): a signal ends
 * the program there at once, nothing having been created. */
sr_status sr_image_write_as(const char *path, const float *rgb, uint32_t w, uint32_t h, const sr_image_opts *o,
                            int (*stop)(void), sr_error *err);
/* w x h 8-bit RGB bytes (row 0 = top, e.g. a screenshot) as a PNG, the same way. */
sr_status sr_image_write_png8(const char *path, const uint8_t *rgb8, uint32_t w, uint32_t h, sr_error *err);

/* Linear RGB floats -> 8-bit sRGB RGB bytes (w*h*3), for PNG and for tests. */
void sr_image_to_srgb8(const float *rgb, uint32_t w, uint32_t h, float exposure,
                       sr_tonemap op, uint8_t *out);

/* Does path end in .png / .hdr / .exr (case-insensitive)? SR_FMT_PNG, _HDR, _EXR, else 0. */
enum { SR_FMT_PNG = 1, SR_FMT_HDR = 2, SR_FMT_EXR = 3 };
int sr_image_format_known(const char *path);

#endif
