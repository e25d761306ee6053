/* Stencil semantics of the CPU backend's frames: the layout (ray i is bit i % 32 of word
 * i / 32), no stage call for an inactive ray or an empty warp, write-back touching only live
 * rays' bits, and ballot partitioning (count, no ray lost or duplicated). These are the
 * semantics the CUDA kernel frames implement; test_gpu_* checks the GPU against them. */
#include "testutil.h"
#include "../../src/backend/cpu/backend_cpu.h"
#include "../../kernels/frames/wave.h"

#include <stdlib.h>
#include <string.h>

#define N_RAYS 1000u               /* not a multiple of 32: the last warp is partial */
#define N_WORDS ((N_RAYS + 31u) / 32u)

typedef struct recorder {
    unsigned calls[N_RAYS];
    unsigned char kill[N_RAYS];    /* what the stage returns: 1 = the ray dies */
} recorder;

static bool record_stage(const void *ctx, uint32_t slot)
{
    recorder *r = (recorder *)ctx;          /* the frame passes ctx through untouched */
    __atomic_fetch_add(&r->calls[slot], 1u, __ATOMIC_RELAXED);
    return !r->kill[slot];
}

/* A fixed pseudo-random bit pattern, independent of the code under test. */
static int pattern_bit(uint32_t i) { return ((i * 2654435761u) >> 13) & 1u; }

static void test_bit_layout(void **state)
{
    (void)state;
    uint32_t stencil[N_WORDS];
    memset(stencil, 0, sizeof stencil);
    /* Only ray 37 live: word 1, bit 5. */
    stencil[37 / 32] = 1u << (37 % 32);
    recorder *r = calloc(1, sizeof *r);
    sr_cpu_stencil_frame(stencil, N_RAYS, record_stage, r);
    for (uint32_t i = 0; i < N_RAYS; i++) assert_int_equal(r->calls[i], i == 37 ? 1 : 0);
    assert_int_equal(stencil[1], 1u << 5);
    free(r);
}

static void test_inactive_rays_not_called(void **state)
{
    (void)state;
    uint32_t stencil[N_WORDS];
    memset(stencil, 0, sizeof stencil);
    for (uint32_t i = 0; i < N_RAYS; i++)
        if (pattern_bit(i)) stencil[i / 32] |= 1u << (i % 32);
    recorder *r = calloc(1, sizeof *r);
    sr_cpu_stencil_frame(stencil, N_RAYS, record_stage, r);
    for (uint32_t i = 0; i < N_RAYS; i++) assert_int_equal(r->calls[i], (unsigned)pattern_bit(i));
    free(r);
}

static void test_write_back_changes_only_live_bits(void **state)
{
    (void)state;
    uint32_t stencil[N_WORDS], before[N_WORDS];
    memset(stencil, 0, sizeof stencil);
    for (uint32_t i = 0; i < N_RAYS; i++)
        if (pattern_bit(i)) stencil[i / 32] |= 1u << (i % 32);
    memcpy(before, stencil, sizeof stencil);
    recorder *r = calloc(1, sizeof *r);
    for (uint32_t i = 0; i < N_RAYS; i++) r->kill[i] = (i % 3) == 0;   /* kills live and dead alike */
    sr_cpu_stencil_frame(stencil, N_RAYS, record_stage, r);
    for (uint32_t i = 0; i < N_RAYS; i++) {
        int was = (before[i / 32] >> (i % 32)) & 1u;
        int now = (stencil[i / 32] >> (i % 32)) & 1u;
        if (!was) assert_int_equal(now, 0);              /* a dead ray stays dead */
        else assert_int_equal(now, (i % 3) != 0);        /* a live one is what its stage said */
    }
    free(r);
}

static void test_empty_warp_costs_no_call(void **state)
{
    (void)state;
    uint32_t stencil[N_WORDS];
    for (uint32_t w = 0; w < N_WORDS; w++) stencil[w] = (w % 2) ? 0u : 0x80000001u;
    recorder *r = calloc(1, sizeof *r);
    sr_cpu_stencil_frame(stencil, N_RAYS, record_stage, r);
    for (uint32_t w = 0; w < N_WORDS; w++) {
        unsigned calls = 0;
        for (uint32_t l = 0; l < 32 && w * 32 + l < N_RAYS; l++) calls += r->calls[w * 32 + l];
        unsigned expect = (w % 2) ? 0 : (w * 32 + 31 < N_RAYS ? 2 : 1);
        assert_int_equal(calls, expect);
    }
    free(r);
}

static void test_flags_frame_matches_stencil(void **state)
{
    (void)state;
    uint32_t stencil[N_WORDS], flags[N_RAYS];
    memset(stencil, 0, sizeof stencil);
    for (uint32_t i = 0; i < N_RAYS; i++) {
        flags[i] = (uint32_t)pattern_bit(i);
        if (pattern_bit(i)) stencil[i / 32] |= 1u << (i % 32);
    }
    recorder *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    for (uint32_t i = 0; i < N_RAYS; i++) a->kill[i] = b->kill[i] = (i % 5) == 1;
    sr_cpu_stencil_frame(stencil, N_RAYS, record_stage, a);
    sr_cpu_flags_frame(flags, N_RAYS, record_stage, b);
    for (uint32_t i = 0; i < N_RAYS; i++) {
        assert_int_equal(a->calls[i], b->calls[i]);
        assert_int_equal((stencil[i / 32] >> (i % 32)) & 1u, flags[i] != 0);
    }
    free(a); free(b);
}

typedef struct mover { uint32_t *dest_of; uint32_t *src_at; } mover;
static void record_move(const void *ctx, uint32_t from, uint32_t to)
{
    const mover *m = (const mover *)ctx;
    m->dest_of[from] = to;
    __atomic_fetch_add(&m->src_at[to], 1u, __ATOMIC_RELAXED);
}

static void test_ballot_partition(void **state)
{
    (void)state;
    for (int density = 0; density < 4; density++) {
        uint32_t stencil[N_WORDS];
        memset(stencil, 0, sizeof stencil);
        uint32_t expect = 0;
        for (uint32_t i = 0; i < N_RAYS; i++) {
            int live = density == 0 ? 0 : density == 1 ? (i % 97) == 0 : density == 2 ? pattern_bit(i) : 1;
            if (live) { stencil[i / 32] |= 1u << (i % 32); expect++; }
        }
        uint32_t dest_of[N_RAYS], src_at[N_RAYS];
        for (uint32_t i = 0; i < N_RAYS; i++) { dest_of[i] = 0xffffffffu; src_at[i] = 0; }
        mover m = { dest_of, src_at };
        uint32_t count = sr_cpu_ballot_partition(stencil, N_RAYS, record_move, &m);
        assert_int_equal(count, expect);
        assert_int_equal(count, sr_stencil_popcount(stencil, N_WORDS));
        for (uint32_t i = 0; i < N_RAYS; i++) {
            int live = (stencil[i / 32] >> (i % 32)) & 1u;
            if (live) assert_true(dest_of[i] < count);          /* no live ray lost */
            else assert_int_equal(dest_of[i], 0xffffffffu);     /* no dead ray moved */
        }
        for (uint32_t j = 0; j < N_RAYS; j++)
            assert_int_equal(src_at[j], j < count ? 1u : 0u);   /* no slot written twice */
        /* Within a warp, live lanes keep their order (rank = popc(mask & lanemask_lt)). */
        for (uint32_t i = 1; i < N_RAYS; i++)
            if (i % 32 && dest_of[i] != 0xffffffffu && dest_of[i - 1] != 0xffffffffu)
                assert_int_equal(dest_of[i], dest_of[i - 1] + 1);
    }
}

static void test_fill_prefix(void **state)
{
    (void)state;
    const uint32_t lives[] = { 0, 1, 31, 32, 33, 63, 64, 999, 1000 };
    for (size_t k = 0; k < sizeof lives / sizeof lives[0]; k++) {
        uint32_t stencil[N_WORDS];
        memset(stencil, 0xab, sizeof stencil);
        sr_stencil_fill_prefix(stencil, N_WORDS, lives[k]);
        for (uint32_t i = 0; i < N_WORDS * 32; i++)
            assert_int_equal((stencil[i / 32] >> (i % 32)) & 1u, i < lives[k]);
        assert_int_equal(sr_stencil_popcount(stencil, N_WORDS), lives[k]);
    }
}

/* The wave mask's cost classes for the order of its tiles (kernels/frames/wave.h): half octaves of
 * cycles, class 0 the slowest from 2^20, the last class for everything fast, and never a
 * slower tile in a later class than a faster one. */
static void test_tile_cost_classes(void **state)
{
    (void)state;
    assert_int_equal(sr_wave_order_class(1u << 20), 0u);
    assert_int_equal(sr_wave_order_class(0xffffffffu), 0u);
    assert_int_equal(sr_wave_order_class((1u << 20) - 1u), 1u);          /* 1.99 * 2^19: upper half */
    assert_int_equal(sr_wave_order_class(1u << 19), 2u);
    assert_int_equal(sr_wave_order_class(3u << 18), 1u);                  /* 1.5 * 2^19 */
    assert_int_equal(sr_wave_order_class(0u), SR_WAVE_ORDER_CLASSES - 1u);
    assert_int_equal(sr_wave_order_class(1u), SR_WAVE_ORDER_CLASSES - 1u);
    uint32_t last = SR_WAVE_ORDER_CLASSES - 1u;
    for (uint64_t c = 1; c <= 0xffffffffull; c = c * 9 / 8 + 1) {
        const uint32_t k = sr_wave_order_class((uint32_t)c);
        assert_true(k <= last);
        assert_true(k < SR_WAVE_ORDER_CLASSES);
        last = k;
    }
    /* every class is reached: the classes span 2^12.5 to 2^20 cycles */
    for (uint32_t k = 0; k < SR_WAVE_ORDER_CLASSES; k++) {
        int found = 0;
        for (uint32_t h = 0; h < 64u && !found; h++) {
            const uint32_t c = h < 2u ? h : (1u << (h / 2u)) + (h % 2u ? 1u << (h / 2u - 1u) : 0u);
            found = h < 64u && sr_wave_order_class(c) == k;
        }
        assert_true(found);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bit_layout),
        cmocka_unit_test(test_inactive_rays_not_called),
        cmocka_unit_test(test_write_back_changes_only_live_bits),
        cmocka_unit_test(test_empty_warp_costs_no_call),
        cmocka_unit_test(test_flags_frame_matches_stencil),
        cmocka_unit_test(test_ballot_partition),
        cmocka_unit_test(test_fill_prefix),
        cmocka_unit_test(test_tile_cost_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
