/* display_gl.c: the viewer's OpenGL plumbing, apart from the display object and its paths
 * (display.c): GL errors as failures that name the step, loading the GL functions, the
 * display shaders (found beside the program or in the installed data, compiled, linked) and
 * reading the framebuffer back (the screenshot key). */
#include "display.h"
#include "display_gl.h"
#include "../base/datadir.h"

#include <GL/glew.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../io/images/image.h"


/* ---- errors ------------------------------------------------------------------------------ */

const char *sr_gl_error_name(unsigned e)
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
sr_status sr_gl_check(const char *what, sr_error *err)
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

sr_status sr_gl_compile(unsigned type, const char *src, const char *name, unsigned *out, sr_error *err)
{
    GLuint sh = glCreateShader((GLenum)type);
    const GLchar *text = src;
    glShaderSource(sh, 1, &text, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[640] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        sr_trim_log(log);
        glDeleteShader(sh);
        return sr_fail(err, SR_ERR_RUNTIME, "%s: the shader does not compile (%s):\n%s", name,
                       (const char *)glGetString(GL_RENDERER), log);
    }
    *out = sh;
    return sr_gl_check("compiling a shader", err);
}

sr_status sr_gl_link(unsigned vs, unsigned fs, const char *name, unsigned *out, sr_error *err)
{
    GLuint program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    GLint ok = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[640] = "";
        glGetProgramInfoLog(program, sizeof log, NULL, log);
        sr_trim_log(log);
        glDeleteProgram(program);
        return sr_fail(err, SR_ERR_RUNTIME, "%s: the shaders do not link (%s):\n%s", name,
                       (const char *)glGetString(GL_RENDERER), log);
    }
    *out = program;
    return sr_gl_check("linking shaders", err);
}

/* shaders/NAME from `dir`, compiled. */
static sr_status sr_compile_file(GLenum type, const char *dir, const char *name, GLuint *out, sr_error *err)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *src = sr_read_text(path, err);
    if (!src) return SR_ERR_RUNTIME;
    sr_status s = sr_gl_compile(type, src, path, out, err);
    free(src);
    return s;
}

static sr_status sr_link(sr_display *d, GLuint vs, GLuint fs, sr_error *err)
{
    char name[sizeof d->shader_dir + 32];
    snprintf(name, sizeof name, "%s/display.vert + display.frag", d->shader_dir);
    sr_status s = sr_gl_link(vs, fs, name, &d->program, err);
    if (s) return s;
    /* A uniform the code sets but the shader lacks means the shader is not this one. */
    const char *names[7] = { "u_film", "u_viewport", "u_exposure", "u_tonemap", "u_encoded", "u_rows", "u_rows_size" };
    int *locs[7] = { &d->u_film, &d->u_viewport, &d->u_exposure, &d->u_tonemap, &d->u_encoded, &d->u_rows,
                     &d->u_rows_size };
    for (int i = 0; i < 7; i++) {
        *locs[i] = glGetUniformLocation(d->program, names[i]);
        if (*locs[i] < 0)
            return sr_fail(err, SR_ERR_RUNTIME, "%s/display.frag: no active uniform %s; is it stencilray's shader?",
                           d->shader_dir, names[i]);
    }
    return SR_OK;
}

/* The display program from the shaders in `dir` into d->program, with its uniforms found. */
sr_status sr_gl_program(sr_display *d, const char *dir, sr_error *err)
{
    GLuint vs = 0, fs = 0;
    sr_status s = sr_compile_file(GL_VERTEX_SHADER, dir, "display.vert", &vs, err);
    if (!s) s = sr_compile_file(GL_FRAGMENT_SHADER, dir, "display.frag", &fs, err);
    if (!s) s = sr_link(d, vs, fs, err);
    if (vs) glDeleteShader(vs);   /* the program keeps what it needs */
    if (fs) glDeleteShader(fs);
    return s;
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

sr_status sr_display_save_png(const char *path, int w, int h, sr_error *err)
{
    if (w <= 0 || h <= 0) return sr_fail(err, SR_ERR_RUNTIME, "%s: nothing on screen to save (%dx%d)", path, w, h);
    uint8_t *rgb = (uint8_t *)malloc((size_t)w * h * 3u);
    if (!rgb) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for a %dx%d screenshot", w, h);
    sr_status s = sr_display_read_rgb8(w, h, rgb, err);
    if (s) { free(rgb); return s; }
    s = sr_image_write_png8(path, rgb, (uint32_t)w, (uint32_t)h, err);   /* never a half-written PNG */
    free(rgb);
    return s;
}
