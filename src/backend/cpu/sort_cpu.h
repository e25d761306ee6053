/* sort_cpu.h: the coherence sort's host side: the GPU merge sort's algorithm run on
 * the same shared code (kernels/frames/sort_net.h), an LSD radix sort, the CPU backend's sort stage
 * (keys, sort, gather into the other pool half). The options' names are in names.h. */
#ifndef SR_SORT_CPU_H
#define SR_SORT_CPU_H

#include <stdint.h>
#include "../../base/status.h"
#include "../../../kernels/frames/sortkey.h"
#include "../../../kernels/frames/sort_net.h"

/* The GPU merge sort (kernels/frames/sort.cu) step by step, its threads one after the other (tiles in
 * parallel): tiles of SR_SORT_TILE sorted SR_SORT_ITEMS per thread and then by merge steps,
 * then global passes split by merge path into tiles and threads. Sorts n pairs by key (ties by
 * value) into keys_out/vals_out (which may be the inputs); tmp holds 2n elements. */
void sr_merge_sort_cpu(const uint32_t *keys_in, const uint32_t *vals_in, uint32_t *keys_out, uint32_t *vals_out,
                       uint32_t n, sr_kv *tmp);

/* LSD radix sort of n pairs by key, 8 bits per pass: stable. tmp_keys/tmp_vals hold n each;
 * the result is in keys/vals. */
void sr_radix_sort_cpu(uint32_t *keys, uint32_t *vals, uint32_t n, uint32_t *tmp_keys, uint32_t *tmp_vals);

/* The CPU backend's sort stage memory, allocated on first use for `capacity` slots. */
typedef struct sr_cpu_sorter {
    uint32_t capacity;
    uint32_t *keys, *vals, *tmp_keys, *tmp_vals, *key_pix;
    sr_kv *tmp;
} sr_cpu_sorter;

void sr_cpu_sorter_free(sr_cpu_sorter *s);

/* Before the compaction that precedes a sort by material (sr_sort_key): each live ray's key
 * (among p->ray's p->n slots under the stencil) by its pixel. */
sr_status sr_cpu_sort_prepare(sr_cpu_sorter *s, int key, const sr_params *p, const uint32_t *stencil,
                              uint32_t capacity, sr_error *err);

/* After a compaction: p->ray's p->n slots are all live. Sort them by key with algo
 * (SR_SORT_MERGE or SR_SORT_RADIX) and gather them into dst. */
sr_status sr_cpu_sort_pool(sr_cpu_sorter *s, int algo, int key, const sr_params *p, sr_ray_soa dst,
                           uint32_t capacity, sr_error *err);

#endif
