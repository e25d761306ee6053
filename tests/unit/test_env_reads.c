/* test_env_reads.c: who reads the environment. The library reads its test switches in one
 * place (src/base/test_hooks.c), each listed in tests/README.md's table; the program's files
 * read the user settings and the runtimes' defaults; no other source file calls getenv. */
#include "testutil.h"
#include "../../src/base/test_hooks.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Files and folders (under src/) that may read the environment, and why. */
static const char *const sr_env_readers[] = {
    "src/base/test_hooks.c",       /* the test switches */
    "src/app/",                    /* the program: user settings, passed in as settings */
    "src/viewer/",                 /* `stencilray view`: SR_DISPLAY_PATH, and X's DISPLAY */
    "src/backend/cpu/ompenv.c",    /* the program's OpenMP default (main.c), OMP_* as set */
    "src/backend/cuda/cudaenv.c",  /* the program's CUDA_MODULE_LOADING default (main.c) */
    "src/farm/ranks.c",            /* launcher facts: was this process started by mpirun */
};

static int sr_may_read_env(const char *rel)
{
    for (size_t i = 0; i < sizeof sr_env_readers / sizeof sr_env_readers[0]; i++) {
        const size_t n = strlen(sr_env_readers[i]);
        if (!strncmp(rel, sr_env_readers[i], n) && (sr_env_readers[i][n - 1] == '/' || rel[n] == '\0')) return 1;
    }
    return 0;
}

/* Every .c and .cu file under root/rel that calls getenv; returns how many files were read. */
static int sr_scan_getenv(const char *root, const char *rel, char *offenders, size_t cap)
{
    char dir_path[1024];
    snprintf(dir_path, sizeof dir_path, "%s/%s", root, rel);
    DIR *d = opendir(dir_path);
    assert_non_null(d);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char sub[1024], full[2048];
        snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (stat(full, &st)) continue;
        if (S_ISDIR(st.st_mode)) { files += sr_scan_getenv(root, sub, offenders, cap); continue; }
        const size_t len = strlen(e->d_name);
        if (!(len > 2 && !strcmp(e->d_name + len - 2, ".c")) && !(len > 3 && !strcmp(e->d_name + len - 3, ".cu")))
            continue;
        char *text = sr_test_read_text(full);
        assert_non_null(text);
        files++;
        if (strstr(text, "getenv(") && !sr_may_read_env(sub))
            snprintf(offenders + strlen(offenders), cap - strlen(offenders), " %s", sub);
        free(text);
    }
    closedir(d);
    return files;
}

static void test_only_the_hooks_and_the_program_read_the_environment(void **state)
{
    (void)state;
    char offenders[4096] = "";
    int files = sr_scan_getenv(SR_SOURCE_DIR, "src", offenders, sizeof offenders);
    files += sr_scan_getenv(SR_SOURCE_DIR, "kernels", offenders, sizeof offenders);
    printf("  %d source files read\n", files);
    assert_true(files > 50);
    if (*offenders) fail_msg("getenv outside test_hooks.c and the program's files:%s", offenders);
}

/* Each hook is a row of the table in tests/README.md, "Test switches". */
static void test_every_hook_is_listed(void **state)
{
    (void)state;
    char path[1024];
    char *readme = sr_test_read_text(sr_test_source_path(path, sizeof path, "tests/README.md"));
    assert_non_null(readme);
    const char *section = strstr(readme, "\n## Test switches");
    assert_non_null(section);
    const char *end = strstr(section + 1, "\n## ");
    for (int h = 0; h < SR_HOOK_COUNT; h++) {
        char row[96];
        snprintf(row, sizeof row, "\n| `%s", sr_hook_name((sr_hook)h));
        const char *at = strstr(section, row);
        if (!at || (end && at > end)) fail_msg("%s has no row in tests/README.md's \"Test switches\" table", row + 4);
    }
    free(readme);
}

/* A hook is read when asked: a test can change it between two renders. */
static void test_hooks_read_when_asked(void **state)
{
    (void)state;
    assert_string_equal(sr_hook_name(SR_HOOK_SPLIT_BUDGET), "SR_SPLIT_BUDGET");
    assert_string_equal(sr_hook_name(SR_HOOK_COUNT), "?");
    unsetenv("SR_SPLIT_BUDGET");
    assert_null(sr_test_hook(SR_HOOK_SPLIT_BUDGET));
    setenv("SR_SPLIT_BUDGET", "2", 1);
    assert_string_equal(sr_test_hook(SR_HOOK_SPLIT_BUDGET), "2");
    unsetenv("SR_SPLIT_BUDGET");
    assert_null(sr_test_hook(SR_HOOK_SPLIT_BUDGET));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_the_hooks_and_the_program_read_the_environment),
        cmocka_unit_test(test_every_hook_is_listed),
        cmocka_unit_test(test_hooks_read_when_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
