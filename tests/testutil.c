#include "testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *sr_test_tmp_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", SR_TEST_TMP, name);
    return buf;
}

const char *sr_test_source_path(char *buf, size_t cap, const char *rel)
{
    snprintf(buf, cap, "%s/%s", SR_SOURCE_DIR, rel);
    return buf;
}

const char *sr_test_write_file(char *buf, size_t cap, const char *name, const char *text)
{
    sr_test_tmp_path(buf, cap, name);
    FILE *f = fopen(buf, "wb");
    if (!f) { perror(buf); abort(); }
    fputs(text, f);
    fclose(f);
    return buf;
}

int sr_test_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int sr_test_run_cli(const char *const *argv, char *err_out, size_t cap)
{
    int fds[2];
    if (pipe(fds) != 0) { perror("pipe"); abort(); }
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); abort(); }
    if (pid == 0) {
        const char *args[64];
        size_t n = 0;
        args[n++] = SR_CLI;
        for (; argv[n - 1] && n < 63; n++) args[n] = argv[n - 1];
        args[n] = NULL;
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(fds[1], 2);
        close(fds[0]);
        execv(SR_CLI, (char *const *)args);
        _exit(127);
    }
    close(fds[1]);
    size_t used = 0;
    for (;;) {
        char tmp[4096];
        ssize_t got = read(fds[0], tmp, sizeof tmp);
        if (got <= 0) break;
        for (ssize_t i = 0; i < got && used + 1 < cap; i++) err_out[used++] = tmp[i];
    }
    if (cap) err_out[used < cap ? used : cap - 1] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void sr_test_parse(const char *name, const char *json, sr_scene *out)
{
    sr_error err = { SR_OK, "" };
    sr_status st = sr_scene_parse(name, json, strlen(json), out, &err);
    if (st) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, SR_OK);
}

float *sr_test_render(const sr_scene *scene, sr_backend_kind kind, sr_mask mask, float compact_below,
                      uint32_t seed, sr_render_stats *stats)
{
    sr_error err = { SR_OK, "" };
    sr_backend be;
    if (kind == SR_BACKEND_CUDA) {
        char why[256];
        if (sr_cuda_device_count(why, sizeof why) <= 0) return NULL;
    }
    sr_status st = sr_backend_create(kind, 0, &be, NULL, 0, &err);
    if (st) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, SR_OK);
    sr_renderer r;
    st = sr_renderer_init(&r, scene, &be, &err);
    if (st) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, SR_OK);
    float *rgb = malloc(sizeof(float) * 3u * scene->width * scene->height);
    assert_non_null(rgb);
    sr_render_opts o;
    sr_render_opts_default(&o);
    o.mask = mask;
    o.seed = seed;
    o.compact_below = compact_below;
    st = sr_render_image(&r, &o, rgb, stats, &err);
    if (st) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, SR_OK);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    return rgb;
}

int sr_test_gpu_start(int argc, char **argv)
{
    char why[512];
    if (sr_cuda_device_count(why, sizeof why) <= 0) {
        printf("skipped: %s\n", why);
        return 77;
    }
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    return 0;
}
