/* Files a mesh pulls in are checked and budgeted before assimp reads anything: an OBJ's
 * mtllib or a glTF's buffer that is a FIFO (it blocked assimp forever) or too large for the
 * memory limit, a .glb whose header declares more than the file holds (assimp allocated
 * about 4 GiB for 22 bytes), and mesh formats the project does not test. Each is refused
 * with exit 2 and a message naming the file, within seconds. */
#include "testutil.h"
#include "hardutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[1024];

static void write_file(const char *name, const void *bytes, size_t n)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

/* A scene with one mesh object `mesh`, rendered tiny on the CPU: exit code and stderr. */
static int render_mesh(const char *mesh, const char *mem_limit, sr_child *c)
{
    char scene[1200], text[1024], out[1200], env_mem[64];
    snprintf(text, sizeof text,
             "{\"camera\": {\"position\": [0, 1, 5], \"look_at\": [0, 0, 0]},\n"
             " \"materials\": {\"m\": {\"type\": \"diffuse\"}},\n"
             " \"objects\": [{\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"m\"}]}\n", mesh);
    write_file("scene.json", text, strlen(text));
    snprintf(scene, sizeof scene, "%s/scene.json", dir);
    snprintf(out, sizeof out, "%s/out.png", dir);
    snprintf(env_mem, sizeof env_mem, "SR_HOST_MEM_LIMIT=%s", mem_limit ? mem_limit : "64G");
    const char *argv[] = { "render", scene, "--backend", "cpu", "--width", "8", "--height", "8", "-q", "-o", out, NULL };
    const char *env[] = { env_mem, NULL };
    return sr_hard_run(c, argv, env, 30.0);   /* -2: it hung */
}

static void expect(int code, const sr_child *c, const char *what)
{
    if (code != 2 || !strstr(c->err, what)) fail_msg("exit %d, expected 2 and \"%s\"; it printed:\n%s", code, what, c->err);
}

static const char tri_obj[] = "mtllib %s\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";

/* NAME.mtl holding `mtl`, and a triangle NAME.obj naming it: refused with `want`. */
static void expect_mtl_refused(const char *name, const char *mtl, const char *want)
{
    char mtl_name[64], obj_name[64], obj[256];
    snprintf(mtl_name, sizeof mtl_name, "%s.mtl", name);
    snprintf(obj_name, sizeof obj_name, "%s.obj", name);
    write_file(mtl_name, mtl, strlen(mtl));
    snprintf(obj, sizeof obj, tri_obj, mtl_name);
    write_file(obj_name, obj, strlen(obj));
    sr_child c;
    expect(render_mesh(obj_name, NULL, &c), &c, want);
}

static void test_obj_mtllib_fifo(void **state)
{
    (void)state;
    char fifo[1200], obj[256];
    snprintf(fifo, sizeof fifo, "%s/pipe.mtl", dir);
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    snprintf(obj, sizeof obj, tri_obj, "pipe.mtl");
    write_file("fifo.obj", obj, strlen(obj));
    sr_child c;
    expect(render_mesh("fifo.obj", NULL, &c), &c, "pipe.mtl, which is not a regular file");
    /* assimp opens the whole rest of the line as one name, spaces and all */
    snprintf(fifo, sizeof fifo, "%s/two words.mtl", dir);
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    snprintf(obj, sizeof obj, tri_obj, "two words.mtl");
    write_file("spaced.obj", obj, strlen(obj));
    expect(render_mesh("spaced.obj", NULL, &c), &c, "two words.mtl, which is not a regular file");
}

static void test_obj_mtllib_budgeted(void **state)
{
    (void)state;
    char big[1200], obj[256];
    snprintf(big, sizeof big, "%s/big.mtl", dir);
    const int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 1ll << 30), 0);   /* 1 GiB, sparse */
    close(fd);
    snprintf(obj, sizeof obj, tri_obj, "big.mtl");
    write_file("big.obj", obj, strlen(obj));
    sr_child c;
    expect(render_mesh("big.obj", "100M", &c), &c, "with the files it refers to");
    unlink(big);
}

/* A glTF is read whole to find what it refers to, so the file is budgeted before that: with
 * too little memory for its import the budget refuses it, not the JSON reader. */
static void test_gltf_budgeted_before_read(void **state)
{
    (void)state;
    static char big[200 * 1024];
    memset(big, ' ', sizeof big);
    big[0] = '[';   /* not a glTF: read, it would be refused as one */
    write_file("big.gltf", big, sizeof big);
    sr_child c;
    expect(render_mesh("big.gltf", "1M", &c), &c, "importing mesh file");
    if (strstr(c.err, "glTF")) fail_msg("the file was read before it was budgeted:\n%s", c.err);
}

/* An MTL whose texture statement comes before any newmtl crashed assimp's reader (a null
 * material; tests/fuzz found it), also when the named mtllib is missing and assimp falls
 * back to the OBJ's own name with "mtl": refused with the MTL's line. A well-formed MTL with
 * the same statement after newmtl still renders. */
static void test_mtl_texture_before_newmtl(void **state)
{
    (void)state;
    char obj[256];
    expect_mtl_refused("early", "# a comment\nKd 1 1 1\nmap_Kd tex.png\nnewmtl a\n",
                       "early.mtl:3: a texture ('map_') before any 'newmtl'");
    sr_child c;
    /* the named file is missing: assimp reads fallback.mtl, next to fallback.obj */
    const char bump[] = "bump b.png\n";
    write_file("fallback.mtl", bump, strlen(bump));
    snprintf(obj, sizeof obj, tri_obj, "not-there.mtl");
    write_file("fallback.obj", obj, strlen(obj));
    expect(render_mesh("fallback.obj", NULL, &c), &c, "fallback.mtl:1: a texture ('bump') before any 'newmtl'");
    expect_mtl_refused("upper", "# a comment\n   Norm n.png\n",   /* assimp reads the keyword in any case */
                       "upper.mtl:2: a texture ('norm') before any 'newmtl'");
    /* an mtllib with an empty path part (assimp leaked on both, found by tests/fuzz) */
    snprintf(obj, sizeof obj, tri_obj, "mats//x.mtl");
    write_file("slashes.obj", obj, strlen(obj));
    expect(render_mesh("slashes.obj", NULL, &c), &c, "mtllib mats//x.mtl has an empty path part");
    snprintf(obj, sizeof obj, tri_obj, "mats/");
    write_file("folder.obj", obj, strlen(obj));
    expect(render_mesh("folder.obj", NULL, &c), &c, "mtllib mats/ has an empty path part");
    snprintf(obj, sizeof obj, tri_obj, "nowhere/.");   /* assimp opened a folder for it and leaked */
    write_file("dot.obj", obj, strlen(obj));
    expect(render_mesh("dot.obj", NULL, &c), &c, "mtllib nowhere/. names a folder");
    snprintf(obj, sizeof obj, tri_obj, "..");
    write_file("dotdot.obj", obj, strlen(obj));
    expect(render_mesh("dotdot.obj", NULL, &c), &c, "mtllib .. names a folder");
    const char good[] = "newmtl a\nKd 1 1 1\nmap_Kd missing.png\n";
    write_file("good.mtl", good, strlen(good));
    snprintf(obj, sizeof obj, tri_obj, "good.mtl");
    write_file("good.obj", obj, strlen(obj));
    const int code = render_mesh("good.obj", NULL, &c);
    if (code != 0) fail_msg("a well-formed MTL was refused (exit %d):\n%s", code, c.err);
}

/* assimp's OBJ and MTL readers end a line at a lone carriage return too, so what follows one
 * is a statement of its own: an anisotropy value ('a') before newmtl there wrote through a
 * null material (tests/fuzz), and a face there escaped the index check (assimp leaked). Both
 * are refused with the line as assimp counts it; an OBJ whose lines all end in '\r' renders. */
static void test_lines_end_at_carriage_returns(void **state)
{
    (void)state;
    expect_mtl_refused("aniso", "# a comment\ra 1\nnewmtl a\n",
                       "aniso.mtl:2: an anisotropy value ('a...') before any 'newmtl'");
    sr_child c;
    const char hidden[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\no second\n# c\rf 1 2 99\n";
    write_file("hidden.obj", hidden, strlen(hidden));
    expect(render_mesh("hidden.obj", NULL, &c), &c, "OBJ line 7: vertex index 99 is out of range (the file has 3)");
    const char mac[] = "v 0 0 0\rv 1 0 0\rv 0 1 0\rf 1 2 3\r";
    write_file("mac.obj", mac, strlen(mac));
    const int code = render_mesh("mac.obj", NULL, &c);
    if (code != 0) fail_msg("an OBJ with carriage-return line ends was refused (exit %d):\n%s", code, c.err);
}

static void test_glb_header_checked(void **state)
{
    (void)state;
    /* 12-byte header that says 22 bytes, then a chunk that claims 0x7fffffff bytes */
    const unsigned char glb[22] = { 'g', 'l', 'T', 'F', 2, 0, 0, 0, 22, 0, 0, 0,
                                    0xff, 0xff, 0xff, 0x7f, 'J', 'S', 'O', 'N', '{', '}' };
    write_file("bomb.glb", glb, sizeof glb);
    sr_child c;
    expect(render_mesh("bomb.glb", "100M", &c), &c, "past the end of the file");
    unsigned char wrong[22];
    memcpy(wrong, glb, sizeof wrong);
    wrong[8] = 200;   /* the header's total length is not the file's */
    write_file("liar.glb", wrong, sizeof wrong);
    expect(render_mesh("liar.glb", "100M", &c), &c, "its header declares 200 bytes");
}

/* A .gltf or .glb goes to assimp only when its glTF 2 reader surely takes it: otherwise
 * assimp offered the file to every reader by content, and OBJ text saved as .gltf was
 * imported by the OBJ reader, past the OBJ checks. */
static void test_gltf_only_as_gltf2(void **state)
{
    (void)state;
    sr_child c;
    const char *obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    write_file("obj.gltf", obj, strlen(obj));
    expect(render_mesh("obj.gltf", NULL, &c), &c, "its glTF JSON is malformed at byte 0");
    const char *v1 = "{\"asset\": {\"version\": \"1.0\"}}";
    write_file("v1.gltf", v1, strlen(v1));
    expect(render_mesh("v1.gltf", NULL, &c), &c, "not glTF 2");
    const char *ctl = "{\"asset\": {\"version\": \"2.0\", \"generator\": \"a\tb\"}}";
    write_file("ctl.gltf", ctl, strlen(ctl));
    expect(render_mesh("ctl.gltf", NULL, &c), &c, "a control byte in a string");
    const char *tail = "{\"asset\": {\"version\": \"2.0\"}} v 0 0 0";
    write_file("tail.gltf", tail, strlen(tail));
    expect(render_mesh("tail.gltf", NULL, &c), &c, "more after the top-level value");
    unsigned char glb1[28] = { 'g', 'l', 'T', 'F', 1, 0, 0, 0, 28, 0, 0, 0, 8, 0, 0, 0, 'J', 'S', 'O', 'N',
                               '{', '}', ' ', ' ', ' ', ' ', ' ', ' ' };
    write_file("v1.glb", glb1, sizeof glb1);
    expect(render_mesh("v1.glb", NULL, &c), &c, "a binary glTF of version 1; expected 2");
    /* A glTF 2 triangle in a data: URI (from the fuzz corpus) is read. */
    char src[1200], buf[4096];
    FILE *f = fopen(sr_test_source_path(src, sizeof src, "tests/fuzz/corpus_mesh/gltf_data_uri.bin"), "rb");
    assert_non_null(f);
    const size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    write_file("tri.gltf", buf, n);
    assert_int_equal(render_mesh("tri.gltf", NULL, &c), 0);
}

static void test_gltf_buffer_fifo(void **state)
{
    (void)state;
    char fifo[1200];
    snprintf(fifo, sizeof fifo, "%s/data.bin", dir);
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    const char *gltf = "{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [{\"uri\": \"data.bin\", \"byteLength\": 36}]}";
    write_file("m.gltf", gltf, strlen(gltf));
    sr_child c;
    expect(render_mesh("m.gltf", NULL, &c), &c, "data.bin, which is not a regular file");
}

static void test_untested_formats_refused(void **state)
{
    (void)state;
    write_file("x.3mf", "PK\x03\x04", 4);
    sr_child c;
    expect(render_mesh("x.3mf", NULL, &c), &c, "unsupported format; expected a name ending in .obj, .ply, .stl");
}

/* Inputs assimp leaks on, refused before it reads them: a text STL cut short, a binary STL
 * whose size does not match its count, and an OBJ face continued with a backslash onto an
 * out-of-range index. A whole STL of either kind still loads. */
static void test_stl_and_obj_continuation(void **state)
{
    (void)state;
    const char *cut = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n";
    write_file("cut.stl", cut, strlen(cut));
    sr_child c;
    expect(render_mesh("cut.stl", NULL, &c), &c, "does not end with \"endsolid\"");
    unsigned char bin[84 + 50] = { 0 };
    bin[80] = 2;   /* says two triangles, holds one */
    write_file("short.stl", bin, sizeof bin);
    expect(render_mesh("short.stl", NULL, &c), &c, "neither a binary STL");
    const char *obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 \\\n 99\n";
    write_file("cont.obj", obj, strlen(obj));
    expect(render_mesh("cont.obj", NULL, &c), &c, "is continued with");
    /* After a NUL byte assimp starts a new line: an mtllib there (naming a folder) leaked. */
    const char nul[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n \0mtllib /\n";
    write_file("nul.obj", nul, sizeof nul - 1);
    expect(render_mesh("nul.obj", NULL, &c), &c, "OBJ line 5 holds a NUL byte");
    const char *whole = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n"
                        "endloop\nendfacet\nendsolid t\n";
    write_file("whole.stl", whole, strlen(whole));
    assert_int_equal(render_mesh("whole.stl", NULL, &c), 0);
    /* Text STL read as assimp reads it: it threw (and leaked) on each of these. */
    const char *two = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvt 0 1 0\n"
                      "endloop\nendfacet\nendsolid t\n";
    write_file("two.stl", two, strlen(two));
    expect(render_mesh("two.stl", NULL, &c), &c, "a text STL facet with 2 vertices (facet 1); expected 3");
    const char *split = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1\n0\n"
                        "endloop\nendfacet\nendsolid t\n";
    write_file("split.stl", split, strlen(split));
    expect(render_mesh("split.stl", NULL, &c), &c, "a line end where its number 3 belongs");
    const char *word = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 z\n"
                       "endloop\nendfacet\nendsolid t\n";
    write_file("word.stl", word, strlen(word));
    expect(render_mesh("word.stl", NULL, &c), &c, "\"z\" where its number 3 belongs");
    const char *bare = "solid t\nfacet\nnormal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n"
                       "endloop\nendfacet\nendsolid t\n";
    write_file("bare.stl", bare, strlen(bare));
    expect(render_mesh("bare.stl", NULL, &c), &c, "without \"normal\" on its line");
    const char *named = "solid endsolid\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                        "endloop\nendfacet\nendsolid t\n";   /* "endsolid" is the solid's name here */
    write_file("named.stl", named, strlen(named));
    expect(render_mesh("named.stl", NULL, &c), &c, "a text STL facet with 2 vertices");
    /* Two solids, numbers in every form assimp reads: accepted. */
    const char *solids = "solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n"
                         "endloop\nendfacet\nendsolid a\nsolid b\n facet normal +0 -0. 1e0\n  outer loop\n"
                         "   vertex .5 0 0\n   vertex 1.5E+0 0 0\n   vertex 0.5 1 -0\n  endloop\n endfacet\nendsolid b\n";
    write_file("solids.stl", solids, strlen(solids));
    assert_int_equal(render_mesh("solids.stl", NULL, &c), 0);
    bin[80] = 1;   /* one triangle, 50 bytes: a whole binary STL */
    bin[84 + 12 + 12] = 0; /* vertices (0,0,0), (1,0,0), (0,1,0) as floats */
    const float v[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
    memcpy(bin + 84 + 12, v, sizeof v);
    write_file("one.stl", bin, sizeof bin);
    assert_int_equal(render_mesh("one.stl", NULL, &c), 0);
}

/* ---- glTF sparse accessors --------------------------------------------------------------- */

/* A triangle (positions, then uint16 indices) whose positions carry a sparse accessor: one
 * uint16 index at byte 44 (`sparse_index`) and one VEC3 value at byte 48: 60 bytes. */
static size_t sparse_buffer(unsigned char buf[60], unsigned sparse_index)
{
    const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, value[3] = { 2, 0, 0 };
    const unsigned short idx[4] = { 0, 1, 2, 0 };
    memset(buf, 0, 60);
    memcpy(buf, pos, sizeof pos);
    memcpy(buf + 36, idx, sizeof idx);
    buf[44] = (unsigned char)sparse_index;
    buf[45] = (unsigned char)(sparse_index >> 8);
    memcpy(buf + 48, value, sizeof value);
    return 60;
}

/* The glTF JSON over such a buffer: `buffer` is its "buffers" entry's members, `sparse` the
 * accessor's "sparse" object. */
static void sparse_json(char *out, size_t cap, const char *buffer, const char *sparse)
{
    snprintf(out, cap,
             "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}], \"nodes\": [{\"mesh\": 0}],"
             " \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"indices\": 1}]}],"
             " \"buffers\": [{%s}],"
             " \"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": 36},"
             " {\"buffer\": 0, \"byteOffset\": 36, \"byteLength\": 6}, {\"buffer\": 0, \"byteOffset\": 44, \"byteLength\": 2},"
             " {\"buffer\": 0, \"byteOffset\": 48, \"byteLength\": 12}],"
             " \"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 3, \"type\": \"VEC3\","
             " \"min\": [0, 0, 0], \"max\": [2, 1, 0], \"sparse\": %s},"
             " {\"bufferView\": 1, \"componentType\": 5123, \"count\": 3, \"type\": \"SCALAR\"}]}", buffer, sparse);
}

static void base64(char *out, const unsigned char *b, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        const unsigned w = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
        *out++ = abc[w >> 18 & 63];
        *out++ = abc[w >> 12 & 63];
        *out++ = i + 1 < n ? abc[w >> 6 & 63] : '=';
        *out++ = i + 2 < n ? abc[w & 63] : '=';
    }
    *out = '\0';
}

/* NAME.gltf with the buffer in a data: URI, its byteLength `declared`. */
static void write_sparse_gltf(const char *name, unsigned sparse_index, unsigned declared, const char *sparse)
{
    unsigned char buf[60];
    char b64[128], member[256], json[2048];
    base64(b64, buf, sparse_buffer(buf, sparse_index));
    snprintf(member, sizeof member, "\"uri\": \"data:application/octet-stream;base64,%s\", \"byteLength\": %u", b64, declared);
    sparse_json(json, sizeof json, member, sparse);
    write_file(name, json, strlen(json));
}

/* NAME.glb: the same JSON (without a uri) and the buffer as its BIN chunk. */
static void write_sparse_glb(const char *name, unsigned sparse_index, const char *sparse)
{
    unsigned char buf[60], glb[2400];
    char json[2048];
    sparse_json(json, sizeof json, "\"byteLength\": 60", sparse);
    size_t jn = strlen(json);
    while (jn % 4) json[jn++] = ' ';
    const unsigned total = (unsigned)(12 + 8 + jn + 8 + 60);
    const unsigned head[5] = { 0x46546C67u /* glTF */, 2, total, (unsigned)jn, 0x4E4F534Au /* JSON */ };
    memcpy(glb, head, sizeof head);
    memcpy(glb + 20, json, jn);
    const unsigned bin[2] = { 60, 0x004E4942u /* BIN\0 */ };
    memcpy(glb + 20 + jn, bin, sizeof bin);
    memcpy(glb + 28 + jn, buf, sparse_buffer(buf, sparse_index));
    write_file(name, glb, total);
}

static const char good_sparse[] =
    "{\"count\": 1, \"indices\": {\"bufferView\": 2, \"componentType\": 5123}, \"values\": {\"bufferView\": 3}}";

/* A sparse accessor is checked before assimp patches it: values reaching past their buffer
 * view were read past the buffer (AddressSanitizer: heap-buffer-overflow in assimp; the
 * release build went on to "no triangles with a non-zero area"), indices without a
 * "bufferView" were a null pointer (SIGSEGV). Each is refused with exit 2 and a message
 * naming the accessor, in a .gltf (data: URI or a file beside it) and a .glb alike; a
 * well-formed sparse accessor still renders. */
static void test_gltf_sparse_checked(void **state)
{
    (void)state;
    sr_child c;
    const char past[] = "{\"count\": 1, \"indices\": {\"bufferView\": 2, \"componentType\": 5123},"
                        " \"values\": {\"bufferView\": 3, \"byteOffset\": 8}}";
    const char *past_msg = "accessors[0].sparse.values reaches past its buffer view: byteOffset 8 + 12 bytes, "
                           "but bufferViews[3] has 12";
    write_sparse_gltf("past.gltf", 1, 60, past);
    expect(render_mesh("past.gltf", NULL, &c), &c, past_msg);
    write_sparse_glb("past.glb", 1, past);
    expect(render_mesh("past.glb", NULL, &c), &c, past_msg);
    const char noview[] = "{\"count\": 1, \"indices\": {\"componentType\": 5123}, \"values\": {\"bufferView\": 3}}";
    write_sparse_gltf("noview.gltf", 1, 60, noview);
    expect(render_mesh("noview.gltf", NULL, &c), &c, "accessors[0].sparse.indices.bufferView is missing");
    const char ftype[] = "{\"count\": 1, \"indices\": {\"bufferView\": 2, \"componentType\": 5126}, \"values\": {\"bufferView\": 3}}";
    write_sparse_gltf("ftype.gltf", 1, 60, ftype);
    expect(render_mesh("ftype.gltf", NULL, &c), &c, "sparse.indices.componentType is missing or not an unsigned integer "
                                                    "type; expected 5121, 5123 or 5125");
    /* the buffer says 50 bytes: the values' view (bytes 48 to 60) reaches past it (every view
     * is checked against its buffer first, mesh_check_gltf_struct.c) */
    write_sparse_gltf("short.gltf", 1, 50, good_sparse);
    expect(render_mesh("short.gltf", NULL, &c), &c, "bufferViews[3] reaches past its buffer: byteOffset 48 + "
                                                    "byteLength 12, but buffers[0] has 50 bytes");
    /* an index past the accessor's 3 elements, read from a .glb's BIN chunk and from a file */
    write_sparse_glb("index.glb", 7, good_sparse);
    const char *index_msg = "accessors[0].sparse.indices[0] is 7, but the accessor has 3 elements";
    expect(render_mesh("index.glb", NULL, &c), &c, index_msg);
    unsigned char buf[60];
    char json[2048];
    write_file("index.bin", buf, sparse_buffer(buf, 7));
    sparse_json(json, sizeof json, "\"uri\": \"index.bin\", \"byteLength\": 60", good_sparse);
    write_file("index.gltf", json, strlen(json));
    expect(render_mesh("index.gltf", NULL, &c), &c, index_msg);
    write_file("index.bin", buf, 40);   /* shorter than its byteLength */
    expect(render_mesh("index.gltf", NULL, &c), &c, "buffers[0] declares 60 bytes but holds 40");
    /* well-formed: rendered */
    write_sparse_gltf("good.gltf", 1, 60, good_sparse);
    int code = render_mesh("good.gltf", NULL, &c);
    if (code != 0) fail_msg("a well-formed sparse accessor was refused (exit %d):\n%s", code, c.err);
    write_sparse_glb("good.glb", 1, good_sparse);
    code = render_mesh("good.glb", NULL, &c);
    if (code != 0) fail_msg("a well-formed sparse accessor in a .glb was refused (exit %d):\n%s", code, c.err);
}

int main(void)
{
    sr_hard_fresh_dir(dir, sizeof dir, "mesh_refs");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_obj_mtllib_fifo),
        cmocka_unit_test(test_obj_mtllib_budgeted),
        cmocka_unit_test(test_mtl_texture_before_newmtl),
        cmocka_unit_test(test_lines_end_at_carriage_returns),
        cmocka_unit_test(test_gltf_budgeted_before_read),
        cmocka_unit_test(test_glb_header_checked),
        cmocka_unit_test(test_gltf_buffer_fifo),
        cmocka_unit_test(test_gltf_only_as_gltf2),
        cmocka_unit_test(test_gltf_sparse_checked),
        cmocka_unit_test(test_untested_formats_refused),
        cmocka_unit_test(test_stl_and_obj_continuation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
