/* sort.h: the coherence sort on the GPU, extern "C" for the host: the merge sort
 * (kernels/frames/sort.cu, on the network of sort_net.h), CUB's radix sort as the reference, and the
 * ray-pool sort stage built on them (keys, sort, gather into the other pool half). Every
 * function enqueues on `stream` and returns the first CUDA error. */
#ifndef SR_SORT_H
#define SR_SORT_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "sortkey.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device bytes of temporary storage that sr_sort_pairs needs for up to n pairs. */
cudaError_t sr_sort_temp_bytes(int algo, uint32_t n, size_t *bytes);

/* Sort n (key, value) pairs by key (32-bit each) with algo (sr_sort_algo: SR_SORT_MERGE or
 * SR_SORT_RADIX) into keys_out/vals_out, which must not overlap the inputs; any n (0
 * included, up to 2^31). Equal keys come out in ascending value order for merge (it orders by
 * key, then value), in input order for radix (stable): the same output when the values are
 * ascending positions, as the ray sort's are. */
cudaError_t sr_sort_pairs(int algo, void *temp, size_t temp_bytes, const uint32_t *keys_in, const uint32_t *vals_in,
                          uint32_t *keys_out, uint32_t *vals_out, uint32_t n, cudaStream_t stream);

/* The sort stage's device memory for a pool of `capacity` slots (pixels), allocated by
 * sr_gpu_sorter_reserve when it is first needed or grows (nothing happens when it is big
 * enough), kept until sr_gpu_sorter_free: temporary storage for both algorithms, once per
 * size. The stage functions below need it reserved for the whole pool. */
typedef struct sr_gpu_sorter {
    uint32_t capacity;
    uint32_t *keys[2], *vals[2];   /* unsorted and sorted pairs                       */
    uint32_t *key_pix;             /* a live ray's key by pixel (keys taken before compaction) */
    void *temp;
    size_t temp_bytes;
} sr_gpu_sorter;

cudaError_t sr_gpu_sorter_reserve(sr_gpu_sorter *s, uint32_t capacity);
void sr_gpu_sorter_free(sr_gpu_sorter *s);

/* Before the compaction that precedes a sort by a key that compaction does not carry (the
 * material of the last hit, sr_sort_key in sortkey.h): key_pix[pixel] = the key of each live
 * ray among p->ray's *live_n slots under the stencil; `grid` blocks loop grid-stride. */
cudaError_t sr_gpu_sort_prepare(sr_gpu_sorter *s, int key, const sr_params *p, const uint32_t *stencil,
                                const uint32_t *live_n, uint32_t grid, cudaStream_t stream);

/* The sort stage, after a compaction: p->ray holds *live_n live rays in slots [0, *live_n).
 * Keys for slots [0, m) (the pad key past *live_n; from key_pix when the key was prepared),
 * sorted with `algo`, and the rays gathered into dst in key order; slots [m, *live_n) (when
 * the host's bound m was short) are copied in place, so any m is correct and a close one is
 * fast. The live count and the stencil (its first *live_n bits) stay as they are. */
cudaError_t sr_gpu_sort_pool(sr_gpu_sorter *s, int algo, int key, const sr_params *p, sr_ray_soa dst,
                             const uint32_t *live_n, uint32_t m, uint32_t grid, cudaStream_t stream);

/* For the micro-benchmark: the other way to reorder, sort the ray state itself. Packs the n
 * rays of src into records, sorts them by keys with CUB's radix sort (the records are its
 * values) and unpacks them into dst. temp: sr_sort_records_temp_bytes(n) bytes. */
cudaError_t sr_sort_records_temp_bytes(uint32_t n, size_t *bytes);
cudaError_t sr_sort_records(void *temp, size_t temp_bytes, const uint32_t *keys, sr_ray_soa src, sr_ray_soa dst,
                            uint32_t n, cudaStream_t stream);
/* dst slot i = src slot order[i], i < n (the gather of sr_gpu_sort_pool, for the benchmark). */
cudaError_t sr_sort_gather(sr_ray_soa src, sr_ray_soa dst, const uint32_t *order, uint32_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
