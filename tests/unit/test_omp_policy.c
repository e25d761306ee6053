/* OpenMP's wait policy (src/backend/cpu/ompenv.h): render, bench and view run with OMP_WAIT_POLICY=PASSIVE
 * when the person set neither it nor GOMP_SPINCOUNT, and leave a policy they set alone. Checked
 * as a rule, and on the real binary: the benchmark's JSON reports the policy and who chose it,
 * and with libgomp the runtime itself shows what it read (OMP_DISPLAY_ENV=VERBOSE prints
 * GOMP_SPINCOUNT: 0 for PASSIVE, 300000 for the default). CTest runs every test with
 * OMP_WAIT_POLICY=PASSIVE, so the child's environment is set here variable by variable. */
#include "testutil.h"
#include "../../src/backend/cpu/ompenv.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_the_rule(void **state)
{
    (void)state;
    assert_true(sr_omp_wants_passive("render", NULL, NULL, NULL));
    assert_true(sr_omp_wants_passive("bench", NULL, NULL, NULL));
    assert_true(sr_omp_wants_passive("view", NULL, NULL, NULL));
    /* the person's choice stays, whatever it is */
    assert_false(sr_omp_wants_passive("render", "ACTIVE", NULL, NULL));
    assert_false(sr_omp_wants_passive("render", "passive", NULL, NULL));
    assert_false(sr_omp_wants_passive("bench", "", NULL, NULL));
    assert_false(sr_omp_wants_passive("bench", NULL, "1000", NULL));
    /* commands without OpenMP work start once */
    assert_false(sr_omp_wants_passive("info", NULL, NULL, NULL));
    assert_false(sr_omp_wants_passive("--help", NULL, NULL, NULL));
    assert_false(sr_omp_wants_passive(NULL, NULL, NULL, NULL));
    /* never a third start, even if the variable went missing */
    assert_false(sr_omp_wants_passive("render", NULL, NULL, "1"));
}

typedef struct { const char *name, *value; } env_var;   /* value NULL: unset */

/* Run SR_CLI with args and the environment changed by env; stdout and stderr into buffers. */
static int run_env(const char *const *args, const env_var *env, char *out, size_t out_cap, char *err, size_t err_cap)
{
    char out_path[1024], err_path[1024];
    sr_test_tmp_path(out_path, sizeof out_path, "omp_stdout.txt");
    sr_test_tmp_path(err_path, sizeof err_path, "omp_stderr.txt");
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (int k = 0; env[k].name; k++) {
            if (env[k].value) setenv(env[k].name, env[k].value, 1);
            else unsetenv(env[k].name);
        }
        if (!freopen(out_path, "w", stdout) || !freopen(err_path, "w", stderr)) _exit(97);
        const char *argv[40] = { SR_CLI };
        for (int k = 0; args[k] && k < 38; k++) argv[k + 1] = args[k];
        execv(SR_CLI, (char *const *)argv);
        _exit(98);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    FILE *f = fopen(out_path, "rb");
    assert_non_null(f);
    out[fread(out, 1, out_cap - 1, f)] = '\0';
    fclose(f);
    f = fopen(err_path, "rb");
    assert_non_null(f);
    err[fread(err, 1, err_cap - 1, f)] = '\0';
    fclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* How many times libgomp displayed its settings (once per start), and the last spin count. */
static int displays(const char *err, long long *last_spincount)
{
    int n = 0;
    for (const char *p = err; (p = strstr(p, "GOMP_SPINCOUNT = '")); p++) {
        n++;
        *last_spincount = atoll(p + strlen("GOMP_SPINCOUNT = '"));
    }
    return n;
}

/* The bench's JSON setup for one tiny run in environment env. */
static cJSON *bench_setup(const env_var *env, char *err, size_t err_cap)
{
    char scene[1024], json[1024], out[16384];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_test_tmp_path(json, sizeof json, "omp_bench.json");
    remove(json);
    const char *argv[] = { "bench", scene, "--backend", "cpu", "--width", "16", "--height", "8", "--depth", "1",
                           "--mask", "stencil", "--frames", "1", "--warmup", "0", "--json", json, "-q", NULL };
    const int code = run_env(argv, env, out, sizeof out, err, err_cap);
    if (code) fail_msg("exit %d:\n%s", code, err);
    FILE *f = fopen(json, "rb");
    assert_non_null(f);
    static char text[65536];
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    return root;
}

static const char *setup_str(const cJSON *root, const char *name)
{
    const cJSON *x = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "setup"), name);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

static void test_unset_becomes_passive(void **state)
{
    (void)state;
    char err[65536];
    const env_var env[] = { { "OMP_WAIT_POLICY", NULL }, { "GOMP_SPINCOUNT", NULL }, { SR_OMP_DEFAULTED_ENV, NULL },
                            { "OMP_DISPLAY_ENV", "VERBOSE" }, { NULL, NULL } };
    cJSON *root = bench_setup(env, err, sizeof err);
    assert_string_equal(setup_str(root, "omp_wait_policy"), "PASSIVE");
    assert_string_equal(setup_str(root, "omp_wait_policy_from"), "stencilray");
    assert_null(setup_str(root, "gomp_spincount"));
    cJSON_Delete(root);
    long long spin = -1;
    if (displays(err, &spin) > 0) {   /* libgomp: the runtime that did the work read PASSIVE */
        assert_int_equal(displays(err, &spin), 2);   /* the first start, then the second */
        assert_int_equal(spin, 0);
    }
}

static void test_a_set_policy_is_left_alone(void **state)
{
    (void)state;
    char err[65536];
    const env_var active[] = { { "OMP_WAIT_POLICY", "active" }, { "GOMP_SPINCOUNT", NULL },
                               { SR_OMP_DEFAULTED_ENV, NULL }, { "OMP_DISPLAY_ENV", "VERBOSE" }, { NULL, NULL } };
    cJSON *root = bench_setup(active, err, sizeof err);
    assert_string_equal(setup_str(root, "omp_wait_policy"), "ACTIVE");
    assert_string_equal(setup_str(root, "omp_wait_policy_from"), "environment");
    cJSON_Delete(root);
    long long spin = -1;
    if (displays(err, &spin) > 0) {
        assert_int_equal(displays(err, &spin), 1);   /* started once */
        assert_true(spin > 300000);                  /* ACTIVE: spins (30 billion) */
    }
    const env_var spincount[] = { { "OMP_WAIT_POLICY", NULL }, { "GOMP_SPINCOUNT", "1000" },
                                  { SR_OMP_DEFAULTED_ENV, NULL }, { "OMP_DISPLAY_ENV", "VERBOSE" }, { NULL, NULL } };
    root = bench_setup(spincount, err, sizeof err);
    assert_string_equal(setup_str(root, "omp_wait_policy"), "unset");
    assert_string_equal(setup_str(root, "omp_wait_policy_from"), "none");
    assert_string_equal(setup_str(root, "gomp_spincount"), "1000");
    cJSON_Delete(root);
    if (displays(err, &spin) > 0) {
        assert_int_equal(displays(err, &spin), 1);
        assert_int_equal(spin, 1000);
    }
}

/* The second start is the same command: its arguments, exit codes and output are unchanged. */
static void test_second_start_is_the_same_run(void **state)
{
    (void)state;
    char scene[1024], png[1024], out[16384], err[16384];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_test_tmp_path(png, sizeof png, "omp_render.png");
    remove(png);
    const env_var env[] = { { "OMP_WAIT_POLICY", NULL }, { "GOMP_SPINCOUNT", NULL }, { SR_OMP_DEFAULTED_ENV, NULL },
                            { NULL, NULL } };
    const char *ok[] = { "render", scene, "--backend", "cpu", "--width=8", "--height", "8", "--spp", "2", "-o", png,
                         NULL };
    const int code = run_env(ok, env, out, sizeof out, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    assert_true(sr_test_file_exists(png));
    assert_non_null(strstr(out, "8x8, 2 spp"));
    const char *bad[] = { "render", scene, "--spp", "0", NULL };
    assert_int_equal(run_env(bad, env, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "--spp: expected a whole number from 1 to 65536, got '0'"));
    assert_null(strstr(strstr(err, "--spp") + 1, "--spp: expected"));   /* said once, not once per start */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_rule),
        cmocka_unit_test(test_unset_becomes_passive),
        cmocka_unit_test(test_a_set_policy_is_left_alone),
        cmocka_unit_test(test_second_start_is_the_same_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
