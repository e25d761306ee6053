/* stencilray.h: the stencilray renderer as a C library, the one header a client includes.

   Link with the shared library (pkg-config --cflags --libs stencilray, or CMake's
   find_package(stencilray) and target_link_libraries(app stencilray::stencilray)).

   Step by step
   ============

   1. Make a context. Every field of a desc struct left zero takes its default, so
      designated initialisers say only what differs:

          sr_context *ctx = sr_create(&(sr_context_desc){ .log = my_log });

   2. Load a scene, from a file or from JSON text in memory. A bad scene gives
      SR_RESULT_INPUT_ERROR and a message naming the file, line and column:

          if (sr_load_file(ctx, "scenes/cornell.json") != SR_RESULT_OK)
              fprintf(stderr, "%s\n", sr_last_error(ctx));

   3. Set the frame: what is left zero comes from the scene file (its camera, size, spp,
      depth, integrator), the rest from you:

          sr_set_frame(ctx, &(sr_frame_desc){ .width = 320, .height = 180, .spp = 16,
                                              .device = SR_DEVICE_KIND_CPU });

   4. Render: the whole frame, or with a callback that sees the samples done and may
      cancel (return nonzero); a cancelled frame keeps the samples done so far:

          sr_render(ctx);
          sr_render_progress(ctx, on_progress, &my_state);

   5. Read the film back as linear floats (3 or 4 channels, row 0 at the top), or save it
      (.png tonemapped, .hdr and .exr linear):

          float *rgb = malloc(sizeof(float) * 3 * 320 * 180);
          sr_read_pixels(ctx, rgb, 3 * 320 * 180, 3);
          sr_save(ctx, "out.png", NULL);

   6. Destroy the context (the scene, the device, the film and the messages go with it):

          sr_destroy(ctx);

   Errors
   ======
   Every function that can fail returns an sr_result; SR_RESULT_OK is 0. The message of the
   last failure on a context is sr_last_error(ctx): one line for a person (what failed, on
   which input, what is expected), valid until the next call on that context.

   What the library never does
   ===========================
   It never exits the process, installs no signal handlers unless asked (sr_stop_on_signals),
   and never writes to standard output or standard error: notices (the device chosen, a scene
   file's notices) go to the log callback when one is set, and nowhere otherwise. It reads no
   user setting from the environment: what the stencilray command takes from variables (memory
   limits) a client passes in (sr_set_memory_limits). The only variables read inside are the
   test switches of tests/README.md (SR_FAULT, SR_SPLIT_BUDGET, ...), each in one place; the
   OpenMP and CUDA runtimes read their own (OMP_*, CUDA_*) as usual.

   Ownership
   =========
   The caller owns every buffer and string it passes; the library copies what it keeps (a
   path, JSON text, descs). sr_last_error's string belongs to the context.

   Threads
   =======
   A context is used by one thread at a time (calls on it do not lock). Different contexts
   may be used on different threads at once, every call included: loads, renders, saves
   (the state the library shares between contexts, its counters and the memory limits, is
   atomic). The progress callback runs on a worker thread of the library while
   sr_render_progress waits in the calling thread; it must not call into the same context.
   The log callback runs on the thread that called the function that logs.
*/
#ifndef STENCILRAY_H
#define STENCILRAY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SR_API __attribute__((visibility("default")))
#else
#define SR_API
#endif

#define SR_VERSION_MAJOR 0
#define SR_VERSION_MINOR 1

typedef struct sr_context sr_context;

typedef enum sr_result {
    SR_RESULT_OK = 0,
    SR_RESULT_RUNTIME_ERROR = 1,   /* the machine failed: out of memory, a device or I/O error */
    SR_RESULT_INPUT_ERROR = 2,     /* the caller's input is wrong: a scene, a desc field, a call
                                      out of order (rendering before a scene is loaded)        */
    SR_RESULT_CANCELLED = 3,       /* the progress callback asked to stop                       */
} sr_result;

typedef enum sr_device_kind {
    SR_DEVICE_KIND_AUTO = 0,       /* a CUDA GPU if one is present, else the CPU                */
    SR_DEVICE_KIND_CPU,
    SR_DEVICE_KIND_GPU,
} sr_device_kind;

typedef enum sr_integrator_kind {
    SR_INTEGRATOR_KIND_SCENE = 0,  /* the scene file's "integrator"                             */
    SR_INTEGRATOR_KIND_WHITTED,
    SR_INTEGRATOR_KIND_PATH,
} sr_integrator_kind;

/* Where each sample's random numbers come from (docs/scene-format.md#samplers). */
typedef enum sr_sampler_kind {
    SR_SAMPLER_KIND_SCENE = 0,     /* the scene file's "sampler" (Sobol unless it says)          */
    SR_SAMPLER_KIND_SOBOL,         /* scrambled Sobol points: less noise for the same samples    */
    SR_SAMPLER_KIND_INDEPENDENT,   /* a fresh hash per draw                                      */
} sr_sampler_kind;

/* How bounces skip finished rays; every mask gives the same image (docs/commands.md). */
typedef enum sr_mask_kind {
    SR_MASK_KIND_DEFAULT = 0,      /* wave                                                      */
    SR_MASK_KIND_WAVE,
    SR_MASK_KIND_COMPACT,
    SR_MASK_KIND_STENCIL,
    SR_MASK_KIND_FLAGS,
    SR_MASK_KIND_MEGAKERNEL,
} sr_mask_kind;

typedef enum sr_tonemap_kind {
    SR_TONEMAP_KIND_CLAMP = 0,
    SR_TONEMAP_KIND_REINHARD,
    SR_TONEMAP_KIND_ACES,
} sr_tonemap_kind;

typedef enum sr_log_level { SR_LOG_NOTICE = 0, SR_LOG_WARNING } sr_log_level;

/* A message for a person, one line without the newline. */
typedef void (*sr_log_fn)(void *user, sr_log_level level, const char *message);
/* samples_done of samples_total samples per pixel are in the film; return nonzero to stop
 * after those (the render then returns SR_RESULT_CANCELLED). */
typedef int (*sr_progress_fn)(void *user, uint32_t samples_done, uint32_t samples_total);

/* fraction (0..1) of the mesh file `file` is read; return nonzero to stop the load (it then
 * returns SR_RESULT_CANCELLED). Called on the loading thread, a whole percent at a time or so. */
typedef int (*sr_load_progress_fn)(void *user, const char *file, double fraction);

/* How messages about a frame name its fields: a command line names its options instead
 * (.camera = "--camera", .camera_text = "0,1,4,0,1,0"). NULL members keep the defaults. */
typedef struct sr_field_names {
    const char *camera;            /* "sr_frame_desc.camera"                                    */
    const char *camera_text;       /* the camera as the caller wrote it, after the name; NULL   */
    const char *gltf_camera;       /* "sr_frame_desc.gltf_camera index" (the index follows)     */
    const char *size;              /* "sr_frame_desc" before "WxH is N pixels"; "": no name     */
    const char *path_frame;        /* "sr_frame_desc.path_frame"                                */
    const char *path_text;         /* the frames as the caller wrote them, after the name; NULL */
    const char *devices;           /* "sr_frame_desc.devices"                                   */
} sr_field_names;

/* How far a render is, about ten times a second on the thread that called it, and once more
 * with final 1 when its samples are done: samples_done of samples_total (every MPI rank's when
 * they share the frame), seconds since the samples started. For a progress bar; it must not
 * call into the context. */
typedef void (*sr_tick_fn)(void *user, uint64_t samples_done, uint64_t samples_total, double seconds, int final);

typedef struct sr_context_desc {
    sr_log_fn log;                 /* NULL: notices are dropped                                 */
    void *log_user;
    sr_tick_fn tick;               /* NULL: none                                                */
    void *tick_user;
    sr_load_progress_fn load_progress;   /* NULL: none. Program-wide while a load runs: loads
                                      with one must not overlap across contexts              */
    void *load_user;
    sr_field_names names;          /* copied: the strings must outlive the context             */
} sr_context_desc;

/* A camera placed by its position and the point it looks at, over the scene's camera.
 * position equal to look_at (all zero): the scene camera's position and look-at point are
 * kept. fov 0 keeps the scene camera's vertical field of view. up all zero keeps its up
 * vector and aperture; a new look-at point then focuses there. With up given, aperture and
 * focus_distance are taken as they are (0: a pinhole; 0: focus on look_at). */
typedef struct sr_camera_view {
    float position[3];
    float look_at[3];
    float fov;                     /* degrees                                                   */
    float up[3];
    float aperture;                /* lens diameter; 0: a pinhole (only with up given)          */
    float focus_distance;          /* 0: the distance to look_at (only with up given)           */
} sr_camera_view;

/* The order the wave mask's warps take the image's tiles in (docs/commands.md). */
typedef enum sr_wave_order_kind {
    SR_WAVE_ORDER_KIND_MEASURED = 0, /* measured on a few samples with the other ways to run one */
    SR_WAVE_ORDER_KIND_LAUNCH,     /* rows of tiles, top to bottom                              */
    SR_WAVE_ORDER_KIND_SLOWEST,    /* the tiles slowest in the previous such sample first       */
} sr_wave_order_kind;

/* The coherence sort of live rays after every bounce (compact mask only; the same image). */
typedef enum sr_sort_kind { SR_SORT_KIND_NONE = 0, SR_SORT_KIND_MERGE, SR_SORT_KIND_RADIX } sr_sort_kind;
/* The sort's key: direction octant then the origin's Morton code, or the last hit's material. */
typedef enum sr_sort_key_kind { SR_SORT_KEY_KIND_DIR_MORTON = 0, SR_SORT_KEY_KIND_MATERIAL } sr_sort_key_kind;

/* sr_frame_desc.zeros: fields whose 0 is meant as 0, not as the default. */
enum {
    SR_FRAME_ZERO_SEED = 1u << 0,          /* seed 0                                               */
    SR_FRAME_ZERO_COMPACT_BELOW = 1u << 1, /* compact_below 0: never compact                        */
};

/* One frame's settings. Zero means "the scene file's value" for the camera, size, spp,
 * depth and integrator, and the library's default for the rest. One of width and height
 * alone keeps the camera's aspect ratio (the scene's image, or a glTF camera's). */
typedef struct sr_frame_desc {
    sr_camera_view camera;
    uint32_t width, height;        /* pixels, 1..16384 each                                     */
    uint32_t spp;                  /* samples per pixel, 1..65536                               */
    uint32_t depth;                /* the deepest bounce traced, 1..64                          */
    sr_integrator_kind integrator;
    sr_sampler_kind sampler;
    sr_mask_kind mask;
    uint32_t seed;                 /* the random seed; 0: the default, 1 (see zeros)            */
    sr_device_kind device;
    uint32_t gpu;                  /* which CUDA device (SR_DEVICE_KIND_GPU or AUTO), from 0    */
    const char *devices;           /* several workers sharing the frame's passes (the same image):
                                      "0,2,3", "all" (every CUDA device), "cpu", "all,cpu"; a
                                      device named twice runs two workers on it; with
                                      SR_DEVICE_KIND_CPU each entry is a CPU worker ("0,0": two).
                                      NULL: one worker, device and gpu. Copied by sr_set_frame;
                                      sr_get_frame's points into the context                    */
    uint32_t gltf_camera;          /* 1 + the index of a glTF file's camera (its "cameras"
                                      list) to start from instead of the scene's; 0: the
                                      scene's. camera above then moves it                     */
    uint32_t path_frame;           /* 1 + a frame number of the scene's "camera_path": its camera
                                      at that frame (after gltf_camera, before camera); 0: none */
    uint32_t wave_dense;           /* wave: a warp keeps bouncing while this many of its 32 rays
                                      live, then repacks them (1..32; 1: never); 0: measured   */
    sr_wave_order_kind wave_order;
    float compact_below;           /* compact (and the wave mask's measuring): compact the live
                                      rays when fewer than this fraction is left (0..1); 0: 0.1
                                      (see zeros)                                              */
    sr_sort_kind sort;
    sr_sort_key_kind sort_key;
    uint32_t zeros;                /* SR_FRAME_ZERO_*                                           */
} sr_frame_desc;

enum { SR_SAVE_ZERO_EXPOSURE = 1u << 0 };   /* sr_save_desc.zeros: exposure 0 is black       */

typedef struct sr_save_desc {
    float exposure;                /* radiance times this before writing; 0: 1 (see zeros)      */
    sr_tonemap_kind tonemap;       /* PNG only                                                  */
    int exr_float;                 /* EXR only: 32-bit floats instead of half floats            */
    uint32_t zeros;                /* SR_SAVE_ZERO_*                                            */
} sr_save_desc;

/* A context, or NULL when out of memory. desc may be NULL (all defaults). */
SR_API sr_context *sr_create(const sr_context_desc *desc);
/* Frees everything the context holds; NULL is ignored. */
SR_API void sr_destroy(sr_context *ctx);
/* The last failure's message on ctx ("" when the last call succeeded). */
SR_API const char *sr_last_error(const sr_context *ctx);
/* "major.minor.patch" of the library. */
SR_API const char *sr_version(void);

/* Memory limits: caps on the host and device memory the library counts as free when it
 * checks, before anything large is allocated, that a scene, a texture or a frame fits (one
 * that does not is refused with SR_RESULT_INPUT_ERROR and both figures). Zero: no cap, the
 * machine's figures alone (MemAvailable and the cgroup's limit; the device's free memory).
 * They hold for the whole process, every context on every thread, from the next check on.
 * The stencilray command sets them from $SR_HOST_MEM_LIMIT and $SR_DEVICE_MEM_LIMIT; the
 * library reads neither. */
typedef struct sr_memory_limits {
    uint64_t host_bytes;           /* what the process may use in all, decoded textures included */
    uint64_t device_bytes;         /* the free memory counted on each CUDA device                */
} sr_memory_limits;
/* Set the caps; NULL: none. Safe while other threads render. */
SR_API void sr_set_memory_limits(const sr_memory_limits *limits);

/* Load a scene (JSON, or a glTF file read as the scene {"gltf": {"file": path}}), replacing
 * the loaded one and resetting the frame to all defaults. On failure the context keeps no
 * scene. */
SR_API sr_result sr_load_file(sr_context *ctx, const char *path);
/* The same from JSON text of len bytes (0: up to its NUL). `name` names it in messages and
 * its folder resolves the files the scene reads ("mesh", "texture"); NULL: "<json>" in the
 * current folder. */
SR_API sr_result sr_load_json(sr_context *ctx, const char *json, size_t len, const char *name);

/* Check and keep the frame's settings; the next render uses them. */
SR_API sr_result sr_set_frame(sr_context *ctx, const sr_frame_desc *frame);
/* What the loaded scene holds that a frame can ask for. */
typedef struct sr_scene_info {
    uint32_t width, height;        /* the scene's image size                                     */
    uint32_t gltf_cameras;         /* a glTF file's cameras (sr_frame_desc.gltf_camera)          */
    uint32_t path_keys;            /* "camera_path" keyframes (0: none)                          */
    uint32_t path_first, path_last;   /* the frame numbers of its first and last keyframes     */
    uint32_t primitives;           /* spheres, quads, planes and triangles, instanced ones once  */
    uint32_t lights;               /* point, spot and directional lights                         */
} sr_scene_info;

/* The loaded scene's facts; SR_RESULT_INPUT_ERROR without a scene. */
SR_API sr_result sr_get_scene_info(sr_context *ctx, sr_scene_info *out);

/* The frame the next render draws, every field filled (the scene's values where the desc
 * gave none; the camera is the one that will be used). SR_RESULT_INPUT_ERROR without a
 * scene; it leaves sr_last_error as it was. */
SR_API sr_result sr_get_frame(const sr_context *ctx, sr_frame_desc *out);

/* Check the frame against the host's memory before anything is allocated: its workers' BVH
 * builds, pools and sums, the film, and saving it to save_path (NULL: no save). SR_RESULT_
 * INPUT_ERROR with the numbers when it does not fit. No device is opened. */
SR_API sr_result sr_check_frame(sr_context *ctx, const char *save_path);
/* Open the frame's workers now (the devices, BVH builds and uploads), which the first render
 * does otherwise; under MPI the ranks first check that they agree on the frame. */
SR_API sr_result sr_prepare(sr_context *ctx);

/* Render the frame's spp samples into the film (the first render opens the device). */
SR_API sr_result sr_render(sr_context *ctx);
/* The same, calling progress (may be NULL) with the samples done before each pass of
 * samples and once at the end. Cancelled: SR_RESULT_CANCELLED, with the mean of the samples
 * done so far in the film. */
SR_API sr_result sr_render_progress(sr_context *ctx, sr_progress_fn progress, void *user);

/* The film of the last render: its size and the samples per pixel in it (0: none yet). */
SR_API sr_result sr_film_size(const sr_context *ctx, uint32_t *width, uint32_t *height, uint32_t *samples);
/* The film as linear floats, row 0 at the top: channels 3 (RGB) or 4 (RGBA, alpha 1);
 * capacity is dst's length in floats (at least width * height * channels). */
SR_API sr_result sr_read_pixels(sr_context *ctx, float *dst, size_t capacity, uint32_t channels);
/* Write the film to path: .png (exposure, tonemap, sRGB, 8-bit), .hdr or .exr (linear).
 * Written to a temporary name and renamed: nothing is left at path on failure. desc may be
 * NULL (defaults). */
SR_API sr_result sr_save(sr_context *ctx, const char *path, const sr_save_desc *desc);

/* ---- what a render did ---------------------------------------------------------------- */

#define SR_STATS_MAX_WORKERS 64
#define SR_STATS_MAX_BOUNCES 64

/* One worker of the last render (a CUDA device or the CPU). */
typedef struct sr_worker_stats {
    char device[256];              /* "NVIDIA H200 (device 0)", "CPU, 16 threads"               */
    sr_device_kind kind;           /* SR_DEVICE_KIND_CPU or SR_DEVICE_KIND_GPU                  */
    uint32_t passes;               /* the frame's sample passes it rendered                     */
    uint64_t samples;              /* samples per pixel in them                                 */
    uint64_t rays;                 /* rays it traced                                            */
    double busy_s;                 /* seconds rendering and reading back its passes             */
    double first_pass_s;           /* its first pass (the kernels' first launches)              */
    double read_s;                 /* reading its sum of the passes back, at the frame's end    */
} sr_worker_stats;

/* The last render's numbers: what `stencilray render` prints in its summary and --stats. */
typedef struct sr_frame_stats {
    sr_device_kind kind;           /* the first worker's: SR_DEVICE_KIND_CPU or _GPU            */
    char device[256];              /* the first worker's device                                 */
    uint32_t samples;              /* samples per pixel in the film                             */
    uint32_t pass_samples;         /* samples per pass (a function of spp alone)                */
    double render_s;               /* the samples, wall time                                    */
    double read_s;                 /* reading the scene and its meshes (the load)               */
    double build_s, upload_s;      /* the first worker's BVH build and upload (0 when the render
                                      reused an open device)                                    */
    double merge_s;                /* the workers' sums merged into one                         */
    double reduce_wait_s;          /* MPI: waiting for the other ranks' last passes             */
    double reduce_s;               /* MPI: the ranks' sums onto rank 0                          */
    uint32_t ranks;                /* MPI ranks that shared the frame (1 without MPI)           */
    uint64_t rays;                 /* rays traced (the Whitted split's spawned ones included)   */
    uint64_t rays_per_bounce[SR_STATS_MAX_BOUNCES];   /* by bounce; the wave mask without
                                      per-bounce counts and the megakernel: their total in 0    */
    uint64_t dropped;              /* Whitted glass's spawned rays with no room in the pool     */
    char wave_way[64];             /* the way the wave mask measured fastest, or ""             */
    uint32_t workers;
    sr_worker_stats worker[SR_STATS_MAX_WORKERS];
} sr_frame_stats;

/* The numbers of the last render on ctx (a cancelled one too); SR_RESULT_INPUT_ERROR before
 * any render. */
SR_API sr_result sr_get_frame_stats(sr_context *ctx, sr_frame_stats *out);

/* ---- stopping on a signal ------------------------------------------------------------- */

/* Install handlers for SIGINT (Ctrl-C) and SIGTERM, for a program that wants them to stop a
 * render cleanly: the render then returns SR_RESULT_CANCELLED between samples, keeping the
 * samples done in the film. A second signal kills the process the default way. The library
 * installs none unless asked. */
SR_API sr_result sr_stop_on_signals(void);
/* The signal that asked to stop (SIGINT or SIGTERM), or 0. */
SR_API int sr_stop_requested(void);
/* Forget a stop, so that the next render runs. */
SR_API void sr_stop_clear(void);

/* ---- MPI ranks ------------------------------------------------------------------------ */

/* In a build with MPI (-DSR_WITH_MPI=ON) started by mpirun, sr_mpi_begin joins the job
 * (argc and argv may be NULL); every process then loads the same scene and sets the same
 * frame, and each render shares the frame's passes over the ranks: the first render checks
 * that the ranks agree on the frame (SR_RESULT_INPUT_ERROR on every rank when not; rank 0
 * also names the setting that differs on its standard error, the one place the library
 * prints), and rank 0's film holds the frame while the other ranks' hold no samples. Every
 * rank must make the same calls in the same order (they meet inside sr_render); the progress
 * callback is not called on shared frames. Not under mpirun, or without MPI built in: one rank
 * and nothing changes, except that a build without MPI started by mpirun as several processes
 * is refused. sr_mpi_end leaves the job, once, after the last render. The message of a
 * failure goes to message (cap bytes; may be NULL). */
SR_API sr_result sr_mpi_begin(int *argc, char ***argv, char *message, size_t cap);
SR_API void sr_mpi_end(void);
/* This process's rank (0 without MPI) and the job's ranks (1 without MPI). */
SR_API int sr_mpi_rank(void);
SR_API int sr_mpi_size(void);
/* For command-line programs whose ranks meet the same bad input alike: sr_mpi_hold_stderr
 * keeps the standard error of ranks above 0 in memory until sr_mpi_agree, which every rank
 * calls with its exit code so far and which returns the job's (the largest); rank 0's own
 * message stands, else the lowest failing rank prints what it held, prefixed with its rank. */
SR_API void sr_mpi_hold_stderr(void);
SR_API int sr_mpi_agree(int code);
/* End the whole job with this exit code (MPI_Abort); without MPI, nothing. */
SR_API void sr_mpi_abort(int code);

/* ---- the build ------------------------------------------------------------------------ */

/* What this library was built with and what it finds on this machine (`stencilray info`).
 * The strings belong to the library and stay valid until the next sr_build_info call. */
typedef struct sr_build_info {
    const char *version;           /* "major.minor.patch"                                       */
    const char *compiler;          /* the C compiler that built the library                     */
    int cuda_built;                /* 1: the CUDA backend is built in                           */
    int cpu_threads;               /* the CPU backend's OpenMP threads                          */
    const char *data_dir;          /* the folder holding scenes/, shaders/ and assets/, or ""   */
    const char *data_looked_in;    /* where it was looked for (when not found)                  */
    const char *cuda_devices;      /* the CUDA devices found or why none was: lines of text,
                                      as `stencilray info` prints them                        */
    const char *kernel_loading;    /* when the CUDA kernels load, one line, or "" (no CUDA)      */
    const char *cjson, *assimp, *openexr;   /* the libraries' versions                          */
} sr_build_info;

/* Fill *out (SR_RESULT_INPUT_ERROR when out is NULL). Not thread-safe: one call at a time. */
SR_API sr_result sr_get_build_info(sr_build_info *out);

/* ---- denoising -------------------------------------------------------------------------- */

/* Intel Open Image Denoise's "RT" filter, loaded when first asked for: 1 when it loads on
 * this machine, else 0 (the renderer works without it; only denoising needs it). */
SR_API int sr_denoise_available(void);

/* Guides for the filter: noisy passes of the same frame, film-sized, 3 floats a pixel, row 0
 * at the top (as sr_read_pixels gives). NULL: none; normal is used only with albedo. */
typedef struct sr_denoise_desc {
    const float *albedo;           /* the first diffuse surface's reflectance, 0..1            */
    const float *normal;           /* its world-space shading normal, -1..1                    */
} sr_denoise_desc;

/* Denoise the film in place (sr_read_pixels and sr_save then give the denoised image; the
 * next render replaces it). desc may be NULL: no guides. SR_RESULT_INPUT_ERROR without samples
 * in the film, or when the library is not installed, with one line saying what to install. */
SR_API sr_result sr_denoise(sr_context *ctx, const sr_denoise_desc *desc);

#ifdef __cplusplus
}
#endif

#endif
