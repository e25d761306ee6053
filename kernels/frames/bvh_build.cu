/* bvh_build.cu: the BVH build on the GPU: the steps of kernels/core/bvh_build.h as
 * kernels, CUB's radix sort (stable: equal codes keep their index order, as the CPU's) and
 * CUB's exclusive sum. C++ only inside this file; the API is bvh_build_gpu.h's. */
#include "bvh_build_gpu.h"
#include "../core/bvh_layout.h"
#include "../core/bvh_resplit.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#define SR_LBVH_BLOCK 256u

static unsigned sr_lbvh_grid(uint64_t n) { return (unsigned)((n + SR_LBVH_BLOCK - 1u) / SR_LBVH_BLOCK); }

/* Centroid bounds as sr_lbvh_ord: lo in bounds[0..3) (min), hi in bounds[3..6) (max). */
__global__ void srk_lbvh_bounds(const sr_prim *prims, uint32_t n, uint32_t *bounds)
{
    uint32_t lo[3] = { UINT32_MAX, UINT32_MAX, UINT32_MAX }, hi[3] = { 0u, 0u, 0u };
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const sr_vec3 c = sr_lbvh_centroid(&prims[i]);
        const uint32_t o[3] = { sr_lbvh_ord(c.x), sr_lbvh_ord(c.y), sr_lbvh_ord(c.z) };
        for (int k = 0; k < 3; k++) { lo[k] = min(lo[k], o[k]); hi[k] = max(hi[k], o[k]); }
    }
    for (int k = 0; k < 3; k++)
        for (int s = 16; s > 0; s >>= 1) {
            lo[k] = min(lo[k], __shfl_xor_sync(0xffffffffu, lo[k], s));
            hi[k] = max(hi[k], __shfl_xor_sync(0xffffffffu, hi[k], s));
        }
    if ((threadIdx.x & 31u) == 0u)
        for (int k = 0; k < 3; k++) { atomicMin(&bounds[k], lo[k]); atomicMax(&bounds[3 + k], hi[k]); }
}

__global__ void srk_lbvh_codes(const sr_prim *prims, uint32_t n, const uint32_t *bounds, uint32_t bits,
                               uint64_t *keys, uint32_t *ids)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const sr_vec3 lo = sr_v3(sr_lbvh_unord(bounds[0]), sr_lbvh_unord(bounds[1]), sr_lbvh_unord(bounds[2]));
    const sr_vec3 hi = sr_v3(sr_lbvh_unord(bounds[3]), sr_lbvh_unord(bounds[4]), sr_lbvh_unord(bounds[5]));
    const sr_vec3 scale = sr_lbvh_scales(lo, hi, bits, SR_LBVH_CUBIC);
    keys[i] = sr_lbvh_code(sr_lbvh_centroid(&prims[i]), lo, scale, bits);
    ids[i] = i;
}

__global__ void srk_lbvh_internal(sr_lbvh b)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < b.n - 1u) sr_lbvh_internal(&b, i);
}

/* One kernel a treelet variant: each keeps only its own treelet's local arrays (the
 * in-order treelet's interval tables are 2.4 KB a thread, the 5-leaf subset DP's 0.5 KB),
 * and the device reserves local memory for every resident thread by the largest. */
template <int TREELETS> __global__ void srk_lbvh_bottom_up(sr_lbvh b)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < b.n) sr_lbvh_bottom_up(&b, i, TREELETS);
}

static void sr_lbvh_bottom_up_launch(const sr_lbvh *b, int treelets, cudaStream_t stream)
{
    const unsigned grid = sr_lbvh_grid(b->n);
    if (treelets == SR_LBVH_TREELETS_INORDER)
        srk_lbvh_bottom_up<SR_LBVH_TREELETS_INORDER><<<grid, SR_LBVH_BLOCK, 0, stream>>>(*b);
    else if (sr_lbvh_treelets_above(treelets))   /* treelets only above the re-split subtrees */
        srk_lbvh_bottom_up<SR_LBVH_TREELETS_RESPLIT_G32_64><<<grid, SR_LBVH_BLOCK, 0, stream>>>(*b);
    else if (sr_lbvh_reorders(treelets))
        srk_lbvh_bottom_up<SR_LBVH_TREELETS_REORDER><<<grid, SR_LBVH_BLOCK, 0, stream>>>(*b);
    else
        srk_lbvh_bottom_up<SR_LBVH_TREELETS_NONE><<<grid, SR_LBVH_BLOCK, 0, stream>>>(*b);
}

/* A later pass at the large subtrees (sr_lbvh_refine): the arrival counters, the starts
 * flagged in chain (whose exclusive sum lists them densely, so that the walks fill whole
 * warps), the list, and a thread for each start. */
__global__ void srk_lbvh_refine_init(sr_lbvh b, uint32_t gamma)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1u < b.n) {
        sr_lbvh_refine_init(&b, i, gamma);
        b.chain[i] = b.visits[i] == SR_LBVH_START;
    } else if (i + 1u == b.n) {
        b.chain[i] = 0u;
    }
}

__global__ void srk_lbvh_refine_list(sr_lbvh b, uint32_t *starts)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1u < b.n && b.chain[i]) starts[b.base[i]] = i;
}

__global__ void srk_lbvh_refine(sr_lbvh b, const uint32_t *starts)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < b.base[b.n - 1u]) sr_lbvh_refine(&b, starts[i]);
}

/* Collapsing and re-splitting the small subtrees (sr_lbvh_resplit): the roots flagged in chain,
 * listed densely by its exclusive sum (as a later pass's starts), and a thread for each, so
 * that whole warps work (about one internal node in 30 is a root). */
__global__ void srk_lbvh_resplit_flag(sr_lbvh b, uint32_t most)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 1u < b.n) b.chain[i] = sr_lbvh_resplit_root(&b, i, most);
    else if (i + 1u == b.n) b.chain[i] = 0u;
}

__global__ void srk_lbvh_resplit(sr_lbvh b, const uint32_t *roots, uint32_t most)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < b.base[b.n - 1u]) sr_lbvh_resplit(&b, roots[i], most);
}

__global__ void srk_lbvh_chain(sr_lbvh b)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 2u * b.n - 1u) sr_lbvh_chain(&b, i);
}

__global__ void srk_lbvh_emit(sr_lbvh b)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 2u * b.n - 1u) sr_lbvh_emit(&b, i);
}

__global__ void srk_lbvh_emit_placed(sr_lbvh b)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 2u * b.n - 1u) sr_lbvh_emit_placed(&b, i);
}

__global__ void srk_lbvh_gather_placed(sr_lbvh b)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < b.n) sr_lbvh_gather_placed(&b, i);
}

__global__ void srk_lbvh_gather(sr_lbvh b)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < b.n) sr_lbvh_gather(&b, i);
}

__global__ void srk_lbvh_single(const sr_prim *prims, sr_bvh_node *out, sr_prim *out_prims, uint32_t *order)
{
    sr_prim_bounds(&prims[0], &out[0].lo, &out[0].hi);
    out[0].index = 0;
    out[0].count = 1;
    out_prims[0] = prims[0];
    order[0] = 0;
}

/* Events between the stages when the caller asks for their times (bvh_build_gpu.h). */
typedef struct sr_lbvh_marks {
    cudaEvent_t ev[SR_LBVH_GPU_STAGES + 1];
    int on;
} sr_lbvh_marks;

static void sr_lbvh_mark(sr_lbvh_marks *m, int stage, cudaStream_t stream)
{
    if (m && m->on) cudaEventRecord(m->ev[stage], stream);
}

static size_t sr_al(size_t x) { return (x + 255u) & ~(size_t)255u; }

#define SR_LBVH_TRY(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { err = e_; goto done; } } while (0)

/* Steps 1-5 with `bits` per axis, treelets restructured or not, then the root's height to
 * the host. keys_in, free after the sort, lists the starts of a later pass. */
static cudaError_t sr_lbvh_tree(sr_lbvh *b, uint32_t *bounds, uint64_t *keys_in, uint32_t *ids_in, void *cub_temp,
                                size_t cub_bytes, uint32_t bits, int treelets, uint32_t top[2], sr_lbvh_marks *m,
                                cudaStream_t stream)
{
    const uint32_t n = b->n;
    /* lo = UINT32_MAX, hi = 0: set on the device (a copy from the host's stack would be
     * staged through pageable memory) */
    cudaError_t e = cudaMemsetAsync(bounds, 0xff, 3u * sizeof(uint32_t), stream);
    if (!e) e = cudaMemsetAsync(bounds + 3, 0, 3u * sizeof(uint32_t), stream);
    if (e) return e;
    unsigned grid = sr_lbvh_grid(n);
    srk_lbvh_bounds<<<grid < 1024u ? grid : 1024u, SR_LBVH_BLOCK, 0, stream>>>(b->prims, n, bounds);
    srk_lbvh_codes<<<grid, SR_LBVH_BLOCK, 0, stream>>>(b->prims, n, bounds, bits, keys_in, ids_in);
    if ((e = cudaGetLastError())) return e;
    sr_lbvh_mark(m, SR_LBVH_STAGE_MORTON + 1, stream);
    e = cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, keys_in, b->keys, ids_in, b->ids, (int)n, 0, (int)(3u * bits),
                                        stream);
    if (e) return e;
    sr_lbvh_mark(m, SR_LBVH_STAGE_SORT + 1, stream);
    srk_lbvh_internal<<<sr_lbvh_grid(n - 1u), SR_LBVH_BLOCK, 0, stream>>>(*b);
    if ((e = cudaMemsetAsync(b->visits, 0, sizeof(uint32_t) * (n - 1u), stream))) return e;
    sr_lbvh_mark(m, SR_LBVH_STAGE_KARRAS + 1, stream);
    sr_lbvh_bottom_up_launch(b, treelets, stream);
    if (sr_lbvh_resplits(treelets)) {
        uint32_t *roots = (uint32_t *)keys_in;
        srk_lbvh_resplit_flag<<<sr_lbvh_grid(n), SR_LBVH_BLOCK, 0, stream>>>(*b, sr_lbvh_resplits(treelets));
        size_t scan_temp = cub_bytes;
        if ((e = cub::DeviceScan::ExclusiveSum(cub_temp, scan_temp, b->chain, b->base, (int)n, stream))) return e;
        srk_lbvh_refine_list<<<sr_lbvh_grid(n), SR_LBVH_BLOCK, 0, stream>>>(*b, roots);
        srk_lbvh_resplit<<<sr_lbvh_grid(n), SR_LBVH_BLOCK, 0, stream>>>(*b, roots, sr_lbvh_resplits(treelets));
    }
    for (uint32_t pass = 1; pass < sr_lbvh_passes(treelets); pass++) {
        const uint32_t gamma = sr_lbvh_gamma(treelets, pass);
        if (gamma) {
            uint32_t *starts = (uint32_t *)keys_in;
            srk_lbvh_refine_init<<<sr_lbvh_grid(n), SR_LBVH_BLOCK, 0, stream>>>(*b, gamma);
            size_t scan_temp = cub_bytes;
            if ((e = cub::DeviceScan::ExclusiveSum(cub_temp, scan_temp, b->chain, b->base, (int)n, stream))) return e;
            srk_lbvh_refine_list<<<sr_lbvh_grid(n), SR_LBVH_BLOCK, 0, stream>>>(*b, starts);
            srk_lbvh_refine<<<sr_lbvh_grid(n), SR_LBVH_BLOCK, 0, stream>>>(*b, starts);
            continue;
        }
        if ((e = cudaMemsetAsync(b->visits, 0, sizeof(uint32_t) * (n - 1u), stream))) return e;
        sr_lbvh_bottom_up_launch(b, treelets, stream);
    }
    if ((e = cudaGetLastError())) return e;
    sr_lbvh_mark(m, SR_LBVH_STAGE_BOTTOM_UP + 1, stream);
    /* the depth, for the fallback, and the node count of a reordered tree: one wait */
    if ((e = cudaMemcpyAsync(&top[0], b->height, sizeof(uint32_t), cudaMemcpyDeviceToHost, stream))) return e;
    if ((e = cudaMemcpyAsync(&top[1], b->size, sizeof(uint32_t), cudaMemcpyDeviceToHost, stream))) return e;
    e = cudaStreamSynchronize(stream);
    sr_lbvh_mark(m, SR_LBVH_STAGE_DEPTH + 1, stream);
    return e;
}

cudaError_t sr_cuda_bvh_build(const sr_prim *prims, uint32_t n, int treelets, sr_bvh_node *nodes, sr_prim *out_prims,
                              uint32_t *order, uint32_t *node_count, uint32_t *depth, float *stage_ms,
                              cudaStream_t stream)
{
    if (stage_ms)
        for (int k = 0; k < SR_LBVH_GPU_STAGES; k++) stage_ms[k] = 0.0f;
    *node_count = 0;
    *depth = 0;
    if (n == 0) return cudaSuccess;
    if (n == 1) {
        srk_lbvh_single<<<1, 1, 0, stream>>>(prims, nodes, out_prims, order);
        *node_count = 1;
        *depth = 1;
        cudaError_t e = cudaGetLastError();
        return e ? e : cudaStreamSynchronize(stream);
    }
    const size_t all = 2u * (size_t)n - 1u, in = n - 1u;
    size_t sort_bytes = 0, scan_bytes = 0;
    cudaError_t err = cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, (const uint64_t *)NULL, (uint64_t *)NULL,
                                                      (const uint32_t *)NULL, (uint32_t *)NULL, (int)n, 0, 63, stream);
    if (err) return err;
    err = cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, (const uint32_t *)NULL, (uint32_t *)NULL, (int)n, stream);
    if (err) return err;
    const size_t cub_bytes = sort_bytes > scan_bytes ? sort_bytes : scan_bytes;
    /* The per-internal-node arrays: left, right, first, count, rank, height, leaf, visits, size. */
    enum { SR_LBVH_INTERNAL_ARRAYS = 9 };
    const size_t bytes = sr_al(6u * 4u) + 2u * sr_al(8u * (size_t)n) + 2u * sr_al(4u * (size_t)n) +
                         sr_al(SR_LBVH_INTERNAL_ARRAYS * 4u * in) + sr_al(4u * all) + sr_al(24u * all) + sr_al(4u * all) +
                         2u * sr_al(4u * (size_t)n) + sr_al(cub_bytes);
    char *mem = NULL;
    sr_lbvh_marks marks, *m = NULL;
    if (stage_ms) {
        m = &marks;
        marks.on = 1;
        for (int k = 0; k <= SR_LBVH_GPU_STAGES; k++)
            if (cudaEventCreate(&marks.ev[k])) { while (k-- > 0) cudaEventDestroy(marks.ev[k]); m = NULL; break; }
    }
    sr_lbvh_mark(m, SR_LBVH_STAGE_ALLOC, stream);
    err = cudaMallocAsync((void **)&mem, bytes, stream);
    if (err) goto marks_done;
    sr_lbvh_mark(m, SR_LBVH_STAGE_ALLOC + 1, stream);
    {
        char *at = mem;
#define SR_TAKE(type, count) ((type *)((at += sr_al(sizeof(type) * (count))) - sr_al(sizeof(type) * (count))))
        uint32_t *bounds = SR_TAKE(uint32_t, 6u);
        uint64_t *keys_in = SR_TAKE(uint64_t, n);
        sr_lbvh b;
        memset(&b, 0, sizeof b);
        b.n = n;
        b.prims = prims;
        b.keys = SR_TAKE(uint64_t, n);
        uint32_t *ids_in = SR_TAKE(uint32_t, n);
        b.ids = SR_TAKE(uint32_t, n);
        b.left = SR_TAKE(uint32_t, SR_LBVH_INTERNAL_ARRAYS * in);
        b.right = b.left + in; b.first = b.left + 2u * in; b.count = b.left + 3u * in; b.rank = b.left + 4u * in;
        b.height = b.left + 5u * in; b.leaf = b.left + 6u * in; b.visits = b.left + 7u * in;
        b.size = b.left + 8u * in;
        b.parent = SR_TAKE(uint32_t, all);
        b.box = SR_TAKE(float, 6u * all);
        b.cost = SR_TAKE(float, all);
        b.chain = SR_TAKE(uint32_t, n);
        b.base = SR_TAKE(uint32_t, n);
        void *cub_temp = SR_TAKE(char, cub_bytes);
#undef SR_TAKE
        b.out = nodes;
        b.out_prims = out_prims;
        b.order = order;
        uint32_t top[2] = { 0u, 0u }, tail[2] = { 0u, 0u };
        SR_LBVH_TRY(sr_lbvh_tree(&b, bounds, keys_in, ids_in, cub_temp, cub_bytes, SR_LBVH_BITS_FINE, treelets, top, m,
                                 stream));
        if (top[0] > SR_BVH_STACK) {
            treelets = SR_LBVH_TREELETS_NONE;
            SR_LBVH_TRY(sr_lbvh_tree(&b, bounds, keys_in, ids_in, cub_temp, cub_bytes, SR_LBVH_BITS_COARSE, treelets, top,
                                     m, stream));
        }
        const uint32_t h = top[0];
        if (sr_lbvh_reorders(treelets)) {
            srk_lbvh_emit_placed<<<sr_lbvh_grid(all), SR_LBVH_BLOCK, 0, stream>>>(b);
            srk_lbvh_gather_placed<<<sr_lbvh_grid(n), SR_LBVH_BLOCK, 0, stream>>>(b);
            SR_LBVH_TRY(cudaGetLastError());
            sr_lbvh_mark(m, SR_LBVH_STAGE_LAYOUT + 1, stream);
            SR_LBVH_TRY(cudaStreamSynchronize(stream));
            *node_count = top[1];
            *depth = h;
            goto done;
        }
        SR_LBVH_TRY(cudaMemsetAsync(b.chain, 0, sizeof(uint32_t) * n, stream));
        srk_lbvh_chain<<<sr_lbvh_grid(all), SR_LBVH_BLOCK, 0, stream>>>(b);
        SR_LBVH_TRY(cudaGetLastError());
        size_t scan_temp = cub_bytes;
        SR_LBVH_TRY(cub::DeviceScan::ExclusiveSum(cub_temp, scan_temp, b.chain, b.base, (int)n, stream));
        srk_lbvh_emit<<<sr_lbvh_grid(all), SR_LBVH_BLOCK, 0, stream>>>(b);
        srk_lbvh_gather<<<sr_lbvh_grid(n), SR_LBVH_BLOCK, 0, stream>>>(b);
        SR_LBVH_TRY(cudaGetLastError());
        sr_lbvh_mark(m, SR_LBVH_STAGE_LAYOUT + 1, stream);
        SR_LBVH_TRY(cudaMemcpyAsync(&tail[0], b.base + (n - 1u), 4u, cudaMemcpyDeviceToHost, stream));
        SR_LBVH_TRY(cudaMemcpyAsync(&tail[1], b.chain + (n - 1u), 4u, cudaMemcpyDeviceToHost, stream));
        SR_LBVH_TRY(cudaStreamSynchronize(stream));
        *node_count = tail[0] + tail[1];
        *depth = h;
    }
    cudaError_t err_free;
done:
    err_free = cudaFreeAsync(mem, stream);
    if (!err) err = err_free;
marks_done:
    if (m) {
        if (!err) err = cudaEventSynchronize(m->ev[SR_LBVH_GPU_STAGES]);
        /* each stage from the previous mark (the depth's wait included in "depth") */
        for (int k = 0; k < SR_LBVH_GPU_STAGES && !err; k++) {
            float ms = 0.0f;
            if (cudaEventElapsedTime(&ms, m->ev[k], m->ev[k + 1]) == cudaSuccess) stage_ms[k] = ms;
        }
        for (int k = 0; k <= SR_LBVH_GPU_STAGES; k++) cudaEventDestroy(m->ev[k]);
    }
    return err;
}
