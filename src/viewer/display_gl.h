/* display_gl.h: what display.c uses of the GL plumbing in display_gl.c (internal to the
 * viewer's display; the public API is display.h). */
#ifndef SR_DISPLAY_GL_H
#define SR_DISPLAY_GL_H

#include "display.h"

/* A GL error code's name ("GL_INVALID_OPERATION"). */
const char *sr_gl_error_name(unsigned e);
/* The first GL error since the last check, as a failure that names the step `what`. */
sr_status sr_gl_check(const char *what, sr_error *err);
/* One shader of `type` (GL_VERTEX_SHADER, ...) compiled from its source; `name` names it in
 * errors (its path, or what it is), which carry the GL's log. */
sr_status sr_gl_compile(unsigned type, const char *src, const char *name, unsigned *out, sr_error *err);
/* A program of the two shaders, linked; `name` names the pair in errors. */
sr_status sr_gl_link(unsigned vs, unsigned fs, const char *name, unsigned *out, sr_error *err);
/* Compile and link shaders/display.vert and display.frag from `dir` into d->program and find
 * its uniforms. */
sr_status sr_gl_program(sr_display *d, const char *dir, sr_error *err);

#endif
