/* test_api_view.c: the viewer through the API (sr_view_run): descs and scripts it refuses
 * before opening a window, naming what is wrong, and no display refused as a runtime error.
 * The window itself is tested under Xvfb (view_xvfb.c, through the command). */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "../../include/stencilray.h"

static void test_refused(void **state)
{
    (void)state;
    sr_context *ctx = sr_create(NULL);
    assert_int_equal(sr_view_run(ctx, NULL), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "no desc"));
    const sr_view_desc tonemap = { .tonemap = (sr_tonemap_kind)9 };
    assert_int_equal(sr_view_run(ctx, &tonemap), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "tonemap 9"));
    const sr_view_desc big = { .frame = { .width = 20000 } };
    assert_int_equal(sr_view_run(ctx, &big), SR_RESULT_INPUT_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "20000x0"));
#if SR_HAVE_VIEWER
    const sr_view_step steps[] = {
        { .kind = SR_VIEW_STEP_FRAMES, .a = 2 },
        { .kind = SR_VIEW_STEP_CAMERA, .camera_count = 5 },
    };
    const sr_view_desc script = { .steps = steps, .step_count = 2 };
    assert_int_equal(sr_view_run(ctx, &script), SR_RESULT_INPUT_ERROR);
    const sr_view_step mask[] = { { .kind = SR_VIEW_STEP_MASK, .a = SR_MASK_KIND_DEFAULT } };
    const sr_view_desc bad_mask = { .steps = mask, .step_count = 1 };
    assert_int_equal(sr_view_run(ctx, &bad_mask), SR_RESULT_INPUT_ERROR);
    /* a good desc with no display: the window cannot open */
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    const sr_view_desc fine = { .steps = steps, .step_count = 1 };
    assert_int_equal(sr_view_run(ctx, &fine), SR_RESULT_RUNTIME_ERROR);
#else
    const sr_view_desc fine = { 0 };
    assert_int_equal(sr_view_run(ctx, &fine), SR_RESULT_RUNTIME_ERROR);
    assert_non_null(strstr(sr_last_error(ctx), "no viewer"));
#endif
    sr_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
