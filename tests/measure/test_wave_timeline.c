/* The warp timeline's CSV (src/bench/wave_timeline.c), from records made up here: starts count from
 * the earliest record, a record with no start (a warp that ran no tile) is left out, the SM
 * and deepest bounce come apart, and a file that cannot be made leaves nothing behind. */
#include "../unit/testutil.h"
#include "../../src/bench/wave_timeline.h"
#include "../../kernels/frames/wave.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_records_as_csv(void **state)
{
    (void)state;
    const unsigned long long t0 = 0x123456789abull;   /* a start past 2^32 ns */
    const uint32_t rec[4][SR_WAVE_TIMELINE_WORDS] = {
        { (uint32_t)(t0 + 500), (uint32_t)((t0 + 500) >> 32), 7000, 3u << 16 | 8u },
        { 0, 0, 0, 0 },   /* no tile */
        { (uint32_t)t0, (uint32_t)(t0 >> 32), 250, 131u << 16 | 1u },
        { (uint32_t)(t0 + 4294967296ull), (uint32_t)((t0 + 4294967296ull) >> 32), 1, 0 },
    };
    char path[1024];
    sr_test_tmp_path(path, sizeof path, "timeline.csv");
    remove(path);
    sr_error err = { 0 };
    assert_int_equal(sr_wave_timeline_write(path, &rec[0][0], 4, &err), SR_OK);
    char *text = sr_test_read_text(path);
    assert_non_null(text);
    assert_string_equal(text, "warp,start_ns,ran_ns,sm,deepest_bounce\n"
                              "0,500,7000,3,8\n"
                              "2,0,250,131,1\n"
                              "3,4294967296,1,0,0\n");
    free(text);
    remove(path);
}

static void test_unwritable_path_fails_whole(void **state)
{
    (void)state;
    const uint32_t rec[SR_WAVE_TIMELINE_WORDS] = { 1, 0, 1, 0 };
    char dir[1024], path[1100];
    sr_test_tmp_path(dir, sizeof dir, "no-such-folder");
    snprintf(path, sizeof path, "%s/timeline.csv", dir);
    sr_error err = { 0 };
    assert_int_not_equal(sr_wave_timeline_write(path, rec, 1, &err), SR_OK);
    assert_non_null(strstr(err.msg, path));
    assert_false(sr_test_file_exists(path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records_as_csv),
        cmocka_unit_test(test_unwritable_path_fails_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
