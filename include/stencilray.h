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
    const char *host_name;         /* how a refusal names the host cap ("$SR_HOST_MEM_LIMIT");
                                      NULL: "the host memory limit set with
                                      sr_set_memory_limits". Kept, not copied: a literal      */
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

/* ---- the benchmark (`stencilray bench`) -------------------------------------------------- */

#define SR_BENCH_MAX_BOUNCES 64    /* the deepest trace, as sr_frame_desc.depth               */
/* A row is noisy when the middle half of its frame times (first to third quartile) spans
 * more than this fraction of the median: a busy machine, OpenMP threads spinning against
 * other processes, or a clock that changed during the run. GPU rows are ~1-2 %. */
#define SR_BENCH_NOISY_SPREAD 0.10

/* sr_bench_desc.zeros: fields whose 0 is meant as 0, not as the default. */
enum { SR_BENCH_ZERO_WARMUP = 1u << 0 };   /* warmup 0: no untimed frames                   */

struct sr_bench_report;
/* Called before each (depth, mask, sort) pair is measured, with the report so far: its setup,
 * row_count rows measured (of rows_total), and rows[row_count] naming the pair about to run
 * (its depth, mask and sort; no figures yet). Return nonzero to stop (sr_bench_run then
 * returns SR_RESULT_CANCELLED). */
typedef int (*sr_bench_progress_fn)(void *user, const struct sr_bench_report *so_far);

/* What to measure: frames of one sample per pixel of the context's frame (sr_set_frame), at
 * each depth and mask (and, for the compact mask, each sort). Zero means the default. */
typedef struct sr_bench_desc {
    uint32_t depth_first, depth_last;  /* the depths swept, 1..64; 0: 1 and 8 (a depth_first
                                          alone sweeps that one depth)                       */
    uint32_t frames;               /* timed frames per pair, 1..10000; 0: 20                    */
    uint32_t warmup;               /* untimed frames first, 0..1000; 0: 3 (see zeros)          */
    const sr_mask_kind *masks;     /* the masks, each once; NULL: all five                      */
    uint32_t mask_count;
    const sr_sort_kind *sorts;     /* the sorts run with the compact mask (the others run
                                      unsorted), each once; NULL: the frame's sort             */
    uint32_t sort_count;
    int breakdown;                 /* time each stage (costs a little host time per launch)     */
    uint32_t zeros;                /* SR_BENCH_ZERO_*                                           */
    sr_bench_progress_fn progress; /* NULL: none                                                */
    void *progress_user;
} sr_bench_desc;

/* Times summed over a row's timed frames, in ms (stages only with breakdown). */
typedef struct sr_bench_stage_times {
    double generate, megakernel, total;
    double intersect[SR_BENCH_MAX_BOUNCES], shade[SR_BENCH_MAX_BOUNCES], compact[SR_BENCH_MAX_BOUNCES];
    double sort[SR_BENCH_MAX_BOUNCES];   /* the coherence sort: keys, sort and gather          */
} sr_bench_stage_times;

/* One (depth, mask, sort): the figures of its timed frames. */
typedef struct sr_bench_row {
    uint32_t depth;
    sr_mask_kind mask;             /* never SR_MASK_KIND_DEFAULT                                */
    sr_sort_kind sort;             /* SR_SORT_KIND_NONE but with the compact mask              */
    double min_ms, median_ms, max_ms;    /* each one of the frame times                       */
    double q1_ms, q3_ms;           /* first and third quartile (nearest rank)                   */
    double spread;                 /* (q3 - q1) / median: 0.05 = the middle half within 5 %     */
    int noisy;                     /* spread above SR_BENCH_NOISY_SPREAD: not worth comparing closely */
    double fps;                    /* 1000 / median                                             */
    double rays_per_frame, mrays_per_s;
    double dropped_per_frame;      /* Whitted glass's spawned rays with no room in the pool     */
    int per_bounce;                /* live_after holds figures (flags, stencil and compact count
                                      rays per bounce; wave and megakernel only the total)     */
    double live_after[SR_BENCH_MAX_BOUNCES];   /* the fraction of pixels whose ray is live after
                                      bounce b, b + 1 < depth; NaN elsewhere                   */
    sr_bench_stage_times times;
    uint32_t frames, compactions;  /* compactions per frame                                     */
    char way[64];                  /* wave: the way it measured fastest; else ""                */
    uint32_t wave_dense;           /* wave: the dense threshold it ran (0: compact's launches)  */
} sr_bench_row;

/* A benchmark's setup and rows (sr_bench_run allocates it; sr_bench_report_free frees it). */
typedef struct sr_bench_report {
    sr_device_kind kind;           /* SR_DEVICE_KIND_CPU or SR_DEVICE_KIND_GPU                  */
    char device[256];              /* the device's name                                         */
    char device_summary[512];      /* GPU: name, memory, clocks and driver; CPU: the name       */
    uint32_t width, height, warmup, frames, depth_first, depth_last;
    sr_integrator_kind integrator; /* WHITTED or PATH                                           */
    sr_sort_key_kind sort_key;
    sr_mask_kind masks[8];         /* the masks swept, in order                                 */
    uint32_t mask_count;
    sr_sort_kind sorts[4];         /* the sorts swept with the compact mask                     */
    uint32_t sort_count;
    int breakdown;
    int threads;                   /* CPU: OpenMP's threads; GPU: 0                             */
    char wait_policy[32];          /* CPU: OMP_WAIT_POLICY as OpenMP read it; GPU: ""           */
    char wait_policy_from[16];     /* who chose it: "stencilray", "environment" or "none"       */
    char spincount[32];            /* CPU: GOMP_SPINCOUNT when set; else ""                     */
    char cuda_loading[32];         /* GPU: CUDA_MODULE_LOADING; CPU: ""                         */
    char cuda_loading_from[16];    /* who chose it: "stencilray", "environment" or "none"       */
    uint32_t rows_total;           /* depths times (mask, sort) variants                        */
    uint32_t row_count;            /* rows measured (rows_total after a whole run)              */
    sr_bench_row *rows;
    /* Several workers (sr_frame_desc.devices): no rows; frames of workers_spp samples at
     * depth_last and the frame's mask, spread over them as sr_render does, and each worker's
     * figures summed over the timed frames (its Mrays/s: rays / busy_s). The progress
     * callback then comes before each frame, row_count counting the frames done (warm-up
     * first) of rows_total. */
    uint32_t workers;
    sr_worker_stats worker[SR_STATS_MAX_WORKERS];
    uint32_t workers_spp, workers_passes;   /* per frame                                     */
    sr_mask_kind workers_mask;
    uint64_t workers_samples, workers_rays; /* all of them together, over the timed frames    */
    double workers_s;              /* the timed frames' wall time                               */
} sr_bench_report;

/* Run the benchmark on the context's scene and frame (its size, camera, integrator, seed,
 * device and mask tuning; spp, depth and mask are the benchmark's). With several workers
 * (sr_frame_desc.devices) it times their throughput instead (sr_bench_report.workers; the
 * desc's masks, sorts and breakdown must then be left 0). *out is the report (free it with
 * sr_bench_report_free), also after a failure or a cancel part-way (its rows so far), or
 * NULL when none was made. */
SR_API sr_result sr_bench_run(sr_context *ctx, const sr_bench_desc *desc, sr_bench_report **out);
SR_API void sr_bench_report_free(sr_bench_report *report);

/* ---- the viewer (`stencilray view`) ------------------------------------------------------ */

/* One step of a viewer script (`view --script`, docs/viewer.md). */
typedef enum sr_view_step_kind {
    SR_VIEW_STEP_FRAMES = 0,       /* show a frames                                             */
    SR_VIEW_STEP_DEPTH,            /* depth a (1..64)                                           */
    SR_VIEW_STEP_MASK,             /* mask a (an sr_mask_kind)                                  */
    SR_VIEW_STEP_SIZE,             /* the window a x b pixels                                   */
    SR_VIEW_STEP_EXPOSURE,         /* exposure                                                  */
    SR_VIEW_STEP_TONEMAP,          /* tonemap a (an sr_tonemap_kind)                            */
    SR_VIEW_STEP_CAMERA,           /* camera, as --camera's numbers                             */
    SR_VIEW_STEP_SHOT,             /* save the window's image to path (.png)                    */
    SR_VIEW_STEP_PRINT,            /* print the camera (as the C key does)                      */
    SR_VIEW_STEP_KEY,              /* press key a (its character: H R C M V P 1..9 + - [ ])     */
} sr_view_step_kind;

typedef struct sr_view_step {
    sr_view_step_kind kind;
    uint32_t a, b;
    float exposure;
    float camera[12];              /* position, look-at[, fov[, up, aperture, focus distance]] */
    uint32_t camera_count;         /* 6, 7 or 12                                                */
    const char *path;
} sr_view_step;

/* sr_view_desc.vsync */
enum { SR_VIEW_VSYNC_DEFAULT = 0, SR_VIEW_VSYNC_ON, SR_VIEW_VSYNC_OFF };

/* The interactive viewer's settings. Zero means the default. */
typedef struct sr_view_desc {
    const char *scene;             /* the scene file, read while the window shows what is read  */
    sr_frame_desc frame;           /* as for sr_set_frame; spp: samples per shown frame (0: 1);
                                      width and height: the window (0: the scene's)            */
    float exposure;                /* 0: 1 (see zeros)                                          */
    sr_tonemap_kind tonemap;
    const sr_view_step *steps;     /* a script: the window runs it and closes; NULL: interactive */
    uint32_t step_count;           /* at most 64                                                */
    const char *shader_dir;        /* NULL: beside the program, then the installed data folder  */
    int vsync;                     /* SR_VIEW_VSYNC_*; default: on, off for a script            */
    int quiet;                     /* no notices, hint or summary                               */
    uint32_t zeros;                /* SR_VIEW_ZERO_*                                            */
} sr_view_desc;

enum { SR_VIEW_ZERO_EXPOSURE = 1u << 0 };   /* exposure 0: a black image                      */

/* Open a window on the desc's scene and run the viewer in it until it is closed (Esc) or its
 * script ends; on this thread, which must be the program's main thread (GLFW). Messages name
 * the context's field names (sr_context_desc.names). The viewer still writes its own notices,
 * the camera it prints and its summary to standard error and output. SR_RESULT_RUNTIME_ERROR
 * in a build without the viewer or without a display, SR_RESULT_CANCELLED when the window
 * closed while the scene was read. */
SR_API sr_result sr_view_run(sr_context *ctx, const sr_view_desc *desc);

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

/* ---- a command's stop (with sr_stop_on_signals) ---------------------------------------- */

/* After a stop: 1 when a message can go to standard error without waiting, else 0 (the stop
 * may have interrupted a write to a pipe nobody reads; the message must not block again). */
SR_API int sr_stop_can_report(void);
/* For a program, around a long step that writes nothing and cannot poll for a stop (reading a
 * scene: cJSON's parse of a large file): between begin and end a stop signal ends the program
 * from the handler at once, with one line on standard error ("stencilray: interrupted (SIGINT)
 * while WHAT; nothing written", when it can take it without waiting) and exit status 128 + the
 * signal. A stop already asked for ends it at begin. The caller promises that no output file,
 * not even a temporary one, exists meanwhile; what must stay valid until end (a literal). Steps
 * do not nest. */
SR_API void sr_stop_quick_begin(const char *what);
SR_API void sr_stop_quick_end(void);

/* ---- output files (a command's -o, --stats, --save-partial) ---------------------------- */

/* Whether path may be written as the output that `option` names ("-o", "--stats"; it begins
 * the message): 1, or 0 with why in message (cap bytes). Its folder must exist; an existing
 * directory, symbolic link, device, FIFO or socket is refused (a write through a temporary name
 * and a rename would replace it); "-" (standard output) only when allow_stdout. inputs
 * (NULL-terminated, may be NULL) are files the program reads: an output that is one of them
 * (the same file, hard links too) is refused. */
SR_API int sr_output_check(const char *option, const char *path, int allow_stdout, const char *const *inputs,
                           char *message, size_t cap);
/* Program-wide, before a load: a scene that reads the file at path (a mesh, a texture, a glTF
 * buffer) is refused with SR_RESULT_INPUT_ERROR naming option and path, before anything is
 * read. A path that is no regular file yet cannot be an input and is not kept. */
SR_API void sr_output_guard(const char *option, const char *path);
/* The same for every name sr_output_partial_name can give for path (out.partial-<N>spp.png). */
SR_API void sr_output_guard_partials(const char *path);
/* 1 when the two names are one file: the same inode, or (not there yet) the same name in the
 * same folder ("x.png" and "./x.png"); else 0. */
SR_API int sr_output_same_file(const char *a, const char *b);
/* The name that keeps the mean of `samples` samples of an interrupted render written to path:
 * its stem + ".partial-<N>spp" + its extension, into buf. SR_RESULT_INPUT_ERROR when it does
 * not fit in cap bytes (a cut name would be another file). */
SR_API sr_result sr_output_partial_name(const char *path, uint32_t samples, char *buf, size_t cap);

/* A memory size as a person writes it ("8G", "64MiB", "1.5G", "4096"; K, M, G, T are powers
 * of 1024) in bytes, for sr_memory_limits; 0 when text is NULL, empty or not such a size. */
SR_API uint64_t sr_memory_size(const char *text);
/* Write len bytes of text to path whole or not at all: through a temporary name in its folder
 * and a rename, so that a failure leaves nothing at path; "-" is standard output, written
 * directly. SR_RESULT_CANCELLED when a stop (sr_stop_on_signals) interrupted a write to
 * standard output that waited for a reader; the message of a failure goes to message (cap
 * bytes; may be NULL). */
SR_API sr_result sr_write_text(const char *path, const char *text, size_t len, char *message, size_t cap);
/* bytes (a file name: any bytes but NUL) as valid UTF-8, for JSON: each byte that does not
 * begin a well-formed UTF-8 character becomes U+FFFD. Into out (cap bytes, NUL-terminated, cut
 * at a character's end when short); returns the length the whole text needs, which is at most
 * 3 x strlen(bytes). */
SR_API size_t sr_text_utf8(const char *bytes, char *out, size_t cap);

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
