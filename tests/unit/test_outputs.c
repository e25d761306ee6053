/* Output paths are checked before any work and never replace what they should not: the
 * scene itself (by name or through a hard link), the files its meshes read, a directory, a symbolic link, a missing
 * folder for the benchmark's files; '-' writes the benchmark's CSV or JSON to standard output.
 * Each refusal exits 2 and leaves every file as it was. */
#include "testutil.h"
#include "../../src/io/images/image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[1024];

static void copy_scene(const char *to)
{
    char src[1024], buf[4096];
    sr_test_source_path(src, sizeof src, "scenes/default.json");
    FILE *in = fopen(src, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0) assert_int_equal(fwrite(buf, 1, got, out), got);
    fclose(in);
    fclose(out);
}

static long file_size(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void expect_refused(const char *const *argv, const char *what)
{
    char err[8192];
    const int code = sr_test_run_cli(argv, err, sizeof err);
    if (code != 2 || !strstr(err, what)) fail_msg("exit %d, expected 2 and \"%s\"; it printed:\n%s", code, what, err);
}

static void test_render_output_is_not_an_input(void **state)
{
    (void)state;
    char scene[1100], hard_path[1100];
    snprintf(scene, sizeof scene, "%s/scene.png", dir);   /* a JSON scene with an image's name */
    copy_scene(scene);
    const long size = file_size(scene);
    const char *same[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", scene, NULL };
    expect_refused(same, "which this run reads");
    snprintf(hard_path, sizeof hard_path, "%s/hard.png", dir);
    remove(hard_path);
    assert_int_equal(link(scene, hard_path), 0);
    const char *hard[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", hard_path, NULL };
    expect_refused(hard, "which this run reads");
    assert_int_equal(file_size(scene), size);   /* the scene is untouched */
}

static void test_render_output_kinds(void **state)
{
    (void)state;
    char scene[1100], d[1100], sym[1100], target[1100], missing[1100];
    snprintf(scene, sizeof scene, "%s/s.json", dir);
    copy_scene(scene);
    snprintf(d, sizeof d, "%s/folder.png", dir);
    mkdir(d, 0755);
    const char *to_dir[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", d, NULL };
    expect_refused(to_dir, "a directory");
    snprintf(target, sizeof target, "%s/target.png", dir);
    snprintf(sym, sizeof sym, "%s/sym.png", dir);
    remove(sym);
    assert_int_equal(symlink(target, sym), 0);
    const char *to_sym[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", sym, NULL };
    expect_refused(to_sym, "a symbolic link");
    struct stat st;
    assert_int_equal(lstat(sym, &st), 0);
    assert_true(S_ISLNK(st.st_mode));   /* still a link, not replaced by a file */
    const char *to_dev[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", "/dev/null",
                             NULL };
    char err[8192];
    assert_int_equal(sr_test_run_cli(to_dev, err, sizeof err), 2);   /* no image extension, or a device */
    snprintf(missing, sizeof missing, "%s/no/such/folder/x.png", dir);
    const char *to_missing[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", missing,
                                 NULL };
    expect_refused(to_missing, "does not exist");
}

static void test_bench_outputs_checked_first(void **state)
{
    (void)state;
    char scene[1100], missing[1100], d[1100], err[8192];
    snprintf(scene, sizeof scene, "%s/b.json", dir);
    copy_scene(scene);
    snprintf(missing, sizeof missing, "%s/no/such/t.csv", dir);
    const char *csv[] = { "bench", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--depth", "1",
                          "--frames", "1", "--csv", missing, NULL };
    expect_refused(csv, "does not exist");
    snprintf(d, sizeof d, "%s/plotdir.png", dir);
    mkdir(d, 0755);
    const char *plot[] = { "bench", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--depth", "1",
                           "--frames", "1", "--plot", d, NULL };
    expect_refused(plot, "a directory");
    const char *json_in[] = { "bench", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--depth", "1",
                              "--frames", "1", "--json", scene, NULL };
    expect_refused(json_in, "which this run reads");
    const char *stdout_json[] = { "bench", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--depth", "1",
                                  "--frames", "1", "--warmup", "0", "--mask", "stencil", "--json", "-", "-q", NULL };
    assert_int_equal(sr_test_run_cli(stdout_json, err, sizeof err), 0);
    assert_int_equal(file_size("-"), -1);   /* no file named '-' */
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* The file's bytes equal `text` (it was neither replaced nor touched). */
static void expect_unchanged(const char *path, const char *text)
{
    char buf[1024] = "";
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    const size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    assert_string_equal(buf, text);
}

static const char mesh_text[] = "mtllib the.mtl look.png\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
static const char mtl_text[] = "newmtl a\nKd 0.8 0.8 0.8\n";
static const char gltf_text[] = "{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [{\"uri\": \"tri.bin\", \"byteLength\": 4}]}\n";

/* The files a scene's meshes read (the mesh, its mtllib files, a glTF's buffers) are inputs
 * too: naming one as an output, or a hard link to one, is refused with exit 2 before
 * anything is imported or rendered, and the file is left as it was. */
static void test_outputs_are_not_mesh_inputs(void **state)
{
    (void)state;
    char scene[1100], mesh[1100], mtl[1100], look[1100], gltf[1100], bin[1100], hard[1100];
    snprintf(scene, sizeof scene, "%s/meshes.json", dir);
    snprintf(mesh, sizeof mesh, "%s/mesh.obj", dir);
    snprintf(mtl, sizeof mtl, "%s/the.mtl", dir);
    snprintf(look, sizeof look, "%s/look.png", dir);   /* an mtllib with an image's name */
    snprintf(gltf, sizeof gltf, "%s/tri.gltf", dir);
    snprintf(bin, sizeof bin, "%s/tri.bin", dir);
    snprintf(hard, sizeof hard, "%s/mesh-link.png", dir);
    write_text(mesh, mesh_text);
    write_text(mtl, mtl_text);
    write_text(look, mtl_text);
    write_text(gltf, gltf_text);
    write_text(bin, "abcd");
    remove(hard);
    assert_int_equal(link(mesh, hard), 0);
    /* The glTF comes first: an output that is the OBJ is refused before the glTF is imported. */
    write_text(scene, "{\"camera\": {\"position\": [0, 0, 5], \"look_at\": [0, 0, 0]},\n"
                      " \"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.8, 0.8, 0.8]}},\n"
                      " \"objects\": [{\"type\": \"mesh\", \"file\": \"tri.gltf\", \"material\": \"m\"},\n"
                      "             {\"type\": \"mesh\", \"file\": \"mesh.obj\", \"material\": \"m\"}]}\n");
#define SR_RENDER(OUT) { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", OUT, NULL }
#define SR_BENCH(OPT, OUT) { "bench", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--depth", "1", \
                             "--frames", "1", OPT, OUT, NULL }
    const char *render_mesh[] = SR_RENDER(mesh);   /* refused for its extension already */
    expect_refused(render_mesh, "-o");
    const char *render_mtl[] = SR_RENDER(mtl);
    expect_refused(render_mtl, "-o");
    const char *render_link[] = SR_RENDER(hard);   /* the OBJ under another name */
    expect_refused(render_link, "mesh.obj is also the output (-o");
    const char *render_look[] = SR_RENDER(look);   /* the OBJ's second mtllib */
    expect_refused(render_look, "look.png, which is also the output (-o");
    const char *csv_mesh[] = SR_BENCH("--csv", mesh);
    expect_refused(csv_mesh, "mesh.obj is also the output (--csv");
    const char *json_mtl[] = SR_BENCH("--json", mtl);
    expect_refused(json_mtl, "the.mtl, which is also the output (--json");
    const char *csv_bin[] = SR_BENCH("--csv", bin);   /* a glTF buffer */
    expect_refused(csv_bin, "tri.bin, which is also the output (--csv");
#undef SR_RENDER
#undef SR_BENCH
    expect_unchanged(mesh, mesh_text);
    expect_unchanged(mtl, mtl_text);
    expect_unchanged(look, mtl_text);
    expect_unchanged(bin, "abcd");
    expect_unchanged(gltf, gltf_text);
    assert_int_equal(file_size(hard), (long)strlen(mesh_text));
}

/* --save-partial writes OUT.partial-<N>spp.png, N known only when interrupted: a texture, or
 * the scene itself, with such a name beside OUT is refused before anything is rendered (the
 * partial image replaced it: -o and --stats were checked, the partial's names were not). */
static void test_partial_names_are_not_inputs(void **state)
{
    (void)state;
    char tex[1100], scene[1100], out[1100], named[1100], err[8192];
    snprintf(tex, sizeof tex, "%s/out.partial-54spp.png", dir);
    snprintf(scene, sizeof scene, "%s/partial_tex.json", dir);
    snprintf(out, sizeof out, "%s/out.png", dir);
    remove(out);
    const uint8_t px[2 * 2 * 3] = { 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255 };
    sr_error e = { SR_OK, "" };
    assert_int_equal(sr_image_write_png8(tex, px, 2, 2, &e), SR_OK);
    const long tex_size = file_size(tex);
    write_text(scene, "{\"camera\": {\"position\": [0, 0, 5], \"look_at\": [0, 0, 0]},\n"
                      " \"materials\": {\"m\": {\"type\": \"pbr\", \"base_color\": {\"texture\": \"out.partial-54spp.png\"}}},\n"
                      " \"objects\": [{\"type\": \"quad\", \"corner\": [-1, -1, 0], \"edge_u\": [2, 0, 0], \"edge_v\": [0, 2, 0],"
                      " \"material\": \"m\"}]}\n");
    const char *plain[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--spp", "1",
                            "-o", out, NULL };
    const int ok = sr_test_run_cli(plain, err, sizeof err);   /* without --save-partial: nothing to refuse */
    if (ok != 0) fail_msg("exit %d without --save-partial; it printed:\n%s", ok, err);
    remove(out);
    const char *partial[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--spp", "1",
                              "-o", out, "--save-partial", NULL };
    expect_refused(partial, "out.partial-54spp.png is also the output (--save-partial");
    assert_int_equal(file_size(out), -1);   /* nothing rendered or written */
    assert_int_equal(file_size(tex), tex_size);
    /* The scene itself with a partial's name (a JSON scene named like an image). */
    snprintf(named, sizeof named, "%s/out.partial-7spp.png", dir);
    copy_scene(named);
    const char *self[] = { "render", named, "--backend", "cpu", "--width", "8", "--height", "8", "-o", out,
                           "--save-partial", NULL };
    expect_refused(self, "is also the output (--save-partial");
    char *text = sr_test_read_text(named);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"camera\""));   /* still the scene */
    free(text);
    remove(named);
    remove(tex);
}

/* stencilray ARGS with standard output on /dev/full: the exit status. */
static int run_to_dev_full(const char *const *args)
{
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const int full = open("/dev/full", O_WRONLY), null = open("/dev/null", O_WRONLY);
        if (full < 0 || null < 0) _exit(99);
        dup2(full, 1);
        dup2(null, 2);
        const char *argv[16] = { SR_CLI };
        for (int k = 0; args[k] && k < 14; k++) argv[k + 1] = args[k];
        execv(SR_CLI, (char *const *)argv);
        _exit(98);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* stencilray ARGS with standard output on /dev/full: the exit status, and stderr in err. */
static int run_to_dev_full_err(const char *const *args, char *err, size_t cap)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const int full = open("/dev/full", O_WRONLY);
        if (full < 0) _exit(99);
        dup2(full, 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        const char *argv[24] = { SR_CLI };
        for (int k = 0; args[k] && k < 22; k++) argv[k + 1] = args[k];
        execv(SR_CLI, (char *const *)argv);
        _exit(98);
    }
    close(fds[1]);
    size_t used = 0;
    ssize_t got;
    while ((got = read(fds[0], err + used, cap - 1 - used)) > 0 && used + 1 < cap) used += (size_t)got;
    err[used] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++) n += *text == '\n';
    return n;
}

/* The image written, standard output full (/dev/full): the summary line nobody asked for is
 * lost with one warning and exit 0 (it was exit 1: only a closed pipe was exempt); the JSON
 * that --stats - asked for is lost with one message naming the real reason and exit 1 (a
 * second message said "could not write to standard output: Success"). */
static void test_full_stdout_after_the_image(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0) skip();
    char scene[1100], out[1100], err[8192];
    snprintf(scene, sizeof scene, "%s/full.json", dir);
    snprintf(out, sizeof out, "%s/full.png", dir);
    copy_scene(scene);
    remove(out);
    const char *summary[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--spp", "1",
                              "-o", out, NULL };
    int code = run_to_dev_full_err(summary, err, sizeof err);
    printf("  summary line on /dev/full: exit %d\n%s", code, err);
    assert_int_equal(code, 0);
    assert_true(file_size(out) > 0);
    assert_non_null(strstr(err, "summary line"));
    assert_non_null(strstr(err, "No space left on device"));
    assert_int_equal(count_lines(err), 2);   /* the backend's line and the warning */
    remove(out);
    const char *json[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--spp", "1",
                           "-o", out, "--stats", "-", NULL };
    code = run_to_dev_full_err(json, err, sizeof err);
    printf("  --stats - on /dev/full: exit %d\n%s", code, err);
    assert_int_equal(code, 1);
    assert_true(file_size(out) > 0);   /* the image was written all the same */
    assert_non_null(strstr(err, "No space left on device"));
    assert_null(strstr(err, "Success"));
    assert_int_equal(count_lines(err), 3);   /* the backend's line, the summary line (stderr), the error */
}

/* Output that could not be written is a failure, not a silent success. */
static void test_lost_stdout_is_an_error(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0) skip();
    const char *info[] = { "info", NULL };
    assert_int_equal(run_to_dev_full(info), 1);
    const char *help[] = { "render", "--help", NULL };
    assert_int_equal(run_to_dev_full(help), 1);
    char scene[1100];
    snprintf(scene, sizeof scene, "%s/t.json", dir);
    copy_scene(scene);
    const char *table[] = { "bench", scene, "--backend", "cpu", "--width", "8", "--height", "8", "--depth", "1",
                            "--frames", "1", "--warmup", "0", "--mask", "stencil", NULL };
    assert_int_equal(run_to_dev_full(table), 1);
}

int main(void)
{
    sr_test_tmp_path(dir, sizeof dir, "outputs");
    mkdir(dir, 0755);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_output_is_not_an_input),
        cmocka_unit_test(test_render_output_kinds),
        cmocka_unit_test(test_bench_outputs_checked_first),
        cmocka_unit_test(test_outputs_are_not_mesh_inputs),
        cmocka_unit_test(test_lost_stdout_is_an_error),
        cmocka_unit_test(test_partial_names_are_not_inputs),
        cmocka_unit_test(test_full_stdout_after_the_image),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
