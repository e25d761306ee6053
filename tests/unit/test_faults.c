/* test_faults.c: a stage that fails mid-render (the SR_FAULT test switch, fault.h) ends
 * with a message naming the stage, exit code 1, no output file (an older image at the same
 * path is left untouched), and no hang. On the CPU backend, so it runs in CI; the CUDA
 * variant is test_gpu_faults.c. */
#include "testutil.h"
#include "hardutil.h"

static const char *scene_path(char *buf, size_t cap) { return sr_test_source_path(buf, cap, "scenes/default.json"); }

/* A 96x54 CPU render with SR_FAULT=fault that must fail (see sr_hard_expect_failed_render). */
static void expect_failure(const char *fault, const char *const *extra, int code, const char *const *expect)
{
    char scene[1024], env_fault[128];
    snprintf(env_fault, sizeof env_fault, "SR_FAULT=%s", fault);
    const char *env[] = { env_fault, NULL };
    const char *args[] = { "render", scene_path(scene, sizeof scene), "--backend", "cpu", "--width", "96",
                           "--height", "54", "--spp", "3", NULL };
    sr_hard_expect_failed_render("faults", args, extra, env, 60.0, code, expect);
}

static void test_launch_faults_name_the_stage(void **state)
{
    (void)state;
    static const struct { const char *fault, *mask, *expect; } cases[] = {
        { "launch:generate", "stencil", "CPU backend error while launching generate (bounce 0)" },
        { "launch:intersect", "flags", "CPU backend error while launching intersect (bounce 0)" },
        { "launch:shade@4", "compact", "CPU backend error while launching shade (bounce 3)" },
        { "launch:compact", "compact", "CPU backend error while launching compact" },
        { "launch:megakernel", "megakernel", "CPU backend error while launching megakernel" },
        { "launch:wave", "wave", "CPU backend error while launching wave" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* compact after every bounce: --compact-below is refused with a mask that does not read it */
        const char *compacting[] = { "--mask", cases[i].mask, "--compact-below", "1", NULL };
        const char *other[] = { "--mask", cases[i].mask, NULL };
        const char *const *extra = strcmp(cases[i].mask, "compact") ? other : compacting;
        const char *expect[] = { cases[i].expect, "injected fault", cases[i].fault, NULL };
        expect_failure(cases[i].fault, extra, 1, expect);
    }
}

/* A kernel that faults in a later sample: the samples before it are lost, not written. */
static void test_kernel_fault_mid_render(void **state)
{
    (void)state;
    const char *extra[] = { "--depth", "2", "--mask", "stencil", NULL };   /* two intersects per sample */
    const char *expect[] = { "while running intersect (bounce 1)", "SR_FAULT=kernel:intersect@4", NULL };
    expect_failure("kernel:intersect@4", extra, 1, expect);
}

static void test_alloc_fault(void **state)
{
    (void)state;
    const char *expect[] = { "out of host memory for a 96x54 ray pool", NULL };
    expect_failure("alloc", NULL, 1, expect);
}

/* A fault switch that does not parse must not quietly pass as a clean render. */
static void test_bad_switch_is_refused(void **state)
{
    (void)state;
    const char *expect[] = { "SR_FAULT=launch:shadde not understood", "generate, intersect, shade", NULL };
    expect_failure("launch:shadde", NULL, 2, expect);
    const char *expect2[] = { "SR_FAULT=kernel:shade@0 not understood", NULL };
    expect_failure("kernel:shade@0", NULL, 2, expect2);
}

/* Without the switch (or with a fault the render never reaches) it renders. */
static void test_unreached_fault_renders(void **state)
{
    (void)state;
    char dir[1024], out[1100], scene[1024];
    sr_hard_fresh_dir(dir, sizeof dir, "faults_ok");
    snprintf(out, sizeof out, "%s/out.png", dir);
    const char *argv[] = { "render", scene_path(scene, sizeof scene), "--backend", "cpu", "--width", "32", "--height",
                           "18", "--spp", "1", "--mask", "stencil", "-q", "-o", out, NULL };
    const char *env[] = { "SR_FAULT=launch:megakernel", NULL };
    sr_child c;
    assert_int_equal(sr_hard_run(&c, argv, env, 60.0), 0);
    assert_true(sr_test_file_exists(out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_faults_name_the_stage),
        cmocka_unit_test(test_kernel_fault_mid_render),
        cmocka_unit_test(test_alloc_fault),
        cmocka_unit_test(test_bad_switch_is_refused),
        cmocka_unit_test(test_unreached_fault_renders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
