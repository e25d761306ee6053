/* overlay.h: text over the viewer's image (the H key's list of keys, the start-up hint). The
 * text becomes triangles in pixels (sr_overlay_layout: stb_easy_font's quads, no GL); the
 * sr_overlay object draws them on a dark box with a shader of its own, in any current GL 3.3
 * core context. */
#ifndef SR_OVERLAY_H
#define SR_OVERLAY_H

#include <stddef.h>
#include <stdint.h>
#include "../base/status.h"

/* Text laid out as triangles: x, y per vertex in pixels from the top-left corner, y down. The
 * first SR_OVERLAY_BOX_VERTICES are the box behind the text, the rest the glyphs'. */
typedef struct sr_overlay_mesh {
    float *xy;
    uint32_t vertex_count;
    float width, height;     /* the box: the text's extent and a margin round it */
} sr_overlay_mesh;

#define SR_OVERLAY_BOX_VERTICES 6u

/* `len` bytes of `text` ('\n' ends a line; a byte outside printable ASCII shows as '?') at
 * `scale` pixels per font pixel (stb_easy_font's glyphs are 12 font pixels a line), placed at
 * (x, y). Fails only for want of memory. */
sr_status sr_overlay_layout(const char *text, size_t len, float scale, float x, float y, sr_overlay_mesh *m,
                            sr_error *err);
void sr_overlay_mesh_free(sr_overlay_mesh *m);

typedef struct sr_overlay {
    unsigned int program, vao, vbo;    /* GL names */
    int u_viewport, u_color;
    uint32_t vertex_count;             /* in the buffer; 0: nothing to draw */
    const char *text;                  /* what the buffer holds, laid out at scale */
    size_t len;
    float scale;
} sr_overlay;

/* The shader and the buffers, in the current context. */
sr_status sr_overlay_init(sr_overlay *o, sr_error *err);

/* Show `len` bytes of `text` (which must stay) from now on at the top-left corner, scaled for
 * a framebuffer fb_h pixels tall; len 0 shows nothing. Lays the text out again only when the
 * text or the scale changes, so it can be called every frame. */
sr_status sr_overlay_set_text(sr_overlay *o, const char *text, size_t len, int fb_h, sr_error *err);

/* Draw the text over whatever the bound draw framebuffer (fb_w x fb_h) holds, blended. */
sr_status sr_overlay_draw(const sr_overlay *o, int fb_w, int fb_h, sr_error *err);

void sr_overlay_free(sr_overlay *o);

#endif
