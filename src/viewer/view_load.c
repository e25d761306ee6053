/* view_load.c: the scene read on a thread while the window shows progress (see view_load.h).
 * The thread only reads files: the backend, GL and the window stay on the main thread. */
#include "view_load.h"
#include "../io/meshes/mesh.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

typedef struct sr_view_loading {
    sr_common *c;
    sr_scene *scene;
    int code;
    pthread_mutex_t lock;   /* guards what follows */
    int done, cancel;
    char file[96];          /* the mesh being read ("" between meshes) */
    int percent;
} sr_view_loading;

/* The mesh readers' progress (mesh.h, sr_mesh_listen), from the loading thread. */
static int sr_view_heard(void *ctx, const char *path, double fraction)
{
    sr_view_loading *l = (sr_view_loading *)ctx;
    const char *name = strrchr(path, '/');
    pthread_mutex_lock(&l->lock);
    sr_sanitize(l->file, sizeof l->file, name ? name + 1 : path);   /* it goes into a window title */
    l->percent = (int)(fraction * 100.0);
    const int cancel = l->cancel;
    pthread_mutex_unlock(&l->lock);
    return cancel;
}

static void *sr_view_load_thread(void *arg)
{
    sr_view_loading *l = (sr_view_loading *)arg;
    const int code = sr_open_scene(l->c, "view", l->scene);
    pthread_mutex_lock(&l->lock);
    l->code = code;
    l->done = 1;
    pthread_mutex_unlock(&l->lock);
    glfwPostEmptyEvent();   /* wakes the main thread's wait */
    return NULL;
}

int sr_view_load(GLFWwindow *win, sr_common *c, sr_scene *scene)
{
    sr_view_loading l;
    memset(&l, 0, sizeof l);
    l.c = c;
    l.scene = scene;
    l.percent = -1;
    pthread_mutex_init(&l.lock, NULL);
    sr_mesh_listen(sr_view_heard, &l);
    pthread_t t;
    if (pthread_create(&t, NULL, sr_view_load_thread, &l) != 0) {
        sr_view_load_thread(&l);   /* no thread: read here, without progress */
    } else {
        char shown[160] = "";
        for (;;) {
            glfwWaitEventsTimeout(0.1);
            const int stop = glfwWindowShouldClose(win) || glfwGetKey(win, GLFW_KEY_ESCAPE) == GLFW_PRESS;
            char title[160];
            pthread_mutex_lock(&l.lock);
            if (stop) l.cancel = 1;
            const int done = l.done;
            if (l.file[0] && l.percent >= 0 && l.percent < 100)
                snprintf(title, sizeof title, "stencilray | reading mesh %s %d %%%s", l.file, l.percent,
                         l.cancel ? " | stopping" : "");
            else
                snprintf(title, sizeof title, "stencilray | reading the scene%s", l.cancel ? " | stopping" : "");
            pthread_mutex_unlock(&l.lock);
            if (done) break;
            if (strcmp(title, shown)) {
                glfwSetWindowTitle(win, title);
                snprintf(shown, sizeof shown, "%s", title);
            }
            glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            glfwSwapBuffers(win);
        }
        pthread_join(t, NULL);
    }
    sr_mesh_listen(NULL, NULL);
    pthread_mutex_destroy(&l.lock);
    if (l.cancel && l.code == 0) {   /* stopped after the last read: the scene is whole, but not wanted */
        sr_scene_free(scene);
        l.code = 128 + SIGINT;
    }
    if (l.cancel) {
        fprintf(stderr, "stencilray view: loading stopped (Esc or the window closed)\n");
        return 128 + SIGINT;
    }
    return l.code;
}
