/* test_api_bench.c: the benchmark through the API (sr_bench_run): its rows in the order
 * swept, figures that hold together, every mask tracing the same rays, the progress callback
 * before each row and its cancel, descs it refuses, and several workers' figures. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/stencilray.h"

static sr_context *open_cornell_small(void)
{
    char path[4096];
    sr_context *ctx = sr_create(NULL);
    assert_non_null(ctx);
    if (sr_load_file(ctx, sr_test_source_path(path, sizeof path, "scenes/cornell.json")) != SR_RESULT_OK)
        fail_msg("%s", sr_last_error(ctx));
    const sr_frame_desc frame = { .width = 24, .height = 16, .device = SR_DEVICE_KIND_CPU };
    if (sr_set_frame(ctx, &frame) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    return ctx;
}

typedef struct seen { uint32_t calls, stop_at, last_rows; uint32_t depth[16]; sr_mask_kind mask[16]; } seen;

static int count_calls(void *user, const sr_bench_report *so_far)
{
    seen *s = user;
    assert_int_equal(so_far->row_count, s->calls);   /* before each row, the rows before it */
    if (so_far->rows && s->calls < 16) {   /* several workers: frames, no rows */
        s->depth[s->calls] = so_far->rows[so_far->row_count].depth;
        s->mask[s->calls] = so_far->rows[so_far->row_count].mask;
    }
    s->calls++;
    s->last_rows = so_far->row_count;
    return s->stop_at && s->calls == s->stop_at;
}

/* Depths 1-2 over three masks, compact with two sorts: 8 rows, depth first, in the order given. */
static void test_rows(void **state)
{
    (void)state;
    sr_context *ctx = open_cornell_small();
    const sr_mask_kind masks[] = { SR_MASK_KIND_FLAGS, SR_MASK_KIND_COMPACT, SR_MASK_KIND_WAVE };
    const sr_sort_kind sorts[] = { SR_SORT_KIND_NONE, SR_SORT_KIND_MERGE };
    seen s = { 0 };
    const sr_bench_desc desc = { .depth_first = 1, .depth_last = 2, .frames = 3, .zeros = SR_BENCH_ZERO_WARMUP,
                                 .masks = masks, .mask_count = 3, .sorts = sorts, .sort_count = 2,
                                 .progress = count_calls, .progress_user = &s };
    sr_bench_report *rep = NULL;
    if (sr_bench_run(ctx, &desc, &rep) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    assert_non_null(rep);
    assert_int_equal(rep->kind, SR_DEVICE_KIND_CPU);
    assert_int_equal(rep->width, 24);
    assert_int_equal(rep->height, 16);
    assert_int_equal(rep->warmup, 0);
    assert_int_equal(rep->frames, 3);
    assert_true(rep->threads > 0);
    assert_int_equal(rep->rows_total, 8);
    assert_int_equal(rep->row_count, 8);
    assert_int_equal(s.calls, 8);
    const struct { uint32_t depth; sr_mask_kind mask; sr_sort_kind sort; } want[] = {
        { 1, SR_MASK_KIND_FLAGS, SR_SORT_KIND_NONE }, { 1, SR_MASK_KIND_COMPACT, SR_SORT_KIND_NONE },
        { 1, SR_MASK_KIND_COMPACT, SR_SORT_KIND_MERGE }, { 1, SR_MASK_KIND_WAVE, SR_SORT_KIND_NONE },
        { 2, SR_MASK_KIND_FLAGS, SR_SORT_KIND_NONE }, { 2, SR_MASK_KIND_COMPACT, SR_SORT_KIND_NONE },
        { 2, SR_MASK_KIND_COMPACT, SR_SORT_KIND_MERGE }, { 2, SR_MASK_KIND_WAVE, SR_SORT_KIND_NONE },
    };
    for (uint32_t i = 0; i < 8; i++) {
        const sr_bench_row *r = &rep->rows[i];
        assert_int_equal(r->depth, want[i].depth);
        assert_int_equal(r->mask, want[i].mask);
        assert_int_equal(r->sort, want[i].sort);
        assert_int_equal(s.depth[i], want[i].depth);
        assert_int_equal(s.mask[i], want[i].mask);
        assert_int_equal(r->frames, 3);
        assert_true(r->min_ms > 0 && r->min_ms <= r->median_ms && r->median_ms <= r->max_ms);
        assert_true(fabs(r->fps - 1000.0 / r->median_ms) < 1e-9 * r->fps);
        assert_true(r->rays_per_frame >= 24.0 * 16.0);   /* a camera ray per pixel at least */
        /* every mask traces the same rays at a depth */
        assert_true(r->rays_per_frame == rep->rows[i < 4 ? 0 : 4].rays_per_frame);
        assert_int_equal(r->per_bounce, r->mask != SR_MASK_KIND_WAVE);
        if (r->depth == 2 && r->per_bounce) assert_true(r->live_after[0] > 0.0 && r->live_after[0] <= 1.0);
        assert_true(isnan(r->live_after[r->depth - 1]));
        assert_int_equal(r->way[0] != '\0', r->mask == SR_MASK_KIND_WAVE);
    }
    assert_true(rep->rows[4].rays_per_frame > rep->rows[0].rays_per_frame);   /* depth 2 bounces */
    sr_bench_report_free(rep);

    /* a zero desc: depths 1-8 over all five masks, the frame's sort; cancelled at the third row */
    memset(&s, 0, sizeof s);
    s.stop_at = 3;
    const sr_bench_desc cancel = { .frames = 1, .progress = count_calls, .progress_user = &s };
    assert_int_equal(sr_bench_run(ctx, &cancel, &rep), SR_RESULT_CANCELLED);
    assert_non_null(strstr(sr_last_error(ctx), "cancelled"));
    assert_non_null(rep);
    assert_int_equal(rep->rows_total, 8 * 5);
    assert_int_equal(rep->row_count, 2);
    assert_int_equal(rep->warmup, 3);
    assert_int_equal(rep->mask_count, 5);
    assert_int_equal(rep->masks[0], SR_MASK_KIND_FLAGS);
    assert_int_equal(rep->sort_count, 1);
    sr_bench_report_free(rep);
    sr_destroy(ctx);
}

/* Bad descs and a frame of several workers are refused, naming what is wrong. */
static void test_refused(void **state)
{
    (void)state;
    sr_context *ctx = sr_create(NULL);
    sr_bench_report *rep = (sr_bench_report *)1;
    const sr_bench_desc zero = { 0 };
    assert_int_equal(sr_bench_run(ctx, &zero, &rep), SR_RESULT_INPUT_ERROR);
    assert_null(rep);
    assert_non_null(strstr(sr_last_error(ctx), "no scene is loaded"));
    sr_destroy(ctx);

    ctx = open_cornell_small();
    const sr_mask_kind twice[] = { SR_MASK_KIND_STENCIL, SR_MASK_KIND_STENCIL };
    const sr_mask_kind deflt[] = { SR_MASK_KIND_DEFAULT };
    const sr_sort_kind bad_sort[] = { (sr_sort_kind)7 };
    const struct { sr_bench_desc d; const char *says; } cases[] = {
        { { .depth_first = 3, .depth_last = 2 }, "depth_first <= depth_last" },
        { { .depth_last = 65 }, "depths 0 to 65" },
        { { .frames = 10001 }, "10001 frames" },
        { { .masks = twice, .mask_count = 2 }, "sr_bench_desc.masks[1]: listed twice (as masks[0])" },
        { { .masks = deflt, .mask_count = 1 }, "other than SR_MASK_KIND_DEFAULT" },
        { { .masks = twice, .mask_count = 0 }, "0 masks" },
        { { .sorts = bad_sort, .sort_count = 1 }, "sr_bench_desc.sorts[0]: 7" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(sr_bench_run(ctx, &cases[k].d, &rep), SR_RESULT_INPUT_ERROR);
        assert_null(rep);
        if (!strstr(sr_last_error(ctx), cases[k].says)) fail_msg("case %zu: %s", k, sr_last_error(ctx));
    }
    assert_int_equal(sr_bench_run(ctx, NULL, &rep), SR_RESULT_INPUT_ERROR);
    assert_int_equal(sr_bench_run(ctx, &zero, NULL), SR_RESULT_INPUT_ERROR);
    sr_destroy(ctx);
}

/* Several workers: their figures, no rows; the frames of each worker add up to the total. */
static void test_workers(void **state)
{
    (void)state;
    sr_context *ctx = open_cornell_small();
    const sr_frame_desc two = { .width = 24, .height = 16, .device = SR_DEVICE_KIND_CPU, .devices = "0,0",
                                .mask = SR_MASK_KIND_STENCIL };
    if (sr_set_frame(ctx, &two) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    sr_bench_report *rep = NULL;
    const sr_mask_kind masks[] = { SR_MASK_KIND_FLAGS };
    const sr_bench_desc one_mask = { .masks = masks, .mask_count = 1 };
    assert_int_equal(sr_bench_run(ctx, &one_mask, &rep), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "masks, sorts and breakdown are for one worker"));
    sr_bench_report_free(rep);
    seen s = { 0 };
    const sr_bench_desc desc = { .depth_first = 3, .frames = 2, .warmup = 1, .progress = count_calls,
                                 .progress_user = &s };
    if (sr_bench_run(ctx, &desc, &rep) != SR_RESULT_OK) fail_msg("%s", sr_last_error(ctx));
    assert_int_equal(s.calls, 3);   /* one warm-up and two timed frames */
    assert_int_equal(rep->row_count, 3);
    assert_int_equal(rep->workers, 2);
    assert_int_equal(rep->depth_last, 3);
    assert_int_equal(rep->workers_mask, SR_MASK_KIND_STENCIL);
    assert_true(rep->workers_spp > 1);
    assert_int_equal(rep->workers_samples, 2ull * rep->workers_spp);
    uint64_t samples = 0, rays = 0;
    uint32_t passes = 0;
    for (uint32_t i = 0; i < rep->workers; i++) {
        assert_int_equal(rep->worker[i].kind, SR_DEVICE_KIND_CPU);
        samples += rep->worker[i].samples;
        rays += rep->worker[i].rays;
        passes += rep->worker[i].passes;
    }
    assert_int_equal(samples, rep->workers_samples);
    assert_int_equal(rays, rep->workers_rays);
    assert_int_equal(passes, 2u * rep->workers_passes);
    assert_true(rays >= 2ull * rep->workers_spp * 24 * 16);
    assert_true(rep->workers_s > 0.0);
    sr_bench_report_free(rep);
    sr_bench_report_free(NULL);   /* nothing to free is fine */
    sr_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
