/* pass_sum.h: a sample pass's film value as the 64-bit fixed point in which a frame split into
 * passes is summed (src/farm/film_sum.h says why: integer sums give the same bits in any
 * order, over any number of workers or ranks). One rule for the host's sum and for the sum a
 * backend keeps of its own passes (SR_KERNEL_FILM_ACCUMULATE), so both give the same bits.
 *
 * No sum overflows: a pass's value is clamped to its samples x SR_FILM_SUM_CLAMP (a mean
 * radiance of 4e6 per sample; a NaN counts 0), so even SR_MAX_SPP samples stay below 2^62. */
#ifndef SR_PASS_SUM_H
#define SR_PASS_SUM_H

#include <math.h>
#include "compat.h"

#define SR_FILM_SUM_BITS 24          /* fraction bits: 6e-8 per pass value                    */
#define SR_FILM_SUM_CLAMP 4194304.0  /* 2^22 per sample: 65536 samples x 2^22 x 2^24 = 2^62  */

/* value: a film sum of `samples` samples. x * 2^24 is exact in double, and llrint rounds to
 * the nearest even on the host and on the device alike. */
SR_HD int64_t sr_pass_sum_fixed(float value, uint32_t samples)
{
    const double clamp = SR_FILM_SUM_CLAMP * (double)samples;
    double x = (double)value;
    if (!(x == x)) x = 0.0;   /* NaN */
    if (x > clamp) x = clamp;
    if (x < -clamp) x = -clamp;
    return (int64_t)llrint(x * (double)(1ull << SR_FILM_SUM_BITS));
}

#endif
