/* image_exr.h: OpenEXR output (OpenEXRCore's C API): linear RGB, half or float. */
#ifndef SR_IMAGE_EXR_H
#define SR_IMAGE_EXR_H

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include "status.h"

typedef enum sr_exr_type { SR_EXR_HALF = 0, SR_EXR_FLOAT = 1 } sr_exr_type;

/* Encode w x h linear RGB floats (row 0 = top) times `exposure` as a one-part scanline EXR
 * (channels R, G, B; ZIP compression) into the open file `fd` from offset 0. `path` only names
 * the file in messages. Nothing is renamed or closed here. */
sr_status sr_exr_encode(int fd, const char *path, const float *rgb, uint32_t w, uint32_t h, float exposure,
                        sr_exr_type type, sr_error *err);

/* "3.1.5": the library's version, for `stencilray info`. */
const char *sr_exr_version(void);

#endif
