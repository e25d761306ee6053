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

void sr_film_sum_add_pass(sr_film_sum *s, const float *pass, uint32_t samples)
{
    const double scale = (double)(1ull << SR_FILM_SUM_BITS);
    const double clamp = SR_FILM_SUM_CLAMP * (double)samples;
    const long n = (long)s->n;
    int64_t *v = s->v;
#pragma omp parallel for schedule(static) if (n > (1L << 18))
    for (long i = 0; i < n; i++) {
        double x = (double)pass[i];
        if (!(x == x)) x = 0.0;   /* NaN */
        if (x > clamp) x = clamp;
        if (x < -clamp) x = -clamp;
        v[i] += (int64_t)llrint(x * scale);   /* x * 2^24 is exact in double; the rounding is the same everywhere */
    }
    s->samples += samples;
    s->passes++;
}

void sr_film_sum_merge(sr_film_sum *a, const sr_film_sum *b)
{
    const long n = (long)a->n;
#pragma omp parallel for schedule(static) if (n > (1L << 18))
    for (long i = 0; i < n; i++) a->v[i] += b->v[i];
    a->samples += b->samples;
    a->passes += b->passes;
}

void sr_film_sum_mean(const sr_film_sum *s, float *rgb)
{
    const double k = s->samples ? 1.0 / ((double)(1ull << SR_FILM_SUM_BITS) * (double)s->samples) : 0.0;
    const long n = (long)s->n;
#pragma omp parallel for schedule(static) if (n > (1L << 18))
    for (long i = 0; i < n; i++) rgb[i] = (float)((double)s->v[i] * k);
}
