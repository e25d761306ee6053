/* test_path_materials.c: how the path integrator (kernels/integrators/path.h, CPU backend) scatters off
 * each material, against answers that do not come from the code under test: lossless
 * materials in a white furnace give the environment back, rough metal its GGX albedo
 * integrated here from the model's definition; one glass interface gives the exact Fresnel
 * split; mirror and glass see a lamp at depth 1. Monte Carlo results are compared by
 * testutil.h's z statistic over independent pixels. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/integrators/path.h"

/* ---- a reference for rough metal --------------------------------------------------------- */

/* GGX, written out here in double from its definition: the normal distribution D and Smith's
 * height-correlated masking-shadowing G2 = 1 / (1 + Lambda(wo) + Lambda(wi)). */
static double ref_ggx_d(double a2, double c)
{
    double k = c * c * (a2 - 1) + 1;
    return a2 / (M_PI * k * k);
}

static double ref_ggx_lambda(double a2, double c)
{
    return 0.5 * (sqrt(1 + a2 * (1 - c * c) / (c * c)) - 1);
}

/* Directional albedo of a white GGX conductor seen at cosine mu: the integral over the
 * half-vector hemisphere of D G2 (wo.h) / mu (midpoint rule, 512 x 256 cells). */
#define GGX_TABLE 41
static void ggx_albedo_table(double alpha, double *table)
{
    const double a2 = alpha * alpha;
    const int nt = 512, np = 256;
    for (int k = 0; k < GGX_TABLE; k++) {
        double mu = 0.2 + 0.8 * k / (GGX_TABLE - 1), so = sqrt(1 - mu * mu), sum = 0;
        for (int i = 0; i < nt; i++) {
            double th = (i + 0.5) * (M_PI / 2) / nt, ch = cos(th), sh = sin(th);
            for (int j = 0; j < np; j++) {
                double ph = (j + 0.5) * 2 * M_PI / np;
                double hx = sh * cos(ph), hz = ch;   /* h's y part drops out: wo has none */
                double oh = so * hx + mu * hz;   /* wo = (so, 0, mu) */
                if (oh <= 0) continue;
                double iz = 2 * oh * hz - mu;   /* wi = 2 (wo.h) h - wo */
                if (iz <= 0) continue;
                double g2 = 1 / (1 + ref_ggx_lambda(a2, mu) + ref_ggx_lambda(a2, iz));
                sum += ref_ggx_d(a2, hz) * g2 * oh / mu * sh;
            }
        }
        table[k] = sum * (M_PI / 2 / nt) * (2 * M_PI / np);
    }
}

static double ggx_albedo(const double *table, double mu)
{
    double f = (mu - 0.2) / 0.8 * (GGX_TABLE - 1);
    if (f < 0) f = 0;
    if (f > GGX_TABLE - 1.001) f = GGX_TABLE - 1.001;
    int i = (int)f;
    return table[i] + (f - i) * (table[i + 1] - table[i]);
}

/* ---- white furnace ----------------------------------------------------------------------- */

static const char *white_furnace_fmt =
    "{\"integrator\":\"path\","
    " \"camera\":{\"position\":[0,0,4],\"look_at\":[0,0,0],\"fov\":32},"
    " \"image\":{\"width\":32,\"height\":32,\"spp\":16,\"max_depth\":64},"
    " \"background\":[0.6,0.6,0.6],"
    " \"materials\":{\"m\":%s},"
    " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"m\"}]}";

/* Lossless materials in a uniform environment give the environment back everywhere: glass
 * (Fresnel reflection and refraction, any number of internal bounces), a perfect mirror, a
 * smooth metal of albedo 1. Rough metal (single-scattering GGX) loses what its microfacets
 * shadow, more the rougher it is: each pixel is L times the directional albedo at its viewing
 * angle, integrated numerically from GGX's definition (so this checks the sampling of visible
 * normals and its weight G2 / G1 against the model). */
static void test_white_furnace(void **state)
{
    (void)state;
    const double L[3] = { 0.6, 0.6, 0.6 };
    const char *lossless[] = {
        "{\"type\":\"glass\",\"ior\":1.5}",
        "{\"type\":\"glass\",\"ior\":2.4}",
        "{\"type\":\"mirror\",\"reflectance\":[1,1,1]}",
        "{\"type\":\"metal\",\"albedo\":[1,1,1],\"roughness\":0}",
    };
    for (size_t k = 0; k < 4; k++) {
        char json[1024];
        snprintf(json, sizeof json, white_furnace_fmt, lossless[k]);
        sr_scene s;
        sr_test_parse("white.json", json, &s);
        float *img = sr_test_render_cpu(&s, 7);
        sr_test_check_constant(lossless[k], img, s.width * s.height, L, 0.01);
        if (k >= 2)   /* one reflection, nothing random: exact */
            for (uint32_t i = 0; i < s.width * s.height * 3; i++) assert_float_equal(img[i], 0.6f, 1e-6);
        free(img);
        sr_scene_free(&s);
    }
    const float rough[] = { 0.5f, 0.8f, 1.0f };
    for (size_t k = 0; k < 3; k++) {
        char mat[128], json[1024];
        snprintf(mat, sizeof mat, "{\"type\":\"metal\",\"albedo\":[1,1,1],\"roughness\":%g}", rough[k]);
        snprintf(json, sizeof json, white_furnace_fmt, mat);
        sr_scene s;
        sr_test_parse("white.json", json, &s);
        s.spp = 32;
        float *img = sr_test_render_cpu(&s, 8);
        double alpha = (double)rough[k] * rough[k], table[GGX_TABLE];
        ggx_albedo_table(alpha, table);
        /* Pixels on the sphere away from its silhouette: L times the albedo at their angle. */
        sr_test_stat a;
        memset(&a, 0, sizeof a);
        for (uint32_t y = 0; y < 32; y++)
            for (uint32_t x = 0; x < 32; x++) {
                double mu = 0;
                double m = sphere_margin_mu(d3v(0, 0, 4), d3v(0, 0, 0), 32.0, 32, 32, x, y, d3v(0, 0, 0), 1.0, &mu);
                if (m > -0.1) continue;
                sr_test_stat_add(&a, img[3u * (y * 32 + x)], L[0] * ggx_albedo(table, mu));   /* grey: one channel */
            }
        char what[96];
        snprintf(what, sizeof what, "rough metal %.1f (alpha %.2f) in the furnace", rough[k], alpha);
        assert_true(a.n > 300);
        sr_test_stat_check(what, &a, 0.01);
        free(img);
        sr_scene_free(&s);
    }
}

/* ---- glass: one interface ---------------------------------------------------------------- */

/* Unpolarised Fresnel reflectance for cosine ci on the side of index n1, n2 beyond. */
static double ref_fresnel(double ci, double n1, double n2, double *ct_out)
{
    double st2 = (n1 / n2) * (n1 / n2) * (1 - ci * ci);
    if (st2 >= 1) { *ct_out = 0; return 1; }
    double ct = sqrt(1 - st2);
    double rs = (n1 * ci - n2 * ct) / (n1 * ci + n2 * ct), rp = (n2 * ci - n1 * ct) / (n2 * ci + n1 * ct);
    *ct_out = ct;
    return 0.5 * (rs * rs + rp * rp);
}

/* A single glass surface (a large quad: a ray that enters never meets another one) seen at an
 * angle under a sky that is 0 at the horizon and rises linearly to `zenith` and `ground`: the
 * reflected ray leaves at the same angle, refraction bends it by Snell's law, and the pixel is
 * F * sky(reflected) + (1 - F) * tint * sky(refracted), with F the exact Fresnel reflectance.
 * From below (inside the glass) beyond the critical angle, everything reflects. */
static void test_glass_single_interface(void **state)
{
    (void)state;
    const char *fmt =
        "{\"integrator\":\"path\","
        " \"camera\":{\"position\":[0,%.9f,%.9f],\"look_at\":[0,0,0],\"fov\":0.2},"
        " \"image\":{\"width\":8,\"height\":8,\"spp\":2048,\"max_depth\":4},"
        " \"sky\":{\"zenith\":[1,0,0.5],\"horizon\":[0,0,0],\"ground\":[0,1,0.5]},"
        " \"materials\":{\"g\":{\"type\":\"glass\",\"ior\":1.5,\"tint\":[1,0.5,0.25]}},"
        " \"objects\":[{\"type\":\"quad\",\"corner\":[-100,0,100],\"edge_u\":[200,0,0],\"edge_v\":[0,0,-200],"
        "   \"material\":\"g\"}]}";
    const double angles[] = { 0, 30, 60, 75, -20, -30, -60 };   /* < 0: from below the surface */
    for (size_t k = 0; k < sizeof angles / sizeof angles[0]; k++) {
        double th = fabs(angles[k]) * M_PI / 180, ci = cos(th), side = angles[k] < 0 ? -1 : 1;
        char json[2048];
        snprintf(json, sizeof json, fmt, side * 10 * ci, 10 * sin(th) + (angles[k] == 0 ? 1e-3 : 0));
        sr_scene s;
        sr_test_parse("glass1.json", json, &s);
        float *img = sr_test_render_cpu(&s, 50 + (uint32_t)k);
        double ct;
        double F = side > 0 ? ref_fresnel(ci, 1.0, 1.5, &ct) : ref_fresnel(ci, 1.5, 1.0, &ct);
        /* reflected: y = side * ci, so sky = ci x (zenith above, ground below); refracted:
         * y = -side * ct, sky = ct x (ground if it goes down, zenith if up) */
        const double zen[3] = { 1, 0, 0.5 }, gnd[3] = { 0, 1, 0.5 }, tint[3] = { 1, 0.5, 0.25 };
        double expect[3];
        for (int c = 0; c < 3; c++) {
            double refl = ci * (side > 0 ? zen[c] : gnd[c]);
            double refr = ct * (side > 0 ? gnd[c] : zen[c]);
            expect[c] = F * refl + (1 - F) * tint[c] * refr;
        }
        char what[96];
        snprintf(what, sizeof what, "glass at %g degrees %s (F = %.4f)", fabs(angles[k]), side > 0 ? "above" : "below", F);
        sr_test_check_constant(what, img, 64, expect, 0.05);   /* F = 0.04 is a rare event: noisy */
        free(img);
        sr_scene_free(&s);
    }
}

/* ---- specular surfaces at depth 1 -------------------------------------------------------- */

/* Depth 1 is direct lighting from every light, also through a specular vertex: a mirror (and
 * a glass) sphere facing a large lamp behind the camera shows the lamp's reflection at depth 1
 * (before the one depth convention, specular vertices at the last depth were black). The ray
 * through the image centre meets the sphere head-on and comes straight back to the lamp, so
 * the mirror gives exactly reflectance x radiance there, and the glass its Fresnel share. */
static const char *specular_lamp_fmt =
    "{\"integrator\":\"path\","
    " \"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0],\"fov\":30},"
    " \"image\":{\"width\":33,\"height\":33,\"spp\":%u,\"max_depth\":1},"
    " \"materials\":{\"s\":%s,"
    "   \"lamp\":{\"type\":\"emissive\",\"radiance\":[2,3,4]}},"
    " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"s\"},"
    "   {\"type\":\"quad\",\"corner\":[-20,-20,9],\"edge_u\":[0,40,0],\"edge_v\":[40,0,0],\"material\":\"lamp\"}]}";

static void test_specular_sees_lamp_at_depth_one(void **state)
{
    (void)state;
    char text[1024];
    snprintf(text, sizeof text, specular_lamp_fmt, 1u, "{\"type\":\"mirror\",\"reflectance\":[0.9,0.8,0.7]}");
    sr_scene s;
    sr_test_parse("mirror_lamp.json", text, &s);
    float *img = sr_test_render_cpu(&s, 5);
    const uint32_t c = 16 * 33 + 16;   /* the image centre */
    const float want[3] = { 0.9f * 2.0f, 0.8f * 3.0f, 0.7f * 4.0f };
    for (int k = 0; k < 3; k++)
        if (fabsf(img[3 * c + k] - want[k]) > 1e-4f * want[k])
            fail_msg("mirror at depth 1, centre [%d]: %.6f, expected %.6f", k, img[3 * c + k], want[k]);
    free(img);
    sr_scene_free(&s);

    snprintf(text, sizeof text, specular_lamp_fmt, 256u, "{\"type\":\"glass\",\"ior\":1.5}");
    sr_test_parse("glass_lamp.json", text, &s);
    img = sr_test_render_cpu(&s, 6);
    /* Head-on Fresnel reflectance of glass, ((1.5 - 1) / (1.5 + 1))^2 = 0.04: the mean of 256
     * choices between reflecting (sees the lamp) and refracting (sees nothing more). */
    const float got = img[3 * c + 1];
    if (!(got > 0.02f * 3.0f && got < 0.08f * 3.0f))
        fail_msg("glass at depth 1, centre [g]: %.6f, expected about %.6f", got, 0.04f * 3.0f);
    free(img);
    sr_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_white_furnace),
        cmocka_unit_test(test_glass_single_interface),
        cmocka_unit_test(test_specular_sees_lamp_at_depth_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
