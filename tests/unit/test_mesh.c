/* test_mesh.c: mesh files through assimp into triangles: counts, exact transformed vertices,
 * triangulation, appending, and the errors a person sees for bad files. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "../../src/io/meshes/mesh.h"

static sr_mesh_transform identity(void)
{
    sr_mesh_transform xf;
    memset(&xf, 0, sizeof xf);
    xf.scale = 1.0f;
    return xf;
}

static const char *write_tmp(char *buf, size_t cap, const char *name, const char *text)
{
    return sr_test_write_file(buf, cap, name, text);
}

/* Load and expect success; the caller frees *prims. */
static uint32_t load_ok(const char *path, const sr_mesh_transform *xf, uint32_t material, sr_prim **prims, uint32_t *count)
{
    sr_error e;
    memset(&e, 0, sizeof e);
    sr_status st = sr_mesh_load(path, xf, material, prims, count, &e);
    if (st != SR_OK) fail_msg("sr_mesh_load(%s) failed: %s", path, e.msg);
    return *count;
}

/* The same untransformed, into a new array; returns the count. */
static uint32_t load_plain(const char *path, uint32_t material, sr_prim **prims)
{
    uint32_t count = 0;
    sr_mesh_transform xf = identity();
    *prims = NULL;
    return load_ok(path, &xf, material, prims, &count);
}

/* Rotated by rx, ry, rz degrees (nothing else), into *prims (reused). */
static void load_rotated(const char *path, float rx, float ry, float rz, sr_prim **prims)
{
    uint32_t count = 0;
    sr_mesh_transform xf = identity();
    xf.rotate_deg = sr_v3(rx, ry, rz);
    load_ok(path, &xf, 0, prims, &count);
}

static void load_fails(const char *path, const char *word1, const char *word2)
{
    sr_prim *prims = NULL;
    uint32_t count = 0;
    sr_error e;
    memset(&e, 0, sizeof e);
    sr_mesh_transform xf = identity();
    assert_int_equal(sr_mesh_load(path, &xf, 0, &prims, &count, &e), SR_ERR_INPUT);
    assert_int_equal(e.status, SR_ERR_INPUT);
    assert_int_equal(count, 0);
    if (!strstr(e.msg, path)) fail_msg("message does not name %s: %s", path, e.msg);
    if (!strstr(e.msg, word1)) fail_msg("message does not contain '%s': %s", word1, e.msg);
    if (word2 && !strstr(e.msg, word2)) fail_msg("message does not contain '%s': %s", word2, e.msg);
    free(prims);
}

/* Write text to tmp/name, then load_fails with word. */
static void file_fails(const char *name, const char *text, const char *word)
{
    char path[512];
    load_fails(sr_test_write_file(path, sizeof path, name, text), word, NULL);
}

static void test_obj_triangle(void **state)
{
    (void)state;
    char path[512];
    write_tmp(path, sizeof path, "mesh_tri.obj", "# one triangle\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    sr_prim *prims;
    assert_int_equal(load_plain(path, 7, &prims), 1);
    assert_int_equal(prims[0].kind, SR_PRIM_TRIANGLE);
    assert_int_equal(prims[0].material, 7);
    sr_test_assert_vec(prims[0].a, 0, 0, 0);
    sr_test_assert_vec(prims[0].b, 1, 0, 0);
    sr_test_assert_vec(prims[0].c, 0, 1, 0);
    free(prims);
}

static void test_transform_order(void **state)
{
    (void)state;
    char path[512];
    write_tmp(path, sizeof path, "mesh_xf.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    sr_prim *prims = NULL;
    uint32_t count = 0;

    /* scale 2, a quarter turn about Y ((x, z) -> (z, -x)), then translate */
    sr_mesh_transform xf = identity();
    xf.scale = 2.0f;
    xf.rotate_deg = sr_v3(0, 90, 0);
    xf.translate = sr_v3(1, 2, 3);
    load_ok(path, &xf, 0, &prims, &count);
    sr_test_assert_vec(prims[0].a, 1, 2, 3);
    sr_test_assert_vec(prims[0].b, 1, 2, 1);   /* (2, 0, 0) -> (0, 0, -2) */
    sr_test_assert_vec(prims[0].c, 1, 4, 3);   /* (0, 2, 0) is on the axis */

    /* X first, then Y: (0, 1, 0) -X90-> (0, 0, 1) -Y90-> (1, 0, 0). Y first would give (0, 0, 1). */
    load_rotated(path, 90, 90, 0, &prims);
    sr_test_assert_vec(prims[0].c, 1, 0, 0);
    /* and (1, 0, 0): X leaves it, Y90 takes it to (0, 0, -1) */
    sr_test_assert_vec(prims[0].b, 0, 0, -1);

    /* Y, then Z: (1, 0, 0) -Y90-> (0, 0, -1) -Z90-> (0, 0, -1); (0, 1, 0) -Z90-> (-1, 0, 0) */
    load_rotated(path, 0, 90, 90, &prims);
    sr_test_assert_vec(prims[0].b, 0, 0, -1);
    sr_test_assert_vec(prims[0].c, -1, 0, 0);

    /* a half turn and a negative angle are exact too */
    load_rotated(path, 180, 0, -90, &prims);
    sr_test_assert_vec(prims[0].b, 0, -1, 0);   /* (1, 0, 0) -X180-> same -Z-90-> (0, -1, 0) */
    sr_test_assert_vec(prims[0].c, -1, 0, 0);   /* (0, 1, 0) -X180-> (0, -1, 0) -Z-90-> (-1, 0, 0) */

    /* a general angle: 30 degrees about Z */
    load_rotated(path, 0, 0, 30, &prims);
    assert_true(fabsf(prims[0].b.x - 0.8660254f) < 1e-6f);
    assert_true(fabsf(prims[0].b.y - 0.5f) < 1e-6f);
    free(prims);
}

static void test_obj_quad_triangulated(void **state)
{
    (void)state;
    char path[512];
    write_tmp(path, sizeof path, "mesh_quad.obj", "v 0 0 0\nv 2 0 0\nv 2 3 0\nv 0 3 0\nf 1 2 3 4\n");
    sr_prim *prims;
    assert_int_equal(load_plain(path, 0, &prims), 2);
    /* both triangles lie in the quad, keep its winding (+z normal) and cover its area (6) */
    float area = 0.0f;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(prims[i].kind, SR_PRIM_TRIANGLE);
        sr_vec3 n = sr_cross(sr_sub(prims[i].b, prims[i].a), sr_sub(prims[i].c, prims[i].a));
        assert_true(n.x == 0.0f && n.y == 0.0f && n.z > 0.0f);
        area += 0.5f * n.z;
        const sr_vec3 *v[3] = {&prims[i].a, &prims[i].b, &prims[i].c};
        for (int k = 0; k < 3; k++)
            assert_true((v[k]->x == 0 || v[k]->x == 2) && (v[k]->y == 0 || v[k]->y == 3) && v[k]->z == 0);
    }
    assert_true(area == 6.0f);
    free(prims);
}

static void test_ply_ascii(void **state)
{
    (void)state;
    char path[512];
    write_tmp(path, sizeof path, "mesh_square.ply",
              "ply\n"
              "format ascii 1.0\n"
              "comment a unit square in the XZ plane as two triangles\n"
              "element vertex 4\n"
              "property float x\n"
              "property float y\n"
              "property float z\n"
              "element face 2\n"
              "property list uchar int vertex_indices\n"
              "end_header\n"
              "0 0 0\n"
              "0 0 1\n"
              "1 0 1\n"
              "1 0 0\n"
              "3 0 1 2\n"
              "3 0 2 3\n");
    sr_prim *prims = NULL;
    uint32_t count = 0;
    sr_mesh_transform xf = identity();
    xf.scale = 0.5f;
    xf.translate = sr_v3(10, 0, -10);
    assert_int_equal(load_ok(path, &xf, 3, &prims, &count), 2);
    sr_test_assert_vec(prims[0].a, 10, 0, -10);
    sr_test_assert_vec(prims[0].b, 10, 0, -9.5f);
    sr_test_assert_vec(prims[0].c, 10.5f, 0, -9.5f);
    sr_test_assert_vec(prims[1].a, 10, 0, -10);
    sr_test_assert_vec(prims[1].b, 10.5f, 0, -9.5f);
    sr_test_assert_vec(prims[1].c, 10.5f, 0, -10);
    assert_int_equal(prims[1].material, 3);
    free(prims);
}

static void test_appends(void **state)
{
    (void)state;
    char tri[512], quad[512];
    write_tmp(tri, sizeof tri, "mesh_app_tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    write_tmp(quad, sizeof quad, "mesh_app_quad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n");
    sr_prim *prims = malloc(sizeof *prims);
    assert_non_null(prims);
    memset(prims, 0, sizeof *prims);
    prims[0].kind = SR_PRIM_SPHERE;
    prims[0].b.x = 4.0f;
    uint32_t count = 1;
    sr_mesh_transform xf = identity();
    load_ok(tri, &xf, 1, &prims, &count);
    load_ok(quad, &xf, 2, &prims, &count);
    assert_int_equal(count, 4);
    assert_int_equal(prims[0].kind, SR_PRIM_SPHERE);   /* what was there stays */
    assert_true(prims[0].b.x == 4.0f);
    assert_int_equal(prims[1].material, 1);
    assert_int_equal(prims[2].material, 2);
    assert_int_equal(prims[3].material, 2);
    free(prims);
}

static void test_degenerate_skipped(void **state)
{
    (void)state;
    char path[512];
    /* a collinear face, a face with a repeated vertex, and one good face */
    write_tmp(path, sizeof path, "mesh_degen.obj",
              "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 0 1\nf 1 2 3\nf 1 2 2\nf 1 2 4\n");
    sr_prim *prims;
    assert_int_equal(load_plain(path, 0, &prims), 1);
    sr_test_assert_vec(prims[0].c, 0, 0, 1);
    free(prims);
}

static void test_missing_file(void **state)
{
    (void)state;
    char path[512];
    sr_test_tmp_path(path, sizeof path, "mesh_does_not_exist.obj");
    remove(path);
    load_fails(path, "cannot read mesh file", "No such file or directory");
}

static void test_directory(void **state)
{
    (void)state;
    char path[512];
    sr_test_tmp_path(path, sizeof path, "mesh_a_folder.obj");
    mkdir(path, 0755);
    load_fails(path, "cannot read mesh file", "directory");
}

static void test_garbage_files(void **state)
{
    (void)state;
    file_fails("mesh_garbage.ply", "\x01\x02\x03 this is not a mesh \xff\xfe\n", "cannot parse mesh file");
    file_fails("mesh_garbage.xyz", "hello\n", "cannot parse mesh file");
    file_fails("mesh_bad_index.obj", "v 0 0 0\nf 1 2 3\n", "cannot parse mesh file");
    /* assimp takes an unknown element's count from the start of its name (tests/fuzz) */
    file_fails("mesh_digit_element.ply",
               "ply\nformat ascii 1.0\nelement 331332333x 3\nproperty float x\nend_header\n1\n2\n3\n",
               "element name '331332333x' does not start with a letter");
}

static void test_no_triangles(void **state)
{
    (void)state;
    file_fails("mesh_points.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n", "has no triangles");
    file_fails("mesh_lines.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2\nl 2 3\n", "has no triangles");
    file_fails("mesh_flat.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n", "no triangles with a non-zero area");
}

static void test_shipped_torus_knot(void **state)
{
    (void)state;
    char path[1024];
    sr_test_source_path(path, sizeof path, "assets/torus_knot.obj");
    sr_prim *prims;
    uint32_t count = load_plain(path, 0, &prims);
    assert_true(count >= 5000 && count <= 20000);
    /* a closed tube: the signed volume is positive (outward winding) and near pi r^2 L */
    double vol = 0.0;
    sr_vec3 lo = sr_v3s(1e30f), hi = sr_v3s(-1e30f);
    for (uint32_t i = 0; i < count; i++) {
        vol += sr_dot(prims[i].a, sr_cross(prims[i].b, prims[i].c)) / 6.0;
        lo = sr_vmin(lo, sr_vmin(prims[i].a, sr_vmin(prims[i].b, prims[i].c)));
        hi = sr_vmax(hi, sr_vmax(prims[i].a, sr_vmax(prims[i].b, prims[i].c)));
    }
    assert_true(vol > 2.5 && vol < 3.5);
    assert_true(lo.x > -2.0f && hi.x < 2.0f && lo.y > -2.0f && hi.y < 2.0f && lo.z > -1.0f && hi.z < 1.0f);
    free(prims);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_obj_triangle),
        cmocka_unit_test(test_transform_order),
        cmocka_unit_test(test_obj_quad_triangulated),
        cmocka_unit_test(test_ply_ascii),
        cmocka_unit_test(test_appends),
        cmocka_unit_test(test_degenerate_skipped),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_directory),
        cmocka_unit_test(test_garbage_files),
        cmocka_unit_test(test_no_triangles),
        cmocka_unit_test(test_shipped_torus_knot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
