/* test_pbr.c: the glTF metallic-roughness material ("type": "pbr") in path mode. Its lobe
 * against a direct formula of glTF 2.0's Appendix B (the Fresnel term at the half vector,
 * fresnel_mix for the dielectric and conductor_fresnel for the metal). A white furnace (a
 * sphere under a uniform background of 1, depth 1, so every reflected ray escapes and a pixel
 * shows the surface's directional albedo): a white dielectric gives Appendix B's albedo,
 * integrated numerically, at roughness 0 to 1; a metal never more than 1, a white smooth one
 * exactly 1; metallic 1 with roughness 0 shows what a mirror of the same colour shows;
 * transmission makes glass; bad values are refused. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/integrators/path.h"

#define W 64

static float *render_sphere(const char *material_json, const char *background, int spp, sr_scene *keep)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0],\"fov\":30},"
             " \"image\":{\"width\":%d,\"height\":%d,\"spp\":%d,\"max_depth\":1}, \"integrator\":\"path\", %s,"
             " \"materials\":{\"m\":%s},"
             " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"m\"}]}",
             W, W, spp, background, material_json);
    sr_scene s;
    sr_test_parse("pbr.json", json, &s);
    float *img = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 2, NULL);
    if (keep) *keep = s;
    else sr_scene_free(&s);
    return img;
}

/* Mean and standard error of channel 0 over pixels well inside the sphere's disc. */
static void disc_stats(const float *img, double inside, double *mean, double *se)
{
    double s = 0, s2 = 0;
    int n = 0;
    for (uint32_t y = 0; y < W; y++)
        for (uint32_t x = 0; x < W; x++) {
            if (sphere_margin(d3v(0, 0, 5), d3v(0, 0, 0), 30.0, W, W, x, y, d3v(0, 0, 0), 1.0) > inside) continue;
            s += img[3 * (y * W + x)];
            s2 += (double)img[3 * (y * W + x)] * img[3 * (y * W + x)];
            n++;
        }
    assert_true(n > 300);
    *mean = s / n;
    *se = sqrt(fmax(s2 / n - *mean * *mean, 0.0) / n);
}

/* ---- glTF 2.0 Appendix B ---------------------------------------------------------------- */

typedef struct ref_pbr { double base, metallic, roughness, f0; } ref_pbr;

/* Smith's Lambda for GGX (alpha^2 = a2) at cosine c. */
static double ref_lambda(double a2, double c) { return 0.5 * (sqrt(1.0 + a2 * (1.0 - c * c) / (c * c)) - 1.0); }

/* Appendix B's BRDF times cos(n, wi), n = +z, one channel:
 *   dielectric = fresnel_mix(f0) = (1 - F(VdotH)) diffuse + F(VdotH) specular, F0 = f0,
 *   metal = conductor_fresnel(base) = F(VdotH) specular, F0 = base,
 *   f = mix(dielectric, metal, metallic), diffuse = base / pi, specular = D V,
 * with Schlick's F, GGX's D and alpha = roughness^2 (at least 1e-3, the renderer's floor), and
 * V = G / (4 NdotL NdotV) with the height-correlated Smith G the renderer uses (the sample
 * viewer's; Appendix B writes the separable product, which weights the lobes alike).
 * specular = 0 selects the diffuse part alone (a smooth surface's mirror lobe is a delta). */
static double ref_lobe(const ref_pbr *m, d3 wo, d3 wi, int specular)
{
    if (!(wi.z > 0) || !(wo.z > 0)) return 0;
    const d3 h = d3norm(d3v(wo.x + wi.x, wo.y + wi.y, wo.z + wi.z));
    const double voh = d3dot(wo, h), k5 = pow(1.0 - voh, 5.0);
    const double fd = m->f0 + (1.0 - m->f0) * k5, fm = m->base + (1.0 - m->base) * k5;
    double spec = 0;
    if (specular) {
        const double a = fmax(m->roughness * m->roughness, 1e-3), a2 = a * a;
        const double t = h.z * h.z * (a2 - 1.0) + 1.0, D = a2 / (M_PI * t * t);
        const double G = 1.0 / (1.0 + ref_lambda(a2, wo.z) + ref_lambda(a2, wi.z));
        spec = D * G / (4.0 * wi.z * wo.z);
    }
    const double dielectric = (1.0 - fd) * m->base / M_PI + fd * spec, metal = fm * spec;
    return ((1.0 - m->metallic) * dielectric + m->metallic * metal) * wi.z;
}

static d3 dir_at(double theta, double phi) { return d3v(sin(theta) * cos(phi), sin(theta) * sin(phi), cos(theta)); }

/* The renderer's f cos for the same directions (channel 0; the base is grey). */
static double renderer_lobe(const ref_pbr *r, d3 wo, d3 wi, float *pdf)
{
    sr_material m;
    memset(&m, 0, sizeof m);
    m.kind = SR_MAT_PBR;
    m.color = sr_v3s((float)r->base);
    m.metallic = (float)r->metallic;
    m.roughness = (float)r->roughness;
    m.spec_f0 = (float)r->f0;
    const sr_vec3 f = sr_bsdf_eval(&m, m.color, sr_v3(0, 0, 1), sr_v3((float)wo.x, (float)wo.y, (float)wo.z),
                                   sr_v3((float)wi.x, (float)wi.y, (float)wi.z), pdf);
    return f.x;
}

/* The lobe at views of 70, 80 and 85 degrees, over a grid of light directions, for roughness
 * 0.5 and base 0.8 (dielectric, half metal), and a dielectric of F0 0.11 (ior 2): within
 * 1e-4 relative (float against double) of Appendix B. */
static void test_lobe_matches_appendix_b(void **state)
{
    (void)state;
    static const ref_pbr mats[] = { { 0.8, 0, 0.5, 0.04 }, { 0.8, 0.5, 0.5, 0.04 }, { 0.8, 0, 0.5, 1.0 / 9.0 },
                                    { 0.8, 0, 0.2, 0.04 } };
    static const double views[] = { 70, 80, 85 };
    for (size_t k = 0; k < sizeof mats / sizeof mats[0]; k++)
        for (size_t v = 0; v < 3; v++) {
            const d3 wo = dir_at(views[v] * M_PI / 180.0, 0.0);
            double worst = 0;
            int n = 0;
            for (int it = 0; it < 30; it++)
                for (int ip = 0; ip < 24; ip++) {
                    const d3 wi = dir_at((it + 0.5) / 30.0 * 0.5 * M_PI, (ip + 0.5) / 24.0 * 2.0 * M_PI);
                    float pdf;
                    const double got = renderer_lobe(&mats[k], wo, wi, &pdf), want = ref_lobe(&mats[k], wo, wi, 1);
                    const double rel = fabs(got - want) / want;
                    if (rel > worst) worst = rel;
                    n++;
                }
            printf("base %.1f metallic %.1f roughness %.1f F0 %.3f, view %.0f deg: worst relative difference %.2e over %d"
                   " directions\n", mats[k].base, mats[k].metallic, mats[k].roughness, mats[k].f0, views[v], worst, n);
            if (!(worst < 1e-4)) fail_msg("the pbr lobe differs from glTF's Appendix B by %.4f at a %.0f degree view", worst, views[v]);
        }
}

/* Whitted mode lights the pbr base like a diffuse surface, its share (1 - F) with F at the
 * viewing angle (the path integrator's F at each light's half vector costs Whitted scenes
 * without pbr 3-7 % of their FPS: docs/scene-format.md): a floor of base 0.8 and roughness 0.5
 * seen at 80 degrees from its normal, lit by a point light of 1 W/sr 1 above the point seen
 * (depth 1: no reflection), shows 0.8 / pi (1 - F(cos 80 degrees)) = 0.150. */
static void test_whitted_diffuse_share(void **state)
{
    (void)state;
    const double view = 80.0 * M_PI / 180.0;
    char json[1024];
    snprintf(json, sizeof json,
             "{\"integrator\":\"whitted\", \"camera\":{\"position\":[0,%.9f,%.9f],\"look_at\":[0,0,0],\"fov\":0.5},"
             " \"image\":{\"width\":9,\"height\":9,\"spp\":4,\"max_depth\":1}, \"background\":[0,0,0],"
             " \"materials\":{\"m\":{\"type\":\"pbr\",\"base_color\":[0.8,0.8,0.8],\"roughness\":0.5}},"
             " \"objects\":[{\"type\":\"quad\",\"corner\":[-5,0,5],\"edge_u\":[10,0,0],\"edge_v\":[0,0,-10],\"material\":\"m\"}],"
             " \"lights\":[{\"type\":\"point\",\"position\":[0,1,0],\"intensity\":1}]}",
             2.0 * cos(view), 2.0 * sin(view));
    sr_scene s;
    sr_test_parse("pbr_whitted.json", json, &s);
    float *img = sr_test_render_cpu(&s, 3);
    const double centre = img[3 * (4 * 9 + 4)];
    const double k = 1.0 - cos(view), f = 0.04 + 0.96 * k * k * k * k * k;
    const double want = 0.8 / M_PI * (1.0 - f);   /* F at the viewing angle, the light overhead */
    printf("whitted: the floor below the light %.5f, expected %.5f\n", centre, want);
    assert_float_equal(centre, want, 0.01 * want);
    free(img);
    sr_scene_free(&s);
}

/* Appendix B's directional albedo of a grey dielectric at view cosine mu: its diffuse part
 * integrated over the light directions (a cosine-weighted grid), its specular part over the
 * half vectors drawn by GGX's D (a grid in its inverse CDF), or F(mu) for roughness 0 (the
 * mirror lobe). */
static double ref_albedo(const ref_pbr *m, double mu)
{
    const d3 wo = d3v(sqrt(1.0 - mu * mu), 0, mu);
    const int nt = 200, np = 200;
    double diffuse = 0, spec = 0;
    for (int it = 0; it < nt; it++)
        for (int ip = 0; ip < np; ip++) {
            /* cos theta = sqrt(u): the cosine-weighted measure, pdf cos / pi */
            const double u = (it + 0.5) / nt, phi = (ip + 0.5) / np * 2.0 * M_PI;
            const d3 wi = dir_at(acos(sqrt(u)), phi);
            diffuse += ref_lobe(m, wo, wi, 0) / (wi.z / M_PI) / (nt * np);
        }
    if (m->roughness <= 0) return diffuse + m->f0 + (1.0 - m->f0) * pow(1.0 - mu, 5.0);
    const double a = m->roughness * m->roughness, a2 = a * a;
    for (int it = 0; it < nt; it++)
        for (int ip = 0; ip < np; ip++) {
            /* GGX's D cos: tan^2 theta_h = a2 u / (1 - u), so that its measure is du dphi / 2 pi */
            const double u = (it + 0.5) / nt, phi = (ip + 0.5) / np * 2.0 * M_PI;
            const d3 h = dir_at(atan(sqrt(a2 * u / (1.0 - u))), phi);
            const double voh = d3dot(wo, h);
            if (!(voh > 0)) continue;
            const d3 wi = d3v(2 * voh * h.x - wo.x, 2 * voh * h.y - wo.y, 2 * voh * h.z - wo.z);
            if (!(wi.z > 0)) continue;
            /* f cos dw_i = f cos 4 voh dw_h, and D cos_h dw_h is the measure */
            const double t = h.z * h.z * (a2 - 1.0) + 1.0, D = a2 / (M_PI * t * t);
            const double f_spec = ref_lobe(m, wo, wi, 1) - ref_lobe(m, wo, wi, 0);
            spec += f_spec * 4.0 * voh / (D * h.z) / (nt * np);
        }
    return diffuse + spec;
}

static void test_white_furnace(void **state)
{
    (void)state;
    static const float metallic[] = { 0.0f, 1.0f }, roughness[] = { 0.0f, 0.25f, 0.5f, 1.0f };
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 4; b++) {
            char mat[256];
            snprintf(mat, sizeof mat, "{\"type\":\"pbr\",\"base_color\":[1,1,1],\"metallic\":%g,\"roughness\":%g}",
                     metallic[a], roughness[b]);
            float *img = render_sphere(mat, "\"background\":[1,1,1]", 16, NULL);
            double mean, se;
            disc_stats(img, -0.05, &mean, &se);
            printf("metallic %g roughness %.2f: albedo %.4f +- %.4f\n", metallic[a], roughness[b], mean, se);
            if (a == 0) {
                /* Appendix B's albedo at each pixel's angle (a table over the cosine, 1 % of
                 * the mean for the interpolation): it weights the diffuse lobe by 1 - F at the
                 * half vector, so a white dielectric may return a little more than 1 */
                const ref_pbr ref = { 1.0, 0.0, roughness[b], 0.04 };
                enum { N = 33 };
                double table[N];
                for (int k = 0; k < N; k++) table[k] = ref_albedo(&ref, fmax(k / (N - 1.0), 0.02));
                sr_test_stat st;
                memset(&st, 0, sizeof st);
                for (uint32_t y = 0; y < W; y++)
                    for (uint32_t x = 0; x < W; x++) {
                        double mu;
                        if (sphere_margin_mu(d3v(0, 0, 5), d3v(0, 0, 0), 30.0, W, W, x, y, d3v(0, 0, 0), 1.0, &mu) > -0.05)
                            continue;
                        const double f = mu * (N - 1);
                        const int i = f >= N - 1 ? N - 2 : (int)f;
                        sr_test_stat_add(&st, img[3 * (y * W + x)], table[i] + (f - i) * (table[i + 1] - table[i]));
                    }
                char what[96];
                snprintf(what, sizeof what, "white dielectric, roughness %.2f, against Appendix B", roughness[b]);
                sr_test_stat_check(what, &st, 0.01);
            } else {
                if (mean > 1.0 + 4.0 * se + 1e-4) fail_msg("metallic 1 roughness %g reflects %.4f > 1", roughness[b], mean);
                /* at least single-scattering GGX's share (docs/scene-format.md: 32 - 47 % at
                 * roughness 1, lost to shadowing between microfacets) */
                assert_true(mean > 0.3);
                if (b == 0) /* smooth and white: F = 1, all of it, in every pixel */
                    for (uint32_t p = 0; p < W * W; p++) assert_float_equal(img[3 * p], 1.0, 1e-5);
            }
            free(img);
        }
}

/* Under a sky gradient, a smooth metal of base colour c shows what a mirror of reflectance c
 * shows, up to Schlick's brightening (1 - c)(1 - cos)^5: with c = 0.95 and the pixels whose
 * normal is within 60 degrees of the view that is below 0.05 * 0.5^5 = 0.0016 relative
 * (roughness 0 is a true mirror lobe, not a narrow GGX one, whose long tail would show). */
static void test_smooth_metal_is_a_mirror(void **state)
{
    (void)state;
    const char *sky = "\"sky\":{\"zenith\":[0.2,0.4,1],\"horizon\":[1,1,1],\"ground\":[0.3,0.2,0.1]}";
    float *pbr = render_sphere("{\"type\":\"pbr\",\"base_color\":[0.95,0.95,0.95],\"metallic\":1,\"roughness\":0}", sky, 4, NULL);
    float *mirror = render_sphere("{\"type\":\"mirror\",\"reflectance\":[0.95,0.95,0.95]}", sky, 4, NULL);
    int n = 0;
    double worst = 0;
    for (uint32_t y = 0; y < W; y++)
        for (uint32_t x = 0; x < W; x++) {
            /* pixel centres within 55 degrees of the view (the ray passes within sin 55 of the
             * centre), so that the jittered samples stay within 60 */
            if (sphere_margin(d3v(0, 0, 5), d3v(0, 0, 0), 30.0, W, W, x, y, d3v(0, 0, 0), 1.0) > sin(55.0 * M_PI / 180.0) - 1.0)
                continue;
            for (int c = 0; c < 3; c++) {
                const double a = pbr[3 * (y * W + x) + c], b = mirror[3 * (y * W + x) + c];
                const double rel = fabs(a - b) / b;
                if (rel > worst) worst = rel;
            }
            n++;
        }
    printf("smooth metal against the mirror: worst relative difference %.5f over %d pixels\n", worst, n);
    assert_true(n > 150);
    assert_true(worst < 0.0017);
    free(pbr);
    free(mirror);
}

static void test_transmission_and_errors(void **state)
{
    (void)state;
    sr_scene s;
    free(render_sphere("{\"type\":\"pbr\",\"base_color\":[0.9,1,0.9],\"transmission\":1,\"ior\":1.33}", "\"background\":[1,1,1]",
                       1, &s));
    assert_int_equal(s.materials[0].kind, SR_MAT_GLASS);
    assert_float_equal(s.materials[0].ior, 1.33f, 0.0f);
    assert_float_equal(s.materials[0].color.x, 0.9f, 0.0f);
    sr_scene_free(&s);
    const char *json = "{\"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0]},\n"
                       " \"materials\":{\"m\":{\"type\":\"pbr\",\"metallic\":1.5}},\n"
                       " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"m\"}]}";
    sr_error e = { 0 };
    assert_int_equal(sr_scene_parse("pbr_bad.json", json, strlen(json), &s, &e), SR_ERR_INPUT);
    if (!strstr(e.msg, "pbr_bad.json:2:") || !strstr(e.msg, "metallic")) fail_msg("%s", e.msg);
    json = "{\"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0]},\n"
           " \"materials\":{\"m\":{\"type\":\"pbr\",\"albedo\":[1,1,1]}},\n"
           " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"m\"}]}";
    assert_int_equal(sr_scene_parse("pbr_key.json", json, strlen(json), &s, &e), SR_ERR_INPUT);
    if (!strstr(e.msg, "base_color")) fail_msg("%s", e.msg);
}

/* Light sampling with MIS and BSDF sampling alone find the same image: rough and smooth pbr
 * spheres, a dielectric and a metal, under an emissive quad. Block means (6x6 pixels) agree
 * within 5 standard errors of the per-pixel differences. */
static void test_light_sampling_agrees(void **state)
{
    (void)state;
    const char *json =
        "{\"camera\":{\"position\":[0,1.5,5],\"look_at\":[0,0.6,0],\"fov\":40},"
        " \"image\":{\"width\":48,\"height\":36,\"spp\":256,\"max_depth\":3}, \"integrator\":\"path\","
        " \"materials\":{\"a\":{\"type\":\"pbr\",\"base_color\":[0.8,0.3,0.2],\"roughness\":0.4},"
        "   \"b\":{\"type\":\"pbr\",\"base_color\":[0.9,0.8,0.5],\"metallic\":1,\"roughness\":0.3},"
        "   \"c\":{\"type\":\"pbr\",\"base_color\":[0.2,0.5,0.8],\"roughness\":0},"
        "   \"floor\":{\"type\":\"diffuse\",\"albedo\":[0.5,0.5,0.5]},"
        "   \"lamp\":{\"type\":\"emissive\",\"radiance\":[6,6,6]}},"
        " \"objects\":[{\"type\":\"sphere\",\"center\":[-1.1,0.5,0],\"radius\":0.5,\"material\":\"a\"},"
        "   {\"type\":\"sphere\",\"center\":[0,0.5,0],\"radius\":0.5,\"material\":\"b\"},"
        "   {\"type\":\"sphere\",\"center\":[1.1,0.5,0],\"radius\":0.5,\"material\":\"c\"},"
        "   {\"type\":\"quad\",\"corner\":[-3,0,3],\"edge_u\":[6,0,0],\"edge_v\":[0,0,-6],\"material\":\"floor\"},"
        "   {\"type\":\"quad\",\"corner\":[-1,3,-1],\"edge_u\":[0,0,2],\"edge_v\":[2,0,0],\"material\":\"lamp\"}]}";
    float *img[2];
    for (int k = 0; k < 2; k++) {
        sr_scene s;
        sr_test_parse("pbr_mis.json", json, &s);
        s.path_flags = k ? SR_PATH_NO_NEE : 0;
        img[k] = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 11 + k, NULL);
        sr_scene_free(&s);
    }
    int blocks = 0;
    for (int by = 0; by < 36; by += 6)
        for (int bx = 0; bx < 48; bx += 6) {
            double sum = 0, sum2 = 0;
            int n = 0;
            for (int y = by; y < by + 6; y++)
                for (int x = bx; x < bx + 6; x++)
                    for (int c = 0; c < 3; c++) {
                        const double d = (double)img[0][3 * (y * 48 + x) + c] - (double)img[1][3 * (y * 48 + x) + c];
                        sum += d;
                        sum2 += d * d;
                        n++;
                    }
            const double mean = sum / n, se = sqrt(fmax(sum2 / n - mean * mean, 0.0) / n) + 1e-6;
            if (fabs(mean) > 5.0 * se) fail_msg("block (%d, %d): light sampling and BSDF sampling differ by %.4f (se %.4f)", bx, by, mean, se);
            blocks++;
        }
    assert_int_equal(blocks, 48);
    free(img[0]);
    free(img[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lobe_matches_appendix_b),
        cmocka_unit_test(test_whitted_diffuse_share),
        cmocka_unit_test(test_white_furnace),
        cmocka_unit_test(test_smooth_metal_is_a_mirror),
        cmocka_unit_test(test_transmission_and_errors),
        cmocka_unit_test(test_light_sampling_agrees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
