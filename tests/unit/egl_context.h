/* egl_context.h: a desktop OpenGL 3.3 core context without a window, for the display tests:
 * an EGL pbuffer on the first EGL device that gives one (EGL_EXT_device_enumeration): the
 * GPU's on the GPU machine, Mesa's software renderer elsewhere. */
#ifndef SR_TEST_EGL_CONTEXT_H
#define SR_TEST_EGL_CONTEXT_H

#include <stddef.h>

/* Make a w x h pbuffer and a GL 3.3 core context current on it. 1 on success; 0 with the
 * reason in why. */
int sr_test_egl_context(int w, int h, char *why, size_t cap);

void sr_test_egl_end(void);   /* let go of the display (and the context with it) */

#endif
