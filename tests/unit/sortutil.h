/* sortutil.h: what the sort tests share (test_sort_net.c on the CPU, test_gpu_sort.c on the
 * GPU): a reproducible random source, the (key, value) order, and key arrays of the shapes a
 * sort gets wrong first. Header-only; include after testutil.h. Each test sets rng_state. */
#ifndef SR_SORTUTIL_H
#define SR_SORTUTIL_H

#include <stdint.h>
#include <stdlib.h>
#include "../../kernels/frames/sort_net.h"

static uint32_t rng_state = 12345u;
static uint32_t rnd(void)
{
    /* xorshift32: reproducible across platforms */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static int cmp_kv(const void *x, const void *y)
{
    sr_kv a = *(const sr_kv *)x, b = *(const sr_kv *)y;
    return a < b ? -1 : a > b;
}

enum { SHAPE_RANDOM = 0, SHAPE_DUPLICATES, SHAPE_EQUAL, SHAPE_SORTED, SHAPE_REVERSED, SHAPE_EXTREME, SHAPE_COUNT };
static const char *const shape_name[SHAPE_COUNT] = { "random", "duplicates", "all equal", "sorted", "reverse-sorted",
                                                     "extreme keys" };

static void fill(uint32_t *keys, uint32_t *vals, uint32_t n, int shape, int index_vals)
{
    for (uint32_t i = 0; i < n; i++) {
        switch (shape) {
        case SHAPE_DUPLICATES: keys[i] = rnd() % 7u; break;
        case SHAPE_EQUAL: keys[i] = 42u; break;
        case SHAPE_SORTED: keys[i] = i / 3u; break;
        case SHAPE_REVERSED: keys[i] = 0xfffffff0u - i; break;
        case SHAPE_EXTREME: keys[i] = rnd() % 3u == 0 ? 0xffffffffu : (rnd() % 2u ? 0u : rnd()); break;
        default: keys[i] = rnd(); break;
        }
        /* Values: the positions (as the ray sort's), or arbitrary with repeats and the all-ones
         * value, so that some pairs equal the sentinel. */
        vals[i] = index_vals ? i : (rnd() % 5u == 0 ? 0xffffffffu : rnd() % 1000u);
    }
}

#endif
