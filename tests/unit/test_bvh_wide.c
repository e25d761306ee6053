/* test_bvh_wide.c: the compressed 8-wide tree (src/render/bvh_wide.c, kernels/core/
 * intersect_wide.h): its quantized boxes hold what is under them, it lists every prim once,
 * and rays and renders find the binary tree's hits bit for bit (closest and shadow rays,
 * instances included). */
#include "testutil.h"
#include "bvhmeshes.h"
#include "../../src/render/render.h"
#include "../../kernels/core/intersect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int box_holds(sr_vec3 olo, sr_vec3 ohi, sr_vec3 lo, sr_vec3 hi)
{
    return olo.x <= lo.x && olo.y <= lo.y && olo.z <= lo.z && ohi.x >= hi.x && ohi.y >= hi.y && ohi.z >= hi.z;
}

typedef struct walk_check {
    const sr_wide *w;
    const sr_prim *prims;
    unsigned char *listed;   /* per prim: seen in a leaf */
    uint32_t nodes_seen, depth;
} walk_check;

/* The exact box of everything under wide node `at` (depth `depth`), checking on the way that
 * every slot's decoded box holds its child's exact box and leaves hold 1 to 3 prims. */
static void check_node(walk_check *c, uint32_t at, uint32_t depth, sr_vec3 *lo, sr_vec3 *hi)
{
    assert_true(at < c->w->node_count);
    const sr_wide_node *n = &c->w->nodes[at];
    c->nodes_seen++;
    c->depth = depth > c->depth ? depth : c->depth;
    *lo = sr_v3s(SR_INF);
    *hi = sr_v3s(-SR_INF);
    uint32_t slots = 0;
    for (uint32_t k = 0; k < 8; k++) {
        sr_vec3 clo = sr_v3s(SR_INF), chi = sr_v3s(-SR_INF);
        if ((n->imask >> k) & 1u) {
            check_node(c, n->child_base + n->meta[k], depth + 1u, &clo, &chi);
        } else if (n->meta[k]) {
            const uint32_t count = n->meta[k] >> 5, first = n->prim_base + (n->meta[k] & 31u);
            assert_true(count >= 1 && count <= SR_WIDE_LEAF_MAX);
            assert_true(first + count <= c->w->prim_count);
            for (uint32_t j = first; j < first + count; j++) {
                const uint32_t i = c->w->prims[j];
                assert_false(c->listed[i]);
                c->listed[i] = 1;
                sr_vec3 plo, phi;
                sr_prim_bounds(&c->prims[i], &plo, &phi);
                clo = sr_vmin(clo, plo);
                chi = sr_vmax(chi, phi);
            }
        } else {
            continue;
        }
        slots++;
        sr_vec3 qlo, qhi;
        sr_wide_child_box(n, k, &qlo, &qhi);
        if (!box_holds(qlo, qhi, clo, chi))
            fail_msg("node %u slot %u: quantized box (%.9g %.9g %.9g)-(%.9g %.9g %.9g) misses the exact "
                     "(%.9g %.9g %.9g)-(%.9g %.9g %.9g)", at, k, qlo.x, qlo.y, qlo.z, qhi.x, qhi.y, qhi.z, clo.x,
                     clo.y, clo.z, chi.x, chi.y, chi.z);
        *lo = sr_vmin(*lo, clo);
        *hi = sr_vmax(*hi, chi);
    }
    assert_true(slots >= 1);
}

static sr_scene_view view_of(const sr_bvh *b)
{
    sr_scene_view s;
    memset(&s, 0, sizeof s);
    s.prims = b->prims;
    s.prim_count = b->prim_count;
    s.nodes = b->nodes;
    s.node_count = b->node_count;
    return s;
}

static void wide_of(const sr_bvh *b, sr_wide *w)
{
    sr_error err;
    memset(&err, 0, sizeof err);
    const uint32_t root = 0;
    uint32_t wide_root = 99;
    if (sr_wide_build(b->nodes, b->prims, &root, 1, &wide_root, w, &err)) fail_msg("%s", err.msg);
    assert_int_equal(wide_root, 0);
}

/* Every prim listed once, every slot's box holding its child's, and the whole within the
 * binary tree's root box. */
static void check_wide(const sr_wide *w, const sr_bvh *b, const char *what)
{
    assert_true(w->node_count > 0);
    walk_check c;
    memset(&c, 0, sizeof c);
    c.w = w;
    c.prims = b->prims;
    c.listed = calloc(b->prim_count, 1);
    assert_non_null(c.listed);
    sr_vec3 lo, hi;
    check_node(&c, 0, 1, &lo, &hi);
    assert_int_equal(c.nodes_seen, w->node_count);
    assert_int_equal(w->prim_count, b->prim_count);
    for (uint32_t i = 0; i < b->prim_count; i++) assert_true(c.listed[i]);
    assert_int_equal(c.depth, w->depth);
    assert_true(box_holds(b->nodes[0].lo, b->nodes[0].hi, lo, hi));
    printf("  %s: %u prims, binary %u nodes (%llu bytes, depth %u), wide %u nodes (%llu bytes with the prim list, "
           "depth %u)\n", what, b->prim_count, b->node_count, (unsigned long long)b->node_count * sizeof(sr_bvh_node),
           b->depth, w->node_count, (unsigned long long)sr_wide_bytes(w), w->depth);
    free(c.listed);
}

/* splitmix64 */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float next_f(uint64_t *s, float lo, float hi)
{
    return lo + (hi - lo) * (float)(next_u64(s) >> 40) * (1.0f / 16777216.0f);
}

/* Rays from around the mesh's box, aimed at prims and anywhere, some axis-aligned: the wide
 * walk's closest hit (prim and t) and occlusion are the binary walk's, bit for bit. */
static uint32_t compare_rays(const sr_scene_view *bin, const sr_scene_view *wide, const sr_prim *prims, uint32_t n,
                         uint64_t seed, uint32_t count)
{
    const sr_bvh_node *root = &bin->nodes[0];
    const sr_vec3 mid = sr_scale(sr_add(root->lo, root->hi), 0.5f);
    const float r = 0.5f * sr_length(sr_sub(root->hi, root->lo)) + 1e-3f;
    uint32_t hits = 0;
    for (uint32_t k = 0; k < count; k++) {
        sr_vec3 o = sr_add(mid, sr_v3(next_f(&seed, -2 * r, 2 * r), next_f(&seed, -2 * r, 2 * r), next_f(&seed, -2 * r, 2 * r)));
        sr_vec3 d;
        const uint64_t kind = next_u64(&seed) % 4;
        if (kind == 0) {
            d = sr_sub(prims[next_u64(&seed) % n].a, o);
        } else if (kind == 1) {   /* from a prim's corner outward: a bounce leaving a surface */
            o = prims[next_u64(&seed) % n].b;
            d = sr_v3(next_f(&seed, -1, 1), next_f(&seed, -1, 1), next_f(&seed, -1, 1));
        } else if (kind == 2) {
            const int axis = (int)(next_u64(&seed) % 3);
            d = sr_v3(axis == 0, axis == 1, axis == 2);
            if (next_u64(&seed) & 1) d = sr_scale(d, -1.0f);
            o = sr_sub(sr_add(mid, sr_v3(next_f(&seed, -r, r), next_f(&seed, -r, r), next_f(&seed, -r, r))), sr_scale(d, 3 * r));
        } else {
            d = sr_sub(sr_add(mid, sr_v3(next_f(&seed, -r, r), next_f(&seed, -r, r), next_f(&seed, -r, r))), o);
        }
        if (d.x == 0.0f && d.y == 0.0f && d.z == 0.0f) d = sr_v3(0, 0, 1);
        const float tmin = kind == 1 ? 1e-4f : 0.0f;
        const sr_hit hb = sr_trace_closest(bin, o, d, tmin, SR_INF), hw = sr_trace_closest(wide, o, d, tmin, SR_INF);
        if (hb.prim != hw.prim || hb.t != hw.t)
            fail_msg("ray o=(%.9g %.9g %.9g) d=(%.9g %.9g %.9g): binary prim %u t %.9g, wide prim %u t %.9g", o.x, o.y,
                     o.z, d.x, d.y, d.z, hb.prim, hb.t, hw.prim, hw.t);
        hits += hb.prim != SR_NO_HIT;
        const float occ = next_f(&seed, 0.0f, 3.0f * r / (sr_length(d) + 1e-30f));
        assert_int_equal(sr_trace_occluded(bin, o, d, tmin, occ), sr_trace_occluded(wide, o, d, tmin, occ));
    }
    return hits;
}

static void check_mesh_trees(int kind, uint32_t size, int sah)
{
    uint32_t n = 0;
    sr_prim *prims = sr_mesh_make(kind, size, &n);
    assert_non_null(prims);
    sr_error err;
    memset(&err, 0, sizeof err);
    sr_bvh b;
    if ((sah ? sr_bvh_build_sah(prims, n, &b, &err) : sr_bvh_build(prims, n, &b, &err)) != SR_OK) fail_msg("%s", err.msg);
    sr_wide w;
    wide_of(&b, &w);
    char what[128];
    snprintf(what, sizeof what, "%s (%s)", sr_mesh_names[kind], sah ? "host SAH" : "linear");
    check_wide(&w, &b, what);
    sr_scene_view bin = view_of(&b), wide = bin;
    wide.wide_nodes = w.nodes;
    wide.wide_node_count = w.node_count;
    wide.wide_prims = w.prims;
    wide.wide_prim_count = w.prim_count;
    const uint32_t hits = compare_rays(&bin, &wide, b.prims, n, 1000u + (uint64_t)kind, 3000);
    printf("    3000 rays, %u hits, the same\n", hits);
    if (kind == SR_MESH_SPHERE || kind == SR_MESH_DUPLICATES || kind == SR_MESH_MIXED) assert_true(hits > 300u);
    sr_wide_free(&w);
    sr_bvh_free(&b);
    free(prims);
}

static void test_quantized_boxes_and_hits_on_every_mesh(void **state)
{
    (void)state;
    for (int kind = 0; kind < SR_MESH_KINDS; kind++) {
        check_mesh_trees(kind, 6000, 1);
        check_mesh_trees(kind, 6000, 0);
    }
    check_mesh_trees(SR_MESH_SPHERE, 2, 1);   /* a root that is a leaf */
}

/* A box far from the origin and one ulp thin: the step must grow until the decoded bounds,
 * rounded in float, still hold it. */
static void test_thin_far_boxes(void **state)
{
    (void)state;
    sr_prim prims[12];
    for (uint32_t i = 0; i < 12; i++) {
        const float x = 1.0e6f + (float)i * 0.0625f, y = nextafterf(3.0e5f, INFINITY);
        prims[i] = sr_mesh_tri(sr_v3(x, 3.0e5f, -7.0f), sr_v3(x + 0.0625f, y, -7.0f), sr_v3(x, y, nextafterf(-7.0f, 0)), i);
    }
    sr_error err;
    memset(&err, 0, sizeof err);
    sr_bvh b;
    assert_int_equal(sr_bvh_build_sah(prims, 12, &b, &err), SR_OK);
    sr_wide w;
    wide_of(&b, &w);
    check_wide(&w, &b, "thin far triangles");
    sr_wide_free(&w);
    sr_bvh_free(&b);
}

static const char *const scenes[] = { "scenes/default.json", "scenes/cornell.json", "scenes/cornell_path.json",
                                      "scenes/mirror_hall.json", "scenes/mesh.json", "scenes/sphere_field.json",
                                      "scenes/showcase.json", "scenes/orbit.json" };

/* The scene rendered on the CPU with the binary and the wide tree under both integrators
 * (Whitted's shadow rays, path tracing's light samples): the same image, bit for bit, and the
 * stats name the tree walked. */
static void same_images(sr_scene *scene, const char *what)
{
    for (uint32_t integrator = 0; integrator < SR_INTEGRATOR_COUNT; integrator++) {
        scene->integrator = integrator;
        sr_render_opts o;
        sr_render_opts_default(&o);
        sr_render_stats sb, sw;
        float *bin = sr_test_render_opts(scene, SR_BACKEND_CPU, &o, &sb);
        o.bvh_tree = SR_BVH_TREE_WIDE;
        float *wide = sr_test_render_opts(scene, SR_BACKEND_CPU, &o, &sw);
        assert_non_null(bin);
        assert_non_null(wide);
        assert_int_equal(sb.bvh_tree, SR_BVH_TREE_BINARY);
        assert_int_equal(sw.bvh_tree, SR_BVH_TREE_WIDE);
        assert_true(sw.bvh_nodes > 0 && sw.bvh_bytes >= sw.bvh_nodes * sizeof(sr_wide_node));
        assert_true(sw.bvh_bytes <= sb.bvh_bytes);   /* 80-byte nodes for eight children */
        const size_t n = 3u * scene->width * scene->height;
        double sum = 0.0;
        for (size_t i = 0; i < n; i++) sum += bin[i];
        assert_true(sum > 0.0);   /* something is lit */
        if (memcmp(bin, wide, n * sizeof *bin))
            fail_msg("%s (%s): the wide tree's image differs from the binary tree's", what,
                     integrator ? "path" : "whitted");
        assert_true(sb.rays == sw.rays);
        printf("  %s (%s): same image; binary %llu nodes %llu bytes, wide %llu nodes %llu bytes\n", what,
               integrator ? "path" : "whitted", (unsigned long long)sb.bvh_nodes, (unsigned long long)sb.bvh_bytes,
               (unsigned long long)sw.bvh_nodes, (unsigned long long)sw.bvh_bytes);
        free(bin);
        free(wide);
    }
}

static void test_shipped_scenes_same_images(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
        sr_scene scene;
        sr_test_load_shipped(scenes[i], &scene);
        scene.width = 48;
        scene.height = 27;
        scene.spp = 2;
        same_images(&scene, scenes[i]);
        sr_scene_free(&scene);
    }
}

/* One sphere mesh placed three times (instances: the two-level walk) beside a flattened
 * copy and a floor, lit by a point light (shadow rays into the instances). */
static void test_instances_same_images(void **state)
{
    (void)state;
    char a[512], b[512], text[4096];
    sr_test_write_uv_sphere(sr_test_tmp_path(a, sizeof a, "wide_inst.obj"), 16, 8, 1, 0);
    sr_test_write_uv_sphere(sr_test_tmp_path(b, sizeof b, "wide_flat.obj"), 16, 8, 1, 0);
    snprintf(text, sizeof text,
             "{\"camera\": {\"position\": [0, 2, 7], \"look_at\": [0, 1, 0]},"
             " \"image\": {\"width\": 64, \"height\": 40, \"spp\": 2, \"max_depth\": 4},"
             " \"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.7, 0.5, 0.3]},"
             "  \"gold\": {\"type\": \"metal\", \"albedo\": [1, 0.8, 0.4], \"roughness\": 0.2},"
             "  \"lamp\": {\"type\": \"emissive\", \"radiance\": [4, 4, 4]}},"
             " \"lights\": [{\"type\": \"point\", \"position\": [-3, 6, 5], \"intensity\": 200}],"
             " \"objects\": [{\"type\": \"quad\", \"corner\": [-6, 0, -6], \"edge_u\": [0, 0, 12], \"edge_v\": [12, 0, 0],"
             "  \"material\": \"m\"},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"gold\", \"translate\": [-2, 1, 0], \"rotate\": [20, 30, 0]},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"gold\", \"translate\": [0.2, 1.2, -1], \"scale\": [1.2, 0.6, 0.9]},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"gold\", \"translate\": [1.5, 3, -2], \"scale\": 0.4},"
             "  {\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"lamp\", \"translate\": [2, 1, 0.5]}]}",
             a, a, a, b);
    sr_scene scene;
    sr_test_parse("wide_instances.json", text, &scene);
    assert_int_equal(scene.instance_count, 3);
    same_images(&scene, "instanced spheres");
    sr_scene_free(&scene);
}

/* A mesh above the host SAH build's limit (render.c): the linear BVH, read back from the
 * backend for the collapse. */
static void test_linear_tree_same_images(void **state)
{
    (void)state;
    char a[512], text[2048];
    sr_test_write_uv_sphere(sr_test_tmp_path(a, sizeof a, "wide_large.obj"), 200, 100, 1, 0);
    snprintf(text, sizeof text,
             "{\"camera\": {\"position\": [0, 0.5, 3], \"look_at\": [0, 0, 0]},"
             " \"image\": {\"width\": 48, \"height\": 32, \"spp\": 1, \"max_depth\": 3},"
             " \"materials\": {\"m\": {\"type\": \"diffuse\", \"albedo\": [0.7, 0.5, 0.3]}}, \"background\": [0.3, 0.4, 0.5],"
             " \"lights\": [{\"type\": \"point\", \"position\": [-3, 6, 5], \"intensity\": 200}],"
             " \"objects\": [{\"type\": \"mesh\", \"file\": \"%s\", \"material\": \"m\"}]}", a);
    sr_scene scene;
    sr_test_parse("wide_large.json", text, &scene);
    assert_true(scene.prim_count > 32768u);
    same_images(&scene, "a 40,000-triangle sphere (linear BVH)");
    sr_scene_free(&scene);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantized_boxes_and_hits_on_every_mesh),
        cmocka_unit_test(test_thin_far_boxes),
        cmocka_unit_test(test_shipped_scenes_same_images),
        cmocka_unit_test(test_instances_same_images),
        cmocka_unit_test(test_linear_tree_same_images),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
