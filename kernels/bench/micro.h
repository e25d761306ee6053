/* micro.h: the micro-benchmark's kernels (kernels/bench/micro.cu) behind extern "C" launchers:
 * synthetic ray pools and live patterns, "empty work" kernels under the flags and stencil
 * frames, CUB's DeviceSelect::Flagged as the reference compaction, and a device-side check of
 * a compacted pool. Used by src/bench/bench_micro.c (`stencilray bench --micro`) and the GPU tests.
 * Every launcher enqueues on `stream` and returns the launch's (or CUB's) error. */
#ifndef SR_MICRO_H
#define SR_MICRO_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "../frames/launch.h"

/* What slot `slot` of a synthetic pool holds in its `field`-th field (SR_RAY_FIELDS order):
 * uint32_t fields (pixel) hold the slot itself, float fields a hash of (slot, field) below
 * 2^24, so exact in float. A field that did not move with its pixel shows as a mismatch. */
#define SR_MICRO_VALUE_float(slot, field) ((float)((((slot) * 2654435761u) ^ ((field) * 40503u)) >> 8))
#define SR_MICRO_VALUE_uint32_t(slot, field) ((uint32_t)(slot))
#define SR_MICRO_VALUE_uint8_t(slot, field) ((uint8_t)((slot) * 31u + (field)))

SR_HD void sr_micro_fill_slot(sr_ray_soa r, uint32_t slot)
{
    uint32_t f = 0;
#define SR_X_FILL(type, name) r.name[slot] = SR_MICRO_VALUE_##type(slot, f); f++;
    SR_RAY_FIELDS(SR_X_FILL)
#undef SR_X_FILL
    (void)f;
}

/* Fields of r's slot k that do not hold what slot `pixel` was filled with (0: it moved whole). */
SR_HD uint32_t sr_micro_bad_fields(sr_ray_soa r, uint32_t k, uint32_t pixel)
{
    uint32_t f = 0, bad = 0;
#define SR_X_CHECK(type, name) bad += r.name[k] != SR_MICRO_VALUE_##type(pixel, f); f++;
    SR_RAY_FIELDS(SR_X_CHECK)
#undef SR_X_CHECK
    (void)f;
    return bad;
}

#ifdef __cplusplus
extern "C" {
#endif

/* Live patterns: RANDOM decides each slot by a hash of (slot, seed); COHERENT decides whole
 * warps (32 slots in a row, one stencil word) by a hash of (warp, seed). */
enum { SR_MICRO_RANDOM = 0, SR_MICRO_COHERENT = 1 };

/* Slot s of pool, for s < n: sr_micro_fill_slot. */
cudaError_t sr_launch_micro_fill_pool(sr_ray_soa pool, uint32_t n, cudaStream_t stream);

/* The same live set as a stencil (aligned / 32 words) and as flags (aligned uint32s), about
 * `fraction` of the n slots live (exactly all for 1, none for 0); slots >= n are dead.
 * aligned is n rounded up to SR_POOL_ALIGN. */
cudaError_t sr_launch_micro_fill_masks(uint32_t *stencil, uint32_t *flags, uint32_t n, uint32_t aligned,
                                       int pattern, double fraction, uint32_t seed, cudaStream_t stream);

/* The two "empty work" kernels over n slots (SR_STAGE_BLOCK threads per block): live rays do
 * out[i] = in[i] * 2 + 1. flags: `if (flags[i] == 0) return;`. stencil: the project's frame
 * (bounce.cu): the word read by lane 0 and given to the lanes, a uniform exit for an empty
 * word, SR_STENCIL_TEST, the work, sr_stencil_write_back with alive unchanged (so the stencil
 * is left as it was). With grid 0, one thread per slot (the flags and stencil masks'
 * launches); otherwise `grid` blocks loop grid-stride over the slots (the compact mask's
 * form). The stencil launch covers whole blocks: its words must reach n rounded up to
 * SR_STAGE_BLOCK. */
cudaError_t sr_launch_micro_flags(const uint32_t *flags, const float *in, float *out, uint32_t n, uint32_t grid,
                                  cudaStream_t stream);
cudaError_t sr_launch_micro_stencil(uint32_t *stencil, const float *in, float *out, uint32_t n, uint32_t grid,
                                    cudaStream_t stream);
/* The resident grid both grid-stride kernels above get (occupancy x SM count, the smaller). */
cudaError_t sr_micro_loop_grid(int device, uint32_t *grid);

/* Evicts the L2 cache between timed runs by reading `bytes` (a multiple of 16, at least twice
 * the L2 size) of buf: reads leave clean lines, so the timed kernel pays no write-back for
 * them. sink (one device word) is written only if the data holds an impossible value. */
cudaError_t sr_launch_micro_flush_l2(const void *buf, size_t bytes, uint32_t *sink, cudaStream_t stream);

/* Temporary storage both CUB compactions below need for n slots (allocate once). */
cudaError_t sr_micro_cub_temp_bytes(uint32_t n, size_t *bytes);

/* Blocks for the gather's grid-stride loop (occupancy x SM count). */
cudaError_t sr_micro_gather_grid(int device, uint32_t *grid);

/* CUB reference, the fair equivalent of sr_launch_compact_live: DeviceSelect::Flagged picks
 * the live slot indices (a counting iterator under `flags`) into idx[] and *count (device),
 * then one gather kernel moves every SR_RAY_FIELDS array of those slots into dst[0, *count).
 * `grid` from sr_micro_gather_grid. */
cudaError_t sr_launch_micro_cub_compact(void *temp, size_t temp_bytes, sr_ray_soa src, sr_ray_soa dst,
                                        const uint32_t *flags, uint32_t n, uint32_t *idx, uint32_t *count,
                                        uint32_t grid, cudaStream_t stream);

/* The naive CUB use, for comparison: DeviceSelect::Flagged once per field (each call scans
 * the flags again and reads the whole field). *count gets the live count. */
cudaError_t sr_launch_micro_cub_per_field(void *temp, size_t temp_bytes, sr_ray_soa src, sr_ray_soa dst,
                                          const uint32_t *flags, uint32_t n, uint32_t *count, cudaStream_t stream);

/* Checks a compacted pool against the live set it came from. out's first *count slots
 * (at most `capacity` are read) must hold each live slot of `live` (a stencil over n slots)
 * exactly once, every field as sr_launch_micro_fill_pool wrote it for that pixel. If
 * new_stencil is not NULL, its first ceil(*count / 32) words (at most `words`, the stencil's
 * size) must be the first *count bits set; later words are not looked at. seen is
 * scratch of (n + 31) / 32 words, bad[4] a device result; both are zeroed here. After it:
 * bad[0] slots not live (or out of range), bad[1] duplicates, bad[2] fields that did not move
 * with their pixel, bad[3] wrong new-stencil words. With *count equal to the popcount of
 * `live`, all four zero means: the same set, nothing lost or duplicated. */
cudaError_t sr_launch_micro_check(sr_ray_soa out, const uint32_t *count, uint32_t capacity, const uint32_t *live,
                                  uint32_t n, const uint32_t *new_stencil, uint32_t words, uint32_t *seen,
                                  uint32_t *bad, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
