/* stats.h: the median the micro-benchmarks report (bench --micro, --sort-micro). */
#ifndef SR_STATS_H
#define SR_STATS_H

#include <stdint.h>

/* The median of v[0..n), n >= 1; sorts v in place (insertion sort: n is a repetition count,
 * small). */
static inline double sr_median_f(float *v, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        float x = v[i];
        uint32_t j = i;
        for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
        v[j] = x;
    }
    return n % 2 ? v[n / 2] : 0.5 * ((double)v[n / 2 - 1] + v[n / 2]);
}

#endif
