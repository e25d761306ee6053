/* test_pbr_lamp.c: a pbr material's `emission` is light like an emissive material's radiance.
 * The same lamp written as `emissive` and as an emitting `pbr` must give the same image at
 * depths 1, 2 and 8, seen directly, through a mirror and (path mode) lighting a diffuse floor:
 * path mode lets every light reach the camera along max_depth + 1 segments (kernels/integrators/path.h),
 * Whitted mode along max_depth.
 *
 * The pbr lamp is black and metallic (F0 = 0) with roughness 0, so it reflects only Schlick's
 * (1 - cos)^5, which the scenes keep below 2e-3 (every ray meets it within 45 degrees of its
 * normal). With light sampling off (SR_PATH_NO_NEE) both lamps are found by the same BSDF
 * samples, keyed by pixel and bounce, so the images agree to that reflection; with light
 * sampling on, the emissive lamp is sampled and the pbr one is not (not in the emitter list),
 * so there they agree within Monte Carlo error (testutil.h's z statistic). */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 32
#define EMISSIVE "{\"type\":\"emissive\",\"radiance\":[3,2,1]}"
#define PBR "{\"type\":\"pbr\",\"base_color\":[0,0,0],\"metallic\":1,\"roughness\":0,\"emission\":[3,2,1]}"

/* The scenes: a format with the integrator, spp, depth and the lamp's material, in order. */
#define HEAD(cam)                                                                                       \
    "{\"integrator\":\"%s\", \"camera\":" cam ","                                                       \
    " \"image\":{\"width\":32,\"height\":32,\"spp\":%u,\"max_depth\":%u}, \"background\":[0,0,0],"
static const struct { const char *name, *fmt; bool whitted; } scenes[] = {
    /* the lamp fills the middle of the view, facing the camera */
    { "direct",
      HEAD("{\"position\":[0,0,5],\"look_at\":[0,0,0],\"fov\":30}")
      " \"materials\":{\"lamp\":%s},"
      " \"objects\":[{\"type\":\"quad\",\"corner\":[-1,-1,0],\"edge_u\":[2,0,0],\"edge_v\":[0,2,0],\"material\":\"lamp\"}]}",
      true },
    /* a mirror fills the view; the lamp, behind the camera and facing the mirror, shows in it */
    { "mirror",
      HEAD("{\"position\":[0,0,5],\"look_at\":[0,0,0],\"fov\":30}")
      " \"materials\":{\"lamp\":%s, \"mirror\":{\"type\":\"mirror\"}},"
      " \"objects\":[{\"type\":\"quad\",\"corner\":[-3,-3,0],\"edge_u\":[6,0,0],\"edge_v\":[0,6,0],\"material\":\"mirror\"},"
      "   {\"type\":\"quad\",\"corner\":[-2,-2,8],\"edge_u\":[0,4,0],\"edge_v\":[4,0,0],\"material\":\"lamp\"}]}",
      true },
    /* a diffuse floor lit from above by the lamp, which the camera does not see (Whitted
     * mode lights surfaces by point and directional lights only) */
    { "floor",
      HEAD("{\"position\":[0,2,3.5],\"look_at\":[0,0,0],\"fov\":40}")
      " \"materials\":{\"lamp\":%s, \"floor\":{\"type\":\"diffuse\",\"albedo\":[0.5,0.5,0.5]}},"
      " \"objects\":[{\"type\":\"quad\",\"corner\":[-1,0,1],\"edge_u\":[2,0,0],\"edge_v\":[0,0,-2],\"material\":\"floor\"},"
      "   {\"type\":\"quad\",\"corner\":[-1,3,-1],\"edge_u\":[2,0,0],\"edge_v\":[0,0,2],\"material\":\"lamp\"}]}",
      false },
};
static const uint32_t depths[] = { 1, 2, 8 };

static float *render(size_t scene, const char *integrator, uint32_t spp, uint32_t depth, const char *lamp,
                     uint32_t flags, sr_scene *keep)
{
    char json[2048];
    snprintf(json, sizeof json, scenes[scene].fmt, integrator, spp, depth, lamp);
    sr_scene s;
    sr_test_parse("pbr_lamp.json", json, &s);
    s.path_flags = flags;
    float *img = sr_test_render_cpu(&s, 7);
    if (keep) *keep = s;
    else sr_scene_free(&s);
    return img;
}

static double image_sum(const float *img)
{
    double sum = 0;
    for (uint32_t i = 0; i < 3u * W * W; i++) sum += img[i];
    return sum;
}

/* Both lamps by the same samples (path mode without light sampling, and Whitted mode): every
 * pixel within 1e-3 of the image's brightest plus 1e-3 relative, and light arrives wherever
 * the depth lets it (a mirror at Whitted depth 1 shows nothing, with either lamp). */
static void test_same_samples(void **state)
{
    (void)state;
    for (int whitted = 0; whitted < 2; whitted++)
        for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
            if (whitted && !scenes[k].whitted) continue;
            for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
                const char *integ = whitted ? "whitted" : "path";
                const uint32_t flags = whitted ? 0u : SR_PATH_NO_NEE;
                float *e = render(k, integ, 16, depths[d], EMISSIVE, flags, NULL);
                float *p = render(k, integ, 16, depths[d], PBR, flags, NULL);
                double peak = 0, worst = 0;
                for (uint32_t i = 0; i < 3u * W * W; i++) peak = fmax(peak, e[i]);
                for (uint32_t i = 0; i < 3u * W * W; i++) {
                    const double diff = fabs((double)p[i] - e[i]) - 1e-3 * e[i];
                    worst = fmax(worst, diff);
                }
                const double se = image_sum(e), sp = image_sum(p);
                printf("%-7s %-6s depth %u: sum emissive %.4f, pbr %.4f; worst pixel difference %.2e of the peak %.3f\n",
                       integ, scenes[k].name, depths[d], se, sp, peak > 0 ? worst / peak : worst, peak);
                const bool dark = whitted && k == 1 && depths[d] == 1;
                if (dark) assert_true(se == 0.0 && sp == 0.0);
                else if (!(se > 1.0)) fail_msg("%s %s depth %u: the emissive lamp's image is black", integ, scenes[k].name, depths[d]);
                if (worst > 1e-3 * peak)
                    fail_msg("%s %s depth %u: the pbr lamp differs from the emissive one by %.4g (peak %.4g)", integ,
                             scenes[k].name, depths[d], worst, peak);
                free(e);
                free(p);
            }
        }
}

/* With light sampling on (the default), the floor lit by the emissive lamp (light sampling
 * and BSDF sampling, MIS) and by the pbr lamp (BSDF sampling only) agree within Monte Carlo
 * error at every depth. */
static void test_light_sampled_floor(void **state)
{
    (void)state;
    for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
        float *e = render(2, "path", 64, depths[d], EMISSIVE, 0, NULL);
        float *p = render(2, "path", 64, depths[d], PBR, 0, NULL);
        sr_test_stat a;
        memset(&a, 0, sizeof a);
        for (uint32_t i = 0; i < 3u * W * W; i++) sr_test_stat_add(&a, p[i], e[i]);
        char what[64];
        snprintf(what, sizeof what, "floor, light sampling, depth %u", depths[d]);
        sr_test_stat_check(what, &a, 0.05);
        free(e);
        free(p);
    }
}

/* The last segment is traced in the shading (compact, megakernel) or as a bounce of its own
 * (the wave mask): the pbr lamp's image is the same bit for bit either way. */
static void test_masks_agree(void **state)
{
    (void)state;
    for (size_t k = 1; k < 3; k++) {
        sr_scene s;
        free(render(k, "path", 4, 1, PBR, 0, &s));
        free(sr_test_masks_agree(&s, SR_BACKEND_CPU, 5, NULL));
        sr_scene_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_samples),
        cmocka_unit_test(test_light_sampled_floor),
        cmocka_unit_test(test_masks_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
