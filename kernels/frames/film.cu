/* film.cu: the film's kernels: its sums times the sample scale into another device buffer
 * (e.g. a mapped GL buffer; SR_KERNEL_FILM_RESOLVE), the Whitted split's fold, and a pass's
 * film added into the backend's fixed-point sum of its passes. The viewer's tonemapped form
 * is display.cu. */
#include "launch.h"
#include "../integrators/camera.h"
#include "../core/pass_sum.h"

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

/* The Whitted split's fold (camera.h): the sample's fixed-point sums of the pixels that
 * split into the film, cleared; a thread a mark word, most of them zero. */
extern "C" __global__ void srk_film_fold(float *film, unsigned long long *fix, uint32_t pixels)
{
    const uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w < (pixels + 31u) / 32u) sr_film_fold_word(film, fix, sr_film_marks(fix, pixels), w);
}

extern "C" cudaError_t sr_launch_film_fold(float *film, unsigned long long *fix, uint32_t pixels, cudaStream_t stream)
{
    if (pixels == 0) return cudaSuccess;
    srk_film_fold<<<((pixels + 31u) / 32u + 255u) / 256u, 256, 0, stream>>>(film, fix, pixels);
    return cudaGetLastError();
}

/* A sample pass's film added into the backend's fixed-point sum of its passes (the farm's,
 * src/farm; kernels/core/pass_sum.h), so that a pass costs no copy to the host. */
extern "C" __global__ void srk_film_accumulate(const float *film, int64_t *sum, uint32_t count, uint32_t samples)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) sum[i] += sr_pass_sum_fixed(film[i], samples);
}

extern "C" cudaError_t sr_launch_film_accumulate(const float *film, int64_t *sum, uint32_t count, uint32_t samples,
                                                 cudaStream_t stream)
{
    if (count == 0) return cudaSuccess;
    srk_film_accumulate<<<(count + 255u) / 256u, 256, 0, stream>>>(film, sum, count, samples);
    return cudaGetLastError();
}
