/* The benchmark's frame-time statistics and how the table shows them, without timing anything:
 * min, quartiles, median and max of given frame times; the spread (middle half over the
 * median); a row is flagged noisy exactly when the spread passes SR_BENCH_NOISY_SPREAD, and
 * then (only then) the table marks it and explains the mark under it; the breakdown says how
 * each wave row ran. */
#include "testutil.h"
#include "../../src/app/bench_print.h"
#include "../../src/bench/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void stats_of(const double *ms, uint32_t n, sr_bench_row *row)
{
    double copy[64];
    memcpy(copy, ms, n * sizeof *ms);
    memset(row, 0, sizeof *row);
    row->depth = 2;
    row->mask = SR_MASK_KIND_STENCIL;
    sr_bench_frame_stats(copy, n, row);
}

static void test_order_statistics(void **state)
{
    (void)state;
    /* 8 frames, out of order: sorted 1 2 3 4 5 6 7 100 */
    const double ms[] = { 5, 100, 1, 7, 3, 2, 6, 4 };
    sr_bench_row r;
    stats_of(ms, 8, &r);
    assert_int_equal(r.frames, 8);
    assert_float_equal(r.min_ms, 1, 0);
    assert_float_equal(r.max_ms, 100, 0);            /* the slowest frame, named for what it is */
    assert_float_equal(r.median_ms, 4.5, 1e-12);
    assert_float_equal(r.q1_ms, 2, 0);               /* nearest rank: ceil(0.25 * 8) = 2nd */
    assert_float_equal(r.q3_ms, 6, 0);               /* ceil(0.75 * 8) = 6th */
    assert_float_equal(r.spread, (6.0 - 2.0) / 4.5, 1e-12);
    assert_float_equal(r.fps, 1000.0 / 4.5, 1e-9);
    /* one frame: everything is that frame, no spread */
    const double one[] = { 2.5 };
    stats_of(one, 1, &r);
    assert_float_equal(r.min_ms, 2.5, 0);
    assert_float_equal(r.max_ms, 2.5, 0);
    assert_float_equal(r.median_ms, 2.5, 0);
    assert_float_equal(r.spread, 0, 0);
    assert_false(r.noisy);
}

/* One slow frame does not make a row noisy (the median and quartiles ignore it); a middle half
 * wider than the threshold does; the threshold itself is not noisy, just above it is. */
static void test_noisy_flag(void **state)
{
    (void)state;
    sr_bench_row r;
    const double steady[] = { 10.0, 10.1, 9.9, 10.05, 9.95, 10.0, 10.02, 9.98, 55.0, 10.01 };
    stats_of(steady, 10, &r);
    assert_false(r.noisy);
    assert_float_equal(r.max_ms, 55.0, 0);
    const double swinging[] = { 5.7, 53.0, 60.0, 6.0, 52.0, 5.9, 58.0, 6.1, 54.0, 5.8 };
    stats_of(swinging, 10, &r);
    assert_true(r.noisy);
    assert_true(r.spread > SR_BENCH_NOISY_SPREAD);
    /* quartiles 10 and 10 * (1 + t) around a median of 10: spread exactly t, then a bit more */
    const double t = SR_BENCH_NOISY_SPREAD;
    const double at[] = { 10.0, 10.0, 10.0 * (1 + t) };
    stats_of(at, 3, &r);
    assert_float_equal(r.spread, t, 1e-12);
    assert_false(r.noisy);
    const double above[] = { 10.0, 10.0, 10.0 * (1 + t) + 0.01 };
    stats_of(above, 3, &r);
    assert_true(r.noisy);
}

static char *printed(void (*print)(FILE *, const sr_bench_row *, uint32_t), const sr_bench_row *rows, uint32_t n)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    print(f, rows, n);
    const long len = ftell(f);
    rewind(f);
    char *text = calloc((size_t)len + 1, 1);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    return text;
}

static char *table_of(const sr_bench_row *rows, uint32_t n) { return printed(sr_bench_print_table, rows, n); }

/* The k-th line after the header, or NULL. */
static const char *row_line(const char *table, int k)
{
    const char *line = table;
    for (int i = 0; i <= k && line; i++) {
        line = strchr(line, '\n');
        if (line) line++;
    }
    return line;
}

static void test_table_marks_noisy_rows(void **state)
{
    (void)state;
    const double steady[] = { 10.0, 10.1, 9.9, 10.05, 9.95 };
    const double swinging[] = { 5.7, 53.0, 60.0, 6.0, 52.0 };
    sr_bench_row rows[2];
    stats_of(steady, 5, &rows[0]);
    stats_of(swinging, 5, &rows[1]);
    char *text = table_of(rows, 2);
    /* the header names the columns for what they are */
    assert_non_null(strstr(text, "median ms"));
    assert_non_null(strstr(text, "min ms"));
    assert_non_null(strstr(text, "max ms"));
    assert_non_null(strstr(text, "spread"));
    assert_null(strstr(text, "p99"));
    const char *first = row_line(text, 0), *second = row_line(text, 1), *note = row_line(text, 2);
    assert_non_null(note);
    const char *first_end = strchr(first, '\n');
    assert_null(memchr(first, '!', (size_t)(first_end - first)));          /* steady: unmarked */
    const char *second_end = strchr(second, '\n');
    assert_non_null(memchr(second, '!', (size_t)(second_end - second)));   /* swinging: marked */
    assert_true(!strncmp(note, "! noisy:", 8));
    free(text);
    /* no noisy row, no note */
    text = table_of(rows, 1);
    assert_null(strstr(text, "noisy"));
    assert_null(strchr(text, '!'));
    free(text);
}

/* The wave mask's row says what its frames ran: one launch, two (the drain, with the dense
 * threshold), or the compact mask's launches, whose stages it then lists. */
static void test_breakdown_says_how_the_wave_ran(void **state)
{
    (void)state;
    sr_bench_row rows[5];
    memset(rows, 0, sizeof rows);
    const struct { uint32_t depth, dense; sr_mask_kind mask; } runs[] = {
        { 3, 1, SR_MASK_KIND_WAVE }, { 3, 16, SR_MASK_KIND_WAVE }, { 1, 16, SR_MASK_KIND_WAVE }, { 2, 0, SR_MASK_KIND_WAVE },
        { 3, 0, SR_MASK_KIND_MEGAKERNEL },
    };
    for (int k = 0; k < 5; k++) {
        rows[k].depth = runs[k].depth;
        rows[k].wave_dense = runs[k].dense;
        rows[k].mask = runs[k].mask;
        rows[k].frames = 2;
        rows[k].times.total = 2.0;
    }
    rows[3].times.intersect[1] = 0.75;   /* 0.375 a frame */
    char *text = printed(sr_bench_print_breakdown, rows, 5);
    /* the rows' lines in order, each found after the one before */
    static const char *const expect[] = {
        "\ndepth 3, wave: total 1.000, one launch",
        "\ndepth 3, wave: total 1.000, two launches: the bounces while 16 of a warp's 32 rays live",
        "\ndepth 1, wave: total 1.000, one launch",   /* depth 1 has no queue */
        "\ndepth 2, wave: total 1.000 (its fastest way, the compact mask's launches), generate",
        "\n    bounce  1: intersect    0.375",
        "\ndepth 3, megakernel: total 1.000, one launch",
    };
    const char *at = text;
    for (size_t k = 0; k < sizeof expect / sizeof expect[0]; k++) {
        const char *hit = strstr(at, expect[k]);
        if (!hit) fail_msg("not found (in order): %s\nin:\n%s", expect[k] + 1, text);
        at = hit + 1;
    }
    assert_null(strstr(text, "cooperatively"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_statistics),
        cmocka_unit_test(test_noisy_flag),
        cmocka_unit_test(test_table_marks_noisy_rows),
        cmocka_unit_test(test_breakdown_says_how_the_wave_ran),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
