/* backend.h: what the frame driver (render.c) asks of a place to run the stages. A backend
 * owns the ray pool, the masks, the film and a copy of the scene; the driver decides which
 * stage runs when. Two implementations: backend_cpu.c (the reference) and backend_cuda.c. */
#ifndef SR_BACKEND_H
#define SR_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "../base/status.h"
#include "../../kernels/core/types.h"
#include "../../kernels/core/raystate.h"

typedef enum sr_backend_kind { SR_BACKEND_AUTO = 0, SR_BACKEND_CPU, SR_BACKEND_CUDA } sr_backend_kind;

/* How a bounce skips finished rays (see docs/design.md, "Masking strategies"). */
typedef enum sr_mask {
    SR_MASK_FLAGS = 0,   /* one 32-bit flag per ray: if (flag == 0) return              */
    SR_MASK_STENCIL,     /* one bit per ray, stencil test + ballot write-back           */
    SR_MASK_COMPACT,     /* stencil + ballot-partition compaction of live rays          */
    SR_MASK_WAVE,        /* bounce in registers while a warp is dense, compact the rest
                            (kernels/frames/wave.h); the default                                 */
    SR_MASK_MEGAKERNEL,  /* one thread per pixel loops over every bounce in one launch  */
    SR_MASK_COUNT
} sr_mask;

#define SR_MAX_MARKS 512u

/* The buffers the frame driver fills and reads by name (fill, read). */
typedef enum sr_buffer {
    SR_BUFFER_FILM = 0,       /* width*height*3 floats: the sums over samples                  */
    SR_BUFFER_FLAGS,          /* one uint32 per slot: the flags mask (fill only)                */
    SR_BUFFER_RAY_COUNTS,     /* read: SR_MAX_DEPTH uint32, the rays that entered intersect at
                                 each bounce of the sample; cleared once a sample, at its start */
    SR_BUFFER_COUNTER,        /* one uint32: count_live's result                                */
    SR_BUFFER_SPLIT,          /* SR_SPLIT_CTL uint32 (kernels/integrators/whitted.h): the Whitted
                                 split's rays appended by the last shade launch, and rays
                                 dropped; fill clears both                                       */
    SR_BUFFER_LIVE_COUNT,     /* one uint32: the device-side live count (read only; a read is a
                                 round trip, so only the first sample's measurement reads it)  */
    SR_BUFFER_TILE_ORDER,     /* read: sr_tiled_slots / 32 uint32, the tiles in the order the
                                 last ordered wave sample placed, which the next one takes
                                 (launch order 0, 1, ... until one has run on this pool); the
                                 CPU has none: refused                                          */
    SR_BUFFER_FILM_SUM,       /* width*height*3 int64: the backend's own sum of the sample passes
                                 it rendered (SR_KERNEL_FILM_ACCUMULATE; the farm's, src/farm);
                                 its first fill after a resize allocates it                      */
#if SR_MEASURE
    SR_BUFFER_WAVE_TIMELINE,  /* read, a measurement build's CUDA backend with $SR_WAVE_TIMELINE
                                 set: sr_wave_timeline_warps * SR_WAVE_TIMELINE_WORDS uint32,
                                 the last wave frame's warp records (kernels/frames/wave.h)     */
#endif
    SR_BUFFER_KINDS
} sr_buffer;
#define SR_WHOLE UINT32_MAX

/* The kernels a backend launches by name: the CPU backend maps each to its OpenMP loop over
 * the per-ray code (the kernels/ headers), the CUDA backend to its launcher (kernels/frames/launch.h).
 * The frame driver (render.c) decides which runs when and keeps sr_pool_state's sample
 * numbers, current half and slot count; after a kernel that fills the other half (compact,
 * sort) the driver makes that half current. The "live count" is a count the device keeps of
 * the current half's slots: stencil fill sets it to n, compaction to the rays it moved. */
typedef enum sr_kernel {
    SR_KERNEL_GENERATE = 0,   /* camera rays, under the mask                                   */
    SR_KERNEL_INTERSECT,      /* a bounce's closest hits; counts the rays that enter           */
    SR_KERNEL_SHADE,          /* a bounce's shading: film, and the next rays or death          */
    SR_KERNEL_STENCIL_FILL,   /* the stencil's first n bits set, the rest clear; live count n  */
    SR_KERNEL_COMPACT,        /* ballot partition of the live rays into the other half, its
                                 stencil refilled to their count, which is the new live count */
    SR_KERNEL_COUNT_LIVE,     /* the live rays of n slots (stencil or flags) into the counter  */
    SR_KERNEL_SORT_KEYS,      /* coherence sort, before the compaction that precedes a sort by
                                 a key compaction does not carry (the material): each live
                                 ray's key, noted by its pixel                                  */
    SR_KERNEL_SORT,           /* right after a compaction: the live rays reordered by key into
                                 the other half (live count and stencil stay)                  */
    SR_KERNEL_MEGAKERNEL,     /* the whole sample: every bounce of n pixels                     */
    SR_KERNEL_WAVE,           /* the whole sample as the wave mask runs it (kernels/frames/wave.h),
                                 over n = sr_tiled_slots of the image                          */
    SR_KERNEL_FILM_RESOLVE,   /* the film times `scale` as RGB floats into device memory at dst
                                 (a CUDA-mapped GL pixel buffer); the CPU has none: refused    */
    SR_KERNEL_FILM_FOLD,      /* the Whitted split: the sample's fixed-point sums added into the
                                 film and cleared (kernels/integrators/camera.h)               */
    SR_KERNEL_SET_LIVE,       /* the live count of the current half becomes a->n (the Whitted
                                 split's appended rays, before a compaction)                    */
    SR_KERNEL_FILM_ACCUMULATE,/* the film, the sums of a pass of a->n samples, added into the
                                 film sum (SR_BUFFER_FILM_SUM) as fixed point
                                 (kernels/core/pass_sum.h); the film stays as it is             */
    SR_KERNELS
} sr_kernel;

/* The builds of the GPU's kernels (kernels/frames/plain.cuh): the general one runs every scene;
 * the narrower ones drop features a scene does not use (the same image, less code). The frame
 * driver picks the narrowest that fits the scene and the frame's integrator (render.c,
 * sr_build_of) and names it in every launch; the CPU backend runs one build and ignores it.
 * 0, the general build, is correct for any scene without material maps or instances; the
 * maps build for any scene without instances; the instances build for any scene. */
typedef enum sr_build {
    SR_BUILD_GENERAL = 0,   /* every scene                                                     */
    SR_BUILD_NO_ASSETS,     /* no textures, environment map or per-vertex attributes
                               (sr_scene_no_assets, kernels/integrators/stages.h)              */
    SR_BUILD_PLAIN,         /* no assets, no lights or emitters, path traced (sr_scene_plain)  */
    SR_BUILD_MAPS,          /* every scene, with the glTF material maps the general build leaves
                               out (sr_scene_maps: normal maps, alpha cutouts, metallic and
                               emission textures)                                              */
    SR_BUILD_INSTANCES,     /* every scene, with the maps and instances (meshes placed several
                               times: the two-level BVH's second level)                        */
    SR_BUILDS
} sr_build;

typedef struct sr_launch_args {
    sr_build build;      /* which build of the kernels runs the launch (the GPU's; see sr_build) */
    uint32_t n;          /* slots from the first, or with over_live the host's forecast of the
                            live count (an upper estimate sizes the grids; any is correct)   */
    int over_live;       /* cover the device-side live count of the current half            */
    sr_mask mask;        /* stages and count_live: SR_MASK_FLAGS tests the flags, any other
                            mask the stencil                                                  */
    uint32_t bounce;
    uint32_t dense_min;  /* wave: a warp keeps bouncing while this many lanes live (1..32)   */
    int queue;           /* wave: repack half-empty warps through the queue and drain it
                            (sr_wave_queued, kernels/frames/wave.h), or bounce every warp in
                            place (the kernels without a queue)                               */
    int ordered;         /* wave: take the tiles in the order the previous ordered sample
                            placed, slowest first, and place the next (kernels/frames/wave.h);
                            the CPU backend, which has no tail to shorten, keeps its order  */
    uint32_t order_slot; /* wave, ordered: the ordered samples launched on this pool before
                            this one, mod SR_WAVE_ORDER_SLOTS: which of the order's buffer
                            sets it takes, places and files in (the driver counts them)      */
    uint32_t grid;       /* wave with the queue: the drain's blocks, which claim the queue's
                            chunks until none is left: the most the device holds at once
                            (resident_blocks); the CPU backend runs its threads            */
    uint32_t generations;/* wave with the queue and the Whitted split: the drains, one per
                            generation of spawned rays (kernels/frames/wave.h); 0 or 1: one */
    int bounce_counts;   /* wave: count the rays per bounce, else only their total in bounce
                            0's counter (sr_render_opts.bounce_counts)                      */
    uint32_t parity;     /* wave: the wave samples launched on this pool before this one,
                            mod 2: which of the two stencil and queue-counter pairs is this
                            sample's (it refills the other, the next sample's)              */
    float live_share;    /* compact: the forecast share of the slots compacted that are alive
                            (how many rays a thread moves; any value is correct)             */
    int sort_algo;       /* sort: sr_sort_algo (kernels/frames/sortkey.h)                            */
    int sort_key;        /* sort keys, sort: sr_sort_key                                      */
    uint32_t split_base; /* shade with the Whitted split: the slot its spawned rays are
                            appended from (after the launch's slots, a whole word on)...    */
    uint32_t split_end;  /* ...up to this one (the pool's end, or the budget's)             */
    float *dst;          /* film resolve: where to (device memory, width*height*3 floats)     */
    float scale;         /* film resolve: 1 / samples                                         */
    int fault;           /* set by sr_backend_launch alone: the sr_fault_kind (fault.h) the test
                            switch SR_FAULT injects into this launch, SR_FAULT_NONE (0) if none */
} sr_launch_args;

/* "generate", "intersect", ..., "stencil fill", ...: the one table of the kernels' names, as
 * SR_FAULT (fault.c), error messages and the launch lists of both backends spell them. */
const char *sr_kernel_name(sr_kernel k);

/* A BVH as the host holds it (kernels/core/bvh_build.h builds it, the same tree on every
 * backend). nodes and prims are host memory, or NULL where the tree stays on the device
 * (build_bvh without to_host); order is always on the host. */
typedef struct sr_bvh {
    sr_bvh_node *nodes; uint32_t node_count;
    sr_prim *prims; uint32_t prim_count;   /* the input primitives in leaf order          */
    uint32_t *order;                       /* prims[i] is input prim order[i]              */
    uint32_t depth;                        /* deepest leaf (root = 1), <= SR_BVH_STACK      */
} sr_bvh;

typedef struct sr_backend_ops {
    /* Build the BVH over prims[0..n) (host memory, finite and bounded: sr_bvh_check_prims,
     * src/render/bvh.h) where the stages will read it, and keep it for the next upload.
     * out gets the host's share (sr_bvh): order, counts and depth always; nodes and prims
     * in host memory on the CPU, and on the GPU only with to_host (a download, for tests).
     * Free out with sr_bvh_free. */
    sr_status (*build_bvh)(void *impl, const sr_prim *prims, uint32_t n, int to_host, sr_bvh *out, sr_error *err);
    /* Copy the scene: the host arrays in `view` and its scene-wide scalars (colours, sky,
     * environment); its per-frame fields (camera, size, spp, depth, integrator) are not read.
     * view->nodes and view->prims NULL (with counts): the tree build_bvh left on the device.
     * Releases the ray pool: resize must follow. */
    sr_status (*upload)(void *impl, const sr_scene_view *view, sr_error *err);
    /* Size the ray pool, the masks, the film and the counters for a width x height image (and
     * the wave mask's tiles over it): reallocates only these; the uploaded scene stays. The
     * film's contents are undefined until it is filled. Sets state->view's width and height. */
    sr_status (*resize)(void *impl, uint32_t width, uint32_t height, sr_error *err);
    /* Memory: set the first `count` elements of buffer b (SR_WHOLE: all of it; the counters
     * are always set whole) to bytes of value `byte`, queued like a launch. */
    sr_status (*fill)(void *impl, sr_buffer b, uint8_t byte, uint32_t count, sr_error *err);
    /* Memory: wait for queued work, then copy buffer b to host memory (see sr_buffer). */
    sr_status (*read)(void *impl, sr_buffer b, void *host, sr_error *err);
    /* Queue one launch of kernel k over the current pool half (sr_kernel, sr_launch_args).
     * A failure names the kernel and the bounce. a->fault (set by sr_backend_launch) asks
     * the backend to make that fault real: a refused launch, or a kernel that faults. */
    sr_status (*launch)(void *impl, sr_kernel k, const sr_launch_args *a, sr_error *err);
    /* Timing marks: record mark `id` (< SR_MAX_MARKS) in the work queue now; elapsed(a, b)
     * is the milliseconds of queued work between two recorded marks (it waits for mark b,
     * not for the rest of the queue, if the device has not passed it yet). CUDA
     * events on the GPU, the wall clock on the CPU (whose work is synchronous). */
    sr_status (*mark)(void *impl, uint32_t id, sr_error *err);
    sr_status (*elapsed_ms)(void *impl, uint32_t a, uint32_t b, float *ms, sr_error *err);
    /* Wait for queued work; returns its error, if any. */
    sr_status (*finish)(void *impl, sr_error *err);
    void (*destroy)(void *impl);
    /* Blocks of kernel k's build `build`, for the integrator in state->view, that the device
     * holds at once: the grid of a launch whose blocks claim work until none is left (the
     * wave mask's drain, SR_KERNEL_WAVE; no other kernel has one: SR_ERR_RUNTIME). Asked of
     * the runtime, no work queued; the driver asks once per build and integrator. CPU: 0. */
    sr_status (*resident_blocks)(void *impl, sr_kernel k, sr_build build, uint32_t *blocks, sr_error *err);
    /* The viewer's frame: the film times `scale`, with exposure, tonemap (sr_tonemap) and
     * sRGB applied as kernels/core/tonemap.h does for PNGs, as RGBA8 texels into the CUDA surface
     * object `surface` (a cudaSurfaceObject_t over a mapped GL texture of width x height,
     * which must be the film's size). Queued on the backend's queue, not waited for. CPU
     * backend: SR_ERR_RUNTIME. */
    sr_status (*resolve_display)(void *impl, uint64_t surface, uint32_t width, uint32_t height, float scale,
                                 float exposure, int tonemap, sr_error *err);
    /* The CUDA stream (cudaStream_t) the backend queues its work on, for interop that must be
     * ordered with it; NULL on the CPU. */
    void *(*queue)(void *impl);
    /* As resolve_display, but as packed RGBA8 rows (width * 4 bytes, row 0 = the top) into
     * device memory at `rows` (memory GL imported once, the display's external-memory path).
     * Queued, not waited for. CPU backend: SR_ERR_RUNTIME. */
    sr_status (*resolve_display_rows)(void *impl, void *rows, uint32_t width, uint32_t height, float scale,
                                      float exposure, int tonemap, sr_error *err);
    /* Host memory that reads of this backend's buffers fill at full speed (page-locked on CUDA,
     * where a copy into pageable memory goes through a staging buffer; plain on the CPU), for
     * buffers read again and again (the farm's pass films). NULL when none is left; freed by
     * host_free, before destroy. */
    void *(*host_alloc)(void *impl, size_t bytes);
    void (*host_free)(void *impl, void *p);
} sr_backend_ops;

/* What both backends hold of a sample's rays, so that it is declared once: the scene (host
 * or device pointers), the two pool halves, the hit records, the two masks, the film, and the
 * sample's numbers (capacity: pixels; words: stencil words; n: slots of the current half).
 * The backend sets the pointers (upload), capacity, words and the view's size (resize); the
 * frame driver sets the view's per-frame scalars (camera, spp, max_depth, integrator) from its
 * frame settings, and current, n, sample and seed, before the launches that read them. */
typedef struct sr_pool_state {
    sr_scene_view view;
    sr_ray_soa pool[2];        /* ping-pong halves                                          */
    int current;
    float *hit_t;
    uint32_t *hit_prim, *stencil, *flags;
    float *film;
    /* The Whitted split (kernels/integrators/whitted.h), used while `split` is set (by the
     * driver, per frame): the sample's fixed-point film (kept zero between samples by the
     * fold) and the split's counters. slots: a pool half's slots (the image's and as many
     * again, the spawned rays' room: sr_pool_half_slots). */
    unsigned long long *film_fix;
    uint32_t *split_ctl;
    int64_t *film_sum;         /* SR_BUFFER_FILM_SUM: NULL until its first fill after a resize */
    int split;
    uint32_t split_stack;      /* the pending rays a lane keeps (sr_params.split_stack)      */
    uint32_t pool_factor;      /* set by the driver before resize: a half's slots are this
                                  many times the image's (kernels/frames/wave.h); the film_fix
                                  is allocated only above 1, for scenes with glass           */
    uint32_t slots;
    uint32_t capacity, words, n, sample, seed;
} sr_pool_state;

typedef struct sr_backend {
    const sr_backend_ops *ops;
    void *impl;
    sr_backend_kind kind;
    sr_pool_state *state;      /* the backend's, shared with the frame driver (render.c)  */
    char device_name[256];     /* "NVIDIA <model> (device 0)" or "CPU: 2 threads"         */
} sr_backend;

/* Open a backend. AUTO picks CUDA when a device is present and says why not otherwise
 * (the reason is left in `why_not_cuda`, may be NULL). */
sr_status sr_backend_create(sr_backend_kind kind, int device, sr_backend *out,
                            char *why_not_cuda, size_t why_cap, sr_error *err);
void sr_backend_destroy(sr_backend *be);

/* Which backend runs and on what, as the first line of a run says it: "GPU backend on NAME",
 * "CPU backend (WHY), NAME" when the CPU was chosen for a reason why, else "CPU backend, NAME". */
void sr_backend_describe(const sr_backend *be, const char *why, char *out, size_t cap);
/* The film (sums over samples) times `scale` into rgb (width*height*3): read, then scale. */
sr_status sr_backend_read_film(sr_backend *be, float *rgb, float scale, sr_error *err);
/* One launch (ops->launch) with the test switch SR_FAULT (fault.h) checked once, here: the
 * launch it names gets its fault in a->fault. Every launch goes through this. */
sr_status sr_backend_launch(sr_backend *be, sr_kernel k, const sr_launch_args *a, sr_error *err);
/* Zero the film. */
sr_status sr_backend_clear_film(sr_backend *be, sr_error *err);
/* The film times `scale` into device memory at dst (the film resolve kernel), queued. */
sr_status sr_backend_resolve_film(sr_backend *be, float *dst, float scale, sr_error *err);

const char *sr_mask_name(sr_mask mask);

/* The per-ray code's parameters for the current pool half, counting into ray_count. */
sr_params sr_pool_params(const sr_pool_state *k, uint32_t *ray_count);

/* The wave mask's queue entries for a pool of `slots`: all of them, unless the test switch
 * $SR_WAVE_QUEUE_LIMIT (kernels/frames/wave.h) asks for fewer. */
uint32_t sr_wave_queue_limit(uint32_t slots);
int sr_mask_parse(const char *name);            /* -1 if unknown */
const char *sr_backend_kind_name(sr_backend_kind kind);

/* Implementations (backend_cpu.c, backend_cuda.c or backend_cuda_none.c). */
sr_status sr_cpu_backend_create(sr_backend *out, sr_error *err);
sr_status sr_cuda_backend_create(int device, sr_backend *out, sr_error *err);
/* How many CUDA devices, or -1 with the reason in why (no driver, no device, not built). */
int sr_cuda_device_count(char *why, size_t cap);
/* SR_ERR_INPUT "needs a CUDA device: ..." unless device `device` exists (for GPU-only tools). */
sr_status sr_cuda_require_device(int device, sr_error *err);
/* The linear BVH's treelet restructuring that both backends' builds use
 * (kernels/core/bvh_build.h): SR_LBVH_TREELETS_DEFAULT, unless the test switch
 * $SR_BVH_TREELETS says none, inorder, reorder, reorder2, reorder-g8, reorder-g24-48,
 * reorder-g32-64, resplit-g32-64 or reorder-resplit-g32-64 (to compare the trees in one binary; both backends read it, so their trees
 * stay the same bytes). */
int sr_bvh_treelets(void);
/* 1 when $SR_BVH_TREELETS is "host": the host's binned SAH tree at every size, to measure the
 * linear BVH's trace speed against it in one binary (render.c, sr_renderer_prepare). */
int sr_bvh_host_always(void);

/* Opening a CUDA device first creates its context and loads the kernels (a few hundred ms).
 * sr_backend_warm_begin starts that on a thread for the GPU workers among `workers` (CPU and
 * AUTO entries: AUTO opens CUDA where a device exists, so it is warmed too; CPU ones are
 * skipped), so that it overlaps reading the scene; sr_backend_warm_end waits for that thread
 * (call it before the backends open, and on every way out) and returns how long it waited.
 * NULL, and 0 s, where there is nothing to warm or no CUDA in the build. Errors are left to
 * the backend's open. */
typedef struct sr_worker_device {
    sr_backend_kind kind;
    int device;
} sr_worker_device;
typedef struct sr_backend_warm sr_backend_warm;
sr_backend_warm *sr_backend_warm_begin(const sr_worker_device *workers, uint32_t n);
double sr_backend_warm_end(sr_backend_warm *w);
/* "NVIDIA <model>, driver 580.159.04, SM 1980 MHz (max 1980), memory 3201 MHz" for one
 * device; the driver and clocks come from NVML when libnvidia-ml can be loaded. */
void sr_cuda_gpu_summary(int device, char *buf, size_t cap);
/* One line per device for `stencilray info`, into buf. */
void sr_cuda_describe(char *buf, size_t cap);

#endif
