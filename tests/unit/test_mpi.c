/* test_mpi.c: render under mpirun (a build with -DSR_WITH_MPI=ON; skipped, exit 77, without):
 * 1, 2 and 3 ranks on the CPU backend give the bytes of a plain run (one frame, and frames of a
 * sequence whole or shared); a bad scene is said once and ends the job with exit 2; a killed
 * rank ends the job with nothing written; ranks started with other settings stop, said once; rank 0
 * refuses a peer's film of another size. */
#include "testutil.h"
#include "../../src/farm/film_sum.h"
#include "../../src/farm/ranks.h"
#include "../../include/stencilray.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef SR_MPIEXEC
static int run_mpirun(const char *const *argv, const char *env, char *err, size_t cap);

/* The mpirun program and its options for every run; returns the count. */
static size_t mpirun_head(const char **argv)
{
    size_t n = 0;
    argv[n++] = SR_MPIEXEC;
    argv[n++] = "--oversubscribe";
    if (geteuid() == 0) argv[n++] = "--allow-run-as-root";
    return n;
}

/* mpirun -np N stencilray ARGS..., with env (NAME=VALUE or NULL) set; its stderr into err. */
static int run_mpi(int np, const char *env, const char *const *args, char *err, size_t cap)
{
    char npt[16];
    snprintf(npt, sizeof npt, "%d", np);
    const char *argv[80];
    size_t n = mpirun_head(argv);
    argv[n++] = "-np";
    argv[n++] = npt;
    argv[n++] = SR_CLI;
    for (size_t i = 0; args[i] && n < 78; i++) argv[n++] = args[i];
    argv[n] = NULL;
    return run_mpirun(argv, env, err, cap);
}

/* One rank per argument list (mpirun's "-np 1 A : -np 1 B"), so that ranks get other options. */
static int run_mpi_each(int np, const char *const *const *args, char *err, size_t cap)
{
    const char *argv[160];
    size_t n = mpirun_head(argv);
    for (int r = 0; r < np; r++) {
        if (r) argv[n++] = ":";
        argv[n++] = "-np";
        argv[n++] = "1";
        argv[n++] = SR_CLI;
        for (size_t i = 0; args[r][i] && n < 150; i++) argv[n++] = args[r][i];
    }
    argv[n] = NULL;
    return run_mpirun(argv, NULL, err, cap);
}

/* mpirun with its argv (NULL-terminated), env (NAME=VALUE or NULL) set; its stderr into err. */
static int run_mpirun(const char *const *argv, const char *env, char *err, size_t cap)
{
    int fds[2];
    if (pipe(fds)) abort();
    const pid_t pid = fork();
    if (pid < 0) abort();
    if (pid == 0) {
        if (env) {   /* NAME=VALUE */
            char name[64];
            const char *eq = strchr(env, '=');
            snprintf(name, sizeof name, "%.*s", (int)(eq - env), env);
            setenv(name, eq + 1, 1);
        }
        setenv("OMP_NUM_THREADS", "1", 1);   /* ranks share the machine's cores */
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(fds[1], 2);
        close(fds[0]);
        execv(SR_MPIEXEC, (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    size_t used = 0;
    for (;;) {
        char tmp[4096];
        const ssize_t got = read(fds[0], tmp, sizeof tmp);
        if (got <= 0) break;
        for (ssize_t i = 0; i < got && used + 1 < cap; i++) err[used++] = tmp[i];
    }
    err[used] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

/* Files in tmp/ whose names start with prefix (a temporary left behind has "<name>.tmp-"). */
static int files_starting(const char *prefix)
{
    char dir[512];
    sr_test_tmp_path(dir, sizeof dir, "");
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) n += !strncmp(e->d_name, prefix, strlen(prefix));
    closedir(d);
    return n;
}

static void test_ranks_give_the_plain_bytes(void **state)
{
    (void)state;
    char scene[4096], plain[512], out[512], err[16384];
    sr_test_source_path(scene, sizeof scene, "scenes/cornell_path.json");
    for (int e = 0; e < 2; e++) {
        const char *ext = e ? "exr" : "png";
        char name[64];
        snprintf(name, sizeof name, "mpi_plain.%s", ext);
        sr_test_tmp_path(plain, sizeof plain, name);
        const char *argsx[] = { "render", scene, "--backend", "cpu", "--width", "32", "--height", "24", "--spp", "9",
                                "--integrator", "path", "-q", "-o", plain, e ? "--exr-type" : NULL, "float", NULL };
        assert_int_equal(sr_test_run_cli(argsx, err, sizeof err), 0);
        for (int np = 1; np <= 3; np++) {
            snprintf(name, sizeof name, "mpi_%d.%s", np, ext);
            sr_test_tmp_path(out, sizeof out, name);
            unlink(out);
            argsx[14] = out;
            const int code = run_mpi(np, NULL, argsx, err, sizeof err);
            if (code) fail_msg("mpirun -np %d exited %d: %s", np, code, err);
            sr_test_assert_same_file(plain, out);
        }
    }
}

static void test_sequences_under_mpi(void **state)
{
    (void)state;
    char scene[4096], plain[512], pat[512], a[600], b[600], err[16384];
    sr_test_source_path(scene, sizeof scene, "scenes/orbit.json");
    sr_test_tmp_path(plain, sizeof plain, "mpiseq_plain_%02d.png");
    for (int k = 0; k < 6; k++) { snprintf(a, sizeof a, plain, k); unlink(a); }
    const char *args[] = { "render", scene, "--backend", "cpu", "--width", "24", "--height", "24", "--spp", "3",
                           "--frames", "0-4", "-o", plain, NULL };
    assert_int_equal(sr_test_run_cli(args, err, sizeof err), 0);
    /* 5 frames over 2 ranks: whole frames; frames 1-2 over 3 ranks: each frame shared. */
    static const struct { int np; const char *range; int lo, hi; } runs[] = { { 2, "0-4", 0, 4 }, { 3, "1-2", 1, 2 } };
    for (size_t r = 0; r < 2; r++) {
        snprintf(pat, sizeof pat, "%s", plain);
        sr_test_tmp_path(pat, sizeof pat, r ? "mpiseq_b_%02d.png" : "mpiseq_a_%02d.png");
        for (int k = 0; k < 6; k++) { snprintf(a, sizeof a, pat, k); unlink(a); }
        const char *m[] = { "render", scene, "--backend", "cpu", "--width", "24", "--height", "24", "--spp", "3",
                            "--frames", runs[r].range, "-o", pat, NULL };
        const int code = run_mpi(runs[r].np, NULL, m, err, sizeof err);
        if (code) fail_msg("mpirun -np %d --frames %s exited %d: %s", runs[r].np, runs[r].range, code, err);
        for (int k = 0; k < 6; k++) {
            snprintf(a, sizeof a, plain, k);
            snprintf(b, sizeof b, pat, k);
            if (k >= runs[r].lo && k <= runs[r].hi) sr_test_assert_same_file(a, b);
            else assert_false(sr_test_file_exists(b));
        }
    }
}

static void test_bad_scene_said_once(void **state)
{
    (void)state;
    char scene[512], out[512], err[16384];
    sr_test_write_file(scene, sizeof scene, "mpi_bad.json",
                       "{ \"camera\": { \"position\": [0, 0, 5], \"look_at\": [0, 0, 0] }, \"materials\": {},\n"
                       "  \"objects\": [ { \"type\": \"sfere\" } ] }");
    sr_test_tmp_path(out, sizeof out, "mpi_bad.png");
    unlink(out);
    const char *args[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    assert_int_equal(run_mpi(3, NULL, args, err, sizeof err), 2);
    if (count(err, "unknown object type") != 1) fail_msg("expected the message once:\n%s", err);
    assert_non_null(strstr(err, "mpi_bad.json:2:"));
    assert_false(sr_test_file_exists(out));
    /* A bad option too. */
    const char *opt[] = { "render", scene, "--spp", "0", "-o", out, NULL };
    assert_int_equal(run_mpi(2, NULL, opt, err, sizeof err), 2);
    if (count(err, "--spp: expected") != 1) fail_msg("expected the message once:\n%s", err);
}

/* Ranks started with another size, spp or scene would sum films that do not match (a smaller
 * one read past its end): rank 0 names the rank and the setting once, exit 2, nothing written. */
static void test_ranks_that_differ_stop(void **state)
{
    (void)state;
    char scene[4096], out[512], err[16384];
    sr_test_source_path(scene, sizeof scene, "scenes/cornell.json");
    sr_test_tmp_path(out, sizeof out, "mpi_differ.png");
    static const struct { const char *opt, *mine, *theirs, *said; } cases[] = {
        { "--width", "32", "16", "its width is 16, rank 0's is 32" },
        { "--width", "32", "48", "its width is 48, rank 0's is 32" },
        { "--spp", "4", "2", "its spp is 2, rank 0's is 4" },
        { "--depth", "3", "2", "its depth is 2, rank 0's is 3" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unlink(out);
        const char *same[] = { "render", scene, "--backend", "cpu", "--width", "32", "--height", "24", "--spp", "4",
                               "--depth", "3", cases[k].opt, cases[k].mine, "-o", out, NULL };
        const char *odd[] = { "render", scene, "--backend", "cpu", "--width", "32", "--height", "24", "--spp", "4",
                              "--depth", "3", cases[k].opt, cases[k].theirs, "-o", out, NULL };
        const char *const *three[] = { same, same, odd };   /* rank 2 differs */
        const int code = run_mpi_each(3, three, err, sizeof err);
        if (code != 2) fail_msg("%s %s on rank 2: exit %d, expected 2:\n%s", cases[k].opt, cases[k].theirs, code, err);
        if (count(err, "rank 2 of 3 would render another frame than rank 0") != 1 || !strstr(err, cases[k].said))
            fail_msg("%s %s on rank 2: expected one message saying \"%s\":\n%s", cases[k].opt, cases[k].theirs,
                     cases[k].said, err);
        assert_false(sr_test_file_exists(out));
    }
    /* Another scene file: the same spheres, one more space. */
    char one[512], other[512];
    sr_test_tmp_path(one, sizeof one, "mpi_spheres.json");
    sr_test_write_sphere_scene(one, 3);
    char *text = sr_test_read_text(one);
    assert_non_null(text);
    sr_test_write_file(other, sizeof other, "mpi_spheres_spaced.json", text);
    FILE *f = fopen(other, "a");
    assert_non_null(f);
    fputc(' ', f);
    fclose(f);
    free(text);
    unlink(out);
    const char *mine[] = { "render", one, "--backend", "cpu", "--width", "16", "--height", "16", "-o", out, NULL };
    const char *theirs[] = { "render", other, "--backend", "cpu", "--width", "16", "--height", "16", "-o", out, NULL };
    const char *const *two[] = { mine, theirs };
    assert_int_equal(run_mpi_each(2, two, err, sizeof err), 2);
    if (count(err, "rank 1 of 2 would render another frame than rank 0: its scene file's bytes differ") != 1)
        fail_msg("expected one message naming the scene file:\n%s", err);
    assert_false(sr_test_file_exists(out));
}

static void test_killed_rank_writes_nothing(void **state)
{
    (void)state;
    char scene[4096], out[512], err[16384];
    sr_test_source_path(scene, sizeof scene, "scenes/cornell.json");
    sr_test_tmp_path(out, sizeof out, "mpi_killed.png");
    unlink(out);
    const char *args[] = { "render", scene, "--backend", "cpu", "--width", "32", "--height", "24", "--spp", "4",
                           "-o", out, NULL };
    const int code = run_mpi(3, "SR_TEST_KILL_RANK=1", args, err, sizeof err);
    if (code == 0) fail_msg("the job passed with a killed rank: %s", err);
    assert_non_null(strstr(err, "rank 1"));
    assert_false(sr_test_file_exists(out));
    assert_int_equal(files_starting("mpi_killed.png"), 0);   /* no temporary left either */
    /* A sequence: the killed rank's frames and rank 0's are not all written; none is half written. */
    char pat[512];
    sr_test_tmp_path(pat, sizeof pat, "mpi_killseq_%02d.png");
    const char *seq[] = { "render", "--backend", "cpu", "--width", "16", "--height", "16", "--spp", "1",
                          "--frames", "0-1", "-o", pat, scene, NULL };
    char orbit[4096];
    sr_test_source_path(orbit, sizeof orbit, "scenes/orbit.json");
    seq[13] = orbit;
    char settings[600];   /* the sequence's settings, written before its frames (commands.md#sequences) */
    snprintf(settings, sizeof settings, "%s.settings", pat);
    unlink(settings);
    assert_true(run_mpi(3, "SR_TEST_KILL_RANK=2", seq, err, sizeof err) != 0);
    assert_int_equal(files_starting("mpi_killseq_") - sr_test_file_exists(settings), 0);
}

/* Run as `mpirun -np 2 test_mpi --film-peer`: rank 0 sums a film of 4096 pixels, rank 1 one of
 * 16, and rank 0 must refuse the smaller one, not read past its end. Exit 2 when refused. */
static int film_peer_main(int argc, char **argv)
{
    sr_error err = { SR_OK, "" };
    if (sr_ranks_init(&argc, &argv, &err)) return 3;
    const size_t n = 3u * (sr_ranks_rank() == 0 ? 4096u : 16u);
    sr_film_sum sum;
    sr_status s = sr_ranks_film_sum_init(&sum, n, &err);
    if (!s) {
        for (size_t i = 0; i < n; i++) sum.v[i] = 1;
        s = sr_ranks_sum_to_root(sum.v, n, &err);
        sr_ranks_film_sum_free(&sum);
    }
    if (sr_ranks_rank() == 0) fprintf(stderr, "film-peer: %s\n", s ? err.msg : "summed");
    sr_ranks_finalize();
    return s ? 2 : 0;
}

#ifdef SR_API_MPI_CLIENT
/* mpirun -np N api_mpi_client ARGS... (include/stencilray.h's MPI calls); its stderr into err. */
static int run_api_client(int np, const char *const *args, char *err, size_t cap)
{
    char npt[16];
    snprintf(npt, sizeof npt, "%d", np);
    const char *argv[32];
    size_t n = mpirun_head(argv);
    argv[n++] = "-np";
    argv[n++] = npt;
    argv[n++] = SR_API_MPI_CLIENT;
    for (size_t i = 0; args[i] && n < 30; i++) argv[n++] = args[i];
    argv[n] = NULL;
    return run_mpirun(argv, NULL, err, cap);
}

/* The API shares a frame over ranks as render does: 1, 2 and 3 ranks give the same float film
 * (rank 0's; the others hold none); ranks asking for other frames are refused on every rank. */
static void test_api_ranks(void **state)
{
    (void)state;
    char scene[4096], one[512], out[512], err[16384];
    sr_test_source_path(scene, sizeof scene, "scenes/cornell.json");
    sr_test_tmp_path(one, sizeof one, "mpi_api_1.exr");
    unlink(one);
    const char *args[] = { scene, one, NULL };
    int code = run_api_client(1, args, err, sizeof err);
    if (code) fail_msg("mpirun -np 1 api_mpi_client exited %d: %s", code, err);
    for (int np = 2; np <= 3; np++) {
        char name[64];
        snprintf(name, sizeof name, "mpi_api_%d.exr", np);
        sr_test_tmp_path(out, sizeof out, name);
        unlink(out);
        args[1] = out;
        code = run_api_client(np, args, err, sizeof err);
        if (code) fail_msg("mpirun -np %d api_mpi_client exited %d: %s", np, code, err);
        sr_test_assert_same_file(one, out);
    }
    /* rank 1 asks for another width: every rank refuses the render, nothing is written */
    sr_test_tmp_path(out, sizeof out, "mpi_api_differ.exr");
    unlink(out);
    const char *argv[32];
    size_t n = mpirun_head(argv);
    const char *tail[] = { "-np", "1", SR_API_MPI_CLIENT, scene, out, "40", ":", "-np", "1", SR_API_MPI_CLIENT, scene,
                           out, "48", NULL };
    for (size_t i = 0; tail[i]; i++) argv[n++] = tail[i];
    argv[n] = NULL;
    code = run_mpirun(argv, NULL, err, sizeof err);
    if (code != SR_RESULT_INPUT_ERROR || count(err, "do not render the same frame") != 2 || !strstr(err, "width"))
        fail_msg("expected both ranks to refuse (exit 2) and rank 0 to name the width, got %d:\n%s", code, err);
    assert_int_equal(access(out, F_OK), -1);
}
#endif

static void test_peer_film_of_another_size(void **state)
{
    (void)state;
    char self[4096], err[16384];
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(len > 0);
    self[len] = '\0';
    const char *argv[16];
    size_t n = mpirun_head(argv);
    argv[n++] = "-np";
    argv[n++] = "2";
    argv[n++] = self;
    argv[n++] = "--film-peer";
    argv[n] = NULL;
    const int code = run_mpirun(argv, NULL, err, sizeof err);
    if (code != 2 || !strstr(err, "film-peer: the ranks' films differ in size"))
        fail_msg("expected rank 0 to refuse rank 1's smaller film (exit 2), got %d:\n%s", code, err);
}
#endif

int main(int argc, char **argv)
{
#ifndef SR_MPIEXEC
    printf("built without MPI (-DSR_WITH_MPI=ON builds it): skipped\n");
    (void)argc;
    (void)argv;
    return 77;
#else
    if (argc > 1 && !strcmp(argv[1], "--film-peer")) return film_peer_main(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranks_give_the_plain_bytes),
        cmocka_unit_test(test_sequences_under_mpi),
        cmocka_unit_test(test_bad_scene_said_once),
        cmocka_unit_test(test_killed_rank_writes_nothing),
        cmocka_unit_test(test_ranks_that_differ_stop),
        cmocka_unit_test(test_peer_film_of_another_size),
#ifdef SR_API_MPI_CLIENT
        cmocka_unit_test(test_api_ranks),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
