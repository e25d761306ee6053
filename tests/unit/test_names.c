/* Each table of names is the inverse of its parser: parse(name(i)) == i for every value of
 * the tonemap, integrator, sort algorithm and key (names.c) and the mask (backend.c), each
 * table holds exactly its enum's values, and the kernels' names (backend.c) are distinct, so
 * SR_FAULT and messages can name each one. The usage messages list the same names. */
#include "testutil.h"
#include "../../src/backend/backend.h"
#include "../../src/base/names.h"
#include "../../kernels/frames/sortkey.h"
#include "../../kernels/core/tonemap.h"

#include <string.h>

typedef struct sr_name_table {
    const char *what;
    const char *const *names;   /* NULL-terminated */
    int count;                  /* the enum's values */
    const char *(*name)(int);
    int (*parse)(const char *);
} sr_name_table;

static const char *mask_name(int m) { return sr_mask_name((sr_mask)m); }

static void check_table(const sr_name_table *t)
{
    int n = 0;
    while (t->names && t->names[n]) n++;
    if (t->names && n != t->count) fail_msg("%s: %d names for %d values", t->what, n, t->count);
    for (int i = 0; i < t->count; i++) {
        const char *name = t->name(i);
        if (!name || !strcmp(name, "?")) fail_msg("%s %d has no name", t->what, i);
        if (t->parse(name) != i) fail_msg("%s %d: '%s' parses as %d", t->what, i, name, t->parse(name));
    }
    assert_string_equal(t->name(-1), "?");
    assert_string_equal(t->name(t->count), "?");
    assert_int_equal(t->parse("no-such-name"), -1);
    assert_int_equal(t->parse(""), -1);
}

static void test_round_trips(void **state)
{
    (void)state;
    const sr_name_table tables[] = {
        { "tonemap", sr_tonemap_names, SR_TONEMAP_COUNT, sr_tonemap_name, sr_tonemap_parse },
        { "integrator", sr_integrator_names, SR_INTEGRATOR_COUNT, sr_integrator_name, sr_integrator_parse },
        { "sort algorithm", sr_sort_algo_names, SR_SORT_ALGO_COUNT, sr_sort_algo_name, sr_sort_algo_parse },
        { "sort key", sr_sort_key_names, SR_SORT_KEY_COUNT, sr_sort_key_name, sr_sort_key_parse },
        { "mask", NULL, SR_MASK_COUNT, mask_name, sr_mask_parse },
    };
    for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++) check_table(&tables[k]);
}

/* The values the scene files and options have always spelt so. */
static void test_spellings(void **state)
{
    (void)state;
    assert_int_equal(sr_tonemap_parse("clamp"), SR_TONEMAP_CLAMP);
    assert_int_equal(sr_tonemap_parse("reinhard"), SR_TONEMAP_REINHARD);
    assert_int_equal(sr_tonemap_parse("aces"), SR_TONEMAP_ACES);
    assert_int_equal(sr_integrator_parse("whitted"), SR_INTEGRATOR_WHITTED);
    assert_int_equal(sr_integrator_parse("path"), SR_INTEGRATOR_PATH);
    assert_int_equal(sr_sort_algo_parse("none"), SR_SORT_NONE);
    assert_int_equal(sr_sort_algo_parse("merge"), SR_SORT_MERGE);
    assert_int_equal(sr_sort_algo_parse("radix"), SR_SORT_RADIX);
    assert_int_equal(sr_sort_key_parse("dir-morton"), SR_SORT_KEY_DIR_MORTON);
    assert_int_equal(sr_sort_key_parse("material"), SR_SORT_KEY_MATERIAL);
    char buf[64];
    assert_string_equal(sr_name_choices(sr_tonemap_names, buf, sizeof buf), "clamp, reinhard or aces");
    assert_string_equal(sr_name_choices(sr_integrator_names, buf, sizeof buf), "whitted or path");
    assert_string_equal(sr_name_choices(sr_sort_algo_names, buf, sizeof buf), "none, merge or radix");
    assert_string_equal(sr_name_choices(sr_sort_key_names, buf, sizeof buf), "dir-morton or material");
    char small[8];
    assert_string_equal(sr_name_choices(sr_tonemap_names, small, sizeof small), "clamp, ");
}

static void test_kernel_names(void **state)
{
    (void)state;
    for (int i = 0; i < SR_KERNELS; i++) {
        const char *name = sr_kernel_name((sr_kernel)i);
        if (!name[0] || !strcmp(name, "?")) fail_msg("kernel %d has no name", i);
        for (int j = 0; j < i; j++)
            if (!strcmp(name, sr_kernel_name((sr_kernel)j))) fail_msg("kernels %d and %d are both '%s'", j, i, name);
    }
    assert_string_equal(sr_kernel_name(SR_KERNELS), "?");
    /* SR_FAULT's stages (tests/unit/test_faults.c) by these names */
    assert_string_equal(sr_kernel_name(SR_KERNEL_GENERATE), "generate");
    assert_string_equal(sr_kernel_name(SR_KERNEL_COMPACT), "compact");
    assert_string_equal(sr_kernel_name(SR_KERNEL_MEGAKERNEL), "megakernel");
    assert_string_equal(sr_kernel_name(SR_KERNEL_WAVE), "wave");
}

/* The edits between two words, and the "did you mean" they pick: within 2 edits and fewer
 * than half the word's letters, the first of equally close names. */
static void test_closest_name(void **state)
{
    (void)state;
    assert_int_equal(sr_name_distance("render", "render"), 0);
    assert_int_equal(sr_name_distance("renderr", "render"), 1);   /* a letter put in */
    assert_int_equal(sr_name_distance("rendr", "render"), 1);     /* taken out */
    assert_int_equal(sr_name_distance("rander", "render"), 1);    /* changed */
    assert_int_equal(sr_name_distance("redner", "render"), 1);    /* two neighbours swapped */
    assert_int_equal(sr_name_distance("", "info"), 4);
    assert_int_equal(sr_name_distance("bench", "view"), 5);
    static const char *const commands[] = { "render", "view", "bench", "info", "version", NULL };
    assert_string_equal(sr_name_closest("renderr", commands), "render");
    assert_string_equal(sr_name_closest("bnech", commands), "bench");
    assert_string_equal(sr_name_closest("vew", commands), "view");
    assert_null(sr_name_closest("xyz", commands));
    assert_null(sr_name_closest("in", commands));   /* 2 edits from info, but half the word */
    static const char *const opts[] = { "-o", "-q", "--spp", "--seed", NULL };
    assert_null(sr_name_closest("-x", opts));
    assert_string_equal(sr_name_closest("--sed", opts), "--seed");   /* one edit; --spp is two */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_spellings),
        cmocka_unit_test(test_kernel_names),
        cmocka_unit_test(test_closest_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
