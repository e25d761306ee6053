/* cmd_view.h: `stencilray view`, the interactive viewer. */
#ifndef SR_CMD_VIEW_H
#define SR_CMD_VIEW_H

/* argv[1] is "view". Returns the exit code. */
int sr_view_main(int argc, char **argv);

#endif
