/* GPU against the CPU reference: every shipped scene, rendered by the CUDA backend, matches
 * the CPU backend bit for bit (one wrong stencil bit would break it), the per-bounce ray
 * counts are equal (no ray lost or duplicated by compaction), and all four masks
 * give the same GPU image. Exits 77 (skipped) without a CUDA device. */
#include "../unit/testutil.h"
#include "../../kernels/frames/wave.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scenes[] = { "scenes/default.json", "scenes/cornell.json",
                                      "scenes/mirror_hall.json", "scenes/mesh.json" };

static void load_small(const char *rel, sr_scene *s)
{
    sr_test_load_shipped(rel, s);
    /* Small enough for CI-sized runs, large enough to hold many warps of every kind. */
    s->height = 120;
    s->width = 160;
    s->spp = 2;
}

static void test_scenes_match_cpu(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        sr_scene s;
        load_small(scenes[k], &s);
        assert_true(sr_test_gpu_matches_cpu(&s, scenes[k]));
        sr_scene_free(&s);
    }
}

static void test_gpu_masks_identical(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        sr_scene s;
        load_small(scenes[k], &s);
        free(sr_test_masks_agree(&s, SR_BACKEND_CUDA, 5, NULL));
        sr_scene_free(&s);
    }
}

/* The wave mask's queue only fills when many rays outlive sparse warps: a larger image of the
 * deepest scenes, at dense thresholds that split rays between the first launch and the
 * queue's drain differently, and with the queue cut short (SR_WAVE_QUEUE_LIMIT: warps that find it
 * full finish in place, leaving tombstones), in launch order and slowest tiles first,
 * against the one-stage-per-launch stencil mask on the same GPU. Several samples, so that
 * round 0's stencils swap, the queue's stencil is reused, and the samples after the first
 * take the order the one before filed (a tile taken twice or never breaks the image). */
static void test_wave_rounds_identical(void **state)
{
    (void)state;
    static const char *const deep[] = { "scenes/mirror_hall.json", "scenes/cornell_path.json", "scenes/sphere_field.json" };
    static const uint32_t dense[] = { 1, 8, 16, 24, 32 };
    static const char *const limits[] = { "", "100", "5000" };
    for (size_t k = 0; k < sizeof deep / sizeof deep[0]; k++) {
        sr_scene s;
        sr_test_load_shipped(deep[k], &s);
        s.width = 427;    /* not a multiple of the 8x4 tiles: the overhanging slots die */
        s.height = 239;
        s.spp = 3;
        sr_render_stats ref_st, st;
        float *ref = sr_test_render(&s, SR_BACKEND_CUDA, SR_MASK_STENCIL, 0.5f, 11, &ref_st);
        for (size_t d = 0; d < sizeof dense / sizeof dense[0] * 3 * 2; d++) {
            const uint32_t dn = dense[d % 5];
            const char *limit = limits[d / 5 % 3];
            const int slowest = (int)(d / 15);
            setenv("SR_WAVE_QUEUE_LIMIT", limit, 1);
            sr_render_opts o;
            sr_render_opts_default(&o);
            o.mask = SR_MASK_WAVE;
            o.seed = 11;
            o.wave_dense = dn;
            o.wave_order = slowest ? SR_WAVE_ORDER_SLOWEST : SR_WAVE_ORDER_LAUNCH;
            o.bounce_counts = (int)(d & 1u);   /* per bounce, or only the total */
            float *img = sr_test_render_opts(&s, SR_BACKEND_CUDA, &o, &st);
            char label[160];
            snprintf(label, sizeof label, "%s: wave mask (dense %u, queue limit '%s', slowest first %d, counts per bounce %d)",
                     deep[k], dn, limit, slowest, o.bounce_counts);
            if (memcmp(img, ref, sizeof(float) * 3u * s.width * s.height)) fail_msg("%s differs from the stencil mask", label);
            sr_test_same_counts(label, &o, &st, &ref_st);
            free(img);
        }
        unsetenv("SR_WAVE_QUEUE_LIMIT");
        printf("%-26s %ux%u spp %u depth %2u: wave mask at dense 1, 8, 16, 24, 32, queue limits none, 100, 5000, "
               "launch order and slowest tiles first, rays counted per bounce or in all = stencil mask (%llu rays)\n",
               deep[k], s.width, s.height, s.spp, s.max_depth, (unsigned long long)ref_st.rays);
        free(ref);
        sr_scene_free(&s);
    }
}

/* The order of the tiles: after samples taken slowest tiles first, the order the next one
 * would take holds every tile of the image once (each warp filed its tile once, whatever
 * its cost class), and it is not the launch order (the order is in use). Every scene. */
static void test_tile_order_is_a_permutation(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        sr_scene s;
        load_small(scenes[k], &s);
        s.width = 203;   /* tiles overhang the right and bottom edges */
        s.spp = 3;
        sr_error err = { SR_OK, "" };
        sr_backend be;
        assert_int_equal(sr_backend_create(SR_BACKEND_CUDA, 0, &be, NULL, 0, &err), SR_OK);
        sr_renderer r;
        sr_frame f;
        sr_frame_from_scene(&f, &s);
        assert_int_equal(sr_renderer_prepare(&r, &s, &be, &f, &err), SR_OK);
        const uint32_t tiles = sr_tiles(s.width, s.height);
        uint32_t *order = malloc(sizeof(uint32_t) * tiles);
        uint8_t *seen = calloc(tiles, 1);
        assert_non_null(order);
        assert_non_null(seen);
        assert_int_equal(be.ops->read(be.impl, SR_BUFFER_TILE_ORDER, order, &err), SR_OK);
        for (uint32_t t = 0; t < tiles; t++) assert_int_equal(order[t], t);   /* nothing filed yet */
        f.render.wave_dense = k % 2 ? 1u : 16u;   /* both kernels file */
        f.render.wave_order = SR_WAVE_ORDER_SLOWEST;
        float *rgb = malloc(sizeof(float) * 3u * s.width * s.height);
        assert_non_null(rgb);
        assert_int_equal(sr_render_image(&r, &f, rgb, NULL, &err), SR_OK);
        assert_int_equal(be.ops->read(be.impl, SR_BUFFER_TILE_ORDER, order, &err), SR_OK);
        uint32_t moved = 0;
        for (uint32_t t = 0; t < tiles; t++) {
            if (order[t] >= tiles || seen[order[t]]) fail_msg("%s: tile %u at place %u of %u: not a permutation", scenes[k], order[t], t, tiles);
            seen[order[t]] = 1;
            moved += order[t] != t;
        }
        if (!moved) fail_msg("%s: the order after %u samples is the launch order", scenes[k], s.spp);
        printf("%-22s %u tiles: the order after %u samples slowest first is a permutation, %u tiles moved\n", scenes[k],
               tiles, s.spp, moved);
        free(rgb);
        free(order);
        free(seen);
        sr_renderer_free(&r);
        sr_backend_destroy(&be);
        sr_scene_free(&s);
    }
}

int main(int argc, char **argv)
{
    const int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenes_match_cpu),
        cmocka_unit_test(test_gpu_masks_identical),
        cmocka_unit_test(test_wave_rounds_identical),
        cmocka_unit_test(test_tile_order_is_a_permutation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
