/* display.cu: the film straight into the viewer's GL texture. One thread per pixel reads the
 * accumulated sums, applies scale, exposure, tonemap and the sRGB curve with the same
 * kernels/core/tonemap.h code that `render` uses for its PNGs, and writes an RGBA8 texel through a
 * surface object over the mapped texture (no pixel buffer, no GL copy, no shader tonemap), or
 * as plain RGBA8 rows into device memory that GL imported once (the external-memory path). */
#include "launch.h"
#include "../core/tonemap.h"

#define SR_DISPLAY_BLOCK_X 32u   /* a warp along a row: the surface writes are one 128-byte line */
#define SR_DISPLAY_BLOCK_Y 8u

/* One pixel of the film as a display texel. */
__device__ static uchar4 srk_display_texel(const float *film, uint32_t width, uint32_t x, uint32_t y, float scale,
                                           float exposure, int tonemap)
{
    const float *px = film + 3u * ((size_t)y * width + x);
    const sr_tonemap op = (sr_tonemap)tonemap;
    /* (sum * scale) then the tonemap: the same two roundings as read_film + sr_image_to_srgb8. */
    return make_uchar4(sr_display_byte(px[0] * scale, exposure, op), sr_display_byte(px[1] * scale, exposure, op),
                       sr_display_byte(px[2] * scale, exposure, op), 255);
}

extern "C" __global__ void srk_resolve_display(const float *film, uint32_t width, uint32_t height, float scale,
                                               float exposure, int tonemap, cudaSurfaceObject_t surface)
{
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const uchar4 texel = srk_display_texel(film, width, x, y, scale, exposure, tonemap);
    surf2Dwrite(texel, surface, (int)(x * sizeof(uchar4)), (int)y);   /* x in bytes */
}

extern "C" __global__ void srk_resolve_display_rows(const float *film, uint32_t width, uint32_t height, float scale,
                                                    float exposure, int tonemap, uchar4 *rows)
{
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    rows[(size_t)y * width + x] = srk_display_texel(film, width, x, y, scale, exposure, tonemap);
}

extern "C" cudaError_t sr_launch_resolve_display(const float *film, uint32_t width, uint32_t height, float scale,
                                                 float exposure, int tonemap, cudaSurfaceObject_t surface,
                                                 cudaStream_t stream)
{
    if (width == 0 || height == 0) return cudaSuccess;
    const dim3 block(SR_DISPLAY_BLOCK_X, SR_DISPLAY_BLOCK_Y, 1);
    const dim3 grid((width + SR_DISPLAY_BLOCK_X - 1u) / SR_DISPLAY_BLOCK_X,
                    (height + SR_DISPLAY_BLOCK_Y - 1u) / SR_DISPLAY_BLOCK_Y, 1);
    srk_resolve_display<<<grid, block, 0, stream>>>(film, width, height, scale, exposure, tonemap, surface);
    return cudaGetLastError();
}

extern "C" cudaError_t sr_launch_resolve_display_rows(const float *film, uint32_t width, uint32_t height, float scale,
                                                      float exposure, int tonemap, void *rows, cudaStream_t stream)
{
    if (width == 0 || height == 0) return cudaSuccess;
    const dim3 block(SR_DISPLAY_BLOCK_X, SR_DISPLAY_BLOCK_Y, 1);
    const dim3 grid((width + SR_DISPLAY_BLOCK_X - 1u) / SR_DISPLAY_BLOCK_X,
                    (height + SR_DISPLAY_BLOCK_Y - 1u) / SR_DISPLAY_BLOCK_Y, 1);
    srk_resolve_display_rows<<<grid, block, 0, stream>>>(film, width, height, scale, exposure, tonemap, (uchar4 *)rows);
    return cudaGetLastError();
}
