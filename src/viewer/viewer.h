/* viewer.h: `stencilray view`, the interactive viewer. */
#ifndef SR_VIEWER_H
#define SR_VIEWER_H

/* argv[1] is "view". Returns the exit code. */
int sr_view_main(int argc, char **argv);

#endif
