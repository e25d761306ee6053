/* bench_bvh.c: the BVH build timed and its tree weighed, on a scene's bounded prims.
 *
 *     build-gpu/tests/bench_bvh SCENE.json [--runs N] [--rays N] [--gpu-only] [--by-size]
 *
 * For each builder: the build's wall time (median of N runs; the GPU's also in device time,
 * CUDA events around the build with the prims already on the device, as OptiX's
 * acceleration-structure build is timed), the tree's node count, depth and SAH cost
 * (sr_bvh_sah_cost), and the CPU's trace rate through it on one thread: rays from a sphere
 * around the scene at points inside its box (primary-like), and rays leaving the first hits
 * in random directions (bounce-like). Builders: the linear BVH on the CPU backend with
 * in-order treelets, reordering treelets in one pass, two, or with later passes at the large
 * subtrees only (reorder-g8, reorder-g24-48, reorder-g32-64; kernels/core/bvh_build.h) and none (63-bit and
 * 30-bit codes), the host SAH builder, and the GPU's build of each treelet variant when a
 * device is present, with its stages' device times on one line (--gpu-only: those and the
 * host SAH tree's weight alone, for large meshes on the GPU machine). Beside each rate, the
 * walk's work per ray, which no clock noise touches: box tests and prim tests (counted through
 * SR_ISECT_COUNT). A measuring tool, not a test: nothing here fails on a number. */
#include <stdint.h>
static uint64_t box_tests, prim_tests;
#define SR_ISECT_COUNT(counter, k) ((counter) += (k))
/* --by-size: box tests per ray by the prims under the node whose children are tested, in
 * powers of two (where a tree's extra tests are: near the leaves or near the root) */
static uint32_t *subtree_prims;
static int by_size;
static char by_size_line[512];   /* the last walk's tests by size, printed after its line */
static uint64_t tests_by_size[32];
#define SR_ISECT_VISIT(node) \
    (subtree_prims ? (void)(tests_by_size[31 - __builtin_clz(subtree_prims[node])] += 2u) : (void)0)
#include "../../src/render/bvh.h"
#include "../../src/backend/cpu/bvh_cpu.h"
#include "../../src/scene/scene.h"
#include "../../src/render/render.h"
#include "../../kernels/core/intersect.h"
#ifdef SR_HAVE_CUDA
#include "../../kernels/frames/bvh_build_gpu.h"
#endif

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ray { sr_vec3 o, d; } ray;

static uint64_t rng_s = 0x1234567ull;
static float rnd(void)
{
    uint64_t z = (rng_s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (float)((z ^ (z >> 31)) >> 40) * (1.0f / 16777216.0f);
}

static sr_vec3 rnd_dir(void)
{
    for (;;) {
        sr_vec3 v = sr_v3(2 * rnd() - 1, 2 * rnd() - 1, 2 * rnd() - 1);
        float l = sr_dot(v, v);
        if (l > 1e-4f && l <= 1.0f) return sr_scale(v, 1.0f / sqrtf(l));
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* Mrays/s of closest hits through tree b on one thread; *boxes and *tests, the box and prim
 * tests per ray. */
static double trace_rate(const sr_bvh *b, const ray *rays, uint32_t count, uint32_t *hits, double *boxes, double *tests)
{
    sr_scene_view s;
    memset(&s, 0, sizeof s);
    s.prims = b->prims; s.prim_count = b->prim_count; s.nodes = b->nodes; s.node_count = b->node_count;
    const double t0 = sr_now();
    uint32_t h = 0;
    box_tests = prim_tests = 0;
    memset(tests_by_size, 0, sizeof tests_by_size);
    if (by_size && (subtree_prims = malloc(sizeof(uint32_t) * b->node_count)) != NULL)
        for (uint32_t i = b->node_count; i-- > 0;) {   /* children follow their parent */
            const sr_bvh_node *x = &b->nodes[i];
            subtree_prims[i] = x->count > 0 ? x->count : subtree_prims[i + 1] + subtree_prims[x->index];
        }
    for (uint32_t i = 0; i < count; i++) h += sr_trace_closest(&s, rays[i].o, rays[i].d, 1e-4f, SR_INF).prim != SR_NO_HIT;
    const double rate = count / (sr_now() - t0) * 1e-6;
    *hits = h;
    *boxes = (double)box_tests / count;
    *tests = (double)prim_tests / count;
    if (subtree_prims) {
        size_t at = 0;
        for (int k = 1; k < 32 && at < sizeof by_size_line; k++)
            if (tests_by_size[k])
                at += (size_t)snprintf(by_size_line + at, sizeof by_size_line - at, " %.2f", (double)tests_by_size[k] / count);
    }
    free(subtree_prims);
    subtree_prims = NULL;
    return rate;
}

static void report(const char *name, double ms, const sr_bvh *b, const ray *prim_rays, const ray *bounce_rays,
                   uint32_t rays)
{
    uint32_t h1 = 0, h2 = 0;
    double b1, t1, b2, t2;
    const double r1 = trace_rate(b, prim_rays, rays, &h1, &b1, &t1);
    char primary_by_size[sizeof by_size_line];
    memcpy(primary_by_size, by_size_line, sizeof by_size_line);
    const double r2 = trace_rate(b, bounce_rays, rays, &h2, &b2, &t2);
    printf("%-22s %10.2f ms %9u nodes  depth %2u  SAH %8.3f  primary %6.2f Mrays/s (%u hits, %.1f boxes %.1f prims)  "
           "bounce %6.2f Mrays/s (%u hits, %.1f boxes %.1f prims)\n",
           name, ms, b->node_count, b->depth, sr_bvh_sah_cost(b), r1, h1, b1, t1, r2, h2, b2, t2);
    if (by_size)
        printf("    box tests per ray at nodes of 2^k prims, k = 1, 2, ...: primary%s\n    bounce%s\n", primary_by_size,
               by_size_line);
}

int main(int argc, char **argv)
{
    int runs = 5;
    uint32_t rays = 200000;
    const char *path = NULL;
    int gpu_only = 0;
    by_size = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gpu-only")) gpu_only = 1;
        else if (!strcmp(argv[i], "--by-size")) by_size = 1;
        else if (!strcmp(argv[i], "--rays") && i + 1 < argc) rays = (uint32_t)atoi(argv[++i]);
        else if (argv[i][0] != '-' && !path) path = argv[i];
        else { fprintf(stderr, "usage: bench_bvh SCENE.json [--runs N] [--rays N] [--gpu-only] [--by-size]\n"); return 2; }
    }
    if (!path || runs < 1 || runs > 100) { fprintf(stderr, "usage: bench_bvh SCENE.json [--runs N (1-100)] [--rays N] [--gpu-only] [--by-size]\n"); return 2; }
    sr_scene scene;
    sr_error err;
    memset(&err, 0, sizeof err);
    double t0 = sr_now();
    if (sr_scene_load(path, &scene, &err)) { fprintf(stderr, "bench_bvh: %s\n", err.msg); return 2; }
    const uint32_t n = scene.prim_count;
    printf("%s: %u bounded prims (read in %.0f ms); CPU: %d threads\n", path, n, (sr_now() - t0) * 1e3,
           omp_get_max_threads());
    if (n == 0) return 0;
    if (sr_bvh_check_prims(scene.prims, n, &err)) { fprintf(stderr, "bench_bvh: %s\n", err.msg); return 2; }

    /* rays: from a sphere around the prims' box toward points inside it, then from hits */
    sr_bvh ref;
    if (sr_bvh_build(scene.prims, n, &ref, &err)) { fprintf(stderr, "bench_bvh: %s\n", err.msg); return 1; }
    const sr_vec3 lo = ref.nodes[0].lo, hi = ref.nodes[0].hi;
    const sr_vec3 mid = sr_scale(sr_add(lo, hi), 0.5f), ext = sr_sub(hi, lo);
    const float radius = 1.5f * sr_length(ext) + 1e-6f;
    ray *prim_rays = malloc(sizeof(ray) * rays), *bounce_rays = malloc(sizeof(ray) * rays);
    if (!prim_rays || !bounce_rays) return 1;
    sr_scene_view rv;
    memset(&rv, 0, sizeof rv);
    rv.prims = ref.prims; rv.prim_count = n; rv.nodes = ref.nodes; rv.node_count = ref.node_count;
    for (uint32_t i = 0; i < rays; i++) {
        sr_vec3 o = sr_madd(mid, rnd_dir(), radius);
        sr_vec3 at = sr_v3(lo.x + rnd() * ext.x, lo.y + rnd() * ext.y, lo.z + rnd() * ext.z);
        prim_rays[i].o = o;
        prim_rays[i].d = sr_sub(at, o);
        sr_hit h = sr_trace_closest(&rv, o, prim_rays[i].d, 0.0f, SR_INF);
        bounce_rays[i].o = h.prim != SR_NO_HIT ? sr_madd(o, prim_rays[i].d, h.t) : o;
        bounce_rays[i].d = rnd_dir();
    }

    double *ms = malloc(sizeof(double) * (size_t)runs);
    sr_bvh b;
    const struct { const char *name; uint32_t bits; int treelets; } cpu[] = {
        { "CPU linear + in-order treelets", 0, SR_LBVH_TREELETS_INORDER },
        { "CPU linear + reordering treelets", 0, SR_LBVH_TREELETS_REORDER },
        { "CPU linear + reordering x2", 0, SR_LBVH_TREELETS_REORDER2 },
        { "CPU reorder-g8", 0, SR_LBVH_TREELETS_REORDER_G8 },
        { "CPU reorder-g24-48", 0, SR_LBVH_TREELETS_REORDER_G24_48 },
        { "CPU reorder-g32-64", 0, SR_LBVH_TREELETS_REORDER_G32_64 },
        { "CPU resplit-g32-64", 0, SR_LBVH_TREELETS_RESPLIT_G32_64 },
        { "CPU reorder-resplit-g32-64", 0, SR_LBVH_TREELETS_REORDER_RESPLIT_G32_64 },
        { "CPU linear, 63-bit", 21, SR_LBVH_TREELETS_NONE }, { "CPU linear, 30-bit", 10, SR_LBVH_TREELETS_NONE } };
    for (int k = 0; !gpu_only && k < (int)(sizeof cpu / sizeof cpu[0]); k++) {
        for (int r = 0; r < runs; r++) {
            t0 = sr_now();
            if (sr_cpu_bvh_build_with(scene.prims, n, cpu[k].bits, cpu[k].treelets, &b, &err)) { fprintf(stderr, "bench_bvh: %s\n", err.msg); return 1; }
            ms[r] = (sr_now() - t0) * 1e3;
            if (r + 1 < runs) sr_bvh_free(&b);
        }
        report(cpu[k].name, median(ms, runs), &b, prim_rays, bounce_rays, rays);
        sr_bvh_free(&b);
    }
    const int sah_runs = gpu_only ? 1 : runs < 3 ? runs : 3;
    for (int r = 0; r < sah_runs; r++) {
        t0 = sr_now();
        if (sr_bvh_build_sah(scene.prims, n, &b, &err)) { fprintf(stderr, "bench_bvh: %s\n", err.msg); return 1; }
        ms[r] = (sr_now() - t0) * 1e3;
        if (r + 1 < sah_runs) sr_bvh_free(&b);
    }
    report("host binned SAH", median(ms, sah_runs), &b, prim_rays, bounce_rays, rays);
    sr_bvh_free(&b);

#ifdef SR_HAVE_CUDA
    sr_backend be;
    char why[256] = "";
    if (sr_backend_create(SR_BACKEND_CUDA, 0, &be, why, sizeof why, &err)) {
        printf("GPU: none (%s)\n", err.msg);
    } else {
        /* the whole backend operation: prims up, build, order down */
        for (int r = 0; r < runs; r++) {
            t0 = sr_now();
            if (sr_bvh_build_on(&be, scene.prims, n, 0, &b, &err)) { fprintf(stderr, "bench_bvh: %s\n", err.msg); return 1; }
            ms[r] = (sr_now() - t0) * 1e3;
            sr_bvh_free(&b);
        }
        printf("GPU build_bvh, prims up and order down: %.2f ms (wall, median of %d)\n", median(ms, runs), runs);
        /* the build alone, prims already on the device: CUDA events */
        sr_prim *dp = NULL, *dout = NULL;
        sr_bvh_node *dn = NULL;
        uint32_t *dord = NULL, count = 0, depth = 0;
        cudaEvent_t e0, e1;
        if (cudaMalloc((void **)&dp, sizeof(sr_prim) * n) || cudaMalloc((void **)&dout, sizeof(sr_prim) * n) ||
            cudaMalloc((void **)&dn, sizeof(sr_bvh_node) * (2u * (size_t)n - 1u)) ||
            cudaMalloc((void **)&dord, sizeof(uint32_t) * n) ||
            cudaMemcpy(dp, scene.prims, sizeof(sr_prim) * n, cudaMemcpyHostToDevice) || cudaEventCreate(&e0) ||
            cudaEventCreate(&e1)) {
            fprintf(stderr, "bench_bvh: CUDA allocation failed\n");
            return 1;
        }
        /* The build's work memory comes from the device's default pool; kept in the pool
         * between runs (as OptiX's caller keeps its temporary buffer), not given back to the
         * driver at each wait. */
        cudaMemPool_t pool;
        uint64_t keep = UINT64_MAX;
        if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess)
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
        const struct { const char *name; int treelets; } gv[] = {
            { "in-order treelets", SR_LBVH_TREELETS_INORDER }, { "reordering treelets", SR_LBVH_TREELETS_REORDER },
            { "reordering treelets, 2 passes", SR_LBVH_TREELETS_REORDER2 },
            { "reorder-g8", SR_LBVH_TREELETS_REORDER_G8 },
            { "reorder-g24-48", SR_LBVH_TREELETS_REORDER_G24_48 },
            { "reorder-g32-64", SR_LBVH_TREELETS_REORDER_G32_64 },
            { "resplit-g32-64", SR_LBVH_TREELETS_RESPLIT_G32_64 },
            { "reorder-resplit-g32-64", SR_LBVH_TREELETS_REORDER_RESPLIT_G32_64 },
            { "no treelets", SR_LBVH_TREELETS_NONE } };
        const char *stage_names[] = SR_LBVH_STAGE_NAMES;
        double *st = malloc(sizeof(double) * (size_t)runs * SR_LBVH_GPU_STAGES);
        if (!st) return 1;
        for (size_t v = 0; v < sizeof gv / sizeof gv[0]; v++) {
            for (int r = 0; r < runs + 1; r++) {   /* the first warms the allocator and the kernels */
                cudaEventRecord(e0, 0);
                cudaError_t e = sr_cuda_bvh_build(dp, n, gv[v].treelets, dn, dout, dord, &count, &depth, NULL, 0);
                cudaEventRecord(e1, 0);
                cudaEventSynchronize(e1);
                if (e) { fprintf(stderr, "bench_bvh: %s\n", cudaGetErrorString(e)); return 1; }
                float f = 0;
                cudaEventElapsedTime(&f, e0, e1);
                if (r > 0) ms[r - 1] = f;
            }
            printf("GPU build alone, %s (device time, prims on the device): %.3f ms (median of %d), %u nodes, "
                   "depth %u\n", gv[v].name, median(ms, runs), runs, count, depth);
            /* the stages, in separate runs: their events cost a little */
            for (int r = 0; r < runs; r++) {
                float stage[SR_LBVH_GPU_STAGES];
                cudaError_t e = sr_cuda_bvh_build(dp, n, gv[v].treelets, dn, dout, dord, &count, &depth, stage, 0);
                if (e) { fprintf(stderr, "bench_bvh: %s\n", cudaGetErrorString(e)); return 1; }
                for (int k = 0; k < SR_LBVH_GPU_STAGES; k++) st[(size_t)k * runs + r] = stage[k];
            }
            printf("  stages (ms, median of %d):", runs);
            for (int k = 0; k < SR_LBVH_GPU_STAGES; k++) printf(" %s %.3f", stage_names[k], median(st + (size_t)k * runs, runs));
            printf("\n");
            /* the GPU's tree weighed and traced like the CPU's (the same bytes as the CPU
             * build of this variant: test_gpu_bvh) */
            if (gv[v].treelets != SR_LBVH_TREELETS_NONE) {
                sr_bvh g;
                memset(&g, 0, sizeof g);
                g.nodes = malloc(sizeof(sr_bvh_node) * count);
                g.prims = malloc(sizeof(sr_prim) * n);
                g.order = malloc(sizeof(uint32_t) * n);
                if (!g.nodes || !g.prims || !g.order ||
                    cudaMemcpy(g.nodes, dn, sizeof(sr_bvh_node) * count, cudaMemcpyDeviceToHost) ||
                    cudaMemcpy(g.prims, dout, sizeof(sr_prim) * n, cudaMemcpyDeviceToHost) ||
                    cudaMemcpy(g.order, dord, sizeof(uint32_t) * n, cudaMemcpyDeviceToHost)) return 1;
                g.node_count = count; g.prim_count = n; g.depth = depth;
                char what[64];
                snprintf(what, sizeof what, "GPU %s", gv[v].name);
                report(what, median(ms, runs), &g, prim_rays, bounce_rays, rays);
                sr_bvh_free(&g);
            }
        }
        free(st);
        cudaFree(dp); cudaFree(dout); cudaFree(dn); cudaFree(dord);
        sr_backend_destroy(&be);
    }
#endif
    sr_bvh_free(&ref);
    free(ms); free(prim_rays); free(bounce_rays);
    sr_scene_free(&scene);
    return 0;
}
