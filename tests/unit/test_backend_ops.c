/* test_backend_ops.c: the backend interface (backend.h) driven by hand, as the frame driver
 * drives it: the live count that stencil fill and compaction leave, count_live against it,
 * the flags fill, the film's fill and read, and a sample run stage by stage with a
 * compaction after every bounce giving the same film and ray total as the megakernel; the
 * backend's own sum of its sample passes held to the host's rule (film_sum.c). On
 * the CPU backend (the GPU runs the same driver in test_gpu_match). And which scenes are
 * plain or without assets (the GPU runs them on kernels built without those features). */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "../../src/backend/backend.h"
#include "../../src/render/render.h"
#include "../../src/scene/scene.h"
#include "../../src/farm/film_sum.h"
#include "../../kernels/integrators/stages.h"

/* A mirror sphere under a uniform sky: at every bounce some rays die (the sky) and some live. */
static const char *sphere_scene =
    "{\"camera\":{\"position\":[0,0,5],\"look_at\":[0,0,0],\"fov\":30},"
    " \"image\":{\"width\":64,\"height\":48,\"spp\":1,\"max_depth\":4},"
    " \"background\":[0.2,0.4,0.8],"
    " \"materials\":{\"m\":{\"type\":\"mirror\",\"reflectance\":[0.9,0.5,0.25]},"
    "                \"g\":{\"type\":\"diffuse\",\"albedo\":[0.5,0.5,0.5]}},"
    " \"lights\":[{\"type\":\"point\",\"position\":[2,3,4],\"intensity\":20}],"
    " \"objects\":[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":1,\"material\":\"m\"},"
    "             {\"type\":\"sphere\",\"center\":[1.2,0.8,-1.5],\"radius\":0.8,\"material\":\"g\"}]}";

typedef struct fixture {
    sr_scene scene;
    sr_backend be;
    sr_renderer r;
    sr_frame frame;   /* the scene's values */
    uint32_t n;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    sr_error err = { SR_OK, "" };
    sr_test_parse("ops.json", sphere_scene, &f->scene);
    assert_int_equal(sr_backend_create(SR_BACKEND_CPU, 0, &f->be, NULL, 0, &err), SR_OK);
    assert_non_null(f->be.state);
    sr_frame_from_scene(&f->frame, &f->scene);
    assert_int_equal(sr_renderer_prepare(&f->r, &f->scene, &f->be, &f->frame, &err), SR_OK);
    f->n = f->scene.width * f->scene.height;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = (fixture *)*state;
    sr_renderer_free(&f->r);
    sr_backend_destroy(&f->be);
    sr_scene_free(&f->scene);
    free(f);
    return 0;
}

static void ok(sr_status s, const sr_error *err)
{
    if (s) fail_msg("%s", err->msg);
}

static sr_launch_args args(sr_mask mask, uint32_t n)
{
    sr_launch_args a;
    memset(&a, 0, sizeof a);
    a.mask = mask;
    a.n = n;
    return a;
}

static void start(fixture *f, uint32_t sample, sr_buffer counters)
{
    sr_error err = { SR_OK, "" };
    f->be.state->current = 0;
    f->be.state->n = f->n;
    f->be.state->sample = sample;
    f->be.state->seed = 1;
    ok(f->be.ops->fill(f->be.impl, counters, 0, SR_WHOLE, &err), &err);
}

static void launch(fixture *f, sr_kernel k, const sr_launch_args *a)
{
    sr_error err = { SR_OK, "" };
    ok(f->be.ops->launch(f->be.impl, k, a, &err), &err);
}

static uint32_t read_u32(fixture *f, sr_buffer b)
{
    sr_error err = { SR_OK, "" };
    uint32_t v = 0xdeadbeefu;
    ok(f->be.ops->read(f->be.impl, b, &v, &err), &err);
    return v;
}

/* count_live over the first `slots` slots, through the counter. */
static uint32_t count_live(fixture *f, sr_mask mask, uint32_t slots)
{
    sr_error err = { SR_OK, "" };
    ok(f->be.ops->fill(f->be.impl, SR_BUFFER_COUNTER, 0, SR_WHOLE, &err), &err);
    sr_launch_args a = args(mask, slots);
    launch(f, SR_KERNEL_COUNT_LIVE, &a);
    return read_u32(f, SR_BUFFER_COUNTER);
}

/* Stencil fill over k slots: k live rays, the live count k; the flags fill the same. */
static void test_fills_set_the_live_count(void **state)
{
    fixture *f = (fixture *)*state;
    sr_error err = { SR_OK, "" };
    const uint32_t ks[] = { f->n, 1000u, 33u, 32u, 1u, 0u };
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        sr_launch_args a = args(SR_MASK_STENCIL, ks[i]);
        launch(f, SR_KERNEL_STENCIL_FILL, &a);
        assert_int_equal(read_u32(f, SR_BUFFER_LIVE_COUNT), ks[i]);
        assert_int_equal(count_live(f, SR_MASK_STENCIL, f->n), ks[i]);
        ok(f->be.ops->fill(f->be.impl, SR_BUFFER_FLAGS, 0, SR_WHOLE, &err), &err);
        ok(f->be.ops->fill(f->be.impl, SR_BUFFER_FLAGS, 1, ks[i], &err), &err);
        assert_int_equal(count_live(f, SR_MASK_FLAGS, f->n), ks[i]);
    }
}

/* The film: zero after a fill; a read scaled by 2 is twice a read scaled by 1. */
static void test_film_fill_and_read(void **state)
{
    fixture *f = (fixture *)*state;
    sr_error err = { SR_OK, "" };
    const size_t count = 3u * (size_t)f->n;
    float *a = malloc(sizeof(float) * count), *b = malloc(sizeof(float) * count);
    assert_non_null(a);
    assert_non_null(b);
    ok(sr_backend_clear_film(&f->be, &err), &err);
    ok(sr_backend_read_film(&f->be, a, 1.0f, &err), &err);
    for (size_t i = 0; i < count; i++) assert_true(a[i] == 0.0f);
    start(f, 0, SR_BUFFER_RAY_COUNTS);
    sr_launch_args m = args(SR_MASK_MEGAKERNEL, f->n);
    launch(f, SR_KERNEL_MEGAKERNEL, &m);
    ok(sr_backend_read_film(&f->be, a, 1.0f, &err), &err);
    ok(sr_backend_read_film(&f->be, b, 2.0f, &err), &err);
    size_t lit = 0;
    for (size_t i = 0; i < count; i++) {
        assert_true(b[i] == 2.0f * a[i]);
        lit += a[i] > 0.0f;
    }
    assert_true(lit > count / 2);   /* the sky alone is most of the image */
    free(a);
    free(b);
}

/* The backend's sum of its passes (SR_KERNEL_FILM_ACCUMULATE) is, value for value, the host's
 * sum of the same films read back (sr_film_sum_add_pass): two rendered passes of 3 and 2
 * samples, and two films of NaN (0xff bytes, counted 0) and of 3.4e38 (0x7f bytes, clamped). */
static void test_film_sum_of_passes(void **state)
{
    fixture *f = (fixture *)*state;
    sr_error err = { SR_OK, "" };
    const size_t count = 3u * (size_t)f->n;
    float *film = malloc(sizeof(float) * count);
    int64_t *mine = malloc(sizeof(int64_t) * count);
    sr_film_sum host;
    assert_non_null(film);
    assert_non_null(mine);
    ok(sr_film_sum_init(&host, count, &err), &err);
    ok(sr_renderer_clear_film_sum(&f->r, &err), &err);
    const uint32_t first[] = { 0, 3 }, samples[] = { 3, 2 };
    sr_render_stats st;
    memset(&st, 0, sizeof st);
    for (int p = 0; p < 2; p++) {
        ok(sr_renderer_clear_film(&f->r, &err), &err);
        for (uint32_t i = first[p]; i < first[p] + samples[p]; i++) ok(sr_render_sample(&f->r, &f->frame, i, &st, &err), &err);
        ok(sr_renderer_accumulate_film(&f->r, samples[p], &err), &err);
        ok(sr_renderer_read_film(&f->r, film, 1.0f, &err), &err);
        sr_film_sum_add_pass(&host, film, samples[p]);
    }
    ok(sr_renderer_read_film_sum(&f->r, mine, &err), &err);
    size_t lit = 0;
    for (size_t i = 0; i < count; i++) lit += mine[i] > 0;
    assert_true(lit > count / 2);
    assert_memory_equal(mine, host.v, sizeof(int64_t) * count);
    for (int k = 0; k < 2; k++) {
        const uint8_t byte = k ? 0x7f : 0xff;
        ok(f->be.ops->fill(f->be.impl, SR_BUFFER_FILM, byte, SR_WHOLE, &err), &err);
        ok(sr_renderer_accumulate_film(&f->r, 4, &err), &err);
        memset(film, byte, sizeof(float) * count);
        sr_film_sum_add_pass(&host, film, 4);
    }
    ok(sr_renderer_read_film_sum(&f->r, mine, &err), &err);
    assert_memory_equal(mine, host.v, sizeof(int64_t) * count);
    /* the clamped pass added 4 x 2^22 x 2^24 = 2^48 to every value, the NaN pass nothing */
    for (size_t i = 0; i < count; i++) assert_true(mine[i] >= ((int64_t)1 << 48) && mine[i] < ((int64_t)1 << 49));
    sr_film_sum_free(&host);
    free(film);
    free(mine);
}

/* One sample, stage by stage, compacting after every bounce and then launching over the
 * device-side live count: the live count after each compaction is count_live's before it,
 * the compacted rays fill a prefix of the other half, and the film and the rays traced are
 * the megakernel's. */
static void test_staged_sample_matches_megakernel(void **state)
{
    fixture *f = (fixture *)*state;
    sr_error err = { SR_OK, "" };
    const size_t count = 3u * (size_t)f->n;
    float *staged = malloc(sizeof(float) * count), *mega = malloc(sizeof(float) * count);
    assert_non_null(staged);
    assert_non_null(mega);
    uint32_t staged_counts[SR_MAX_DEPTH], mega_counts[SR_MAX_DEPTH];

    ok(sr_backend_clear_film(&f->be, &err), &err);
    start(f, 3, SR_BUFFER_RAY_COUNTS);
    sr_launch_args a = args(SR_MASK_COMPACT, f->n);
    launch(f, SR_KERNEL_STENCIL_FILL, &a);
    launch(f, SR_KERNEL_GENERATE, &a);
    uint32_t compactions = 0;
    for (uint32_t b = 0; b < f->scene.max_depth; b++) {
        a.bounce = b;
        launch(f, SR_KERNEL_INTERSECT, &a);
        launch(f, SR_KERNEL_SHADE, &a);
        const uint32_t slots = a.over_live ? read_u32(f, SR_BUFFER_LIVE_COUNT) : f->n;
        const uint32_t live = count_live(f, SR_MASK_COMPACT, slots);
        assert_true(live <= slots);
        sr_launch_args c = a;
        c.over_live = 1;
        c.n = b & 1u ? 1u : f->n;   /* a forecast: any value is correct */
        launch(f, SR_KERNEL_COMPACT, &c);
        f->be.state->current = 1 - f->be.state->current;
        compactions++;
        assert_int_equal(read_u32(f, SR_BUFFER_LIVE_COUNT), live);
        assert_int_equal(count_live(f, SR_MASK_COMPACT, live), live);   /* a dense prefix */
        if (b == 0) assert_true(live > 0 && live < f->n);
        a.over_live = 1;
        a.n = live;
    }
    assert_int_equal(compactions, f->scene.max_depth);
    ok(f->be.ops->read(f->be.impl, SR_BUFFER_RAY_COUNTS, staged_counts, &err), &err);
    assert_int_equal(staged_counts[0], f->n);   /* every camera ray enters intersect */
    ok(sr_backend_read_film(&f->be, staged, 1.0f, &err), &err);

    ok(sr_backend_clear_film(&f->be, &err), &err);
    start(f, 3, SR_BUFFER_RAY_COUNTS);
    sr_launch_args m = args(SR_MASK_MEGAKERNEL, f->n);
    launch(f, SR_KERNEL_MEGAKERNEL, &m);
    ok(f->be.ops->read(f->be.impl, SR_BUFFER_RAY_COUNTS, mega_counts, &err), &err);
    ok(sr_backend_read_film(&f->be, mega, 1.0f, &err), &err);

    uint64_t staged_total = 0, mega_total = 0;
    for (uint32_t d = 0; d < SR_MAX_DEPTH; d++) {
        staged_total += staged_counts[d];
        mega_total += mega_counts[d];
    }
    assert_true(staged_total > f->n);   /* some rays bounced */
    assert_int_equal(staged_total, mega_total);
    assert_memory_equal(staged, mega, sizeof(float) * count);
    free(staged);
    free(mega);
}

/* A kernel or a buffer the backend does not have is refused with a message, not run. */
static void test_unknown_kernel_and_buffer_refused(void **state)
{
    fixture *f = (fixture *)*state;
    sr_error err = { SR_OK, "" };
    sr_launch_args a = args(SR_MASK_STENCIL, f->n);
    assert_int_equal(f->be.ops->launch(f->be.impl, SR_KERNELS, &a, &err), SR_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "no kernel"));
    uint32_t v = 0;
    assert_int_equal(f->be.ops->read(f->be.impl, SR_BUFFER_FLAGS, &v, &err), SR_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "cannot read"));
    assert_int_equal(f->be.ops->read(f->be.impl, SR_BUFFER_TILE_ORDER, &v, &err), SR_ERR_RUNTIME);   /* a GPU schedule */
    assert_non_null(strstr(err.msg, "cannot read"));
    assert_int_equal(f->be.ops->fill(f->be.impl, SR_BUFFER_LIVE_COUNT, 0, SR_WHOLE, &err), SR_ERR_RUNTIME);
    assert_non_null(strstr(err.msg, "cannot fill"));
    v = 1;   /* no grids on the CPU: the wave drain's resident blocks are 0 */
    assert_int_equal(f->be.ops->resident_blocks(f->be.impl, SR_KERNEL_WAVE, SR_BUILD_GENERAL, &v, &err), SR_OK);
    assert_int_equal(v, 0);
    float dst[3];
    assert_int_equal(sr_backend_resolve_film(&f->be, dst, 1.0f, &err), SR_ERR_RUNTIME);   /* no device memory */
    assert_non_null(strstr(err.msg, "no device memory"));
    assert_string_equal(sr_kernel_name(SR_KERNEL_COMPACT), "compact");
    assert_string_equal(sr_kernel_name(SR_KERNELS), "?");
}

/* The plain sphere field's view with feature k added (0, 1: a light, an area emitter; 2-4: an
 * environment map, a texture, vertex attributes, the assets): no longer plain, and without
 * assets only if the feature is not an asset. */
static void expect_one_feature(sr_scene_view v, int k)
{
    switch (k) {
    case 0: v.light_count = 1; break;
    case 1: v.emitter_count = 1; break;
    case 2: v.env_tex = 1; break;
    case 3: v.texture_count = 1; break;
    default: v.attrs = (const sr_tri_attr *)&v; break;
    }
    assert_false(sr_scene_plain(&v));
    if (k >= 2) assert_false(sr_scene_no_assets(&v));
    else assert_true(sr_scene_no_assets(&v));
}

/* Without assets: no textures, environment map or vertex attributes; plain: no lights or area
 * emitters either. The GPU tests match these scenes against the CPU, so they cover every build:
 * the sphere field runs the plain one, the other shipped scenes the one without assets, and
 * the showcase (test_gpu_assets) the general one. */
static void test_plain_scenes(void **state)
{
    (void)state;
    static const struct { const char *rel; bool plain, no_assets; } cases[] = {
        { "scenes/sphere_field.json", true, true },    /* sky only */
        { "scenes/cornell_path.json", false, true },   /* an area emitter */
        { "scenes/default.json", false, true },        /* point lights */
        { "scenes/mirror_hall.json", false, true },
        { "scenes/mesh.json", false, true },           /* a triangle mesh, flat */
        { "scenes/showcase.json", false, false },      /* textures, an environment map */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        sr_scene s;
        sr_backend be;
        sr_renderer r;
        sr_error err = { SR_OK, "" };
        sr_test_load_shipped(cases[k].rel, &s);
        ok(sr_backend_create(SR_BACKEND_CPU, 0, &be, NULL, 0, &err), &err);
        sr_frame fr;
        sr_frame_from_scene(&fr, &s);
        ok(sr_renderer_prepare(&r, &s, &be, &fr, &err), &err);
        if (sr_scene_plain(&r.view) != cases[k].plain)
            fail_msg("%s: plain is %d, expected %d", cases[k].rel, (int)sr_scene_plain(&r.view), (int)cases[k].plain);
        if (sr_scene_no_assets(&r.view) != cases[k].no_assets)
            fail_msg("%s: without assets is %d, expected %d", cases[k].rel, (int)sr_scene_no_assets(&r.view),
                     (int)cases[k].no_assets);
        /* One field at a time makes the sphere field not plain. */
        for (int f = 0; cases[k].plain && f < 5; f++) expect_one_feature(r.view, f);
        sr_renderer_free(&r);
        sr_backend_destroy(&be);
        sr_scene_free(&s);
    }
}

/* The wave mask left to the program measures its four ways on SR_WAVE_TUNE_RUNS samples
 * each, after the samples that give the ordered way its first order (uncounted): every way is
 * judged on as many samples, and the measuring ends, with a way named, after exactly that. A
 * change of depth measures again, with no warm-up (the tiles have an order by then). */
static void test_wave_measuring_schedule(void **state)
{
    fixture *f = (fixture *)*state;
    sr_error err = { SR_OK, "" };
    sr_frame fr = f->frame;
    const sr_render_opts *o = &fr.render;
    fr.render.mask = SR_MASK_WAVE;
    assert_true(sr_wave_chooses(o));
    const uint32_t ways = 4u, measured = SR_WAVE_ORDER_LAG + ways * SR_WAVE_TUNE_RUNS;
    for (uint32_t k = 0; k < measured; k++) {
        assert_true(sr_wave_measuring(&f->r, &fr));
        assert_string_equal(sr_wave_way_name(&f->r, o), "measuring");
        ok(sr_render_sample(&f->r, &fr, k, NULL, &err), &err);
    }
    assert_false(sr_wave_measuring(&f->r, &fr));
    assert_string_not_equal(sr_wave_way_name(&f->r, o), "measuring");
    assert_int_equal(f->r.wave_ordered, SR_WAVE_ORDER_LAG + SR_WAVE_TUNE_RUNS);
    for (uint32_t w = 0; w < ways; w++)
        for (uint32_t run = 0; run < SR_WAVE_TUNE_RUNS; run++) assert_true(f->r.wave_tune_ms[w][run] >= 0.0f);
    fr.depth = 3;   /* another depth: measured again, no warm-up */
    for (uint32_t k = 0; k < ways * SR_WAVE_TUNE_RUNS; k++) {
        assert_true(sr_wave_measuring(&f->r, &fr));
        ok(sr_render_sample(&f->r, &fr, measured + k, NULL, &err), &err);
    }
    assert_false(sr_wave_measuring(&f->r, &fr));
    assert_int_equal(f->r.wave_ordered, SR_WAVE_ORDER_LAG + 2u * SR_WAVE_TUNE_RUNS);
}

/* The measuring keeps the fastest way by its median, but a way that moves rays between warps
 * (repacking at 16, way 2; compaction, way 3) only when it beats the fastest way that keeps
 * them (no repacking in launch order, 0, or slowest tiles first, 1) by the margin. */
static void test_wave_way_choice(void **state)
{
    (void)state;
    const float plain = 1.0f, clear_win = plain * (1.0f - 2.0f * SR_WAVE_MOVE_MARGIN),
                near_win = plain * (1.0f - 0.5f * SR_WAVE_MOVE_MARGIN);
    static const struct { float way[4]; uint32_t depth, expect; } cases[] = {
        { { 1.0f, 1.1f, 0.0f, 1.2f }, 8u, 2u },    /* repacking wins clearly (set below)     */
        { { 1.0f, 1.1f, 0.0f, 1.2f }, 8u, 0u },    /* repacking wins within the margin       */
        { { 1.1f, 1.0f, 1.2f, 0.0f }, 8u, 3u },    /* compaction wins clearly                */
        { { 1.1f, 1.0f, 1.2f, 0.0f }, 8u, 1u },    /* compaction within it: slowest first     */
        { { 1.0f, 1.1f, 0.0f, 1.2f }, 1u, 0u },    /* depth 1: repacking is the same kernel  */
        { { 1.3f, 1.0f, 1.2f, 1.4f }, 8u, 1u },    /* a way that moves nothing is fastest    */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        float ms[4][SR_WAVE_TUNE_RUNS];
        for (uint32_t w = 0; w < 4u; w++) {
            float v = cases[k].way[w];
            if (v == 0.0f) v = k == 1 || k == 3 ? near_win : clear_win;
            /* the median decides: an outlier run either way changes nothing */
            _Static_assert(SR_WAVE_TUNE_RUNS == 3u, "three runs a way");
            ms[w][0] = v * 3.0f;
            ms[w][1] = v;
            ms[w][2] = v * 0.5f;
        }
        const uint32_t got = sr_wave_way_choose(ms, cases[k].depth);
        if (got != cases[k].expect) fail_msg("case %zu: way %u kept, expected %u", k, got, cases[k].expect);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wave_way_choice),
        cmocka_unit_test_setup_teardown(test_fills_set_the_live_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_film_fill_and_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_film_sum_of_passes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_staged_sample_matches_megakernel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_kernel_and_buffer_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wave_measuring_schedule, setup, teardown),
        cmocka_unit_test(test_plain_scenes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
