/* CUDA-OpenGL interop without a window: an EGL pbuffer context on the GPU (EGL_PLATFORM_DEVICE_EXT,
 * desktop GL 3.3 core), the display module fed by the CUDA backend through the mapped pixel
 * buffer, read back with glReadPixels and compared with the CPU render and with the CUDA
 * read_film (host) path, within 2 codes per channel. Then the per-frame cost of
 * render + map + resolve + unmap + upload + draw at 1920x1080 (median of 30 frames).
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
static uint8_t *show(sr_display *d, sr_renderer *r, uint32_t spp, uint32_t w, uint32_t h)
{
    sr_error err = { SR_OK, "" };
    sr_render_opts o;
    sr_render_opts_default(&o);
    check(r->be->ops->clear_film(r->be->impl, &err), &err);
    for (uint32_t i = 0; i < spp; i++) check(sr_render_sample(r, &o, i, NULL, &err), &err);
    check(sr_display_upload(d, r->be, 1.0f / (float)spp, &err), &err);
    check(sr_display_draw(d, (int)w, (int)h, 1.0f, SR_TONEMAP_CLAMP, &err), &err);
    glFinish();
    uint8_t *px = malloc((size_t)w * h * 3u);
    assert_non_null(px);
    check(sr_display_read_rgb8((int)w, (int)h, px, &err), &err);
    return px;
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

    sr_error err = { SR_OK, "" };
    sr_backend be;
    check(sr_backend_create(SR_BACKEND_CUDA, 0, &be, NULL, 0, &err), &err);
    sr_renderer r;
    check(sr_renderer_init(&r, &s, &be, &err), &err);
    char dir[1024], why[1024];
    check(sr_display_find_shaders(NULL, dir, sizeof dir, &err), &err);
    sr_display d;
    check(sr_display_init(&d, dir, &err), &err);
    check(sr_display_resize(&d, w, h, NULL, 0, &err), &err);
    printf("GL: %s\n", d.gl_renderer);

    /* The host path first (read_film -> glTexSubImage2D), then interop on the same display. */
    uint8_t *host = show(&d, &r, spp, w, h);
    int ok = sr_display_enable_interop(&d, 0, why, sizeof why);
    if (!ok) fprintf(stderr, "interop: %s\n", why);
    assert_true(ok);
    uint8_t *mapped = show(&d, &r, spp, w, h);

    int worst;
    uint32_t bad = bad_pixels(mapped, gpu8, pixels, &worst);
    printf("interop vs CUDA read_film + C tonemap: %u of %u pixels off by > 2, max |diff| %d\n", bad, pixels, worst);
    assert_int_equal(bad, 0);
    bad = bad_pixels(host, gpu8, pixels, &worst);
    printf("host path vs CUDA read_film + C tonemap: %u of %u pixels off by > 2, max |diff| %d\n", bad, pixels, worst);
    assert_int_equal(bad, 0);
    /* CPU and GPU may part at a few glass pixels where rounding flips reflect/refract
     * (as in test_gpu_match); a broken upload would be wrong everywhere. */
    bad = bad_pixels(mapped, cpu8, pixels, &worst);
    printf("interop vs CPU render: %u of %u pixels off by > 2, max |diff| %d\n", bad, pixels, worst);
    assert_true(bad <= 8);

    free(host); free(mapped); free(cpu8); free(gpu8); free(cpu); free(gpu);
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

/* One frame as the viewer makes it; returns seconds of render, of display, and of both. */
static void frame(sr_display *d, sr_renderer *r, uint32_t sample, double *t_render, double *t_show)
{
    sr_error err = { SR_OK, "" };
    sr_render_opts o;
    sr_render_opts_default(&o);
    double t0 = sr_now();
    check(sr_render_sample(r, &o, sample, NULL, &err), &err);
    check(r->be->ops->finish(r->be->impl, &err), &err);
    double t1 = sr_now();
    check(sr_display_upload(d, r->be, 1.0f / (float)(sample + 1), &err), &err);
    check(sr_display_draw(d, SR_PB_W, SR_PB_H, 1.0f, SR_TONEMAP_CLAMP, &err), &err);
    glFinish();
    *t_render = t1 - t0;
    *t_show = sr_now() - t1;
}

static void time_path(const char *label, sr_display *d, sr_renderer *r)
{
    enum { N = 30 };
    double rend[N], shw[N], all[N], tr, ts;
    sr_error err = { SR_OK, "" };
    check(r->be->ops->clear_film(r->be->impl, &err), &err);
    for (uint32_t k = 0; k < 3; k++) frame(d, r, k, &tr, &ts);   /* warm-up */
    for (int k = 0; k < N; k++) {
        frame(d, r, 3u + (uint32_t)k, &rend[k], &shw[k]);
        all[k] = rend[k] + shw[k];
    }
    printf("%-44s median %.3f ms/frame = render %.3f ms + display %.3f ms (%d frames, %.1f FPS)\n", label,
           1e3 * median(all, N), 1e3 * median(rend, N), 1e3 * median(shw, N), N, 1.0 / median(all, N));
}

/* Where the display's time goes on the interop path: the CUDA side (map, resolve into the
 * buffer, unmap), the GL copy PBO -> texture, and the draw; each waited for on its own. */
static void time_parts(sr_display *d, sr_renderer *r)
{
    enum { N = 30 };
    double cuda[N], copy[N], draw[N];
    sr_error err = { SR_OK, "" };
    for (int k = 0; k < N; k++) {
        double t0 = sr_now();
        void *ptr = NULL;
        size_t bytes = 0;
        check(sr_interop_map(d->interop, &ptr, &bytes, &err), &err);
        check(r->be->ops->resolve_device(r->be->impl, (float *)ptr, 1.0f, &err), &err);
        check(r->be->ops->finish(r->be->impl, &err), &err);
        check(sr_interop_unmap(d->interop, &err), &err);
        double t1 = sr_now();
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, d->pbo);
        glBindTexture(GL_TEXTURE_2D, d->tex);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)d->width, (GLsizei)d->height, GL_RGB, GL_FLOAT, (const void *)0);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        glFinish();
        double t2 = sr_now();
        check(sr_display_draw(d, SR_PB_W, SR_PB_H, 1.0f, SR_TONEMAP_CLAMP, &err), &err);
        glFinish();
        double t3 = sr_now();
        cuda[k] = t1 - t0;
        copy[k] = t2 - t1;
        draw[k] = t3 - t2;
    }
    assert_int_equal(glGetError(), GL_NO_ERROR);
    printf("  interop display parts (medians): map+resolve+unmap %.3f ms, PBO->texture copy %.3f ms, draw %.3f ms\n",
           1e3 * median(cuda, N), 1e3 * median(copy, N), 1e3 * median(draw, N));
}

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
    char dir[1024], why[1024], note[1024];
    check(sr_display_find_shaders(NULL, dir, sizeof dir, &err), &err);
    sr_display d;
    check(sr_display_init(&d, dir, &err), &err);
    /* Register at a small size first, so that the resize below re-registers the buffer. */
    check(sr_display_resize(&d, 64, 64, NULL, 0, &err), &err);
    int ok = sr_display_enable_interop(&d, 0, why, sizeof why);
    if (!ok) fprintf(stderr, "interop: %s\n", why);
    assert_true(ok);
    check(sr_display_resize(&d, SR_PB_W, SR_PB_H, note, sizeof note, &err), &err);
    if (!d.interop) fprintf(stderr, "resize: %s\n", note);
    assert_non_null(d.interop);
    printf("%s, %s, default.json %ux%u, depth %u, mask compact, 1 spp per frame\n", be.device_name, d.gl_renderer,
           s.width, s.height, s.max_depth);
    time_path("interop (map, resolve, unmap, PBO->texture):", &d, &r);
    time_parts(&d, &r);

    /* The same through host memory, for comparison: the fallback's cost. */
    sr_display h;
    check(sr_display_init(&h, dir, &err), &err);
    check(sr_display_resize(&h, SR_PB_W, SR_PB_H, NULL, 0, &err), &err);
    time_path("host copy (read_film, glTexSubImage2D):", &h, &r);

    sr_display_free(&h);
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
        cmocka_unit_test(test_interop_cost_1080p),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    eglTerminate(sr_dpy);
    return failed;
#endif
}
