/* test_path_render.c: the path integrator in the renderer: every mask gives the same image,
 * the shipped path-traced scenes and their emitter lists, and --integrator on the command
 * line. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/integrators/path.h"

/* Every mask and every compaction policy gives the same path-traced image bit for bit (random
 * numbers follow the pixel, not the pool slot), and bounce counts only fall. */
static void test_path_masks_agree(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_load_shipped("scenes/cornell_path.json", &s);
    s.width = 48;
    s.height = 40;
    s.spp = 3;
    s.max_depth = 12;
    sr_render_stats ref_st;
    float *ref = sr_test_masks_agree(&s, SR_BACKEND_CPU, 9, &ref_st);
    assert_int_equal(ref_st.bounce_rays[0], (uint64_t)s.width * s.height * s.spp);
    for (uint32_t b = 1; b < SR_MAX_DEPTH; b++) assert_true(ref_st.bounce_rays[b] <= ref_st.bounce_rays[b - 1]);
    assert_true(ref_st.bounce_rays[4] > 0);            /* paths do get deep...              */
    assert_true(ref_st.bounce_rays[11] < ref_st.bounce_rays[1]);   /* ...and die on the way */
    assert_int_equal(ref_st.bounce_rays[12], 0);        /* never past max_depth              */
    free(ref);
    sr_scene_free(&s);
}

static void test_shipped_path_scenes(void **state)
{
    (void)state;
    const char *files[] = { "scenes/cornell_path.json", "scenes/sphere_field.json" };
    for (size_t k = 0; k < 2; k++) {
        sr_scene s;
        sr_error err = { SR_OK, "" };
        sr_test_load_shipped(files[k], &s);
        assert_int_equal(s.integrator, SR_INTEGRATOR_PATH);
        assert_int_equal(s.spp, 64);
        assert_int_equal(s.max_depth, 8);
        uint32_t emissive = 0, glass = 0, metal = 0;
        for (uint32_t i = 0; i < s.prim_count; i++) {
            uint32_t kind = s.materials[s.prims[i].material].kind;
            emissive += kind == SR_MAT_EMISSIVE;
            glass += kind == SR_MAT_GLASS;
            metal += kind == SR_MAT_METAL && s.materials[s.prims[i].material].roughness > 0;
        }
        if (k == 0) {
            assert_int_equal(s.light_count, 0);   /* lit by its ceiling lamp alone */
            assert_int_equal(emissive, 1);
            assert_int_equal(glass, 1);
        } else {
            assert_true(s.prim_count >= 300);
            assert_true(s.has_sky);
            assert_true(glass >= 5 && metal >= 20);
        }
        /* The renderer's emitter list holds the lamp, found in BVH order. */
        sr_backend be;
        assert_int_equal(sr_backend_create(SR_BACKEND_CPU, 0, &be, NULL, 0, &err), SR_OK);
        sr_renderer r;
        sr_frame f;
        sr_frame_from_scene(&f, &s);
        assert_int_equal(sr_renderer_prepare(&r, &s, &be, &f, &err), SR_OK);
        assert_int_equal(r.view.emitter_count, emissive);
        for (uint32_t i = 0; i < r.view.emitter_count; i++)
            assert_int_equal(s.materials[r.view.prims[r.view.emitters[i].prim].material].kind, SR_MAT_EMISSIVE);
        if (emissive) assert_true(r.view.emitters[emissive - 1].cdf == 1.0f);
        sr_renderer_free(&r);
        sr_backend_destroy(&be);
        sr_scene_free(&s);
    }
}

static void test_cli_integrator(void **state)
{
    (void)state;
    char scene[1024], out[1024], err[8192];
    sr_test_source_path(scene, sizeof scene, "scenes/cornell.json");
    sr_test_tmp_path(out, sizeof out, "path_cli.hdr");
    remove(out);
    const char *ok[] = { "render", scene, "--integrator", "path", "--backend", "cpu", "--width", "32", "--height", "32",
                         "--spp", "2", "-q", "-o", out, NULL };
    int rc = sr_test_run_cli(ok, err, sizeof err);
    if (rc != 0) fail_msg("exit %d: %s", rc, err);
    assert_true(sr_test_file_exists(out));
    const char *bad[] = { "render", scene, "--integrator", "pathtracer", "-o", out, NULL };
    assert_int_equal(sr_test_run_cli(bad, err, sizeof err), 2);
    assert_non_null(strstr(err, "--integrator: expected whitted or path, got 'pathtracer'"));
    const char *help[] = { "render", "--help", NULL };
    assert_int_equal(sr_test_run_cli(help, err, sizeof err), 0);
    /* help goes to stdout, which the helper drops; the option must at least be accepted */
    sr_test_source_path(scene, sizeof scene, "scenes/sphere_field.json");
    const char *field[] = { "render", scene, "--integrator", "whitted", "--backend", "cpu", "--width", "32",
                            "--height", "18", "--spp", "1", "-q", "-o", out, NULL };
    rc = sr_test_run_cli(field, err, sizeof err);
    if (rc != 0) fail_msg("exit %d: %s", rc, err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_masks_agree),
        cmocka_unit_test(test_shipped_path_scenes),
        cmocka_unit_test(test_cli_integrator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
