/* display.c: the film on screen with OpenGL 3.3 core: a fullscreen triangle over either an
 * RGBA8 texture a CUDA kernel writes display values into (through a surface over the mapped
 * texture), or a GL_RGB32F texture of linear radiance fed from a pixel buffer (CUDA writes it
 * through interop) or from host memory, tonemapped by shaders/display.frag. Needs only a
 * current context. */
#include "display.h"
#include "datadir.h"

#include <GL/glew.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image_write.h>

/* ---- errors ------------------------------------------------------------------------------ */

static const char *sr_gl_error_name(GLenum e)
{
    switch (e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "unknown GL error";
    }
}

/* The first GL error since the last check, as a failure that names the step. */
static sr_status sr_gl_check(const char *what, sr_error *err)
{
    GLenum e = glGetError();
    if (e == GL_NO_ERROR) return SR_OK;
    while (glGetError() != GL_NO_ERROR) {}   /* errors queue up; report the first */
    return sr_fail(err, SR_ERR_RUNTIME, "OpenGL error while %s: %s (0x%04x)", what, sr_gl_error_name(e), e);
}

/* ---- context ----------------------------------------------------------------------------- */

sr_status sr_display_gl_load(sr_error *err)
{
    glewExperimental = GL_TRUE;   /* core profiles: load entry points GLEW cannot list */
    GLenum e = glewInit();
    /* GLEW built for GLX says "no GLX display" under an EGL context after it has loaded the
     * GL entry points, which are all we use. */
    if (e != GLEW_OK && e != GLEW_ERROR_NO_GLX_DISPLAY)
        return sr_fail(err, SR_ERR_RUNTIME, "cannot load the OpenGL functions: GLEW: %s (%u)",
                       (const char *)glewGetErrorString(e), (unsigned)e);
    while (glGetError() != GL_NO_ERROR) {}   /* glewInit leaves GL_INVALID_ENUM on core contexts */
    const char *version = (const char *)glGetString(GL_VERSION);
    if (!version) return sr_fail(err, SR_ERR_RUNTIME, "no current OpenGL context (glGetString(GL_VERSION) is NULL)");
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    if (major < 3 || (major == 3 && minor < 3))
        return sr_fail(err, SR_ERR_RUNTIME, "OpenGL 3.3 core is needed; this context is %s (%s)", version,
                       (const char *)glGetString(GL_RENDERER));
    return SR_OK;
}

/* ---- shaders ----------------------------------------------------------------------------- */

static int sr_shaders_in(const char *dir)
{
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/display.vert", dir);
    if (access(p, R_OK) != 0) return 0;
    snprintf(p, sizeof p, "%s/display.frag", dir);
    return access(p, R_OK) == 0;
}

sr_status sr_display_find_shaders(const char *dir, char *out, size_t cap, sr_error *err)
{
    if (dir) {
        if (!sr_shaders_in(dir))
            return sr_fail(err, SR_ERR_INPUT, "%s: no readable display.vert and display.frag in this folder", dir);
        snprintf(out, cap, "%s", dir);
        return SR_OK;
    }
    /* next to the program (a build folder), then where datadir.c finds installed data or the
     * source tree */
    char exe[PATH_MAX] = "", here[PATH_MAX + 16] = "";
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = n > 0 ? (exe[n] = '\0', strrchr(exe, '/')) : NULL;
    if (slash) {
        *slash = '\0';
        snprintf(here, sizeof here, "%s/shaders", exe);
        if (sr_shaders_in(here)) {
            snprintf(out, cap, "%s", here);
            return SR_OK;
        }
    }
    char data[2 * PATH_MAX + 64], shaders[PATH_MAX];
    if (sr_data_dir("shaders/display.frag", data, sizeof data)) {
        const int len = snprintf(shaders, sizeof shaders, "%s/shaders", data);
        if (len > 0 && (size_t)len < sizeof shaders && sr_shaders_in(shaders)) {
            snprintf(out, cap, "%s", shaders);
            return SR_OK;
        }
    }
    return sr_fail(err, SR_ERR_RUNTIME,
                   "cannot find the display shaders (display.vert, display.frag); looked in %s%sshaders/ under %s. "
                   "The build copies shaders/ next to the binary; or pass --shader-dir DIR",
                   here, here[0] ? " and " : "", data);
}

static char *sr_read_text(const char *path, sr_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        sr_fail(err, SR_ERR_RUNTIME, "%s: cannot open the shader: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = (char *)malloc((size_t)len + 1))) {
        if (fread(text, 1, (size_t)len, f) != (size_t)len) { free(text); text = NULL; }
        else text[len] = '\0';
    }
    fclose(f);
    if (!text) sr_fail(err, SR_ERR_RUNTIME, "%s: cannot read the shader", path);
    return text;
}

/* GL info logs end in a newline and may be empty. */
static void sr_trim_log(char *log)
{
    size_t n = strlen(log);
    while (n && (log[n - 1] == '\n' || log[n - 1] == ' ')) log[--n] = '\0';
    if (!n) snprintf(log, 32, "(the GL gave no log)");
}

static sr_status sr_compile(GLenum type, const char *dir, const char *name, GLuint *out, sr_error *err)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *src = sr_read_text(path, err);
    if (!src) return SR_ERR_RUNTIME;
    GLuint sh = glCreateShader(type);
    const GLchar *text = src;
    glShaderSource(sh, 1, &text, NULL);
    glCompileShader(sh);
    free(src);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[640] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        sr_trim_log(log);
        glDeleteShader(sh);
        return sr_fail(err, SR_ERR_RUNTIME, "%s: the shader does not compile (%s):\n%s", path,
                       (const char *)glGetString(GL_RENDERER), log);
    }
    *out = sh;
    return sr_gl_check("compiling the display shaders", err);
}

static sr_status sr_link(sr_display *d, GLuint vs, GLuint fs, sr_error *err)
{
    d->program = glCreateProgram();
    glAttachShader(d->program, vs);
    glAttachShader(d->program, fs);
    glLinkProgram(d->program);
    GLint ok = 0;
    glGetProgramiv(d->program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[640] = "";
        glGetProgramInfoLog(d->program, sizeof log, NULL, log);
        sr_trim_log(log);
        return sr_fail(err, SR_ERR_RUNTIME, "%s/display.vert + display.frag: the shaders do not link (%s):\n%s",
                       d->shader_dir, (const char *)glGetString(GL_RENDERER), log);
    }
    /* A uniform the code sets but the shader lacks means the shader is not this one. */
    const char *names[5] = { "u_film", "u_viewport", "u_exposure", "u_tonemap", "u_encoded" };
    int *locs[5] = { &d->u_film, &d->u_viewport, &d->u_exposure, &d->u_tonemap, &d->u_encoded };
    for (int i = 0; i < 5; i++) {
        *locs[i] = glGetUniformLocation(d->program, names[i]);
        if (*locs[i] < 0)
            return sr_fail(err, SR_ERR_RUNTIME, "%s/display.frag: no active uniform %s; is it stencilray's shader?",
                           d->shader_dir, names[i]);
    }
    return sr_gl_check("linking the display shaders", err);
}

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

/* The surface path's RGBA8 texture at the film's size (storage a CUDA registration maps). */
static sr_status sr_size_tex8(sr_display *d, sr_error *err)
{
    if (!d->tex8) d->tex8 = sr_new_texture();
    glBindTexture(GL_TEXTURE_2D, d->tex8);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)d->width, (GLsizei)d->height, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    glBindTexture(GL_TEXTURE_2D, 0);
    d->shown_valid = 0;
    return sr_gl_check("sizing the display's RGBA8 texture", err);
}

/* Register what `path` shares with CUDA (the texture or the pixel buffer, sized already). */
static sr_status sr_register_path(sr_display *d, sr_display_path path, sr_error *err)
{
    if (path == SR_DISPLAY_SURFACE) {
        sr_status s = sr_size_tex8(d, err);
        return s ? s : sr_interop_register_texture(d->tex8, &d->interop, err);
    }
    return sr_interop_register(d->pbo, &d->interop, err);
}

const char *sr_display_path_name(sr_display_path path)
{
    switch (path) {
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
    GLuint vs = 0, fs = 0;
    sr_status s = sr_compile(GL_VERTEX_SHADER, shader_dir, "display.vert", &vs, err);
    if (!s) s = sr_compile(GL_FRAGMENT_SHADER, shader_dir, "display.frag", &fs, err);
    if (!s) s = sr_link(d, vs, fs, err);
    if (vs) glDeleteShader(vs);   /* the program keeps what it needs */
    if (fs) glDeleteShader(fs);
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
    const sr_display_path renew = d->interop ? d->path : SR_DISPLAY_HOST;
    sr_interop_release(d->interop);   /* CUDA must let go before the storage is replaced */
    d->interop = NULL;
    d->path = SR_DISPLAY_HOST;
    d->shown_valid = 0;
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
        if (sr_register_path(d, renew, &e)) {
            sr_interop_release(d->interop);
            d->interop = NULL;
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
    if (d->interop && d->path == want) return d->path;
    sr_interop_release(d->interop);   /* another path than the one wanted */
    d->interop = NULL;
    d->path = SR_DISPLAY_HOST;
    d->shown_valid = 0;
    if (want == SR_DISPLAY_HOST) return SR_DISPLAY_HOST;
    if (!d->pbo || !d->width) {
        snprintf(why, cap, "the display has no pixel buffer yet (resize it first)");
        return SR_DISPLAY_HOST;
    }
    if (!sr_interop_check(device, why, cap)) return SR_DISPLAY_HOST;
    sr_error e = { SR_OK, "" };
    if (want == SR_DISPLAY_SURFACE) {
        if (!sr_register_path(d, SR_DISPLAY_SURFACE, &e)) {
            d->path = SR_DISPLAY_SURFACE;
        } else {
            sr_interop_release(d->interop);
            d->interop = NULL;
            snprintf(why, cap, "%s; trying the pixel buffer", e.msg);
        }
    }
    if (d->path == SR_DISPLAY_HOST) {
        sr_error e2 = { SR_OK, "" };
        if (sr_register_path(d, SR_DISPLAY_PIXEL_BUFFER, &e2)) {
            size_t used = strlen(why);
            snprintf(why + used, cap - used, "%s%s", used ? "; then " : "", e2.msg);
            d->interop = NULL;
            return SR_DISPLAY_HOST;
        }
        d->path = SR_DISPLAY_PIXEL_BUFFER;
    }
    d->interop_device = device;
    free(d->host);   /* the host path's staging is not needed any more */
    d->host = NULL;
    return d->path;
}

void sr_display_free(sr_display *d)
{
    sr_interop_release(d->interop);
    free(d->host);
    if (d->program) glDeleteProgram(d->program);
    if (d->vao) glDeleteVertexArrays(1, &d->vao);
    if (d->tex) glDeleteTextures(1, &d->tex);
    if (d->tex8) glDeleteTextures(1, &d->tex8);
    if (d->pbo) glDeleteBuffers(1, &d->pbo);
    if (d->timer[0]) glDeleteQueries(2, d->timer);
    memset(d, 0, sizeof *d);
    d->interop_device = -1;
}

/* ---- frames ------------------------------------------------------------------------------ */

/* The surface path: map, one kernel, unmap, all queued on the backend's stream; GL's next use
 * of the texture waits for the unmap on the GPU. Nothing waits on the CPU, and GL copies
 * nothing: the texels are written once, already tonemapped. */
static sr_status sr_upload_surface(sr_display *d, sr_backend *be, float scale, float exposure, sr_tonemap op,
                                   sr_error *err)
{
    void *queue = be->ops->queue(be->impl);
    uint64_t surface = 0;
    sr_status s = sr_interop_map_surface(d->interop, queue, d->width, d->height, &surface, err);
    if (s) return s;
    s = be->ops->resolve_display(be->impl, surface, d->width, d->height, scale, exposure, (int)op, err);
    sr_status u = sr_interop_unmap_surface(d->interop, queue, s ? NULL : err);
    if (s || u) return s ? s : u;
    d->shown_exposure = exposure;
    d->shown_tonemap = op;
    d->shown_valid = 1;
    return SR_OK;
}

/* The pixel buffer: the backend resolves its film into the mapped PBO; GL then copies PBO ->
 * texture on the GPU. The data never leaves device memory, but the CPU waits twice and GL's
 * copy into a 3-channel float texture is slow (0.77 ms at 1080p on the H200). */
static sr_status sr_upload_pixel_buffer(sr_display *d, sr_backend *be, float scale, sr_error *err)
{
    const size_t need = sizeof(float) * 3u * (size_t)d->width * d->height;
    void *ptr = NULL;
    size_t bytes = 0;
    sr_status s = sr_interop_map(d->interop, &ptr, &bytes, err);
    if (s) return s;
    if (bytes < need)
        s = sr_fail(err, SR_ERR_RUNTIME, "CUDA-OpenGL interop: the mapped pixel buffer holds %zu bytes, the film needs %zu",
                    bytes, need);
    if (!s) s = sr_backend_resolve_film(be, (float *)ptr, scale, err);
    /* Unmapping orders only work on the stream it is given; the backend has its own. */
    if (!s) s = be->ops->finish(be->impl, err);
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

static sr_status sr_upload_host(sr_display *d, sr_backend *be, float scale, sr_error *err)
{
    if (!d->host) {
        d->host = (float *)malloc(sizeof(float) * 3u * (size_t)d->width * d->height);
        if (!d->host) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for a %ux%u film", d->width, d->height);
    }
    sr_status s = sr_backend_read_film(be, d->host, scale, err);
    if (s) return s;
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, d->tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)d->width, (GLsizei)d->height, GL_RGB, GL_FLOAT, d->host);
    glBindTexture(GL_TEXTURE_2D, 0);
    return sr_gl_check("uploading the film from host memory to the texture", err);
}

sr_status sr_display_upload(sr_display *d, sr_backend *be, float scale, float exposure, sr_tonemap op, sr_error *err)
{
    if (!d->width) return sr_fail(err, SR_ERR_RUNTIME, "display: upload before the film was sized");
    switch (d->path) {
    case SR_DISPLAY_SURFACE: return sr_upload_surface(d, be, scale, exposure, op, err);
    case SR_DISPLAY_PIXEL_BUFFER: return sr_upload_pixel_buffer(d, be, scale, err);
    default: return sr_upload_host(d, be, scale, err);
    }
}

int sr_display_stale(const sr_display *d, float exposure, sr_tonemap op)
{
    return d->path == SR_DISPLAY_SURFACE && d->shown_valid && (d->shown_exposure != exposure || d->shown_tonemap != op);
}

double sr_display_draw_ms(const sr_display *d) { return d->draw_ms; }

sr_status sr_display_draw(sr_display *d, int fb_w, int fb_h, float exposure, sr_tonemap op, sr_error *err)
{
    if (fb_w <= 0 || fb_h <= 0) return SR_OK;   /* minimised: nothing to draw into */
    glViewport(0, 0, fb_w, fb_h);
    /* What the shader computes is what lands in the framebuffer: no blending, no dither, no
     * second sRGB encode by the framebuffer. */
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_DITHER);
    glDisable(GL_FRAMEBUFFER_SRGB);
    /* The query of two draws ago has long finished on the GPU; if not, skip it rather than wait. */
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
    const int encoded = d->path == SR_DISPLAY_SURFACE;
    glBeginQuery(GL_TIME_ELAPSED, d->timer[slot]);
    glUseProgram(d->program);
    glUniform1i(d->u_film, 0);
    glUniform2f(d->u_viewport, (float)fb_w, (float)fb_h);
    glUniform1f(d->u_exposure, exposure);
    glUniform1i(d->u_tonemap, (int)op);
    glUniform1i(d->u_encoded, encoded);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, encoded ? d->tex8 : d->tex);
    glBindVertexArray(d->vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glUseProgram(0);
    glEndQuery(GL_TIME_ELAPSED);
    d->timer_used[slot] = 1;
    d->timer_next = 1 - slot;
    return sr_gl_check("drawing the film", err);
}

/* ---- read-back --------------------------------------------------------------------------- */

sr_status sr_display_read_rgb8(int w, int h, uint8_t *rgb, sr_error *err)
{
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, rgb);
    sr_status s = sr_gl_check("reading the framebuffer back (glReadPixels)", err);
    if (s) return s;
    /* GL's row 0 is the bottom one; images start at the top. */
    const size_t row = (size_t)w * 3u;
    uint8_t *tmp = (uint8_t *)malloc(row);
    if (!tmp) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory");
    for (int y = 0; y < h / 2; y++) {
        uint8_t *a = rgb + (size_t)y * row, *b = rgb + (size_t)(h - 1 - y) * row;
        memcpy(tmp, a, row);
        memcpy(a, b, row);
        memcpy(b, tmp, row);
    }
    free(tmp);
    return SR_OK;
}

/* The mode a plain fopen() would have given: 0666 less the umask (mkstemp makes 0600). */
static mode_t sr_default_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

sr_status sr_display_save_png(const char *path, int w, int h, sr_error *err)
{
    if (w <= 0 || h <= 0) return sr_fail(err, SR_ERR_RUNTIME, "%s: nothing on screen to save (%dx%d)", path, w, h);
    uint8_t *rgb = (uint8_t *)malloc((size_t)w * h * 3u);
    if (!rgb) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for a %dx%d screenshot", w, h);
    sr_status s = sr_display_read_rgb8(w, h, rgb, err);
    if (s) { free(rgb); return s; }
    /* A temporary name in the same folder, renamed over path: never a half-written PNG. */
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld-XXXXXX", path, (long)getpid());
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(rgb);
        return sr_fail(err, SR_ERR_RUNTIME, "%s: cannot create a file next to it: %s", path, strerror(errno));
    }
    close(fd);
    int ok = stbi_write_png(tmp, w, h, 3, rgb, w * 3);
    free(rgb);
    if (!ok || chmod(tmp, sr_default_mode()) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return sr_fail(err, SR_ERR_RUNTIME, "%s: cannot write the screenshot%s%s", path, ok ? ": " : " (PNG encoder failed)",
                       ok ? strerror(e) : "");
    }
    return SR_OK;
}
