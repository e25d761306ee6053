/* overlay.c: text over the viewer's image: stb_easy_font's quads (Debian's libstb-dev) as
 * triangles, on a dark box, drawn with a two-line shader pair kept here rather than in
 * shaders/: it is part of no picture, and a --shader-dir folder need not carry it. */
#include "overlay.h"
#include "display_gl.h"

#include <GL/glew.h>
#include <stdlib.h>
#include <string.h>

#include <stb_easy_font.h>

enum { SR_FONT_QUAD_BYTES = 64,   /* stb_easy_font: 4 vertices of x, y, z and RGBA8 */
       SR_FONT_VERTEX_BYTES = 16,
       SR_FONT_LINE = 12,         /* font pixels a line                              */
       SR_FONT_CELL = 7,          /* font pixels a character: the widest glyphs' advance */
       SR_OVERLAY_MARGIN = 4 };   /* font pixels of box round the text               */

/* ---- layout (no GL) ---------------------------------------------------------------------- */

/* The two triangles of the quad from (x0, y0) to (x1, y1), into out (12 floats). */
static float *sr_put_quad(float *out, float x0, float y0, float x1, float y1)
{
    const float v[12] = { x0, y0, x1, y0, x1, y1, x0, y0, x1, y1, x0, y1 };
    memcpy(out, v, sizeof v);
    return out + 12;
}

/* stb_easy_font's quads for `text` (printable ASCII and '\n'), in font pixels, each glyph in a
 * cell SR_FONT_CELL wide: the key list is aligned in columns of characters, as on a terminal.
 * *buf grows as needed (stb drops quads that do not fit, so a glyph that filled what was left
 * is drawn again into more). Returns the quad count, -1 for want of memory; the text's columns
 * and lines in *cols, *lines. */
static int sr_font_quads(const char *text, char **buf, int *cols, int *lines)
{
    size_t cap = 0, used = 0;
    int col = 0, line = 0;
    *cols = 0;
    for (const char *c = text; *c; c++) {
        if (*c == '\n') { col = 0; line++; continue; }
        char glyph[2] = { *c, '\0' };
        for (;;) {
            const size_t room = cap - used;
            const int quads = room ? stb_easy_font_print((float)(col * SR_FONT_CELL), (float)(line * SR_FONT_LINE), glyph,
                                                         NULL, *buf + used, (int)room) : 0;
            if (room && (size_t)quads * SR_FONT_QUAD_BYTES + SR_FONT_QUAD_BYTES <= room) {   /* room to spare: all in */
                used += (size_t)quads * SR_FONT_QUAD_BYTES;
                break;
            }
            cap = cap ? 2u * cap : 64u * SR_FONT_QUAD_BYTES;
            char *grown = cap <= (size_t)INT32_MAX ? (char *)realloc(*buf, cap) : NULL;
            if (!grown) return -1;
            *buf = grown;
        }
        if (++col > *cols) *cols = col;
    }
    *lines = line + (col > 0);   /* a last line without its '\n' counts */
    return (int)(used / SR_FONT_QUAD_BYTES);
}

sr_status sr_overlay_layout(const char *text, size_t len, float scale, float x, float y, sr_overlay_mesh *m,
                            sr_error *err)
{
    memset(m, 0, sizeof *m);
    char *clean = (char *)malloc(len + 1u), *quads_buf = NULL;
    if (!clean) return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for %zu bytes of overlay text", len);
    for (size_t i = 0; i < len; i++) {   /* stb_easy_font draws ASCII 32..126 only */
        const unsigned char c = (unsigned char)text[i];
        clean[i] = c == '\n' || (c >= 32 && c < 127) ? (char)c : '?';
    }
    clean[len] = '\0';
    int cols = 0, lines = 0;
    const int quads = sr_font_quads(clean, &quads_buf, &cols, &lines);
    free(clean);
    const size_t vertices = SR_OVERLAY_BOX_VERTICES + 6u * (size_t)(quads > 0 ? quads : 0);
    m->xy = quads < 0 ? NULL : (float *)malloc(2u * sizeof(float) * vertices);
    if (!m->xy) {
        free(quads_buf);
        return sr_fail(err, SR_ERR_RUNTIME, "out of host memory for %zu bytes of overlay text", len);
    }
    const float margin = SR_OVERLAY_MARGIN * scale;
    m->width = (float)(cols * SR_FONT_CELL) * scale + 2.0f * margin;
    m->height = (float)(lines * SR_FONT_LINE) * scale + 2.0f * margin;
    float *out = sr_put_quad(m->xy, x, y, x + m->width, y + m->height);
    for (int q = 0; q < quads; q++) {   /* corners 0 and 2 of each quad are opposite */
        const float *c0 = (const float *)(quads_buf + (size_t)q * SR_FONT_QUAD_BYTES);
        const float *c2 = (const float *)(quads_buf + (size_t)q * SR_FONT_QUAD_BYTES + 2u * SR_FONT_VERTEX_BYTES);
        out = sr_put_quad(out, x + margin + c0[0] * scale, y + margin + c0[1] * scale, x + margin + c2[0] * scale,
                          y + margin + c2[1] * scale);
    }
    m->vertex_count = (uint32_t)vertices;
    free(quads_buf);
    return SR_OK;
}

void sr_overlay_mesh_free(sr_overlay_mesh *m)
{
    free(m->xy);
    memset(m, 0, sizeof *m);
}

/* ---- GL ---------------------------------------------------------------------------------- */

static const char sr_overlay_vert[] =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_pixel;   // pixels from the top-left corner\n"
    "uniform vec2 u_viewport;\n"
    "void main() { gl_Position = vec4(2.0 * a_pixel.x / u_viewport.x - 1.0, 1.0 - 2.0 * a_pixel.y / u_viewport.y, 0.0, 1.0); }\n";

static const char sr_overlay_frag[] =
    "#version 330 core\n"
    "uniform vec4 u_color;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = u_color; }\n";

sr_status sr_overlay_init(sr_overlay *o, sr_error *err)
{
    memset(o, 0, sizeof *o);
    GLuint vs = 0, fs = 0;
    sr_status s = sr_gl_compile(GL_VERTEX_SHADER, sr_overlay_vert, "the overlay's vertex shader", &vs, err);
    if (!s) s = sr_gl_compile(GL_FRAGMENT_SHADER, sr_overlay_frag, "the overlay's fragment shader", &fs, err);
    if (!s) s = sr_gl_link(vs, fs, "the overlay's shaders", &o->program, err);
    if (vs) glDeleteShader(vs);
    if (fs) glDeleteShader(fs);
    if (s) return s;
    o->u_viewport = glGetUniformLocation(o->program, "u_viewport");
    o->u_color = glGetUniformLocation(o->program, "u_color");
    glGenVertexArrays(1, &o->vao);
    glGenBuffers(1, &o->vbo);
    glBindVertexArray(o->vao);
    glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 2 * sizeof(float), NULL);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    s = sr_gl_check("making the overlay's buffers", err);
    if (s) sr_overlay_free(o);
    return s;
}

/* Font pixels at 1 screen pixel each up to 1000 rows, 2 above (high-density screens). */
static float sr_overlay_scale(int fb_h) { return fb_h >= 1000 ? 2.0f : 1.0f; }

sr_status sr_overlay_set_text(sr_overlay *o, const char *text, size_t len, int fb_h, sr_error *err)
{
    const float scale = sr_overlay_scale(fb_h);
    if (o->text == text && o->len == len && o->scale == scale) return SR_OK;   /* laid out already */
    o->text = text;
    o->len = len;
    o->scale = scale;
    o->vertex_count = 0;
    if (!len) return SR_OK;
    sr_overlay_mesh m;
    sr_status s = sr_overlay_layout(text, len, scale, 8.0f * scale, 8.0f * scale, &m, err);
    if (s) return s;
    glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(2u * sizeof(float) * m.vertex_count), m.xy, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    o->vertex_count = m.vertex_count;
    sr_overlay_mesh_free(&m);
    return sr_gl_check("uploading the overlay's text", err);
}

sr_status sr_overlay_draw(const sr_overlay *o, int fb_w, int fb_h, sr_error *err)
{
    if (!o->vertex_count || fb_w <= 0 || fb_h <= 0) return SR_OK;
    glViewport(0, 0, fb_w, fb_h);
    glUseProgram(o->program);
    glUniform2f(o->u_viewport, (float)fb_w, (float)fb_h);
    glEnable(GL_BLEND);
    /* the box darkens the image; the framebuffer's alpha stays as it is */
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    glBindVertexArray(o->vao);
    glUniform4f(o->u_color, 0.0f, 0.0f, 0.0f, 0.7f);
    glDrawArrays(GL_TRIANGLES, 0, (GLsizei)SR_OVERLAY_BOX_VERTICES);
    glUniform4f(o->u_color, 1.0f, 1.0f, 1.0f, 1.0f);
    glDrawArrays(GL_TRIANGLES, (GLint)SR_OVERLAY_BOX_VERTICES, (GLsizei)(o->vertex_count - SR_OVERLAY_BOX_VERTICES));
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    glUseProgram(0);
    return sr_gl_check("drawing the overlay", err);
}

void sr_overlay_free(sr_overlay *o)
{
    if (o->vbo) glDeleteBuffers(1, &o->vbo);
    if (o->vao) glDeleteVertexArrays(1, &o->vao);
    if (o->program) glDeleteProgram(o->program);
    memset(o, 0, sizeof *o);
}
