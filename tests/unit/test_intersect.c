/* test_intersect.c: ray–primitive and ray–box tests, and the optics helpers of vmath.h.
 * Expected distances and normals are worked out by hand in the comments, not by the code
 * under test; most are exact in binary floating point. */
#include "testutil.h"

#include <math.h>
#include <string.h>

#include "../../kernels/core/intersect.h"
#include "../../kernels/integrators/material.h"

#define TOL 1e-6f

static sr_prim make_prim(uint32_t kind, sr_vec3 a, sr_vec3 b, sr_vec3 c)
{
    sr_prim p;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    p.a = a; p.b = b; p.c = c;
    return p;
}

static sr_prim sphere(float x, float y, float z, float r)
{
    return make_prim(SR_PRIM_SPHERE, sr_v3(x, y, z), sr_v3(r, 0, 0), sr_v3s(0));
}

/* t of the hit in (0, 1e30), or -1 for a miss. */
static float hit_t(const sr_prim *p, sr_vec3 o, sr_vec3 d)
{
    float t = -2.0f;
    if (!sr_intersect_prim(p, o, d, 0.0f, SR_INF, &t)) return -1.0f;
    return t;
}

static void assert_vec_near(sr_vec3 v, float x, float y, float z, float tol)
{
    assert_float_equal(v.x, x, tol);
    assert_float_equal(v.y, y, tol);
    assert_float_equal(v.z, z, tol);
}

/* ---- sphere ---------------------------------------------------------------------------- */

static void test_sphere_hit_front(void **state)
{
    (void)state;
    sr_prim s = sphere(0, 0, -5, 1);
    /* from the origin straight at the centre: the near surface is at z = -4 */
    assert_float_equal(hit_t(&s, sr_v3s(0), sr_v3(0, 0, -1)), 4.0f, 0.0f);
    /* d of length 2: t halves */
    assert_float_equal(hit_t(&s, sr_v3s(0), sr_v3(0, 0, -2)), 2.0f, 0.0f);
    /* off-centre: x = 0.6 meets the sphere at z = -5 + 0.8 = -4.2 */
    assert_float_equal(hit_t(&s, sr_v3(0.6f, 0, 0), sr_v3(0, 0, -1)), 4.2f, TOL);
    /* normals: at (0,0,-4) it is +z; at (0.6,0,-4.2) it is (0.6,0,0.8) */
    assert_vec_near(sr_prim_normal(&s, sr_v3(0, 0, -4)), 0, 0, 1, 0.0f);
    assert_vec_near(sr_prim_normal(&s, sr_v3(0.6f, 0, -4.2f)), 0.6f, 0, 0.8f, TOL);
    /* a radius of 2: the surface is at z = -3 and normals still have unit length */
    sr_prim big = sphere(0, 0, -5, 2);
    assert_float_equal(hit_t(&big, sr_v3s(0), sr_v3(0, 0, -1)), 3.0f, 0.0f);
    assert_vec_near(sr_prim_normal(&big, sr_v3(0, 2, -5)), 0, 1, 0, 0.0f);
}

static void test_sphere_miss_and_behind(void **state)
{
    (void)state;
    sr_prim s = sphere(0, 0, -5, 1);
    assert_true(hit_t(&s, sr_v3s(0), sr_v3(0, 1, 0)) < 0.0f);        /* sideways          */
    assert_true(hit_t(&s, sr_v3s(0), sr_v3(0, 0, 1)) < 0.0f);        /* pointing away     */
    assert_true(hit_t(&s, sr_v3(1.5f, 0, 0), sr_v3(0, 0, -1)) < 0.0f);/* passes beside     */
    /* whole sphere behind the origin */
    assert_true(hit_t(&s, sr_v3(0, 0, -10), sr_v3(0, 0, -1)) < 0.0f);
    /* zero direction never hits */
    assert_true(hit_t(&s, sr_v3s(0), sr_v3s(0)) < 0.0f);
}

static void test_sphere_inside_far_root(void **state)
{
    (void)state;
    sr_prim s = sphere(0, 0, -5, 1);
    /* from the centre, any direction exits at distance r */
    assert_float_equal(hit_t(&s, sr_v3(0, 0, -5), sr_v3(1, 0, 0)), 1.0f, 0.0f);
    assert_float_equal(hit_t(&s, sr_v3(0, 0, -5), sr_v3(0, 0, 0.5f)), 2.0f, 0.0f);
    /* from z = -5.5 towards -z the exit is z = -6: t = 0.5; towards +z it is z = -4: 1.5 */
    assert_float_equal(hit_t(&s, sr_v3(0, 0, -5.5f), sr_v3(0, 0, -1)), 0.5f, 0.0f);
    assert_float_equal(hit_t(&s, sr_v3(0, 0, -5.5f), sr_v3(0, 0, 1)), 1.5f, 0.0f);
    /* outward normal at the exit point (x = 1 side) */
    assert_vec_near(sr_prim_normal(&s, sr_v3(1, 0, -5)), 1, 0, 0, 0.0f);
}

static void test_sphere_interval(void **state)
{
    (void)state;
    sr_prim s = sphere(0, 0, -5, 1);
    float t = 0;
    /* roots at 4 and 6 */
    assert_false(sr_intersect_prim(&s, sr_v3s(0), sr_v3(0, 0, -1), 0.0f, 3.9f, &t));
    assert_false(sr_intersect_prim(&s, sr_v3s(0), sr_v3(0, 0, -1), 0.0f, 4.0f, &t)); /* open */
    assert_true(sr_intersect_prim(&s, sr_v3s(0), sr_v3(0, 0, -1), 4.5f, SR_INF, &t));
    assert_float_equal(t, 6.0f, 0.0f);                  /* tmin past the near root: far root */
    assert_false(sr_intersect_prim(&s, sr_v3s(0), sr_v3(0, 0, -1), 6.0f, SR_INF, &t));
}

static void test_sphere_grazing(void **state)
{
    (void)state;
    sr_prim s = sphere(0, 0, 0, 1);
    /* the line y = 1 touches the unit sphere at (0,1,0): a double root at t = 5 */
    assert_float_equal(hit_t(&s, sr_v3(-5, 1, 0), sr_v3(1, 0, 0)), 5.0f, 0.0f);
    assert_true(hit_t(&s, sr_v3(-5, 1.001f, 0), sr_v3(1, 0, 0)) < 0.0f);
    /* just inside the tangent: two close roots around t = 5 (x = ±sqrt(1 - 0.999^2) = ±0.0447) */
    float t = hit_t(&s, sr_v3(-5, 0.999f, 0), sr_v3(1, 0, 0));
    assert_float_equal(t, 5.0f - sqrtf(1.0f - 0.999f * 0.999f), 1e-4f);
}

static void test_sphere_precision(void **state)
{
    (void)state;
    /* A 1 cm sphere 10 km away. The textbook discriminant B^2 - AC cancels here (B^2 is
     * 1e8, its ulp 8, the true discriminant 1e-4); the stable form keeps the hit. */
    sr_prim s = sphere(0, 0, -1e4f, 0.01f);
    float t = hit_t(&s, sr_v3s(0), sr_v3(0, 0, -1));
    assert_float_equal(t, 1e4f - 0.01f, 2e-3f);
    /* 5 mm off axis it still hits, 11 mm off axis it misses */
    assert_true(hit_t(&s, sr_v3(0.005f, 0, 0), sr_v3(0, 0, -1)) > 0.0f);
    assert_true(hit_t(&s, sr_v3(0.011f, 0, 0), sr_v3(0, 0, -1)) < 0.0f);
    /* a huge sphere seen from close by: radius 1e4 centred at (0,-1e4,0), origin 1 above */
    sr_prim g = sphere(0, -1e4f, 0, 1e4f);
    assert_float_equal(hit_t(&g, sr_v3(0, 1, 0), sr_v3(0, -1, 0)), 1.0f, 1e-3f);
    /* and from inside a tiny sphere far from the world origin: exit at distance r */
    sr_prim tiny = sphere(1000, 1000, 1000, 1e-3f);
    assert_float_equal(hit_t(&tiny, sr_v3(1000, 1000, 1000), sr_v3(0, 1, 0)), 1e-3f, 1e-4f);
}

/* ---- plane ----------------------------------------------------------------------------- */

static void test_plane(void **state)
{
    (void)state;
    sr_prim p = make_prim(SR_PRIM_PLANE, sr_v3(0, -1, 0), sr_v3(0, 1, 0), sr_v3s(0));
    assert_float_equal(hit_t(&p, sr_v3s(0), sr_v3(0, -1, 0)), 1.0f, 0.0f);
    assert_float_equal(hit_t(&p, sr_v3s(0), sr_v3(1, -1, 0)), 1.0f, 0.0f);   /* 45 degrees */
    assert_float_equal(hit_t(&p, sr_v3s(0), sr_v3(0, -0.25f, 0)), 4.0f, 0.0f);
    /* two-sided: from below going up */
    assert_float_equal(hit_t(&p, sr_v3(0, -3, 0), sr_v3(0, 1, 0)), 2.0f, 0.0f);
    /* parallel, away, and lying in the plane */
    assert_true(hit_t(&p, sr_v3s(0), sr_v3(1, 0, 0)) < 0.0f);
    assert_true(hit_t(&p, sr_v3s(0), sr_v3(0, 1, 0)) < 0.0f);
    assert_true(hit_t(&p, sr_v3(0, -1, 0), sr_v3(0, 0, 1)) < 0.0f);
    /* origin on the plane: t = 0 is outside the open interval */
    assert_true(hit_t(&p, sr_v3(0, -1, 0), sr_v3(0, -1, 0)) < 0.0f);
    assert_vec_near(sr_prim_normal(&p, sr_v3(3, -1, 7)), 0, 1, 0, 0.0f);
    /* a tilted plane x + y = 2 (normal (1,1,0)/sqrt2), ray along +x from the origin: t = 2 */
    float r = 1.0f / sqrtf(2.0f);
    sr_prim q = make_prim(SR_PRIM_PLANE, sr_v3(1, 1, 0), sr_v3(r, r, 0), sr_v3s(0));
    assert_float_equal(hit_t(&q, sr_v3s(0), sr_v3(1, 0, 0)), 2.0f, TOL);
}

/* ---- quad ------------------------------------------------------------------------------ */

static void test_quad(void **state)
{
    (void)state;
    /* the square [-1,1]^2 at z = -3, normal cross((2,0,0),(0,2,0)) = (0,0,4) -> +z */
    sr_prim q = make_prim(SR_PRIM_QUAD, sr_v3(-1, -1, -3), sr_v3(2, 0, 0), sr_v3(0, 2, 0));
    assert_float_equal(hit_t(&q, sr_v3s(0), sr_v3(0, 0, -1)), 3.0f, 0.0f);
    assert_float_equal(hit_t(&q, sr_v3s(0), sr_v3(0.25f, -0.25f, -1)), 3.0f, TOL); /* (.75,-.75) */
    assert_float_equal(hit_t(&q, sr_v3s(0), sr_v3(0, 0, -0.5f)), 6.0f, 0.0f);      /* |d| = 0.5 */
    assert_true(hit_t(&q, sr_v3s(0), sr_v3(0.34f, 0, -1)) < 0.0f);     /* x = 1.02: outside */
    assert_true(hit_t(&q, sr_v3s(0), sr_v3(0.3f, -0.34f, -1)) < 0.0f); /* y = -1.02         */
    assert_true(hit_t(&q, sr_v3s(0), sr_v3(0, 0, 1)) < 0.0f);          /* behind            */
    assert_true(hit_t(&q, sr_v3(0, 0, -3), sr_v3(1, 0, 0)) < 0.0f);    /* in its plane      */
    /* two-sided: from below */
    assert_float_equal(hit_t(&q, sr_v3(0.5f, 0.5f, -6), sr_v3(0, 0, 1)), 3.0f, 0.0f);
    /* corners and edges are inside (closed parallelogram): ray straight down at (1, 1) */
    assert_float_equal(hit_t(&q, sr_v3(1, 1, 0), sr_v3(0, 0, -1)), 3.0f, 0.0f);
    assert_float_equal(hit_t(&q, sr_v3(-1, 0, 0), sr_v3(0, 0, -1)), 3.0f, 0.0f);
    assert_vec_near(sr_prim_normal(&q, sr_v3(0, 0, -3)), 0, 0, 1, 0.0f);
    /* edges swapped: normal (0,0,-1) */
    sr_prim q2 = make_prim(SR_PRIM_QUAD, sr_v3(-1, -1, -3), sr_v3(0, 2, 0), sr_v3(2, 0, 0));
    assert_vec_near(sr_prim_normal(&q2, sr_v3(0, 0, -3)), 0, 0, -1, 0.0f);
}

static void test_quad_parallelogram(void **state)
{
    (void)state;
    /* a sheared parallelogram in z = 0: a + s (2,0,0) + t (1,1,0). At y = 0.5 (t = 0.5) it
     * spans x in [0.5, 2.5]. Rays come straight down from z = 1. */
    sr_prim q = make_prim(SR_PRIM_QUAD, sr_v3s(0), sr_v3(2, 0, 0), sr_v3(1, 1, 0));
    sr_vec3 down = sr_v3(0, 0, -1);
    assert_true(hit_t(&q, sr_v3(0.2f, 0.5f, 1), down) < 0.0f);    /* s = -0.15: outside */
    assert_float_equal(hit_t(&q, sr_v3(0.6f, 0.5f, 1), down), 1.0f, 0.0f);
    assert_float_equal(hit_t(&q, sr_v3(2.4f, 0.5f, 1), down), 1.0f, 0.0f);
    assert_true(hit_t(&q, sr_v3(2.6f, 0.5f, 1), down) < 0.0f);    /* s = 1.05          */
    assert_true(hit_t(&q, sr_v3(1.5f, 1.1f, 1), down) < 0.0f);    /* t = 1.1           */
    /* normal: cross((2,0,0),(1,1,0)) = (0,0,2) -> +z */
    assert_vec_near(sr_prim_normal(&q, sr_v3(1, 0.5f, 0)), 0, 0, 1, 0.0f);
    /* a tilted quad: the square spanned by (0,1,1) and (1,0,0) from (0,0,-2), lying in
     * the plane z = y - 2. A ray down -z from (0.5, 0.5, 0) meets it at z = -1.5: t = 1.5.
     * Normal cross((0,1,1),(1,0,0)) = (0,1,-1)/sqrt2. */
    sr_prim tq = make_prim(SR_PRIM_QUAD, sr_v3(0, 0, -2), sr_v3(0, 1, 1), sr_v3(1, 0, 0));
    assert_float_equal(hit_t(&tq, sr_v3(0.5f, 0.5f, 0), down), 1.5f, TOL);
    float r = 1.0f / sqrtf(2.0f);
    assert_vec_near(sr_prim_normal(&tq, sr_v3(0.5f, 0.5f, -1.5f)), 0, r, -r, TOL);
}

/* ---- triangle -------------------------------------------------------------------------- */

static void test_triangle(void **state)
{
    (void)state;
    /* (0,0,-2), (1,0,-2), (0,1,-2): normal cross((1,0,0),(0,1,0)) = +z */
    sr_prim t = make_prim(SR_PRIM_TRIANGLE, sr_v3(0, 0, -2), sr_v3(1, 0, -2), sr_v3(0, 1, -2));
    sr_vec3 down = sr_v3(0, 0, -1);
    assert_float_equal(hit_t(&t, sr_v3(0.25f, 0.25f, 0), down), 2.0f, 0.0f);
    assert_float_equal(hit_t(&t, sr_v3(0.25f, 0.25f, 0), sr_v3(0, 0, -4)), 0.5f, 0.0f);
    assert_true(hit_t(&t, sr_v3(0.6f, 0.6f, 0), down) < 0.0f);    /* u + v = 1.2        */
    assert_true(hit_t(&t, sr_v3(-0.1f, 0.5f, 0), down) < 0.0f);   /* u < 0              */
    assert_true(hit_t(&t, sr_v3(0.5f, -0.1f, 0), down) < 0.0f);   /* v < 0              */
    assert_true(hit_t(&t, sr_v3(0.25f, 0.25f, 0), sr_v3(0, 0, 1)) < 0.0f);  /* behind    */
    /* two-sided: from below */
    assert_float_equal(hit_t(&t, sr_v3(0.25f, 0.25f, -5), sr_v3(0, 0, 1)), 3.0f, 0.0f);
    /* vertices and the hypotenuse's midpoint are inside */
    assert_float_equal(hit_t(&t, sr_v3(0, 0, 0), down), 2.0f, 0.0f);
    assert_float_equal(hit_t(&t, sr_v3(0.5f, 0.5f, 0), down), 2.0f, 0.0f);
    /* in its plane: parallel, misses */
    assert_true(hit_t(&t, sr_v3(-1, 0.25f, -2), sr_v3(1, 0, 0)) < 0.0f);
    /* oblique: from (1,1,0) along (-0.375,-0.375,-1) lands on (0.25,0.25,-2) at t = 2 */
    assert_float_equal(hit_t(&t, sr_v3(1, 1, 0), sr_v3(-0.375f, -0.375f, -1)), 2.0f, 0.0f);
    assert_vec_near(sr_prim_normal(&t, sr_v3(0.25f, 0.25f, -2)), 0, 0, 1, 0.0f);
    /* clockwise winding: normal -z */
    sr_prim cw = make_prim(SR_PRIM_TRIANGLE, sr_v3(0, 0, -2), sr_v3(0, 1, -2), sr_v3(1, 0, -2));
    assert_vec_near(sr_prim_normal(&cw, sr_v3(0.25f, 0.25f, -2)), 0, 0, -1, 0.0f);
    assert_float_equal(hit_t(&cw, sr_v3(0.25f, 0.25f, 0), down), 2.0f, 0.0f);
    /* a large tilted triangle: normal is unit length: (3,0,0) x (0,4,4) = (0,-12,12) */
    sr_prim big = make_prim(SR_PRIM_TRIANGLE, sr_v3(0, 0, 0), sr_v3(3, 0, 0), sr_v3(0, 4, 4));
    float r = 1.0f / sqrtf(2.0f);
    assert_vec_near(sr_prim_normal(&big, sr_v3(1, 1, 1)), 0, -r, r, TOL);
}

static void test_nan_rays_miss(void **state)
{
    (void)state;
    float nan = NAN;
    sr_prim prims[4];
    prims[0] = sphere(0, 0, -5, 1);
    prims[1] = make_prim(SR_PRIM_PLANE, sr_v3(0, -1, 0), sr_v3(0, 1, 0), sr_v3s(0));
    prims[2] = make_prim(SR_PRIM_QUAD, sr_v3(-1, -1, -3), sr_v3(2, 0, 0), sr_v3(0, 2, 0));
    prims[3] = make_prim(SR_PRIM_TRIANGLE, sr_v3(-1, -1, -2), sr_v3(1, -1, -2), sr_v3(0, 1, -2));
    for (int i = 0; i < 4; i++) {
        float t;
        assert_false(sr_intersect_prim(&prims[i], sr_v3s(0), sr_v3(nan, 0, -1), 0.0f, SR_INF, &t));
        assert_false(sr_intersect_prim(&prims[i], sr_v3(0, nan, 0), sr_v3(0, -0.1f, -1), 0.0f, SR_INF, &t));
    }
    sr_prim unknown = prims[0];
    unknown.kind = SR_PRIM_KIND_COUNT;
    float t;
    assert_false(sr_intersect_prim(&unknown, sr_v3s(0), sr_v3(0, 0, -1), 0.0f, SR_INF, &t));
}

static void test_prim_bounds(void **state)
{
    (void)state;
    sr_vec3 lo, hi;
    sr_prim s = sphere(1, 2, 3, 0.5f);
    sr_prim_bounds(&s, &lo, &hi);
    assert_vec_near(lo, 0.5f, 1.5f, 2.5f, 0.0f);
    assert_vec_near(hi, 1.5f, 2.5f, 3.5f, 0.0f);
    sr_prim q = make_prim(SR_PRIM_QUAD, sr_v3(0, 0, 0), sr_v3(2, 0, -1), sr_v3(-1, 1, 0));
    sr_prim_bounds(&q, &lo, &hi);   /* corners (0,0,0) (2,0,-1) (-1,1,0) (1,1,-1) */
    assert_vec_near(lo, -1, 0, -1, 0.0f);
    assert_vec_near(hi, 2, 1, 0, 0.0f);
    sr_prim t = make_prim(SR_PRIM_TRIANGLE, sr_v3(0, 5, 1), sr_v3(-2, 0, 3), sr_v3(4, 1, -1));
    sr_prim_bounds(&t, &lo, &hi);
    assert_vec_near(lo, -2, 0, -1, 0.0f);
    assert_vec_near(hi, 4, 5, 3, 0.0f);
}

/* ---- boxes ----------------------------------------------------------------------------- */

static int box(sr_vec3 o, sr_vec3 d, float tmin, float tmax, float *te)
{
    sr_vec3 inv = sr_v3(1.0f / d.x, 1.0f / d.y, 1.0f / d.z);
    return sr_ray_box(o, inv, sr_v3s(-1), sr_v3s(1), tmin, tmax, te);
}

static void test_ray_box(void **state)
{
    (void)state;
    float te = -1;
    assert_true(box(sr_v3(-5, 0, 0), sr_v3(1, 0, 0), 0, SR_INF, &te));
    assert_float_equal(te, 4.0f, 0.0f);
    assert_true(box(sr_v3(5, 0.5f, -0.5f), sr_v3(-2, 0, 0), 0, SR_INF, &te));
    assert_float_equal(te, 2.0f, 0.0f);
    assert_false(box(sr_v3(-5, 2, 0), sr_v3(1, 0, 0), 0, SR_INF, &te));   /* beside      */
    assert_false(box(sr_v3(-5, 0, 0), sr_v3(-1, 0, 0), 0, SR_INF, &te));  /* behind      */
    assert_false(box(sr_v3(-5, 0, 0), sr_v3(1, 0, 0), 0, 3.5f, &te));     /* tmax first  */
    assert_false(box(sr_v3(-5, 0, 0), sr_v3(1, 0, 0), 6.5f, SR_INF, &te));/* tmin after  */
    /* inside: entry is tmin */
    assert_true(box(sr_v3(0.5f, 0.5f, 0.5f), sr_v3(1, 1, 1), 0.25f, SR_INF, &te));
    assert_float_equal(te, 0.25f, 0.0f);
    /* diagonal: enters at the corner region, (-3,-3,-3) + 2*(1,1,1) = (-1,-1,-1) */
    assert_true(box(sr_v3s(-3), sr_v3s(1), 0, SR_INF, &te));
    assert_float_equal(te, 2.0f, 0.0f);
    /* (-3,-2.9,0) + t(1,1,0): y enters at 1.9, x at 2, y leaves at 3.9: enters at t = 2 */
    assert_true(box(sr_v3(-3, -2.9f, 0), sr_v3(1, 1, 0), 0, SR_INF, &te));
    assert_float_equal(te, 2.0f, TOL);
    /* while (-3, 0.5, 0) + t(1,1,0) leaves y = 1 at t = 0.5, before x reaches -1 at t = 2 */
    assert_false(box(sr_v3(-3, 0.5f, 0), sr_v3(1, 1, 0), 0, SR_INF, &te));
}

static void test_ray_box_zero_components(void **state)
{
    (void)state;
    float te = -1;
    /* zero y and z components (inf inverse) with the origin on a face's plane: the ray runs
     * along the face (y = 1) and counts as inside; (hi - o) * inf is 0 * inf = NaN there */
    assert_true(box(sr_v3(-5, 1, 0), sr_v3(1, 0, 0), 0, SR_INF, &te));
    assert_float_equal(te, 4.0f, 0.0f);
    assert_true(box(sr_v3(-5, -1, 1), sr_v3(1, 0, 0), 0, SR_INF, &te));
    assert_float_equal(te, 4.0f, 0.0f);
    /* negative zeros: inverse -inf */
    assert_true(box(sr_v3(-5, 1, -1), sr_v3(1, -0.0f, -0.0f), 0, SR_INF, &te));
    assert_float_equal(te, 4.0f, 0.0f);
    assert_true(box(sr_v3(-5, -1, 1), sr_v3(1, -0.0f, 0.0f), 0, SR_INF, &te));
    /* beyond the face with a zero component: miss for both signs of zero */
    assert_false(box(sr_v3(-5, 1.0001f, 0), sr_v3(1, 0, 0), 0, SR_INF, &te));
    assert_false(box(sr_v3(-5, 1.0001f, 0), sr_v3(1, -0.0f, 0), 0, SR_INF, &te));
    assert_false(box(sr_v3(-5, -1.0001f, 0), sr_v3(1, 0, 0), 0, SR_INF, &te));
    /* only one non-zero component, going the other way */
    assert_true(box(sr_v3(0, 0, 7), sr_v3(0, 0, -1), 0, SR_INF, &te));
    assert_float_equal(te, 6.0f, 0.0f);
    /* a flat box (lo.z == hi.z), as an axis-aligned quad gives: hit exactly at its plane */
    sr_vec3 inv = sr_v3(1.0f / 0.0f, 1.0f / 0.0f, -1.0f);
    assert_true(sr_ray_box(sr_v3(0, 0, 3), inv, sr_v3(-1, -1, 0), sr_v3(1, 1, 0), 0, SR_INF, &te));
    assert_float_equal(te, 3.0f, 0.0f);
    /* and with the ray on the flat box's edge (x = 1, zero x component) */
    assert_true(sr_ray_box(sr_v3(1, 0, 3), inv, sr_v3(-1, -1, 0), sr_v3(1, 1, 0), 0, SR_INF, &te));
    /* an all-zero direction: inside the box only */
    sr_vec3 zinv = sr_v3(1.0f / 0.0f, 1.0f / 0.0f, 1.0f / 0.0f);
    assert_true(sr_ray_box(sr_v3s(0), zinv, sr_v3s(-1), sr_v3s(1), 0, SR_INF, &te));
    assert_false(sr_ray_box(sr_v3s(2), zinv, sr_v3s(-1), sr_v3s(1), 0, SR_INF, &te));
}

static void test_ray_box_nan(void **state)
{
    (void)state;
    float te = -1;
    /* NaN must not crash or hang; a NaN slab constrains nothing (conservative), the other
     * axes still decide */
    assert_false(box(sr_v3(-5, 3, NAN), sr_v3(1, 0, 0), 0, SR_INF, &te));
    assert_true(box(sr_v3(-5, 0, NAN), sr_v3(1, 0, 0), 0, SR_INF, &te));
    assert_float_equal(te, 4.0f, 0.0f);
    /* and a whole-scene query with a NaN direction reports no hit */
    sr_prim p = sphere(0, 0, 0, 1);
    sr_bvh_node node;
    node.lo = sr_v3s(-1); node.hi = sr_v3s(1); node.index = 0; node.count = 1;
    sr_scene_view s;
    memset(&s, 0, sizeof s);
    s.prims = &p; s.prim_count = 1; s.nodes = &node; s.node_count = 1;
    sr_hit h = sr_trace_closest(&s, sr_v3(0, 0, -5), sr_v3(NAN, 0, 1), 0.0f, 100.0f);
    assert_int_equal(h.prim, SR_NO_HIT);
    assert_float_equal(h.t, 100.0f, 0.0f);
    assert_false(sr_trace_occluded(&s, sr_v3(0, 0, -5), sr_v3(NAN, NAN, NAN), 0.0f, 100.0f));
    h = sr_trace_closest(&s, sr_v3(0, 0, -5), sr_v3(0, 0, 1), 0.0f, 100.0f);
    assert_int_equal(h.prim, 0);
    assert_float_equal(h.t, 4.0f, 0.0f);
}

/* ---- scene queries without a BVH ------------------------------------------------------- */

static void test_scene_planes_only(void **state)
{
    (void)state;
    sr_prim planes[2];
    planes[0] = make_prim(SR_PRIM_PLANE, sr_v3(0, -1, 0), sr_v3(0, 1, 0), sr_v3s(0));
    planes[1] = make_prim(SR_PRIM_PLANE, sr_v3(0, 0, -10), sr_v3(0, 0, 1), sr_v3s(0));
    sr_scene_view s;
    memset(&s, 0, sizeof s);
    s.planes = planes;
    s.plane_count = 2;
    /* floor at t = 5 before the back wall at t = 10 */
    sr_hit h = sr_trace_closest(&s, sr_v3s(0), sr_v3(0, -0.2f, -1), 0.0f, SR_INF);
    assert_int_equal(h.prim, 0u | SR_HIT_PLANE_BIT);
    assert_float_equal(h.t, 5.0f, 1e-5f);
    h = sr_trace_closest(&s, sr_v3s(0), sr_v3(0, -1, -1), 0.0f, SR_INF);
    assert_int_equal(h.prim, 0u | SR_HIT_PLANE_BIT);
    assert_float_equal(h.t, 1.0f, 0.0f);
    h = sr_trace_closest(&s, sr_v3s(0), sr_v3(0, 0, -1), 0.0f, SR_INF);
    assert_int_equal(h.prim, 1u | SR_HIT_PLANE_BIT);
    assert_float_equal(h.t, 10.0f, 0.0f);
    assert_ptr_equal(sr_hit_prim(&s, h, NULL), &planes[1]);
    h = sr_trace_closest(&s, sr_v3s(0), sr_v3(0, 1, 1), 0.0f, 7.0f);
    assert_int_equal(h.prim, SR_NO_HIT);
    assert_float_equal(h.t, 7.0f, 0.0f);
    assert_null(sr_hit_prim(&s, h, NULL));
    assert_true(sr_trace_occluded(&s, sr_v3s(0), sr_v3(0, -1, 0), 0.0f, 1.5f));
    assert_false(sr_trace_occluded(&s, sr_v3s(0), sr_v3(0, -1, 0), 0.0f, 0.5f));
    h = sr_trace_brute(&s, sr_v3s(0), sr_v3(0, 0, -1), 0.0f, SR_INF);
    assert_int_equal(h.prim, 1u | SR_HIT_PLANE_BIT);

    /* an empty scene */
    memset(&s, 0, sizeof s);
    h = sr_trace_closest(&s, sr_v3s(0), sr_v3(0, 0, -1), 0.0f, SR_INF);
    assert_int_equal(h.prim, SR_NO_HIT);
    assert_float_equal(h.t, SR_INF, 0.0f);
    assert_false(sr_trace_occluded(&s, sr_v3s(0), sr_v3(0, 0, -1), 0.0f, SR_INF));
}

/* ---- vmath optics ---------------------------------------------------------------------- */

static void test_reflect(void **state)
{
    (void)state;
    assert_vec_near(sr_reflect(sr_v3(1, -1, 0), sr_v3(0, 1, 0)), 1, 1, 0, 0.0f);
    assert_vec_near(sr_reflect(sr_v3(0, 0, -1), sr_v3(0, 0, 1)), 0, 0, 1, 0.0f);
    /* a tilted mirror: normal (1,1,0)/sqrt2 sends -x to +y */
    float r = 1.0f / sqrtf(2.0f);
    assert_vec_near(sr_reflect(sr_v3(-1, 0, 0), sr_v3(r, r, 0)), 0, 1, 0, TOL);
}

static void test_refract_snell(void **state)
{
    (void)state;
    sr_vec3 n = sr_v3(0, 1, 0), out;
    /* normal incidence passes straight through */
    assert_true(sr_refract(sr_v3(0, -1, 0), n, 1.0f / 1.5f, &out));
    assert_vec_near(out, 0, -1, 0, TOL);
    /* 45 degrees into glass: sin_t = sin(45)/1.5 = 0.4714045, cos_t = 0.8819171 */
    float r = 1.0f / sqrtf(2.0f);
    assert_true(sr_refract(sr_v3(r, -r, 0), n, 1.0f / 1.5f, &out));
    assert_float_equal(out.x, 0.4714045f, 2e-6f);
    assert_float_equal(out.y, -0.8819171f, 2e-6f);
    assert_float_equal(out.z, 0.0f, 0.0f);
    assert_float_equal(sr_length(out), 1.0f, 2e-6f);
    /* Snell over a sweep of angles and both directions: n1 sin_i = n2 sin_t */
    for (int k = 1; k < 9; k++) {
        float a = (float)k * 0.1f;   /* radians, up to 0.8 (< critical angle 0.7297 of glass
                                       for the way out: only the way in is swept that far) */
        sr_vec3 d = sr_v3(sinf(a), -cosf(a), 0);
        assert_true(sr_refract(d, n, 1.0f / 1.5f, &out));
        assert_float_equal(1.0f * sinf(a), 1.5f * out.x, 3e-6f);
        assert_float_equal(out.y, -sqrtf(1.0f - out.x * out.x), 3e-6f);  /* unit, onward */
        assert_float_equal(out.z, 0.0f, 0.0f);                            /* in the plane */
        if (a < 0.7f) {
            assert_true(sr_refract(d, n, 1.5f, &out));
            assert_float_equal(1.5f * sinf(a), 1.0f * out.x, 3e-6f);
            assert_float_equal(out.y, -sqrtf(1.0f - out.x * out.x), 3e-6f);
        }
    }
}

static void test_refract_total_internal_reflection(void **state)
{
    (void)state;
    sr_vec3 n = sr_v3(0, 1, 0), out = sr_v3(7, 7, 7);
    float r = 1.0f / sqrtf(2.0f);
    /* glass to air at 45 degrees: 1.5 * sin 45 = 1.06 > 1 */
    assert_false(sr_refract(sr_v3(r, -r, 0), n, 1.5f, &out));
    assert_vec_near(out, 7, 7, 7, 0.0f);   /* untouched */
    /* either side of the critical angle asin(1/1.5) = 0.7297277 rad */
    assert_true(sr_refract(sr_v3(sinf(0.72f), -cosf(0.72f), 0), n, 1.5f, &out));
    assert_false(sr_refract(sr_v3(sinf(0.74f), -cosf(0.74f), 0), n, 1.5f, &out));
    /* grazing from glass */
    assert_false(sr_refract(sr_v3(1, 0, 0), n, 1.5f, &out));
}

static void test_schlick(void **state)
{
    (void)state;
    /* normal incidence: ((n1 - n2) / (n1 + n2))^2; air-glass (0.5/2.5)^2 = 0.04 */
    assert_float_equal(sr_schlick(1.0f, 1.0f, 1.5f), 0.04f, TOL);
    assert_float_equal(sr_schlick(1.0f, 1.5f, 1.0f), 0.04f, TOL);
    /* water 1.33: (0.33/2.33)^2 = 0.0200593; diamond 2.42: (1.42/3.42)^2 = 0.1723949 */
    assert_float_equal(sr_schlick(1.0f, 1.0f, 1.33f), 0.0200593f, TOL);
    assert_float_equal(sr_schlick(1.0f, 1.0f, 2.42f), 0.1723949f, TOL);
    /* grazing: 1; equal media: 0 except at grazing */
    assert_float_equal(sr_schlick(0.0f, 1.0f, 1.5f), 1.0f, TOL);
    assert_float_equal(sr_schlick(1.0f, 1.5f, 1.5f), 0.0f, 0.0f);
    /* 60 degrees (cos 0.5): 0.04 + 0.96 * 0.5^5 = 0.07 */
    assert_float_equal(sr_schlick(0.5f, 1.0f, 1.5f), 0.07f, TOL);
    /* monotone: reflectance grows towards grazing */
    float prev = 0.0f;
    for (int k = 10; k >= 0; k--) {
        float f = sr_schlick((float)k * 0.1f, 1.0f, 1.5f);
        assert_true(f >= prev);
        prev = f;
    }
}

/* The checker for any allowed scale: cells of 1e-30 at points near 1e3 (cell indices past
 * any int; UBSan flagged the old int conversion), and the parity itself by hand. */
static void test_checker_any_scale(void **state)
{
    (void)state;
    sr_material m;
    memset(&m, 0, sizeof m);
    m.kind = SR_MAT_DIFFUSE;
    m.color = sr_v3(1, 0, 0);
    m.color2 = sr_v3(0, 1, 0);
    m.checker_scale = 1e-30f;
    sr_vec3 a = sr_diffuse_albedo(&m, sr_v3(1234.5f, 0.25f, -987.0f), sr_v3(0, 1, 0));
    assert_true((a.x == 1 && a.y == 0) || (a.x == 0 && a.y == 1));
    assert_true(sr_floor_parity(3.5f) == 1.0f && sr_floor_parity(-0.5f) == 1.0f && sr_floor_parity(-2.0f) == 0.0f);
    assert_true(sr_floor_parity(1e30f) == 0.0f && sr_floor_parity(INFINITY) == 0.0f && sr_floor_parity(NAN) == 0.0f);
    m.checker_scale = 1.0f;   /* cells of 1: (0.5, 0.5+0.5 behind..., 2.5) -> floors 0, 0, 2: even */
    a = sr_diffuse_albedo(&m, sr_v3(0.5f, 1.0f, 2.5f), sr_v3(0, 1, 0));
    assert_true(a.x == 1.0f);
    a = sr_diffuse_albedo(&m, sr_v3(1.5f, 1.0f, 2.5f), sr_v3(0, 1, 0));   /* floors 1, 0, 2: odd */
    assert_true(a.y == 1.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker_any_scale),
        cmocka_unit_test(test_sphere_hit_front),
        cmocka_unit_test(test_sphere_miss_and_behind),
        cmocka_unit_test(test_sphere_inside_far_root),
        cmocka_unit_test(test_sphere_interval),
        cmocka_unit_test(test_sphere_grazing),
        cmocka_unit_test(test_sphere_precision),
        cmocka_unit_test(test_plane),
        cmocka_unit_test(test_quad),
        cmocka_unit_test(test_quad_parallelogram),
        cmocka_unit_test(test_triangle),
        cmocka_unit_test(test_nan_rays_miss),
        cmocka_unit_test(test_prim_bounds),
        cmocka_unit_test(test_ray_box),
        cmocka_unit_test(test_ray_box_zero_components),
        cmocka_unit_test(test_ray_box_nan),
        cmocka_unit_test(test_scene_planes_only),
        cmocka_unit_test(test_reflect),
        cmocka_unit_test(test_refract_snell),
        cmocka_unit_test(test_refract_total_internal_reflection),
        cmocka_unit_test(test_schlick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
