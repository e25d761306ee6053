/* film.cu: the film resolved on the device: its accumulated sums times the sample scale, into
 * another device buffer (e.g. a mapped GL buffer; SR_KERNEL_FILM_RESOLVE). The viewer's
 * tonemapped form is display.cu. (It used to sit in compact.cu, which is about the pool.) */
#include "launch.h"
#include "../integrators/camera.h"

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

/* The Whitted split's fold (camera.h): a sample's fixed-point sums into the film, cleared. */
extern "C" __global__ void srk_film_fold(float *film, unsigned long long *fix, uint32_t count)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) sr_film_fold(film, fix, i);
}

extern "C" cudaError_t sr_launch_film_fold(float *film, unsigned long long *fix, uint32_t count, cudaStream_t stream)
{
    if (count == 0) return cudaSuccess;
    srk_film_fold<<<(count + 255u) / 256u, 256, 0, stream>>>(film, fix, count);
    return cudaGetLastError();
}
