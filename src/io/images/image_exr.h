/* image_exr.h: OpenEXR output (OpenEXRCore's C API): linear RGB, half or float. */
#ifndef SR_IMAGE_EXR_H
#define SR_IMAGE_EXR_H

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include "../../base/status.h"

typedef enum sr_exr_type { SR_EXR_HALF = 0, SR_EXR_FLOAT = 1 } sr_exr_type;

/* Encode w x h linear RGB floats (row 0 = top) times `exposure` as a one-part scanline EXR
 * (channels R, G, B; PIZ compression) into the open file `fd` from offset 0. `path` only names
 * the file in messages. Nothing is renamed or closed here. */
sr_status sr_exr_encode(int fd, const char *path, const float *rgb, uint32_t w, uint32_t h, float exposure,
                        sr_exr_type type, sr_error *err);

/* Read a one-part scanline EXR as linear RGB floats, row 0 at the top: *rgb (malloc'd,
 * 3 w h floats), *w, *h. The layouts OpenEXR defines for colour are read: R, G, B (an A or
 * any other channel ignored), Y alone (grey, copied to all three) and Y, RY, BY (luminance
 * and chroma, the chroma at full resolution or subsampled 2x in x, y or both, converted with
 * the file's chromaticities or Rec. 709's). The image's size is checked against max_side and
 * the memory against what is available, on top of `held` bytes the caller already holds,
 * before it is decoded. A file that is not an EXR, is tiled, deep or damaged, or has none of
 * these layouts is SR_ERR_INPUT naming it. */
sr_status sr_exr_read(const char *path, uint32_t max_side, uint64_t held, float **rgb, uint32_t *w, uint32_t *h,
                      sr_error *err);

/* "3.1.5": the library's version, for `stencilray info`. */
const char *sr_exr_version(void);

#endif
