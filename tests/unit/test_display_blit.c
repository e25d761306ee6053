/* The display's blit against its shader draw, in software OpenGL (Mesa through EGL, no GPU):
 * an RGBA8 texture of display values, laid out as the CUDA kernel leaves it on the surface
 * path (row 0 = the film's top), reaches the framebuffer the same both ways: film row 0 at the
 * top, every texel as it is, and stretched to a framebuffer of another size by the same nearest
 * texel; and the shader reading the same texels as rows from a buffer (extmem-rows). The texture
 * and the rows are filled from host memory here (the CUDA side is test_gpu_interop's).
 * Exits 77 (skipped) without EGL or when no EGL device gives a GL 3.3 core context. */
#include "testutil.h"
#include "../../src/viewer/display.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(SR_HAVE_EGL) && defined(SR_HAVE_VIEWER)
#include <GL/glew.h>
#include "egl_context.h"

enum { FILM_W = 320, FILM_H = 180, PB_W = 640, PB_H = 400 };

/* Texel (x, y) of the film, y = 0 at the top: neighbours differ in every channel. */
static void texel(int x, int y, uint8_t *rgba)
{
    rgba[0] = (uint8_t)(x * 7 + y * 3);
    rgba[1] = (uint8_t)((x * 11) ^ (y * 5));
    rgba[2] = (uint8_t)(x + y * 13);
    rgba[3] = 255;
}

static void check(sr_status st, const sr_error *err)
{
    if (st) fprintf(stderr, "%s\n", err->msg);
    assert_int_equal(st, SR_OK);
}

/* A display on the surface path with the pattern in its RGBA8 texture, as a CUDA resolve
 * would leave it (the registration itself needs CUDA, so the texture is made here). */
static void display_with_pattern(sr_display *d)
{
    sr_error err = { SR_OK, "" };
    char dir[1024];
    check(sr_display_find_shaders(NULL, dir, sizeof dir, &err), &err);
    check(sr_display_init(d, dir, &err), &err);
    check(sr_display_resize(d, FILM_W, FILM_H, NULL, 0, &err), &err);
    uint8_t *rgba = malloc(4u * FILM_W * FILM_H);
    assert_non_null(rgba);
    for (int y = 0; y < FILM_H; y++)
        for (int x = 0; x < FILM_W; x++) texel(x, y, rgba + 4u * ((size_t)y * FILM_W + x));
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, FILM_W, FILM_H, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glBindTexture(GL_TEXTURE_2D, 0);
    free(rgba);
    assert_int_equal(glGetError(), GL_NO_ERROR);
    d->tex8 = t;   /* freed by sr_display_free */
    d->path = SR_DISPLAY_SURFACE;
}

/* Show the texture in a w x h framebuffer (over magenta) and read it back, row 0 = top. */
static uint8_t *shown(sr_display *d, sr_display_present present, int w, int h)
{
    sr_error err = { SR_OK, "" };
    sr_display_set_present(d, present);
    assert_int_equal(sr_display_blits(d), present == SR_PRESENT_BLIT);
    glClearColor(1.0f, 0.0f, 1.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    check(sr_display_draw(d, w, h, 1.0f, SR_TONEMAP_CLAMP, &err), &err);
    GLint read_fb = -1;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fb);
    assert_int_equal(read_fb, 0);   /* the screenshot key reads the window, not the texture */
    glFinish();
    uint8_t *px = malloc((size_t)w * h * 3u);
    assert_non_null(px);
    check(sr_display_read_rgb8(w, h, px, &err), &err);
    return px;
}

static uint32_t differing(const uint8_t *a, const uint8_t *b, int pixels)
{
    uint32_t n = 0;
    for (int i = 0; i < pixels; i++) n += memcmp(a + 3 * i, b + 3 * i, 3) != 0;
    return n;
}

static void test_blit_matches_draw_at_film_size(void **state)
{
    (void)state;
    sr_display d;
    display_with_pattern(&d);
    uint8_t *drawn = shown(&d, SR_PRESENT_DRAW, FILM_W, FILM_H);
    uint8_t *blitted = shown(&d, SR_PRESENT_BLIT, FILM_W, FILM_H);
    uint32_t off_draw = 0, off_blit = 0;
    for (int y = 0; y < FILM_H; y++)
        for (int x = 0; x < FILM_W; x++) {
            uint8_t want[4];
            texel(x, y, want);
            const size_t i = 3u * ((size_t)y * FILM_W + x);
            off_draw += memcmp(drawn + i, want, 3) != 0;
            off_blit += memcmp(blitted + i, want, 3) != 0;
        }
    printf("%s: film size, pixels unlike the texture: draw %u, blit %u of %d\n", d.gl_renderer, off_draw, off_blit,
           FILM_W * FILM_H);
    assert_int_equal(off_draw, 0);
    assert_int_equal(off_blit, 0);
    free(drawn);
    free(blitted);
    sr_display_free(&d);
}

/* 320 columns into 512 and 180 rows into 300: no pixel centre maps onto a texel edge, where
 * the two ways could round to different texels. */
static void test_blit_stretches_as_draw(void **state)
{
    (void)state;
    sr_display d;
    display_with_pattern(&d);
    const int w = 512, h = 300;
    uint8_t *drawn = shown(&d, SR_PRESENT_DRAW, w, h);
    uint8_t *blitted = shown(&d, SR_PRESENT_BLIT, w, h);
    const uint32_t off = differing(drawn, blitted, w * h);
    printf("stretched to %dx%d: %u of %d pixels differ between draw and blit\n", w, h, off, w * h);
    assert_int_equal(off, 0);
    uint8_t corner[4];   /* the film's top-left and bottom-right texels at the window's */
    texel(0, 0, corner);
    assert_memory_equal(blitted, corner, 3);
    texel(FILM_W - 1, FILM_H - 1, corner);
    assert_memory_equal(blitted + 3u * ((size_t)w * h - 1u), corner, 3);
    free(drawn);
    free(blitted);
    sr_display_free(&d);
}

/* The external-memory path drawn straight from the shared rows (extmem-rows): the shader reads
 * the same texels through a buffer texture. The rows live in a plain GL buffer here; on the
 * GPU it is memory CUDA shares (test_gpu_interop). */
static void test_rows_draw_as_texture(void **state)
{
    (void)state;
    sr_display d;
    display_with_pattern(&d);
    const int w = 512, h = 300;
    uint8_t *from_texture = shown(&d, SR_PRESENT_DRAW, w, h);
    uint8_t *rgba = malloc(4u * FILM_W * FILM_H);
    assert_non_null(rgba);
    for (int y = 0; y < FILM_H; y++)
        for (int x = 0; x < FILM_W; x++) texel(x, y, rgba + 4u * ((size_t)y * FILM_W + x));
    glGenBuffers(1, &d.shared_buf);
    glBindBuffer(GL_TEXTURE_BUFFER, d.shared_buf);
    glBufferData(GL_TEXTURE_BUFFER, 4 * FILM_W * FILM_H, rgba, GL_STATIC_DRAW);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    free(rgba);
    glGenTextures(1, &d.rows_tex);
    glBindTexture(GL_TEXTURE_BUFFER, d.rows_tex);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA8, d.shared_buf);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    assert_int_equal(glGetError(), GL_NO_ERROR);
    d.path = SR_DISPLAY_EXTMEM;   /* both freed by sr_display_free */
    sr_display_set_present(&d, SR_PRESENT_DRAW_ROWS);
    assert_true(sr_display_draws_rows(&d));
    uint8_t *from_rows = shown(&d, SR_PRESENT_DRAW_ROWS, w, h);
    const uint32_t off = differing(from_rows, from_texture, w * h);
    printf("rows drawn at %dx%d: %u of %d pixels differ from the texture drawn\n", w, h, off, w * h);
    assert_int_equal(off, 0);
    assert_non_null(d.shared_fence);   /* the draw read the rows: CUDA must wait for it */
    uint8_t *at_size = shown(&d, SR_PRESENT_DRAW_ROWS, FILM_W, FILM_H);
    uint8_t corner[4];
    texel(0, 0, corner);
    assert_memory_equal(at_size, corner, 3);
    texel(FILM_W - 1, FILM_H - 1, corner);
    assert_memory_equal(at_size + 3u * ((size_t)FILM_W * FILM_H - 1u), corner, 3);
    free(at_size);
    free(from_rows);
    free(from_texture);
    sr_display_free(&d);
}

/* The paths that do not hold display values never blit: their shader tonemaps. */
static void test_linear_paths_draw(void **state)
{
    (void)state;
    sr_display d;
    display_with_pattern(&d);
    sr_display_set_present(&d, SR_PRESENT_BLIT);
    assert_true(sr_display_blits(&d));
    d.path = SR_DISPLAY_HOST;
    assert_false(sr_display_blits(&d));
    d.path = SR_DISPLAY_PIXEL_BUFFER;
    assert_false(sr_display_blits(&d));
    d.path = SR_DISPLAY_SURFACE;
    sr_display_set_present(&d, SR_PRESENT_DRAW_ROWS);   /* only with shared memory */
    assert_false(sr_display_draws_rows(&d));
    sr_display_free(&d);
}
#endif

int main(void)
{
#if !defined(SR_HAVE_EGL) || !defined(SR_HAVE_VIEWER)
    printf("skipped: built without EGL or the viewer (Debian: apt-get install libegl-dev libglfw3-dev libglew-dev)\n");
    return 77;
#else
    char why[1024];
    if (!sr_test_egl_context(PB_W, PB_H, why, sizeof why)) {
        printf("skipped: %s\n", why);
        return 77;
    }
    sr_error err = { SR_OK, "" };
    if (sr_display_gl_load(&err)) {
        printf("skipped: %s\n", err.msg);
        sr_test_egl_end();
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blit_matches_draw_at_film_size),
        cmocka_unit_test(test_blit_stretches_as_draw),
        cmocka_unit_test(test_rows_draw_as_texture),
        cmocka_unit_test(test_linear_paths_draw),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    sr_test_egl_end();
    return failed;
#endif
}
