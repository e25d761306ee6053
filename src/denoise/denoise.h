/* denoise.h: Intel Open Image Denoise's "RT" filter over a linear RGB image, the library
 * loaded at run time (dlopen), so the renderer works where it is not installed. */
#ifndef SR_DENOISE_H
#define SR_DENOISE_H

#include <stddef.h>

#include "../base/status.h"

/* The one line that says what to install when the library cannot be loaded. */
#define SR_DENOISE_MISSING "denoising needs Intel Open Image Denoise: run .ci/install-deps, or install OIDN 2 " \
                           "(libOpenImageDenoise.so.2)"

/* 1 when the library loads (the first call loads it; later calls reuse it), else 0. */
int sr_denoise_lib_available(void);

/* Denoise rgb (width * height * 3 linear floats, HDR) into out (the same size; may be rgb).
 * albedo and normal (the same layout; either may be NULL) guide the filter as noisy passes
 * rendered with the image; normal is used only with albedo, as the filter requires.
 * SR_ERR_INPUT with SR_DENOISE_MISSING when the library cannot be loaded; SR_ERR_RUNTIME
 * with the library's message when the filter fails. */
sr_status sr_denoise_image(size_t width, size_t height, const float *rgb, const float *albedo, const float *normal,
                           float *out, sr_error *err);

#endif
