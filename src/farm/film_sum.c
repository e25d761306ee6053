/* film_sum.c: fixed-point film sums (film_sum.h). */
#include "film_sum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sr_status sr_film_sum_init(sr_film_sum *s, size_t n, sr_error *err)
{
    memset(s, 0, sizeof *s);
    s->v = (int64_t *)calloc(n ? n : 1, sizeof *s->v);
    if (!s->v) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for a film sum of %zu values", n);
    s->n = n;
    return SR_OK;
}

void sr_film_sum_free(sr_film_sum *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

void sr_film_sum_clear(sr_film_sum *s)
{
    memset(s->v, 0, s->n * sizeof *s->v);
    s->samples = 0;
    s->passes = 0;
}

void sr_film_sum_reset(sr_film_sum *s)
{
    s->samples = 0;
    s->passes = 0;
}

void sr_film_sum_add_pass(sr_film_sum *s, const float *pass, uint32_t samples)
{
    const long n = (long)s->n;
    const int64_t keep = s->passes ? -1 : 0;   /* a sum with no passes counts as zero */
    int64_t *v = s->v;
#pragma omp parallel for schedule(static) if (n > (1L << 18))
    for (long i = 0; i < n; i++) v[i] = (v[i] & keep) + sr_pass_sum_fixed(pass[i], samples);
    s->samples += samples;
    s->passes++;
}

void sr_film_sum_merge(sr_film_sum *a, const sr_film_sum *b)
{
    sr_film_sum_merge_all(a, &b, 1);
}

void sr_film_sum_merge_all(sr_film_sum *a, const sr_film_sum *const *b, uint32_t k)
{
    const sr_film_sum *from[64];
    uint32_t m = 0;
    for (uint32_t j = 0; j < k; j++)
        if (b[j]->passes) {
            if (m == 64) {   /* more than a sweep takes: merge these first */
                sr_film_sum_merge_all(a, from, m);
                m = 0;
            }
            from[m++] = b[j];
        }
    if (!m) return;
    const long n = (long)a->n;
    const int64_t keep = a->passes ? -1 : 0;
    int64_t *v = a->v;
#pragma omp parallel for schedule(static) if (n > (1L << 18))
    for (long i = 0; i < n; i++) {
        int64_t x = v[i] & keep;
        for (uint32_t j = 0; j < m; j++) x += from[j]->v[i];
        v[i] = x;
    }
    for (uint32_t j = 0; j < m; j++) {
        a->samples += from[j]->samples;
        a->passes += from[j]->passes;
    }
}

void sr_film_sum_mean(const sr_film_sum *s, float *rgb)
{
    const double k = s->samples ? 1.0 / ((double)(1ull << SR_FILM_SUM_BITS) * (double)s->samples) : 0.0;
    const long n = (long)s->n;
#pragma omp parallel for schedule(static) if (n > (1L << 18))
    for (long i = 0; i < n; i++) rgb[i] = (float)((double)s->v[i] * k);
}
