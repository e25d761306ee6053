/* options.h: the options render, bench and view share, parsed strictly: a bad value names
 * the option, says what it got and what is expected, and the command exits 2. They fill the
 * public sr_frame_desc (include/stencilray.h); sr_open_scene builds the frame from it over the
 * scene with the library's sr_frame_build, as the API does. */
#ifndef SR_OPTIONS_H
#define SR_OPTIONS_H

#include <stdint.h>
#include "../../include/stencilray.h"
#include "../backend/backend.h"
#include "../settings/camera_arg.h"
#include "../api/frame_desc.h"
#include "../render/frame.h"
#include "../render/render.h"
#include "../farm/farm.h"
#include "../scene/scene.h"
#include "../../kernels/core/tonemap.h"

#define SR_DEFAULT_SCENE "scenes/default.json"
#define SR_MAX_THREADS 4096u   /* --threads */

typedef struct sr_args { int argc, i; char **argv; const char *cmd; } sr_args;

typedef struct sr_common {
    const char *scene_path;
    sr_frame_desc ask;                    /* what the options ask for; 0: the scene's value or
                                             the default (stencilray.h)                   */
    float exposure;                       /* --exposure (0 is black), default 1            */
    sr_tonemap_kind tonemap;              /* --tonemap                                     */
    const char *device_list;              /* --device as given: "0", "all", "0,2,3", "cpu,cpu"
                                             (render spreads a frame over them: src/farm) */
    int quiet;
    int operands;                         /* "--" was seen: every later argument is an operand */
    const char *camera_text;              /* --camera as given (NULL: none), for messages  */
    /* Options only some masks read, as given (NULL if not): sr_check_mask_options. */
    const char *wave_opt;                 /* --wave-dense or --wave-order: the wave mask  */
    const char *compact_opt;              /* --compact-below: compact (and wave's measuring) */
    const char *sort_key_opt;             /* --sort-key: a sort other than none           */
    uint32_t threads;                     /* --threads, or 0: OpenMP's own count (ompenv.h) */
    int progress;                         /* the progress bar and "reading mesh" line (a terminal) */
    int keep_partial;                     /* --save-partial                                */
    int bounce_counts;                    /* count the rays per bounce (--stats)           */
    /* sr_open_scene: the frame asked for, the scene file's values where no option gave one.
     * The command owns it from then on. */
    sr_frame frame;
    double read_s;                        /* sr_open: seconds reading the scene and its meshes */
} sr_common;

/* Print "stencilray CMD: <fmt with x, y>" and a pointer to --help; returns 2. */
int sr_usage_error(const sr_args *a, const char *fmt, const char *x, const char *y);
/* "unknown option 'OPT'", with "did you mean --X?" when one of the options the command's
 * help text lists (help) is within 2 edits of it (sr_name_closest); returns 2. */
int sr_unknown_option(const sr_args *a, const char *opt, const char *help);
/* The value after option `opt` (advancing a->i), or NULL after printing an error. */
const char *sr_value(sr_args *a, const char *opt);
int sr_parse_u32(sr_args *a, const char *opt, uint32_t lo, uint32_t hi, uint32_t *out);
int sr_parse_float(sr_args *a, const char *opt, float lo, float hi, float *out);

void sr_common_default(sr_common *c);
/* "--" and what follows it: "--" ends the options, and every argument after it is an operand
 * (the scene), even one that starts with '-'. Commands call this before matching their own
 * options. 0 consumed, 2 error, -1 an option for the caller. */
int sr_parse_operand(sr_args *a, sr_common *c);
/* Parse a->argv[a->i] if it is a shared option (or the scene path): 0 consumed, 2 error,
 * -1 not a shared option. */
int sr_parse_common(sr_args *a, sr_common *c);

/* An option that none of the masks a command runs would read is an error, not a silent
 * no-op: `runs` lists those masks, `sorts` whether a sort other than none is asked for
 * (the viewer, whose masks change as it runs, lists them all).
 * Returns 0, or 2 after printing which option, for which mask, and what to do. */
int sr_check_mask_options(const sr_args *a, const sr_common *c, const int *runs, int run_count, int sorts);

/* Load the scene, complete c->frame from it (the scene is not changed), open the backend;
 * prints what it chose. Returns an exit code (0 = both are open and must be freed). A
 * --device that lists several workers is refused (exit 2): that is render's. */
int sr_open(sr_common *c, const char *cmd, sr_scene *scene, sr_backend *be);
/* Its two halves: the scene (read, its values where no option gave one, the camera and size
 * checked), which may run on a loading thread (it prints its own errors and notices), and the
 * backend, on the thread that renders. Each frees the scene when it fails. */
int sr_open_scene(sr_common *c, const char *cmd, sr_scene *scene);
/* How sr_frame_build's messages name the options (--frames with its text, when given). */
sr_field_names sr_option_names(const sr_common *c, const char *frames_text);
int sr_open_backend(sr_common *c, const char *cmd, sr_scene *scene, sr_backend *be);
/* The workers --device names (src/farm/farm.h), or the one of --backend when it names none.
 * 0, or 2 after printing why. */
int sr_parse_workers(const sr_common *c, const char *cmd, sr_worker_spec *specs, uint32_t *n);

/* The shared options' help, in pieces, so that each command lists exactly what it takes. */
#define SR_HELP_SIZE \
"Scene and image (override the scene file):\n" \
"  --width N, --height N   image size in pixels (1..16384); one alone keeps the camera's\n" \
"                          aspect ratio\n"
#define SR_HELP_SPP \
"  --spp N                 samples per pixel (1..65536): more = smoother edges and glass\n"
#define SR_HELP_DEPTH \
"  --depth N               maximum trace depth (1..64): 1 = no reflections\n"
#define SR_HELP_INTEGRATOR \
"  --integrator I          whitted or path (default: the scene's \"integrator\"); path\n" \
"                          traces global illumination and needs many samples (--spp)\n"
#define SR_HELP_CAMERA \
"  --camera PX,PY,PZ,LX,LY,LZ[,FOV[,UX,UY,UZ,APERTURE,FOCUS]]\n" \
"                          the camera instead of the scene's: position and look-at point,\n" \
"                          then optionally the field of view, up, aperture and focus\n" \
"                          distance (the viewer's C key prints its camera in this form)\n" \
"  --camera-index N        a glTF scene's camera N (its \"cameras\" list, from 0) instead of\n" \
"                          the first; --camera then moves it\n"
#define SR_HELP_THREADS \
"  --threads N             the CPU backend's threads (1..4096; default: OMP_NUM_THREADS,\n" \
"                          else one per core)\n"
#define SR_HELP_WHERE \
"Where it runs:\n" \
"  --backend B             auto (default: CUDA if a device is present, else CPU), cuda, cpu\n" \
"  --device N              which CUDA device (see 'stencilray info'), default 0\n" \
SR_HELP_THREADS
/* render's: several workers and MPI ranks (src/farm) */
#define SR_HELP_WHERE_RENDER \
"Where it runs:\n" \
"  --backend B             auto (default: CUDA if a device is present, else CPU), cuda, cpu\n" \
"  --device LIST           which CUDA device (default 0), or several: 0,2,3, all (every\n" \
"                          device), cpu (the CPU as a worker), all,cpu; a device named\n" \
"                          twice runs two workers on it; with --backend cpu each entry is\n" \
"                          a CPU worker (0,0: two). The samples are cut into passes that\n" \
"                          free workers take in turn; any list gives the same image\n" \
"  (MPI)                   mpirun -np N stencilray render ... (a build with -DSR_WITH_MPI=ON):\n" \
"                          the ranks share the passes (or, with --frames, the frames);\n" \
"                          rank 0 writes the image\n" \
SR_HELP_THREADS
#define SR_HELP_MASK \
"  --mask M                how bounces skip finished rays: wave (default), compact,\n" \
"                          stencil, flags, megakernel; every mask gives the same image\n"
#define SR_HELP_TUNING \
"  --wave-dense N          wave: a warp keeps bouncing while N of its 32 rays live, then\n" \
"                          repacks them (1..32; 1 = never, the default with --wave-order)\n" \
"  --wave-order O          wave: the order warps take the image's tiles in: launch (rows,\n" \
"                          top to bottom) or slowest (those slowest in the previous such\n" \
"                          sample first; the same image). Without either option, no\n" \
"                          repacking in each order, repacking at 16 and the compact mask\n" \
"                          are timed on 3 samples each and the fastest (median) kept;\n" \
"                          a way that moves rays between warps must win by 5 %\n" \
"  --compact-below F       compact (and wave's measuring): compact live rays when fewer\n" \
"                          than F of them are left (0..1, default 0.1; 1 = after every\n" \
"                          bounce, 0 = never)\n" \
"  --seed N                random seed (default 1); same seed, same image on CPU and GPU\n"
#define SR_HELP_SORT \
"  --sort S                with --mask compact: none (default), merge or radix: sort the\n" \
"                          live rays by a coherence key after every bounce (compacting\n" \
"                          first), so that a warp traces similar rays; same image\n"
#define SR_HELP_SORT_KEY \
"  --sort-key K            dir-morton (default: direction octant, then the Morton code of\n" \
"                          the origin) or material (of the last hit, then the same)\n"
#define SR_HELP_OUTPUT \
"Output:\n" \
"  --exposure X            multiply radiance by X before tonemapping (default 1)\n" \
"  --tonemap T             clamp (default), reinhard, aces\n"
#define SR_HELP_QUIET \
"  -q, --quiet             no progress bar or summary\n"
/* The last line of every command's help: where to read on. */
#define SR_HELP_FOOTER \
"\nQuick start: README.md#quick-start; scene reference: docs/scene-format.md\n"
#define SR_RENDER_COMMON_HELP SR_HELP_SIZE SR_HELP_CAMERA SR_HELP_SPP SR_HELP_DEPTH SR_HELP_INTEGRATOR SR_HELP_WHERE_RENDER \
    SR_HELP_MASK SR_HELP_TUNING SR_HELP_SORT SR_HELP_SORT_KEY SR_HELP_OUTPUT SR_HELP_QUIET
#define SR_COMMON_HELP SR_HELP_SIZE SR_HELP_CAMERA SR_HELP_SPP SR_HELP_DEPTH SR_HELP_INTEGRATOR SR_HELP_WHERE SR_HELP_MASK \
    SR_HELP_TUNING SR_HELP_SORT SR_HELP_SORT_KEY SR_HELP_OUTPUT SR_HELP_QUIET

#endif
