/* The path integrator (kernels/path.h) on the CPU backend, checked against answers that do
 * not come from the code under test: closed forms (a convex diffuse object or a plane under a
 * uniform or gradient sky, the furnace inside an emitting sphere and its truncated series,
 * irradiance from a spherical and from a rectangular lamp), energy conservation in a white
 * furnace, and agreement between independent estimators of one integral (light sampling with
 * MIS against BSDF sampling alone, Russian roulette on and off).
 *
 * Monte Carlo results are compared by the self-normalised statistic z = sum(r) / sqrt(sum(r^2))
 * over the residuals r of independent pixels (each pixel has its own random numbers): under
 * an unbiased estimator it is about N(0, 1), so |z| < 5 fails by chance about once in 10^6
 * runs, while a bias of a few standard errors of the image mean fails it. A relative bound on
 * the mean residual keeps the test sharp when the noise is large. */
#include "testutil.h"

#include <math.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/path.h"

#define Z_MAX 5.0

static float *render_cpu(const sr_scene *s, uint32_t seed)
{
    return sr_test_render(s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, seed, NULL);
}

/* ---- statistics ------------------------------------------------------------------------ */

typedef struct stat_acc { double sum_r, sum_r2, sum_e; uint32_t n; } stat_acc;

static void acc_add(stat_acc *a, double value, double expected)
{
    double r = value - expected;
    a->sum_r += r;
    a->sum_r2 += r * r;
    a->sum_e += expected;
    a->n++;
}

/* A systematic offset the renderer may have, relative to the expected value: float rounding,
 * and shading points lifted off their surface by 1e-4 of the coordinates' size (a lamp 3
 * units above a floor is then 1e-4 of its distance nearer, 7e-5 brighter). Without it, a
 * noiseless render (a mirror in a furnace) would fail on its rounding alone. */
#define SYS_TOL 3e-4

/* Fail unless the residuals are consistent with zero mean: |z| < Z_MAX (z of the part of the
 * sum beyond SYS_TOL) and the mean residual within rel_tol of the mean expected value. */
static void acc_check(const char *what, const stat_acc *a, double rel_tol)
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

/* Every channel of every pixel against one constant colour. */
static void check_constant(const char *what, const float *img, uint32_t pixels, const double expect[3], double rel_tol)
{
    for (int c = 0; c < 3; c++) {
        stat_acc a;
        memset(&a, 0, sizeof a);
        for (uint32_t i = 0; i < pixels; i++) acc_add(&a, img[3 * i + c], expect[c]);
        char name[128];
        snprintf(name, sizeof name, "%s [%c]", what, "rgb"[c]);
        acc_check(name, &a, rel_tol);
    }
}

/* ---- an independent pinhole camera (double precision) ------------------------------------ */


/* ---- a convex diffuse object under a uniform environment --------------------------------- */

static const char *convex_scene =
    "{\"integrator\":\"path\","
    " \"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0],\"fov\":30},"
    " \"image\":{\"width\":48,\"height\":48,\"spp\":1,\"max_depth\":8},"
    " \"background\":[0.5,1.0,2.0],"
    " \"materials\":{\"d\":{\"type\":\"diffuse\",\"albedo\":[0.6,0.4,0.2]}},"
    " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"d\"}]}";

/* Every ray that leaves a convex object escapes, so a pixel on it is albedo x L exactly, with
 * no noise, at every depth: depth 1 is direct lighting from every light, the sky included
 * (before the one depth convention it was black at depth 1). */
static void test_convex_diffuse_in_uniform_environment(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse("convex.json", convex_scene, &s);
    const float L[3] = { 0.5f, 1.0f, 2.0f }, rho[3] = { 0.6f, 0.4f, 0.2f };
    const uint32_t depths[] = { 2, 8, 64, 1 };
    for (size_t k = 0; k < 4; k++) {
        s.max_depth = depths[k];
        for (uint32_t spp = 1; spp <= 4; spp += 3) {   /* spp 4: jittered, many directions */
            s.spp = spp;
            float *img = render_cpu(&s, 11);
            uint32_t on = 0;
            for (uint32_t y = 0; y < 48; y++)
                for (uint32_t x = 0; x < 48; x++) {
                    double m = sphere_margin(d3v(0, 0, 5), d3v(0, 0, 0), 30.0, 48, 48, x, y, d3v(0, 0, 0), 1.0);
                    if (fabs(m) < 0.08) continue;   /* pixels the silhouette may cross */
                    on += m < 0;
                    for (int c = 0; c < 3; c++) {
                        float expect = m > 0 ? L[c] : rho[c] * L[c];
                        float got = img[3u * (y * 48 + x) + (uint32_t)c];
                        if (fabsf(got - expect) > 2e-6f * (1.0f + expect))
                            fail_msg("depth %u spp %u pixel (%u, %u)[%d]: %.7g, expected %.7g", depths[k], spp, x, y, c,
                                     got, expect);
                    }
                }
            assert_true(on > 500);
            free(img);
        }
    }
    sr_scene_free(&s);
}

/* ---- a diffuse plane under a uniform sky and under the gradient ---------------------------- */

static const char *plane_scene_fmt =
    "{\"integrator\":\"path\","
    " \"camera\":{\"position\":[0,3,0],\"look_at\":[0,0,-1],\"fov\":40},"
    " \"image\":{\"width\":40,\"height\":30,\"spp\":%u,\"max_depth\":8},"
    " %s,"
    " \"materials\":{\"d\":{\"type\":\"diffuse\",\"albedo\":[0.7,0.5,0.3]}},"
    " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"d\"}]}";

static void parse_fmt(sr_scene *s, const char *fmt, uint32_t spp, const char *sky)
{
    char json[2048];
    snprintf(json, sizeof json, fmt, spp, sky);
    sr_test_parse("plane.json", json, s);
}

/* Every camera ray meets the plane (the camera looks down steeply), every bounce escapes up.
 * Uniform sky L: albedo x L at every pixel, exactly. Gradient sky (horizon H at y = 0 to
 * zenith Z at y = 1, linear in y): the cosine-weighted mean over the upper hemisphere is
 * 2 * integral_0^1 (H (1 - y) + Z y) y dy = H/3 + 2Z/3, times the albedo. The ground colour
 * is never seen. */
static void test_diffuse_plane_under_sky(void **state)
{
    (void)state;
    const double rho[3] = { 0.7, 0.5, 0.3 };
    sr_scene s;
    parse_fmt(&s, plane_scene_fmt, 4, "\"background\":[0.25,0.5,1.0]");
    float *img = render_cpu(&s, 3);
    for (uint32_t i = 0; i < 40 * 30; i++)
        for (int c = 0; c < 3; c++) {
            double expect = rho[c] * (c == 0 ? 0.25 : c == 1 ? 0.5 : 1.0);
            assert_float_equal(img[3 * i + c], expect, 2e-6 * (1.0 + expect));
        }
    free(img);
    sr_scene_free(&s);

    const double Z[3] = { 0.2, 0.5, 1.0 }, H[3] = { 1.0, 0.9, 0.8 };
    parse_fmt(&s, plane_scene_fmt, 64,
              "\"sky\":{\"zenith\":[0.2,0.5,1.0],\"horizon\":[1.0,0.9,0.8],\"ground\":[9,9,9]}");
    img = render_cpu(&s, 4);
    double expect[3];
    for (int c = 0; c < 3; c++) expect[c] = rho[c] * (H[c] / 3.0 + 2.0 * Z[c] / 3.0);
    check_constant("plane under the sky gradient", img, 40 * 30, expect, 0.01);
    free(img);
    sr_scene_free(&s);
}

/* The sky as seen directly, by both integrators: straight up is the zenith, level is the
 * horizon, straight down the ground. */
static void test_sky_seen_directly(void **state)
{
    (void)state;
    const char *fmt =
        "{\"integrator\":\"%s\", \"camera\":{\"position\":[0,0,0],\"look_at\":[%s],\"up\":[%s],\"fov\":1},"
        " \"image\":{\"width\":1,\"height\":1,\"spp\":1},"
        " \"sky\":{\"zenith\":[0.1,0.2,0.3],\"horizon\":[1,2,3],\"ground\":[4,5,6]},"
        " \"materials\":{\"d\":{\"type\":\"diffuse\"}},"
        " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,-100],\"radius\":1,\"material\":\"d\"}]}";
    const char *look[3] = { "0,1,0", "1,0,0", "0,-1,0" }, *up[3] = { "0,0,-1", "0,1,0", "0,0,-1" };
    const float want[3][3] = { { 0.1f, 0.2f, 0.3f }, { 1, 2, 3 }, { 4, 5, 6 } };
    for (int integ = 0; integ < 2; integ++)
        for (int k = 0; k < 3; k++) {
            char json[1024];
            snprintf(json, sizeof json, fmt, integ ? "path" : "whitted", look[k], up[k]);
            sr_scene s;
            sr_test_parse("sky.json", json, &s);
            assert_int_equal(s.integrator, integ ? SR_INTEGRATOR_PATH : SR_INTEGRATOR_WHITTED);
            float *img = render_cpu(&s, 1);
            for (int c = 0; c < 3; c++) assert_float_equal(img[c], want[k][c], 1e-4 * want[k][c]);
            free(img);
            sr_scene_free(&s);
        }
}

/* ---- inside an emitting diffuse sphere --------------------------------------------------- */

static const char *furnace_sphere_scene =
    "{\"integrator\":\"path\","
    " \"camera\":{\"position\":[0.3,-0.2,0.1],\"look_at\":[0,0,-1],\"fov\":70},"
    " \"image\":{\"width\":24,\"height\":24,\"spp\":16,\"max_depth\":64},"
    " \"materials\":{\"wall\":{\"type\":\"emissive\",\"radiance\":[1,0.5,0.25],\"albedo\":[0.5,0.5,0.5],"
    "     \"two_sided\":true}},"
    " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":2,\"material\":\"wall\"}]}";

/* A closed surface of albedo rho that emits E everywhere: radiance is the same everywhere and
 * in every direction, L = E + rho L, so L = E / (1 - rho). At depth d (d traced segments) the
 * series is cut: light sampling reaches one vertex further than the last traced one, so with it
 * L_d = E (1 - rho^(d+1)) / (1 - rho); with BSDF sampling alone L_d = E (1 - rho^d) / (1 - rho).
 * Russian roulette (from bounce 3) reweights survivors and leaves every expectation as it is. */
static void test_inside_emitting_sphere(void **state)
{
    (void)state;
    const double E[3] = { 1.0, 0.5, 0.25 }, rho = 0.5;
    sr_scene s;
    sr_test_parse("furnace.json", furnace_sphere_scene, &s);
    const uint32_t pixels = s.width * s.height;
    const struct { uint32_t depth, flags; } cases[] = {
        { 64, 0 }, { 64, SR_PATH_NO_NEE }, { 64, SR_PATH_NO_RR },
        { 1, 0 }, { 2, 0 }, { 6, 0 }, { 6, SR_PATH_NO_RR }, { 6, SR_PATH_NO_NEE }, { 6, SR_PATH_NO_NEE | SR_PATH_NO_RR },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        s.max_depth = cases[k].depth;
        s.path_flags = cases[k].flags;
        bool nee = !(cases[k].flags & SR_PATH_NO_NEE);
        /* depth D: light arrives along at most D + 1 segments, by light sampling or not */
        double terms = cases[k].depth >= 64 ? 1e9 : (double)cases[k].depth + 1.0;
        double expect[3];
        for (int c = 0; c < 3; c++) expect[c] = E[c] * (1.0 - pow(rho, terms)) / (1.0 - rho);
        float *img = render_cpu(&s, 100 + (uint32_t)k);
        char what[96];
        snprintf(what, sizeof what, "emitting sphere, depth %u%s%s", cases[k].depth, nee ? "" : ", no NEE",
                 (cases[k].flags & SR_PATH_NO_RR) ? ", no RR" : "");
        check_constant(what, img, pixels, expect, 0.01);
        free(img);
    }
    sr_scene_free(&s);
}

/* ---- a reference for rough metal ---------------------------------------------------------- */

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

/* sphere_margin, and the cosine between the pixel centre's ray and the sphere's normal where
 * the ray enters it (when it does). */
static double sphere_margin_mu(d3 eye, d3 look, double fov_deg, uint32_t w, uint32_t h, uint32_t x, uint32_t y,
                               d3 centre, double radius, double *mu)
{
    d3 wv = d3norm(d3sub(eye, look)), u = d3norm(d3cross(d3v(0, 1, 0), wv)), v = d3cross(wv, u);
    double th = tan(fov_deg * M_PI / 360.0), aspect = (double)w / h;
    double sx = (2.0 * (x + 0.5) / w - 1.0) * aspect * th, sy = (1.0 - 2.0 * (y + 0.5) / h) * th;
    d3 dir = d3norm(d3v(-wv.x + sx * u.x + sy * v.x, -wv.y + sx * u.y + sy * v.y, -wv.z + sx * u.z + sy * v.z));
    d3 oc = d3sub(centre, eye);
    double along = d3dot(oc, dir), dist2 = d3dot(oc, oc) - along * along;
    *mu = dist2 < radius * radius ? sqrt(radius * radius - dist2) / radius : 0.0;
    return (sqrt(dist2 > 0 ? dist2 : 0) - radius) / radius;
}

/* ---- white furnace --------------------------------------------------------------------- */

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
        float *img = render_cpu(&s, 7);
        check_constant(lossless[k], img, s.width * s.height, L, 0.01);
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
        float *img = render_cpu(&s, 8);
        double alpha = (double)rough[k] * rough[k], table[GGX_TABLE];
        ggx_albedo_table(alpha, table);
        /* Pixels on the sphere away from its silhouette: L times the albedo at their angle. */
        stat_acc a;
        memset(&a, 0, sizeof a);
        for (uint32_t y = 0; y < 32; y++)
            for (uint32_t x = 0; x < 32; x++) {
                double mu = 0;
                double m = sphere_margin_mu(d3v(0, 0, 4), d3v(0, 0, 0), 32.0, 32, 32, x, y, d3v(0, 0, 0), 1.0, &mu);
                if (m > -0.1) continue;
                acc_add(&a, img[3u * (y * 32 + x)], L[0] * ggx_albedo(table, mu));   /* grey: one channel */
            }
        char what[96];
        snprintf(what, sizeof what, "rough metal %.1f (alpha %.2f) in the furnace", rough[k], alpha);
        assert_true(a.n > 300);
        acc_check(what, &a, 0.01);
        free(img);
        sr_scene_free(&s);
    }
}

/* ---- lamps over a diffuse floor: closed forms -------------------------------------------- */

/* The camera looks straight down from height 1 at a floor of albedo 0.5 (a plane) with a
 * 60 degree field of view, so pixel (x, y) sees the floor point (X, Z) below; nothing but the
 * lamp lights it and the background is black, so the floor's radiance is rho * Le * F with F
 * the form factor from the point to the lamp, at every depth >= 1. */
static const char *lamp_scene_fmt =
    "{\"integrator\":\"path\","
    " \"camera\":{\"position\":[0,1,0],\"look_at\":[0,0,0],\"up\":[0,0,-1],\"fov\":60},"
    " \"image\":{\"width\":24,\"height\":24,\"spp\":%u,\"max_depth\":%u},"
    " \"materials\":{\"floor\":{\"type\":\"diffuse\",\"albedo\":[0.5,0.5,0.5]},"
    "   \"lamp\":{\"type\":\"emissive\",\"radiance\":[2,2,2]}},"
    " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"floor\"}, %s]}";

/* A sphere of radius R, centre at height h, seen from a floor point at distance d from the
 * centre, wholly above the horizon: F = (R / d)^2 cos(theta) = R^2 h / d^3. */
static double ff_sphere(double X, double Z)
{
    const double R = 1.0, h = 3.0;
    double d2 = X * X + h * h + Z * Z;
    return R * R * h / (d2 * sqrt(d2));
}

/* Point below the corner of an a x b rectangle parallel to the floor at height h. */
static double ff_corner(double a, double b, double h)
{
    double A = a / h, B = b / h, sa = sqrt(1 + A * A), sb = sqrt(1 + B * B);
    return (A / sa * atan(B / sa) + B / sb * atan(A / sb)) / (2 * M_PI);
}

static double ff_signed(double a, double b, double h)
{
    double s = (a < 0 ? -1 : 1) * (b < 0 ? -1 : 1);
    return s * ff_corner(fabs(a), fabs(b), h);
}

/* The rectangle [-1, 1] x [-1, 1] at height 2, by superposition of corner rectangles. */
static double ff_quad(double X, double Z)
{
    const double x0 = -1, x1 = 1, z0 = -1, z1 = 1, h = 2;
    return ff_signed(x1 - X, z1 - Z, h) - ff_signed(x0 - X, z1 - Z, h) - ff_signed(x1 - X, z0 - Z, h) +
           ff_signed(x0 - X, z0 - Z, h);
}

static void check_lamp(const char *lamp, double (*ff)(double, double), const char *name)
{
    const struct { uint32_t depth, spp, flags; double tol; } modes[] = {
        { 1, 64, 0, 0.01 },                /* light sampling only (last vertex: full weight)  */
        { 4, 64, 0, 0.01 },                /* light sampling and BSDF sampling, MIS-weighted  */
        { 4, 256, SR_PATH_NO_NEE, 0.03 },  /* BSDF sampling only                              */
    };
    for (size_t k = 0; k < 3; k++) {
        char json[2048];
        snprintf(json, sizeof json, lamp_scene_fmt, modes[k].spp, modes[k].depth, lamp);
        sr_scene s;
        sr_test_parse("lamp.json", json, &s);
        s.path_flags = modes[k].flags;
        float *img = render_cpu(&s, 21 + (uint32_t)k);
        /* The pixel's mean over its footprint (the camera jitters inside it): 4 x 4 points. */
        const double half = tan(30.0 * M_PI / 180.0);   /* floor half-width seen from height 1 */
        stat_acc a;
        memset(&a, 0, sizeof a);
        for (uint32_t y = 0; y < 24; y++)
            for (uint32_t x = 0; x < 24; x++) {
                double e = 0;
                for (int sy = 0; sy < 4; sy++)
                    for (int sx = 0; sx < 4; sx++) {
                        double X = (2.0 * (x + (sx + 0.5) / 4) / 24 - 1) * half;
                        double Z = (2.0 * (y + (sy + 0.5) / 4) / 24 - 1) * half;   /* image down = +z */
                        e += 0.5 * 2.0 * ff(X, Z) / 16;
                    }
                acc_add(&a, img[3u * (y * 24 + x)], e);   /* grey: one channel (three would not be independent) */
            }
        char what[128];
        snprintf(what, sizeof what, "%s, depth %u%s", name, modes[k].depth, modes[k].flags ? ", BSDF only" : "");
        acc_check(what, &a, modes[k].tol);
        free(img);
        sr_scene_free(&s);
    }
}

static void test_spherical_lamp_closed_form(void **state)
{
    (void)state;
    check_lamp("{\"type\":\"sphere\",\"center\":[0,3,0],\"radius\":1,\"material\":\"lamp\"}", ff_sphere,
               "spherical lamp (cone sampling)");
}

static void test_rectangular_lamp_closed_form(void **state)
{
    (void)state;
    /* edge_u x edge_v = -y: the lamp faces the floor. */
    check_lamp("{\"type\":\"quad\",\"corner\":[-1,2,-1],\"edge_u\":[2,0,0],\"edge_v\":[0,0,2],\"material\":\"lamp\"}",
               ff_quad, "rectangular lamp (area sampling)");
}

/* A lamp facing away lights nothing (one-sided emission), unless it is two-sided. */
static void test_one_sided_lamp(void **state)
{
    (void)state;
    char json[2048];
    snprintf(json, sizeof json, lamp_scene_fmt, 16u, 4u,
             "{\"type\":\"quad\",\"corner\":[-1,2,-1],\"edge_u\":[0,0,2],\"edge_v\":[2,0,0],\"material\":\"lamp\"}");
    sr_scene s;
    sr_test_parse("lamp.json", json, &s);
    float *img = render_cpu(&s, 5);
    for (uint32_t i = 0; i < 24 * 24 * 3; i++) assert_float_equal(img[i], 0.0f, 0.0);
    free(img);
    s.materials[1].two_sided = 1;   /* now it lights the floor as the one facing down did */
    s.spp = 64;
    img = render_cpu(&s, 6);
    double sum = 0, expect = 0;
    for (uint32_t i = 0; i < 24 * 24; i++) sum += img[3 * i];
    const double half = tan(30.0 * M_PI / 180.0);
    for (uint32_t y = 0; y < 24; y++)
        for (uint32_t x = 0; x < 24; x++)
            expect += ff_quad((2.0 * (x + 0.5) / 24 - 1) * half, (2.0 * (y + 0.5) / 24 - 1) * half);
    assert_float_equal(sum / (24 * 24), expect / (24 * 24), 0.02 * expect / (24 * 24));
    free(img);
    sr_scene_free(&s);
}

/* ---- independent estimators agree --------------------------------------------------------- */

static const char *mis_scene =
    "{\"integrator\":\"path\","
    " \"camera\":{\"position\":[0,1.5,5],\"look_at\":[0,0.8,0],\"fov\":45},"
    " \"image\":{\"width\":32,\"height\":24,\"spp\":256,\"max_depth\":64},"
    " \"background\":[0.02,0.02,0.03],"
    " \"materials\":{\"floor\":{\"type\":\"diffuse\",\"albedo\":[0.7,0.7,0.7]},"
    "   \"wall\":{\"type\":\"diffuse\",\"albedo\":[0.3,0.6,0.4]},"
    "   \"gold\":{\"type\":\"metal\",\"albedo\":[0.9,0.7,0.4],\"roughness\":0.3},"
    "   \"glossy\":{\"type\":\"metal\",\"albedo\":[0.8,0.8,0.8],\"roughness\":0.08},"
    "   \"panel\":{\"type\":\"emissive\",\"radiance\":[3,3,2.5]},"
    "   \"bulb\":{\"type\":\"emissive\",\"radiance\":[6,4,2],\"albedo\":[0.3,0.3,0.3]}},"
    " \"objects\":[{\"type\":\"quad\",\"corner\":[-3,0,3],\"edge_u\":[6,0,0],\"edge_v\":[0,0,-6],\"material\":\"floor\"},"
    "   {\"type\":\"quad\",\"corner\":[-3,0,-2],\"edge_u\":[6,0,0],\"edge_v\":[0,4,0],\"material\":\"wall\"},"
    "   {\"type\":\"quad\",\"corner\":[-1,3,-1],\"edge_u\":[2,0,0],\"edge_v\":[0,0,2],\"material\":\"panel\"},"
    "   {\"type\":\"sphere\",\"center\":[1.6,1.2,0.5],\"radius\":0.3,\"material\":\"bulb\"},"
    "   {\"type\":\"sphere\",\"center\":[-0.8,0.6,0],\"radius\":0.6,\"material\":\"gold\"},"
    "   {\"type\":\"sphere\",\"center\":[0.7,0.4,0.6],\"radius\":0.4,\"material\":\"glossy\"}]}";

/* z statistics of A - B over the whole image and its four quadrants, per channel. */
static void check_same_mean(const char *what, const float *a, const float *b, uint32_t w, uint32_t h, double rel_tol)
{
    for (int q = -1; q < 4; q++)
        for (int c = 0; c < 3; c++) {
            stat_acc acc;
            memset(&acc, 0, sizeof acc);
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++) {
                    if (q >= 0 && (int)((x >= w / 2) + 2 * (y >= h / 2)) != q) continue;
                    uint32_t i = 3u * (y * w + x) + (uint32_t)c;
                    acc_add(&acc, a[i], b[i]);
                }
            char name[128];
            snprintf(name, sizeof name, "%s, %s [%c]", what, q < 0 ? "image" : q == 0 ? "top left" : q == 1 ? "top right"
                     : q == 2 ? "bottom left" : "bottom right", "rgb"[c]);
            acc_check(name, &acc, q < 0 ? rel_tol : 3 * rel_tol);
        }
}

/* Light sampling with MIS and BSDF sampling alone estimate the same image (a panel lamp, a
 * small spherical lamp that also reflects, diffuse, rough and glossy metal); so do renders
 * with and without Russian roulette. */
static void test_nee_mis_matches_bsdf_sampling(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse("mis.json", mis_scene, &s);
    float *nee = render_cpu(&s, 31);
    s.path_flags = SR_PATH_NO_NEE;
    s.spp = 1024;
    float *bsdf = render_cpu(&s, 32);
    check_same_mean("NEE+MIS vs BSDF only", nee, bsdf, s.width, s.height, 0.03);
    s.path_flags = SR_PATH_NO_RR;
    s.spp = 256;
    float *norr = render_cpu(&s, 33);
    check_same_mean("NEE+MIS vs NEE+MIS without RR", nee, norr, s.width, s.height, 0.03);
    /* and the image is lit: the test compares something */
    double sum = 0;
    for (uint32_t i = 0; i < s.width * s.height * 3; i++) sum += nee[i];
    assert_true(sum / (s.width * s.height * 3) > 0.1);
    free(nee);
    free(bsdf);
    free(norr);
    sr_scene_free(&s);
}

/* A rough metal floor under a lamp (black background): the light it reflects once is
 * found by light sampling alone at depth 1 (the BSDF evaluated), by BSDF sampling alone at
 * depth 2 (the BSDF sampled), and by both with MIS at depth 2; the three agree. */
static void test_rough_metal_light_vs_bsdf_sampling(void **state)
{
    (void)state;
    const char *fmt =
        "{\"integrator\":\"path\","
        " \"camera\":{\"position\":[0,1.2,3],\"look_at\":[0,0,0],\"fov\":50},"
        " \"image\":{\"width\":32,\"height\":24,\"spp\":64},"
        " \"materials\":{\"floor\":{\"type\":\"metal\",\"albedo\":[0.9,0.8,0.6],\"roughness\":%g},"
        "   \"lamp\":{\"type\":\"emissive\",\"radiance\":[4,4,4]}},"
        " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"floor\"},"
        "   {\"type\":\"quad\",\"corner\":[-1.5,1.5,-2.5],\"edge_u\":[3,0,0],\"edge_v\":[0,0,1.5],\"material\":\"lamp\"}]}";
    const float rough[] = { 0.35f, 0.7f, 1.0f };
    for (size_t k = 0; k < 3; k++) {
        char json[2048];
        snprintf(json, sizeof json, fmt, rough[k]);
        sr_scene s;
        sr_test_parse("metal_lamp.json", json, &s);
        s.max_depth = 1;
        float *light = render_cpu(&s, 41);
        s.max_depth = 2;
        float *mis = render_cpu(&s, 42);
        s.path_flags = SR_PATH_NO_NEE;
        s.spp = 1024;
        float *bsdf = render_cpu(&s, 43);
        char what[96];
        snprintf(what, sizeof what, "metal %.2f: light sampling vs BSDF sampling", rough[k]);
        check_same_mean(what, light, bsdf, s.width, s.height, 0.03);
        snprintf(what, sizeof what, "metal %.2f: MIS vs BSDF sampling", rough[k]);
        check_same_mean(what, mis, bsdf, s.width, s.height, 0.03);
        double sum = 0;
        for (uint32_t i = 0; i < s.width * s.height * 3; i++) sum += light[i];
        assert_true(sum / (s.width * s.height * 3) > 0.05);
        free(light);
        free(mis);
        free(bsdf);
        sr_scene_free(&s);
    }
}

/* ---- glass: one interface --------------------------------------------------------------- */

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
        float *img = render_cpu(&s, 50 + (uint32_t)k);
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
        check_constant(what, img, 64, expect, 0.05);   /* F = 0.04 is a rare event: noisy */
        free(img);
        sr_scene_free(&s);
    }
}

/* ---- point and directional lights, depth, masks --------------------------------------------- */

static const char *lit_scene =
    "{\"camera\":{\"position\":[0,2,5],\"look_at\":[0,0.5,0],\"fov\":40},"
    " \"image\":{\"width\":48,\"height\":32,\"spp\":1,\"max_depth\":1},"
    " \"materials\":{\"floor\":{\"type\":\"diffuse\",\"albedo\":[0.8,0.8,0.8],\"checker\":{\"color\":[0.2,0.3,0.4],\"scale\":0.5}},"
    "   \"ball\":{\"type\":\"diffuse\",\"albedo\":[0.8,0.2,0.2]}},"
    " \"objects\":[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0],\"material\":\"floor\"},"
    "   {\"type\":\"sphere\",\"center\":[0.3,0.5,0],\"radius\":0.5,\"material\":\"ball\"}],"
    " \"lights\":[{\"type\":\"point\",\"position\":[2,4,3],\"intensity\":60},"
    "   {\"type\":\"directional\",\"direction\":[-1,-2,-0.5],\"color\":[1,0.9,0.8],\"intensity\":1.5}]}";

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
    float *img = render_cpu(&s, 5);
    const uint32_t c = 16 * 33 + 16;   /* the image centre */
    const float want[3] = { 0.9f * 2.0f, 0.8f * 3.0f, 0.7f * 4.0f };
    for (int k = 0; k < 3; k++)
        if (fabsf(img[3 * c + k] - want[k]) > 1e-4f * want[k])
            fail_msg("mirror at depth 1, centre [%d]: %.6f, expected %.6f", k, img[3 * c + k], want[k]);
    free(img);
    sr_scene_free(&s);

    snprintf(text, sizeof text, specular_lamp_fmt, 256u, "{\"type\":\"glass\",\"ior\":1.5}");
    sr_test_parse("glass_lamp.json", text, &s);
    img = render_cpu(&s, 6);
    /* Head-on Fresnel reflectance of glass, ((1.5 - 1) / (1.5 + 1))^2 = 0.04: the mean of 256
     * choices between reflecting (sees the lamp) and refracting (sees nothing more). */
    const float got = img[3 * c + 1];
    if (!(got > 0.02f * 3.0f && got < 0.08f * 3.0f))
        fail_msg("glass at depth 1, centre [g]: %.6f, expected about %.6f", got, 0.04f * 3.0f);
    free(img);
    sr_scene_free(&s);
}

/* Depth 1 is direct light only in both integrators: with no ambient term the path tracer's
 * point and directional lights (delta lights, one shadow ray each) give Whitted's image. */
static void test_delta_lights_match_whitted_at_depth_one(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_parse("lit.json", lit_scene, &s);
    float *whitted = render_cpu(&s, 1);
    s.integrator = SR_INTEGRATOR_PATH;
    float *path = render_cpu(&s, 1);
    double lit = 0;
    for (uint32_t i = 0; i < s.width * s.height * 3; i++) {
        assert_float_equal(path[i], whitted[i], 1e-5 * (1.0 + whitted[i]));
        lit += whitted[i];
    }
    assert_true(lit > 100.0);
    free(whitted);
    free(path);
    sr_scene_free(&s);
}

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

/* ---- shipped scenes and the command line -------------------------------------------------- */

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
        assert_int_equal(sr_renderer_init(&r, &s, &be, &err), SR_OK);
        assert_int_equal(r.view.emitter_count, emissive);
        for (uint32_t i = 0; i < r.view.emitter_count; i++)
            assert_int_equal(s.materials[r.view.prims[r.view.emitters[i].prim].material].kind, SR_MAT_EMISSIVE);
        if (emissive) assert_true(r.view.emitters[emissive - 1].cdf == 1.0f);
        sr_renderer_free(&r);
        sr_backend_destroy(&be);
        sr_scene_free(&s);
    }
}

/* The emitter list picks by power: a lamp with twice the area and the same radiance is picked
 * twice as often. */
static void test_emitter_cdf(void **state)
{
    (void)state;
    const char *json =
        "{\"integrator\":\"path\", \"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0]},"
        " \"image\":{\"width\":8,\"height\":8,\"spp\":1},"
        " \"materials\":{\"lamp\":{\"type\":\"emissive\",\"radiance\":[1,1,1]},"
        "   \"dark\":{\"type\":\"emissive\",\"radiance\":[0,0,0]}},"
        " \"objects\":[{\"type\":\"quad\",\"corner\":[0,0,0],\"edge_u\":[1,0,0],\"edge_v\":[0,1,0],\"material\":\"lamp\"},"
        "   {\"type\":\"quad\",\"corner\":[3,0,0],\"edge_u\":[2,0,0],\"edge_v\":[0,1,0],\"material\":\"lamp\"},"
        "   {\"type\":\"quad\",\"corner\":[6,0,0],\"edge_u\":[2,0,0],\"edge_v\":[0,1,0],\"material\":\"dark\"}]}";
    sr_scene s;
    sr_test_parse("cdf.json", json, &s);
    sr_error err = { SR_OK, "" };
    sr_backend be;
    assert_int_equal(sr_backend_create(SR_BACKEND_CPU, 0, &be, NULL, 0, &err), SR_OK);
    sr_renderer r;
    assert_int_equal(sr_renderer_init(&r, &s, &be, &err), SR_OK);
    assert_int_equal(r.view.emitter_count, 2);   /* the dark one is not a light */
    assert_float_equal(r.view.emitter_power, 3.0f, 1e-6);
    uint32_t small = 0;
    for (uint32_t i = 0; i < 2; i++)
        if (sr_prim_area(&r.view.prims[r.view.emitters[i].prim]) < 1.5f) small = i;
    double p_small = small == 0 ? r.view.emitters[0].cdf : 1.0 - r.view.emitters[0].cdf;
    assert_float_equal(p_small, 1.0 / 3.0, 1e-6);
    assert_true(r.view.emitters[1].cdf == 1.0f);
    assert_int_equal(sr_emitter_pick(&r.view, 0.0f), 0);
    assert_int_equal(sr_emitter_pick(&r.view, 0.99999f), 1);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    sr_scene_free(&s);
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
        cmocka_unit_test(test_convex_diffuse_in_uniform_environment),
        cmocka_unit_test(test_diffuse_plane_under_sky),
        cmocka_unit_test(test_sky_seen_directly),
        cmocka_unit_test(test_inside_emitting_sphere),
        cmocka_unit_test(test_white_furnace),
        cmocka_unit_test(test_spherical_lamp_closed_form),
        cmocka_unit_test(test_rectangular_lamp_closed_form),
        cmocka_unit_test(test_one_sided_lamp),
        cmocka_unit_test(test_nee_mis_matches_bsdf_sampling),
        cmocka_unit_test(test_rough_metal_light_vs_bsdf_sampling),
        cmocka_unit_test(test_glass_single_interface),
        cmocka_unit_test(test_delta_lights_match_whitted_at_depth_one),
        cmocka_unit_test(test_specular_sees_lamp_at_depth_one),
        cmocka_unit_test(test_path_masks_agree),
        cmocka_unit_test(test_shipped_path_scenes),
        cmocka_unit_test(test_emitter_cdf),
        cmocka_unit_test(test_cli_integrator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
