/* CUDA-OpenGL interop without a window: an EGL pbuffer context on the GPU (EGL_PLATFORM_DEVICE_EXT,
 * desktop GL 3.3 core), the display module fed by the CUDA backend on each of its paths
 * (SR_DISPLAY_PATH's choices: memory shared once through GL_EXT_memory_object_fd, blitted or
 * drawn; a kernel writing the GL texture through a surface, blitted or drawn; the mapped pixel
 * buffer; host memory), read back with glReadPixels and compared with the C tonemap of the
 * CUDA film and with the CPU render, within 2 codes per channel. Then each path's per-frame
 * display cost at 1920x1080 (medians of 30 frames), printed, not asserted. The external-memory
 * paths are left out, with a note, when the GL lacks GL_EXT_memory_object_fd.
 * Exits 77 (skipped) without a CUDA device, without EGL, or when no EGL device gives a context. */
#include "../unit/testutil.h"
#include "../../src/viewer/display.h"
#include "../../src/io/images/image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(SR_HAVE_EGL) && defined(SR_HAVE_VIEWER)
#include <GL/glew.h>
#include "../unit/egl_context.h"

#define SR_PB_W 1920
#define SR_PB_H 1080

static void load_scene(sr_scene *s, uint32_t w, uint32_t h, uint32_t spp)
{
    sr_test_load_shipped("scenes/default.json", s);
    s->width = w;
    s->height = h;
    s->spp = spp;
}

/* The frame the renderer of each test renders: its scene's values (prepare). */
static sr_frame scene_frame;

static sr_status prepare(sr_renderer *r, const sr_scene *s, sr_backend *be, sr_error *err)
{
    sr_frame_from_scene(&scene_frame, s);
    return sr_renderer_prepare(r, s, be, &scene_frame, err);
}

static void check(sr_status st, const sr_error *err)
{
    if (st) fprintf(stderr, "%s\n", err->msg);
    assert_int_equal(st, SR_OK);
}

/* Channels more than 2 codes apart, and pixels with any such channel. */
static uint32_t bad_pixels(const uint8_t *a, const uint8_t *b, uint32_t pixels, int *worst)
{
    uint32_t bad = 0;
    *worst = 0;
    for (uint32_t i = 0; i < pixels; i++) {
        int off = 0;
        for (int c = 0; c < 3; c++) {
            int d = abs((int)a[3 * i + c] - (int)b[3 * i + c]);
            if (d > *worst) *worst = d;
            off |= d > 2;
        }
        bad += (uint32_t)off;
    }
    return bad;
}

static uint8_t *to_srgb8(const float *rgb, uint32_t w, uint32_t h)
{
    uint8_t *out = malloc((size_t)w * h * 3u);
    assert_non_null(out);
    sr_image_to_srgb8(rgb, w, h, 1.0f, SR_TONEMAP_CLAMP, out);
    return out;
}

/* Render spp samples on be into r's film, show it through d in an fb_w x fb_h framebuffer
 * (the pbuffer's lower left) and read that back. */
static uint8_t *show_in(sr_display *d, sr_renderer *r, uint32_t spp, int fb_w, int fb_h, float exposure, sr_tonemap op)
{
    sr_error err = { SR_OK, "" };
    check(sr_backend_clear_film(r->be, &err), &err);
    for (uint32_t i = 0; i < spp; i++) check(sr_render_sample(r, &scene_frame, i, NULL, &err), &err);
    /* Something else there first, so that a draw or blit that wrote nothing shows. */
    glClearColor(1.0f, 0.0f, 1.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    check(sr_display_upload(d, r, 1.0f / (float)spp, exposure, op, &err), &err);
    check(sr_display_draw(d, fb_w, fb_h, exposure, op, &err), &err);
    glFinish();
    uint8_t *px = malloc((size_t)fb_w * fb_h * 3u);
    assert_non_null(px);
    check(sr_display_read_rgb8(fb_w, fb_h, px, &err), &err);
    return px;
}

static uint8_t *show(sr_display *d, sr_renderer *r, uint32_t spp, uint32_t w, uint32_t h, float exposure, sr_tonemap op)
{
    return show_in(d, r, spp, (int)w, (int)h, exposure, op);
}

static uint8_t *show_at(sr_display *d, sr_renderer *r, uint32_t spp, int fb_w, int fb_h)
{
    return show_in(d, r, spp, fb_w, fb_h, 1.0f, SR_TONEMAP_CLAMP);
}

/* Switch d to `want` and insist on getting it: a silent fallback would test the wrong path. */
static void use_path(sr_display *d, sr_display_path want)
{
    char why[2048];
    sr_display_path got = sr_display_enable_interop(d, 0, want, why, sizeof why);
    if (got != want) fprintf(stderr, "wanted the %s path, got %s: %s\n", sr_display_path_name(want), sr_display_path_name(got), why);
    assert_int_equal(got, want);
    assert_int_equal(d->path, want);
}

/* One of SR_DISPLAY_PATH's choices, as the viewer takes it. 1 if taken; 0 (with a note) if it
 * is the external-memory path and this GL lacks its extensions, which the viewer falls back
 * from; -1 (said loudly) if the external-memory path failed otherwise, after checking that it
 * fell back to the surface path as the viewer would. Any other path must be taken. */
static int use_choice(sr_display *d, const sr_display_choice *c)
{
    char why[2048];
    if (c->path == SR_DISPLAY_EXTMEM && !sr_display_extmem_supported(why, sizeof why)) {
        printf("note: %s path not tested: %s\n", c->name, why);
        return 0;
    }
    sr_display_set_present(d, c->present);
    if (c->path == SR_DISPLAY_EXTMEM) {
        const sr_display_path got = sr_display_enable_interop(d, 0, c->path, why, sizeof why);
        if (got != c->path) {
            printf("FAILED: the %s path could not be set up (%s); the viewer would take the %s path\n", c->name, why,
                   sr_display_path_name(got));
            assert_int_equal(got, SR_DISPLAY_SURFACE);
            return -1;
        }
    } else {
        use_path(d, c->path);
    }
    assert_int_equal(sr_display_blits(d), c->present == SR_PRESENT_BLIT);
    return 1;
}

static void expect_close(const char *what, const uint8_t *a, const uint8_t *b, uint32_t pixels)
{
    int worst;
    uint32_t bad = bad_pixels(a, b, pixels, &worst);
    printf("%s: %u of %u pixels off by > 2, max |diff| %d\n", what, bad, pixels, worst);
    assert_int_equal(bad, 0);
}

static void test_interop_matches_render(void **state)
{
    (void)state;
    const uint32_t w = 320, h = 180, spp = 4;
    sr_scene s;
    load_scene(&s, w, h, spp);
    const uint32_t pixels = w * h;
    float *cpu = sr_test_render(&s, SR_BACKEND_CPU, SR_MASK_COMPACT, 0.5f, 1, NULL);
    float *gpu = sr_test_render(&s, SR_BACKEND_CUDA, SR_MASK_COMPACT, 0.5f, 1, NULL);
    assert_non_null(gpu);
    uint8_t *cpu8 = to_srgb8(cpu, w, h), *gpu8 = to_srgb8(gpu, w, h);
    /* Another exposure and tonemap: the surface path applies them in CUDA, the others in GLSL. */
    const float exposure = 1.7f;
    const sr_tonemap op = SR_TONEMAP_ACES;
    uint8_t *gpu8_aces = malloc((size_t)pixels * 3u);
    assert_non_null(gpu8_aces);
    sr_image_to_srgb8(gpu, w, h, exposure, op, gpu8_aces);

    sr_error err = { SR_OK, "" };
    sr_backend be;
    check(sr_backend_create(SR_BACKEND_CUDA, 0, &be, NULL, 0, &err), &err);
    sr_renderer r;
    check(prepare(&r, &s, &be, &err), &err);
    char dir[1024];
    check(sr_display_find_shaders(NULL, dir, sizeof dir, &err), &err);
    sr_display d;
    check(sr_display_init(&d, dir, &err), &err);
    check(sr_display_resize(&d, w, h, NULL, 0, &err), &err);
    printf("GL: %s\n", d.gl_renderer);

    /* Every path on the same display, as SR_DISPLAY_PATH names them. Each must show the CUDA
     * film exactly as the C tonemap makes it, and so the CPU render (CPU and GPU renders are
     * bit-identical). */
    int n = 0;
    const sr_display_choice *choices = sr_display_choices(&n);
    int tested = 0, failed = 0;
    for (int k = 0; k < n; k++) {
        const int taken = use_choice(&d, &choices[k]);
        failed += taken < 0;
        if (taken <= 0) continue;
        tested++;
        char what[160];
        uint8_t *px = show(&d, &r, spp, w, h, 1.0f, SR_TONEMAP_CLAMP);
        snprintf(what, sizeof what, "%s path vs CUDA read_film + C tonemap", choices[k].name);
        expect_close(what, px, gpu8, pixels);
        snprintf(what, sizeof what, "%s path vs the CPU render", choices[k].name);
        expect_close(what, px, cpu8, pixels);
        free(px);
        px = show(&d, &r, spp, w, h, exposure, op);
        snprintf(what, sizeof what, "%s path, exposure 1.7 + aces, vs C", choices[k].name);
        expect_close(what, px, gpu8_aces, pixels);
        free(px);
        /* Display values in the texture (surface, external memory): a new exposure or
         * tonemap needs a new upload (the viewer asks before it draws); the other paths
         * tonemap while drawing. */
        const int encoded = choices[k].path == SR_DISPLAY_SURFACE || choices[k].path == SR_DISPLAY_EXTMEM;
        assert_false(sr_display_stale(&d, exposure, op));
        assert_int_equal(sr_display_stale(&d, 1.0f, op), encoded);
        assert_int_equal(sr_display_stale(&d, exposure, SR_TONEMAP_REINHARD), encoded);
    }
    assert_true(tested >= 4);   /* blit, draw, pbo, host at least */
    if (use_choice(&d, sr_display_choice_find("extmem-rows", NULL, 0)) > 0)
        assert_true(sr_display_draws_rows(&d));   /* NVIDIA's GL allows 2^27 texels */

    /* A framebuffer of another size than the film (a resize still pending in the viewer): the
     * blit stretches as the draw does, nearest texel, the film's top row at the top. 320
     * columns into 512 and 180 rows into 300: no pixel centre maps onto a texel edge, where
     * rounding could pick either texel. */
    const int fw = 512, fh = 300;
    uint8_t *first = NULL;
    const char *first_name = "";
    for (int k = 0; k < n; k++) {
        if (choices[k].path != SR_DISPLAY_SURFACE && choices[k].path != SR_DISPLAY_EXTMEM) continue;
        if (use_choice(&d, &choices[k]) <= 0) continue;
        uint8_t *px = show_at(&d, &r, spp, fw, fh);
        if (!first) {
            first = px;
            first_name = choices[k].name;
            continue;
        }
        char what[160];
        snprintf(what, sizeof what, "%s path stretched to %dx%d vs the %s path", choices[k].name, fw, fh, first_name);
        expect_close(what, px, first, (uint32_t)(fw * fh));
        free(px);
    }
    free(first);
    assert_int_equal(failed, 0);   /* every path the GL has the extensions for works */

    free(gpu8_aces); free(cpu8); free(gpu8); free(cpu); free(gpu);
    sr_display_free(&d);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    sr_scene_free(&s);
}

/* A resize keeps the path (the texture registered, or the memory shared, again at the new
 * size) and the image still arrives; a film of another size than the texture is refused. */
static void resize_keeps(sr_display_path path)
{
    sr_scene s;
    load_scene(&s, 96, 64, 2);
    float *gpu = sr_test_render(&s, SR_BACKEND_CUDA, SR_MASK_COMPACT, 0.5f, 1, NULL);
    assert_non_null(gpu);
    uint8_t *gpu8 = to_srgb8(gpu, s.width, s.height);
    sr_error err = { SR_OK, "" };
    sr_backend be;
    check(sr_backend_create(SR_BACKEND_CUDA, 0, &be, NULL, 0, &err), &err);
    sr_renderer r;
    check(prepare(&r, &s, &be, &err), &err);
    char dir[1024], note[1024], what[128];
    check(sr_display_find_shaders(NULL, dir, sizeof dir, &err), &err);
    sr_display d;
    check(sr_display_init(&d, dir, &err), &err);
    check(sr_display_resize(&d, 40, 30, NULL, 0, &err), &err);
    use_path(&d, path);
    check(sr_display_resize(&d, s.width, s.height, note, sizeof note, &err), &err);
    if (d.path != path) fprintf(stderr, "resize: %s\n", note);
    assert_int_equal(d.path, path);
    uint8_t *px = show(&d, &r, 2, s.width, s.height, 1.0f, SR_TONEMAP_CLAMP);
    snprintf(what, sizeof what, "%s path after a resize vs C", sr_display_path_name(path));
    expect_close(what, px, gpu8, s.width * s.height);
    /* A texture of another size than the film is refused, not written past its edge. */
    check(sr_display_resize(&d, 40, 30, note, sizeof note, &err), &err);
    assert_int_equal(d.path, path);
    assert_int_equal(sr_display_upload(&d, &r, 1.0f, 1.0f, SR_TONEMAP_CLAMP, &err), SR_ERR_RUNTIME);
    printf("%s path, 40x30 texture, 96x64 film: %s\n", sr_display_path_name(path), err.msg);
    assert_non_null(strstr(err.msg, "40x30"));
    check(r.be->ops->finish(r.be->impl, &err), &err);   /* nothing was left broken */
    free(px); free(gpu8); free(gpu);
    sr_display_free(&d);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    sr_scene_free(&s);
}

static void test_interop_resize(void **state)
{
    (void)state;
    resize_keeps(SR_DISPLAY_SURFACE);
    char why[512];
    if (sr_display_extmem_supported(why, sizeof why)) resize_keeps(SR_DISPLAY_EXTMEM);
    else printf("note: external-memory resize not tested: %s\n", why);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

enum { SR_COST_FRAMES = 30 };

/* One frame as the viewer makes it: seconds of render, and of display (upload + draw, waited
 * for once at the end, as a frame is). */
static void frame(sr_display *d, sr_renderer *r, uint32_t sample, double *t_render, double *t_show)
{
    sr_error err = { SR_OK, "" };
    double t0 = sr_now();
    check(sr_render_sample(r, &scene_frame, sample, NULL, &err), &err);
    check(r->be->ops->finish(r->be->impl, &err), &err);
    double t1 = sr_now();
    check(sr_display_upload(d, r, 1.0f / (float)(sample + 1), 1.0f, SR_TONEMAP_CLAMP, &err), &err);
    check(sr_display_draw(d, SR_PB_W, SR_PB_H, 1.0f, SR_TONEMAP_CLAMP, &err), &err);
    glFinish();
    *t_render = t1 - t0;
    *t_show = sr_now() - t1;
}

/* Medians (ms) of the whole frame, its render and its display part. */
static void time_frames(sr_display *d, sr_renderer *r, double *render_ms, double *display_ms)
{
    enum { N = SR_COST_FRAMES };
    double rend[N], shw[N], tr, ts;
    sr_error err = { SR_OK, "" };
    check(sr_backend_clear_film(r->be, &err), &err);
    for (uint32_t k = 0; k < 3; k++) frame(d, r, k, &tr, &ts);   /* warm-up */
    for (int k = 0; k < N; k++) frame(d, r, 3u + (uint32_t)k, &rend[k], &shw[k]);
    *render_ms = 1e3 * median(rend, N);
    *display_ms = 1e3 * median(shw, N);
}

/* The display's cost as the viewer pays it, frames overlapping: SR_STEADY_FRAMES frames of
 * render + upload + draw queued back to back and waited for once at the end, against as many
 * frames of render alone; the difference per frame (ms). Each path keeps the waits it has
 * inside a frame (extmem: the CPU waits for the resolve before GL reads). */
enum { SR_STEADY_FRAMES = 120 };
static double time_steady(sr_display *d, sr_renderer *r)
{
    sr_error err = { SR_OK, "" };
    double best[2] = { 1e30, 1e30 };
    for (int round = 0; round < 3; round++) {   /* the best of three rounds each */
        for (int with_display = 1; with_display >= 0; with_display--) {
            check(sr_backend_clear_film(r->be, &err), &err);
            double t0 = 0.0;
            for (uint32_t k = 0; k < 4u + SR_STEADY_FRAMES; k++) {
                if (k == 4u) {   /* after a warm-up */
                    check(r->be->ops->finish(r->be->impl, &err), &err);
                    glFinish();
                    t0 = sr_now();
                }
                check(sr_render_sample(r, &scene_frame, k, NULL, &err), &err);
                if (!with_display) continue;
                check(sr_display_upload(d, r, 1.0f / (float)(k + 1u), 1.0f, SR_TONEMAP_CLAMP, &err), &err);
                check(sr_display_draw(d, SR_PB_W, SR_PB_H, 1.0f, SR_TONEMAP_CLAMP, &err), &err);
            }
            check(r->be->ops->finish(r->be->impl, &err), &err);
            glFinish();
            const double t = (sr_now() - t0) / SR_STEADY_FRAMES;
            if (t < best[with_display]) best[with_display] = t;
        }
    }
    return 1e3 * (best[1] - best[0]);
}

/* Where the display's time goes, each part waited for on its own (so the parts add up to a
 * little more than the total, which overlaps them): the CUDA side (map, resolve, unmap; on
 * the external-memory path the resolve into the shared rows; on the host path read_film into
 * host memory), the GL texture update (none on the surface path: the kernel wrote the
 * texture), and the draw or blit. Medians in ms. */
static void time_parts(sr_display *d, sr_renderer *r, double *cuda_ms, double *update_ms, double *draw_ms)
{
    enum { N = SR_COST_FRAMES };
    double cuda[N], update[N], draw[N];
    sr_error err = { SR_OK, "" };
    float *host = NULL;
    if (d->path == SR_DISPLAY_HOST) {
        host = malloc(sizeof(float) * 3u * SR_PB_W * SR_PB_H);
        assert_non_null(host);
    }
    for (int k = 0; k < N; k++) {
        double t0 = sr_now();
        if (d->path == SR_DISPLAY_SURFACE) {
            check(sr_display_upload(d, r, 1.0f, 1.0f, SR_TONEMAP_CLAMP, &err), &err);
            check(r->be->ops->finish(r->be->impl, &err), &err);   /* map, kernel, unmap: all on its stream */
        } else if (d->path == SR_DISPLAY_EXTMEM) {   /* GL's last copy has passed: glFinish below */
            check(r->be->ops->resolve_display_rows(r->be->impl, sr_shared_mem_ptr(d->shared), d->width, d->height, 1.0f,
                                                   1.0f, (int)SR_TONEMAP_CLAMP, &err), &err);
            check(r->be->ops->finish(r->be->impl, &err), &err);
        } else if (d->path == SR_DISPLAY_PIXEL_BUFFER) {
            void *ptr = NULL;
            size_t bytes = 0;
            check(sr_interop_map(d->interop, &ptr, &bytes, &err), &err);
            check(sr_backend_resolve_film(r->be, (float *)ptr, 1.0f, &err), &err);
            check(r->be->ops->finish(r->be->impl, &err), &err);
            check(sr_interop_unmap(d->interop, &err), &err);
        } else {
            check(sr_backend_read_film(r->be, host, 1.0f, &err), &err);
        }
        double t1 = sr_now();
        if (d->path == SR_DISPLAY_EXTMEM) {
            check(sr_display_extmem_copy(d, &err), &err);
            glFinish();
        } else if (d->path != SR_DISPLAY_SURFACE) {
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, d->path == SR_DISPLAY_HOST ? 0 : d->pbo);
            glBindTexture(GL_TEXTURE_2D, d->tex);
            glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
            glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)d->width, (GLsizei)d->height, GL_RGB, GL_FLOAT,
                            d->path == SR_DISPLAY_HOST ? (const void *)host : (const void *)0);
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
            glBindTexture(GL_TEXTURE_2D, 0);
            glFinish();
        }
        double t2 = sr_now();
        check(sr_display_draw(d, SR_PB_W, SR_PB_H, 1.0f, SR_TONEMAP_CLAMP, &err), &err);
        glFinish();
        double t3 = sr_now();
        cuda[k] = t1 - t0;
        update[k] = t2 - t1;
        draw[k] = t3 - t2;
    }
    assert_int_equal(glGetError(), GL_NO_ERROR);
    free(host);
    *cuda_ms = 1e3 * median(cuda, N);
    *update_ms = 1e3 * median(update, N);
    *draw_ms = 1e3 * median(draw, N);
}

/* The display's cost per 1920x1080 frame on each path, printed for docs/viewer.md (no
 * thresholds: timings depend on the machine). One "display cost" line per path. */
static void test_interop_cost_1080p(void **state)
{
    (void)state;
    sr_scene s;
    load_scene(&s, SR_PB_W, SR_PB_H, 1000);   /* spp > 1: jittered, as in the viewer */
    sr_error err = { SR_OK, "" };
    sr_backend be;
    check(sr_backend_create(SR_BACKEND_CUDA, 0, &be, NULL, 0, &err), &err);
    sr_renderer r;
    check(prepare(&r, &s, &be, &err), &err);
    char dir[1024], note[1024];
    check(sr_display_find_shaders(NULL, dir, sizeof dir, &err), &err);
    sr_display d;
    check(sr_display_init(&d, dir, &err), &err);
    /* Set up at a small size first, so that the resize below registers the texture again. */
    check(sr_display_resize(&d, 64, 64, NULL, 0, &err), &err);
    use_path(&d, SR_DISPLAY_SURFACE);
    check(sr_display_resize(&d, SR_PB_W, SR_PB_H, note, sizeof note, &err), &err);
    if (d.path != SR_DISPLAY_SURFACE) fprintf(stderr, "resize: %s\n", note);
    assert_int_equal(d.path, SR_DISPLAY_SURFACE);
    printf("%s, %s, default.json %ux%u, depth %u, mask compact, 1 spp per frame, medians of %d frames\n",
           be.device_name, d.gl_renderer, s.width, s.height, s.max_depth, SR_COST_FRAMES);
    printf("display cost, ms per frame: cuda = map+resolve+unmap (extmem: resolve into the shared rows; host: read_film "
           "to host memory), update = GL copy into the texture, draw = the fullscreen draw or blit, each waited for on its "
           "own; total = upload+draw waited for once (the frame's display part, which the target is about); draw(GPU) = "
           "the GL timer query of the frame's GL work (extmem: copy + draw); steady = frames queued back to back, render + "
           "display against render alone, the difference per frame (best of 3 rounds of %d frames)\n", SR_STEADY_FRAMES);
    static const char *const labels[][2] = {
        { "extmem", "extmem (shared memory, no map; GL copy, blit)" },
        { "blit", "blit (surface: map, kernel, unmap; blit)" },
        { "draw", "draw (surface: map, kernel, unmap; shader draw)" },
        { "extmem-draw", "extmem-draw (shared memory; GL copy, shader draw)" },
        { "extmem-rows", "extmem-rows (shared memory; drawn from it, no copy)" },
        { "pbo", "pbo (old: PBO, RGB32F copy, shader tonemap)" },
        { "host", "host (fallback: read_film, glTexSubImage2D)" },
    };
    int n = 0;
    const sr_display_choice *choices = sr_display_choices(&n);
    for (int k = 0; k < n; k++) {
        const char *label = choices[k].name;
        for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
            if (!strcmp(labels[i][0], choices[k].name)) label = labels[i][1];
        if (use_choice(&d, &choices[k]) <= 0) {
            printf("display cost %-52s not measured (above)\n", label);
            continue;
        }
        double render_ms, total_ms, cuda_ms, update_ms, draw_ms;
        time_frames(&d, &r, &render_ms, &total_ms);
        const double gl_ms = sr_display_draw_ms(&d);   /* whole frames: the copy and the draw or blit */
        time_parts(&d, &r, &cuda_ms, &update_ms, &draw_ms);
        const double steady_ms = time_steady(&d, &r);
        char update[32];
        if (choices[k].path == SR_DISPLAY_SURFACE || sr_display_draws_rows(&d)) snprintf(update, sizeof update, "none ");
        else snprintf(update, sizeof update, "%.3f", update_ms);
        printf("display cost %-52s cuda %.3f | update %s | draw %.3f | total %.3f ms/frame | draw(GPU) %.3f | "
               "steady %.3f | render %.3f\n", label, cuda_ms, update, draw_ms, total_ms, gl_ms, steady_ms, render_ms);
        assert_true(total_ms > 0.0 && draw_ms > 0.0);
    }

    sr_display_free(&d);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    sr_scene_free(&s);
}
#endif /* SR_HAVE_EGL && SR_HAVE_VIEWER */

int main(int argc, char **argv)
{
    const int skip = sr_test_gpu_start(argc, argv);
    if (skip) return skip;
#if !defined(SR_HAVE_EGL) || !defined(SR_HAVE_VIEWER)
    printf("skipped: built without EGL (Debian: apt-get install libegl-dev, then configure again)\n");
    return 77;
#else
    char why[1024];
    if (!sr_test_egl_context(SR_PB_W, SR_PB_H, why, sizeof why)) {
        printf("skipped: %s\n", why);
        return 77;
    }
    sr_error err = { SR_OK, "" };
    if (sr_display_gl_load(&err)) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interop_matches_render),
        cmocka_unit_test(test_interop_resize),
        cmocka_unit_test(test_interop_cost_1080p),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    sr_test_egl_end();
    return failed;
#endif
}
