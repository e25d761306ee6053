/* backend_cuda.c: device memory, launches (through kernels/frames/launch.h) and the compaction
 * step for the CUDA backend. Every CUDA call and every launch is checked; a failure names
 * what was being done and the CUDA error.
 *
 * What this backend decides is resources only: how device memory is laid out and budgeted
 * (the pool halves, the stencils, the wave mask's queue and order buffers, the check against
 * free memory and $SR_DEVICE_MEM_LIMIT), the L2 persistence window over the wave stencils,
 * the stream, events and pinned memory, and a launch's geometry where it follows from its
 * arguments (a grid covering n slots or the host's forecast). It makes no scheduling
 * decision: which kernel runs when, on which build (sr_launch_args.build), over n or the
 * device-side live count, with or without the wave mask's queue, in launch order or the
 * order of the tiles, on which stencil parity and order slot, with how large a drain grid
 * (asked here, resident_blocks, and passed back by the driver), when to compact and sort,
 * and what to time are the frame driver's (src/render/render.c), passed in sr_launch_args.
 * The integrator picks the path-traced or Whitted twin of a kernel in the launchers: that is
 * the frame's setting, not a choice. */
#include "../backend.h"
#include "../../base/test_hooks.h"
#include "../../../kernels/frames/launch.h"
#include "../../../kernels/integrators/camera.h"
#include "../../../kernels/frames/sort.h"
#include "../../../kernels/frames/bvh_build_gpu.h"
#include "../../../kernels/integrators/stages.h"
#include "../../../kernels/frames/wave.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fault.h"
#include "../../base/mem_limits.h"

/* CUDA reports a kernel's fault (illegal address, ...) at some later call, whatever that
 * call was doing, so such errors also list the kernels launched in this sample: the stages
 * and the bounces (cuda_check.h's note). */
static _Thread_local struct { char names[96]; uint32_t lo, hi; } sr_cuda_launches;   /* per thread: one
                                             thread drives each backend (src/farm runs several) */

/* "launching shade (bounce 3)" for a message (only formatted when there is an error). */
static const char *sr_cuda_what(const char *what, uint32_t bounce)
{
    static _Thread_local char buf[64];
    snprintf(buf, sizeof buf, "%s (bounce %u)", what, bounce);
    return buf;
}

static void sr_cuda_launches_reset(void) { memset(&sr_cuda_launches, 0, sizeof sr_cuda_launches); }

/* Recorded before each launch, so that a launch that reports a fault is among them. */
static void sr_cuda_launched(sr_kernel k, uint32_t bounce)
{
    const char *stage = sr_kernel_name(k);
    char *names = sr_cuda_launches.names;
    if (!names[0]) sr_cuda_launches.lo = sr_cuda_launches.hi = bounce;
    if (bounce < sr_cuda_launches.lo) sr_cuda_launches.lo = bounce;
    if (bounce > sr_cuda_launches.hi) sr_cuda_launches.hi = bounce;
    if (strstr(names, stage)) return;
    size_t n = strlen(names);
    snprintf(names + n, sizeof sr_cuda_launches.names - n, "%s%s", n ? ", " : "", stage);
}

static const char *sr_cuda_note(cudaError_t e)
{
    static _Thread_local char note[256];
    switch (e) {
    case cudaErrorIllegalAddress: case cudaErrorLaunchFailure: case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress: case cudaErrorInvalidAddressSpace: case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError: case cudaErrorAssert: case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
        if (!sr_cuda_launches.names[0]) return "";
        snprintf(note, sizeof note, "; CUDA reports a kernel's fault later: it is one of this sample's launches "
                 "(%s; bounces %u to %u); CUDA_LAUNCH_BLOCKING=1 ties it to its launch", sr_cuda_launches.names,
                 sr_cuda_launches.lo, sr_cuda_launches.hi);
        return note;
    default:
        return "";
    }
}
#define SR_CUDA_TRY_NOTE sr_cuda_note(e_)
#include "cuda_check.h"
#include "cuda_soa.h"

/* Host stubs of the stage kernels (extern "C" in bounce.cu, compact.cu), for SR_FAULT. */
extern void srk_generate(void), srk_intersect(void), srk_shade(void), srk_compact_live(void), srk_megakernel(void),
    srk_wave(void);

/* SR_FAULT (fault.h, checked by sr_backend_launch), test-only. kernel: the stage is launched
 * with its ray pool and hits at address 0x10 (cuda_poison), so it takes an illegal address
 * while running: a sticky error, seen at a later call. launch: a real launch of the stage's
 * kernel with 2048 threads per block, which the driver refuses (cudaErrorInvalidValue on the
 * H200; it never runs, so zeroed arguments do). */
static void cuda_poison(sr_params *p, sr_ray_soa *dst)
{
    void *bad = (void *)(uintptr_t)0x10;
#define SR_X_POISON(type, name) if (p) p->ray.name = (type *)bad; if (dst) dst->name = (type *)bad;
    SR_RAY_FIELDS(SR_X_POISON)
#undef SR_X_POISON
    if (p) { p->hit_t = (float *)bad; p->hit_prim = (uint32_t *)bad; }
}

static sr_status cuda_refused_launch(sr_kernel stage, uint32_t bounce, sr_error *err)
{
    const void *k = stage == SR_KERNEL_GENERATE ? (const void *)srk_generate
                  : stage == SR_KERNEL_INTERSECT ? (const void *)srk_intersect
                  : stage == SR_KERNEL_SHADE ? (const void *)srk_shade
                  : stage == SR_KERNEL_COMPACT ? (const void *)srk_compact_live
                  : stage == SR_KERNEL_WAVE ? (const void *)srk_wave : (const void *)srk_megakernel;
    static unsigned char zero[4096];
    void *args[16];
    for (int i = 0; i < 16; i++) args[i] = zero;
    dim3 grid = { 1, 1, 1 }, block = { 2048, 1, 1 };   /* more threads than a block may have */
    char what[64];
    snprintf(what, sizeof what, "launching %s (bounce %u)", sr_kernel_name(stage), bounce);
    SR_CUDA_TRY(cudaLaunchKernel(k, grid, block, args, 0, NULL), what);
    return sr_fail(err, SR_ERR_RUNTIME, "SR_FAULT=%s: the launch did not fail", sr_fault_spec());
}

typedef struct sr_cuda {
    int device;
    cudaStream_t stream;
    sr_pool_state core;             /* the scene (device pointers), pool, masks, film       */
    void *scene_mem[14];            /* prims, nodes, planes, materials, lights, emitters,
                                       triangle attributes, texture table, texels, the
                                       environment map's marginal, conditional and pdf, the
                                       instances, and normal-mapped triangles' tangents       */
    uint32_t *ray_count, *counter;
    uint32_t *split_ctl;            /* the Whitted split's counters (whitted.h): SR_SPLIT_CTL */
    uint32_t *counter_host;         /* pinned: the compacted count (or the split's counters) comes back here */
    uint32_t *live_n;               /* [2]: the compact path's device-side live counts, which
                                       compaction ping-pongs (the other one is its counter) */
    int cur_n;                      /* which count is current                               */
    uint32_t aligned;               /* pool slots: capacity and the tiled slots, rounded    */
    uint32_t *wave_first[2], *wave_queue_stencil;   /* the wave mask's stencils (launch.h)      */
    uint32_t *wave_order;           /* the order of its tiles: SR_WAVE_ORDER_WORDS (wave.h)   */
    uint32_t wave_slots, wave_queue_cap;
    uint32_t wave_placed;           /* the order slot the last ordered sample placed into (the
                                       next one's, SR_BUFFER_TILE_ORDER); 0 on a new pool     */
    uint32_t *wave_timeline;        /* a measurement build's warp records, if asked for (wave.h) */
    uint32_t wave_timeline_warps;
    sr_bvh_node *bvh_nodes;         /* the tree build_bvh left here, for the next upload   */
    sr_prim *bvh_prims;             /* the prims in its leaf order                          */
    uint32_t bvh_node_count, bvh_prim_count;
    cudaEvent_t marks[SR_MAX_MARKS];   /* created on first use */
    sr_gpu_sorter sorter;           /* the coherence sort's memory, on first use (sort.cu)  */
} sr_cuda;

#if SR_MEASURE
static size_t cuda_wave_timeline_bytes(const sr_cuda *c)
{
    return (size_t)c->wave_timeline_warps * SR_WAVE_TIMELINE_WORDS * sizeof(uint32_t);
}
#endif

/* What depends on the image's size (cuda_resize allocates it). */
static void cuda_free_pool(sr_cuda *c)
{
#if SR_MEASURE
    cudaFree(c->wave_timeline);
    c->wave_timeline = NULL;
#endif
    sr_cuda_soa_free(&c->core.pool[0]);   /* both halves */
    memset(&c->core.pool[1], 0, sizeof c->core.pool[1]);
    cudaFree(c->core.hit_t); cudaFree(c->core.hit_prim); cudaFree(c->core.stencil); cudaFree(c->core.flags);
    cudaFree(c->ray_count); cudaFree(c->counter); cudaFree(c->core.film); cudaFree(c->live_n);
    cudaFree(c->core.film_fix); cudaFree(c->split_ctl); cudaFree(c->core.film_sum);
    c->live_n = NULL;
    c->core.film_fix = NULL;
    c->core.film_sum = NULL;
    c->split_ctl = c->core.split_ctl = NULL;
    c->core.hit_t = NULL; c->core.hit_prim = NULL; c->core.stencil = NULL; c->core.flags = NULL;
    c->ray_count = NULL; c->counter = NULL; c->core.film = NULL;
    cudaFree(c->wave_first[0]);   /* one allocation for the wave mask's three stencils */
    c->wave_first[0] = c->wave_first[1] = c->wave_queue_stencil = NULL;
    cudaFree(c->wave_order);
    c->wave_order = NULL;
    sr_gpu_sorter_free(&c->sorter);
}

static void cuda_free_all(sr_cuda *c)
{
    cuda_free_pool(c);
    for (int k = 0; k < (int)(sizeof c->scene_mem / sizeof c->scene_mem[0]); k++) { cudaFree(c->scene_mem[k]); c->scene_mem[k] = NULL; }
}

/* Every warp of the wave kernel starts by loading its stencil word and can do nothing until it
 * arrives; between two samples the film and pool traffic (100 MB and more at 1080p) evicts the
 * words from L2, so the load went to DRAM. An L2 persistence window over the stencils (1 MB at
 * 4K) keeps them resident. Best effort: where the device has no persisting L2, or the limit
 * cannot be set, nothing changes but speed. */
static void cuda_keep_in_l2(sr_cuda *c, void *base, size_t bytes)
{
#if SR_MEASURE   /* what the window gains (docs/design.md, "The stencil words stay in L2") */
    if (sr_test_hook(SR_HOOK_NO_L2_WINDOW)) return;
#endif
    int max_persist = 0, max_window = 0;
    if (cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, c->device) != cudaSuccess ||
        cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, c->device) != cudaSuccess ||
        max_persist <= 0 || max_window <= 0) {
        (void)cudaGetLastError();
        return;
    }
    if (bytes > (size_t)max_window) bytes = (size_t)max_window;
    if (bytes > (size_t)max_persist) bytes = (size_t)max_persist;
    cudaStreamAttrValue attr;
    memset(&attr, 0, sizeof attr);
    attr.accessPolicyWindow.base_ptr = base;
    attr.accessPolicyWindow.num_bytes = bytes;
    attr.accessPolicyWindow.hitRatio = 1.0f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes) != cudaSuccess ||
        cudaStreamSetAttribute(c->stream, cudaStreamAttributeAccessPolicyWindow, &attr) != cudaSuccess)
        (void)cudaGetLastError();
}

static sr_status cuda_copy_array(sr_cuda *c, int slot, const void *host, size_t bytes, const void **dev, sr_error *err)
{
    *dev = NULL;
    if (bytes == 0) return SR_OK;
    SR_CUDA_TRY(cudaMalloc(&c->scene_mem[slot], bytes), "allocating scene memory");
    SR_CUDA_TRY(cudaMemcpy(c->scene_mem[slot], host, bytes, cudaMemcpyHostToDevice), "uploading the scene");
    *dev = c->scene_mem[slot];
    return SR_OK;
}

static void cuda_free_bvh(sr_cuda *c)
{
    cudaFree(c->bvh_nodes);
    cudaFree(c->bvh_prims);
    c->bvh_nodes = NULL;
    c->bvh_prims = NULL;
    c->bvh_node_count = c->bvh_prim_count = 0;
}

/* The tree is built on the device from the prims copied there (kernels/frames/bvh_build.cu)
 * and stays there; the host gets the order (for the emitters and attributes it sorts), and
 * with to_host a copy of the nodes and prims. */
static sr_status cuda_build_bvh(void *impl, const sr_prim *prims, uint32_t n, int to_host, sr_bvh *out, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)impl;
    memset(out, 0, sizeof *out);
    cuda_free_bvh(c);
    if (n == 0) return SR_OK;
    SR_CUDA_TRY(cudaSetDevice(c->device), "selecting the device");
    /* the tree (2n-1 nodes, the prims in leaf order) and the build's work: the prims copied
     * up, order, keys and ids twice, 8 words an internal node, per node a parent, box and
     * cost, chain and base, and CUB's scratch (a few MiB at most) */
    const uint64_t need = (2u * (uint64_t)n - 1u) * (sizeof(sr_bvh_node) + 32u) +
                          (uint64_t)n * (2u * sizeof(sr_prim) + 4u + 24u + 32u + 8u) + (64u << 20);
    size_t free_b = 0, total_b = 0;
    SR_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b), "querying device memory");
    const uint64_t cap = sr_device_memory_cap(free_b);
    if (need > cap)
        return sr_fail(err, SR_ERR_INPUT, "the BVH over %u primitives needs %.1f MiB of device memory to build, but only "
                       "%.1f MiB are free; use a smaller mesh or --backend cpu", n, (double)need / 1048576.0,
                       (double)cap / 1048576.0);
    out->order = (uint32_t *)malloc(sizeof(uint32_t) * n);
    if (!out->order) return sr_fail(err, SR_ERR_RUNTIME, "BVH: out of host memory for the order of %u primitives", n);
    sr_prim *in = NULL;
    uint32_t *order = NULL;
    uint32_t node_count = 0, depth = 0;
    cudaError_t e = cudaMalloc((void **)&in, sizeof(sr_prim) * n);
    if (!e) e = cudaMalloc((void **)&order, sizeof(uint32_t) * n);
    if (!e) e = cudaMalloc((void **)&c->bvh_prims, sizeof(sr_prim) * n);
    if (!e) e = cudaMalloc((void **)&c->bvh_nodes, sizeof(sr_bvh_node) * (2u * (size_t)n - 1u));
    if (!e) e = cudaMemcpyAsync(in, prims, sizeof(sr_prim) * n, cudaMemcpyHostToDevice, c->stream);
    if (!e) e = sr_cuda_bvh_build(in, n, sr_bvh_treelets(), c->bvh_nodes, c->bvh_prims, order, &node_count, &depth, NULL,
                                  c->stream);
    if (!e) e = cudaMemcpy(out->order, order, sizeof(uint32_t) * n, cudaMemcpyDeviceToHost);
    cudaFree(in);
    cudaFree(order);
    if (!e && to_host) {
        out->nodes = (sr_bvh_node *)malloc(sizeof(sr_bvh_node) * node_count);
        out->prims = (sr_prim *)malloc(sizeof(sr_prim) * n);
        if (!out->nodes || !out->prims) {
            free(out->nodes); free(out->prims); free(out->order);
            memset(out, 0, sizeof *out);
            cuda_free_bvh(c);
            return sr_fail(err, SR_ERR_RUNTIME, "BVH: out of host memory for a copy of the tree");
        }
        e = cudaMemcpy(out->nodes, c->bvh_nodes, sizeof(sr_bvh_node) * node_count, cudaMemcpyDeviceToHost);
        if (!e) e = cudaMemcpy(out->prims, c->bvh_prims, sizeof(sr_prim) * n, cudaMemcpyDeviceToHost);
    }
    if (e) {
        free(out->nodes); free(out->prims); free(out->order);
        memset(out, 0, sizeof *out);
        cuda_free_bvh(c);
        (void)cudaGetLastError();
        return sr_fail(err, SR_ERR_RUNTIME, "CUDA error while building the BVH over %u primitives: %s (%s)", n,
                       cudaGetErrorString(e), cudaGetErrorName(e));
    }
    c->bvh_node_count = out->node_count = node_count;
    c->bvh_prim_count = out->prim_count = n;
    out->depth = depth;
    return SR_OK;
}

static sr_status cuda_upload(void *impl, const sr_scene_view *v, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)impl;
    cuda_free_all(c);
    SR_CUDA_TRY(cudaSetDevice(c->device), "selecting the device");
    c->core.view = *v;
    sr_status st;
    uint64_t texel_bytes = 0, texel_floats = 0;
    const size_t env_w = v->env_tex ? v->textures[v->env_tex - 1u].width : 0;
    const size_t env_h = v->env_tex ? v->textures[v->env_tex - 1u].height : 0;
    for (uint32_t k = 0; k < v->texture_count; k++)
        texel_floats += (uint64_t)v->textures[k].width * v->textures[k].height * 3u;
    texel_bytes = texel_floats * sizeof(float);
    if (v->env_tex) texel_bytes += (uint64_t)sizeof(float) * ((env_h + 1u) + env_h * (env_w + 1u) + env_h * env_w);
    if (texel_bytes) {   /* textures (and the environment's distribution) are budgeted before they are copied */
        size_t free_t = 0, total_t = 0;
        SR_CUDA_TRY(cudaMemGetInfo(&free_t, &total_t), "querying device memory");
        const uint64_t cap = sr_device_memory_cap(free_t);
        if (texel_bytes > cap)
            return sr_fail(err, SR_ERR_INPUT, "the scene's textures and environment map need %.1f MiB of device memory, but only %.1f MiB are "
                           "free; use smaller images or --backend cpu", (double)texel_bytes / 1048576.0,
                           (double)cap / 1048576.0);
    }
    /* The BVH's arrays: the host's, or (NULL) the ones build_bvh left here. */
    if ((!v->prims || !v->nodes) && (v->node_count != c->bvh_node_count || v->prim_count != c->bvh_prim_count))
        return sr_fail(err, SR_ERR_RUNTIME, "upload: the scene's BVH (%u nodes over %u prims) is not the one built on the "
                       "device (%u over %u)", v->node_count, v->prim_count, c->bvh_node_count, c->bvh_prim_count);
    if (v->prims && v->nodes) cuda_free_bvh(c);   /* the host's tree: none kept here */
    if ((st = cuda_copy_array(c, 0, v->prims, v->prims ? sizeof(sr_prim) * v->prim_count : 0,
                              (const void **)&c->core.view.prims, err)) ||
        (st = cuda_copy_array(c, 1, v->nodes, v->nodes ? sizeof(sr_bvh_node) * v->node_count : 0,
                              (const void **)&c->core.view.nodes, err)) ||
        (st = cuda_copy_array(c, 2, v->planes, sizeof(sr_prim) * v->plane_count, (const void **)&c->core.view.planes, err)) ||
        (st = cuda_copy_array(c, 3, v->materials, sizeof(sr_material) * v->material_count, (const void **)&c->core.view.materials, err)) ||
        (st = cuda_copy_array(c, 4, v->lights, sizeof(sr_light) * v->light_count, (const void **)&c->core.view.lights, err)) ||
        (st = cuda_copy_array(c, 5, v->emitters, sizeof(sr_emitter) * v->emitter_count, (const void **)&c->core.view.emitters, err)) ||
        (st = cuda_copy_array(c, 6, v->attrs, v->attrs ? sizeof(sr_tri_attr) * v->prim_count : 0,
                              (const void **)&c->core.view.attrs, err)) ||
        (st = cuda_copy_array(c, 7, v->textures, sizeof(sr_texture) * v->texture_count, (const void **)&c->core.view.textures, err)) ||
        (st = cuda_copy_array(c, 8, v->texels, texel_floats * sizeof(float), (const void **)&c->core.view.texels, err)) ||
        (st = cuda_copy_array(c, 9, v->env_marginal, v->env_tex ? sizeof(float) * (env_h + 1u) : 0,
                              (const void **)&c->core.view.env_marginal, err)) ||
        (st = cuda_copy_array(c, 10, v->env_conditional, v->env_tex ? sizeof(float) * env_h * (env_w + 1u) : 0,
                              (const void **)&c->core.view.env_conditional, err)) ||
        (st = cuda_copy_array(c, 11, v->env_pdf, v->env_tex ? sizeof(float) * env_h * env_w : 0,
                              (const void **)&c->core.view.env_pdf, err)) ||
        (st = cuda_copy_array(c, 12, v->instances, sizeof(sr_instance) * v->instance_count,
                              (const void **)&c->core.view.instances, err)) ||
        (st = cuda_copy_array(c, 13, v->tangents, v->tangents ? sizeof(sr_tri_tangent) * v->tangent_count : 0,
                              (const void **)&c->core.view.tangents, err)))
        return st;
    if (!v->prims) c->core.view.prims = c->bvh_prims;
    if (!v->nodes) c->core.view.nodes = c->bvh_nodes;
    c->core.view.width = c->core.view.height = 0;   /* no pool until cuda_resize */
    c->core.capacity = c->core.words = 0;
    return SR_OK;
}

/* The ray pool, masks, film, counters and the wave mask's tiles for a width x height image;
 * the scene's device arrays stay. */
static sr_status cuda_resize(void *impl, uint32_t width, uint32_t height, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)impl;
    cuda_free_pool(c);
    SR_CUDA_TRY(cudaSetDevice(c->device), "selecting the device");
    c->core.view.width = width;
    c->core.view.height = height;
    const sr_scene_view *v = &c->core.view;
    c->core.capacity = v->width * v->height;
    /* The wave mask's tiled slots overhang the image's edges: size the pool for the larger. */
    const uint32_t tiled = sr_tiled_slots(v->width, v->height);
    c->wave_slots = (tiled + SR_POOL_ALIGN - 1u) / SR_POOL_ALIGN * SR_POOL_ALIGN;
    const uint32_t factor = c->core.pool_factor ? c->core.pool_factor : 1u;
    c->aligned = c->core.slots = (uint32_t)sr_pool_half_slots(v->width, v->height, SR_POOL_ALIGN, factor);
    c->core.words = c->aligned / 32u;
    const size_t order_bytes = sizeof(uint32_t) * SR_WAVE_ORDER_WORDS(sr_tiles(v->width, v->height));
    size_t need = (size_t)c->aligned * (2u * SR_RAY_BYTES + SR_HIT_BYTES + 4u + 12u) + 20u * c->core.words + order_bytes +
                  (factor > 1u ? (size_t)c->core.capacity * 3u * sizeof(unsigned long long) : 0u);   /* the split's film */
    size_t free_b = 0, total_b = 0;
    SR_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b), "querying device memory");
    free_b = (size_t)sr_device_memory_cap(free_b);   /* $SR_DEVICE_MEM_LIMIT (mem_limits.h) */
    if (need > free_b)
        return sr_fail(err, SR_ERR_INPUT, "a %ux%u image needs %.1f MiB of device memory for its ray pool and film, "
                       "but only %.1f MiB are free; use a smaller --width/--height or --backend cpu",
                       v->width, v->height, (double)need / 1048576.0, (double)free_b / 1048576.0);
    if (sr_fault_check(SR_FAULT_ALLOC, NULL) != SR_FAULT_NONE) {   /* SR_FAULT=alloc: a real failure */
        void *huge = NULL;
        SR_CUDA_TRY(cudaMalloc(&huge, (size_t)1 << 62), "allocating the ray pool");
        cudaFree(huge);
    }
    /* One allocation per field for both halves, pool[1] right after pool[0]: the wave mask
     * addresses its queue (pool[1]) through pool[0]'s pointers. */
    SR_TRY(sr_cuda_soa_alloc(&c->core.pool[0], 2u * c->aligned, "allocating the ray pool", err));
#define SR_X_HALF(type, name) c->core.pool[1].name = c->core.pool[0].name + c->aligned;
    SR_RAY_FIELDS(SR_X_HALF)
#undef SR_X_HALF
    SR_CUDA_TRY(cudaMalloc((void **)&c->core.hit_t, sizeof(float) * c->aligned), "allocating hits");
    SR_CUDA_TRY(cudaMalloc((void **)&c->core.hit_prim, sizeof(uint32_t) * c->aligned), "allocating hits");
    SR_CUDA_TRY(cudaMalloc((void **)&c->core.stencil, sizeof(uint32_t) * c->core.words), "allocating the stencil");
    SR_CUDA_TRY(cudaMalloc((void **)&c->core.flags, sizeof(uint32_t) * c->aligned), "allocating flags");
    /* The ray counts (cleared at a sample's start), then the wave mask's queue counters by
     * sample parity (its kernel clears the next sample's: no memset of its own). */
    SR_CUDA_TRY(cudaMalloc((void **)&c->ray_count, sizeof(uint32_t) * (SR_COUNT_WORDS + 2u * SR_WAVE_CTL)), "allocating counters");
    SR_CUDA_TRY(cudaMemsetAsync(c->ray_count, 0, sizeof(uint32_t) * (SR_COUNT_WORDS + 2u * SR_WAVE_CTL), c->stream),
                "clearing counters");
    SR_CUDA_TRY(cudaMalloc((void **)&c->counter, sizeof(uint32_t)), "allocating counters");
    SR_CUDA_TRY(cudaMalloc((void **)&c->live_n, 2 * sizeof(uint32_t)), "allocating counters");
    SR_CUDA_TRY(cudaMalloc((void **)&c->core.film, sizeof(float) * 3u * c->core.capacity), "allocating the film");
    if (factor > 1u) {   /* a scene with glass: the split's fixed-point film */
        const size_t fix_bytes = sizeof(unsigned long long) * sr_film_fix_words(c->core.capacity);
        SR_CUDA_TRY(cudaMalloc((void **)&c->core.film_fix, fix_bytes), "allocating the film");
        SR_CUDA_TRY(cudaMemsetAsync(c->core.film_fix, 0, fix_bytes, c->stream), "clearing the film");
    }
    SR_CUDA_TRY(cudaMalloc((void **)&c->split_ctl, sizeof(uint32_t) * SR_SPLIT_CTL), "allocating counters");
    SR_CUDA_TRY(cudaMemsetAsync(c->split_ctl, 0, sizeof(uint32_t) * SR_SPLIT_CTL, c->stream), "clearing counters");
    c->core.split_ctl = c->split_ctl;
    SR_CUDA_TRY(cudaMemsetAsync(c->core.stencil, 0, sizeof(uint32_t) * c->core.words, c->stream), "clearing the stencil");
    SR_CUDA_TRY(cudaMemsetAsync(c->core.flags, 0, sizeof(uint32_t) * c->aligned, c->stream), "clearing flags");
    /* The wave mask's stencils in one allocation (the two first-word halves, then the queue's),
     * so that one L2 window keeps them resident. */
    const size_t stencil_bytes = sizeof(uint32_t) * c->core.words;
    SR_CUDA_TRY(cudaMalloc((void **)&c->wave_first[0], 3u * stencil_bytes), "allocating the stencil");
    c->wave_first[1] = c->wave_first[0] + c->core.words;
    c->wave_queue_stencil = c->wave_first[1] + c->core.words;
    SR_CUDA_TRY(cudaMemsetAsync(c->wave_first[0], 0xff, 2u * stencil_bytes, c->stream), "filling the stencil");
    SR_CUDA_TRY(cudaMemsetAsync(c->wave_queue_stencil, 0, stencil_bytes, c->stream), "clearing the stencil");
    cuda_keep_in_l2(c, c->wave_first[0], 3u * stencil_bytes);
    SR_CUDA_TRY(cudaMalloc((void **)&c->wave_order, order_bytes), "allocating the tile order");
    SR_CUDA_TRY(cudaMemsetAsync(c->wave_order, 0, sizeof(uint32_t) * SR_WAVE_ORDER_SMALL_WORDS, c->stream),
                "clearing the tile order");
    c->wave_placed = 0;
#if SR_MEASURE
    const char *timeline = sr_test_hook(SR_HOOK_WAVE_TIMELINE);
    if (timeline && *timeline) {
        c->wave_timeline_warps = sr_wave_timeline_warps(c->core.view.width, c->core.view.height);
        SR_CUDA_TRY(cudaMalloc((void **)&c->wave_timeline, cuda_wave_timeline_bytes(c)), "allocating the warp timeline");
        /* cleared here too, for a run that ends before any wave frame */
        SR_CUDA_TRY(cudaMemsetAsync(c->wave_timeline, 0, cuda_wave_timeline_bytes(c), c->stream), "clearing the warp timeline");
    }
#endif
    c->wave_queue_cap = sr_wave_queue_limit(c->aligned);
    return SR_OK;
}

static sr_params cuda_params(const sr_cuda *c) { return sr_pool_params(&c->core, c->ray_count); }

/* The launchers of each build of the kernels (plain.cuh, launch.h), by sr_build: the driver
 * names the build in every launch, and the backend calls that build's. */
typedef struct sr_cuda_build {
    cudaError_t (*stage)(int stage, const sr_params *p, uint32_t *stencil, uint32_t *flags, uint32_t bounce,
                         cudaStream_t stream);
    cudaError_t (*stage_live)(int stage, const sr_params *p, uint32_t *stencil, uint32_t bounce, const uint32_t *live_n,
                              uint32_t grid, cudaStream_t stream);
    cudaError_t (*wave)(const sr_params *p, const sr_wave_args *w, int queue, uint32_t drain_blocks, cudaStream_t stream);
    cudaError_t (*megakernel)(const sr_params *p, cudaStream_t stream);
    cudaError_t (*drain_blocks)(int device, int path, uint32_t *blocks);
} sr_cuda_build;
static const sr_cuda_build sr_cuda_builds[SR_BUILDS] = {
    [SR_BUILD_GENERAL] = { sr_launch_stage, sr_launch_stage_live, sr_launch_wave, sr_launch_megakernel,
                           sr_wave_drain_blocks },
    [SR_BUILD_NO_ASSETS] = { sr_launch_stage_noassets, sr_launch_stage_live_noassets, sr_launch_wave_noassets,
                             sr_launch_megakernel_noassets, sr_wave_drain_blocks_noassets },
    [SR_BUILD_PLAIN] = { sr_launch_stage_plain, sr_launch_stage_live_plain, sr_launch_wave_plain,
                         sr_launch_megakernel_plain, sr_wave_drain_blocks_plain },
    [SR_BUILD_MAPS] = { sr_launch_stage_maps, sr_launch_stage_live_maps, sr_launch_wave_maps, sr_launch_megakernel_maps,
                        sr_wave_drain_blocks_maps },
    [SR_BUILD_INSTANCES] = { sr_launch_stage_instances, sr_launch_stage_live_instances, sr_launch_wave_instances,
                             sr_launch_megakernel_instances, sr_wave_drain_blocks_instances },
};

/* The drain's grid for the driver (backend.h, resident_blocks): the runtime's occupancy. */
static sr_status cuda_resident_blocks(void *impl, sr_kernel k, sr_build build, uint32_t *blocks, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)impl;
    *blocks = 0;
    if (k != SR_KERNEL_WAVE || (unsigned)build >= SR_BUILDS)
        return sr_fail(err, SR_ERR_RUNTIME, "no resident grid for kernel %s, build %d", sr_kernel_name(k), (int)build);
    SR_CUDA_TRY(cudaSetDevice(c->device), "selecting the device");
    SR_CUDA_TRY(sr_cuda_builds[build].drain_blocks(c->device, c->core.view.integrator == SR_INTEGRATOR_PATH, blocks),
                "asking the wave drain's resident blocks");
    return SR_OK;
}

/* What a failing launch of kernel k was doing, for its message: "launching shade", as an
 * injected fault (cuda_refused_launch) names it too. */
static const char *sr_cuda_doing(sr_kernel k)
{
    static _Thread_local char buf[48];
    snprintf(buf, sizeof buf, "launching %s", sr_kernel_name(k));
    return buf;
}

_Static_assert(SRK_GENERATE == (int)SR_KERNEL_GENERATE && SRK_INTERSECT == (int)SR_KERNEL_INTERSECT &&
                   SRK_SHADE == (int)SR_KERNEL_SHADE, "launch.h's stages are sr_kernel's");

/* generate, intersect, shade: over the device-side live count (after a compaction) the
 * grid-stride kernels, sized by the host's forecast a->n; otherwise the plain
 * one-thread-per-slot frame, which measured ~4% faster on a full pool. */
static sr_status cuda_stage(sr_cuda *c, sr_kernel k, sr_params *p, const sr_launch_args *a, sr_error *err)
{
    const int stage = (int)k;   /* SRK_* (launch.h) share sr_kernel's values */
    sr_cuda_launched(k, a->bounce);
    const sr_cuda_build *build = &sr_cuda_builds[a->build];
    if (a->over_live)
        SR_CUDA_TRY(build->stage_live(stage, p, c->core.stencil, a->bounce, &c->live_n[c->cur_n],
                                         sr_grid_for(a->n, SR_STAGE_BLOCK, c->aligned / SR_STAGE_BLOCK), c->stream),
                    sr_cuda_what(sr_cuda_doing(k), a->bounce));
    else
        SR_CUDA_TRY(build->stage(stage, p, a->mask == SR_MASK_FLAGS ? NULL : c->core.stencil, c->core.flags, a->bounce,
                                    c->stream),
                    sr_cuda_what(sr_cuda_doing(k), a->bounce));
    return SR_OK;
}

/* The wave mask's queue counters: two pairs after the ray counts, one per sample parity. */
static uint32_t *cuda_wave_ctl(sr_cuda *c, uint32_t parity) { return c->ray_count + SR_COUNT_WORDS + parity * SR_WAVE_CTL; }

/* The order of the tiles' memory (wave.h): the counts, ranks and validity words first
 * (SR_WAVE_ORDER_SMALL_WORDS, zeroed together), then the files and the orders. Ordered
 * sample x uses count and rank set x % 3 and file, order and validity x % 2. */
static uint32_t *cuda_order_counts(sr_cuda *c, uint32_t x) { return c->wave_order + (x % 3u) * SR_WAVE_ORDER_COUNT_WORDS; }
static uint32_t *cuda_order_ranks(sr_cuda *c, uint32_t x) { return c->wave_order + (3u + x % 3u) * SR_WAVE_ORDER_COUNT_WORDS; }
static uint32_t *cuda_order_valid(sr_cuda *c, uint32_t x) { return c->wave_order + 6u * SR_WAVE_ORDER_COUNT_WORDS + x % 2u; }
static uint32_t *cuda_order_files(sr_cuda *c, uint32_t tiles, uint32_t x)
{
    return c->wave_order + SR_WAVE_ORDER_SMALL_WORDS + (size_t)(x % 2u) * sr_wave_groups(tiles);
}
static uint32_t *cuda_order_take(sr_cuda *c, uint32_t tiles, uint32_t x)
{
    return c->wave_order + SR_WAVE_ORDER_SMALL_WORDS + (size_t)(2u + x % 2u) * sr_wave_groups(tiles);
}

/* The wave mask over the tiled image: its pool is the tiled slots, rounded (cuda_upload).
 * Each sample reads the stencil of its parity (a->parity, which the previous one refilled)
 * and refills the other's. Ordered, the sample in slot s (a->order_slot) takes the order
 * s - 1 placed, places s - 1's files for s + 1 and files its own (launch.h); samples in
 * launch order leave the order alone. The driver decides the parity, the slot, whether to
 * order and whether to queue; this only addresses the buffers they name. */
static sr_status cuda_wave(sr_cuda *c, sr_params *p, const sr_launch_args *a, sr_error *err)
{
    p->n = c->wave_slots;
    if (a->parity > 1u || a->order_slot >= SR_WAVE_ORDER_SLOTS)
        return sr_fail(err, SR_ERR_RUNTIME, "wave launch: parity %u, order slot %u out of range", a->parity, a->order_slot);
    const uint32_t s = a->order_slot, parity = a->parity;
    sr_wave_args w = {
        .queue_base = c->aligned,   /* pool[1] continues pool[0] (cuda_upload) */
        .first = c->wave_first[parity],
        .first_next = c->wave_first[parity ^ 1u],
        .stencil = c->wave_queue_stencil,
        .ctl = cuda_wave_ctl(c, parity),
        .ctl_next = cuda_wave_ctl(c, parity ^ 1u),
        .capacity = c->wave_queue_cap,
        .dense_min = a->dense_min,   /* 1..32: the frame driver clamps it */
        .bounce_counts = (uint32_t)a->bounce_counts,
        .tiles_x = sr_tiles_x(c->core.view.width),
        .tiles = sr_tiles(c->core.view.width, c->core.view.height),
        .timeline = c->wave_timeline,
        .generations = a->generations > 1u ? a->generations : 1u,
    };
    if (a->ordered) {
        w.take = cuda_order_take(c, w.tiles, s);
        w.take_valid = cuda_order_valid(c, s);
        w.place = cuda_order_take(c, w.tiles, s + 1u);
        w.place_valid = cuda_order_valid(c, s + 1u);
        w.prev_files = cuda_order_files(c, w.tiles, s + 1u);   /* s - 1's */
        w.prev_counts = cuda_order_counts(c, s + 2u);
        w.prev_ranks = cuda_order_ranks(c, s + 2u);
        w.files = cuda_order_files(c, w.tiles, s);
        w.counts = cuda_order_counts(c, s);
        w.clear_counts = cuda_order_counts(c, s + 1u);   /* filed in by s + 1, last read by s - 1 */
        w.clear_ranks = cuda_order_ranks(c, s);          /* taken by s + 1, last by s - 2 */
    }
#if SR_MEASURE
    if (c->wave_timeline)   /* a frame's records only: ordered, warps change places; the queue kernels record nothing */
        SR_CUDA_TRY(cudaMemsetAsync(c->wave_timeline, 0, cuda_wave_timeline_bytes(c), c->stream), "clearing the warp timeline");
#endif
    sr_cuda_launched(SR_KERNEL_WAVE, 0);
    if (a->queue && a->grid == 0) return sr_fail(err, SR_ERR_RUNTIME, "wave launch with the queue: no drain grid");
    const cudaError_t e = sr_cuda_builds[a->build].wave(p, &w, a->queue, a->grid, c->stream);
    if (e != cudaSuccess) {   /* the kernel may have run: every counter back to zero (the order: launch order) */
        (void)cudaMemsetAsync(cuda_wave_ctl(c, 0), 0, 2u * SR_WAVE_CTL * sizeof(uint32_t), c->stream);
        (void)cudaMemsetAsync(c->wave_order, 0, sizeof(uint32_t) * SR_WAVE_ORDER_SMALL_WORDS, c->stream);
        SR_CUDA_TRY(e, sr_cuda_doing(SR_KERNEL_WAVE));
    }
    if (a->ordered) c->wave_placed = (s + 1u) % SR_WAVE_ORDER_SLOTS;
    return SR_OK;
}

/* One launch (backend.h). The live count stays on the device: live_n[cur_n], which stencil
 * fill sets and compaction ping-pongs (the other entry is its counter). The coherence sort's
 * keys and sort cover the host's forecast a->n, padded past the live count with the pad
 * key; its gather covers the device count, so a short forecast leaves a few rays unsorted,
 * never lost. */
static sr_status cuda_launch(void *impl, sr_kernel k, const sr_launch_args *a, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)impl;
    sr_params p = cuda_params(c);
    if (!a->over_live) p.n = a->n;
    p.split_base = a->split_base;
    if (a->split_end) p.split_end = a->split_end;
    if ((unsigned)a->build >= SR_BUILDS) return sr_fail(err, SR_ERR_RUNTIME, "no build %d of the kernels", (int)a->build);
    if (a->fault == SR_FAULT_LAUNCH) return cuda_refused_launch(k, a->bounce, err);
    if (a->fault == SR_FAULT_KERNEL) cuda_poison(&p, NULL);
    switch (k) {
    case SR_KERNEL_GENERATE: case SR_KERNEL_INTERSECT: case SR_KERNEL_SHADE: return cuda_stage(c, k, &p, a, err);
    case SR_KERNEL_STENCIL_FILL:
        c->cur_n = 0;
        SR_CUDA_TRY(cudaMemsetAsync(&c->live_n[1], 0, sizeof(uint32_t), c->stream), "clearing counters");
        sr_cuda_launched(SR_KERNEL_STENCIL_FILL, 0);
        SR_CUDA_TRY(sr_launch_stencil_prefix(c->core.stencil, c->core.words, NULL, a->n, &c->live_n[0], c->stream),
                    sr_cuda_doing(k));
        return SR_OK;
    case SR_KERNEL_COMPACT: {   /* the new count goes to the other live_n entry */
        sr_ray_soa dst = c->core.pool[1 - c->core.current];
        if (a->fault == SR_FAULT_KERNEL) cuda_poison(NULL, &dst);
        sr_cuda_launched(SR_KERNEL_COMPACT, a->bounce);
        SR_CUDA_TRY(sr_launch_compact_live(c->core.pool[c->core.current], dst, c->core.stencil, &c->live_n[c->cur_n],
                                           &c->live_n[1 - c->cur_n], a->n, a->live_share, c->core.words, c->stream),
                    sr_cuda_doing(k));
        c->cur_n = 1 - c->cur_n;
        return SR_OK;
    }
    case SR_KERNEL_COUNT_LIVE:
        SR_CUDA_TRY(sr_launch_count_live(a->mask == SR_MASK_FLAGS ? NULL : c->core.stencil, c->core.flags, p.n, c->counter,
                                         c->stream),
                    sr_cuda_doing(k));
        return SR_OK;
    case SR_KERNEL_SORT_KEYS:
        SR_CUDA_TRY(sr_gpu_sorter_reserve(&c->sorter, c->core.capacity), "allocating the sort's memory");
        SR_CUDA_TRY(sr_gpu_sort_prepare(&c->sorter, a->sort_key, &p, c->core.stencil, &c->live_n[c->cur_n],
                                        sr_grid_for(a->n, 256u, c->aligned / 256u), c->stream),
                    sr_cuda_doing(k));
        return SR_OK;
    case SR_KERNEL_SORT: {
        const uint32_t m = a->n < c->core.capacity ? a->n : c->core.capacity;
        SR_CUDA_TRY(sr_gpu_sorter_reserve(&c->sorter, c->core.capacity), "allocating the sort's memory");
        SR_CUDA_TRY(sr_gpu_sort_pool(&c->sorter, a->sort_algo, a->sort_key, &p, c->core.pool[1 - c->core.current],
                                     &c->live_n[c->cur_n], m, sr_grid_for(m, 256u, c->aligned / 256u), c->stream),
                    sr_cuda_doing(k));
        return SR_OK;
    }
    case SR_KERNEL_MEGAKERNEL:
        sr_cuda_launched(SR_KERNEL_MEGAKERNEL, 0);
        SR_CUDA_TRY(sr_cuda_builds[a->build].megakernel(&p, c->stream), sr_cuda_doing(k));
        return SR_OK;
    case SR_KERNEL_WAVE: return cuda_wave(c, &p, a, err);
    case SR_KERNEL_FILM_FOLD:
        SR_CUDA_TRY(sr_launch_film_fold(c->core.film, c->core.film_fix, c->core.capacity, c->stream),
                    sr_cuda_doing(k));
        return SR_OK;
    case SR_KERNEL_SET_LIVE:
        SR_CUDA_TRY(sr_launch_set_count(&c->live_n[c->cur_n], a->n, c->stream), sr_cuda_doing(k));
        return SR_OK;
    case SR_KERNEL_FILM_ACCUMULATE:
        if (!c->core.film_sum) return sr_fail(err, SR_ERR_RUNTIME, "the CUDA backend's film sum was never cleared");
        SR_CUDA_TRY(sr_launch_film_accumulate(c->core.film, c->core.film_sum, 3u * c->core.capacity, a->n, c->stream),
                    sr_cuda_doing(k));
        return SR_OK;
    case SR_KERNEL_FILM_RESOLVE:   /* a->n pixels: the film's */
        SR_CUDA_TRY(sr_launch_film_scale(c->core.film, a->dst, a->n * 3u, a->scale, c->stream), sr_cuda_doing(k));
        return SR_OK;
    default: return sr_fail(err, SR_ERR_RUNTIME, "the CUDA backend has no kernel %d", (int)k);
    }
}

/* Memory: memsets queued on the stream; reads wait for it (their sync's message says what
 * was running, since a kernel's fault surfaces there). */
static sr_status cuda_fill(void *impl, sr_buffer b, uint8_t byte, uint32_t count, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)impl;
    switch (b) {
    case SR_BUFFER_FILM:
        SR_CUDA_TRY(cudaMemsetAsync(c->core.film, byte, sizeof(float) * (count == SR_WHOLE ? 3u * (size_t)c->core.capacity : count),
                                    c->stream), "clearing the film");
        /* (an interrupted sample may have left the split's fixed-point sums unfolded) */
        if (c->core.film_fix)
            SR_CUDA_TRY(cudaMemsetAsync(c->core.film_fix, 0, sizeof(unsigned long long) * sr_film_fix_words(c->core.capacity),
                                        c->stream), "clearing the film");
        return SR_OK;
    case SR_BUFFER_SPLIT:
        SR_CUDA_TRY(cudaMemsetAsync(c->split_ctl, byte, sizeof(uint32_t) * SR_SPLIT_CTL, c->stream), "clearing counters");
        return SR_OK;
    case SR_BUFFER_FLAGS:
        SR_CUDA_TRY(cudaMemsetAsync(c->core.flags, byte, sizeof(uint32_t) * (count == SR_WHOLE ? c->aligned : count),
                                    c->stream), "setting flags");
        return SR_OK;
    case SR_BUFFER_RAY_COUNTS:
        /* Cleared once a sample, at its start: so is the list of its launches (fault notes).
         * 4096 bytes: on the H200 a memset of 4112 (these and the queue's counters, as it
         * was) cost about 3.5 us more a frame than one of 4096 (docs/design.md). */
        sr_cuda_launches_reset();
        SR_CUDA_TRY(cudaMemsetAsync(c->ray_count, byte, sizeof(uint32_t) * SR_COUNT_WORDS, c->stream), "clearing counters");
        return SR_OK;
    case SR_BUFFER_COUNTER:
        SR_CUDA_TRY(cudaMemsetAsync(c->counter, byte, sizeof(uint32_t), c->stream), "clearing a counter");
        return SR_OK;
    case SR_BUFFER_FILM_SUM:
        if (!c->core.film_sum)
            SR_CUDA_TRY(cudaMalloc((void **)&c->core.film_sum, sizeof(int64_t) * 3u * (size_t)c->core.capacity),
                        "allocating the film sum");
        SR_CUDA_TRY(cudaMemsetAsync(c->core.film_sum, byte, sizeof(int64_t) * 3u * (size_t)c->core.capacity, c->stream),
                    "clearing the film sum");
        return SR_OK;
    default:
        return sr_fail(err, SR_ERR_RUNTIME, "the CUDA backend cannot fill buffer %d", (int)b);
    }
}

/* The order the last ordered sample placed, the next one's (SR_BUFFER_TILE_ORDER):
 * each group's tiles, in the order a block's warps take them. */
static sr_status cuda_read_tile_order(sr_cuda *c, uint32_t *order, sr_error *err)
{
    const uint32_t tiles = sr_tiles(c->core.view.width, c->core.view.height), groups = sr_wave_groups(tiles);
    uint32_t *take = malloc(sizeof(uint32_t) * groups);
    if (!take) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory reading the tile order");
    cudaError_t e = cudaMemcpyAsync(c->counter_host, cuda_order_valid(c, c->wave_placed), sizeof(uint32_t),
                                    cudaMemcpyDeviceToHost, c->stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(take, cuda_order_take(c, tiles, c->wave_placed), sizeof(uint32_t) * groups,
                            cudaMemcpyDeviceToHost, c->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(c->stream);
    uint32_t at = 0;
    for (uint32_t b = 0; e == cudaSuccess && b < groups; b++) {
        const uint32_t g = *c->counter_host ? take[b] : b;   /* none placed yet: launch order */
        for (uint32_t t = g * SR_WAVE_GROUP; t < (g + 1u) * SR_WAVE_GROUP && t < tiles && at < tiles; t++) order[at++] = t;
    }
    for (; at < tiles; at++) order[at] = UINT32_MAX;   /* (a group out of range: not a permutation) */
    free(take);
    SR_CUDA_TRY(e, "reading the tile order");
    return SR_OK;
}

static sr_status cuda_read(void *impl, sr_buffer b, void *host, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)impl;
    switch (b) {
    case SR_BUFFER_FILM:
        SR_CUDA_TRY(cudaMemcpyAsync(host, c->core.film, sizeof(float) * 3u * (size_t)c->core.capacity, cudaMemcpyDeviceToHost,
                                    c->stream), "reading the film");
        SR_CUDA_TRY(cudaStreamSynchronize(c->stream), "rendering");
        return SR_OK;
    case SR_BUFFER_FILM_SUM:
        if (!c->core.film_sum) return sr_fail(err, SR_ERR_RUNTIME, "the CUDA backend's film sum was never cleared");
        SR_CUDA_TRY(cudaMemcpyAsync(host, c->core.film_sum, sizeof(int64_t) * 3u * (size_t)c->core.capacity,
                                    cudaMemcpyDeviceToHost, c->stream), "reading the film sum");
        SR_CUDA_TRY(cudaStreamSynchronize(c->stream), "rendering");
        return SR_OK;
    case SR_BUFFER_RAY_COUNTS: {
        uint32_t copies[SR_COUNT_WORDS];   /* the blocks' copies (launch.h), summed here */
        uint32_t *counts = (uint32_t *)host;
        SR_CUDA_TRY(cudaMemcpyAsync(copies, c->ray_count, sizeof copies, cudaMemcpyDeviceToHost, c->stream),
                    "reading ray counts");
        SR_CUDA_TRY(cudaStreamSynchronize(c->stream), "running the bounce kernels");
        for (uint32_t d = 0; d < SR_MAX_DEPTH; d++) {
            counts[d] = 0;
            for (uint32_t k = 0; k < SR_COUNT_COPIES; k++) counts[d] += copies[k * SR_MAX_DEPTH + d];
        }
        return SR_OK;
    }
    case SR_BUFFER_SPLIT:   /* (through the pinned counter: two words) */
        SR_CUDA_TRY(cudaMemcpyAsync(c->counter_host, c->split_ctl, sizeof(uint32_t) * SR_SPLIT_CTL, cudaMemcpyDeviceToHost,
                                    c->stream), "reading the split's counters");
        SR_CUDA_TRY(cudaStreamSynchronize(c->stream), "running the bounce kernels");
        memcpy(host, c->counter_host, sizeof(uint32_t) * SR_SPLIT_CTL);
        return SR_OK;
    case SR_BUFFER_LIVE_COUNT:   /* compaction's count, which stays on the device otherwise */
        SR_CUDA_TRY(cudaMemcpyAsync(c->counter_host, &c->live_n[c->cur_n], sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                    c->stream), "reading the live count");
        SR_CUDA_TRY(cudaStreamSynchronize(c->stream), "running the bounce kernels");
        *(uint32_t *)host = *c->counter_host;
        return SR_OK;
    case SR_BUFFER_COUNTER:
        SR_CUDA_TRY(cudaMemcpyAsync(c->counter_host, c->counter, sizeof(uint32_t), cudaMemcpyDeviceToHost, c->stream),
                    "reading the live count");
        SR_CUDA_TRY(cudaStreamSynchronize(c->stream), "counting live rays");
        *(uint32_t *)host = *c->counter_host;
        return SR_OK;
    case SR_BUFFER_TILE_ORDER: return cuda_read_tile_order(c, (uint32_t *)host, err);
#if SR_MEASURE
    case SR_BUFFER_WAVE_TIMELINE:
        if (!c->wave_timeline) return sr_fail(err, SR_ERR_RUNTIME, "no warp timeline: $%s was not set", SR_WAVE_TIMELINE_ENV);
        SR_CUDA_TRY(cudaMemcpyAsync(host, c->wave_timeline, cuda_wave_timeline_bytes(c), cudaMemcpyDeviceToHost, c->stream),
                    "reading the warp timeline");
        SR_CUDA_TRY(cudaStreamSynchronize(c->stream), "running the wave kernel");
        return SR_OK;
#endif
    default:
        return sr_fail(err, SR_ERR_RUNTIME, "the CUDA backend cannot read buffer %d", (int)b);
    }
}

static sr_status cuda_resolve_display(void *impl, uint64_t surface, uint32_t width, uint32_t height, float scale,
                                      float exposure, int tonemap, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)impl;
    if (width != c->core.view.width || height != c->core.view.height)   /* a surface write past its edge traps */
        return sr_fail(err, SR_ERR_RUNTIME, "display resolve: the texture is %ux%u, the film %ux%u", width, height,
                       c->core.view.width, c->core.view.height);
    SR_CUDA_TRY(sr_launch_resolve_display(c->core.film, c->core.view.width, c->core.view.height, scale, exposure, tonemap,
                                          (cudaSurfaceObject_t)surface, c->stream),
                "launching the display resolve");
    return SR_OK;
}

static sr_status cuda_resolve_display_rows(void *impl, void *rows, uint32_t width, uint32_t height, float scale,
                                           float exposure, int tonemap, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)impl;
    if (width != c->core.view.width || height != c->core.view.height)   /* rows past the end would overrun */
        return sr_fail(err, SR_ERR_RUNTIME, "display resolve: the shared rows are %ux%u, the film %ux%u", width, height,
                       c->core.view.width, c->core.view.height);
    SR_CUDA_TRY(sr_launch_resolve_display_rows(c->core.film, width, height, scale, exposure, tonemap, rows, c->stream),
                "launching the display resolve into shared memory");
    return SR_OK;
}

static void *cuda_queue(void *impl)
{
    return (void *)((sr_cuda *)impl)->stream;
}

static sr_status cuda_mark(void *impl, uint32_t id, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)impl;
    if (id >= SR_MAX_MARKS) return sr_fail(err, SR_ERR_RUNTIME, "timing mark %u out of range", id);
    if (!c->marks[id]) SR_CUDA_TRY(cudaEventCreate(&c->marks[id]), "creating a timing event");
    SR_CUDA_TRY(cudaEventRecord(c->marks[id], c->stream), "recording a timing event");
    return SR_OK;
}

static sr_status cuda_elapsed_ms(void *impl, uint32_t a, uint32_t b, float *ms, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)impl;
    if (a >= SR_MAX_MARKS || b >= SR_MAX_MARKS || !c->marks[a] || !c->marks[b])
        return sr_fail(err, SR_ERR_RUNTIME, "timing marks %u..%u were not recorded", a, b);
    /* A mark still ahead of the GPU: wait for it alone (not the whole queue), so that a
     * caller reading marks a frame late stalls only when the GPU is that far behind. */
    SR_CUDA_TRY(cudaEventSynchronize(c->marks[b]), "waiting for a timing event");
    SR_CUDA_TRY(cudaEventElapsedTime(ms, c->marks[a], c->marks[b]), "reading a timing event");
    return SR_OK;
}

static sr_status cuda_finish(void *impl, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)impl;
    SR_CUDA_TRY(cudaStreamSynchronize(c->stream), "rendering");
    SR_CUDA_TRY(cudaGetLastError(), "rendering");
    return SR_OK;
}

static void cuda_destroy(void *impl)
{
    sr_cuda *c = (sr_cuda *)impl;
    if (!c) return;
    cuda_free_all(c);
    cuda_free_bvh(c);
    for (uint32_t k = 0; k < SR_MAX_MARKS; k++)
        if (c->marks[k]) cudaEventDestroy(c->marks[k]);
    if (c->counter_host) cudaFreeHost(c->counter_host);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c);
}

static void *cuda_host_alloc(void *impl, size_t bytes)
{
    sr_cuda *c = (sr_cuda *)impl;
    void *p = NULL;
    if (cudaSetDevice(c->device) != cudaSuccess || cudaMallocHost(&p, bytes ? bytes : 1u) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

static void cuda_host_free(void *impl, void *p)
{
    (void)impl;
    if (p) cudaFreeHost(p);
}

static const sr_backend_ops sr_cuda_ops = {
    .build_bvh = cuda_build_bvh, .upload = cuda_upload, .fill = cuda_fill, .read = cuda_read, .launch = cuda_launch,
    .resize = cuda_resize, .mark = cuda_mark, .elapsed_ms = cuda_elapsed_ms,
    .finish = cuda_finish, .destroy = cuda_destroy, .resolve_display = cuda_resolve_display, .queue = cuda_queue,
    .resolve_display_rows = cuda_resolve_display_rows, .resident_blocks = cuda_resident_blocks,
    .host_alloc = cuda_host_alloc, .host_free = cuda_host_free,
};

sr_status sr_cuda_backend_create(int device, sr_backend *out, sr_error *err)
{
    sr_cuda *c = (sr_cuda *)calloc(1, sizeof *c);
    if (!c) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory");
    c->device = device;
    out->ops = &sr_cuda_ops;
    out->impl = c;
    out->kind = SR_BACKEND_CUDA;
    out->state = &c->core;
    struct cudaDeviceProp prop;
    sr_status st = SR_OK;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, device);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaMallocHost((void **)&c->counter_host, sizeof(uint32_t) * SR_SPLIT_CTL);
    if (e != cudaSuccess) {
        st = sr_fail(err, SR_ERR_RUNTIME, "CUDA error while opening device %d: %s (%s)", device,
                     cudaGetErrorString(e), cudaGetErrorName(e));
        cuda_destroy(c);
        out->ops = NULL;
        out->impl = NULL;
        out->state = NULL;
        return st;
    }
    snprintf(out->device_name, sizeof out->device_name, "%.200s (device %d)", prop.name, device);
    return SR_OK;
}
