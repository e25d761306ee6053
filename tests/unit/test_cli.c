/* The command line as GNU tools read it: "--spp=8" is "--spp 8", "--" ends the options; two
 * scenes are one too many;
 * `info` names assimp's patch version; the progress of a render written to a log (not a
 * terminal) comes as whole lines, never carriage returns. */
#include "testutil.h"
#include "hardutil.h"

#include <assimp/version.h>
#include <cJSON.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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
    int code2;
    if (code) fail_msg("exit %d:\n%s", code, err);
    assert_int_equal(sr_hard_count_files(dir), 1);
    const char *bad[] = { "render", scene, "--spp=0", NULL };
    assert_int_equal(sr_test_run_cli(bad, err, sizeof err), 2);
    assert_non_null(strstr(err, "--spp: expected a whole number from 1 to 65536, got '0'"));
    /* the wave mask's tile order: a word from a short list, and nothing written for a bad one */
    const char *order[] = { "render", scene, "--backend=cpu", "--width=8", "--height=8", "--wave-order=slowest", out, "-q", NULL };
    sr_hard_fresh_dir(dir, sizeof dir, "cli_equals");
    if ((code2 = sr_test_run_cli(order, err, sizeof err))) fail_msg("exit %d:\n%s", code2, err);
    assert_int_equal(sr_hard_count_files(dir), 1);
    const char *bad_order[] = { "render", scene, "--backend=cpu", "--wave-order", "fastest", out, NULL };
    sr_hard_fresh_dir(dir, sizeof dir, "cli_equals");
    assert_int_equal(sr_test_run_cli(bad_order, err, sizeof err), 2);
    if (!strstr(err, "--wave-order: expected launch or slowest, got 'fastest'")) fail_msg("%s", err);
    assert_int_equal(sr_hard_count_files(dir), 0);
}

/* An option only other masks read is refused (exit 2, nothing written), naming the option and
 * the mask; with a mask that reads it, it renders. */
static void test_mask_only_options(void **state)
{
    (void)state;
    char scene[1024], dir[1024], out[1100], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/cornell.json");
    sr_hard_fresh_dir(dir, sizeof dir, "cli_mask_only");
    snprintf(out, sizeof out, "%s/x.png", dir);
    static const struct { const char *mask, *opt, *value, *expect; } bad[] = {
        { "megakernel", "--wave-dense", "4", "--wave-dense applies to --mask wave only, and the mask here is megakernel" },
        { "compact", "--wave-order", "slowest", "--wave-order applies to --mask wave only, and the mask here is compact" },
        { "stencil", "--compact-below", "0.5", "--compact-below applies to --mask compact (and to wave" },
        { "wave", "--sort", "merge", "--sort applies to --mask compact only, and the mask here is wave" },
        { "compact", "--sort-key", "material", "--sort-key chooses the key of a coherence sort, and no sort is asked for" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--mask", bad[i].mask,
                               bad[i].opt, bad[i].value, "-o", out, NULL };
        assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
        if (!strstr(err, bad[i].expect)) fail_msg("%s %s with --mask %s:\n%s", bad[i].opt, bad[i].value, bad[i].mask, err);
        assert_int_equal(sr_hard_count_files(dir), 0);
    }
    const char *good[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--mask", "compact",
                           "--compact-below", "1", "--sort", "merge", "--sort-key", "material", "-o", out, "-q", NULL };
    const int code = sr_test_run_cli(good, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    assert_int_equal(sr_hard_count_files(dir), 1);
    /* bench: the masks listed; --sort is its own list there */
    const char *bench_bad[] = { "bench", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--depth", "1",
                                "--frames", "1", "--mask", "stencil,flags", "--sort", "radix", NULL };
    assert_int_equal(sr_test_run_cli(bench_bad, err, sizeof err), 2);
    if (!strstr(err, "--sort applies to --mask compact only, and --mask lists stencil,flags")) fail_msg("%s", err);
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

/* "--" ends the options: a scene whose name starts with '-' renders after it, "--x=y" after it
 * is an operand (not split), and a second operand is still a second scene. */
static void test_double_dash_ends_options(void **state)
{
    (void)state;
    char dir[1024], src[1024], out[1100], err[8192];
    sr_test_source_path(src, sizeof src, "scenes/default.json");
    sr_hard_fresh_dir(dir, sizeof dir, "cli_dashdash");
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);   /* the scene is named relative to here */
    FILE *in = fopen(src, "rb"), *sc = fopen("-x.json", "wb"), *eq = fopen("--spp=1", "wb");
    assert_non_null(in);
    assert_non_null(sc);
    assert_non_null(eq);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0) {
        assert_int_equal(fwrite(buf, 1, got, sc), got);
        assert_int_equal(fwrite(buf, 1, got, eq), got);
    }
    fclose(in);
    fclose(sc);
    fclose(eq);
    snprintf(out, sizeof out, "%s/dash.png", dir);
    const char *argv[] = { "render", "--backend", "cpu", "--width", "8", "--height", "8", "--spp", "1", "-o", out,
                           "-q", "--", "-x.json", NULL };
    int code = sr_test_run_cli(argv, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    assert_true(sr_test_file_exists(out));
    /* without "--" the same name is an unknown option */
    const char *no_dashes[] = { "render", "--backend", "cpu", "-o", out, "-q", "-x.json", NULL };
    assert_int_equal(sr_test_run_cli(no_dashes, err, sizeof err), 2);
    if (!strstr(err, "unknown option '-x.json'")) fail_msg("%s", err);
    /* after "--", "--spp=1" is a file name, not an option to split */
    remove(out);
    const char *eq_operand[] = { "render", "--backend", "cpu", "--width", "8", "--height", "8", "--spp", "1", "-o",
                                 out, "-q", "--", "--spp=1", NULL };
    code = sr_test_run_cli(eq_operand, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    assert_true(sr_test_file_exists(out));
    /* options after "--" are operands too: "-o" is a second scene here */
    const char *two[] = { "render", "--backend", "cpu", "--", "-x.json", "-o", NULL };
    assert_int_equal(sr_test_run_cli(two, err, sizeof err), 2);
    if (!strstr(err, "one scene expected, got two ('-x.json' and '-o')")) fail_msg("%s", err);
    /* bench takes it the same way (a bad value after it is never read as an option) */
    const char *bench[] = { "bench", "--backend", "cpu", "--", "-x.json", "--frames", NULL };
    assert_int_equal(sr_test_run_cli(bench, err, sizeof err), 2);
    if (!strstr(err, "one scene expected, got two ('-x.json' and '--frames')")) fail_msg("%s", err);
    assert_int_equal(chdir(cwd), 0);
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
    /* The benchmark's progress too: whole lines, the first pair's among them. */
    const char *bench[] = { "bench", scene, "--backend", "cpu", "--width", "32", "--height", "16", "--depth", "1-2",
                            "--frames", "2", NULL };
    assert_int_equal(sr_hard_run(&c, bench, NULL, 300.0), 0);
    assert_null(strchr(c.err, '\r'));
    if (!strstr(c.err, "bench: depth 1, mask ")) fail_msg("no progress line in:\n%s", c.err);
}

/* What `stencilray ARGS` prints on standard output (into buf); its exit status. */
static int run_stdout(const char *const *args, char *buf, size_t cap)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        const char *argv[32] = { SR_CLI };
        for (int k = 0; args[k] && k < 30; k++) argv[k + 1] = args[k];
        execv(SR_CLI, (char *const *)argv);
        _exit(98);
    }
    close(fds[1]);
    FILE *p = fdopen(fds[0], "r");
    assert_non_null(p);
    const size_t got = fread(buf, 1, cap - 1, p);
    buf[got] = '\0';
    fclose(p);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_info_assimp_version(void **state)
{
    (void)state;
    char want[64], buf[8192];
    snprintf(want, sizeof want, "assimp %u.%u.%u", aiGetVersionMajor(), aiGetVersionMinor(), aiGetVersionPatch());
    const char *args[] = { "info", NULL };
    run_stdout(args, buf, sizeof buf);
    if (!strstr(buf, want)) fail_msg("expected '%s' in:\n%s", want, buf);
}

/* stencilray asks CUDA to load every kernel when the device opens, unless the person chose
 * a loading mode (cudaenv.h); info says which, and who chose it. */
static void test_info_cuda_module_loading(void **state)
{
    (void)state;
#ifdef SR_HAVE_CUDA
    char buf[8192];
    const char *args[] = { "info", NULL };
    char *saved = getenv("CUDA_MODULE_LOADING") ? strdup(getenv("CUDA_MODULE_LOADING")) : NULL;
    unsetenv("CUDA_MODULE_LOADING");
    run_stdout(args, buf, sizeof buf);
    if (!strstr(buf, "kernels load when the device opens (CUDA_MODULE_LOADING=EAGER, stencilray's default)"))
        fail_msg("unset: expected stencilray's EAGER in:\n%s", buf);
    setenv("CUDA_MODULE_LOADING", "LAZY", 1);
    run_stdout(args, buf, sizeof buf);
    if (!strstr(buf, "kernels load on first launch (CUDA_MODULE_LOADING=LAZY, from the environment)"))
        fail_msg("LAZY set: expected it kept in:\n%s", buf);
    if (saved) setenv("CUDA_MODULE_LOADING", saved, 1);
    else unsetenv("CUDA_MODULE_LOADING");
    free(saved);
#else
    skip();   /* no CUDA backend: nothing to load */
#endif
}

/* Each command's help lists each option once (bench's --depth and --mask were listed twice,
 * with two meanings), and bench refuses what does not apply to it instead of ignoring it. */
static void test_help_lists_each_option_once(void **state)
{
    (void)state;
    static const char *const cmds[] = { "render", "bench", "view" };
    for (size_t k = 0; k < 3; k++) {
        char buf[16384];
        const char *args[] = { cmds[k], "--help", NULL };
        run_stdout(args, buf, sizeof buf);
        char seen[64][32];
        int n = 0;
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
            if (strncmp(line, "  --", 4) != 0) continue;
            char opt[32];
            if (sscanf(line + 2, "%31[a-z-]", opt) != 1) continue;
            for (int j = 0; j < n; j++)
                if (!strcmp(seen[j], opt)) fail_msg("%s --help lists %s twice", cmds[k], opt);
            if (n < 64) snprintf(seen[n++], sizeof seen[0], "%s", opt);
        }
        assert_true(n > 5);
    }
    char err[4096];
    const char *spp[] = { "bench", "--spp", "16", "--backend", "cpu", NULL };
    assert_int_equal(sr_test_run_cli(spp, err, sizeof err), 2);
    assert_non_null(strstr(err, "--spp does not apply to bench"));
}

/* `stencilray --version` and `stencilray version` print the project's version (CMake's
 * project(VERSION)) and exit 0; every command's help ends with the line that points at the
 * README's quick start and the scene reference. */
static void test_version_and_help_footer(void **state)
{
    (void)state;
    char buf[16384], want[64];
    snprintf(want, sizeof want, "stencilray %s\n", SR_VERSION);
    static const char *const version[][2] = { { "--version", NULL }, { "version", NULL } };
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(run_stdout(version[k], buf, sizeof buf), 0);
        assert_string_equal(buf, want);
    }
    static const char *const helps[][3] = {
        { "--help", NULL, NULL }, { "render", "--help", NULL }, { "bench", "--help", NULL },
        { "view", "--help", NULL }, { "info", "--help", NULL },
    };
    const char *footer = "\nQuick start: README.md#quick-start; scene reference: docs/scene-format.md\n";
    for (size_t k = 0; k < sizeof helps / sizeof helps[0]; k++) {
#ifndef SR_HAVE_VIEWER
        if (!strcmp(helps[k][0], "view")) continue;   /* a build without the viewer has no view help */
#endif
        assert_int_equal(run_stdout(helps[k], buf, sizeof buf), 0);
        const size_t n = strlen(buf), m = strlen(footer);
        if (n < m || strcmp(buf + n - m, footer)) fail_msg("%s %s: the help does not end with the pointer line:\n%s",
                                                          helps[k][0], helps[k][1] ? helps[k][1] : "", buf);
    }
}

/* --exr-type sets the pixel type of an EXR only: with a PNG or HDR output (a sequence's pattern
 * too) nothing would read it, so it is refused like the options no mask reads (exit 2, nothing
 * written, naming the option and the output); with .exr it renders. */
static void test_exr_type_needs_exr(void **state)
{
    (void)state;
    char scene[1024], dir[1024], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_hard_fresh_dir(dir, sizeof dir, "cli_exr_type");
    static const char *const names[] = { "x.png", "x.hdr", "x_%02d.png" };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char out[1100];
        snprintf(out, sizeof out, "%s/%s", dir, names[k]);
        const int seq = strchr(names[k], '%') != NULL;
        const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", out,
                               "--exr-type", "float", "-q", seq ? "--frames" : NULL, "0", NULL };
        assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
        if (!strstr(err, "--exr-type applies to .exr output only") || !strstr(err, names[k])) fail_msg("-o %s:\n%s", out, err);
        assert_int_equal(sr_hard_count_files(dir), 0);
    }
    char out[1100];
    snprintf(out, sizeof out, "%s/x.EXR", dir);
    const char *good[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", out,
                           "--exr-type", "float", "-q", NULL };
    const int code = sr_test_run_cli(good, err, sizeof err);
    if (code) fail_msg("exit %d:\n%s", code, err);
    assert_int_equal(sr_hard_count_files(dir), 1);
}

/* -o naming a directory (one that exists, or a name ending in '/') says so and what is
 * expected, whatever its ending; nothing is written. */
static void test_output_directory(void **state)
{
    (void)state;
    char scene[1024], dir[1024], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_hard_fresh_dir(dir, sizeof dir, "cli_outdir");
    char sub[1100], png_dir[1100], slash[1100];
    snprintf(sub, sizeof sub, "%s/frames", dir);
    snprintf(png_dir, sizeof png_dir, "%s/looks.png", dir);
    snprintf(slash, sizeof slash, "%s/new/", dir);
    rmdir(sub);   /* left empty by an earlier run (sr_hard_fresh_dir removes files only) */
    rmdir(png_dir);
    assert_int_equal(mkdir(sub, 0777), 0);
    assert_int_equal(mkdir(png_dir, 0777), 0);
    const char *const outs[] = { sub, png_dir, slash };
    for (size_t k = 0; k < 3; k++) {
        const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", outs[k], "-q", NULL };
        assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
        char want[1200];
        snprintf(want, sizeof want, "-o %s: that is a directory; expected an image file name ending in .png, .hdr or .exr",
                 outs[k]);
        if (!strstr(err, want) || !strstr(err, "/render.png")) fail_msg("-o %s:\n%s", outs[k], err);
        assert_int_equal(sr_hard_count_files(dir), 2);   /* the two directories, nothing written */
    }
}

/* A mistyped command or option gets a "did you mean" naming the closest one (within 2 edits);
 * a word close to nothing gets none; either way exit 2. */
static void test_did_you_mean(void **state)
{
    (void)state;
    char err[8192];
    static const struct { const char *args[4], *expect; } cases[] = {
        { { "renderr", NULL }, "unknown command 'renderr'; did you mean 'render'?" },
        { { "bnech", NULL }, "unknown command 'bnech'; did you mean 'bench'?" },
        { { "render", "--widht", "8", NULL }, "unknown option '--widht'; did you mean --width?" },
        { { "render", "--exr-tpye", "half", NULL }, "unknown option '--exr-tpye'; did you mean --exr-type?" },
        { { "bench", "--warmpu", "1", NULL }, "unknown option '--warmpu'; did you mean --warmup?" },
#ifdef SR_HAVE_VIEWER
        { { "view", "--sp", "4", NULL }, "unknown option '--sp'; did you mean --spp?" },
#endif
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        assert_int_equal(sr_test_run_cli(cases[k].args, err, sizeof err), 2);
        if (!strstr(err, cases[k].expect)) fail_msg("expected '%s' in:\n%s", cases[k].expect, err);
    }
    static const char *const far[][3] = { { "xyzzy", NULL }, { "render", "-x", NULL }, { "bench", "--colour", NULL } };
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(sr_test_run_cli(far[k], err, sizeof err), 2);
        if (strstr(err, "did you mean")) fail_msg("%s %s: a suggestion for a word close to nothing:\n%s", far[k][0],
                                                  far[k][1] ? far[k][1] : "", err);
    }
}

/* The "device" a --stats file names for the image and for each worker ("CPU, N threads"):
 * fails unless all of them run want threads. */
static void assert_stats_threads(const char *stats, int want)
{
    char *text = sr_test_read_text(stats);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    char expect[64];
    snprintf(expect, sizeof expect, "CPU, %d threads", want);
    const cJSON *device = cJSON_GetObjectItem(root, "device");
    if (!cJSON_IsString(device) || strcmp(device->valuestring, expect))
        fail_msg("--stats device: expected '%s' in:\n%s", expect, text);
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(root, "workers")) {
        const cJSON *d = cJSON_GetObjectItem(w, "device");
        if (!cJSON_IsString(d) || strcmp(d->valuestring, expect)) fail_msg("a worker's device is not '%s':\n%s", expect, text);
    }
    cJSON_Delete(root);
    free(text);
}

/* --threads N sets the CPU backend's OpenMP threads for render (one worker and several, each
 * on its own thread), bench and view; OMP_NUM_THREADS is the count without it; a count that
 * is not a whole number from 1 up exits 2 naming the option. */
static void test_threads_option(void **state)
{
    (void)state;
    char scene[1024], dir[1024], out[1100], stats[1100], err[8192], buf[16384];
    sr_test_source_path(scene, sizeof scene, "scenes/default.json");
    sr_hard_fresh_dir(dir, sizeof dir, "cli_threads");
    snprintf(out, sizeof out, "%s/t.png", dir);
    snprintf(stats, sizeof stats, "%s/t.json", dir);
    char *saved = getenv("OMP_NUM_THREADS") ? strdup(getenv("OMP_NUM_THREADS")) : NULL;
    unsetenv("OMP_NUM_THREADS");
    static const struct { const char *threads, *devices, *env; int want; } runs[] = {
        { "3", "0", NULL, 3 }, { "1", "0", NULL, 1 }, { "3", "0,0", NULL, 3 },
        { NULL, "0", "5", 5 }, { "2", "0,0", "5", 2 },   /* the environment's count, and the option over it */
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        if (runs[k].env) setenv("OMP_NUM_THREADS", runs[k].env, 1);
        else unsetenv("OMP_NUM_THREADS");
        const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "16", "--height", "8", "--device",
                               runs[k].devices, "-o", out, "--stats", stats, "-q",
                               runs[k].threads ? "--threads" : NULL, runs[k].threads, NULL };
        const int code = sr_test_run_cli(argv, err, sizeof err);
        if (code) fail_msg("exit %d:\n%s", code, err);
        assert_stats_threads(stats, runs[k].want);
    }
    unsetenv("OMP_NUM_THREADS");
    const char *bench[] = { "bench", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--depth", "1",
                            "--frames", "1", "--mask", "flags", "--threads", "3", "-q", NULL };
    assert_int_equal(run_stdout(bench, buf, sizeof buf), 0);
    if (!strstr(buf, "# OpenMP: 3 threads")) fail_msg("bench --threads 3:\n%s", buf);
    if (saved) setenv("OMP_NUM_THREADS", saved, 1);
    free(saved);

    static const char *const cmds[] = { "render", "bench", "view" }, *const bad[] = { "0", "-2", "x", "", "4097", "2.5" };
    for (size_t c = 0; c < 3; c++) {
#ifndef SR_HAVE_VIEWER
        if (!strcmp(cmds[c], "view")) continue;
#endif
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            const char *argv[] = { cmds[c], scene, "--backend", "cpu", "--threads", bad[k], "-o", out, NULL };
            if (c > 0) argv[6] = NULL;   /* -o is render's */
            assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
            char want[128];
            snprintf(want, sizeof want, "--threads: expected a whole number from 1 to 4096, got '%s'", bad[k]);
            if (!strstr(err, want)) fail_msg("%s --threads '%s':\n%s", cmds[c], bad[k], err);
        }
        const char *help[] = { cmds[c], "--help", NULL };
        assert_int_equal(run_stdout(help, buf, sizeof buf), 0);
        if (!strstr(buf, "  --threads N ")) fail_msg("%s --help does not list --threads", cmds[c]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_option_equals_value),
        cmocka_unit_test(test_mask_only_options),
        cmocka_unit_test(test_two_scenes),
        cmocka_unit_test(test_double_dash_ends_options),
        cmocka_unit_test(test_progress_in_a_log),
        cmocka_unit_test(test_info_assimp_version),
        cmocka_unit_test(test_info_cuda_module_loading),
        cmocka_unit_test(test_help_lists_each_option_once),
        cmocka_unit_test(test_version_and_help_footer),
        cmocka_unit_test(test_threads_option),
        cmocka_unit_test(test_exr_type_needs_exr),
        cmocka_unit_test(test_output_directory),
        cmocka_unit_test(test_did_you_mean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
