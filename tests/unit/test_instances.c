/* test_instances.c: a mesh placed by several "mesh" objects is stored once and placed by
 * instances (docs/scene-format.md, "Instances"; the two-level BVH: src/render/instances.h):
 * 1,000 instances hold the prims of one mesh; an instanced scene renders as the same scene
 * flattened (within rounding: the rays meet the mesh in its own space), alpha cut-outs
 * included; emissive meshes are instanced and light-sampled per placement; a glTF file's mesh on two nodes shows twice; bad transforms are still refused
 * where they stand. */
#include "testutil.h"
#include "gltfutil.h"
#include "gltf_corpus.h"
#include "../../src/render/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A UV sphere with vertex normals in tmp/name (the path into buf). */
static const char *sphere_file(char *buf, size_t cap, const char *name)
{
    sr_test_tmp_path(buf, cap, name);
    sr_test_write_uv_sphere(buf, 12, 6, 1, 0);
    return buf;
}

static void prepare(const sr_scene *s, sr_backend *be, sr_renderer *r)
{
    sr_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(sr_backend_create(SR_BACKEND_CPU, 0, be, NULL, 0, &err), SR_OK);
    sr_frame f;
    sr_frame_from_scene(&f, s);
    if (sr_renderer_prepare(r, s, be, &f, &err) != SR_OK) fail_msg("%s", err.msg);
}

static void test_thousand_instances_hold_one_mesh(void **state)
{
    (void)state;
    char obj[512];
    sphere_file(obj, sizeof obj, "inst_sphere.obj");
    /* the mesh alone, for its prim count */
    char one[1024];
    snprintf(one, sizeof one, "{\"camera\": {\"position\": [0, 0, 60], \"look_at\": [0, 0, 0]},"
             " \"materials\": {\"m\": {\"type\": \"diffuse\"}},"
             " \"objects\": [{\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"m\"}]}", obj);
    sr_scene single;
    sr_test_parse("inst_one.json", one, &single);
    const uint32_t mesh_prims = single.prim_count;
    assert_true(mesh_prims > 50);
    assert_int_equal(single.instance_count, 0);   /* placed once: flattened as before */
    sr_backend be1;
    sr_renderer r1;
    prepare(&single, &be1, &r1);
    assert_int_equal(r1.view.instance_count, 0);
    assert_true(r1.scene_build != SR_BUILD_INSTANCES);
    sr_renderer_free(&r1);
    sr_backend_destroy(&be1);
    sr_scene_free(&single);

    const size_t cap = 1000u * 700u + 4096u;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t n = (size_t)snprintf(text, cap, "{\"camera\": {\"position\": [0, 0, 80], \"look_at\": [0, 0, 0]},"
                                " \"image\": {\"width\": 48, \"height\": 32, \"spp\": 1},"
                                " \"materials\": {\"m\": {\"type\": \"diffuse\"}},"
                                " \"lights\": [{\"type\": \"point\", \"position\": [0, 50, 50], \"intensity\": 2000}],"
                                " \"objects\": [");
    for (int k = 0; k < 1000; k++)
        n += (size_t)snprintf(text + n, cap - n, "%s{\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"m\","
                              " \"translate\": [%d, %d, %d], \"rotate\": [%d, %d, 0], \"scale\": %g}", k ? ", " : "", obj,
                              3 * (k % 10) - 15, 3 * (k / 10 % 10) - 15, -3 * (k / 100), 7 * k % 360, 13 * k % 360,
                              0.5 + 0.1 * (k % 7));
    snprintf(text + n, cap - n, "]}");
    sr_scene s;
    sr_test_parse("inst_1000.json", text, &s);
    free(text);
    /* the scene: one copy of the mesh, 1,000 placements, no world-space triangles */
    assert_int_equal(s.instance_count, 1000);
    assert_int_equal(s.shared_mesh_count, 1);
    assert_int_equal(s.shared_prim_count, mesh_prims);
    assert_int_equal(s.prim_count, 0);
    /* the renderer: the mesh's prims once, one proxy per instance, the nodes of one tree over
     * the mesh and one over the proxies: the memory of one mesh, not of 1,000 */
    sr_backend be;
    sr_renderer r;
    prepare(&s, &be, &r);
    assert_int_equal(r.view.instance_count, 1000);
    assert_int_equal(r.view.instance_ids, 1000);
    assert_int_equal(r.scene_build, SR_BUILD_INSTANCES);   /* the GPU's only build with the second level */
    assert_int_equal(r.view.prim_count, 1000 + mesh_prims);
    assert_true(r.view.node_count <= 2u * 1000u - 1u + 2u * mesh_prims - 1u);
    const size_t bytes = (size_t)r.view.prim_count * sizeof(sr_prim) + (size_t)r.view.node_count * sizeof(sr_bvh_node) +
                         (size_t)r.view.instance_count * sizeof(sr_instance);
    const size_t flat = 1000u * (size_t)mesh_prims * sizeof(sr_prim);
    printf("  1,000 instances of %u triangles: %zu bytes of prims, nodes and instances (flattened prims alone: %zu)\n",
           mesh_prims, bytes, flat);
    assert_true(bytes * 20u < flat);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    /* and it renders: some pixels lit, some the background */
    float *img = sr_test_render_cpu(&s, 1);
    uint32_t lit = 0;
    for (uint32_t i = 0; i < s.width * s.height; i++) lit += img[3 * i] > 0.05f;
    assert_true(lit > 10 && lit < s.width * s.height);
    free(img);
    sr_scene_free(&s);
}

/* Three placements of one mesh (a uniform scale with rotation, a non-uniform scale, a
 * "transform" matrix), smooth-shaded, over a floor: the file named three times (instanced)
 * or through three copies (flattened, as before). */
static void placed_scene(char *out, size_t cap, const char *f0, const char *f1, const char *f2, int integrator)
{
    snprintf(out, cap,
             "{\"camera\": {\"position\": [0, 2, 7], \"look_at\": [0, 1, 0]},"
             " \"image\": {\"width\": 96, \"height\": 64, \"spp\": 2, \"max_depth\": 4},"
             " \"integrator\": \"%s\", \"sky\": {\"zenith\": [0.3, 0.4, 0.6], \"horizon\": [0.8, 0.8, 0.9]},"
             " \"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.7, 0.5, 0.3]},"
             "  \"gold\": {\"type\": \"metal\", \"albedo\": [1, 0.8, 0.4], \"roughness\": 0.2},"
             "  \"floor\": {\"type\": \"diffuse\", \"albedo\": [0.8, 0.8, 0.8]}},"
             " \"lights\": [{\"type\": \"point\", \"position\": [-3, 6, 5], \"intensity\": 200}],"
             " \"objects\": [{\"type\": \"quad\", \"corner\": [-6, 0, -6], \"edge_u\": [0, 0, 12], \"edge_v\": [12, 0, 0],"
             " \"material\": \"floor\"},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"gold\", \"normals\": \"file\","
             "   \"translate\": [-2, 1, 0], \"rotate\": [20, 30, 0], \"scale\": 0.9},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"gold\", \"normals\": \"file\","
             "   \"translate\": [0.2, 1.2, -1], \"scale\": [1.2, 0.6, 0.9]},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"gold\", \"normals\": \"file\","
             "   \"transform\": [0.8, 0.3, 0, 2, -0.2, 0.9, 0.1, 1, 0, -0.1, 1.1, 0.5, 0, 0, 0, 1]}]}",
             integrator ? "path" : "whitted", f0, f1, f2);
}

static void test_instanced_renders_as_flattened(void **state)
{
    (void)state;
    char a[512], b[512], c[512];
    sphere_file(a, sizeof a, "inst_a.obj");
    sphere_file(b, sizeof b, "inst_b.obj");
    sphere_file(c, sizeof c, "inst_c.obj");
    for (int integrator = 0; integrator < 2; integrator++) {
        char text[4096];
        sr_scene inst, flat;
        placed_scene(text, sizeof text, a, a, a, integrator);
        sr_test_parse("inst_placed.json", text, &inst);
        placed_scene(text, sizeof text, a, b, c, integrator);
        sr_test_parse("flat_placed.json", text, &flat);
        assert_int_equal(inst.instance_count, 3);
        assert_int_equal(flat.instance_count, 0);
        assert_int_equal(inst.prim_count, 1);   /* the floor */
        assert_int_equal(flat.prim_count, 1 + 3 * inst.shared_prim_count);
        float *fi = sr_test_render_cpu(&inst, 5), *ff = sr_test_render_cpu(&flat, 5);
        /* The same image but for rounding: the instanced rays meet the sphere in its own
         * space (a transformed ray), the flattened ones meet triangles placed in double and
         * rounded, so a few hits move by an ulp, and a few edge pixels (and the paths
         * behind them) change. Bound: under 0.1 % of the values differ by more than 1e-3
         * and the mean absolute difference is under 1e-4 of the mean (measured: no value
         * beyond 1e-3, the mean difference 5e-8 of the mean under Whitted, 3e-6 under path
         * tracing). */
        const size_t n = 3u * inst.width * inst.height;
        size_t far = 0, same = 0;
        double sum = 0, diff = 0;
        for (size_t i = 0; i < n; i++) {
            const double d = fabs((double)fi[i] - ff[i]);
            far += d > 1e-3 * (1.0 + fabs((double)ff[i]));
            same += fi[i] == ff[i];
            sum += fabs((double)ff[i]);
            diff += d;
        }
        printf("  %s: %zu of %zu values bit-identical, %zu differ by more than 1e-3; mean |diff| %.3g of mean %.3g\n",
               integrator ? "path" : "whitted", same, n, far, diff / n, sum / n);
        assert_true(sum > 0.05 * n);                /* something is lit */
        assert_true(far * 1000u < n);
        assert_true(diff < 1e-4 * sum);
        free(fi);
        free(ff);
        sr_scene_free(&inst);
        sr_scene_free(&flat);
    }
}

/* An alpha-masked glTF square (its left half opaque red, its right half cut away) named by two
 * objects is instanced, and the cut is tested inside the instance as at the top level: the
 * image is the flattened twin's (the same file under a second name) within rounding, and the
 * green quad behind shows through both squares' right halves. */
static void mask_pair_scene(char *out, size_t cap, const char *f0, const char *f1)
{
    snprintf(out, cap,
             "{\"camera\":{\"position\":[0,0,7],\"look_at\":[0,0,0],\"fov\":30},"
             " \"image\":{\"width\":64,\"height\":32,\"spp\":1}, \"background\":[0,0,0],"
             " \"lights\":[{\"type\":\"directional\",\"direction\":[0.2,0.1,-1],\"intensity\":3}],"
             " \"materials\":{\"back\":{\"type\":\"diffuse\",\"albedo\":[0.1,0.8,0.2]}},"
             " \"objects\":[{\"type\":\"quad\",\"corner\":[-5,-3,-1],\"edge_u\":[10,0,0],\"edge_v\":[0,6,0],"
             "\"material\":\"back\"},"
             " {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\",\"translate\":[-1.3,0,0]},"
             " {\"type\":\"mesh\",\"file\":\"%s\",\"material\":\"file\",\"translate\":[1.3,0,0.2],"
             "\"rotate\":[0,15,0]}]}",
             f0, f1);
}

static void test_cutout_mesh_instanced(void **state)
{
    (void)state;
    char json[4096], a[1024], b[1100];
    sr_gltf_alpha_file(a, sizeof a, "inst_mask", 1);
    snprintf(b, sizeof b, "%s.copy.glb", a);
    sr_test_copy_file(a, b);
    sr_scene inst, flat;
    mask_pair_scene(json, sizeof json, a, a);
    sr_test_parse("inst_mask_pair.json", json, &inst);
    mask_pair_scene(json, sizeof json, a, b);
    sr_test_parse("flat_mask_pair.json", json, &flat);
    assert_int_equal(inst.instance_count, 2);
    assert_int_equal(flat.instance_count, 0);
    float *fi = sr_test_render_cpu(&inst, 1), *ff = sr_test_render_cpu(&flat, 1);
    const size_t n = 3u * inst.width * inst.height;
    size_t far = 0, red = 0, green = 0;
    for (size_t i = 0; i < n; i++) far += fabs((double)fi[i] - ff[i]) > 1e-3 * (1.0 + fabs((double)ff[i]));
    for (size_t i = 0; i < n / 3; i++) {
        red += fi[3 * i] > 2.0f * fi[3 * i + 1];
        green += fi[3 * i + 1] > 2.0f * fi[3 * i];
    }
    printf("  instanced masked squares: %zu red and %zu green pixels of %zu; %zu values differ from the flattened "
           "twin by more than 1e-3\n", red, green, n / 3, far);
    assert_true(far * 100u < n);   /* a few edge pixels at most */
    assert_true(red > 50);         /* the opaque halves */
    assert_true(green > 200);      /* the quad behind, through the cut halves too */
    free(fi);
    free(ff);
    sr_scene_free(&inst);
    sr_scene_free(&flat);
}

/* Emissive meshes are instanced too, each placement an entry of the emitter table (light
 * sampling picks world-space triangles through the instance: sr_build_emitters). Two lamps of
 * one file over a floor, path traced with light sampling: the table holds both placements'
 * triangles, and the image matches the flattened twin's (the same lamps from two files)
 * within Monte Carlo error (the picks go to other triangles, so the noise differs). */
static void test_emissive_mesh_instanced(void **state)
{
    (void)state;
    char a[512], b[512], text[2048];
    sphere_file(a, sizeof a, "inst_lamp_a.obj");
    sphere_file(b, sizeof b, "inst_lamp_b.obj");
    sr_scene inst, flat;
    sr_test_lamp_pair_scene(text, sizeof text, a, a, 256);
    sr_test_parse("inst_lamp.json", text, &inst);
    sr_test_lamp_pair_scene(text, sizeof text, a, b, 256);
    sr_test_parse("flat_lamp.json", text, &flat);
    assert_int_equal(inst.instance_count, 2);
    assert_int_equal(inst.prim_count, 1);   /* the floor */
    assert_int_equal(flat.instance_count, 0);
    sr_backend be;
    sr_renderer r;
    prepare(&inst, &be, &r);
    assert_int_equal(r.view.emitter_count, 2u * inst.shared_prim_count);   /* both placements' triangles */
    for (uint32_t k = 0; k < r.view.emitter_count; k++) assert_true(r.view.emitters[k].prim >= r.view.instance_ids);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    float *fi = sr_test_render_cpu(&inst, 7), *ff = sr_test_render_cpu(&flat, 7);
    const uint32_t w = inst.width, h = inst.height;
    /* the floor's rows below the lamps: their mean radiance, and the mean of the pixelwise
     * difference, against the flattened twin */
    double si = 0.0, sf = 0.0, sd = 0.0;
    uint32_t px = 0;
    for (uint32_t y = h / 2; y < h; y++)
        for (uint32_t x = 0; x < w; x++, px++) {
            const float *p = &fi[3u * (y * w + x)], *q = &ff[3u * (y * w + x)];
            si += p[0] + p[1] + p[2];
            sf += q[0] + q[1] + q[2];
            sd += fabs((double)(p[0] + p[1] + p[2]) - (q[0] + q[1] + q[2]));
        }
    printf("  two instanced lamps: floor mean %.4f, flattened %.4f (mean |diff| %.4f) over %u pixels\n", si / px,
           sf / px, sd / px, px);
    assert_true(sf > 0.05 * px);                        /* the lamps light the floor */
    /* the same light, within 2 % over the rows (measured: 0.1 % at 256 and 0.2 % at 1,024 spp;
     * 2.2 % at 64, whose noise is larger) */
    assert_true(fabs(si - sf) < 0.02 * sf);
    assert_true(sd < 0.2 * sf);                         /* and pixel by pixel, within the noise */
    free(fi);
    free(ff);
    sr_scene_free(&inst);
    sr_scene_free(&flat);
}

/* A glTF file: its one mesh on two nodes shows twice (an emissive one too: two instances), and
 * the file named by two objects is one instanced mesh. */
static void test_gltf_mesh_on_two_nodes(void **state)
{
    (void)state;
    char gl[512], text[2048];
    sr_gltf_write(gl, sizeof gl, "inst_two_nodes.gltf",
                  "\"scene\": 0, \"scenes\": [{\"nodes\": [0, 1]}],\n"
                  "\"nodes\": [{\"mesh\": 0, \"translation\": [-1, 0, 0]}, {\"mesh\": 0, \"translation\": [1, 0, 0]}],");
    for (int twice = 0; twice < 2; twice++) {
        /* 64 x 64, fov 40, 5 from the squares: x = +-1 lands on columns 32 -+ 17.6. Twice:
         * the file again, 3 higher (out of view), which makes it an instanced mesh, lit by a
         * point light */
        snprintf(text, sizeof text, "{\"camera\": {\"position\": [0, 0, 5], \"look_at\": [0, 0, 0], \"fov\": 40},"
                 " \"image\": {\"width\": 64, \"height\": 64, \"spp\": 1}, \"background\": [0, 0, 0],"
                 " \"materials\": {\"lamp\": {\"type\": \"emissive\", \"radiance\": [1, 1, 1], \"two_sided\": true},"
                 "  \"m\": {\"type\": \"diffuse\"}},"
                 " \"lights\": [{\"type\": \"point\", \"position\": [0, 0, 4], \"intensity\": 50}],"
                 " \"objects\": [{\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"%s\"}%s%s%s]}",
                 gl, twice ? "m" : "lamp", twice ? ", {\"type\": \"mesh\", \"file\": \"" : "", twice ? gl : "",
                 twice ? "\", \"material\": \"m\", \"translate\": [0, 3, 0]}" : "");
        sr_scene s;
        sr_test_parse("inst_gltf.json", text, &s);
        if (!twice) {
            assert_int_equal(s.instance_count, 2);   /* the file's mesh on its two nodes */
            assert_int_equal(s.shared_prim_count, 2);
            assert_int_equal(s.prim_count, 0);
        } else {
            assert_int_equal(s.instance_count, 2);
            assert_int_equal(s.shared_prim_count, 4);
            assert_int_equal(s.prim_count, 0);
        }
        float *img = sr_test_render_cpu(&s, 2);
        const float left = img[3 * (32 * 64 + 14)], right = img[3 * (32 * 64 + 49)], mid = img[3 * (32 * 64 + 32)];
        printf("  glTF mesh on two nodes%s: left %.3f, right %.3f, between %.3f\n", twice ? ", the file instanced" : "",
               left, right, mid);
        assert_true(left > (twice ? 0.05f : 0.9f) && right > (twice ? 0.05f : 0.9f));
        assert_true(fabsf(left - right) < 1e-3f);   /* placed symmetrically about the light */
        assert_true(mid == 0.0f);
        free(img);
        sr_scene_free(&s);
    }
}

/* A glTF file whose one mesh 1,000 nodes place: read once, placed by 1,000 instances (the
 * nodes' matrices composed with the object's transform), and every copy drawn. */
static void test_gltf_thousand_nodes(void **state)
{
    (void)state;
    const size_t cap = 1000u * 120u + 1024u;
    char *rest = malloc(cap), gl[512], text[2048];
    assert_non_null(rest);
    size_t n = (size_t)snprintf(rest, cap, "\"scene\": 0, \"scenes\": [{\"nodes\": [1000]}], \"nodes\": [");
    for (int k = 0; k < 1000; k++)   /* a 40 x 25 grid of unit squares, 1 apart, facing +Z */
        n += (size_t)snprintf(rest + n, cap - n, "{\"mesh\": 0, \"translation\": [%d, %d, 0]}, ", k % 40 - 20, k / 40 - 12);
    /* the root: every square a child, the whole grid scaled by 0.5 */
    n += (size_t)snprintf(rest + n, cap - n, "{\"scale\": [0.5, 0.5, 0.5], \"children\": [");
    for (int k = 0; k < 1000; k++) n += (size_t)snprintf(rest + n, cap - n, "%s%d", k ? ", " : "", k);
    snprintf(rest + n, cap - n, "]}],");
    sr_gltf_write(gl, sizeof gl, "inst_1000_nodes.gltf", rest);
    free(rest);
    /* 80 x 50 pixels over the 20 x 12.5 grid (fov 2 atan(6.25 / 20)): about 2 x 2 per square */
    snprintf(text, sizeof text, "{\"camera\": {\"position\": [-0.25, -0.25, 20], \"look_at\": [-0.25, -0.25, 0],"
             " \"fov\": 34.70}, \"image\": {\"width\": 80, \"height\": 50, \"spp\": 1}, \"background\": [0, 0, 0],"
             " \"ambient\": [1, 1, 1], \"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [1, 1, 1]}},"
             " \"objects\": [{\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"m\", \"translate\": [0, 0, 1]}]}", gl);
    sr_scene s;
    sr_test_parse("inst_1000_nodes.json", text, &s);
    assert_int_equal(s.instance_count, 1000);
    assert_int_equal(s.shared_mesh_count, 1);
    assert_int_equal(s.shared_prim_count, 2);   /* the square, once */
    assert_int_equal(s.prim_count, 0);
    /* the placement: node k's square centred at 0.5 (x, y) of its translation, then 1 nearer */
    const sr_mesh_instance *in = &s.instances[41];   /* node 41: translation (-19, -11) */
    assert_true(in->m[0][0] == 0.5 && in->m[1][1] == 0.5 && in->m[2][2] == 0.5);
    assert_true(in->m[0][3] == -9.5 && in->m[1][3] == -5.5 && in->m[2][3] == 1.0);
    float *img = sr_test_render_cpu(&s, 1);
    uint32_t lit = 0;
    for (uint32_t i = 0; i < s.width * s.height; i++) lit += img[3 * i] > 0.0f;
    printf("  1,000 nodes of one glTF mesh: %u of %u pixels lit\n", lit, s.width * s.height);
    assert_true(lit > s.width * s.height * 9u / 10u);   /* the squares tile the view: gaps are edges only */
    free(img);
    sr_scene_free(&s);
}

/* A node that squashes its copy flat (scale 0) places nothing; the other node still does. */
static void test_gltf_flat_node(void **state)
{
    (void)state;
    char gl[512], text[1024];
    sr_gltf_write(gl, sizeof gl, "inst_flat_node.gltf",
                  "\"scene\": 0, \"scenes\": [{\"nodes\": [0, 1, 2]}],\n"
                  "\"nodes\": [{\"mesh\": 0, \"scale\": [0, 1, 1]}, {\"mesh\": 0, \"translation\": [1, 0, 0]},"
                  " {\"mesh\": 0, \"translation\": [-1, 0, 0], \"scale\": [1e-30, 1e-30, 1e-30]}],");
    snprintf(text, sizeof text, "{\"camera\": {\"position\": [0, 0, 5], \"look_at\": [0, 0, 0]},"
             " \"materials\": {\"m\": {\"type\": \"diffuse\"}},"
             " \"objects\": [{\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"m\"}]}", gl);
    sr_scene s;
    sr_test_parse("inst_flat_node.json", text, &s);
    assert_int_equal(s.shared_prim_count, 2);
    assert_int_equal(s.instance_count, 2);   /* the flat node's is dropped, the tiny one stays */
    assert_true(s.instances[0].m[0][3] == 1.0 && s.instances[1].m[0][3] == -1.0);
    s.width = 32;
    s.height = 24;
    s.spp = 1;
    float *img = sr_test_render_cpu(&s, 1);
    for (uint32_t i = 0; i < 3u * s.width * s.height; i++) assert_true(isfinite(img[i]));
    free(img);
    sr_scene_free(&s);
}

/* Every placement's transform is checked where it stands, the first or a later one. */
static void test_bad_instances_refused(void **state)
{
    (void)state;
    char a[512], src[4096];
    sphere_file(a, sizeof a, "inst_bad.obj");
    snprintf(src, sizeof src, SCENE_OBJ("{'type': 'mesh', 'file': '%s', 'material': 'm'},"
                                        " {'type': 'mesh', 'file': '%s', 'material': 'm', 'transform': @[1, 0, 0, 0, 0, 0, 0, 0,"
                                        " 0, 0, 1, 0, 0, 0, 0, 1]}"), a, a);
    EXPECT_ERR(src, "objects[1].transform", "singular", "invertible");
    snprintf(src, sizeof src, SCENE_OBJ("{'type': 'mesh', 'file': '%s', 'material': 'm', 'scale': @[1, 0, 1]},"
                                        " {'type': 'mesh', 'file': '%s', 'material': 'm'}"), a, a);
    EXPECT_ERR(src, "objects[0].scale", "greater than 0");
    snprintf(src, sizeof src, SCENE_OBJ("{'type': 'mesh', 'file': '%s', 'material': 'm'},"
                                        " {'type': 'mesh', 'file': '%s', 'material': 'm', 'translate': @[1, 2]}"), a, a);
    EXPECT_ERR(src, "objects[1].translate", "3");
    snprintf(src, sizeof src, SCENE_OBJ("{'type': 'mesh', 'file': @'%s.none', 'material': 'm'},"
                                        " {'type': 'mesh', 'file': '%s.none', 'material': 'm'}"), a, a);
    EXPECT_ERR(src, "objects[0].file", "cannot read");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thousand_instances_hold_one_mesh),
        cmocka_unit_test(test_instanced_renders_as_flattened),
        cmocka_unit_test(test_cutout_mesh_instanced),
        cmocka_unit_test(test_emissive_mesh_instanced),
        cmocka_unit_test(test_gltf_mesh_on_two_nodes),
        cmocka_unit_test(test_gltf_thousand_nodes),
        cmocka_unit_test(test_gltf_flat_node),
        cmocka_unit_test(test_bad_instances_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
