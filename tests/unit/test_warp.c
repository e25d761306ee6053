/* The warp shim (kernels/core/warp.h) as the CPU runs it, a loop over 32 lanes, and the pieces
 * of the wave mask's shared frame built on it (kernels/frames/wave_frame.h): the ballot, the
 * rank of a live lane among the live lanes (popc(ballot & lanemask_lt)), the warp's min and
 * max, the push of a warp's live rays into the queue by ballot partitioning (packed in lane
 * order, published by their stencil bits, tombstones when the queue is full), the drain's
 * chunk claims and the per-bounce counts. The GPU runs the same frame (test_gpu_match checks
 * its images and counts against the CPU's). */
#include "testutil.h"
#include "../../kernels/core/warp.h"
#include "../../kernels/core/raystate.h"
#include "../../kernels/frames/wave.h"

/* wave_frame.h's hooks (the backends' own; these tests do not run the whole frame). */
static inline bool sr_wave_start(const sr_params *p, const sr_wave_args *w, bool order, uint32_t warp, uint32_t *i,
                                 uint32_t *word, bool *alive, sr_ray *r, uint32_t *started, uint32_t *rank)
{
    (void)p; (void)w; (void)order; (void)warp; (void)i; (void)word; (void)alive; (void)r; (void)started; (void)rank;
    return false;
}
static inline void sr_wave_end(const sr_wave_args *w, bool order, uint32_t rank, uint32_t started)
{
    (void)w; (void)order; (void)rank; (void)started;
}
#include "../../kernels/frames/wave_frame.h"
#include "../../kernels/frames/split_frame.h"

#include <string.h>

#define KNOWN_MASK 0x8f00f0a5u   /* lanes 0 2 5 7 12-15 24-27 31: 13 live */

/* The split's placement (split_frame.h) finds the k-th free lane of a word by the k-th set
 * bit (the GPU's __fns): against a scan of the bits. */
static void test_nth_bit(void **state)
{
    (void)state;
    static const uint32_t words[] = { KNOWN_MASK, 0xffffffffu, 0x80000001u, 0x00010000u, 0x5555aaaau };
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        uint32_t k = 0;
        for (uint32_t bit = 0; bit < 32u; bit++)
            if ((words[w] >> bit) & 1u) assert_int_equal(sr_nth_bit(words[w], k++), bit);
        assert_int_equal(k, sr_popc(words[w]));
    }
}

static void test_ballot_and_ranks(void **state)
{
    (void)state;
    SR_LANE_VAR(bool, live);
    SR_FOR_LANES SR_L(live) = ((KNOWN_MASK >> lane) & 1u) != 0u;
    const uint32_t m = sr_warp_ballot(live);
    assert_int_equal(m, KNOWN_MASK);
    assert_int_equal(sr_popc(m), 13u);
    /* The partition: live lanes get ranks 0, 1, ... in lane order, a dead lane the rank of
     * the next live one. */
    static const uint32_t live_lanes[13] = { 0, 2, 5, 7, 12, 13, 14, 15, 24, 25, 26, 27, 31 };
    uint32_t next = 0;
    SR_FOR_LANES {
        const uint32_t rank = sr_popc(m & sr_lanemask_lt(lane));
        assert_int_equal(rank, next);
        if (SR_L(live)) {
            assert_int_equal(live_lanes[rank], lane);
            next++;
        }
    }
    assert_int_equal(next, 13u);
    assert_int_equal(sr_popc(0xffffffffu & sr_lanemask_lt(31u)), 31u);
    assert_int_equal(sr_lanemask_lt(0u), 0u);
}

static void test_min_max_load(void **state)
{
    (void)state;
    SR_LANE_VAR(uint32_t, v);
    SR_FOR_LANES SR_L(v) = 1000u - (lane * 37u) % 101u;
    uint32_t lo = 0xffffffffu, hi = 0;
    for (uint32_t l = 0; l < SR_WARP; l++) {
        lo = v[l] < lo ? v[l] : lo;
        hi = v[l] > hi ? v[l] : hi;
    }
    assert_int_equal(sr_warp_min(v), lo);
    assert_int_equal(sr_warp_max(v), hi);
    const uint32_t words[3] = { 7u, 11u, 13u };
    assert_int_equal(sr_warp_load(words, 2u), 13u);
    uint32_t counter = 5u;
    assert_int_equal(sr_warp_atomic_add(&counter, 3u), 5u);   /* the old value: a reservation */
    assert_int_equal(counter, 8u);
}

/* A queue of CAP entries: rays in p.ray (queue_base 0, as the CPU's), bounce bytes, a
 * stencil of its entries. */
#define CAP 40u
typedef struct queue {
#define SR_X_ARRAY(type, name) type name[CAP];
    SR_RAY_FIELDS(SR_X_ARRAY)
#undef SR_X_ARRAY
    uint32_t stencil[2], ctl[SR_WAVE_CTL];
    sr_params p;
    sr_wave_args w;
} queue;

static void queue_init(queue *q)
{
    memset(q, 0, sizeof *q);
#define SR_X_POINT(type, name) q->p.ray.name = q->name;
    SR_RAY_FIELDS(SR_X_POINT)
#undef SR_X_POINT
    q->w.stencil = q->stencil;
    q->w.ctl = q->ctl;
    q->w.capacity = CAP;
    q->w.dense_min = 16u;
}

/* A warp's rays: lane l's pixel is base_pixel + l, its bounce l % 5. */
static void warp_rays(uint32_t base_pixel, uint32_t mask, bool *alive, uint32_t *bounce, sr_ray *r)
{
    memset(r, 0, sizeof(sr_ray) * SR_WARP);
    SR_FOR_LANES {
        SR_L(alive) = ((mask >> lane) & 1u) != 0u;
        SR_L(bounce) = lane % 5u;
        SR_L(r).pixel = base_pixel + lane;
    }
}

static void test_push_partitions_into_the_queue(void **state)
{
    (void)state;
    static queue q;
    queue_init(&q);
    SR_LANE_VAR(bool, alive);
    SR_LANE_VAR(uint32_t, bounce);
    SR_LANE_VAR(sr_ray, r);
    /* A warp of 13 live rays: entries 0..12, in lane order, published. */
    warp_rays(100u, KNOWN_MASK, alive, bounce, r);
    assert_true(sr_wave_push(&q.p, &q.w, 0u, 0u, KNOWN_MASK, alive, bounce, r));
    assert_int_equal(q.ctl[SR_WAVE_QCOUNT], 13u);
    assert_int_equal(q.stencil[0], (1u << 13) - 1u);
    uint32_t k = 0;
    for (uint32_t l = 0; l < SR_WARP; l++) {
        if (!((KNOWN_MASK >> l) & 1u)) continue;
        assert_int_equal(q.pixel[k], 100u + l);
        assert_int_equal(q.bounce[k], l % 5u);
        k++;
    }
    /* A full warp after it: entries 13..44 do not fit in 40. The ones inside the queue
     * become tombstones and are published (across the word boundary); the rays stay in the
     * warp (false); nothing is written past the end. */
    warp_rays(200u, 0xffffffffu, alive, bounce, r);
    assert_false(sr_wave_push(&q.p, &q.w, 0u, 0u, 0xffffffffu, alive, bounce, r));
    assert_int_equal(q.ctl[SR_WAVE_QCOUNT], 45u);
    assert_int_equal(q.stencil[0], 0xffffffffu);
    assert_int_equal(q.stencil[1], (1u << (CAP - 32u)) - 1u);
    for (uint32_t e = 0; e < CAP; e++) {
        if (e < 13u) assert_int_not_equal(q.bounce[e], SR_WAVE_TOMBSTONE);
        else assert_int_equal(q.bounce[e], SR_WAVE_TOMBSTONE);
        if (e >= 13u) assert_int_equal(q.pixel[e], 0u);   /* no ray stored */
    }
    /* The drain claims ceil(min(45, 40) / 32) = 2 chunks, then none. */
    assert_int_equal(sr_wave_claim(&q.w, 0u, 0u), 0u);
    assert_int_equal(sr_wave_claim(&q.w, 0u, 0u), 1u);
    assert_int_equal(sr_wave_claim(&q.w, 0u, 0u), SR_NO_CHUNK);
    assert_int_equal(sr_wave_claim(&q.w, 0u, 0u), SR_NO_CHUNK);
}

/* The queue's generations (wave.h): generation 1 starts at the whole chunk after generation
 * 0's last entry, each is claimed on its own, and a push that runs past the queue's end
 * fails with tombstones, as in generation 0. */
static void test_generations_follow_each_other(void **state)
{
    (void)state;
    static queue q;
    queue_init(&q);
    SR_LANE_VAR(bool, alive);
    SR_LANE_VAR(uint32_t, bounce);
    SR_LANE_VAR(sr_ray, r);
    warp_rays(100u, KNOWN_MASK, alive, bounce, r);   /* 13 rays into generation 0 */
    assert_true(sr_wave_push(&q.p, &q.w, 0u, 0u, KNOWN_MASK, alive, bounce, r));
    assert_int_equal(sr_wave_region(&q.w, 0u), 0u);
    assert_int_equal(sr_wave_region(&q.w, 1u), 32u);
    warp_rays(300u, 0x1fu, alive, bounce, r);        /* 5 rays into generation 1: entries 32..36 */
    assert_true(sr_wave_push(&q.p, &q.w, 1u, 32u, 0x1fu, alive, bounce, r));
    assert_int_equal(q.ctl[SR_WAVE_QCOUNT + 2u], 5u);
    assert_int_equal(q.stencil[1], 0x1fu);
    for (uint32_t e = 0; e < 5u; e++) assert_int_equal(q.pixel[32u + e], 300u + e);
    /* Generation 2 would start past the end (64 > 40): it has no room. */
    assert_int_equal(sr_wave_region(&q.w, 2u), CAP);
    warp_rays(400u, 0xffu, alive, bounce, r);        /* 8 more in generation 1: 37..44, 3 fit */
    assert_false(sr_wave_push(&q.p, &q.w, 1u, 32u, 0xffu, alive, bounce, r));
    assert_int_equal(q.stencil[1], 0xffu);
    for (uint32_t e = 37u; e < CAP; e++) assert_int_equal(q.bounce[e], SR_WAVE_TOMBSTONE);
    /* Each generation's chunks, claimed on their own. */
    assert_int_equal(sr_wave_claim(&q.w, 0u, 0u), 0u);
    assert_int_equal(sr_wave_claim(&q.w, 0u, 0u), SR_NO_CHUNK);
    assert_int_equal(sr_wave_claim(&q.w, 1u, 32u), 0u);
    assert_int_equal(sr_wave_claim(&q.w, 1u, 32u), SR_NO_CHUNK);
    assert_int_equal(sr_wave_claim(&q.w, 2u, CAP), SR_NO_CHUNK);
}

/* The split's earlier rays of the warp's lanes, counted into kept (and count, per bounce, past a
 * byte's room or SR_WAVE_KEPT_LEVELS) and into expected: lane l's traced bounces [1, 1 + l % 4),
 * lane 5's 300 more bounce 2 (past its byte's 255) and one bounces [7, 10). */
static void earlier_rays(const sr_wave_args *w, uint32_t *count, uint64_t *kept, uint32_t *expected)
{
    SR_FOR_LANES {
        SR_L(kept) = 0u;
        sr_wave_keep_count(w, count, &SR_L(kept), 1u, 1u + lane % 4u);
        for (uint32_t b = 1u; b < 1u + lane % 4u; b++) expected[b]++;
    }
    for (uint32_t k = 0; k < 300u; k++) sr_wave_keep_count(w, count, &kept[5], 2u, 3u);
    sr_wave_keep_count(w, count, &kept[5], 7u, 10u);
    expected[2] += 300u;
    expected[7]++, expected[8]++, expected[9]++;
}

/* Lane l traced bounces [b0, b1): each bounce below max_depth counts the lanes that traced it;
 * a lane's earlier rays (the split's, kept) are counted at the warp's end; counting only the
 * total puts the sum of all of them in count[0]. */
static void test_counts_per_bounce(void **state)
{
    (void)state;
    const uint32_t max_depth = 4u;
    SR_LANE_VAR(uint32_t, b0);
    SR_LANE_VAR(uint32_t, b1);
    SR_FOR_LANES {
        SR_L(b0) = lane % 3u;
        SR_L(b1) = lane < 8u ? SR_L(b0) : SR_L(b0) + lane % 7u;   /* lanes 0-7: nothing traced */
    }
    uint32_t count[SR_MAX_DEPTH] = { 0 }, expected[SR_MAX_DEPTH] = { 0 }, total = 0;
    for (uint32_t l = 0; l < SR_WARP; l++)
        for (uint32_t b = b0[l]; b < b1[l] && b < max_depth; b++) expected[b]++;
    sr_wave_args w;
    memset(&w, 0, sizeof w);
    w.bounce_counts = 1u;
    SR_LANE_VAR(uint64_t, kept);
    earlier_rays(&w, count, kept, expected);
    sr_wave_count(&w, count, b0, b1, kept, max_depth);
    sr_wave_count_kept(&w, count, kept, true);
    for (uint32_t b = 0; b < SR_MAX_DEPTH; b++) {
        assert_int_equal(count[b], expected[b]);
        total += expected[b];
    }
    assert_int_equal(count[max_depth], 0u);   /* the last segment is not counted */
    assert_true(expected[0] > 0u && expected[3] > 0u && expected[2] > 300u && expected[9] == 1u);
    /* Only the total: the same rays, all in count[0]. */
    uint32_t sum[SR_MAX_DEPTH] = { 0 }, unused[SR_MAX_DEPTH] = { 0 };
    w.bounce_counts = 0u;
    earlier_rays(&w, sum, kept, unused);
    sr_wave_count(&w, sum, b0, b1, kept, max_depth);
    sr_wave_count_kept(&w, sum, kept, true);
    assert_int_equal(sum[0], total);
    for (uint32_t b = 1; b < SR_MAX_DEPTH; b++) assert_int_equal(sum[b], 0u);
    /* The write-back: the ballot of the alive flags, stored only if it changed. */
    SR_LANE_VAR(bool, alive);
    SR_FOR_LANES SR_L(alive) = lane == 3u || lane == 30u;
    uint32_t stencil[2] = { 0xdeadbeefu, 0x12345678u };
    assert_int_equal(sr_stencil_write_back(stencil, 1u, 0xffffffffu, alive), (1u << 3) | (1u << 30));
    assert_int_equal(stencil[1], (1u << 3) | (1u << 30));
    assert_int_equal(stencil[0], 0xdeadbeefu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ballot_and_ranks),
        cmocka_unit_test(test_nth_bit),
        cmocka_unit_test(test_min_max_load),
        cmocka_unit_test(test_push_partitions_into_the_queue),
        cmocka_unit_test(test_generations_follow_each_other),
        cmocka_unit_test(test_counts_per_bounce),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
