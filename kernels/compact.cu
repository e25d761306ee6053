/* compact.cu: ballot partitioning of live rays into the other half of the ping-pong pool,
 * and the small kernels around it (new stencil, live counts). */
#include "launch.h"
#include "stencil.cuh"

#define SR_COMPACT_WARPS (SR_COMPACT_BLOCK / 32u)

/* Per warp: m = ballot(alive), rank = popc(m & lanemask_lt). Per block: warp counts summed
 * in shared memory, one atomicAdd on the global counter reserves the block's range. */
extern "C" __global__ void srk_compact(sr_ray_soa src, sr_ray_soa dst, const uint32_t *stencil, uint32_t *counter)
{
    __shared__ uint32_t warp_offset[SR_COMPACT_WARPS];
    __shared__ uint32_t block_base;
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const uint32_t word = sr_stencil_load(stencil, i);
    const bool alive = SR_STENCIL_TEST(word, i);
    const uint32_t m = __ballot_sync(SR_FULL_MASK, alive);
    if (lane == 0) warp_offset[warp] = (uint32_t)__popc(m);
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t sum = 0;
        for (uint32_t w = 0; w < SR_COMPACT_WARPS; w++) {
            const uint32_t c = warp_offset[w];
            warp_offset[w] = sum;
            sum += c;
        }
        block_base = sum ? atomicAdd(counter, sum) : 0u;
    }
    __syncthreads();
    if (alive) sr_ray_copy(dst, block_base + warp_offset[warp] + (uint32_t)__popc(m & sr_lanemask_lt(lane)), src, i);
}

/* The grid-stride form over *live_n slots, in one launch. The block's loop test is uniform
 * (n is read once), so __syncthreads inside it is safe. The last block to finish (a ticket
 * counter) knows the final count: it writes the new stencil (the first `count` bits) and
 * resets the counters for the next round, so a compaction costs one launch and no memset. */
extern "C" __global__ void srk_compact_live(sr_ray_soa src, sr_ray_soa dst, uint32_t *stencil,
                                            uint32_t *live_n, uint32_t *counter, uint32_t *blocks_done)
{
    __shared__ uint32_t warp_offset[SR_COMPACT_WARPS];
    __shared__ uint32_t block_base;
    __shared__ bool last_block;
    const uint32_t n = *live_n, stride = gridDim.x * blockDim.x;
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    for (uint32_t first = blockIdx.x * blockDim.x; first < n; first += stride) {
        const uint32_t i = first + threadIdx.x;
        /* Words past the live count are stale after an earlier compaction: i < n guards. */
        const uint32_t word = sr_stencil_load(stencil, i);
        const bool alive = i < n && SR_STENCIL_TEST(word, i);
        const uint32_t m = __ballot_sync(SR_FULL_MASK, alive);
        if (lane == 0) warp_offset[warp] = (uint32_t)__popc(m);
        __syncthreads();
        if (threadIdx.x == 0) {
            uint32_t sum = 0;
            for (uint32_t w = 0; w < SR_COMPACT_WARPS; w++) {
                const uint32_t c = warp_offset[w];
                warp_offset[w] = sum;
                sum += c;
            }
            block_base = sum ? atomicAdd(counter, sum) : 0u;
        }
        __syncthreads();
        if (alive) sr_ray_copy(dst, block_base + warp_offset[warp] + (uint32_t)__popc(m & sr_lanemask_lt(lane)), src, i);
        __syncthreads();   /* warp_offset and block_base are reused by the next iteration */
    }
    /* Every block has read the old stencil and n before it takes its ticket. */
    __threadfence();
    if (threadIdx.x == 0) last_block = atomicAdd(blocks_done, 1u) == gridDim.x - 1u;
    __syncthreads();
    if (!last_block) return;
    const uint32_t live = atomicAdd(counter, 0u), words = (live + 31u) / 32u;
    for (uint32_t w = threadIdx.x; w < words; w += blockDim.x) {
        const uint32_t first = w * 32u;
        stencil[w] = live >= first + 32u ? SR_FULL_MASK : (1u << (live - first)) - 1u;
    }
    if (threadIdx.x == 0) {
        *blocks_done = 0;
        *live_n = 0;       /* the old count: the next compaction's (zeroed) counter */
    }
}

extern "C" __global__ void srk_stencil_prefix(uint32_t *stencil, uint32_t words, const uint32_t *live_dev,
                                              uint32_t live_host, uint32_t *n_out)
{
    const uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (n_out && w == 0) *n_out = live_host;
    if (w >= words) return;
    const uint32_t live = live_dev ? *live_dev : live_host, first = w * 32u;
    stencil[w] = live >= first + 32u ? SR_FULL_MASK : live > first ? (1u << (live - first)) - 1u : 0u;
}

extern "C" __global__ void srk_count_live(const uint32_t *stencil, const uint32_t *flags, uint32_t n, uint32_t *out)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t c = 0;
    if (stencil) {
        if (i < (n + 31u) / 32u) c = (uint32_t)__popc(stencil[i]);      /* one word per thread */
    } else {
        c = (uint32_t)__popc(__ballot_sync(SR_FULL_MASK, i < n && flags[i] != 0)) * ((threadIdx.x & 31u) == 0);
    }
    for (int off = 16; off > 0; off >>= 1) c += __shfl_down_sync(SR_FULL_MASK, c, off);
    if ((threadIdx.x & 31u) == 0 && c) atomicAdd(out, c);
}

extern "C" cudaError_t sr_launch_compact(sr_ray_soa src, sr_ray_soa dst, const uint32_t *stencil, uint32_t n,
                                         uint32_t *counter, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    srk_compact<<<(n + SR_COMPACT_BLOCK - 1u) / SR_COMPACT_BLOCK, SR_COMPACT_BLOCK, 0, stream>>>(src, dst, stencil, counter);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_compact_live(sr_ray_soa src, sr_ray_soa dst, uint32_t *stencil, uint32_t *live_n,
                                              uint32_t *counter, uint32_t *blocks_done, uint32_t grid, cudaStream_t stream)
{
    srk_compact_live<<<grid, SR_COMPACT_BLOCK, 0, stream>>>(src, dst, stencil, live_n, counter, blocks_done);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_stencil_prefix(uint32_t *stencil, uint32_t words, const uint32_t *live_dev,
                                                uint32_t live_host, uint32_t *n_out, cudaStream_t stream)
{
    if (words == 0) return cudaSuccess;
    srk_stencil_prefix<<<(words + 255u) / 256u, 256, 0, stream>>>(stencil, words, live_dev, live_host, n_out);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_count_live(const uint32_t *stencil, const uint32_t *flags, uint32_t n,
                                            uint32_t *out, cudaStream_t stream)
{
    const uint32_t threads = stencil ? (n + 31u) / 32u : n;
    if (threads == 0) return cudaSuccess;
    srk_count_live<<<(threads + 255u) / 256u, 256, 0, stream>>>(stencil, flags, n, out);
    return cudaGetLastError();
}

extern "C" __global__ void srk_film_scale(const float *film, float *dst, uint32_t count, float scale)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) dst[i] = film[i] * scale;
}

extern "C" cudaError_t sr_launch_film_scale(const float *film, float *dst, uint32_t count, float scale, cudaStream_t stream)
{
    if (count == 0) return cudaSuccess;
    srk_film_scale<<<(count + 255u) / 256u, 256, 0, stream>>>(film, dst, count, scale);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_persistent_grid_compact(int device, uint32_t *grid)
{
    int sms = 0, per_sm = 0;
    cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, srk_compact_live, SR_COMPACT_BLOCK, 0);
    *grid = (uint32_t)(sms * (per_sm > 0 ? per_sm : 1));
    return e;
}
