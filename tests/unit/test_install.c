/* `cmake --install` of this build, then the installed binary run from another folder: it
 * finds its default scene, scenes and shaders beside itself (../share/stencilray), not in the
 * source tree, and `render` with no scene writes a valid PNG there.
 *
 * Everything is written under tmp/install/: the install goes to a DESTDIR there (so even an
 * install rule with an absolute destination could not reach the real file system), and the
 * installed binary runs in tmp/install/elsewhere. The one exception is CMake's own
 * install_manifest.txt, which `cmake --install` always writes into the build folder. */
#define _XOPEN_SOURCE 700   /* nftw, realpath */
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stb_image.h>

#define PREFIX "/stencilray-prefix"

static char root[PATH_MAX], destdir[PATH_MAX + 16], prefix[PATH_MAX + 48], elsewhere[PATH_MAX + 16];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    return remove(path);
}

/* Run argv[0] (a path) with argv in `cwd`, DESTDIR set to destdir; stdout and stderr into out.
 * Returns the exit code, or -1 if it did not exit normally. */
static int run_in(const char *cwd, const char *const *argv, char *out, size_t cap)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (chdir(cwd) != 0) _exit(97);
        setenv("DESTDIR", destdir, 1);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], (char *const *)argv);
        _exit(98);
    }
    close(fds[1]);
    size_t used = 0;
    ssize_t got;
    char tmp[4096];
    while ((got = read(fds[0], tmp, sizeof tmp)) > 0)
        for (ssize_t i = 0; i < got; i++)
            if (used + 1 < cap) out[used++] = tmp[i];
    out[used] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    printf("  $ (in %s)", cwd);
    for (size_t i = 0; argv[i]; i++) printf(" %s", argv[i]);
    printf("  -> %d\n%s", WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int count_entries(const char *dir)
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

static int setup(void **state)
{
    (void)state;
    sr_test_tmp_path(root, sizeof root, "install");
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);   /* a previous run's */
    snprintf(destdir, sizeof destdir, "%s/destdir", root);
    snprintf(prefix, sizeof prefix, "%s%s", destdir, PREFIX);
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", root);
    if (mkdir(root, 0755) || mkdir(destdir, 0755) || mkdir(elsewhere, 0755)) { perror(root); return -1; }
    char out[65536];
    const char *argv[] = { SR_CMAKE, "--install", SR_BUILD_DIR, "--prefix", PREFIX, NULL };
    return run_in(root, argv, out, sizeof out) == 0 ? 0 : -1;
}

static void test_installed_files(void **state)
{
    (void)state;
    char path[PATH_MAX + 352];
    snprintf(path, sizeof path, "%s/bin/stencilray", prefix);
    assert_int_equal(access(path, X_OK), 0);
    static const char *const data[] = { "shaders/display.vert", "shaders/display.frag", "assets/torus_knot.obj" };
    for (size_t k = 0; k < sizeof data / sizeof data[0]; k++) {
        snprintf(path, sizeof path, "%s/share/stencilray/%s", prefix, data[k]);
        if (access(path, R_OK) != 0) fail_msg("not installed: %s", path);
    }
    /* Every shipped scene. */
    char src[PATH_MAX];
    DIR *d = opendir(sr_test_source_path(src, sizeof src, "scenes"));
    assert_non_null(d);
    struct dirent *e;
    int scenes = 0;
    while ((e = readdir(d))) {
        const size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json")) continue;
        snprintf(path, sizeof path, "%s/share/stencilray/scenes/%s", prefix, e->d_name);
        if (access(path, R_OK) != 0) fail_msg("not installed: %s", path);
        scenes++;
    }
    closedir(d);
    assert_true(scenes >= 6);
    /* Nothing escaped the prefix into the rest of DESTDIR. */
    assert_int_equal(count_entries(destdir), 1);
}

static void test_render_default_scene_from_elsewhere(void **state)
{
    (void)state;
    char exe[PATH_MAX + 96], out[65536];
    snprintf(exe, sizeof exe, "%s/bin/stencilray", prefix);
    const char *argv[] = { exe, "render", "--backend", "cpu", "--width", "40", "--height", "24", "--spp", "1", NULL };
    assert_int_equal(run_in(elsewhere, argv, out, sizeof out), 0);
    char png[PATH_MAX + 48];
    snprintf(png, sizeof png, "%s/render.png", elsewhere);
    int w = 0, h = 0, comp = 0;
    unsigned char *pixels = stbi_load(png, &w, &h, &comp, 0);
    if (!pixels) fail_msg("%s: not a PNG stb_image can read: %s", png, stbi_failure_reason());
    FILE *f = fopen(png, "rb");
    unsigned char sig[8] = { 0 };
    assert_non_null(f);
    assert_int_equal(fread(sig, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(sig, "\x89PNG\r\n\x1a\n", 8);
    assert_int_equal(w, 40);
    assert_int_equal(h, 24);
    /* Not a blank frame: the default scene has a checker floor and a sky. */
    int lo = 255, hi = 0;
    for (int i = 0; i < w * h * comp; i++) {
        if (pixels[i] < lo) lo = pixels[i];
        if (pixels[i] > hi) hi = pixels[i];
    }
    stbi_image_free(pixels);
    assert_true(hi - lo > 64);
    assert_int_equal(count_entries(elsewhere), 1);   /* render.png and nothing else */
    remove(png);
}

/* `info` says where the data is: the installed copy, not the source tree it was built from. */
static void test_info_and_help_from_elsewhere(void **state)
{
    (void)state;
    char exe[PATH_MAX + 96], out[65536], want[PATH_MAX + 16], share[PATH_MAX + 96], real[PATH_MAX];
    snprintf(exe, sizeof exe, "%s/bin/stencilray", prefix);
    snprintf(share, sizeof share, "%s/share/stencilray", prefix);
    assert_non_null(realpath(share, real));
    snprintf(want, sizeof want, "  data: %s\n", real);
    const char *info[] = { exe, "info", NULL };
    assert_int_equal(run_in(elsewhere, info, out, sizeof out), 0);
    if (!strstr(out, want)) fail_msg("expected '%s' in:\n%s", want, out);
    const char *help[] = { exe, "render", "--help", NULL };
    assert_int_equal(run_in(elsewhere, help, out, sizeof out), 0);
    assert_non_null(strstr(out, "Usage: stencilray render"));
    assert_int_equal(count_entries(elsewhere), 0);
}

/* Each installed scene loads and renders from its installed place: what it pulls in (the
 * torus knot) was installed with it. */
static void test_installed_scenes_render(void **state)
{
    (void)state;
    char dir[PATH_MAX + 96], exe[PATH_MAX + 96], out[65536];
    snprintf(exe, sizeof exe, "%s/bin/stencilray", prefix);
    snprintf(dir, sizeof dir, "%s/share/stencilray/scenes", prefix);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char scene[PATH_MAX + 384];
        snprintf(scene, sizeof scene, "%s/%s", dir, e->d_name);
        const char *argv[] = { exe, "render", scene, "--backend", "cpu", "--width", "16", "--height", "9",
                               "--spp", "1", "--depth", "2", "-q", "-o", "x.png", NULL };
        if (run_in(elsewhere, argv, out, sizeof out) != 0) fail_msg("%s: %s", e->d_name, out);
    }
    closedir(d);
    char png[PATH_MAX + 48];
    snprintf(png, sizeof png, "%s/x.png", elsewhere);
    assert_int_equal(remove(png), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_installed_files),
        cmocka_unit_test(test_render_default_scene_from_elsewhere),
        cmocka_unit_test(test_info_and_help_from_elsewhere),
        cmocka_unit_test(test_installed_scenes_render),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
