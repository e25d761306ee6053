/* The command line as GNU tools read it: "--spp=8" is "--spp 8"; two scenes are one too many;
 * `info` names assimp's patch version; the progress of a render written to a log (not a
 * terminal) comes as whole lines, never carriage returns. */
#include "testutil.h"
#include "hardutil.h"

#include <assimp/version.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_option_equals_value(void **state)
{
    (void)state;
    char scene[1024], dir[1024], out[1100], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_hard_fresh_dir(dir, sizeof dir, "cli_equals");
    snprintf(out, sizeof out, "--output=%s/x.png", dir);
    const char *argv[] = { "render", scene, "--backend=cpu", "--width=8", "--height=8", "--spp=2", out, "-q", NULL };
    const int code = sr_test_run_cli(argv, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    assert_int_equal(sr_hard_count_files(dir), 1);
    const char *bad[] = { "render", scene, "--spp=0", NULL };
    assert_int_equal(sr_test_run_cli(bad, err, sizeof err), 2);
    assert_non_null(strstr(err, "--spp: expected a whole number from 1 to 65536, got '0'"));
}

static void test_two_scenes(void **state)
{
    (void)state;
    char a[1024], b[1024], err[8192];
    sr_test_source_path(a, sizeof a, "scenes/default.json");
    sr_test_source_path(b, sizeof b, "scenes/cornell.json");
    const char *argv[] = { "render", a, b, "--backend", "cpu", NULL };
    assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
    if (!strstr(err, "one scene expected, got two")) fail_msg("%s", err);
}

static void test_progress_in_a_log(void **state)
{
    (void)state;
    char scene[1024], dir[1024], out[1100];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_hard_fresh_dir(dir, sizeof dir, "cli_progress");
    snprintf(out, sizeof out, "%s/p.png", dir);
    /* long enough (seconds on the CPU) to show progress; stderr is a pipe here */
    const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "320", "--height", "180", "--spp", "512",
                           "-o", out, NULL };
    sr_child c;
    assert_int_equal(sr_hard_run(&c, argv, NULL, 300.0), 0);
    assert_null(strchr(c.err, '\r'));
}

static void test_info_assimp_version(void **state)
{
    (void)state;
    char want[64];
    snprintf(want, sizeof want, "assimp %u.%u.%u", aiGetVersionMajor(), aiGetVersionMinor(), aiGetVersionPatch());
    /* info prints to stdout: read it through a pipe of our own */
    FILE *p = NULL;
    char buf[8192] = "";
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execl(SR_CLI, SR_CLI, "info", (char *)NULL);
        _exit(98);
    }
    close(fds[1]);
    p = fdopen(fds[0], "r");
    assert_non_null(p);
    size_t got = fread(buf, 1, sizeof buf - 1, p);
    buf[got] = '\0';
    fclose(p);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!strstr(buf, want)) fail_msg("expected '%s' in:\n%s", want, buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_option_equals_value),
        cmocka_unit_test(test_two_scenes),
        cmocka_unit_test(test_progress_in_a_log),
        cmocka_unit_test(test_info_assimp_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
