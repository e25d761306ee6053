/* CUDA-OpenGL interop without a window: an EGL pbuffer context on the GPU (EGL_PLATFORM_DEVICE_EXT,
 * desktop GL 3.3 core), the display module fed by the CUDA backend on each of its paths (a
 * kernel writing the GL texture through a surface, the mapped pixel buffer, host memory), read
 * back with glReadPixels and compared with the C tonemap of the CUDA film and with the CPU
 * render, within 2 codes per channel. Then each path's per-frame display cost at 1920x1080
 * (medians of 30 frames), printed, not asserted.
 * Exits 77 (skipped) without a CUDA device, without EGL, or when no EGL device gives a context. */
#include "testutil.h"
#include "display.h"
#include "image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(SR_HAVE_EGL) && defined(SR_HAVE_VIEWER)
#define EGL_NO_X11 1   /* eglplatform.h: plain pointers, no Xlib */
#include <GL/glew.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>

#define SR_PB_W 1920
#define SR_PB_H 1080

static EGLDisplay sr_dpy = EGL_NO_DISPLAY;

/* A core 3.3 context on the first EGL device that gives one, current on a 1920x1080 pbuffer. */
static int egl_context(char *why, size_t cap)
{
    PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!query_devices || !platform_display) {
        snprintf(why, cap, "EGL has no eglQueryDevicesEXT / eglGetPlatformDisplayEXT (EGL_EXT_device_enumeration)");
        return 0;
    }
    EGLDeviceEXT devices[16];
    EGLint count = 0;
    if (!query_devices(16, devices, &count) || count == 0) {
        snprintf(why, cap, "eglQueryDevicesEXT found no EGL device (error 0x%x)", eglGetError());
        return 0;
    }
    static const EGLint config_attrs[] = { EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                                           EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE };
    static const EGLint pbuffer_attrs[] = { EGL_WIDTH, SR_PB_W, EGL_HEIGHT, SR_PB_H, EGL_NONE };
    static const EGLint context_attrs[] = { EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE };
    snprintf(why, cap, "no EGL device gave an OpenGL 3.3 core context");
    for (EGLint i = 0; i < count; i++) {
        EGLDisplay dpy = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
        EGLint major = 0, minor = 0;
        if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) continue;
        EGLConfig config;
        EGLint n = 0;
        EGLSurface surface = EGL_NO_SURFACE;
        EGLContext ctx = EGL_NO_CONTEXT;
        if (eglChooseConfig(dpy, config_attrs, &config, 1, &n) && n == 1 &&
            (surface = eglCreatePbufferSurface(dpy, config, pbuffer_attrs)) != EGL_NO_SURFACE && eglBindAPI(EGL_OPENGL_API) &&
            (ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attrs)) != EGL_NO_CONTEXT &&
            eglMakeCurrent(dpy, surface, surface, ctx)) {
            sr_dpy = dpy;
            printf("EGL %d.%d, device %d of %d\n", major, minor, (int)i, (int)count);
            return 1;
        }
        snprintf(why, cap, "EGL device %d: no pbuffer + GL 3.3 core context (EGL error 0x%x)", (int)i, eglGetError());
        eglTerminate(dpy);
    }
    return 0;
}

static void load_scene(sr_scene *s, uint32_t w, uint32_t h, uint32_t spp)
{
    sr_test_load_shipped("scenes/default.json", s);
    s->width = w;
    s->height = h;
    s->spp = spp;
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

/* Render spp samples on be into r's film, show it through d and read the screen back. */
static uint8_t *show(sr_display *d, sr_renderer *r, uint32_t spp, uint32_t w, uint32_t h, float exposure, sr_tonemap op)
{
    sr_error err = { SR_OK, "" };
    sr_render_opts o;
    sr_render_opts_default(&o);
    check(sr_backend_clear_film(r->be, &err), &err);
    for (uint32_t i = 0; i < spp; i++) check(sr_render_sample(r, &o, i, NULL, &err), &err);
    check(sr_display_upload(d, r->be, 1.0f / (float)spp, exposure, op, &err), &err);
    check(sr_display_draw(d, (int)w, (int)h, exposure, op, &err), &err);
    glFinish();
    uint8_t *px = malloc((size_t)w * h * 3u);
    assert_non_null(px);
    check(sr_display_read_rgb8((int)w, (int)h, px, &err), &err);
    return px;
}

/* Switch d to `want` and insist on getting it: a silent fallback would test the wrong path. */
static void use_path(sr_display *d, sr_display_path want)
{
    char why[1024];
    sr_display_path got = sr_display_enable_interop(d, 0, want, why, sizeof why);
    if (got != want) fprintf(stderr, "wanted the %s path, got %s: %s\n", sr_display_path_name(want), sr_display_path_name(got), why);
    assert_int_equal(got, want);
    assert_int_equal(d->path, want);
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
    check(sr_renderer_init(&r, &s, &be, &err), &err);
    char dir[1024];
    check(sr_display_find_shaders(NULL, dir, sizeof dir, &err), &err);
    sr_display d;
    check(sr_display_init(&d, dir, &err), &err);
    check(sr_display_resize(&d, w, h, NULL, 0, &err), &err);
    printf("GL: %s\n", d.gl_renderer);

    /* All three paths on the same display: host (read_film -> glTexSubImage2D), the pixel
     * buffer, then the surface path (the viewer's default). */
    const sr_display_path paths[3] = { SR_DISPLAY_HOST, SR_DISPLAY_PIXEL_BUFFER, SR_DISPLAY_SURFACE };
    uint8_t *shown[3];
    for (int k = 0; k < 3; k++) {
        use_path(&d, paths[k]);
        char what[160];
        shown[k] = show(&d, &r, spp, w, h, 1.0f, SR_TONEMAP_CLAMP);
        snprintf(what, sizeof what, "%s path vs CUDA read_film + C tonemap", sr_display_path_name(paths[k]));
        expect_close(what, shown[k], gpu8, pixels);
        uint8_t *px = show(&d, &r, spp, w, h, exposure, op);
        snprintf(what, sizeof what, "%s path, exposure 1.7 + aces, vs C", sr_display_path_name(paths[k]));
        expect_close(what, px, gpu8_aces, pixels);
        free(px);
    }
    /* The surface path's texture holds display values: a new exposure or tonemap needs a new
     * upload (the viewer asks before it draws); the other paths tonemap while drawing. */
    assert_false(sr_display_stale(&d, exposure, op));
    assert_true(sr_display_stale(&d, 1.0f, op));
    assert_true(sr_display_stale(&d, exposure, SR_TONEMAP_REINHARD));
    use_path(&d, SR_DISPLAY_PIXEL_BUFFER);
    assert_false(sr_display_stale(&d, 1.0f, op));

    /* CPU and GPU may part at a few glass pixels where rounding flips reflect/refract
     * (as in test_gpu_match); a broken upload would be wrong everywhere. */
    int worst;
    uint32_t bad = bad_pixels(shown[2], cpu8, pixels, &worst);
    printf("surface path vs CPU render: %u of %u pixels off by > 2, max |diff| %d\n", bad, pixels, worst);
    assert_true(bad <= 8);

    for (int k = 0; k < 3; k++) free(shown[k]);
    free(gpu8_aces); free(cpu8); free(gpu8); free(cpu); free(gpu);
    sr_display_free(&d);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    sr_scene_free(&s);
}

/* A resize keeps the surface path (the texture is registered again at the new size) and the
 * image still arrives. */
static void test_interop_resize(void **state)
{
    (void)state;
    sr_scene s;
    load_scene(&s, 96, 64, 2);
    float *gpu = sr_test_render(&s, SR_BACKEND_CUDA, SR_MASK_COMPACT, 0.5f, 1, NULL);
    assert_non_null(gpu);
    uint8_t *gpu8 = to_srgb8(gpu, s.width, s.height);
    sr_error err = { SR_OK, "" };
    sr_backend be;
    check(sr_backend_create(SR_BACKEND_CUDA, 0, &be, NULL, 0, &err), &err);
    sr_renderer r;
    check(sr_renderer_init(&r, &s, &be, &err), &err);
    char dir[1024], note[1024];
    check(sr_display_find_shaders(NULL, dir, sizeof dir, &err), &err);
    sr_display d;
    check(sr_display_init(&d, dir, &err), &err);
    check(sr_display_resize(&d, 40, 30, NULL, 0, &err), &err);
    use_path(&d, SR_DISPLAY_SURFACE);
    check(sr_display_resize(&d, s.width, s.height, note, sizeof note, &err), &err);
    if (d.path != SR_DISPLAY_SURFACE) fprintf(stderr, "resize: %s\n", note);
    assert_int_equal(d.path, SR_DISPLAY_SURFACE);
    uint8_t *px = show(&d, &r, 2, s.width, s.height, 1.0f, SR_TONEMAP_CLAMP);
    expect_close("surface path after a resize vs C", px, gpu8, s.width * s.height);
    /* A texture of another size than the film is refused, not written past its edge. */
    check(sr_display_resize(&d, 40, 30, note, sizeof note, &err), &err);
    assert_int_equal(d.path, SR_DISPLAY_SURFACE);
    assert_int_equal(sr_display_upload(&d, r.be, 1.0f, 1.0f, SR_TONEMAP_CLAMP, &err), SR_ERR_RUNTIME);
    printf("40x30 texture, 96x64 film: %s\n", err.msg);
    assert_non_null(strstr(err.msg, "40x30"));
    check(r.be->ops->finish(r.be->impl, &err), &err);   /* nothing was left broken */
    free(px); free(gpu8); free(gpu);
    sr_display_free(&d);
    sr_renderer_free(&r);
    sr_backend_destroy(&be);
    sr_scene_free(&s);
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
    sr_render_opts o;
    sr_render_opts_default(&o);
    double t0 = sr_now();
    check(sr_render_sample(r, &o, sample, NULL, &err), &err);
    check(r->be->ops->finish(r->be->impl, &err), &err);
    double t1 = sr_now();
    check(sr_display_upload(d, r->be, 1.0f / (float)(sample + 1), 1.0f, SR_TONEMAP_CLAMP, &err), &err);
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

/* Where the display's time goes, each part waited for on its own (so the parts add up to a
 * little more than the total, which overlaps them): the CUDA side (map, resolve, unmap; on
 * the host path read_film into host memory), the GL texture update (none on the surface
 * path: the kernel wrote the texture), and the draw. Medians in ms. */
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
            check(sr_display_upload(d, r->be, 1.0f, 1.0f, SR_TONEMAP_CLAMP, &err), &err);
            check(r->be->ops->finish(r->be->impl, &err), &err);   /* map, kernel, unmap: all on its stream */
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
        if (d->path != SR_DISPLAY_SURFACE) {
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

/* The display's cost per 1920x1080 frame on each path, printed for the README (no
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
    check(sr_renderer_init(&r, &s, &be, &err), &err);
    char dir[1024], note[1024];
    check(sr_display_find_shaders(NULL, dir, sizeof dir, &err), &err);
    sr_display d;
    check(sr_display_init(&d, dir, &err), &err);
    /* Register at a small size first, so that the resize below registers the texture again. */
    check(sr_display_resize(&d, 64, 64, NULL, 0, &err), &err);
    use_path(&d, SR_DISPLAY_SURFACE);
    check(sr_display_resize(&d, SR_PB_W, SR_PB_H, note, sizeof note, &err), &err);
    if (d.path != SR_DISPLAY_SURFACE) fprintf(stderr, "resize: %s\n", note);
    assert_int_equal(d.path, SR_DISPLAY_SURFACE);
    printf("%s, %s, default.json %ux%u, depth %u, mask compact, 1 spp per frame, medians of %d frames\n",
           be.device_name, d.gl_renderer, s.width, s.height, s.max_depth, SR_COST_FRAMES);
    printf("display cost, ms per frame: cuda = map+resolve+unmap (host: read_film to host memory), update = GL copy into "
           "the texture, draw = the fullscreen draw, each waited for on its own; total = upload+draw waited for once "
           "(the frame's display part, which the target is about); draw(GPU) = the GL timer query of the draw\n");
    const struct { sr_display_path path; const char *label; } runs[3] = {
        { SR_DISPLAY_SURFACE, "surface (new: kernel tonemaps into the RGBA8 texture)" },
        { SR_DISPLAY_PIXEL_BUFFER, "pixel buffer (old: PBO, RGB32F copy, shader tonemap)" },
        { SR_DISPLAY_HOST, "host copy (fallback: read_film, glTexSubImage2D)" },
    };
    for (int k = 0; k < 3; k++) {
        use_path(&d, runs[k].path);
        double render_ms, total_ms, cuda_ms, update_ms, draw_ms;
        time_frames(&d, &r, &render_ms, &total_ms);
        time_parts(&d, &r, &cuda_ms, &update_ms, &draw_ms);
        char update[32];
        if (runs[k].path == SR_DISPLAY_SURFACE) snprintf(update, sizeof update, "none ");
        else snprintf(update, sizeof update, "%.3f", update_ms);
        printf("display cost %-54s cuda %.3f | update %s | draw %.3f | total %.3f ms/frame | draw(GPU) %.3f | "
               "render %.3f\n", runs[k].label, cuda_ms, update, draw_ms, total_ms, sr_display_draw_ms(&d), render_ms);
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
    if (!egl_context(why, sizeof why)) {
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
    eglTerminate(sr_dpy);
    return failed;
#endif
}
