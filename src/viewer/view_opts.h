/* view_opts.h: `stencilray view`'s command line: its help text, and the options and script
 * steps it parses into (view_opts.c). */
#ifndef SR_VIEW_OPTS_H
#define SR_VIEW_OPTS_H

#include "../settings/camera_arg.h"
#include "../app/options.h"

#include <stdint.h>

#define SR_MAX_STEPS 64

typedef enum sr_step_kind {
    SR_STEP_FRAMES, SR_STEP_DEPTH, SR_STEP_MASK, SR_STEP_SIZE, SR_STEP_EXPOSURE, SR_STEP_TONEMAP,
    SR_STEP_CAMERA, SR_STEP_SHOT, SR_STEP_PRINT, SR_STEP_KEY
} sr_step_kind;

typedef struct sr_step {
    sr_step_kind kind;
    uint32_t a, b;     /* frames, depth, mask, tonemap, key (its character); size a x b */
    float f[1];        /* exposure                                  */
    sr_camera_arg cam; /* camera                                    */
    const char *path;  /* shot                                      */
} sr_step;

typedef struct sr_view_opts {
    sr_common c;
    uint32_t frames;
    const char *screenshot, *shader_dir;
    int vsync;               /* -1 = default */
    sr_step steps[SR_MAX_STEPS];
    uint32_t step_count;
    char *script;            /* owned copy, steps point into it */
} sr_view_opts;

/* The help of `stencilray view`. */
extern const char sr_view_help[];

/* The key list: the help's "Controls:" part, *len bytes (what H shows and prints). */
const char *sr_view_keys(size_t *len);

/* Parse `view`'s arguments (argv[2..]) into *o: 0, or the exit status after a message on
 * stderr (2 for a usage error); *help is set for -h/--help. o->script is owned by *o. */
int sr_view_parse(int argc, char **argv, sr_view_opts *o, int *help);

#endif
