/* viewer.h: the interactive viewer (sr_view_run's window) and its help text. */
#ifndef SR_VIEWER_H
#define SR_VIEWER_H

#include "../../include/stencilray.h"
#include "view_opts.h"

/* The window on d's scene until it closes or d's script ends; camera_text: the camera as the
 * caller wrote it, for messages (NULL: none). Prints its messages; returns the exit code:
 * 0, 1 (no display, a device failure), 2 (bad input) or 128 + SIGINT (closed while the scene
 * was read). */
int sr_viewer_run(const sr_view_desc *d, const char *camera_text);

#endif
