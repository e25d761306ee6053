/* test_mesh_direct.c: the readers that take binary PLY, GLB and plain OBJ files without assimp
 * (src/io/mesh_direct.h) give the same triangles, bit for bit and in the same order, as
 * assimp on the same files; the files they leave to assimp still load; a file cut short or
 * an index out of range is a clear error (exit 2 from the CLI). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "../../src/io/meshes/mesh.h"

/* A small displaced sphere (as tests/perf/make_sphere_mesh.py makes it, N = 12), with the
 * zero-area triangles at its poles, plus one triangle repeated and one with a repeated vertex. */
#define N 12
#define NV ((N + 1) * N)
#define NT (2 * N * N + 2)
static float g_pos[3 * NV];
static uint32_t g_tri[3 * NT];

static void make_sphere(void)
{
    for (int i = 0; i <= N; i++)
        for (int j = 0; j < N; j++) {
            const double th = M_PI * i / N, ph = 2.0 * M_PI * j / N;
            const double r = 1.0 + 0.1 * sin(8.0 * th) * sin(8.0 * ph);
            float *p = g_pos + 3 * (i * N + j);
            p[0] = (float)(r * sin(th) * cos(ph));
            p[1] = (float)(r * cos(th));
            p[2] = (float)(r * sin(th) * sin(ph));
        }
    uint32_t *t = g_tri;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            const uint32_t a = (uint32_t)(i * N + j), b = (uint32_t)(i * N + (j + 1) % N), c = a + N, d = b + N;
            const uint32_t six[6] = { a, b, d, a, d, c };
            memcpy(t, six, sizeof six);
            t += 6;
        }
    const uint32_t extra[6] = { g_tri[3 * 40], g_tri[3 * 40 + 1], g_tri[3 * 40 + 2], 5, 5, 17 };
    memcpy(t, extra, sizeof extra);
}

static const char *tmp(char *buf, size_t cap, const char *name) { return sr_test_tmp_path(buf, cap, name); }

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* OBJ with each coordinate printed by fmt ("%.6f", "%.9g", ...); negative: faces by
 * negative (relative) indices, written after all the vertices. */
static void write_obj(const char *path, const char *fmt, int negative, int crlf)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    const char *nl = crlf ? "\r\n" : "\n";
    fprintf(f, "# a test sphere%s%s", nl, nl);
    for (int v = 0; v < NV; v++) {
        fputs("v", f);
        for (int k = 0; k < 3; k++) {
            fputc(' ', f);
            fprintf(f, fmt, (double)g_pos[3 * v + k]);
        }
        fputs(nl, f);
    }
    fprintf(f, "s off%s", nl);
    for (int t = 0; t < NT; t++) {
        if (negative) fprintf(f, "f %ld %ld %ld%s", (long)g_tri[3 * t] - NV, (long)g_tri[3 * t + 1] - NV,
                              (long)g_tri[3 * t + 2] - NV, nl);
        else fprintf(f, "f %u %u %u%s", g_tri[3 * t] + 1, g_tri[3 * t + 1] + 1, g_tri[3 * t + 2] + 1, nl);
    }
    fclose(f);
}

static void put(unsigned char **p, uint64_t v, unsigned size, int big)
{
    for (unsigned i = 0; i < size; i++) (*p)[big ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
    *p += size;
}

static void put_float(unsigned char **p, float x, int big)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    put(p, u, 4, big);
}

/* Binary PLY: count_type/index_type as PLY names them; normals adds nx ny nz; quads turns
 * the first two triangles into one quad (a polygon: assimp's). Returns the file's size. */
static size_t write_ply(const char *path, int big, const char *count_type, unsigned count_size, const char *index_type,
                        unsigned index_size, int normals, int quads, size_t cut)
{
    char head[512];
    const int faces = quads ? NT - 1 : NT;
    int n = snprintf(head, sizeof head, "ply\nformat binary_%s_endian 1.0\ncomment test\nelement vertex %d\n"
                     "property float x\nproperty float y\nproperty float z\n%s"
                     "element face %d\nproperty list %s %s vertex_indices\nend_header\n", big ? "big" : "little", NV,
                     normals ? "property float nx\nproperty float ny\nproperty float nz\n" : "", faces, count_type,
                     index_type);
    unsigned char *buf = malloc((size_t)n + (size_t)NV * 24 + (size_t)NT * (count_size + 4 * index_size));
    assert_non_null(buf);
    memcpy(buf, head, (size_t)n);
    unsigned char *p = buf + n;
    for (int v = 0; v < NV; v++) {
        for (int k = 0; k < 3; k++) put_float(&p, g_pos[3 * v + k], big);
        if (normals)
            for (int k = 0; k < 3; k++) put_float(&p, k == 1 ? 1.0f : 0.0f, big);
    }
    for (int t = 0; t < NT; t++) {
        if (quads && t == 0) {   /* triangles 0 (a, b, d) and 1 (a, d, c) as the quad a b d c */
            put(&p, 4, count_size, big);
            const uint32_t q[4] = { g_tri[0], g_tri[1], g_tri[2], g_tri[5] };
            for (int k = 0; k < 4; k++) put(&p, q[k], index_size, big);
            t++;
            continue;
        }
        put(&p, 3, count_size, big);
        for (int k = 0; k < 3; k++) put(&p, g_tri[3 * t + k], index_size, big);
    }
    size_t size = (size_t)(p - buf);
    if (cut && cut < size) size = cut;
    write_bytes(path, buf, size);
    free(buf);
    return size;
}

/* GLB: index_size 1, 2 or 4 (0: no indices, the triangles' corners written out in order). */
static size_t write_glb(const char *path, unsigned index_size, size_t cut, int view_short)
{
    const int nv = index_size ? NV : 3 * NT;
    const size_t pos_bytes = (size_t)nv * 12, idx_bytes = index_size ? (size_t)NT * 3 * index_size : 0;
    const size_t idx_pad = (idx_bytes + 3) & ~(size_t)3, bin_len = pos_bytes + idx_pad;
    char json[2048];
    int n;
    if (index_size) {
        n = snprintf(json, sizeof json,
                     "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
                     "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
                     "\"buffers\":[{\"byteLength\":%zu}],\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%zu},"
                     "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}],\"accessors\":[{\"bufferView\":0,"
                     "\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\",\"min\":[-2,-2,-2],\"max\":[2,2,2]},"
                     "{\"bufferView\":1,\"componentType\":%d,\"count\":%d,\"type\":\"SCALAR\"}]}",
                     bin_len, pos_bytes - (view_short ? 12 : 0), pos_bytes, idx_bytes, nv,
                     index_size == 1 ? 5121 : index_size == 2 ? 5123 : 5125, 3 * NT);
    } else {
        n = snprintf(json, sizeof json,
                     "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
                     "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"mode\":4}]}],"
                     "\"buffers\":[{\"byteLength\":%zu}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":%zu}],"
                     "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\","
                     "\"min\":[-2,-2,-2],\"max\":[2,2,2]}]}", bin_len, pos_bytes - (view_short ? 12 : 0), nv);
    }
    while (n % 4) json[n++] = ' ';
    const size_t total = 12 + 8 + (size_t)n + 8 + bin_len;
    unsigned char *buf = calloc(1, total);
    assert_non_null(buf);
    unsigned char *p = buf;
    memcpy(p, "glTF", 4);
    p += 4;
    put(&p, 2, 4, 0);
    put(&p, total, 4, 0);
    put(&p, (uint64_t)n, 4, 0);
    memcpy(p, "JSON", 4);
    p += 4;
    memcpy(p, json, (size_t)n);
    p += n;
    put(&p, bin_len, 4, 0);
    memcpy(p, "BIN\0", 4);
    p += 4;
    for (int v = 0; v < nv; v++) {
        const float *src = index_size ? g_pos + 3 * v : g_pos + 3 * g_tri[v];
        for (int k = 0; k < 3; k++) put_float(&p, src[k], 0);
    }
    for (int i = 0; index_size && i < 3 * NT; i++) put(&p, g_tri[i], index_size, 0);
    size_t size = total;
    if (cut && cut < size) size = cut;
    write_bytes(path, buf, size);
    free(buf);
    return size;
}

static sr_mesh_transform xform(void)
{
    sr_mesh_transform xf;
    memset(&xf, 0, sizeof xf);
    xf.scale = 1.7f;
    xf.rotate_deg = sr_v3(10.0f, -35.0f, 80.0f);
    xf.translate = sr_v3(0.25f, -3.0f, 1.5f);
    return xf;
}

static uint32_t load(const char *path, sr_mesh_reader reader, sr_mesh_normals normals, sr_prim **prims, char *notice,
                     sr_error *e)
{
    const sr_mesh_transform xf = xform();
    sr_mesh_opts o = { .normals = normals, .crease_deg = 180.0f, .reader = reader, .notice = notice,
                       .notice_cap = notice ? 256 : 0 };
    uint32_t count = 0;
    *prims = NULL;
    memset(e, 0, sizeof *e);
    const sr_status st = sr_mesh_load_ex(path, &xf, 3, &o, prims, &count, NULL, e);
    return st ? 0 : count;
}

/* The file read both ways: the same triangles, byte for byte; `direct`: the direct reader
 * took it (else assimp did both). */
static void same_both_ways(const char *path, int direct, sr_mesh_normals normals)
{
    sr_prim *fast = NULL, *slow = NULL;
    sr_error e;
    char n1[256] = "", n2[256] = "";
    const uint32_t before = sr_mesh_direct_loads();
    const uint32_t nf = load(path, SR_MESH_READER_AUTO, normals, &fast, n1, &e);
    if (!nf) fail_msg("%s: %s", path, e.msg);
    assert_int_equal(sr_mesh_direct_loads() - before, direct ? 1 : 0);
    const uint32_t ns = load(path, SR_MESH_READER_ASSIMP, normals, &slow, n2, &e);
    if (!ns) fail_msg("%s (assimp): %s", path, e.msg);
    assert_int_equal(sr_mesh_direct_loads() - before, direct ? 1 : 0);
    assert_int_equal(nf, ns);
    assert_true(nf > NT / 2 && nf < NT);   /* the zero-area triangles at the poles (and one more) go */
    assert_memory_equal(fast, slow, (size_t)nf * sizeof *fast);
    assert_string_equal(n1, n2);
    free(fast);
    free(slow);
}

static void test_ply_same_as_assimp(void **state)
{
    (void)state;
    char p[512];
    write_ply(tmp(p, sizeof p, "direct_le.ply"), 0, "uchar", 1, "int", 4, 0, 0, 0);
    same_both_ways(p, 1, SR_NORMALS_AUTO);
    write_ply(tmp(p, sizeof p, "direct_be.ply"), 1, "uchar", 1, "uint", 4, 0, 0, 0);
    same_both_ways(p, 1, SR_NORMALS_AUTO);
    write_ply(tmp(p, sizeof p, "direct_short.ply"), 0, "int", 4, "ushort", 2, 0, 0, 0);
    same_both_ways(p, 1, SR_NORMALS_AUTO);
    /* normals: flat shading ignores them (and says so, as assimp's path does) */
    write_ply(tmp(p, sizeof p, "direct_normals.ply"), 0, "uchar", 1, "int", 4, 1, 0, 0);
    same_both_ways(p, 1, SR_NORMALS_FLAT);
    same_both_ways(p, 0, SR_NORMALS_AUTO);   /* the file's normals: assimp's */
    write_ply(tmp(p, sizeof p, "direct_quad.ply"), 0, "uchar", 1, "int", 4, 0, 1, 0);
    same_both_ways(p, 0, SR_NORMALS_AUTO);   /* a polygon: assimp triangulates */
}

static void test_glb_same_as_assimp(void **state)
{
    (void)state;
    char p[512];
    write_glb(tmp(p, sizeof p, "direct_u16.glb"), 2, 0, 0);
    same_both_ways(p, 1, SR_NORMALS_AUTO);
    write_glb(tmp(p, sizeof p, "direct_u32.glb"), 4, 0, 0);
    same_both_ways(p, 1, SR_NORMALS_AUTO);
    write_glb(tmp(p, sizeof p, "direct_u8.glb"), 1, 0, 0);
    same_both_ways(p, 1, SR_NORMALS_AUTO);
    write_glb(tmp(p, sizeof p, "direct_flat.glb"), 0, 0, 0);
    same_both_ways(p, 1, SR_NORMALS_AUTO);
}

static void test_obj_same_as_assimp(void **state)
{
    (void)state;
    char p[512];
    static const char *const fmts[] = { "%.6f", "%.9g", "%.17g", "%.3e", "%+.20f" };
    for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
        write_obj(tmp(p, sizeof p, "direct.obj"), fmts[k], 0, 0);
        same_both_ways(p, 1, SR_NORMALS_AUTO);
    }
    write_obj(tmp(p, sizeof p, "direct_neg.obj"), "%.7f", 1, 1);
    same_both_ways(p, 1, SR_NORMALS_AUTO);
    /* what the reader leaves to assimp: a group, a normal, a polygon */
    write_obj(tmp(p, sizeof p, "direct_grouped.obj"), "%.6f", 0, 0);
    FILE *f = fopen(p, "ab");
    fputs("g second\nvn 0 1 0\nf 1 2 3 4\n", f);
    fclose(f);
    same_both_ways(p, 0, SR_NORMALS_AUTO);
}

/* Every way of cutting a binary PLY short is refused naming the file and what is missing. */
static void test_ply_cut_short(void **state)
{
    (void)state;
    char p[512];
    const size_t whole = write_ply(tmp(p, sizeof p, "cut.ply"), 0, "uchar", 1, "int", 4, 0, 0, 0);
    const size_t cuts[] = { whole - 1, whole - 13 * 7 - 5, whole - 13 * (NT - 1), whole - 13 * NT - 6 };
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        write_ply(p, 0, "uchar", 1, "int", 4, 0, 0, cuts[k]);
        sr_prim *prims = NULL;
        sr_error e;
        assert_int_equal(load(p, SR_MESH_READER_AUTO, SR_NORMALS_AUTO, &prims, NULL, &e), 0);
        assert_int_equal(e.status, SR_ERR_INPUT);
        assert_non_null(strstr(e.msg, p));
        if (!strstr(e.msg, "cut short")) fail_msg("cut at %zu: %s", cuts[k], e.msg);
        free(prims);
    }
    /* and through the CLI: exit 2, the message on stderr, no image */
    char scene[512], out[512], text[1024], err[4096];
    snprintf(text, sizeof text, "{\"camera\": {\"position\": [0, 0, 4], \"look_at\": [0, 0, 0]},"
             "\"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.5, 0.5, 0.5]}},"
             "\"objects\": [{\"type\": \"mesh\", \"file\": \"cut.ply\", \"material\": \"m\"}]}");
    sr_test_write_file(scene, sizeof scene, "cut_ply.json", text);
    tmp(out, sizeof out, "cut_ply.png");
    remove(out);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, "--width", "8", "--height", "8", NULL };
    assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
    assert_non_null(strstr(err, "cut short"));
    assert_false(sr_test_file_exists(out));
}

static void test_glb_cut_short(void **state)
{
    (void)state;
    char p[512];
    const size_t whole = write_glb(tmp(p, sizeof p, "cut.glb"), 4, 0, 0);
    const size_t cuts[] = { whole - 1, whole - 4 * 3 * NT, 30 };
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        write_glb(p, 4, cuts[k], 0);
        sr_prim *prims = NULL;
        sr_error e;
        assert_int_equal(load(p, SR_MESH_READER_AUTO, SR_NORMALS_AUTO, &prims, NULL, &e), 0);
        assert_int_equal(e.status, SR_ERR_INPUT);
        assert_non_null(strstr(e.msg, p));
        free(prims);
    }
    /* an accessor past its buffer view: the direct reader's own check */
    write_glb(p, 4, 0, 1);
    sr_prim *prims = NULL;
    sr_error e;
    assert_int_equal(load(p, SR_MESH_READER_AUTO, SR_NORMALS_AUTO, &prims, NULL, &e), 0);
    assert_int_equal(e.status, SR_ERR_INPUT);
    if (!strstr(e.msg, "accessors[0]") || !strstr(e.msg, "past its buffer view")) fail_msg("%s", e.msg);
    free(prims);
    /* through the CLI: exit 2 */
    write_glb(p, 4, whole - 100, 0);
    char scene[512], text[1024], err[4096], out[512];
    snprintf(text, sizeof text, "{\"camera\": {\"position\": [0, 0, 4], \"look_at\": [0, 0, 0]},"
             "\"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.5, 0.5, 0.5]}},"
             "\"objects\": [{\"type\": \"mesh\", \"file\": \"cut.glb\", \"material\": \"m\"}]}");
    sr_test_write_file(scene, sizeof scene, "cut_glb.json", text);
    tmp(out, sizeof out, "cut_glb.png");
    remove(out);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, "--width", "8", "--height", "8", NULL };
    assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
    assert_non_null(strstr(err, "cut.glb"));
    assert_false(sr_test_file_exists(out));
}

/* An index past the vertices: named with the triangle and its byte (PLY, GLB) or line (OBJ). */
static void test_index_out_of_range(void **state)
{
    (void)state;
    char p[512];
    const uint32_t keep = g_tri[3 * 7 + 1];
    g_tri[3 * 7 + 1] = NV;
    write_ply(tmp(p, sizeof p, "bad_index.ply"), 0, "uchar", 1, "int", 4, 0, 0, 0);
    sr_prim *prims = NULL;
    sr_error e;
    assert_int_equal(load(p, SR_MESH_READER_AUTO, SR_NORMALS_AUTO, &prims, NULL, &e), 0);
    assert_int_equal(e.status, SR_ERR_INPUT);
    if (!strstr(e.msg, "triangle 7") || !strstr(e.msg, "names vertex 156")) fail_msg("%s", e.msg);
    write_glb(tmp(p, sizeof p, "bad_index.glb"), 2, 0, 0);
    assert_int_equal(load(p, SR_MESH_READER_AUTO, SR_NORMALS_AUTO, &prims, NULL, &e), 0);
    if (!strstr(e.msg, "triangle 7") || !strstr(e.msg, "names vertex 156")) fail_msg("%s", e.msg);
    write_obj(tmp(p, sizeof p, "bad_index.obj"), "%.6f", 0, 0);
    assert_int_equal(load(p, SR_MESH_READER_AUTO, SR_NORMALS_AUTO, &prims, NULL, &e), 0);
    /* line 1 is the comment, 2 blank, then NV vertices and "s off" */
    char want[128];
    snprintf(want, sizeof want, "OBJ line %d: vertex index %d is out of range (the file has %d)", 3 + NV + 1 + 7, NV + 1, NV);
    if (!strstr(e.msg, want)) fail_msg("%s", e.msg);
    g_tri[3 * 7 + 1] = keep;
    /* an index 0, after a line whose index points past the vertices read so far (allowed) */
    FILE *f = fopen(tmp(p, sizeof p, "bad_zero.obj"), "wb");
    fputs("v 0 0 0\nf 1 2 3\nv 1 0 0\nv 0 1 0\nf 1 0 2\n", f);
    fclose(f);
    assert_int_equal(load(p, SR_MESH_READER_AUTO, SR_NORMALS_AUTO, &prims, NULL, &e), 0);
    if (!strstr(e.msg, "OBJ line 5: vertex index 0 is out of range (the file has 3)")) fail_msg("%s", e.msg);
    free(prims);
}

/* The listener hears every read from 0 to 1, in order; a nonzero answer stops the read. */
typedef struct heard { int calls, stop_at; double first, last; int backwards; } heard;

static int listener(void *ctx, const char *path, double fraction)
{
    heard *h = (heard *)ctx;
    assert_non_null(strstr(path, "listened"));
    if (h->calls == 0) h->first = fraction;
    else if (fraction < h->last) h->backwards = 1;
    h->last = fraction;
    return ++h->calls == h->stop_at;
}

static void test_progress_and_stop(void **state)
{
    (void)state;
    char p[512];
    static const char *const names[] = { "listened.ply", "listened.glb", "listened.obj", "listened_assimp.obj" };
    for (int k = 0; k < 4; k++) {
        tmp(p, sizeof p, names[k]);
        if (k == 0) write_ply(p, 0, "uchar", 1, "int", 4, 0, 0, 0);
        else if (k == 1) write_glb(p, 4, 0, 0);
        else write_obj(p, "%.6f", 0, 0);
        if (k == 3) {   /* a group: assimp's, which reports only its start and end */
            FILE *f = fopen(p, "ab");
            fputs("g more\n", f);
            fclose(f);
        }
        heard h = { 0, 0, -1, -1, 0 };
        sr_mesh_listen(listener, &h);
        sr_prim *prims = NULL;
        sr_error e;
        if (!load(p, SR_MESH_READER_AUTO, SR_NORMALS_AUTO, &prims, NULL, &e)) fail_msg("%s", e.msg);
        free(prims);
        assert_true(h.calls >= 2);
        assert_true(h.first == 0.0 && h.last == 1.0 && !h.backwards);
        /* stopped at its second report: the load fails with SR_INTERRUPTED */
        heard stop = { 0, 2, -1, -1, 0 };
        sr_mesh_listen(listener, &stop);
        assert_int_equal(load(p, SR_MESH_READER_AUTO, SR_NORMALS_AUTO, &prims, NULL, &e), 0);
        assert_int_equal(e.status, SR_INTERRUPTED);
        free(prims);
        sr_mesh_listen(NULL, NULL);
    }
}

int main(void)
{
    make_sphere();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ply_same_as_assimp),
        cmocka_unit_test(test_glb_same_as_assimp),
        cmocka_unit_test(test_obj_same_as_assimp),
        cmocka_unit_test(test_ply_cut_short),
        cmocka_unit_test(test_glb_cut_short),
        cmocka_unit_test(test_index_out_of_range),
        cmocka_unit_test(test_progress_and_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
