/* film_sum.h: the film of a frame split into sample passes, summed exactly. Each pass's film
 * (float sums of its samples, read from a worker's backend) is turned into 64-bit fixed point
 * (SR_FILM_SUM_BITS fraction bits) and added as integers. Integer sums are associative, so a
 * frame split over any number of workers or ranks, whose passes finish in any order, sums to
 * the same bits; an MPI reduction of the sums (MPI_SUM on int64) is exact too.
 *
 *     sr_film_sum s;
 *     sr_film_sum_init(&s, width * height * 3, err);
 *     sr_film_sum_add_pass(&s, pass_rgb, pass_samples);    // any order
 *     sr_film_sum_merge(&total, &s);                       // "add film B into film A"
 *     sr_film_sum_mean(&total, rgb);                       // the mean over its samples
 *
 * The farm's workers do not add passes here: each backend sums its own passes where it
 * renders them (SR_KERNEL_FILM_ACCUMULATE, the same rule), and the farm merges the workers'
 * sums once a frame. sr_film_sum_add_pass is that rule on the host, which the tests hold the
 * backends' sums to.
 *
 * A sum with no passes counts as zero whatever its memory holds: its first pass or merge
 * stores instead of adding (sr_film_sum_reset leaves the memory as it is: 200 MB at 4K).
 *
 * The conversion of a pass's value, and why no sum overflows: kernels/core/pass_sum.h, which
 * the backends' own sums of their passes (SR_KERNEL_FILM_ACCUMULATE) use too. */
#ifndef SR_FILM_SUM_H
#define SR_FILM_SUM_H

#include <stddef.h>
#include <stdint.h>
#include "../base/status.h"
#include "../../kernels/core/pass_sum.h"

typedef struct sr_film_sum {
    int64_t *v;          /* n sums, fixed point                                            */
    size_t n;            /* values (width * height * 3)                                   */
    uint64_t samples;    /* samples per pixel summed into v                               */
    uint32_t passes;     /* passes summed into v                                          */
} sr_film_sum;

sr_status sr_film_sum_init(sr_film_sum *s, size_t n, sr_error *err);
void sr_film_sum_free(sr_film_sum *s);
/* No passes, and every value zero. */
void sr_film_sum_clear(sr_film_sum *s);
/* No passes: the values are left as they are and count as zero. */
void sr_film_sum_reset(sr_film_sum *s);
/* Add one pass: n float sums of `samples` samples per pixel. */
void sr_film_sum_add_pass(sr_film_sum *s, const float *pass, uint32_t samples);
/* Add film b into film a (same n): the one place two partial films meet. */
void sr_film_sum_merge(sr_film_sum *a, const sr_film_sum *b);
/* Add the k films b[0..k) into a (same n) in one sweep over the values; those with no passes
 * are skipped. */
void sr_film_sum_merge_all(sr_film_sum *a, const sr_film_sum *const *b, uint32_t k);
/* The mean per sample as floats (n of them); all zero when no sample was summed. */
void sr_film_sum_mean(const sr_film_sum *s, float *rgb);

#endif
