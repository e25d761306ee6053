/* hardutil.h: running the real binary the way the hardening tests need: with
 * extra environment variables, a time limit (a hang is a failure, not a stuck CI job), and
 * a handle to signal it. Header-only: test_limits.c, test_faults.c, test_gpu_faults.c and
 * test_interrupt.c include it after testutil.h. */
#ifndef SR_HARDUTIL_H
#define SR_HARDUTIL_H

#include "testutil.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct sr_child {
    pid_t pid;
    int err_fd;          /* the child's stderr (non-blocking)                 */
    char err[16384];     /* what it printed (the newest 8 to 16 KiB of it)    */
    size_t err_len;
} sr_child;

static double sr_hard_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Start SR_CLI with argv (NULL-terminated, without the program name) and env entries
 * ("NAME=value", NULL-terminated, may be NULL) added to the environment; its standard
 * output goes to out_fd, or to /dev/null when out_fd < 0. */
static void sr_hard_spawn_out(sr_child *c, const char *const *argv, const char *const *env, int out_fd)
{
    int fds[2];
    if (pipe(fds) != 0) { perror("pipe"); abort(); }
    memset(c, 0, sizeof *c);
    c->pid = fork();
    if (c->pid < 0) { perror("fork"); abort(); }
    if (c->pid == 0) {
        const char *args[64];
        size_t n = 0;
        args[n++] = SR_CLI;
        for (size_t i = 0; argv[i] && n < 63; i++) args[n++] = argv[i];
        args[n] = NULL;
        for (size_t i = 0; env && env[i]; i++) {
            char name[128];
            const char *eq = strchr(env[i], '=');
            if (!eq || (size_t)(eq - env[i]) >= sizeof name) continue;
            memcpy(name, env[i], (size_t)(eq - env[i]));
            name[eq - env[i]] = '\0';
            setenv(name, eq + 1, 1);
        }
        dup2(out_fd >= 0 ? out_fd : open("/dev/null", O_WRONLY), 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execv(SR_CLI, (char *const *)args);
        _exit(127);
    }
    close(fds[1]);
    c->err_fd = fds[0];
    fcntl(c->err_fd, F_SETFL, O_NONBLOCK);
}

static void sr_hard_spawn(sr_child *c, const char *const *argv, const char *const *env)
{
    sr_hard_spawn_out(c, argv, env, -1);
}

static void sr_hard_drain(sr_child *c, int wait_ms)
{
    struct pollfd p = { c->err_fd, POLLIN, 0 };
    if (c->err_fd < 0 || poll(&p, 1, wait_ms) <= 0) return;
    char tmp[4096];
    ssize_t got;
    while ((got = read(c->err_fd, tmp, sizeof tmp)) > 0)
        for (ssize_t i = 0; i < got; i++) {
            if (c->err_len + 1 >= sizeof c->err) {   /* keep the newest half: the last lines matter */
                memmove(c->err, c->err + sizeof c->err / 2, c->err_len - sizeof c->err / 2);
                c->err_len -= sizeof c->err / 2;
            }
            c->err[c->err_len++] = tmp[i];
        }
    c->err[c->err_len] = '\0';
    if (got == 0) { close(c->err_fd); c->err_fd = -1; }
}

/* Wait at most timeout_s for the child to exit, reading its stderr meanwhile. Returns its
 * exit code, SR_KILLED_BY + the signal that killed it (so that dying of SIGINT is not
 * mistaken for exiting with 130), or -2 when it ran out of time (it is then killed). */
#define SR_KILLED_BY 1000
static int sr_hard_wait(sr_child *c, double timeout_s)
{
    const double t0 = sr_hard_now();
    int status = 0, done = 0;
    for (;;) {
        pid_t w = waitpid(c->pid, &status, WNOHANG);
        if (w == c->pid) { done = 1; break; }
        if (sr_hard_now() - t0 > timeout_s) break;
        sr_hard_drain(c, 20);
        if (c->err_fd < 0) {
            struct timespec ten_ms = { 0, 10000000 };
            nanosleep(&ten_ms, NULL);
        }
    }
    if (!done) {
        kill(c->pid, SIGKILL);
        waitpid(c->pid, &status, 0);
    }
    while (c->err_fd >= 0) sr_hard_drain(c, 100);
    if (!done) return -2;
    return WIFEXITED(status) ? WEXITSTATUS(status) : SR_KILLED_BY + WTERMSIG(status);
}

/* Run to completion within timeout_s; stderr into c->err. */
static int sr_hard_run(sr_child *c, const char *const *argv, const char *const *env, double timeout_s)
{
    sr_hard_spawn(c, argv, env);
    int code = sr_hard_wait(c, timeout_s);
    printf("  $ stencilray");
    for (size_t i = 0; argv[i]; i++) printf(" %s", argv[i]);
    printf("  -> %d\n%s", code, c->err);
    return code;
}

/* A fresh empty folder tmp/<name>/ (emptied if it exists). */
static const char *sr_hard_fresh_dir(char *buf, size_t cap, const char *name)
{
    sr_test_tmp_path(buf, cap, name);
    DIR *d = opendir(buf);
    if (d) {
        struct dirent *e;
        char p[PATH_MAX + 256];   /* room for the folder and a d_name (256 at most) */
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                if (snprintf(p, sizeof p, "%s/%s", buf, e->d_name) < (int)sizeof p) unlink(p);
            }
        closedir(d);
    } else if (mkdir(buf, 0755) != 0) {
        perror(buf);
        abort();
    }
    return buf;
}

/* How many entries (files) a folder has, . and .. aside. */
static int sr_hard_count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

/* Render into a fresh folder `folder` that already holds an old out.png: `stencilray ARGS...
 * -o DIR/out.png EXTRA...` (both NULL-terminated; ARGS begins with "render") with `env`
 * added. Expect exit `code` within timeout_s, every string of `expect` in stderr, and the old
 * file unchanged and alone in the folder (no temp file left either). */
static void sr_hard_expect_failed_render(const char *folder, const char *const *args, const char *const *extra,
                                         const char *const *env, double timeout_s, int code, const char *const *expect)
{
    char dir[1024], out[1100];
    sr_hard_fresh_dir(dir, sizeof dir, folder);
    snprintf(out, sizeof out, "%s/out.png", dir);
    FILE *f = fopen(out, "w");
    assert_non_null(f);
    fputs("old image", f);
    fclose(f);
    const char *argv[48];
    size_t n = 0;
    const size_t room = sizeof argv / sizeof argv[0] - 3;   /* -o, out, NULL */
    for (size_t i = 0; args[i] && n < room; i++) argv[n++] = args[i];
    argv[n++] = "-o";
    argv[n++] = out;
    for (size_t i = 0; extra && extra[i] && n + 1 < sizeof argv / sizeof argv[0]; i++) argv[n++] = extra[i];
    argv[n] = NULL;
    sr_child c;
    int got = sr_hard_run(&c, argv, env, timeout_s);   /* -2: it hung */
    if (got != code) fail_msg("%s: exit %d, expected %d; it printed:\n%s", env && env[0] ? env[0] : folder, got, code, c.err);
    for (size_t i = 0; expect[i]; i++)
        if (!strstr(c.err, expect[i]))
            fail_msg("%s: expected \"%s\" in:\n%s", env && env[0] ? env[0] : folder, expect[i], c.err);
    assert_int_equal(sr_hard_count_files(dir), 1);
    char buf[32] = "";
    f = fopen(out, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "old image");
}

#endif
