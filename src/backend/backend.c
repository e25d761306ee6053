/* backend.c: choosing and naming backends. */
#include "backend.h"
#include "../base/test_hooks.h"

#include <stdio.h>
#include <stdlib.h>
#include "../../kernels/frames/wave.h"
#include "../../kernels/core/bvh_build.h"
#include "../../kernels/integrators/camera.h"
#include <string.h>

static const char *const sr_mask_names[SR_MASK_COUNT] = { "flags", "stencil", "compact", "wave", "megakernel" };

int sr_bvh_treelets(void)
{
    const char *env = sr_test_hook(SR_HOOK_BVH_TREELETS);
    if (env && !strcmp(env, "none")) return SR_LBVH_TREELETS_NONE;
    if (env && !strcmp(env, "inorder")) return SR_LBVH_TREELETS_INORDER;
    if (env && !strcmp(env, "reorder")) return SR_LBVH_TREELETS_REORDER;
    if (env && !strcmp(env, "reorder2")) return SR_LBVH_TREELETS_REORDER2;
    if (env && !strcmp(env, "reorder-g8")) return SR_LBVH_TREELETS_REORDER_G8;
    if (env && !strcmp(env, "reorder-g24-48")) return SR_LBVH_TREELETS_REORDER_G24_48;
    if (env && !strcmp(env, "reorder-g32-64")) return SR_LBVH_TREELETS_REORDER_G32_64;
    if (env && !strcmp(env, "resplit-g32-64")) return SR_LBVH_TREELETS_RESPLIT_G32_64;
    if (env && !strcmp(env, "reorder-resplit-g32-64")) return SR_LBVH_TREELETS_REORDER_RESPLIT_G32_64;
    return SR_LBVH_TREELETS_DEFAULT;
}

int sr_bvh_host_always(void)
{
    const char *env = sr_test_hook(SR_HOOK_BVH_TREELETS);
    return env && !strcmp(env, "host");
}

uint32_t sr_wave_queue_limit(uint32_t slots)
{
    const char *env = sr_test_hook(SR_HOOK_WAVE_QUEUE_LIMIT);
    if (!env || !*env) return slots;
    char *end = NULL;
    const unsigned long n = strtoul(env, &end, 10);
    return *end || n >= slots ? slots : (uint32_t)n;
}

static const char *const sr_kernel_names[SR_KERNELS] = { "generate", "intersect", "shade", "stencil fill", "compact",
                                                         "count_live", "sort keys", "sort", "megakernel", "wave",
                                                         "film resolve", "film fold", "set live", "film accumulate" };

const char *sr_kernel_name(sr_kernel k) { return (unsigned)k < SR_KERNELS ? sr_kernel_names[k] : "?"; }

const char *sr_mask_name(sr_mask mask) { return (unsigned)mask < SR_MASK_COUNT ? sr_mask_names[mask] : "?"; }

int sr_mask_parse(const char *name)
{
    for (int i = 0; i < SR_MASK_COUNT; i++)
        if (strcmp(name, sr_mask_names[i]) == 0) return i;
    return -1;
}

const char *sr_backend_kind_name(sr_backend_kind kind)
{
    return kind == SR_BACKEND_CUDA ? "cuda" : kind == SR_BACKEND_CPU ? "cpu" : "auto";
}

void sr_backend_destroy(sr_backend *be)
{
    if (be && be->ops) be->ops->destroy(be->impl);
    if (be) memset(be, 0, sizeof *be);
}

sr_status sr_backend_read_film(sr_backend *be, float *rgb, float scale, sr_error *err)
{
    sr_status s = be->ops->read(be->impl, SR_BUFFER_FILM, rgb, err);
    if (s) return s;
    const size_t count = (size_t)be->state->capacity * 3u;
    for (size_t i = 0; i < count; i++) rgb[i] *= scale;
    return SR_OK;
}

sr_status sr_backend_clear_film(sr_backend *be, sr_error *err)
{
    return be->ops->fill(be->impl, SR_BUFFER_FILM, 0, SR_WHOLE, err);
}

sr_params sr_pool_params(const sr_pool_state *k, uint32_t *ray_count)
{
    sr_params p;
    memset(&p, 0, sizeof p);
    p.scene = k->view;
    p.ray = k->pool[k->current];
    p.hit_t = k->hit_t;
    p.hit_prim = k->hit_prim;
    p.film = k->film;
    if (k->split) {
        p.film_fix = k->film_fix;
        p.film_marks = sr_film_marks(k->film_fix, k->capacity);
        p.split = k->split_ctl;
        p.split_end = k->slots;
        p.split_stack = k->split_stack;
    }
    p.ray_count = ray_count;
    p.n = k->n;
    p.sample = k->sample;
    p.seed = k->seed;
    return p;
}

void sr_backend_describe(const sr_backend *be, const char *why, char *out, size_t cap)
{
    if (be->kind == SR_BACKEND_CUDA) snprintf(out, cap, "GPU backend on %s", be->device_name);
    else if (why && why[0]) snprintf(out, cap, "CPU backend (%s), %s", why, be->device_name);
    else snprintf(out, cap, "CPU backend, %s", be->device_name);
}
