/* test_gpu_faults.c: the CUDA backend's failure paths, driven by the SR_FAULT test switch
 * (fault.h) and $SR_DEVICE_MEM_LIMIT: a stage whose launch fails, a kernel that takes an
 * illegal address mid-render, a failed allocation, an image that does not fit the device,
 * and Ctrl-C. Each must end with a message naming the stage and the CUDA error, the right
 * exit code, no output file (an older one untouched) and no hang. Exits 77 (skipped)
 * without a CUDA device.
 *
 * Under compute-sanitizer set SR_TEST_UNDER_SANITIZER=1: the illegal-address case (an
 * intended error memcheck would report) is left out, and Ctrl-C may take longer than a
 * second, since the kernels in flight run many times slower there. Run it with
 * --report-api-errors no: the failing launch and allocation are intended too. */
#include "../unit/testutil.h"
#include "../unit/hardutil.h"
#include "../../src/backend/backend.h"

static const char *scene_path(char *buf, size_t cap) { return sr_test_source_path(buf, cap, "scenes/default.json"); }

/* A 320x180 CUDA render with `env` that must fail (see sr_hard_expect_failed_render). */
static void expect_failure(const char *const *env, const char *const *extra, int code, const char *const *expect)
{
    char scene[1024];
    const char *args[] = { "render", scene_path(scene, sizeof scene), "--backend", "cuda", "--width", "320",
                           "--height", "180", "--spp", "4", NULL };
    sr_hard_expect_failed_render("gpu_faults", args, extra, env, 120.0, code, expect);
}

/* A real launch of the stage's kernel with an invalid configuration (2048 threads a block). */
static void test_launch_faults(void **state)
{
    (void)state;
    static const struct { const char *fault, *mask, *expect; } cases[] = {
        { "SR_FAULT=launch:generate", "stencil", "CUDA error while launching generate (bounce 0)" },
        { "SR_FAULT=launch:intersect@2", "flags", "CUDA error while launching intersect (bounce 1)" },
        { "SR_FAULT=launch:shade@6", "compact", "CUDA error while launching shade (bounce 5)" },
        { "SR_FAULT=launch:compact", "compact", "CUDA error while launching compact" },
        { "SR_FAULT=launch:megakernel@3", "megakernel", "CUDA error while launching megakernel" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *env[] = { cases[i].fault, NULL };
        /* compact after every bounce: --compact-below is refused with a mask that does not read it */
        const char *compacting[] = { "--mask", cases[i].mask, "--compact-below", "1", NULL };
        const char *other[] = { "--mask", cases[i].mask, NULL };
        const char *const *extra = strcmp(cases[i].mask, "compact") ? other : compacting;
        /* the driver's check of the block size answers cudaErrorInvalidValue (H200, 580) */
        const char *expect[] = { cases[i].expect, "(cudaErrorInvalid", NULL };
        expect_failure(env, extra, 1, expect);
    }
}

/* A kernel that takes an illegal address in the third sample: a sticky error that CUDA
 * reports at a later call. The message lists this sample's launches; with
 * CUDA_LAUNCH_BLOCKING=1 it names the very launch. The context is broken afterwards:
 * freeing and exiting must still not hang. */
static void test_kernel_fault(void **state)
{
    (void)state;
    if (getenv("SR_TEST_UNDER_SANITIZER")) {
        printf("  skipped: SR_TEST_UNDER_SANITIZER is set (the illegal address is intended)\n");
        return;
    }
    const char *extra[] = { "--depth", "3", "--mask", "stencil", NULL };
    const char *env[] = { "SR_FAULT=kernel:intersect@8", NULL };   /* sample 2, bounce 1 */
    const char *expect[] = { "cudaErrorIllegalAddress", "intersect", "this sample's launches", NULL };
    expect_failure(env, extra, 1, expect);
    const char *env_blocking[] = { "SR_FAULT=kernel:intersect@8", "CUDA_LAUNCH_BLOCKING=1", NULL };
    const char *expect_blocking[] = { "cudaErrorIllegalAddress", "intersect (bounce 1)", NULL };
    expect_failure(env_blocking, extra, 1, expect_blocking);
    const char *env_shade[] = { "SR_FAULT=kernel:shade@2", NULL };
    const char *extra_compact[] = { "--mask", "compact", "--compact-below", "1", NULL };
    const char *expect_shade[] = { "cudaErrorIllegalAddress", "shade", NULL };
    expect_failure(env_shade, extra_compact, 1, expect_shade);
}

static void test_alloc_fault(void **state)
{
    (void)state;
    const char *env[] = { "SR_FAULT=alloc", NULL };
    const char *expect[] = { "CUDA error while allocating the ray pool", "cudaErrorMemoryAllocation", NULL };
    expect_failure(env, NULL, 1, expect);
}

/* More than the (simulated) free device memory: refused before the pool is allocated. */
static void test_device_memory_limit(void **state)
{
    (void)state;
    const char *env[] = { "SR_DEVICE_MEM_LIMIT=64M", NULL };
    const char *extra[] = { "--width", "4096", "--height", "4096", NULL };
    const char *expect[] = { "4096x4096 image needs", "MiB of device memory", "only 64.0 MiB are free", NULL };
    expect_failure(env, extra, 2, expect);
}

/* Ctrl-C on the GPU: the kernels in flight finish (milliseconds), nothing is written. */
static void test_interrupt_on_gpu(void **state)
{
    (void)state;
    char dir[1024], out[1100], scene[1024];
    sr_hard_fresh_dir(dir, sizeof dir, "gpu_interrupt");
    snprintf(out, sizeof out, "%s/out.png", dir);
    for (int partial = 0; partial < 2; partial++) {
        /* the partial PNG is written before the exit: 1280x720 takes ~0.1 s to encode, 4K ~0.6 s */
        const char *argv[] = { "render", scene_path(scene, sizeof scene), "--backend", "cuda", "--width",
                               partial ? "1280" : "3840", "--height", partial ? "720" : "2160", "--spp", "65536", "-o",
                               out, partial ? "--save-partial" : NULL, NULL };
        sr_child c;
        sr_hard_spawn(&c, argv, NULL);
        const double t0 = sr_hard_now();
        while (!strstr(c.err, "GPU backend") && sr_hard_now() - t0 < 60.0 && c.err_fd >= 0) sr_hard_drain(&c, 50);
        const double t1 = sr_hard_now();
        while (sr_hard_now() - t1 < 1.5) sr_hard_drain(&c, 20);
        const double ts = sr_hard_now();
        kill(c.pid, SIGINT);
        int code = sr_hard_wait(&c, 120.0);
        const double took = sr_hard_now() - ts;
        printf("  exit %d, %.3f s after SIGINT\n%s", code, took, c.err);
        assert_int_equal(code, 130);
        assert_true(took < (getenv("SR_TEST_UNDER_SANITIZER") ? 60.0 : 1.0));
        if (!partial) {
            assert_non_null(strstr(c.err, "nothing written"));
            assert_int_equal(sr_hard_count_files(dir), 0);
        } else {
            assert_non_null(strstr(c.err, "out.partial-"));
            assert_int_equal(sr_hard_count_files(dir), 1);
        }
    }
}

int main(int argc, char **argv)
{
    const int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_faults),
        cmocka_unit_test(test_kernel_fault),
        cmocka_unit_test(test_alloc_fault),
        cmocka_unit_test(test_device_memory_limit),
        cmocka_unit_test(test_interrupt_on_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
