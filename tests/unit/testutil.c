#include "testutil.h"
#include "../../src/base/names.h"
#include "../../kernels/frames/sortkey.h"
#include "../../kernels/frames/wave.h"

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

unsigned char *sr_test_read_bytes(const char *path, size_t *n)
{
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *buf = NULL;
    long len = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1)) != NULL) {
        *n = fread(buf, 1, (size_t)len, f);
        buf[*n] = '\0';
    }
    fclose(f);
    return buf;
}

char *sr_test_read_text(const char *path)
{
    size_t n;
    return (char *)sr_test_read_bytes(path, &n);
}

void sr_test_assert_same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    unsigned char *x = sr_test_read_bytes(a, &na), *y = sr_test_read_bytes(b, &nb);
    if (!x || !y) fail_msg("missing: %s", x ? b : a);
    if (na != nb || memcmp(x, y, na)) fail_msg("%s and %s differ (%zu and %zu bytes)", a, b, na, nb);
    free(x);
    free(y);
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

float *sr_test_render_opts(const sr_scene *scene, sr_backend_kind kind, const sr_render_opts *opts,
                           sr_render_stats *stats)
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
    sr_frame f;   /* the scene's values: tests set them in the scene they build */
    sr_frame_from_scene(&f, scene);
    f.render = *opts;
    st = sr_renderer_prepare(&r, scene, &be, &f, &err);
    if (st) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, SR_OK);
    float *rgb = malloc(sizeof(float) * 3u * scene->width * scene->height);
    assert_non_null(rgb);
    st = sr_render_image(&r, &f, rgb, stats, &err);
    if (st) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, SR_OK);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    return rgb;
}

float *sr_test_render(const sr_scene *scene, sr_backend_kind kind, sr_mask mask, float compact_below,
                      uint32_t seed, sr_render_stats *stats)
{
    sr_render_opts o;
    sr_render_opts_default(&o);
    o.mask = mask;
    o.seed = seed;
    o.compact_below = compact_below;
    o.bounce_counts = 1;   /* (the tests compare the rays per bounce) */
    return sr_test_render_opts(scene, kind, &o, stats);
}

void sr_test_same_counts(const char *label, const sr_render_opts *o, const sr_render_stats *st,
                         const sr_render_stats *ref)
{
    if (st->rays != ref->rays)
        fail_msg("%s: %llu rays, the reference %llu", label, (unsigned long long)st->rays, (unsigned long long)ref->rays);
    const int per_bounce = sr_mask_counts_bounces(o);
    for (uint32_t b = 0; b < SR_MAX_DEPTH; b++) {
        const uint64_t want = per_bounce ? ref->bounce_rays[b] : b == 0 ? ref->rays : 0u;
        if (st->bounce_rays[b] != want)
            fail_msg("%s: bounce %u: %llu rays, expected %llu (%s)", label, b, (unsigned long long)st->bounce_rays[b],
                     (unsigned long long)want, per_bounce ? "the reference's" : "the total, in bounce 0");
    }
}

float *sr_test_masks_agree(const sr_scene *scene, sr_backend_kind kind, uint32_t seed, sr_render_stats *ref_stats)
{
    const size_t bytes = sizeof(float) * 3u * scene->width * scene->height;
    sr_render_stats ref_st;
    float *ref = sr_test_render(scene, kind, SR_MASK_STENCIL, 0.5f, seed, &ref_st);
    assert_non_null(ref);
    /* The wave mask at its default, never compacting (1) and compacting at the first dead
     * lane (32, which sends the most rays through compaction and later rounds), counting rays
     * per bounce and (counts 0) only their total. */
    static const struct { sr_mask mask; float below; uint32_t dense; int counts; } cases[] = {
        { SR_MASK_FLAGS, 0.5f, 0, 1 }, { SR_MASK_COMPACT, 1.0f, 0, 1 }, { SR_MASK_COMPACT, 0.5f, 0, 1 },
        { SR_MASK_MEGAKERNEL, 0.5f, 0, 0 }, { SR_MASK_WAVE, 0.5f, 0, 1 }, { SR_MASK_WAVE, 0.5f, 1, 1 },
        { SR_MASK_WAVE, 0.5f, 16, 1 }, { SR_MASK_WAVE, 0.5f, 32, 1 },
        { SR_MASK_WAVE, 0.5f, 1, 0 }, { SR_MASK_WAVE, 0.5f, 16, 0 },
    };
    for (size_t m = 0; m < sizeof cases / sizeof cases[0]; m++) {
        sr_render_stats st;
        sr_render_opts o;
        sr_render_opts_default(&o);
        o.mask = cases[m].mask;
        o.seed = seed;
        o.compact_below = cases[m].below;
        if (cases[m].dense) o.wave_dense = cases[m].dense;
        o.bounce_counts = cases[m].counts;
        float *img = sr_test_render_opts(scene, kind, &o, &st);
        char label[96];
        snprintf(label, sizeof label, "mask %s (compact below %.1f, wave dense %u, counts per bounce %d)",
                 sr_mask_name(cases[m].mask), cases[m].below, cases[m].dense, cases[m].counts);
        if (memcmp(img, ref, bytes)) fail_msg("%s changes the image", label);
        sr_test_same_counts(label, &o, &st, &ref_st);   /* the same rays were traced, at the same bounces */
        free(img);
    }
    if (ref_stats) *ref_stats = ref_st;
    return ref;
}

void sr_test_write_sphere_scene(const char *path, int count)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 0, 0]},\n"
          " \"materials\": {\"m\": {\"type\": \"diffuse\"}},\n \"objects\": [\n", f);
    for (int i = 0; i < count; i++)
        fprintf(f, "%s{\"type\": \"sphere\", \"center\": [%d, %d, %d], \"radius\": 0.4, \"material\": \"m\"}",
                i ? ",\n" : "", i % 100, (i / 100) % 100, i / 10000);
    fputs("]}\n", f);
    assert_int_equal(fclose(f), 0);
}

void sr_test_load_shipped(const char *rel, sr_scene *out)
{
    char path[1024];
    sr_error err = { SR_OK, "" };
    if (sr_scene_load(sr_test_source_path(path, sizeof path, rel), out, &err) != SR_OK) fail_msg("%s: %s", rel, err.msg);
}

void sr_test_nested_glass(sr_scene *out, uint32_t width, uint32_t height)
{
    static const char *const json =
    "{\"camera\":{\"position\":[0,0.6,6],\"look_at\":[0,0.4,0],\"fov\":40},"
    " \"image\":{\"width\":48,\"height\":32,\"spp\":1,\"max_depth\":16},"
    " \"background\":[0.5,0.6,0.7], \"ambient\":[0.05,0.05,0.05],"
    " \"materials\":{\"floor\":{\"type\":\"diffuse\",\"albedo\":[0.8,0.8,0.8],\"checker\":{\"color\":[0.2,0.2,0.2],\"scale\":0.5}},"
    "   \"g\":{\"type\":\"glass\",\"ior\":1.5,\"tint\":[1,1,1]},"
    "   \"h\":{\"type\":\"glass\",\"ior\":1.3,\"tint\":[0.9,1,0.9]}},"
    " \"objects\":[{\"type\":\"plane\",\"point\":[0,-0.6,0],\"normal\":[0,1,0],\"material\":\"floor\"},"
    "   {\"type\":\"sphere\",\"center\":[0,0.4,0],\"radius\":1.0,\"material\":\"g\"},"
    "   {\"type\":\"sphere\",\"center\":[0,0.4,0],\"radius\":0.75,\"material\":\"h\"},"
    "   {\"type\":\"sphere\",\"center\":[0,0.4,0],\"radius\":0.5,\"material\":\"g\"},"
    "   {\"type\":\"sphere\",\"center\":[0,0.4,0],\"radius\":0.25,\"material\":\"h\"}],"
    " \"lights\":[{\"type\":\"point\",\"position\":[2,4,3],\"color\":[1,1,1],\"intensity\":40}]}";
    sr_test_parse("nested_glass.json", json, out);
    out->width = width;
    out->height = height;
}

int sr_test_gpu_matches_cpu(const sr_scene *s, const char *label)
{
    const uint32_t pixels = s->width * s->height;
    sr_render_stats cs, gs;
    memset(&gs, 0, sizeof gs);
    float *gpu = sr_test_render(s, SR_BACKEND_CUDA, SR_MASK_WAVE, 0.5f, 3, &gs);
    if (!gpu) return 0;
    float *cpu = sr_test_render(s, SR_BACKEND_CPU, SR_MASK_WAVE, 0.5f, 3, &cs);
    uint32_t bad = 0, exact = 0;
    double max_diff = 0;
    for (uint32_t i = 0; i < pixels; i++) {
        double worst = 0;
        int same = 1;
        for (int c = 0; c < 3; c++) {
            const double a = cpu[3 * i + c], d = fabs(a - gpu[3 * i + c]), tol = 1e-3 + 1e-3 * fabs(a);
            if (d - tol > worst) worst = d - tol;
            if (d > max_diff) max_diff = d;
            same &= cpu[3 * i + c] == gpu[3 * i + c];
        }
        bad += worst > 0;
        exact += (uint32_t)same;
    }
    printf("%-26s %ux%u spp %u depth %2u: %u of %u pixels outside tolerance (%u bit-identical), max |diff| %.3g, "
           "rays cpu %llu gpu %llu\n",
           label, s->width, s->height, s->spp, s->max_depth, bad, pixels, exact, max_diff,
           (unsigned long long)cs.rays, (unsigned long long)gs.rays);
    /* The backends run the same per-ray code with the same float rules (no FMA contraction):
     * every pixel is bit-identical and every bounce traces the same rays, so one wrong stencil
     * bit, one lost or duplicated ray fails. (bad: pixels outside the tolerance, for the line.) */
    if (exact != pixels)
        fail_msg("%s: %u of %u pixels differ between the CPU and the GPU (%u outside the tolerance); every one must "
                 "be bit-identical", label, pixels - exact, pixels, bad);
    for (uint32_t b = 0; b < SR_MAX_DEPTH; b++)
        if (cs.bounce_rays[b] != gs.bounce_rays[b])
            fail_msg("%s bounce %u: cpu %llu rays, gpu %llu", label, b, (unsigned long long)cs.bounce_rays[b],
                     (unsigned long long)gs.bounce_rays[b]);
    free(cpu);
    free(gpu);
    return 1;
}

static const char *const shipped_scenes[] = { "scenes/default.json", "scenes/cornell.json",
                                              "scenes/cornell_path.json", "scenes/mirror_hall.json",
                                              "scenes/mesh.json", "scenes/sphere_field.json" };

void sr_test_sorts_keep_images(sr_backend_kind kind, unsigned w, unsigned h, unsigned spp)
{
    const char *where = kind == SR_BACKEND_CUDA ? "on the GPU" : "on the CPU";
    for (size_t i = 0; i < sizeof shipped_scenes / sizeof shipped_scenes[0]; i++) {
        sr_scene scene;
        sr_test_load_shipped(shipped_scenes[i], &scene);
        scene.width = w;
        scene.height = h;
        scene.spp = spp;
        sr_render_opts o;
        sr_render_opts_default(&o);
        o.mask = SR_MASK_COMPACT;
        o.sort = SR_SORT_NONE;
        sr_render_stats base_stats, stats;
        float *base = sr_test_render_opts(&scene, kind, &o, &base_stats);
        assert_non_null(base);
        const size_t bytes = sizeof(float) * 3u * w * h;
        for (int algo = SR_SORT_MERGE; algo <= SR_SORT_RADIX; algo++)
            for (int key = 0; key < SR_SORT_KEY_COUNT; key++) {
                o.sort = algo;
                o.sort_key = key;
                float *img = sr_test_render_opts(&scene, kind, &o, &stats);
                if (memcmp(img, base, bytes))
                    fail_msg("%s %s: --sort %s --sort-key %s changes the image", shipped_scenes[i], where,
                             sr_sort_algo_name(algo), sr_sort_key_name(key));
                /* The sort compacts every bounce that has a next one (while rays live). */
                assert_true(stats.compactions >= base_stats.compactions);
                assert_true(stats.compactions > 0 || scene.max_depth == 1);
                free(img);
            }
        free(base);
        sr_scene_free(&scene);
    }
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

void sr_test_write_uv_sphere(const char *path, int segs, int rings, int with_vn, int with_vt)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    const int cols = segs + 1;   /* the seam column twice, so UVs need not wrap */
    for (int r = 0; r <= rings; r++)
        for (int s = 0; s < cols; s++) {
            double th = M_PI * r / rings, ph = 2.0 * M_PI * (s % segs) / segs;
            double x = sin(th) * cos(ph), y = cos(th), z = -sin(th) * sin(ph);
            fprintf(f, "v %.9f %.9f %.9f\n", x, y, z);
            if (with_vn) fprintf(f, "vn %.9f %.9f %.9f\n", x, y, z);
            if (with_vt) fprintf(f, "vt %.9f %.9f\n", (double)s / segs, 1.0 - (double)r / rings);
        }
    for (int r = 0; r < rings; r++)
        for (int s = 0; s < segs; s++) {
            int a = r * cols + s + 1, b = a + 1, c = a + cols, d = b + cols;
            int tri[2][3] = { { a, c, b }, { b, c, d } };
            for (int t = 0; t < 2; t++) {
                if ((t == 0 && r == 0) || (t == 1 && r == rings - 1)) continue;   /* pole slivers */
                fputc('f', f);
                for (int k = 0; k < 3; k++) {
                    int i = tri[t][k];
                    if (with_vn && with_vt) fprintf(f, " %d/%d/%d", i, i, i);
                    else if (with_vn) fprintf(f, " %d//%d", i, i);
                    else if (with_vt) fprintf(f, " %d/%d", i, i);
                    else fprintf(f, " %d", i);
                }
                fputc('\n', f);
            }
        }
    fclose(f);
}

/* ---- scene reader tests ---------------------------------------------------------------- */

size_t sr_test_unmark(const char *src, char *out, size_t cap, unsigned long *line, unsigned long *col)
{
    size_t n = 0;
    unsigned long l = 1, c = 1;
    *line = 0;
    *col = 0;
    for (const char *s = src; *s; s++) {
        if (*s == '@') { *line = l; *col = c; continue; }
        char ch = *s == '\'' ? '"' : (*s == '`' ? '\'' : *s);
        assert_true(n + 1 < cap);
        out[n++] = ch;
        if (ch == '\n') { l++; c = 1; }
        else if (((unsigned char)ch & 0xC0) != 0x80) c++;
    }
    out[n] = '\0';
    return n;
}

int sr_test_is_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

#define SR_TEST_TEXT_CAP 8192

void sr_test_expect_scene_err(const char *src, const char *jp, ...)
{
    static char text[SR_TEST_TEXT_CAP];
    unsigned long line, col;
    size_t len = sr_test_unmark(src, text, sizeof text, &line, &col);
    sr_scene s;
    memset(&s, 0xAB, sizeof s);
    sr_error e;
    memset(&e, 0, sizeof e);
    sr_status st = sr_scene_parse("t.json", text, len, &s, &e);
    if (st != SR_ERR_INPUT) fail_msg("expected SR_ERR_INPUT, got %d (%s) for\n%s", (int)st, e.msg, text);
    assert_int_equal(e.status, SR_ERR_INPUT);
    assert_true(sr_test_is_zero(&s, sizeof s));

    char prefix[300];
    if (line) snprintf(prefix, sizeof prefix, "t.json:%lu:%lu: %s%s", line, col, jp ? jp : "", jp ? ": " : "");
    else snprintf(prefix, sizeof prefix, "t.json: %s%s", jp ? jp : "", jp ? ": " : "");
    if (strncmp(e.msg, prefix, strlen(prefix)) != 0)
        fail_msg("message\n  %s\ndoes not start with\n  %s", e.msg, prefix);
    va_list ap;
    va_start(ap, jp);
    for (const char *w = va_arg(ap, const char *); w; w = va_arg(ap, const char *))
        if (!strstr(e.msg, w)) fail_msg("message\n  %s\ndoes not contain\n  %s", e.msg, w);
    va_end(ap);
}

void sr_test_parse_ok(const char *src, sr_scene *s)
{
    static char text[SR_TEST_TEXT_CAP];
    unsigned long line, col;
    size_t len = sr_test_unmark(src, text, sizeof text, &line, &col);
    sr_error e;
    memset(&e, 0, sizeof e);
    sr_status st = sr_scene_parse("t.json", text, len, s, &e);
    if (st != SR_OK) fail_msg("expected success, got %d: %s\nfor\n%s", (int)st, e.msg, text);
}

const char *sr_test_parse_refused(const char *name, const char *text, size_t len)
{
    static sr_error e;
    sr_scene s;
    memset(&e, 0, sizeof e);
    assert_int_equal(sr_scene_parse(name, text, len, &s, &e), SR_ERR_INPUT);
    assert_true(sr_test_is_zero(&s, sizeof s));
    return e.msg;
}

void sr_test_assert_vec(sr_vec3 v, float x, float y, float z)
{
    if (v.x != x || v.y != y || v.z != z)
        fail_msg("vector (%.9g, %.9g, %.9g) != (%.9g, %.9g, %.9g)", v.x, v.y, v.z, x, y, z);
}

void sr_test_assert_vec_near(sr_vec3 v, float x, float y, float z, float eps)
{
    if (fabsf(v.x - x) > eps || fabsf(v.y - y) > eps || fabsf(v.z - z) > eps)
        fail_msg("vector (%.9g, %.9g, %.9g) != (%.9g, %.9g, %.9g) within %g", v.x, v.y, v.z, x, y, z, eps);
}

/* ---- path tracer tests ----------------------------------------------------------------- */

float *sr_test_render_cpu(const sr_scene *s, uint32_t seed)
{
    return sr_test_render(s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, seed, NULL);
}

void sr_test_stat_add(sr_test_stat *a, double value, double expected)
{
    double r = value - expected;
    a->sum_r += r;
    a->sum_r2 += r * r;
    a->sum_e += expected;
    a->n++;
}

#define Z_MAX 5.0

/* A systematic offset the renderer may have, relative to the expected value: float rounding,
 * and shading points lifted off their surface by 1e-4 of the coordinates' size (a lamp 3
 * units above a floor is then 1e-4 of its distance nearer, 7e-5 brighter). Without it, a
 * noiseless render (a mirror in a furnace) would fail on its rounding alone. */
#define SYS_TOL 3e-4

void sr_test_stat_check(const char *what, const sr_test_stat *a, double rel_tol)
{
    double excess = fabs(a->sum_r) - SYS_TOL * fabs(a->sum_e);
    double z = excess > 0 && a->sum_r2 > 0 ? copysign(excess, a->sum_r) / sqrt(a->sum_r2) : 0.0;
    double mean_e = a->sum_e / a->n, mean_r = a->sum_r / a->n;
    double rel = mean_e != 0 ? fabs(mean_r / mean_e) : fabs(mean_r);
    printf("  %-52s n %5u  mean %.5f  expected %.5f  z %+.2f  rel %.4f\n", what, a->n, mean_e + mean_r, mean_e,
           z, rel);
    if (!(fabs(z) < Z_MAX)) fail_msg("%s: mean %.6f, expected %.6f: z = %.2f", what, mean_e + mean_r, mean_e, z);
    if (!(rel <= rel_tol)) fail_msg("%s: mean %.6f, expected %.6f: off by %.4f (allowed %.4f)", what, mean_e + mean_r,
                                    mean_e, rel, rel_tol);
}

void sr_test_check_constant(const char *what, const float *img, uint32_t pixels, const double expect[3], double rel_tol)
{
    for (int c = 0; c < 3; c++) {
        sr_test_stat a;
        memset(&a, 0, sizeof a);
        for (uint32_t i = 0; i < pixels; i++) sr_test_stat_add(&a, img[3 * i + c], expect[c]);
        char name[128];
        snprintf(name, sizeof name, "%s [%c]", what, "rgb"[c]);
        sr_test_stat_check(name, &a, rel_tol);
    }
}

void sr_test_assert_gpu_matches_cpu(const sr_scene *s, const char *label)
{
    const size_t n = 3u * (size_t)s->width * s->height;
    float *cpu = sr_test_render(s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 7, NULL);
    static const sr_mask masks[] = { SR_MASK_WAVE, SR_MASK_COMPACT };
    for (size_t k = 0; k < 2; k++) {
        float *gpu = sr_test_render(s, SR_BACKEND_CUDA, masks[k], 0.5f, 7, NULL);
        assert_non_null(gpu);
        size_t diff = 0;
        for (size_t i = 0; i < n; i++) diff += memcmp(&cpu[i], &gpu[i], sizeof(float)) != 0;
        printf("%s, %s mask: %zu of %zu values differ\n", label, sr_mask_name(masks[k]), diff, n);
        if (diff) fail_msg("%s: the GPU image differs from the CPU's in %zu values", label, diff);
        free(gpu);
    }
    free(cpu);
}

void sr_test_copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0) assert_int_equal(fwrite(buf, 1, got, out), got);
    fclose(in);
    fclose(out);
}

void sr_test_lamp_pair_scene(char *out, size_t cap, const char *f0, const char *f1, unsigned spp)
{
    snprintf(out, cap, "{\"camera\": {\"position\": [0, 3, 6], \"look_at\": [0, 0, 0]},"
             " \"image\": {\"width\": 48, \"height\": 32, \"spp\": %u, \"max_depth\": 3},"
             " \"integrator\": \"path\", \"background\": [0, 0, 0],"
             " \"materials\": {\"lamp\": {\"type\": \"emissive\", \"radiance\": [4, 4, 4]},"
             "  \"floor\": {\"type\": \"diffuse\", \"albedo\": [0.8, 0.8, 0.8]}},"
             " \"objects\": [{\"type\": \"quad\", \"corner\": [-6, 0, -6], \"edge_u\": [0, 0, 12], \"edge_v\": [12, 0, 0],"
             " \"material\": \"floor\"},"
             " {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"lamp\", \"translate\": [-1.5, 1, 0], \"scale\": 0.4},"
             " {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"lamp\", \"translate\": [1.5, 1.2, -0.5],"
             " \"scale\": [0.5, 0.3, 0.4]}]}", spp, f0, f1);
}
