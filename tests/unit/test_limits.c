/* test_limits.c: absurd sizes are refused before anything large is allocated, with the
 * numbers (needed vs available), exit code 2, and nothing written. The host's
 * free memory is simulated with $SR_HOST_MEM_LIMIT so that the outcome does not depend on
 * the machine; one test also uses the machine's real MemAvailable when it is small enough. */
#define _DEFAULT_SOURCE   /* wait4: one child's own peak memory */
#include "testutil.h"
#include "hardutil.h"
#include "../../src/base/mem_limits.h"
#include "../../kernels/frames/wave.h"

#include <math.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <stb_image_write.h>

#define SCENE_JSON(objects) \
    "{\"camera\": {\"position\": [0, 0, 5], \"look_at\": [0, 0, 0]},\n" \
    " \"image\": {\"width\": 32, \"height\": 18, \"spp\": 1},\n" \
    " \"materials\": {\"m\": {\"type\": \"diffuse\"}},\n" \
    " \"objects\": [" objects "]}\n"

/* The number before `unit` after `key` in text (e.g. "needs 34.0 GiB" -> 34.0), or NAN. */
static double number_after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    return p ? strtod(p + strlen(key), NULL) : NAN;
}

/* Run; expect exit 2, every string of `expect` in stderr and nothing in `dir`. */
static void render_refused_c(sr_child *c, const char *const *argv, const char *const *env, const char *dir,
                             const char *const *expect)
{
    int code = sr_hard_run(c, argv, env, 120.0);
    assert_int_equal(code, 2);
    for (size_t i = 0; expect && expect[i]; i++) {
        if (!strstr(c->err, expect[i])) fail_msg("expected \"%s\" in:\n%s", expect[i], c->err);
    }
    if (dir) assert_int_equal(sr_hard_count_files(dir), 0);   /* no image, no temp file */
}

static void render_refused(const char *const *argv, const char *const *env, const char *dir, const char *const *expect)
{
    static sr_child c;
    render_refused_c(&c, argv, env, dir, expect);
}

/* Parsing a scene is budgeted before it starts: 20 000 spheres (about 1.5 MB of JSON) under a
 * 10 MB limit are refused with both figures, where the parse used to run past the limit. */
static void test_scene_parse_over_memory_limit(void **state)
{
    (void)state;
    char dir[1024], in[1024], scene[1100], out[1100];
    sr_hard_fresh_dir(dir, sizeof dir, "limits_parse");
    sr_hard_fresh_dir(in, sizeof in, "limits_parse_in");
    snprintf(scene, sizeof scene, "%s/many.json", in);
    snprintf(out, sizeof out, "%s/many.png", dir);
    sr_test_write_sphere_scene(scene, 20000);
    const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-o", out, NULL };
    const char *env[] = { "SR_HOST_MEM_LIMIT=10M", NULL };
    const char *expect[] = { "parsing scene file", "about 16x its size", "only 10.0 MiB are available", NULL };
    static sr_child c;
    render_refused_c(&c, argv, env, dir, expect);
}

/* 16384 x 16384 on the CPU: ~112 B per pixel of pool and film, plus the image and its PNG. */
static void test_resolution_over_memory_limit(void **state)
{
    (void)state;
    char dir[1024], out[1100];
    sr_hard_fresh_dir(dir, sizeof dir, "limits_big");
    snprintf(out, sizeof out, "%s/big.png", dir);
    const char *argv[] = { "render", "--width", "16384", "--height", "16384", "--backend", "cpu", "-o", out, NULL };
    const char *env[] = { "SR_HOST_MEM_LIMIT=8G", NULL };
    const char *expect[] = { "16384x16384", "needs ", "GiB of host memory", "only 8.0 GiB are available",
                             "$SR_HOST_MEM_LIMIT", "--width", NULL };
    static sr_child c;
    render_refused_c(&c, argv, env, dir, expect);
    /* the figure is the real one: at least the pool's bytes */
    double need = number_after(c.err, "needs ");
    /* (the default scene has glass: a pool with the Whitted split's room, kernels/frames/wave.h) */
    double pool = (double)sr_cpu_pool_bytes(16384, 16384, SR_SPLIT_POOL_FACTOR) / 1073741824.0;
    /* the rest: the BVH, the image and its PNG, and render's fixed-point sums (src/farm: the
     * frame's, the CPU backend's own and the worker's copy of it, 72 B per pixel, 18 GiB here) */
    if (!(need >= pool + 18.0 && need < pool + 28.0)) fail_msg("need %.1f GiB, pool alone %.1f GiB:\n%s", need, pool, c.err);
}

/* Without the simulated limit, on the machine's own MemAvailable: refused if it does not
 * fit here (CI machines and this one: 2 cores, < 32 GiB), otherwise the case is skipped
 * (rendering 16384^2 on the CPU would take hours). */
static void test_resolution_over_real_memory(void **state)
{
    (void)state;
    uint64_t avail = 0;
    char source[96];
    unsetenv("SR_HOST_MEM_LIMIT");
    sr_host_memory_available(&avail, source, sizeof source);
    uint64_t need = sr_cpu_pool_bytes(16384, 16384, SR_SPLIT_POOL_FACTOR) + 16384ull * 16384 * 24;
    if (avail >= need) {
        printf("  skipped: %.1f GiB available here, a 16384x16384 CPU render fits\n", (double)avail / 1073741824.0);
        return;
    }
    char dir[1024], out[1100];
    sr_hard_fresh_dir(dir, sizeof dir, "limits_real");
    snprintf(out, sizeof out, "%s/big.hdr", dir);
    const char *argv[] = { "render", "--width", "16384", "--height", "16384", "--backend", "cpu", "-o", out, NULL };
    const char *expect[] = { "needs ", "of host memory, but only ", source, NULL };
    render_refused(argv, NULL, dir, expect);
}

/* The check must not refuse what fits. */
static void test_small_render_fits(void **state)
{
    (void)state;
    char dir[1024], out[1100];
    sr_hard_fresh_dir(dir, sizeof dir, "limits_small");
    snprintf(out, sizeof out, "%s/small.png", dir);
    const char *argv[] = { "render", "--width", "64", "--height", "36", "--spp", "1", "--backend", "cpu", "-q", "-o", out, NULL };
    const char *env[] = { "SR_HOST_MEM_LIMIT=256M", NULL };
    sr_child c;
    assert_int_equal(sr_hard_run(&c, argv, env, 120.0), 0);
    assert_true(sr_test_file_exists(out));
}

/* Option values out of range: refused by the parser, naming the option and the range. */
static void test_absurd_options(void **state)
{
    (void)state;
    static const char *const cases[][3] = {
        { "--width", "0", "--width" },          { "--width", "16385", "from 1 to 16384" },
        { "--height", "99999999999999999999999", "--height" },
        { "--width", "-5", "--width" },         { "--spp", "0", "--spp" },
        { "--spp", "65537", "from 1 to 65536" }, { "--depth", "0", "--depth" },
        { "--depth", "65", "from 1 to 64" },    { "--depth", "8x", "--depth" },
        { "--exposure", "nan", "--exposure" },  { "--exposure", "inf", "--exposure" },
        { "--exposure", "1e300", "--exposure" }, { "--compact-below", "2", "--compact-below" },
        { "--device", "65", "--device" },       { "--seed", "4294967296", "--seed" },
    };
    char dir[1024], out[1100];
    sr_hard_fresh_dir(dir, sizeof dir, "limits_opts");
    snprintf(out, sizeof out, "%s/o.png", dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[] = { "render", cases[i][0], cases[i][1], "--backend", "cpu", "-o", out, NULL };
        const char *expect[] = { cases[i][2], NULL };
        render_refused(argv, NULL, dir, expect);
    }
}

/* The same limits in a scene file: the message names file:line:column and the key. */
static void test_absurd_scene_values(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        { "\"width\": 100000", "image.width" },
        { "\"height\": 1e12", "image.height" },
        { "\"spp\": 4294967296", "image.spp" },
        { "\"max_depth\": 1000", "image.max_depth" },
        { "\"width\": -1", "image.width" },
    };
    char dir[1024], out[1100], scene[1024], text[1024];
    sr_hard_fresh_dir(dir, sizeof dir, "limits_scene");
    snprintf(out, sizeof out, "%s/o.png", dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text,
                 "{\"camera\": {\"position\": [0, 0, 5], \"look_at\": [0, 0, 0]},\n \"image\": {%s},\n"
                 " \"materials\": {\"m\": {\"type\": \"diffuse\"}},\n \"objects\": [{\"type\": \"sphere\", \"material\": \"m\"}]}\n",
                 cases[i][0]);
        sr_test_write_file(scene, sizeof scene, "limits_scene.json", text);
        const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
        const char *expect[] = { "limits_scene.json:2:", cases[i][1], NULL };
        render_refused(argv, NULL, dir, expect);
    }
}

static const char *write_mesh_scene(char *scene, size_t cap, const char *mesh_name)
{
    char text[1024];
    snprintf(text, sizeof text, SCENE_JSON("{\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"m\"}"), mesh_name);
    return sr_test_write_file(scene, cap, "limits_mesh.json", text);
}

/* A mesh file over the size limit is refused from its size alone: a sparse 5 GiB file. */
static void test_mesh_file_too_big(void **state)
{
    (void)state;
    char mesh[1024], scene[1024], dir[1024], out[1100];
    sr_test_tmp_path(mesh, sizeof mesh, "limits_huge.obj");
    int fd = open(mesh, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    if (ftruncate(fd, (off_t)5 << 30) != 0) {
        close(fd);
        unlink(mesh);
        printf("  skipped: this file system cannot hold a sparse 5 GiB file\n");
        return;
    }
    close(fd);
    write_mesh_scene(scene, sizeof scene, "limits_huge.obj");
    sr_hard_fresh_dir(dir, sizeof dir, "limits_mesh1");
    snprintf(out, sizeof out, "%s/o.png", dir);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    const char *expect[] = { "limits_mesh.json:4:", "limits_huge.obj is 5.0 GiB; at most 4.0 GiB", NULL };
    render_refused(argv, NULL, dir, expect);
    unlink(mesh);
}

/* Before assimp reads a file: about 24x its size must be free (here 1.4 MiB of OBJ, 16 MiB free). */
static void test_mesh_import_memory(void **state)
{
    (void)state;
    char mesh[1024], scene[1024], dir[1024], out[1100];
    sr_test_tmp_path(mesh, sizeof mesh, "limits_grid.obj");
    FILE *f = fopen(mesh, "w");
    assert_non_null(f);
    const int n = 120;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) fprintf(f, "v %d.0 %d.0 0.0\n", x, y);
    for (int y = 0; y + 1 < n; y++)
        for (int x = 0; x + 1 < n; x++) {
            int a = y * n + x + 1;
            fprintf(f, "f %d %d %d\nf %d %d %d\n", a, a + 1, a + n + 1, a, a + n + 1, a + n);
        }
    fclose(f);
    write_mesh_scene(scene, sizeof scene, "limits_grid.obj");
    sr_hard_fresh_dir(dir, sizeof dir, "limits_mesh2");
    snprintf(out, sizeof out, "%s/o.png", dir);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    const char *env[] = { "SR_HOST_MEM_LIMIT=16M", NULL };
    const char *expect[] = { "importing mesh file", "limits_grid.obj", "needs ", "MiB of host memory",
                             "only 16.0 MiB are available", NULL };
    render_refused(argv, env, dir, expect);
    /* and with room to spare it renders */
    const char *env_ok[] = { "SR_HOST_MEM_LIMIT=1G", NULL };
    const char *argv_ok[] = { "render", scene, "--backend", "cpu", "-q", "-o", out, NULL };
    sr_child c;
    assert_int_equal(sr_hard_run(&c, argv_ok, env_ok, 120.0), 0);
    assert_true(sr_test_file_exists(out));
    unlink(out);
    unlink(mesh);
}

/* After the import, before the triangles and the BVH are allocated: a dense binary PLY
 * (4 bytes a face) passes the size-based estimate but not the triangle count. */
static void test_mesh_triangle_memory(void **state)
{
    (void)state;
    char mesh[1024], scene[1024], dir[1024], out[1100];
    sr_test_tmp_path(mesh, sizeof mesh, "limits_dense.ply");
    FILE *f = fopen(mesh, "wb");
    assert_non_null(f);
    const unsigned faces = 200000;
    fprintf(f, "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
               "property float z\nelement face %u\nproperty list uchar uchar vertex_indices\nend_header\n", faces);
    const float v[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
    fwrite(v, sizeof v, 1, f);
    const unsigned char face[4] = { 3, 0, 1, 2 };
    for (unsigned i = 0; i < faces; i++) fwrite(face, 4, 1, f);
    fclose(f);
    write_mesh_scene(scene, sizeof scene, "limits_dense.ply");
    sr_hard_fresh_dir(dir, sizeof dir, "limits_mesh3");
    snprintf(out, sizeof out, "%s/o.png", dir);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    const char *env[] = { "SR_HOST_MEM_LIMIT=30M", NULL };
    const char *expect[] = { "limits_dense.ply (200000 triangles, then a BVH over 200000 primitives) needs ",
                             "only 30.0 MiB are available", NULL };
    render_refused(argv, env, dir, expect);
    unlink(mesh);
}

/* A mesh path naming a FIFO or a device must be refused, not read forever: opening a FIFO
 * without a writer used to block, and /dev/zero never ends. */
static void test_mesh_not_a_regular_file(void **state)
{
    (void)state;
    char fifo[1024], scene[1024], dir[1024], out[1100], text[1024];
    sr_test_tmp_path(fifo, sizeof fifo, "limits_fifo.obj");
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    write_mesh_scene(scene, sizeof scene, "limits_fifo.obj");
    sr_hard_fresh_dir(dir, sizeof dir, "limits_mesh4");
    snprintf(out, sizeof out, "%s/o.png", dir);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    const char *expect[] = { "limits_fifo.obj: not a regular file", NULL };
    render_refused(argv, NULL, dir, expect);   /* within render_refused's time limit */
    unlink(fifo);
    snprintf(text, sizeof text, SCENE_JSON("{\"type\": \"mesh\", \"file\": \"/dev/zero\", \"material\": \"m\"}"));
    sr_test_write_file(scene, sizeof scene, "limits_mesh.json", text);
    const char *expect_dev[] = { "/dev/zero: not a regular file", NULL };
    render_refused(argv, NULL, dir, expect_dev);
}

/* The size parser behind the limits. */
static void test_memory_figures(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(sr_fmt_bytes(b, sizeof b, 512ull << 20), "512.0 MiB");
    assert_string_equal(sr_fmt_bytes(b, sizeof b, 3ull << 30), "3.0 GiB");
    uint64_t avail = 0;
    assert_int_equal(sr_mem_size_parse("1.5G"), 3ull << 29);
    assert_int_equal(sr_mem_size_parse("64MiB"), 64ull << 20);
    assert_int_equal(sr_mem_size_parse("8 G"), 0);
    sr_mem_limits_set(sr_mem_size_parse("1.5G"), 0, "$SR_HOST_MEM_LIMIT");
    assert_true(sr_host_memory_available(&avail, NULL, 0));
    assert_true(avail <= (3ull << 29));
    sr_mem_limits_set(sr_mem_size_parse("64MiB"), 0, NULL);
    sr_host_memory_available(&avail, NULL, 0);
    assert_true(avail <= (64ull << 20));
    sr_mem_limits_set(0, 0, NULL);
    /* one ray's worth of pool in both halves plus hit, flag, film, stencil bits */
    assert_true(sr_cpu_pool_bytes(1024, 1024, 1) > 1024ull * 1024 * 100);
    assert_true(sr_cpu_pool_bytes(1024, 1024, SR_SPLIT_POOL_FACTOR) > 3u * sr_cpu_pool_bytes(1024, 1024, 1));
    assert_true(sr_cuda_pool_bytes(1, 1, 1) >= 256u * 2u * 40u);
}

/* A w x w PNG of one colour (small on disk, w * w * 12 bytes as texels). */
static void write_flat_png(const char *path, int w, unsigned char shade)
{
    unsigned char *px = malloc((size_t)w * (size_t)w * 3u);
    assert_non_null(px);
    memset(px, shade, (size_t)w * (size_t)w * 3u);
    assert_true(stbi_write_png(path, w, w, 3, px, w * 3) != 0);
    free(px);
}

/* A scene of n quads, quad k with material k whose albedo is texture files[k]. */
static void write_textured_scene(const char *path, const char *const *files, int n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"camera\": {\"position\": [0, 0, 30], \"look_at\": [0, 0, 0]},\n"
               " \"image\": {\"width\": 16, \"height\": 16, \"spp\": 1},\n \"materials\": {");
    for (int k = 0; k < n; k++)
        fprintf(f, "%s\"m%d\": {\"type\": \"diffuse\", \"albedo\": {\"texture\": \"%s\"}}", k ? ", " : "", k, files[k]);
    fprintf(f, "},\n \"objects\": [");
    for (int k = 0; k < n; k++)
        fprintf(f, "%s{\"type\": \"quad\", \"corner\": [%d, -1, 0], \"edge_u\": [1, 0, 0], \"edge_v\": [0, 1, 0], "
                   "\"material\": \"m%d\"}", k ? ", " : "", k - n / 2, k);
    fprintf(f, "]}\n");
    fclose(f);
}

/* Run to the end; its exit code (-1 when killed) and its own peak resident size (wait4). */
static int run_with_peak(sr_child *c, const char *const *argv, const char *const *env, double *peak_mib)
{
    sr_hard_spawn(c, argv, env);
    int status = 0;
    struct rusage ru;
    assert_int_equal(wait4(c->pid, &status, 0, &ru), c->pid);
    while (c->err_fd >= 0) sr_hard_drain(c, 100);
    *peak_mib = (double)ru.ru_maxrss / 1024.0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* 24 materials naming one 2048 x 2048 PNG (48 MiB as texels): decoded once, so the render's
 * peak stays far below what 24 copies took (1.2 GiB, under a 500 MiB limit that each copy
 * met alone). The peak is the child's own maximum resident size (wait4). */
static void test_shared_texture_peak_memory(void **state)
{
    (void)state;
    char dir[1024], in[1024], png[1100], scene[1100], out[1100];
    sr_hard_fresh_dir(dir, sizeof dir, "limits_shared");
    sr_hard_fresh_dir(in, sizeof in, "limits_shared_in");
    snprintf(png, sizeof png, "%s/big.png", in);
    snprintf(scene, sizeof scene, "%s/shared.json", in);
    snprintf(out, sizeof out, "%s/shared.png", dir);
    write_flat_png(png, 2048, 90);
    const char *files[24];
    for (int k = 0; k < 24; k++) files[k] = png;
    write_textured_scene(scene, files, 24);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    const char *env[] = { "SR_HOST_MEM_LIMIT=500M", NULL };
    static sr_child c;
    double peak_mib;
    const int code = run_with_peak(&c, argv, env, &peak_mib);
    printf("  24 materials, one 2048x2048 PNG: exit %d, peak %.0f MiB\n%s", code, peak_mib, c.err);
    assert_int_equal(code, 0);
    if (peak_mib > 300.0) fail_msg("peak %.0f MiB: the texture was decoded more than once", peak_mib);
}

/* Textures are budgeted together: three 1024 x 1024 PNGs (12 MiB of texels each, 20 MiB to
 * decode one) under a 40 MiB limit: each alone fits, the third on top of the first two does
 * not, and the message has both figures. */
static void test_textures_budgeted_together(void **state)
{
    (void)state;
    char dir[1024], in[1024], png[3][1100], scene[1100], out[1100];
    sr_hard_fresh_dir(dir, sizeof dir, "limits_sum");
    sr_hard_fresh_dir(in, sizeof in, "limits_sum_in");
    const char *files[3];
    for (int k = 0; k < 3; k++) {
        snprintf(png[k], sizeof png[k], "%s/t%d.png", in, k);
        write_flat_png(png[k], 1024, (unsigned char)(60 + 40 * k));
        files[k] = png[k];
    }
    snprintf(scene, sizeof scene, "%s/three.json", in);
    snprintf(out, sizeof out, "%s/three.png", dir);
    write_textured_scene(scene, files, 3);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    const char *env[] = { "SR_HOST_MEM_LIMIT=40M", NULL };
    const char *expect[] = { "t2.png (1024x1024) needs 20.0 MiB of host memory on top of the 24.0 MiB of textures already "
                             "decoded", "only 40.0 MiB are available in all ($SR_HOST_MEM_LIMIT)", NULL };
    render_refused(argv, env, dir, expect);
}

/* tmp/<name>.gltf (and .bin): a mesh of `prims` primitives, each the same gx x gy grid of unit
 * squares (2 gx gy triangles; emissive or not), placed by node 0 and by each of its `nodes`
 * children (none of them when !children_place: empty nodes). The path goes to path. */
static void write_grid_gltf(char *path, size_t cap, const char *name, unsigned gx, unsigned gy, unsigned prims,
                            unsigned nodes, int children_place, int emissive)
{
    char bin[1024], binname[128];
    snprintf(binname, sizeof binname, "%s.bin", name);
    sr_test_tmp_path(bin, sizeof bin, binname);
    FILE *f = fopen(bin, "wb");
    assert_non_null(f);
    const unsigned verts = (gx + 1u) * (gy + 1u), tris = 2u * gx * gy;
    for (unsigned y = 0; y <= gy; y++)
        for (unsigned x = 0; x <= gx; x++) {
            const float v[3] = { (float)x / (float)gx, (float)y / (float)gy, 0.0f };
            fwrite(v, sizeof v, 1, f);
        }
    for (unsigned y = 0; y < gy; y++)
        for (unsigned x = 0; x < gx; x++) {
            const uint32_t a = y * (gx + 1u) + x;
            const uint32_t t[6] = { a, a + 1u, a + gx + 2u, a, a + gx + 2u, a + gx + 1u };
            fwrite(t, sizeof t, 1, f);
        }
    fclose(f);
    char gltf[128];
    snprintf(gltf, sizeof gltf, "%s.gltf", name);
    sr_test_tmp_path(path, cap, gltf);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}],\n\"nodes\": [{\"mesh\": 0, "
               "\"children\": [");
    for (unsigned k = 1; k <= nodes; k++) fprintf(f, k > 1 ? ",%u" : "%u", k);
    fprintf(f, "]}");
    for (unsigned k = 0; k < nodes; k++) {
        if (children_place) fprintf(f, ",\n{\"mesh\": 0, \"translation\": [%u, %u, 0]}", k % 64u * 2u, k / 64u * 2u);
        else fprintf(f, ",{}");
    }
    fprintf(f, "],\n\"materials\": [{%s}],\n\"meshes\": [{\"primitives\": [", emissive ? "\"emissiveFactor\": [1, 1, 1]" : "");
    for (unsigned k = 0; k < prims; k++)
        fprintf(f, "%s{\"attributes\": {\"POSITION\": 0}, \"indices\": 1, \"material\": 0}", k ? "," : "");
    fprintf(f, "]}],\n\"buffers\": [{\"byteLength\": %u, \"uri\": \"%s\"}],\n"
               "\"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": %u},"
               " {\"buffer\": 0, \"byteOffset\": %u, \"byteLength\": %u}],\n"
               "\"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": %u, \"type\": \"VEC3\","
               " \"min\": [0, 0, 0], \"max\": [1, 1, 0]},\n"
               " {\"bufferView\": 1, \"componentType\": 5125, \"count\": %u, \"type\": \"SCALAR\"}]}\n",
            verts * 12u + tris * 12u, binname, verts * 12u, verts * 12u, tris * 12u, verts, tris * 3u);
    fclose(f);
}

/* Under AddressSanitizer a process's peak also holds the sanitizer's shadow memory and its
 * quarantine of freed blocks: there the budget tests print their peaks and check the refusal,
 * and the peak against the limit is checked in plain builds only. */
#if defined(__SANITIZE_ADDRESS__)
#define SR_PEAKS_CHECKED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SR_PEAKS_CHECKED 0
#endif
#endif
#ifndef SR_PEAKS_CHECKED
#define SR_PEAKS_CHECKED 1
#endif

/* Renders gltf (16x16, one sample, CPU) under SR_HOST_MEM_LIMIT=limit_mib M with its output in
 * a fresh folder `name`: expects exit 2 with every text of `expect` (NULL-ended) and the
 * limit in the message, nothing written, and the process's peak under the limit. */
static void expect_refused_under(const char *gltf, const char *name, int limit_mib, const char *what,
                                 const char *const *expect)
{
    char dir[1024], out[1100], env0[64], limit[64];
    sr_hard_fresh_dir(dir, sizeof dir, name);
    snprintf(out, sizeof out, "%s/o.png", dir);
    snprintf(env0, sizeof env0, "SR_HOST_MEM_LIMIT=%dM", limit_mib);
    snprintf(limit, sizeof limit, "only %d.0 MiB are available", limit_mib);
    const char *argv[] = { "render", gltf, "--backend", "cpu", "--width", "16", "--height", "16", "--spp", "1",
                           "-q", "-o", out, NULL };
    const char *env[] = { env0, NULL };
    static sr_child c;
    double peak;
    const int code = run_with_peak(&c, argv, env, &peak);
    printf("  %s under %d MiB: exit %d, peak %.0f MiB\n", what, limit_mib, code, peak);
    bool said = code == 2 && strstr(c.err, limit);
    for (int k = 0; said && expect[k]; k++) said = strstr(c.err, expect[k]) != NULL;
    if (!said) fail_msg("%s: expected exit 2 and the budget's message, got %d:\n%s", what, code, c.err);
    assert_int_equal(sr_hard_count_files(dir), 0);
    if (SR_PEAKS_CHECKED && peak > limit_mib) fail_msg("%s: peak %.0f MiB over the %d MiB limit", what, peak, limit_mib);
}

/* A glTF file's nodes cost the import far more than their bytes (2 KiB each, about 20 bytes
 * of JSON): 60 000 empty nodes in 0.6 MB passed the 24x-the-bytes check under 64 MiB and then
 * peaked well above it. Counted from the JSON before the import, they are refused with the
 * numbers, and the process stays under the limit. */
static void test_gltf_node_memory(void **state)
{
    (void)state;
    char gltf[1024];
    write_grid_gltf(gltf, sizeof gltf, "limits_nodes", 1, 1, 1, 60000, 0, 0);
    const char *expect[] = { "limits_nodes.gltf (60001 nodes, about 2.5 KiB each", NULL };
    expect_refused_under(gltf, "limits_nodes", 64, "60 000 empty nodes", expect);
}

/* One mesh of 100 primitives placed by 10 000 nodes: 10^6 placements in a 40 KB file (a legal
 * file; a node has one parent, a mesh any number of nodes). Each placement is an instance and
 * a leaf of the top level's BVH: budgeted from the node walk's count before any is made. */
static void test_gltf_placement_memory(void **state)
{
    (void)state;
    char gltf[1024];
    write_grid_gltf(gltf, sizeof gltf, "limits_placed", 1, 1, 100, 10000, 1, 0);
    const char *expect[] = { "limits_placed.gltf (0 triangles placed, 200 instanced by 1000100 placements, then the "
                             "BVHs) needs ", NULL };
    expect_refused_under(gltf, "limits_placed", 100, "10^6 placements", expect);
}

/* One mesh of 2 000 primitives placed by 5 000 nodes: 10^7 placements in a 150 KB file, which
 * the import alone holds as an index per node and primitive (40 MB): budgeted from the JSON
 * before the import. */
static void test_gltf_placement_import_memory(void **state)
{
    (void)state;
    char gltf[1024];
    write_grid_gltf(gltf, sizeof gltf, "limits_placed_import", 1, 1, 2000, 4999, 1, 0);
    const char *expect[] = { "importing mesh file ", "limits_placed_import.gltf (5000 nodes, about 2.5 KiB each, "
                             "10000000 placements of a mesh's primitives by a node, 6 bytes each", NULL };
    expect_refused_under(gltf, "limits_placed_import", 40, "10^7 placements", expect);
}

/* 10^7 placed emissive triangles (a 20 000-triangle grid placed by 500 nodes): the emitter
 * table (8 bytes each) is budgeted with the render, before the BVHs and the count of every
 * placed triangle; the same file without emission renders under the same limit. */
static void test_emitter_table_memory(void **state)
{
    (void)state;
    char lit[1024], dark[1024], dir[1024], out[1100];
    write_grid_gltf(lit, sizeof lit, "limits_lit", 100, 100, 1, 499, 1, 1);
    write_grid_gltf(dark, sizeof dark, "limits_dark", 100, 100, 1, 499, 1, 0);
    const char *expect[] = { "emitter table", NULL };
    expect_refused_under(lit, "limits_lit", 60, "10^7 placed emissive triangles", expect);
    sr_hard_fresh_dir(dir, sizeof dir, "limits_dark");
    snprintf(out, sizeof out, "%s/o.png", dir);
    const char *argv[] = { "render", dark, "--backend", "cpu", "--width", "16", "--height", "16", "--spp", "1",
                           "-q", "-o", out, NULL };
    const char *env[] = { "SR_HOST_MEM_LIMIT=60M", NULL };
    static sr_child c;
    double peak;
    const int code = run_with_peak(&c, argv, env, &peak);
    printf("  the same without emission: exit %d, peak %.0f MiB\n", code, peak);
    if (code != 0) fail_msg("without emission: exit %d:\n%s", code, c.err);
    unlink(out);
}

/* 2.2 * 10^9 placed triangles (100 primitives of a 10 000-triangle grid, placed by 2 200
 * nodes) are more than a hit can number: refused from the node walk's count in well under a
 * second, before any BVH is built (which took 40 s). */
static void test_placed_triangles_counted_first(void **state)
{
    (void)state;
    char gltf[1024], dir[1024], out[1100];
    write_grid_gltf(gltf, sizeof gltf, "limits_2g", 100, 50, 100, 2199, 1, 0);
    sr_hard_fresh_dir(dir, sizeof dir, "limits_2g");
    snprintf(out, sizeof out, "%s/o.png", dir);
    const char *argv[] = { "render", gltf, "--backend", "cpu", "-o", out, NULL };
    const double t0 = sr_hard_now();
    const char *expect[] = { "limits_2g.gltf places 2200000000 triangles in all (220000 placements of its meshes by its "
                             "nodes), more than the 2147483647 a hit can be numbered by", NULL };
    render_refused(argv, NULL, dir, expect);
    const double took = sr_hard_now() - t0;
    printf("  2.2 * 10^9 placed triangles refused in %.2f s\n", took);
    if (took > 10.0) fail_msg("refused after %.1f s: the placements were built before they were counted", took);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_figures),
        cmocka_unit_test(test_resolution_over_memory_limit),
        cmocka_unit_test(test_scene_parse_over_memory_limit),
        cmocka_unit_test(test_resolution_over_real_memory),
        cmocka_unit_test(test_small_render_fits),
        cmocka_unit_test(test_absurd_options),
        cmocka_unit_test(test_absurd_scene_values),
        cmocka_unit_test(test_mesh_file_too_big),
        cmocka_unit_test(test_mesh_import_memory),
        cmocka_unit_test(test_mesh_triangle_memory),
        cmocka_unit_test(test_mesh_not_a_regular_file),
        cmocka_unit_test(test_shared_texture_peak_memory),
        cmocka_unit_test(test_textures_budgeted_together),
        cmocka_unit_test(test_gltf_node_memory),
        cmocka_unit_test(test_gltf_placement_memory),
        cmocka_unit_test(test_gltf_placement_import_memory),
        cmocka_unit_test(test_emitter_table_memory),
        cmocka_unit_test(test_placed_triangles_counted_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
