/* test_smooth.c: smooth shading from a file's vertex normals. A coarse UV sphere (OBJ with vn,
 * written here) lit by a directional light must match the analytic sphere's shading far
 * better than the same mesh shaded flat; "normals": "smooth" (generated) does as well as the
 * file's; "file" on a mesh without normals and "crease_angle" without "smooth" are errors; the
 * normals stay rotated with the mesh. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/io/meshes/mesh.h"

#define SEGS 16   /* around the axis (22.5 degrees each) */
#define RINGS 8   /* pole to pole (22.5 degrees each)    */
#define W 96

static void write_sphere_obj(const char *path, int with_vn)
{
    sr_test_write_uv_sphere(path, SEGS, RINGS, with_vn, 0);
}

/* The scene: the sphere (analytic or the mesh with a "normals" clause) at the origin, white
 * Lambertian, one directional light of irradiance pi, so a pixel shows cos(normal, light). */
static float *render_sphere(const char *object_json)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0],\"fov\":30},"
             " \"image\":{\"width\":%d,\"height\":%d,\"spp\":1,\"max_depth\":1},"
             " \"materials\":{\"white\":{\"type\":\"diffuse\",\"albedo\":[1,1,1]}},"
             " \"objects\":[%s],"
             " \"lights\":[{\"type\":\"directional\",\"direction\":[-0.4,-0.5,-1],\"intensity\":3.14159265}]}",
             W, W, object_json);
    sr_scene s;
    sr_test_parse("smooth.json", json, &s);
    float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 1, NULL);
    sr_scene_free(&s);
    return img;
}

/* Mean and largest |mesh - analytic| over pixels well inside the silhouette (the inscribed
 * mesh is smaller than the sphere by up to 1 - cos(11.25 deg) = 2 % of the radius). */
static void compare(const float *mesh, const float *ref, double *mean, double *worst)
{
    double sum = 0, mx = 0;
    int n = 0;
    for (uint32_t y = 0; y < W; y++)
        for (uint32_t x = 0; x < W; x++) {
            if (sphere_margin(d3v(0, 0, 5), d3v(0, 0, 0), 30.0, W, W, x, y, d3v(0, 0, 0), 1.0) > -0.15) continue;
            double e = fabs((double)mesh[3 * (y * W + x)] - (double)ref[3 * (y * W + x)]);
            sum += e;
            if (e > mx) mx = e;
            n++;
        }
    assert_true(n > 1500);
    *mean = sum / n;
    *worst = mx;
}

static void test_file_normals_match_the_sphere(void **state)
{
    (void)state;
    char obj[512], clause[1024];
    sr_test_tmp_path(obj, sizeof obj, "smooth_sphere_vn.obj");
    write_sphere_obj(obj, 1);
    float *ref = render_sphere("{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"white\"}");
    snprintf(clause, sizeof clause, "{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"white\"}", obj);
    float *smooth = render_sphere(clause);
    snprintf(clause, sizeof clause, "{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"white\",\"normals\":\"flat\"}", obj);
    float *flat = render_sphere(clause);
    double ms, ws, mf, wf;
    compare(smooth, ref, &ms, &ws);
    compare(flat, ref, &mf, &wf);
    printf("mean |error|: smooth %.4f (worst %.4f), flat %.4f (worst %.4f)\n", ms, ws, mf, wf);
    /* A pixel shows cos(normal, light), so its error is at most the normal's angular error.
     * Flat: the facet normal is off the true one by up to half a facet's diagonal, first
     * order in the facet size d = 22.5 deg * sqrt 2 (0.555 rad): the worst pixel must show it
     * (> d/4), or the comparison would not tell the two apart. Smooth: interpolated unit
     * normals are off by O(d^2 / 8), and the hit on the inscribed facet by the sagitta
     * 1 - cos(d / 2) times tan(view angle) <= 1.6 (margin 0.15): (0.039 + 0.038 * 2.6) =
     * 0.14 at worst, and the mean must be far below the flat mean. */
    const double d = 22.5 * M_PI / 180.0 * sqrt(2.0);
    assert_true(wf > d / 4.0);
    assert_true(ws < d * d / 8.0 + (1.0 - cos(d / 2.0)) * 2.6);
    assert_true(ms * 4.0 < mf);
    free(ref);
    free(smooth);
    free(flat);
}

/* Generated normals ("smooth", no vn in the file) shade like the file's exact ones; a crease
 * angle below the facets' angle (22.5 deg) keeps it faceted. */
static void test_generated_normals(void **state)
{
    (void)state;
    char obj[512], clause[1024];
    sr_test_tmp_path(obj, sizeof obj, "smooth_sphere_plain.obj");
    write_sphere_obj(obj, 0);
    float *ref = render_sphere("{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"white\"}");
    snprintf(clause, sizeof clause, "{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"white\"}", obj);
    float *plain = render_sphere(clause);   /* no normals in the file: flat */
    snprintf(clause, sizeof clause, "{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"white\",\"normals\":\"smooth\"}", obj);
    float *gen = render_sphere(clause);
    snprintf(clause, sizeof clause,
             "{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"white\",\"normals\":\"smooth\",\"crease_angle\":10}", obj);
    float *creased = render_sphere(clause);
    double mp, wp, mg, wg, mc, wc;
    compare(plain, ref, &mp, &wp);
    compare(gen, ref, &mg, &wg);
    compare(creased, ref, &mc, &wc);
    printf("mean |error|: no normals %.4f, generated %.4f, generated with a 10 degree crease %.4f\n", mp, mg, mc);
    assert_true(mg * 4.0 < mp);
    assert_true(mc > mg * 2.0);   /* the crease keeps the facets apart */
    free(ref);
    free(plain);
    free(gen);
    free(creased);
}

/* The shadow terminator: lit from the side, a coarse smooth sphere's shadow rays would start
 * on flat facets that the smooth shading says face the light, and hit the neighbouring facets
 * (black bands short of the terminator). Where the true sphere faces the light at more than
 * cos 0.15, no pixel may be black; and the lit side matches the analytic sphere as well as in
 * the front-lit case. */
#define COS_LIT 0.05
static void test_no_shadow_terminator(void **state)
{
    (void)state;
    char obj[512], json[2048];
    sr_test_tmp_path(obj, sizeof obj, "smooth_sphere_side.obj");
    write_sphere_obj(obj, 1);
    for (int k = 0; k < 2; k++) {
        snprintf(json, sizeof json,
                 "{\"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0],\"fov\":30},"
                 " \"image\":{\"width\":%d,\"height\":%d,\"spp\":1,\"max_depth\":1}, \"integrator\":\"%s\","
                 " \"materials\":{\"white\":{\"type\":\"diffuse\",\"albedo\":[1,1,1]}},"
                 " \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"white\",\"rotate\":[20,11,0]}],"
                 " \"lights\":[{\"type\":\"directional\",\"direction\":[-1,0,0],\"intensity\":3.14159265}]}",
                 W, W, k ? "path" : "whitted", obj);
        sr_scene s;
        sr_test_parse("side.json", json, &s);
        float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 1, NULL);
        sr_scene_free(&s);
        int facing = 0, black = 0;
        const double th = tan(15.0 * M_PI / 180.0);
        for (uint32_t y = 0; y < W; y++)
            for (uint32_t x = 0; x < W; x++) {
                if (sphere_margin(d3v(0, 0, 5), d3v(0, 0, 0), 30.0, W, W, x, y, d3v(0, 0, 0), 1.0) > -0.15) continue;
                /* the analytic hit's normal: the ray from (0, 0, 5) through the pixel centre */
                d3 dir = d3norm(d3v((2.0 * (x + 0.5) / W - 1.0) * th, (1.0 - 2.0 * (y + 0.5) / W) * th, -1.0));
                const double b = 5.0 * dir.z, c = 25.0 - 1.0, t = -b - sqrt(b * b - c);
                const d3 nrm = d3v(t * dir.x, t * dir.y, 5.0 + t * dir.z);
                if (nrm.x < COS_LIT) continue;
                facing++;
                black += img[3 * (y * W + x)] <= 0.0f;
            }
        printf("%s: %d of %d pixels facing the light are black\n", k ? "path" : "whitted", black, facing);
        assert_true(facing > 500);
        assert_int_equal(black, 0);
        free(img);
    }
}

static void test_normals_errors(void **state)
{
    (void)state;
    char obj[512], json[1024], err[8192], scene[600];
    sr_test_tmp_path(obj, sizeof obj, "smooth_sphere_plain2.obj");
    write_sphere_obj(obj, 0);
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0]},\n"
             " \"materials\":{\"w\":{\"type\":\"diffuse\"}},\n"
             " \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"w\",\"normals\":\"file\"}]}", obj);
    sr_test_write_file(scene, sizeof scene, "smooth_file.json", json);
    char out[600];
    sr_test_tmp_path(out, sizeof out, "smooth_file_never.png");
    remove(out);
    const char *argv[] = { "render", scene, "--backend", "cpu", "-o", out, NULL };
    assert_int_equal(sr_test_run_cli(argv, err, sizeof err), 2);
    assert_false(sr_test_file_exists(out));
    if (!strstr(err, "smooth_file.json:3:") || !strstr(err, "has no vertex normals")) fail_msg("%s", err);

    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0]},\n"
             " \"materials\":{\"w\":{\"type\":\"diffuse\"}},\n"
             " \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"w\",\"crease_angle\":30}]}", obj);
    sr_scene s;
    sr_error e = { 0 };
    assert_int_equal(sr_scene_parse("crease.json", json, strlen(json), &s, &e), SR_ERR_INPUT);
    if (!strstr(e.msg, "crease.json:3:") || !strstr(e.msg, "\"normals\": \"smooth\"")) fail_msg("%s", e.msg);

    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0]},\n"
             " \"materials\":{\"w\":{\"type\":\"diffuse\"}},\n"
             " \"objects\":[{\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"w\",\"normals\":\"round\"}]}", obj);
    assert_int_equal(sr_scene_parse("bad.json", json, strlen(json), &s, &e), SR_ERR_INPUT);
    if (!strstr(e.msg, "bad.json:3:") || !strstr(e.msg, "smooth")) fail_msg("%s", e.msg);
}

/* Normals turn with the mesh: a quarter turn about Y maps the vertex normal (1, 0, 0) to
 * (0, 0, -1) exactly, and the attributes follow their triangles. */
static void test_normals_rotate_with_the_mesh(void **state)
{
    (void)state;
    char obj[512];
    sr_test_write_file(obj, sizeof obj, "smooth_tri.obj",
                       "v 0 0 0\nv 0 1 0\nv 0 0 1\nvn 1 0 0\nvn 0 1 0\nvn 0 0 1\nf 1//1 2//2 3//3\n");
    sr_mesh_transform xf = { .translate = { 0, 0, 0 }, .scale = 2.0f, .rotate_deg = { 0, 90, 0 } };
    sr_prim *prims = NULL;
    sr_tri_attr *attrs = NULL;
    uint32_t count = 0;
    sr_error e = { 0 };
    const sr_mesh_opts o = { .normals = SR_NORMALS_AUTO, .crease_deg = 180.0f, .keep_uv = 0 };
    assert_int_equal(sr_mesh_load_ex(obj, &xf, 0, &o, &prims, &count, &attrs, &e), SR_OK);
    assert_int_equal(count, 1);
    assert_non_null(attrs);
    assert_int_equal(attrs[0].flags, SR_ATTR_NORMALS);
    assert_float_equal(attrs[0].n[0].x, 0.0f, 0.0f);
    assert_float_equal(attrs[0].n[0].z, -1.0f, 0.0f);
    assert_float_equal(attrs[0].n[1].y, 1.0f, 0.0f);
    assert_float_equal(attrs[0].n[2].x, 1.0f, 0.0f);   /* (0, 0, 1) -> (1, 0, 0) */
    free(prims);
    free(attrs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_normals_match_the_sphere),
        cmocka_unit_test(test_generated_normals),
        cmocka_unit_test(test_no_shadow_terminator),
        cmocka_unit_test(test_normals_errors),
        cmocka_unit_test(test_normals_rotate_with_the_mesh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
