/* test_fuzz_regressions.c: every input in tests/fuzz/regressions/ (each one crashed, hung,
 * exhausted memory or broke the contract once) and the seed corpora, replayed through the
 * same entry points as the libFuzzer harnesses (tests/fuzz/fuzz_entry.h), in every build:
 * under the sanitizers in CI's sanitized pass, plainly in the normal one. */
#include "testutil.h"
#include "../fuzz/fuzz_entry.h"

#include <dirent.h>

typedef int (*sr_fuzz_fn)(const uint8_t *data, size_t size, char *why, size_t cap);

static int replay_dir(const char *rel, sr_fuzz_fn fn)
{
    char dir[1024];
    sr_test_source_path(dir, sizeof dir, rel);
    DIR *d = opendir(dir);
    if (!d) fail_msg("cannot open %s", dir);
    int files = 0, bad = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) fail_msg("cannot open %s", path);
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *data = malloc(size > 0 ? (size_t)size : 1u);
        assert_non_null(data);
        assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
        fclose(f);
        char why[1400];
        const double t0 = sr_now();
        int broken = fn(data, (size_t)size, why, sizeof why);
        const double took = sr_now() - t0;
        free(data);
        files++;
        if (broken) {
            printf("  %s/%s: %s\n", rel, e->d_name, why);
            bad++;
        } else if (took > 5.0) {   /* libFuzzer's CI runs time out at 10 s */
            printf("  %s/%s: took %.1f s\n", rel, e->d_name, took);
            bad++;
        }
    }
    closedir(d);
    printf("  %s: %d inputs replayed, %d broken\n", rel, files, bad);
    return bad;
}

static void test_scene_regressions(void **state)
{
    (void)state;
    assert_int_equal(replay_dir("tests/fuzz/regressions/scene", sr_fuzz_scene_one), 0);
}

static void test_mesh_regressions(void **state)
{
    (void)state;
    assert_int_equal(replay_dir("tests/fuzz/regressions/mesh", sr_fuzz_mesh_one), 0);
}

static void test_scene_corpus(void **state)
{
    (void)state;
    assert_int_equal(replay_dir("tests/fuzz/corpus_scene", sr_fuzz_scene_one), 0);
}

static void test_mesh_corpus(void **state)
{
    (void)state;
    assert_int_equal(replay_dir("tests/fuzz/corpus_mesh", sr_fuzz_mesh_one), 0);
}

static void test_texture_corpus_and_regressions(void **state)
{
    (void)state;
    assert_int_equal(replay_dir("tests/fuzz/corpus_texture", sr_fuzz_texture_one), 0);
    assert_int_equal(replay_dir("tests/fuzz/regressions/texture", sr_fuzz_texture_one), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scene_regressions),
        cmocka_unit_test(test_mesh_regressions),
        cmocka_unit_test(test_texture_corpus_and_regressions),
        cmocka_unit_test(test_scene_corpus),
        cmocka_unit_test(test_mesh_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
