/* view_opts.h: `stencilray view`'s help text and its key list (view_opts.c). */
#ifndef SR_VIEW_OPTS_H
#define SR_VIEW_OPTS_H

#include <stddef.h>

#define SR_MAX_STEPS 64   /* a script's steps at most (sr_view_desc.step_count) */

/* The help of `stencilray view`. */
extern const char sr_view_help[];

/* The key list: the help's "Controls:" part, *len bytes (what H shows and prints). */
const char *sr_view_keys(size_t *len);

#endif
