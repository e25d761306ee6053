/* display.c: the film on screen with OpenGL 3.3 core. Either an RGBA8 texture of display
 * values, which a CUDA kernel writes (through a surface over the mapped texture, or into
 * memory GL imported once and then copies from), shown by a blit or a fullscreen triangle;
 * or a GL_RGB32F texture of linear radiance fed from a pixel buffer (CUDA writes it through
 * interop) or from host memory, tonemapped by shaders/display.frag while drawn. Needs only a
 * current context. */
#include "display.h"
#include "display_gl.h"

#include <GL/glew.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- life cycle -------------------------------------------------------------------------- */

/* A texture read with texelFetch only: nearest, clamped, one level. */
static GLuint sr_new_texture(void)
{
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);   /* complete without mipmaps */
    glBindTexture(GL_TEXTURE_2D, 0);
    return t;
}

/* The RGBA8 texture of the surface and external-memory paths at the film's size (storage a
 * CUDA registration maps, or that GL copies the shared rows into). */
static sr_status sr_size_tex8(sr_display *d, sr_error *err)
{
    if (!d->tex8) d->tex8 = sr_new_texture();
    glBindTexture(GL_TEXTURE_2D, d->tex8);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)d->width, (GLsizei)d->height, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glBindTexture(GL_TEXTURE_2D, 0);
    d->shown_valid = 0;
    d->read_fbo_tex = 0;   /* new storage: check the blit's framebuffer again */
    return sr_gl_check("sizing the display's RGBA8 texture", err);
}

/* ---- external memory --------------------------------------------------------------------- */

static int sr_gl_has_extension(const char *name)
{
    GLint n = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++) {
        const char *e = (const char *)glGetStringi(GL_EXTENSIONS, (GLuint)i);
        if (e && !strcmp(e, name)) return 1;
    }
    return 0;
}

int sr_display_extmem_supported(char *why, size_t cap)
{
    const char *need[2] = { "GL_EXT_memory_object", "GL_EXT_memory_object_fd" };
    for (int i = 0; i < 2; i++)
        if (!sr_gl_has_extension(need[i])) {
            snprintf(why, cap, "the OpenGL driver (%s) lacks %s", (const char *)glGetString(GL_RENDERER), need[i]);
            while (glGetError() != GL_NO_ERROR) {}
            return 0;
        }
    /* GLEW loads what the driver gives; an extension string without its entry points would
     * crash at the first call. */
    if (!glCreateMemoryObjectsEXT || !glDeleteMemoryObjectsEXT || !glIsMemoryObjectEXT || !glImportMemoryFdEXT ||
        !glBufferStorageMemEXT) {
        snprintf(why, cap, "the OpenGL driver lists GL_EXT_memory_object_fd but GLEW found no entry points for it");
        return 0;
    }
    return 1;
}

/* Wait (CPU) until GL has read the shared rows it was last given, so CUDA may write them. */
static sr_status sr_shared_wait_gl(sr_display *d, sr_error *err)
{
    if (!d->shared_fence) return SR_OK;
    GLsync fence = (GLsync)d->shared_fence;
    d->shared_fence = NULL;
    GLenum r = glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, 10000000000ull);   /* 10 s: a hung GPU */
    glDeleteSync(fence);
    if (r == GL_WAIT_FAILED || r == GL_TIMEOUT_EXPIRED)
        return sr_fail(err, SR_ERR_RUNTIME, "OpenGL: waiting for the copy out of the shared memory %s",
                       r == GL_WAIT_FAILED ? "failed" : "took more than 10 s");
    return sr_gl_check("waiting for the copy out of the shared memory", err);
}

/* Undo sr_shared_setup: GL lets go first (after its last read), then CUDA frees. */
static void sr_shared_teardown(sr_display *d)
{
    if (d->shared_fence) {
        sr_error ignored = { SR_OK, "" };
        (void)sr_shared_wait_gl(d, &ignored);
    }
    if (d->rows_tex) glDeleteTextures(1, &d->rows_tex);
    d->rows_tex = 0;
    if (d->shared_buf) glDeleteBuffers(1, &d->shared_buf);
    if (d->shared_mem) glDeleteMemoryObjectsEXT(1, &d->shared_mem);
    if (d->shared_buf || d->shared_mem) glFinish();   /* nothing of GL's may still read it */
    d->shared_buf = d->shared_mem = 0;
    sr_shared_mem_release(d->shared);
    d->shared = NULL;
    while (glGetError() != GL_NO_ERROR) {}
}

/* CUDA allocates width x height RGBA8 rows exportable; GL imports them as a memory object and
 * puts a buffer over them, read as a pixel-unpack buffer into the RGBA8 texture. */
static sr_status sr_shared_setup(sr_display *d, int device, sr_error *err)
{
    char why[512];
    if (!sr_display_extmem_supported(why, sizeof why)) return sr_fail(err, SR_ERR_RUNTIME, "%s", why);
    sr_status s = sr_size_tex8(d, err);
    if (s) return s;
    const size_t bytes = 4u * (size_t)d->width * d->height;
    if ((s = sr_shared_mem_create(device, bytes, &d->shared, err))) return s;
    int fd = -1;
    uint64_t size = 0;
    if ((s = sr_shared_mem_export(d->shared, &fd, &size, err))) { sr_shared_teardown(d); return s; }
    while (glGetError() != GL_NO_ERROR) {}
    glCreateMemoryObjectsEXT(1, &d->shared_mem);
    /* Not dedicated (the default): the memory backs a buffer, and CUDA's allocation is not
     * one made for a single image. */
    glImportMemoryFdEXT(d->shared_mem, (GLuint64)size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
    GLenum e = glGetError();
    if (e != GL_NO_ERROR || !glIsMemoryObjectEXT(d->shared_mem)) {
        close(fd);   /* a failed import leaves the descriptor with us */
        sr_shared_teardown(d);
        return sr_fail(err, SR_ERR_RUNTIME, "OpenGL: importing CUDA's exportable memory (glImportMemoryFdEXT, %llu bytes) "
                       "failed: %s (0x%04x)", (unsigned long long)size, sr_gl_error_name(e), e);
    }
    /* GL owns fd now. */
    glGenBuffers(1, &d->shared_buf);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, d->shared_buf);
    glBufferStorageMemEXT(GL_PIXEL_UNPACK_BUFFER, (GLsizeiptr)bytes, d->shared_mem, 0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    if ((s = sr_gl_check("putting a GL buffer over the imported memory (glBufferStorageMemEXT)", err))) {
        sr_shared_teardown(d);
        return s;
    }
    /* For drawing straight from the rows: a buffer texture over them, where the GL allows one
     * that large (GL 3.3 promises only 65536 texels; NVIDIA's allow 2^27). */
    GLint max_texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
    if ((uint64_t)d->width * d->height <= (uint64_t)(max_texels > 0 ? max_texels : 0)) {
        glGenTextures(1, &d->rows_tex);
        glBindTexture(GL_TEXTURE_BUFFER, d->rows_tex);
        glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA8, d->shared_buf);
        glBindTexture(GL_TEXTURE_BUFFER, 0);
        if ((s = sr_gl_check("making a buffer texture over the imported memory", err))) {
            sr_shared_teardown(d);
            return s;
        }
    }
    return SR_OK;
}

/* GL reads the shared rows: ends with a fence CUDA's next write waits for (CPU side). */
static sr_status sr_shared_fence_gl(sr_display *d, sr_error *err)
{
    if (d->shared_fence) glDeleteSync((GLsync)d->shared_fence);   /* older than the one below: not needed */
    GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);   /* CUDA writes again after it */
    d->shared_fence = (void *)fence;
    if (!fence) return sr_fail(err, SR_ERR_RUNTIME, "OpenGL: glFenceSync after reading the shared memory failed");
    return SR_OK;
}

sr_status sr_display_extmem_copy(sr_display *d, sr_error *err)
{
    if (sr_display_draws_rows(d)) return SR_OK;   /* the draw reads the rows themselves */
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, d->shared_buf);
    glBindTexture(GL_TEXTURE_2D, d->tex8);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)d->width, (GLsizei)d->height, GL_RGBA, GL_UNSIGNED_BYTE, (const void *)0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    sr_status s = sr_shared_fence_gl(d, err);
    return s ? s : sr_gl_check("copying the shared rows into the display texture", err);
}

/* ---- paths ------------------------------------------------------------------------------- */

static const sr_display_choice sr_choices[] = {
    { "extmem-rows", SR_DISPLAY_EXTMEM, SR_PRESENT_DRAW_ROWS },   /* the fastest path measured (docs/viewer.md) */
    { "extmem", SR_DISPLAY_EXTMEM, SR_PRESENT_BLIT },
    { "blit", SR_DISPLAY_SURFACE, SR_PRESENT_BLIT },
    { "draw", SR_DISPLAY_SURFACE, SR_PRESENT_DRAW },
    { "extmem-draw", SR_DISPLAY_EXTMEM, SR_PRESENT_DRAW },
    { "pbo", SR_DISPLAY_PIXEL_BUFFER, SR_PRESENT_DRAW },
    { "host", SR_DISPLAY_HOST, SR_PRESENT_DRAW },
};

const sr_display_choice *sr_display_choices(int *n)
{
    *n = (int)(sizeof sr_choices / sizeof sr_choices[0]);
    return sr_choices;
}

const sr_display_choice *sr_display_choice_find(const char *name, char *expected, size_t cap)
{
    size_t used = 0;
    if (expected && cap) expected[0] = '\0';
    for (size_t i = 0; i < sizeof sr_choices / sizeof sr_choices[0]; i++) {
        if (!strcmp(name, sr_choices[i].name)) return &sr_choices[i];
        if (expected && used < cap) {
            int n = snprintf(expected + used, cap - used, "%s%s", i ? ", " : "", sr_choices[i].name);
            if (n > 0) used += (size_t)n;
        }
    }
    return NULL;
}

void sr_display_set_present(sr_display *d, sr_display_present present) { d->present = present; }

int sr_display_blits(const sr_display *d)
{
    return d->present == SR_PRESENT_BLIT && (d->path == SR_DISPLAY_SURFACE || d->path == SR_DISPLAY_EXTMEM);
}

int sr_display_draws_rows(const sr_display *d)
{
    return d->present == SR_PRESENT_DRAW_ROWS && d->path == SR_DISPLAY_EXTMEM && d->rows_tex;
}

/* Let go of what CUDA shares (registration or imported memory); the display is on the host
 * path afterwards. */
static void sr_unshare(sr_display *d)
{
    sr_interop_release(d->interop);   /* CUDA must let go before the storage is replaced */
    d->interop = NULL;
    sr_shared_teardown(d);
    d->path = SR_DISPLAY_HOST;
    d->shown_valid = 0;
}

/* Set up what `path` shares with CUDA (the texture, the pixel buffer, or imported memory,
 * for the current size). */
static sr_status sr_register_path(sr_display *d, sr_display_path path, int device, sr_error *err)
{
    if (path == SR_DISPLAY_EXTMEM) return sr_shared_setup(d, device, err);
    if (path == SR_DISPLAY_SURFACE) {
        sr_status s = sr_size_tex8(d, err);
        return s ? s : sr_interop_register_texture(d->tex8, &d->interop, err);
    }
    return sr_interop_register(d->pbo, &d->interop, err);
}

const char *sr_display_path_name(sr_display_path path)
{
    switch (path) {
    case SR_DISPLAY_EXTMEM: return "external memory";
    case SR_DISPLAY_SURFACE: return "surface";
    case SR_DISPLAY_PIXEL_BUFFER: return "pixel buffer";
    default: return "host";
    }
}

sr_status sr_display_init(sr_display *d, const char *shader_dir, sr_error *err)
{
    memset(d, 0, sizeof *d);
    d->interop_device = -1;
    const char *r = (const char *)glGetString(GL_RENDERER);
    snprintf(d->gl_renderer, sizeof d->gl_renderer, "%s", r ? r : "unknown GL renderer");
    snprintf(d->shader_dir, sizeof d->shader_dir, "%s", shader_dir);
    sr_status s = sr_gl_program(d, shader_dir, err);
    if (s) { sr_display_free(d); return s; }
    glGenVertexArrays(1, &d->vao);   /* core profile draws need a VAO, even an empty one */
    d->tex = sr_new_texture();
    glGenBuffers(1, &d->pbo);
    glGenQueries(2, d->timer);
    d->draw_ms = -1.0;
    s = sr_gl_check("creating the display texture and pixel buffer", err);
    if (s) sr_display_free(d);
    return s;
}

sr_status sr_display_resize(sr_display *d, uint32_t w, uint32_t h, char *note, size_t cap, sr_error *err)
{
    if (note && cap) note[0] = '\0';
    if (w == 0 || h == 0) return sr_fail(err, SR_ERR_RUNTIME, "display: cannot size the film to %ux%u", w, h);
    const sr_display_path renew = d->path;
    sr_unshare(d);
    free(d->host);
    d->host = NULL;
    const size_t bytes = sizeof(float) * 3u * (size_t)w * h;
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, d->pbo);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_DRAW);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, d->tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB32F, (GLsizei)w, (GLsizei)h, 0, GL_RGB, GL_FLOAT, NULL);
    glBindTexture(GL_TEXTURE_2D, 0);
    char what[96];
    snprintf(what, sizeof what, "sizing the display texture and pixel buffer to %ux%u", w, h);
    sr_status s = sr_gl_check(what, err);
    if (s) return s;
    d->width = w;
    d->height = h;
    if (renew != SR_DISPLAY_HOST) {
        sr_error e = { SR_OK, "" };
        if (sr_register_path(d, renew, d->interop_device, &e)) {
            sr_unshare(d);
            if (note) snprintf(note, cap, "%s; copying frames through host memory from now on", e.msg);
        } else {
            d->path = renew;
        }
    }
    return SR_OK;
}

sr_display_path sr_display_enable_interop(sr_display *d, int device, sr_display_path want, char *why, size_t cap)
{
    if (why && cap) why[0] = '\0';
    if (d->path == want && want != SR_DISPLAY_HOST && d->interop_device == device) return d->path;
    sr_unshare(d);   /* another path than the one wanted */
    if (want == SR_DISPLAY_HOST) return SR_DISPLAY_HOST;
    if (!d->pbo || !d->width) {
        snprintf(why, cap, "the display has no pixel buffer yet (resize it first)");
        return SR_DISPLAY_HOST;
    }
    if (!sr_interop_check(device, why, cap)) return SR_DISPLAY_HOST;
    /* The wanted path, then each cheaper-to-support one after it. */
    const sr_display_path order[3] = { SR_DISPLAY_EXTMEM, SR_DISPLAY_SURFACE, SR_DISPLAY_PIXEL_BUFFER };
    int k = 0;
    while (k < 3 && order[k] != want) k++;
    for (; k < 3; k++) {
        sr_error e = { SR_OK, "" };
        if (!sr_register_path(d, order[k], device, &e)) {
            d->path = order[k];
            break;
        }
        sr_unshare(d);
        size_t used = strlen(why);
        snprintf(why + used, cap - used, "%s%s: %s", used ? "; then " : "", sr_display_path_name(order[k]), e.msg);
    }
    if (d->path == SR_DISPLAY_HOST) return SR_DISPLAY_HOST;
    d->interop_device = device;
    free(d->host);   /* the host path's staging is not needed any more */
    d->host = NULL;
    return d->path;
}

void sr_display_free(sr_display *d)
{
    sr_unshare(d);
    free(d->host);
    if (d->program) glDeleteProgram(d->program);
    if (d->vao) glDeleteVertexArrays(1, &d->vao);
    if (d->tex) glDeleteTextures(1, &d->tex);
    if (d->tex8) glDeleteTextures(1, &d->tex8);
    if (d->read_fbo) glDeleteFramebuffers(1, &d->read_fbo);
    if (d->pbo) glDeleteBuffers(1, &d->pbo);
    if (d->timer[0]) glDeleteQueries(2, d->timer);
    memset(d, 0, sizeof *d);
    d->interop_device = -1;
}

/* ---- frames ------------------------------------------------------------------------------ */

/* The surface path: map, one kernel, unmap, all queued on the backend's stream; GL's next use
 * of the texture waits for the unmap on the GPU. Nothing waits on the CPU, and GL copies
 * nothing: the texels are written once, already tonemapped. */
static sr_status sr_upload_surface(sr_display *d, sr_renderer *r, float scale, float exposure, sr_tonemap op,
                                   sr_error *err)
{
    void *queue = sr_renderer_queue(r);
    uint64_t surface = 0;
    sr_status s = sr_interop_map_surface(d->interop, queue, d->width, d->height, &surface, err);
    if (s) return s;
    s = sr_renderer_resolve_display(r, surface, d->width, d->height, scale, exposure, op, err);
    sr_status u = sr_interop_unmap_surface(d->interop, queue, s ? NULL : err);
    if (s || u) return s ? s : u;
    d->shown_exposure = exposure;
    d->shown_tonemap = op;
    d->shown_valid = 1;
    return SR_OK;
}

/* The pixel buffer: the backend resolves its film into the mapped PBO; GL then copies PBO ->
 * texture on the GPU. The data never leaves device memory, but the CPU waits twice and GL's
 * copy into a 3-channel float texture is slow (docs/viewer.md, "Display cost"). */
static sr_status sr_upload_pixel_buffer(sr_display *d, sr_renderer *r, float scale, sr_error *err)
{
    const size_t need = sizeof(float) * 3u * (size_t)d->width * d->height;
    void *ptr = NULL;
    size_t bytes = 0;
    sr_status s = sr_interop_map(d->interop, &ptr, &bytes, err);
    if (s) return s;
    if (bytes < need)
        s = sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: the mapped pixel buffer holds %zu bytes, the film needs %zu",
                    bytes, need);
    if (!s) s = sr_renderer_resolve_film(r, (float *)ptr, scale, err);
    /* Unmapping orders only work on the stream it is given; the backend has its own. */
    if (!s) s = sr_renderer_finish(r, err);
    sr_status u = sr_interop_unmap(d->interop, s ? NULL : err);
    if (s || u) return s ? s : u;
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, d->pbo);
    glBindTexture(GL_TEXTURE_2D, d->tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);   /* rows are 12 * width bytes */
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)d->width, (GLsizei)d->height, GL_RGB, GL_FLOAT, (const void *)0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    return sr_gl_check("uploading the film from the pixel buffer to the texture", err);
}

/* GL's work of a frame (the external-memory copy, the draw or blit) is timed by one
 * GL_TIME_ELAPSED query; two alternate, and the one begun two frames ago is read back only if
 * its result is there (it has long finished), so that timing never waits. */
static void sr_timer_begin(sr_display *d)
{
    if (d->timer_open) return;
    const int slot = d->timer_next;
    if (d->timer_used[slot]) {
        GLuint ready = 0;
        glGetQueryObjectuiv(d->timer[slot], GL_QUERY_RESULT_AVAILABLE, &ready);
        if (ready) {
            GLuint64 ns = 0;
            glGetQueryObjectui64v(d->timer[slot], GL_QUERY_RESULT, &ns);
            d->draw_ms = 1e-6 * (double)ns;
        }
    }
    glBeginQuery(GL_TIME_ELAPSED, d->timer[slot]);
    d->timer_open = 1;
}

static void sr_timer_end(sr_display *d)
{
    if (!d->timer_open) return;
    glEndQuery(GL_TIME_ELAPSED);
    d->timer_open = 0;
    d->timer_used[d->timer_next] = 1;
    d->timer_next = 1 - d->timer_next;
}

/* External memory: no map and no unmap. CUDA and GL share no semaphore here (see interop.h),
 * so the CPU orders them: GL's last copy out of the rows has passed (its fence; a frame old,
 * so this rarely waits), the kernel writes them, the CPU waits for the kernel, GL copies the
 * rows into the RGBA8 texture on the GPU (about 8 MB at 1080p) and fences that copy. */
static sr_status sr_upload_extmem(sr_display *d, sr_renderer *r, float scale, float exposure, sr_tonemap op,
                                  sr_error *err)
{
    void *queue = sr_renderer_queue(r);
    sr_status s = sr_shared_wait_gl(d, err);
    if (!s) s = sr_renderer_resolve_display_rows(r, sr_shared_mem_ptr(d->shared), d->width, d->height, scale, exposure, op,
                                                 err);
    if (!s) s = sr_shared_mem_fence(d->shared, queue, err);
    if (!s) s = sr_shared_mem_wait(d->shared, err);
    if (s) return s;
    if (!sr_display_draws_rows(d)) sr_timer_begin(d);   /* GL's copy is part of its work */
    if ((s = sr_display_extmem_copy(d, err))) return s;
    d->shown_exposure = exposure;
    d->shown_tonemap = op;
    d->shown_valid = 1;
    return SR_OK;
}

static sr_status sr_upload_host(sr_display *d, sr_renderer *r, float scale, sr_error *err)
{
    if (!d->host) {
        d->host = (float *)malloc(sizeof(float) * 3u * (size_t)d->width * d->height);
        if (!d->host) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for a %ux%u film", d->width, d->height);
    }
    sr_status s = sr_renderer_read_film(r, d->host, scale, err);
    if (s) return s;
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, d->tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)d->width, (GLsizei)d->height, GL_RGB, GL_FLOAT, d->host);
    glBindTexture(GL_TEXTURE_2D, 0);
    return sr_gl_check("uploading the film from host memory to the texture", err);
}

sr_status sr_display_upload(sr_display *d, sr_renderer *r, float scale, float exposure, sr_tonemap op, sr_error *err)
{
    if (!d->width) return sr_fail(err, SR_ERR_RUNTIME, "display: upload before the film was sized");
    switch (d->path) {
    case SR_DISPLAY_SURFACE: return sr_upload_surface(d, r, scale, exposure, op, err);
    case SR_DISPLAY_EXTMEM: return sr_upload_extmem(d, r, scale, exposure, op, err);
    case SR_DISPLAY_PIXEL_BUFFER: return sr_upload_pixel_buffer(d, r, scale, err);
    default: return sr_upload_host(d, r, scale, err);
    }
}

int sr_display_stale(const sr_display *d, float exposure, sr_tonemap op)
{
    return (d->path == SR_DISPLAY_SURFACE || d->path == SR_DISPLAY_EXTMEM) && d->shown_valid &&
           (d->shown_exposure != exposure || d->shown_tonemap != op);
}

double sr_display_draw_ms(const sr_display *d) { return d->draw_ms; }

/* The RGBA8 texture onto the draw framebuffer by glBlitFramebuffer: no shader, no quad. The
 * film's row 0 (the texture's row 0) goes to the top (the destination's y runs from fb_h down
 * to 0), and a film of another size is stretched by the nearest texel, as the draw does. */
static sr_status sr_blit(sr_display *d, int fb_w, int fb_h, sr_error *err)
{
    if (!d->read_fbo) glGenFramebuffers(1, &d->read_fbo);
    GLint previous = 0;
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, d->read_fbo);
    if (d->read_fbo_tex != d->tex8) {
        glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, d->tex8, 0);
        glReadBuffer(GL_COLOR_ATTACHMENT0);
        const GLenum status = glCheckFramebufferStatus(GL_READ_FRAMEBUFFER);
        if (status != GL_FRAMEBUFFER_COMPLETE) {
            glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)previous);
            return sr_fail(err, SR_ERR_RUNTIME, "OpenGL: a framebuffer over the display texture is incomplete (0x%04x)",
                           status);
        }
        d->read_fbo_tex = d->tex8;
    }
    glBlitFramebuffer(0, 0, (GLint)d->width, (GLint)d->height, 0, fb_h, fb_w, 0, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)previous);   /* glReadPixels reads the window again */
    return sr_gl_check("blitting the film (glBlitFramebuffer)", err);
}

sr_status sr_display_draw(sr_display *d, int fb_w, int fb_h, float exposure, sr_tonemap op, sr_error *err)
{
    if (fb_w <= 0 || fb_h <= 0) return SR_OK;   /* minimised: nothing to draw into */
    glViewport(0, 0, fb_w, fb_h);
    /* What the shader computes (or the texture holds) is what lands in the framebuffer: no
     * blending, no dither, no second sRGB encode by the framebuffer. */
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_DITHER);
    glDisable(GL_FRAMEBUFFER_SRGB);
    glDisable(GL_SCISSOR_TEST);
    /* A blit into a multisampled framebuffer must keep the size; draw there instead. */
    GLint samples = 0;
    glGetIntegerv(GL_SAMPLE_BUFFERS, &samples);
    const int blit = sr_display_blits(d) && samples == 0;
    const int rows = sr_display_draws_rows(d);
    sr_timer_begin(d);
    sr_status s = SR_OK;
    if (blit) {
        s = sr_blit(d, fb_w, fb_h, err);
    } else {
        const int encoded = rows ? 2 : d->path == SR_DISPLAY_SURFACE || d->path == SR_DISPLAY_EXTMEM;
        glUseProgram(d->program);
        glUniform1i(d->u_film, 0);
        glUniform1i(d->u_rows, 1);   /* another unit: two sampler types may not share one */
        glUniform2i(d->u_rows_size, (GLint)d->width, (GLint)d->height);
        glUniform2f(d->u_viewport, (float)fb_w, (float)fb_h);
        glUniform1f(d->u_exposure, exposure);
        glUniform1i(d->u_tonemap, (int)op);
        glUniform1i(d->u_encoded, encoded);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, encoded ? d->tex8 : d->tex);
        if (rows) {
            glActiveTexture(GL_TEXTURE1);
            glBindTexture(GL_TEXTURE_BUFFER, d->rows_tex);
        }
        glBindVertexArray(d->vao);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        glBindVertexArray(0);
        if (rows) {
            glBindTexture(GL_TEXTURE_BUFFER, 0);
            glActiveTexture(GL_TEXTURE0);
        }
        glBindTexture(GL_TEXTURE_2D, 0);
        glUseProgram(0);
        if (rows) s = sr_shared_fence_gl(d, err);   /* this draw read the shared rows */
    }
    sr_timer_end(d);
    return s ? s : sr_gl_check("drawing the film", err);
}
