/* micro.cu: kernels for `stencilray bench --micro` (src/bench/bench_micro.c) and the GPU compaction
 * test: synthetic pools, flags vs stencil "empty work" kernels, CUB's DeviceSelect::Flagged as
 * the reference compaction, and a device-side check of a compacted pool. C++ only inside this
 * file (for CUB); the API is the extern "C" launchers of micro.h. */
#include "micro.h"
#include "../frames/stencil.cuh"

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#define SR_MICRO_FILL_BLOCK 256u
#define SR_MICRO_GATHER_BLOCK 256u

__device__ __forceinline__ uint32_t sr_micro_hash(uint32_t x, uint32_t seed)
{
    /* lowbias32 (Wellons): cheap, and every output bit depends on every input bit. */
    x ^= seed * 0x9e3779b9u;
    x ^= x >> 16; x *= 0x7feb352du;
    x ^= x >> 15; x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

extern "C" __global__ void srk_micro_fill_pool(sr_ray_soa pool, uint32_t n)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sr_micro_fill_slot(pool, i);
}

/* One thread per slot of the aligned pool: its flag, and lane 0 writes the warp's word. The
 * threshold is fraction * 2^32 in 64 bits, so 1 is "all" and 0 is "none" exactly. */
extern "C" __global__ void srk_micro_fill_masks(uint32_t *stencil, uint32_t *flags, uint32_t n,
                                                int pattern, unsigned long long threshold, uint32_t seed)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t key = pattern == SR_MICRO_COHERENT ? i >> 5 : i;
    const bool live = i < n && (unsigned long long)sr_micro_hash(key, seed) < threshold;
    const uint32_t m = __ballot_sync(SR_FULL_MASK, live);
    flags[i] = live ? 1u : 0u;
    if ((threadIdx.x & 31u) == 0) stencil[i >> 5] = m;
}

/* The baseline frame: one 32-bit flag per ray. Nothing is written back: alive is unchanged. */
extern "C" __global__ void srk_micro_flags(const uint32_t *flags, const float *in, float *out, uint32_t n)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || flags[i] == 0) return;
    out[i] = in[i] * 2.0f + 1.0f;
}

/* The micro-benchmark's work for a live slot: out = in * 2 + 1; the ray stays alive. */
struct sr_micro_work {
    const float *in;
    float *out;
    __device__ __forceinline__ bool operator()(uint32_t i) const
    {
        out[i] = in[i] * 2.0f + 1.0f;
        return true;
    }
};

/* The project's stencil frame (stencil.cuh), around the same work. */
extern "C" __global__ void srk_micro_stencil(uint32_t *stencil, const float *in, float *out)
{
    const sr_micro_work work = { in, out };
    sr_stencil_frame(stencil, blockIdx.x * blockDim.x + threadIdx.x, work, (uint32_t *)NULL);
}

extern "C" __global__ void srk_micro_flush_l2(const uint4 *buf, size_t count, uint32_t *sink)
{
    uint32_t acc = 0;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = __ldcg(&buf[k]);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;   /* keeps the loads; the buffer is zeros */
}

/* The same two frames as grid-stride loops over a resident grid (the compact mask's form,
 * stencil.cuh's sr_stencil_frame_loop): no thread is launched per dead slot, so what is left
 * is reading the mask (4 B per slot for flags, 1/8 B for the stencil) and the loop. */
extern "C" __global__ void srk_micro_flags_loop(const uint32_t *flags, const float *in, float *out, uint32_t n)
{
    const uint32_t stride = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (flags[i] == 0) continue;
        out[i] = in[i] * 2.0f + 1.0f;
    }
}

/* The project's grid-stride frame (stencil.cuh). */
extern "C" __global__ void srk_micro_stencil_loop(uint32_t *stencil, const float *in, float *out, uint32_t n)
{
    const sr_micro_work work = { in, out };
    sr_stencil_frame_loop(stencil, n, work, (uint32_t *)NULL);
}

/* dst[k] = src[idx[k]] for every field, k < *count: the second half of the CUB compaction. */
extern "C" __global__ void srk_micro_gather(sr_ray_soa src, sr_ray_soa dst, const uint32_t *idx, const uint32_t *count)
{
    const uint32_t n = *count, stride = gridDim.x * blockDim.x;
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) sr_ray_copy(dst, k, src, idx[k]);
}

extern "C" __global__ void srk_micro_check(sr_ray_soa out, const uint32_t *count, uint32_t capacity,
                                           const uint32_t *live, uint32_t n, uint32_t *seen, uint32_t *bad)
{
    const uint32_t c = min(*count, capacity), stride = gridDim.x * blockDim.x;
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < c; k += stride) {
        const uint32_t p = out.pixel[k], bit = 1u << (p & 31u);
        if (p >= n || (live[p >> 5] & bit) == 0) { atomicAdd(&bad[0], 1u); continue; }
        if (atomicOr(&seen[p >> 5], bit) & bit) atomicAdd(&bad[1], 1u);
        if (sr_micro_bad_fields(out, k, p)) atomicAdd(&bad[2], 1u);
    }
}

extern "C" __global__ void srk_micro_check_prefix(const uint32_t *stencil, uint32_t words, const uint32_t *count,
                                                  uint32_t *bad)
{
    const uint32_t live = *count, stride = gridDim.x * blockDim.x;
    const uint32_t used = live / 32u + (live % 32u != 0u);
    if (used > words) {   /* a count past the pool is wrong by itself */
        if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&bad[3], 1u);
    }
    for (uint32_t w = blockIdx.x * blockDim.x + threadIdx.x; w < min(used, words); w += stride) {
        const uint32_t first = w * 32u;
        const uint32_t want = live >= first + 32u ? SR_FULL_MASK : live > first ? (1u << (live - first)) - 1u : 0u;
        if (stencil[w] != want) atomicAdd(&bad[3], 1u);
    }
}

extern "C" cudaError_t sr_launch_micro_fill_pool(sr_ray_soa pool, uint32_t n, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    srk_micro_fill_pool<<<(n + SR_MICRO_FILL_BLOCK - 1u) / SR_MICRO_FILL_BLOCK, SR_MICRO_FILL_BLOCK, 0, stream>>>(pool, n);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_micro_fill_masks(uint32_t *stencil, uint32_t *flags, uint32_t n, uint32_t aligned,
                                                  int pattern, double fraction, uint32_t seed, cudaStream_t stream)
{
    if (aligned == 0) return cudaSuccess;
    if (aligned % SR_MICRO_FILL_BLOCK != 0 || aligned < n) return cudaErrorInvalidValue;
    const double f = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
    const unsigned long long threshold = (unsigned long long)(f * 4294967296.0);
    srk_micro_fill_masks<<<aligned / SR_MICRO_FILL_BLOCK, SR_MICRO_FILL_BLOCK, 0, stream>>>(stencil, flags, n, pattern,
                                                                                          threshold, seed);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_micro_flags(const uint32_t *flags, const float *in, float *out, uint32_t n,
                                             uint32_t grid, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (grid) srk_micro_flags_loop<<<grid, SR_STAGE_BLOCK, 0, stream>>>(flags, in, out, n);
    else srk_micro_flags<<<(n + SR_STAGE_BLOCK - 1u) / SR_STAGE_BLOCK, SR_STAGE_BLOCK, 0, stream>>>(flags, in, out, n);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_micro_stencil(uint32_t *stencil, const float *in, float *out, uint32_t n,
                                               uint32_t grid, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    if (grid) srk_micro_stencil_loop<<<grid, SR_STAGE_BLOCK, 0, stream>>>(stencil, in, out, n);
    else srk_micro_stencil<<<(n + SR_STAGE_BLOCK - 1u) / SR_STAGE_BLOCK, SR_STAGE_BLOCK, 0, stream>>>(stencil, in, out);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_micro_loop_grid(int device, uint32_t *grid)
{
    uint32_t a = 0, b = 0;   /* the grid both loop kernels fit at once */
    cudaError_t e = sr_resident_blocks(device, (const void *)srk_micro_flags_loop, SR_STAGE_BLOCK, &a);
    if (e == cudaSuccess) e = sr_resident_blocks(device, (const void *)srk_micro_stencil_loop, SR_STAGE_BLOCK, &b);
    *grid = a < b ? a : b;
    return e;
}

extern "C" cudaError_t sr_launch_micro_flush_l2(const void *buf, size_t bytes, uint32_t *sink, cudaStream_t stream)
{
    if (bytes < 16) return cudaSuccess;
    srk_micro_flush_l2<<<1024, 256, 0, stream>>>((const uint4 *)buf, bytes / 16u, sink);
    return cudaGetLastError();
}

/* ---- CUB -----------------------------------------------------------------------------------
 * Which CUB compaction is the fair reference? CUB selects from one array per call, and the
 * ballot partition moves the whole SoA ray state (SR_RAY_FIELDS) in one pass. The honest
 * equivalent is the best CUB can do for that job: Flagged over a counting iterator selects the
 * live slot indices (reads the flags, writes one index per live ray), then a gather kernel
 * moves every field of those slots (reads and writes only the live rays' bytes). Running
 * Flagged once per field is also measured, as what a first attempt looks like, but it scans the
 * flags once per field and reads every field in full, dead slots included, so it would flatter
 * the ballot partition. Only three Flagged instantiations exist (indices, float, uint32_t) to
 * keep this file's compile time down. */

typedef thrust::counting_iterator<uint32_t> sr_micro_counting;

extern "C" cudaError_t sr_micro_cub_temp_bytes(uint32_t n, size_t *bytes)
{
    size_t a = 0, b = 0, c = 0;
    cudaError_t e = cub::DeviceSelect::Flagged(NULL, a, sr_micro_counting(0), (const uint32_t *)NULL, (uint32_t *)NULL,
                                               (uint32_t *)NULL, (int64_t)n);
    if (e == cudaSuccess)
        e = cub::DeviceSelect::Flagged(NULL, b, (const float *)NULL, (const uint32_t *)NULL, (float *)NULL,
                                       (uint32_t *)NULL, (int64_t)n);
    if (e == cudaSuccess)
        e = cub::DeviceSelect::Flagged(NULL, c, (const uint32_t *)NULL, (const uint32_t *)NULL, (uint32_t *)NULL,
                                       (uint32_t *)NULL, (int64_t)n);
    *bytes = a > b ? (a > c ? a : c) : (b > c ? b : c);
    return e;
}

extern "C" cudaError_t sr_micro_gather_grid(int device, uint32_t *grid)
{
    return sr_resident_blocks(device, (const void *)srk_micro_gather, SR_MICRO_GATHER_BLOCK, grid);
}

extern "C" cudaError_t sr_launch_micro_cub_compact(void *temp, size_t temp_bytes, sr_ray_soa src, sr_ray_soa dst,
                                                   const uint32_t *flags, uint32_t n, uint32_t *idx, uint32_t *count,
                                                   uint32_t grid, cudaStream_t stream)
{
    cudaError_t e = cub::DeviceSelect::Flagged(temp, temp_bytes, sr_micro_counting(0), flags, idx, count, (int64_t)n,
                                               stream);
    if (e != cudaSuccess) return e;
    e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    srk_micro_gather<<<grid, SR_MICRO_GATHER_BLOCK, 0, stream>>>(src, dst, idx, count);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_micro_cub_per_field(void *temp, size_t temp_bytes, sr_ray_soa src, sr_ray_soa dst,
                                                     const uint32_t *flags, uint32_t n, uint32_t *count,
                                                     cudaStream_t stream)
{
    cudaError_t e = cudaSuccess;
#define SR_X_SELECT(type, name)                                                                                 \
    if (e == cudaSuccess)                                                                                       \
        e = cub::DeviceSelect::Flagged(temp, temp_bytes, (const type *)src.name, flags, dst.name, count, (int64_t)n, \
                                       stream);
    SR_RAY_FIELDS(SR_X_SELECT)
#undef SR_X_SELECT
    if (e != cudaSuccess) return e;
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_micro_check(sr_ray_soa out, const uint32_t *count, uint32_t capacity,
                                             const uint32_t *live, uint32_t n, const uint32_t *new_stencil,
                                             uint32_t words, uint32_t *seen, uint32_t *bad, cudaStream_t stream)
{
    cudaError_t e = cudaMemsetAsync(bad, 0, 4 * sizeof(uint32_t), stream);
    if (e == cudaSuccess && n) e = cudaMemsetAsync(seen, 0, (n + 31u) / 32u * sizeof(uint32_t), stream);
    if (e != cudaSuccess) return e;
    srk_micro_check<<<1024, 256, 0, stream>>>(out, count, capacity, live, n, seen, bad);
    e = cudaGetLastError();
    if (e != cudaSuccess || !new_stencil || words == 0) return e;
    srk_micro_check_prefix<<<(words + 255u) / 256u < 1024u ? (words + 255u) / 256u : 1024u, 256, 0, stream>>>(
        new_stencil, words, count, bad);
    return cudaGetLastError();
}
