/* The backend-neutral sin/cos and cube root that keep CPU and GPU images bit-identical:
 * they must stay close to the C library's answers over their whole domain. */
#include "testutil.h"
#include "../../kernels/core/vmath.h"

#include <math.h>

static void test_sincos_turns_matches_libm(void **state)
{
    (void)state;
    double worst = 0;
    for (int i = 0; i <= 100000; i++) {
        float t = (float)i / 100000.0f;
        float s, c;
        sr_sincos_turns(t, &s, &c);
        double a = 2.0 * 3.14159265358979323846 * t;
        double e = fmax(fabs(s - sin(a)), fabs(c - cos(a)));
        if (e > worst) worst = e;
    }
    assert_true(worst < 2e-6);
    float s, c;
    sr_sincos_turns(0.25f, &s, &c);     /* quarter turn: exactly (1, 0) */
    assert_float_equal(s, 1.0f, 0.0);
    assert_float_equal(c, 0.0f, 1e-7);
    sr_sincos_turns(1.75f, &s, &c);     /* outside [0, 1): wraps */
    assert_float_equal(s, -1.0f, 1e-6);
}

static void test_cbrt01_matches_libm(void **state)
{
    (void)state;
    for (int i = 0; i <= 200000; i++) {
        float x = (float)i / 200000.0f;
        float y = sr_cbrt(x);
        double r = cbrt((double)x);
        assert_true(fabs(y - r) <= 4e-7 * (r > 1e-3 ? r : 1e-3) + 1e-7);
    }
    for (float x = 1e-29f; x < 1e-3f; x *= 1.7f) {
        double r = cbrt((double)x);
        assert_true(fabs(sr_cbrt(x) - r) <= 1e-6 * r);
    }
    assert_float_equal(sr_cbrt(0.0f), 0.0f, 0.0);
    assert_float_equal(sr_cbrt(1.0f), 1.0f, 0.0);
    assert_float_equal(sr_cbrt(0.125f), 0.5f, 1e-7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sincos_turns_matches_libm),
        cmocka_unit_test(test_cbrt01_matches_libm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
