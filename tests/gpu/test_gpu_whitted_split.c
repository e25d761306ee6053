/* The Whitted split on the GPU (kernels/integrators/whitted.h): every shipped scene rendered
 * with the Whitted integrator (the path-traced ones too: their glass splits), on every mask,
 * bit-identical to the CPU backend, with the same rays at the same bounces and none dropped;
 * and nested glass at depth 16 with the wave mask's queue cut short (spawned rays that find
 * it full stay on their lanes' stacks) and with the room cut to two rays ($SR_SPLIT_BUDGET:
 * the GPU drops and counts as the CPU does). Exits 77 (skipped) without a CUDA device. */
#include "../unit/testutil.h"
#include "../../kernels/integrators/whitted.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scenes[] = { "scenes/default.json", "scenes/cornell.json", "scenes/mirror_hall.json",
                                      "scenes/mesh.json", "scenes/showcase.json", "scenes/sphere_field.json",
                                      "scenes/cornell_path.json" };

/* The masks and their settings: every way a sample can run (the wave mask's counting rays per
 * bounce, and at the end only their total). */
static const struct { sr_mask mask; float below; uint32_t dense; int counts; } ways[] = {
    { SR_MASK_FLAGS, 0.5f, 0, 1 },  { SR_MASK_STENCIL, 0.5f, 0, 1 }, { SR_MASK_COMPACT, 1.0f, 0, 1 },
    { SR_MASK_COMPACT, 0.5f, 0, 1 }, { SR_MASK_MEGAKERNEL, 0.5f, 0, 0 }, { SR_MASK_WAVE, 0.5f, 1, 1 },
    { SR_MASK_WAVE, 0.5f, 16, 1 },  { SR_MASK_WAVE, 0.5f, 32, 1 },  { SR_MASK_WAVE, 0.5f, 1, 0 },
    { SR_MASK_WAVE, 0.5f, 16, 0 },
};

/* GPU and CPU, one way: the same image bit for bit, the same rays per bounce, the same drops. */
static void same_on_both(const sr_scene *s, size_t w, uint32_t seed, const char *label)
{
    sr_render_opts o;
    sr_render_opts_default(&o);
    o.mask = ways[w].mask;
    o.compact_below = ways[w].below;
    o.seed = seed;
    if (ways[w].dense) o.wave_dense = ways[w].dense;
    o.bounce_counts = ways[w].counts;
    sr_render_stats gs, cs;
    float *gpu = sr_test_render_opts(s, SR_BACKEND_CUDA, &o, &gs);
    float *cpu = sr_test_render_opts(s, SR_BACKEND_CPU, &o, &cs);
    uint32_t differ = 0;
    for (size_t i = 0; i < 3u * s->width * s->height; i++) differ += gpu[i] != cpu[i];
    if (differ)
        fail_msg("%s, mask %s (compact below %.1f, dense %u): %u values differ between the GPU and the CPU", label,
                 sr_mask_name(o.mask), o.compact_below, ways[w].dense, differ);
    for (uint32_t b = 0; b < SR_MAX_DEPTH; b++)
        if (gs.bounce_rays[b] != cs.bounce_rays[b])
            fail_msg("%s, mask %s: bounce %u: GPU %llu rays, CPU %llu", label, sr_mask_name(o.mask), b,
                     (unsigned long long)gs.bounce_rays[b], (unsigned long long)cs.bounce_rays[b]);
    if (gs.dropped != cs.dropped)
        fail_msg("%s, mask %s: GPU dropped %llu rays, CPU %llu", label, sr_mask_name(o.mask),
                 (unsigned long long)gs.dropped, (unsigned long long)cs.dropped);
    free(gpu);
    free(cpu);
}

static void test_whitted_scenes_match_cpu_every_mask(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        sr_scene s;
        sr_test_load_shipped(scenes[k], &s);
        s.integrator = SR_INTEGRATOR_WHITTED;
        s.width = 160;
        s.height = 120;
        s.spp = 2;
        for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) same_on_both(&s, w, 3, scenes[k]);
        printf("%-26s whitted, every mask: GPU = CPU\n", scenes[k]);
        sr_scene_free(&s);
    }
}


/* Nested glass at depth 16: the queue whole and cut to 100 entries (spawned rays that find it
 * full stay on their lanes), every mask; then the room cut to two rays, where the GPU drops
 * what the CPU drops (the wave mask's queue off: which rays find it full is timing). */
static void test_nested_glass_matches_cpu(void **state)
{
    (void)state;
    sr_scene s;
    sr_test_nested_glass(&s, 160, 120);
    static const char *const limits[] = { "", "100" };
    for (size_t l = 0; l < 2; l++) {
        setenv("SR_WAVE_QUEUE_LIMIT", limits[l], 1);
        for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) same_on_both(&s, w, 1, "nested glass");
    }
    unsetenv("SR_WAVE_QUEUE_LIMIT");
    setenv(SR_SPLIT_BUDGET_ENV, "2", 1);
    same_on_both(&s, 4, 1, "nested glass, budget 2");   /* the megakernel: a lane's stack */
    same_on_both(&s, 5, 1, "nested glass, budget 2");   /* the wave mask without the queue */
    unsetenv(SR_SPLIT_BUDGET_ENV);
    printf("nested glass, depth 16: GPU = CPU on every mask, queue whole and cut to 100\n");
    sr_scene_free(&s);
}

int main(int argc, char **argv)
{
    const int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whitted_scenes_match_cpu_every_mask),
        cmocka_unit_test(test_nested_glass_matches_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
