/* view_load.h: the viewer's scene read on a loading thread while its window is already open:
 * the title says what is being read ("reading mesh NAME 62 %"), the window keeps answering,
 * and Esc or closing it stops the read (at the next progress report of a mesh reader; a file
 * that assimp reads stops when assimp is done with it). */
#ifndef SR_VIEW_LOAD_H
#define SR_VIEW_LOAD_H

#include <GLFW/glfw3.h>
#include "../app/options.h"

/* sr_open_scene(c, "view", scene) on a thread while win shows the progress. Returns its exit
 * code (0: the scene is loaded and must be freed), or 128 + SIGINT when Esc or the window's
 * close button stopped it (the message is printed). */
int sr_view_load(GLFWwindow *win, sr_common *c, sr_scene *scene);

#endif
