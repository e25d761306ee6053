/* viewer.c: `stencilray view`: a GLFW window that shows the scene converging live. One sample
 * per pixel per frame is added to the film; any change of camera, depth, mask or size clears
 * it. The film reaches the screen through src/viewer/display.c (CUDA-GL interop on a CUDA device,
 * host memory otherwise). Scripted runs (--frames, --screenshot, --script) make it testable. */
#include "viewer.h"
#include "view_opts.h"
#include "../api/frame_desc.h"
#include "../settings/camera_arg.h"
#include "display.h"
#include "overlay.h"
#include "../app/options.h"
#include "../render/render.h"
#include "../scene/scene.h"
#include "../../kernels/core/vmath.h"

#include <GL/glew.h>   /* before glfw3.h, which would include GL/gl.h */
#include <GLFW/glfw3.h>
#include "view_load.h"
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- the viewer's state ------------------------------------------------------------------ */

#define SR_VIEW_LAG 3u   /* frames whose timing marks may be in flight: read two frames late */

/* What the viewer runs with: the desc's settings as the command's shared options (the scene
 * is read and the backend opened as render does it: options.h), and its script. */
typedef struct sr_view_opts {
    sr_common c;
    const sr_view_step *steps;
    uint32_t step_count;
    const char *shader_dir;
} sr_view_opts;

typedef struct sr_viewer {
    sr_view_opts *o;
    sr_scene scene;
    sr_backend be;
    sr_renderer r;
    int have_renderer;
    sr_display disp;
    sr_overlay overlay;           /* the key list (H) or the start-up hint over the image   */
    int have_overlay, keys_shown;
    double hint_until;            /* the hint shows until then (glfwGetTime)                */
    GLFWwindow *win;
    /* The viewer's frame settings, the one place its camera, size (the film's: the
     * framebuffer's, once settled), depth, mask, exposure and tonemap are held; the renderer
     * gets it with every sample. */
    sr_frame frame;
    sr_camera_desc home;          /* where R puts the camera back                          */
    uint32_t spf;                 /* samples per frame                                     */
    uint32_t sample;              /* samples in the film                                   */
    int dirty;                    /* the frame changed: start the film again               */
    int vsync, scripted, drawn;
    float speed;                  /* fly speed, scene units per second                     */
    int dragging;
    double mx, my, last_frame, size_changed_at;
    int seen_w, seen_h;
    int shot_pending;
    /* heads-up, over the last quarter second */
    double hud_t0, hud_busy;
    double hud_render_ms, hud_display_ms;   /* sums over the frames that traced / drew */
    uint32_t hud_frames, hud_samples, hud_rendered, hud_accounted;
    uint64_t hud_rays[SR_MAX_DEPTH];
    /* the whole run, for the scripted summary */
    uint32_t frames_total, run_rendered;
    double run_t0, run_render_ms, run_display_ms;
    /* script */
    uint32_t step, frames_left;
    /* frames whose timing marks are read late (sr_view_account), by frames_total % SR_VIEW_LAG */
    struct sr_view_pending {
        int used, upload, queued;
        uint32_t added;
        double upload_s;
    } pending[SR_VIEW_LAG];
} sr_viewer;

static char sr_glfw_last[512];

static void sr_glfw_error(int code, const char *what)
{
    snprintf(sr_glfw_last, sizeof sr_glfw_last, "%s (GLFW error 0x%x)", what, code);
}

static const char sr_view_hint[] = "press H for keys";

static void sr_print_keys(void)
{
    size_t len = 0;
    const char *keys = sr_view_keys(&len);
    fwrite(keys, 1, len, stdout);
    fflush(stdout);
}

/* ---- camera ------------------------------------------------------------------------------ */

/* C: the camera in the two forms that take it back, on standard output (a pipe or a
 * terminal; the window has no text field to copy from). */
static void sr_print_camera(const sr_camera_desc *c)
{
    char arg[256], json[384];
    if (sr_camera_arg_format(c, arg, sizeof arg) < 0 || sr_camera_json_format(c, json, sizeof json) < 0) return;
    printf("--camera %s\n\"camera\": %s\n", arg, json);
    fflush(stdout);
}

/* Turn the camera around its look-at point: yaw about the scene's up, pitch towards it. */
static void sr_orbit(sr_camera_desc *c, float dyaw, float dpitch)
{
    sr_vec3 up = sr_normalize(c->up), t, b;
    sr_onb(up, &t, &b);
    sr_vec3 off = sr_sub(c->position, c->look_at);
    float r = sr_length(off);
    if (!(r > 0.0f)) return;
    float yaw = atan2f(sr_dot(off, t), sr_dot(off, b)) + dyaw;
    float pitch = asinf(sr_clampf(sr_dot(off, up) / r, -1.0f, 1.0f)) + dpitch;
    pitch = sr_clampf(pitch, -1.55f, 1.55f);   /* never straight along up: the basis would fold */
    sr_vec3 flat = sr_add(sr_scale(t, sinf(yaw)), sr_scale(b, cosf(yaw)));
    off = sr_scale(sr_add(sr_scale(flat, cosf(pitch)), sr_scale(up, sinf(pitch))), r);
    c->position = sr_add(c->look_at, off);
}

/* Held keys move the camera and its look-at point together. Returns whether it moved. */
static int sr_fly(sr_viewer *v, float dt)
{
    GLFWwindow *w = v->win;
    float f = (float)(glfwGetKey(w, GLFW_KEY_W) == GLFW_PRESS) - (float)(glfwGetKey(w, GLFW_KEY_S) == GLFW_PRESS);
    float s = (float)(glfwGetKey(w, GLFW_KEY_D) == GLFW_PRESS) - (float)(glfwGetKey(w, GLFW_KEY_A) == GLFW_PRESS);
    float u = (float)(glfwGetKey(w, GLFW_KEY_E) == GLFW_PRESS) - (float)(glfwGetKey(w, GLFW_KEY_Q) == GLFW_PRESS);
    if (f == 0.0f && s == 0.0f && u == 0.0f) return 0;
    int fast = glfwGetKey(w, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS || glfwGetKey(w, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS;
    float step = v->speed * (fast ? 4.0f : 1.0f) * dt;
    sr_vec3 up = sr_normalize(v->frame.camera.up);
    sr_vec3 fwd = sr_normalize(sr_sub(v->frame.camera.look_at, v->frame.camera.position));
    sr_vec3 right = sr_normalize(sr_cross(fwd, up));
    sr_vec3 d = sr_add(sr_add(sr_scale(fwd, f * step), sr_scale(right, s * step)), sr_scale(up, u * step));
    v->frame.camera.position = sr_add(v->frame.camera.position, d);
    v->frame.camera.look_at = sr_add(v->frame.camera.look_at, d);
    return 1;
}

/* ---- input ------------------------------------------------------------------------------- */

/* A key pressed (action GLFW_PRESS) or repeating while held (GLFW_REPEAT): from the window,
 * or from a script's key= step. */
static void sr_view_press(sr_viewer *v, int key, int action)
{
    GLFWwindow *w = v->win;
    /* Keys that repeat while held. */
    switch (key) {
    case GLFW_KEY_EQUAL: case GLFW_KEY_KP_ADD: v->frame.exposure *= 1.41421356f; return;
    case GLFW_KEY_MINUS: case GLFW_KEY_KP_SUBTRACT: v->frame.exposure /= 1.41421356f; return;
    case GLFW_KEY_LEFT_BRACKET: v->speed *= 0.5f; return;
    case GLFW_KEY_RIGHT_BRACKET: v->speed *= 2.0f; return;
    default: break;
    }
    if (action != GLFW_PRESS) return;
    if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) { v->frame.depth = (uint32_t)(key - GLFW_KEY_0); v->dirty = 1; return; }
    if (key >= GLFW_KEY_KP_1 && key <= GLFW_KEY_KP_9) { v->frame.depth = (uint32_t)(key - GLFW_KEY_KP_0); v->dirty = 1; return; }
    switch (key) {
    case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(w, GLFW_TRUE); break;
    case GLFW_KEY_R: v->frame.camera = v->home; v->dirty = 1; break;
    case GLFW_KEY_M: v->frame.render.mask = (sr_mask)((v->frame.render.mask + 1) % SR_MASK_COUNT); v->dirty = 1; break;
    case GLFW_KEY_V: v->vsync = !v->vsync; glfwSwapInterval(v->vsync); break;
    case GLFW_KEY_P: v->shot_pending = 1; break;
    case GLFW_KEY_H:
        v->keys_shown = !v->keys_shown;
        if (v->keys_shown) sr_print_keys();
        break;
    case GLFW_KEY_C: sr_print_camera(&v->frame.camera); break;
    default: break;
    }
}

static void sr_on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode; (void)mods;
    if (action != GLFW_RELEASE) sr_view_press((sr_viewer *)glfwGetWindowUserPointer(w), key, action);
}

/* A script's key=K (view_opts.c: one of H R C M V P 1..9 + - [ ]) as the GLFW key. */
static int sr_script_key(uint32_t c)
{
    if (c >= 'A' && c <= 'Z') return GLFW_KEY_A + (int)(c - 'A');
    if (c >= '0' && c <= '9') return GLFW_KEY_0 + (int)(c - '0');
    switch (c) {
    case '+': return GLFW_KEY_EQUAL;
    case '-': return GLFW_KEY_MINUS;
    case '[': return GLFW_KEY_LEFT_BRACKET;
    case ']': return GLFW_KEY_RIGHT_BRACKET;
    default: return GLFW_KEY_UNKNOWN;
    }
}

static void sr_on_button(GLFWwindow *w, int button, int action, int mods)
{
    (void)mods;
    sr_viewer *v = (sr_viewer *)glfwGetWindowUserPointer(w);
    if (button != GLFW_MOUSE_BUTTON_LEFT) return;
    v->dragging = action == GLFW_PRESS;
    glfwGetCursorPos(w, &v->mx, &v->my);
}

static void sr_on_cursor(GLFWwindow *w, double x, double y)
{
    sr_viewer *v = (sr_viewer *)glfwGetWindowUserPointer(w);
    if (v->dragging && (x != v->mx || y != v->my)) {
        sr_orbit(&v->frame.camera, -(float)(x - v->mx) * 0.006f, (float)(y - v->my) * 0.006f);
        v->dirty = 1;
    }
    v->mx = x;
    v->my = y;
}

static void sr_on_scroll(GLFWwindow *w, double dx, double dy)
{
    (void)dx;
    sr_viewer *v = (sr_viewer *)glfwGetWindowUserPointer(w);
    v->frame.camera.vfov_deg = sr_clampf(v->frame.camera.vfov_deg * powf(0.9f, (float)dy), 2.0f, 150.0f);
    v->dirty = 1;
}

/* ---- film -------------------------------------------------------------------------------- */

/* A film of the framebuffer's size: the first time, prepare the renderer (the BVH, the
 * uploads); after that only what depends on the size is made again (the ray pool, the film,
 * the masks), and the display follows. */
static sr_status sr_view_resize(sr_viewer *v, uint32_t w, uint32_t h, sr_error *err)
{
    v->frame.width = w;
    v->frame.height = h;
    sr_status s = v->have_renderer ? sr_renderer_apply(&v->r, &v->frame, err)
                                   : sr_renderer_prepare(&v->r, &v->scene, &v->be, &v->frame, err);
    if (s) return s;
    v->have_renderer = 1;
    char note[1200];
    int had_interop = v->disp.interop != NULL;
    if ((s = sr_display_resize(&v->disp, w, h, note, sizeof note, err))) return s;
    if (had_interop && !v->disp.interop) fprintf(stderr, "stencilray view: interop lost on resize: %s\n", note);
    v->dirty = 1;
    return SR_OK;
}

/* Follow the framebuffer's size; interactively only once it has held still for 0.15 s, so
 * that dragging a window edge does not reallocate the film every frame. */
static sr_status sr_view_follow_size(sr_viewer *v, sr_error *err)
{
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(v->win, &fw, &fh);
    double now = glfwGetTime();
    if (fw != v->seen_w || fh != v->seen_h) {
        v->seen_w = fw;
        v->seen_h = fh;
        v->size_changed_at = now;
    }
    if (fw <= 0 || fh <= 0 || ((uint32_t)fw == v->frame.width && (uint32_t)fh == v->frame.height)) return SR_OK;
    if ((uint64_t)fw * (uint64_t)fh > (1u << 28)) return SR_OK;   /* keep the last film, stretched */
    if (!v->scripted && v->have_renderer && now - v->size_changed_at < 0.15) return SR_OK;
    return sr_view_resize(v, (uint32_t)fw, (uint32_t)fh, err);
}

/* Start accumulating again with the current frame settings. */
static sr_status sr_view_restart(sr_viewer *v, sr_error *err)
{
    sr_status s = sr_renderer_apply(&v->r, &v->frame, err);
    if (!s) s = sr_renderer_clear_film(&v->r, err);
    if (s) return s;
    v->sample = 0;
    v->dirty = 0;
    return SR_OK;
}

/* Add this frame's samples (none once the film holds SR_MAX_SPP). Returns how many. */
static sr_status sr_view_trace(sr_viewer *v, uint32_t *added, sr_error *err)
{
    sr_render_stats st;
    memset(&st, 0, sizeof st);
    *added = 0;
    for (uint32_t k = 0; k < v->spf && v->sample < SR_MAX_SPP; k++) {
        sr_status s = sr_render_sample(&v->r, &v->frame, v->sample, &st, err);
        if (s) return s;
        v->sample++;
        (*added)++;
    }
    for (uint32_t b = 0; b < SR_MAX_DEPTH; b++) v->hud_rays[b] += st.bounce_rays[b];
    v->hud_samples += st.samples;
    return SR_OK;
}

/* ---- heads-up ---------------------------------------------------------------------------- */

static const char *sr_view_backend_label(const sr_viewer *v)
{
    if (v->be.kind != SR_BACKEND_CUDA) return "cpu";
    const int blit = sr_display_blits(&v->disp);
    switch (v->disp.path) {
    case SR_DISPLAY_EXTMEM:
        return blit ? "cuda, external memory, blit"
                    : sr_display_draws_rows(&v->disp) ? "cuda, external memory, rows" : "cuda, external memory";
    case SR_DISPLAY_SURFACE: return blit ? "cuda, interop, blit" : "cuda, interop";
    case SR_DISPLAY_PIXEL_BUFFER: return "cuda, interop (pixel buffer)";
    default: return "cuda, host copy";
    }
}

/* 57600 -> "57.6k": short enough for a window title. */
static int sr_fmt_count(char *buf, size_t cap, double n)
{
    if (n < 1e3) return snprintf(buf, cap, " %.0f", n);
    if (n < 1e6) return snprintf(buf, cap, n < 1e5 ? " %.1fk" : " %.0fk", n / 1e3);
    return snprintf(buf, cap, " %.2fM", n / 1e6);
}

static void sr_view_hud(sr_viewer *v, double frame_s)
{
    v->hud_frames++;
    v->hud_busy += frame_s;
    double now = glfwGetTime(), span = now - v->hud_t0;
    if (span < 0.25) return;
    /* Rays that entered each bounce, per sample: how fast the live set shrinks. */
    char rays[512] = "";
    size_t used = 0;
    for (uint32_t b = 0; b < v->frame.depth && b < SR_MAX_DEPTH && v->hud_samples; b++) {
        if (b > 0 && v->hud_rays[b] == 0) break;
        int n = sr_fmt_count(rays + used, sizeof rays - used, (double)v->hud_rays[b] / v->hud_samples);
        if (n < 0 || (size_t)n >= sizeof rays - used) break;
        used += (size_t)n;
    }
    char render[32] = "-";
    if (v->hud_rendered) snprintf(render, sizeof render, "%.2f ms", v->hud_render_ms / v->hud_rendered);
    char title[1024];
    snprintf(title, sizeof title, "stencilray | %.1f FPS, %.1f ms%s | render %s, display %.2f ms | %u spp | depth %u | %s "
             "| mask %s | exposure %.2f | rays/bounce:%s", v->hud_frames / span, 1e3 * v->hud_busy / v->hud_frames,
             v->vsync ? " (vsync)" : "", render, v->hud_accounted ? v->hud_display_ms / v->hud_accounted : 0.0,
             v->sample, v->frame.depth,             sr_view_backend_label(v), sr_mask_name(v->frame.render.mask), v->frame.exposure, used ? rays : " -");
    glfwSetWindowTitle(v->win, title);
    v->hud_t0 = now;
    v->hud_busy = v->hud_render_ms = v->hud_display_ms = 0;
    v->hud_frames = v->hud_samples = v->hud_rendered = v->hud_accounted = 0;
    memset(v->hud_rays, 0, sizeof v->hud_rays);
}

/* ---- frames ------------------------------------------------------------------------------ */

/* The backend's timing marks the viewer records each frame, past the ones a sample uses
 * (render.c: from 0, and the last two): four a frame (around the samples, around the upload),
 * for each of SR_VIEW_LAG frames in flight. */
#define SR_VIEW_MARKS(slot) (SR_MAX_MARKS - 2u - 4u * SR_VIEW_LAG + 4u * (slot))
#define SR_VIEW_MARK_RENDER(slot) SR_VIEW_MARKS(slot)          /* and +1 */
#define SR_VIEW_MARK_DISPLAY(slot) (SR_VIEW_MARKS(slot) + 2u)  /* and +1 */

/* A frame's render and display times for the title, read two frames after it was made, so
 * that the CPU never waits for the GPU to learn them (by then the GPU has passed them, or the
 * read waits only for those marks). render: the backend's marks around the samples (CUDA
 * events on the GPU, so the GPU's time; the wall clock on the CPU). display: the upload,
 * timed by the marks around it on the surface and external-memory paths (queued work) and by
 * the wall clock on the others (the CPU waits for them), plus the GPU time of a recent frame's
 * GL work (a GL timer query, also read late). */
static sr_status sr_view_account(sr_viewer *v, uint32_t slot, sr_error *err)
{
    struct sr_view_pending *p = &v->pending[slot];
    if (!p->used) return SR_OK;
    p->used = 0;
    float ms = 0.0f;
    if (p->added) {
        sr_status s = sr_renderer_elapsed_ms(&v->r, SR_VIEW_MARK_RENDER(slot), SR_VIEW_MARK_RENDER(slot) + 1u, &ms, err);
        if (s) return s;
        v->hud_render_ms += ms;
        v->hud_rendered++;
        v->run_render_ms += ms;
        v->run_rendered++;
    }
    double display_ms = 0.0;
    if (p->upload && p->queued) {
        sr_status s = sr_renderer_elapsed_ms(&v->r, SR_VIEW_MARK_DISPLAY(slot), SR_VIEW_MARK_DISPLAY(slot) + 1u, &ms, err);
        if (s) return s;
        display_ms += ms;
    } else if (p->upload) {
        display_ms += 1e3 * p->upload_s;
    }
    const double draw = sr_display_draw_ms(&v->disp);
    if (draw > 0.0) display_ms += draw;
    v->hud_display_ms += display_ms;
    v->run_display_ms += display_ms;
    v->hud_accounted++;
    return SR_OK;
}

/* Every frame still waiting to be counted, oldest first (before the summary). */
static sr_status sr_view_account_all(sr_viewer *v, sr_error *err)
{
    for (uint32_t k = 1; k <= SR_VIEW_LAG; k++) {
        sr_status s = sr_view_account(v, (v->frames_total + k) % SR_VIEW_LAG, err);
        if (s) return s;
    }
    return SR_OK;
}

static sr_status sr_view_draw(sr_viewer *v, sr_error *err)
{
    /* Display values made with another exposure or tonemap (surface path): make them again. */
    if (v->sample && sr_display_stale(&v->disp, v->frame.exposure, v->frame.tonemap)) {
        sr_status s = sr_display_upload(&v->disp, &v->r, 1.0f / (float)v->sample, v->frame.exposure, v->frame.tonemap, err);
        if (s) return s;
    }
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(v->win, &fw, &fh);
    /* No clear: the draw and the blit both cover every pixel. */
    sr_status s = sr_display_draw(&v->disp, fw, fh, v->frame.exposure, v->frame.tonemap, err);
    if (s || !v->have_overlay) return s;
    /* Over it: the key list while H has it on, else the hint for the first seconds. */
    size_t len = 0;
    const char *text = v->keys_shown ? sr_view_keys(&len) : sr_view_hint;
    if (!v->keys_shown) len = glfwGetTime() < v->hint_until ? strlen(sr_view_hint) : 0;
    s = sr_overlay_set_text(&v->overlay, text, len, fh, err);
    return s ? s : sr_overlay_draw(&v->overlay, fw, fh, err);
}

/* Draw the film as it is shown and read the framebuffer back into a PNG: the back buffer is
 * drawn again (its content after a swap is undefined), so this is exactly what the window
 * shows, tonemap shader included. */
static sr_status sr_view_shot(sr_viewer *v, const char *path, sr_error *err)
{
    if (!v->drawn) return sr_fail(err, SR_ERR_INPUT, "%s: no frame has been drawn yet to save", path);
    sr_status s = sr_view_draw(v, err);
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(v->win, &fw, &fh);
    if (!s) s = sr_display_save_png(path, fw, fh, err);
    if (!s && !v->o->c.quiet) fprintf(stderr, "stencilray view: saved %dx%d screenshot %s (%u spp)\n", fw, fh, path, v->sample);
    return s;
}

/* P: the next free stencilray-NNNN.png in the current folder. */
static sr_status sr_view_key_shot(sr_viewer *v, sr_error *err)
{
    char name[64];
    for (unsigned n = 1; n < 10000; n++) {
        snprintf(name, sizeof name, "stencilray-%04u.png", n);
        if (access(name, F_OK) != 0) return sr_view_shot(v, name, err);
    }
    return sr_fail(err, SR_ERR_RUNTIME, "stencilray-0001.png .. stencilray-9999.png all exist; not saving");
}

static sr_status sr_view_frame(sr_viewer *v, sr_error *err)
{
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(v->win, &fw, &fh);
    if (fw <= 0 || fh <= 0) {   /* minimised: nothing to show, so nothing to trace */
        glfwWaitEventsTimeout(0.1);
        v->last_frame = glfwGetTime();
        return SR_OK;
    }
    double t0 = glfwGetTime();
    float dt = (float)sr_minf((float)(t0 - v->last_frame), 0.1f);   /* no leaps after a stall */
    v->last_frame = t0;
    if (!v->scripted && sr_fly(v, dt)) v->dirty = 1;
    sr_status s = sr_view_follow_size(v, err);
    if (!s && v->dirty) s = sr_view_restart(v, err);
    uint32_t added = 0;
    const uint32_t slot = v->frames_total % SR_VIEW_LAG;
    if (!s) s = sr_view_account(v, slot, err);   /* normally counted already, two frames ago */
    if (!s) s = sr_renderer_mark(&v->r, SR_VIEW_MARK_RENDER(slot), err);
    if (!s) s = sr_view_trace(v, &added, err);
    if (!s) s = sr_renderer_mark(&v->r, SR_VIEW_MARK_RENDER(slot) + 1u, err);
    /* A new film, or display values to make again with a new exposure or tonemap. */
    const int upload = !s && v->sample && (added || sr_display_stale(&v->disp, v->frame.exposure, v->frame.tonemap));
    /* timed by events, not the clock */
    const int queued = v->disp.path == SR_DISPLAY_SURFACE || v->disp.path == SR_DISPLAY_EXTMEM;
    double upload_s = 0.0;
    if (upload) {
        const double t_up = sr_now();
        if (queued) s = sr_renderer_mark(&v->r, SR_VIEW_MARK_DISPLAY(slot), err);
        if (!s) s = sr_display_upload(&v->disp, &v->r, 1.0f / (float)v->sample, v->frame.exposure, v->frame.tonemap, err);
        if (!s && queued) s = sr_renderer_mark(&v->r, SR_VIEW_MARK_DISPLAY(slot) + 1u, err);
        upload_s = sr_now() - t_up;
    }
    if (!s) s = sr_view_draw(v, err);
    if (s) return s;
    v->drawn = 1;
    if (v->shot_pending) {
        v->shot_pending = 0;
        if ((s = sr_view_key_shot(v, err))) return s;
    }
    glfwSwapBuffers(v->win);
    v->pending[slot] = (struct sr_view_pending){ .used = 1, .upload = upload, .queued = queued, .added = added,
                                                 .upload_s = upload_s };
    v->frames_total++;
    /* The frame made two frames ago: its marks have passed by now, as a rule. */
    if ((s = sr_view_account(v, (slot + 1u) % SR_VIEW_LAG, err))) return s;
    sr_view_hud(v, glfwGetTime() - t0);
    if (!added && !v->scripted) glfwWaitEventsTimeout(0.05);   /* converged: do not spin */
    return SR_OK;
}

/* ---- script ------------------------------------------------------------------------------ */

/* Ask for a window size and wait for it to take effect (the window system answers later). */
static sr_status sr_view_set_size(sr_viewer *v, uint32_t w, uint32_t h, sr_error *err)
{
    glfwSetWindowSize(v->win, (int)w, (int)h);
    double t0 = glfwGetTime();
    int ww = 0, wh = 0;
    for (;;) {
        glfwWaitEventsTimeout(0.02);
        glfwGetWindowSize(v->win, &ww, &wh);
        if ((uint32_t)ww == w && (uint32_t)wh == h) return SR_OK;
        if (glfwGetTime() - t0 > 5.0) break;
    }
    return sr_fail(err, SR_ERR_RUNTIME, "size=%ux%u: the window stayed %dx%d (the window manager may not allow it)",
                   w, h, ww, wh);
}

/* Run script steps up to the next frames step. Returns 1 when the script is over. */
static int sr_view_run_steps(sr_viewer *v, sr_status *s, sr_error *err)
{
    sr_view_opts *o = v->o;
    while (v->step < o->step_count) {
        const sr_view_step *st = &o->steps[v->step];
        if (st->kind == SR_VIEW_STEP_FRAMES) {
            if (!v->frames_left) v->frames_left = st->a;
            return 0;
        }
        switch (st->kind) {
        case SR_VIEW_STEP_DEPTH: v->frame.depth = st->a; v->dirty = 1; break;
        case SR_VIEW_STEP_MASK: v->frame.render.mask = sr_frame_mask((sr_mask_kind)st->a); v->dirty = 1; break;
        case SR_VIEW_STEP_SIZE: *s = sr_view_set_size(v, st->a, st->b, err); break;
        case SR_VIEW_STEP_EXPOSURE: v->frame.exposure = st->exposure; break;
        case SR_VIEW_STEP_TONEMAP: v->frame.tonemap = (sr_tonemap)st->a; break;
        case SR_VIEW_STEP_CAMERA: {
            char why[256];
            sr_camera_arg cam = { .count = (int)st->camera_count };
            memcpy(cam.v, st->camera, sizeof cam.v);
            if (!sr_camera_arg_apply(&cam, &v->frame.camera, why, sizeof why))
                *s = sr_fail(err, SR_ERR_INPUT, "--script: camera step %u: %s", v->step + 1, why);
            v->dirty = 1;
            break;
        }
        case SR_VIEW_STEP_SHOT: *s = sr_view_shot(v, st->path, err); break;
        case SR_VIEW_STEP_PRINT: sr_print_camera(&v->frame.camera); break;
        case SR_VIEW_STEP_KEY: sr_view_press(v, sr_script_key(st->a), GLFW_PRESS); break;
        default: break;
        }
        v->step++;
        if (*s) return 1;
    }
    return 1;
}

static sr_status sr_view_loop(sr_viewer *v, sr_error *err)
{
    sr_status s = SR_OK;
    while (!s && !glfwWindowShouldClose(v->win)) {
        glfwPollEvents();
        if (v->scripted && sr_view_run_steps(v, &s, err)) break;
        if ((s = sr_view_frame(v, err))) break;
        if (v->scripted && --v->frames_left == 0) v->step++;
    }
    return s;
}

/* ---- setup ------------------------------------------------------------------------------- */

static int sr_no_display(void)
{
    fprintf(stderr,
            "stencilray view: no display to open a window on (%s).\n"
            "  To render to a file instead:   stencilray render SCENE.json -o out.png\n"
            "  To run the viewer off-screen:  xvfb-run -a stencilray view SCENE.json --frames N --screenshot out.png\n",
            sr_glfw_last[0] ? sr_glfw_last : "DISPLAY and WAYLAND_DISPLAY are not set");
    return 1;
}

static sr_status sr_view_window(sr_viewer *v, sr_error *err)
{
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    glfwWindowHint(GLFW_SRGB_CAPABLE, GLFW_FALSE);   /* the shader encodes sRGB itself */
    glfwWindowHint(GLFW_DEPTH_BITS, 0);
    glfwWindowHint(GLFW_STENCIL_BITS, 0);
    v->win = glfwCreateWindow((int)v->frame.width, (int)v->frame.height, "stencilray", NULL, NULL);
    if (!v->win)
        return sr_fail(err, SR_ERR_RUNTIME, "cannot open a %ux%u window with an OpenGL 3.3 core context: %s",
                       v->frame.width, v->frame.height, sr_glfw_last[0] ? sr_glfw_last : "unknown GLFW error");
    glfwMakeContextCurrent(v->win);
    glfwSetWindowUserPointer(v->win, v);
    glfwSetKeyCallback(v->win, sr_on_key);
    glfwSetMouseButtonCallback(v->win, sr_on_button);
    glfwSetCursorPosCallback(v->win, sr_on_cursor);
    glfwSetScrollCallback(v->win, sr_on_scroll);
    glfwSwapInterval(v->vsync);
    return sr_display_gl_load(err);
}

/* The display path: $SR_DISPLAY_PATH (sr_display_choices: extmem-rows, extmem, blit, draw,
 * extmem-draw, pbo, host), else the first choice, the one measured fastest. A CUDA backend gets it
 * or the next that works, saying once why; the CPU backend goes through host memory. */
static sr_status sr_view_choose_path(sr_viewer *v, sr_error *err)
{
    const int quiet = v->o->c.quiet;
    int n = 0;
    const sr_display_choice *choice = sr_display_choices(&n);
    const char *env = getenv("SR_DISPLAY_PATH");
    if (env && *env) {
        char expected[256];
        choice = sr_display_choice_find(env, expected, sizeof expected);
        if (!choice)
            return sr_fail(err, SR_ERR_INPUT, "SR_DISPLAY_PATH=%s: unknown display path; expected one of %s", env, expected);
    }
    sr_display_set_present(&v->disp, choice->present);
    if (v->be.kind != SR_BACKEND_CUDA) {
        if (!quiet) fprintf(stderr, "stencilray view: CPU backend, frames uploaded from host memory to %s\n", v->disp.gl_renderer);
        return SR_OK;
    }
    if (choice->path == SR_DISPLAY_HOST) {
        if (!quiet) fprintf(stderr, "stencilray view: SR_DISPLAY_PATH=host: copying each frame through host memory\n");
        return SR_OK;
    }
    char why[2048];
    const sr_display_path got = sr_display_enable_interop(&v->disp, (int)v->o->c.ask.gpu, choice->path, why, sizeof why);
    const char *how = sr_display_draws_rows(&v->disp) ? "drawn straight from the shared memory"
                      : got == SR_DISPLAY_EXTMEM ? (sr_display_blits(&v->disp) ? "copied to a texture and blitted"
                                                                                 : "copied to a texture and drawn")
                      : sr_display_blits(&v->disp) ? "blitted" : "drawn";
    const char *where = got == SR_DISPLAY_EXTMEM ? "shared memory (external memory, no per-frame map)"
                        : got == SR_DISPLAY_SURFACE ? "the GL texture (mapped for CUDA each frame)"
                        : "a pixel buffer (mapped each frame; GL copies and tonemaps)";
    if (got == SR_DISPLAY_HOST) {
        fprintf(stderr, "stencilray view: no CUDA-OpenGL interop (%s); copying each frame through host memory\n", why);
    } else if (got != choice->path) {   /* not what was asked for: one line, even with -q */
        fprintf(stderr, "stencilray view: no %s path (%s); each frame goes to %s and is %s\n",
                sr_display_path_name(choice->path), why, where, how);
    } else if (choice->present == SR_PRESENT_DRAW_ROWS && !sr_display_draws_rows(&v->disp)) {
        fprintf(stderr, "stencilray view: the frame has more texels than a GL buffer texture holds; each frame goes to %s "
                        "and is %s\n", where, how);
    } else if (!quiet) {
        fprintf(stderr, "stencilray view: CUDA-OpenGL interop on %s: each frame is tonemapped into %s and %s\n",
                v->disp.gl_renderer, where, how);
    }
    return SR_OK;
}

static sr_status sr_view_setup(sr_viewer *v, sr_error *err)
{
    sr_view_opts *o = v->o;
    /* The options' frame, the scene's values where they gave none (sr_open): the viewer's. */
    v->frame = o->c.frame;
    v->home = v->frame.camera;
    v->spf = o->c.ask.spp ? o->c.ask.spp : 1;   /* --spp: samples per frame */
    /* More than one sample: jitter each inside its pixel, as render does for spp > 1; the
     * samples are numbered 0, 1, 2... from each restart, so N frames equal render --spp N. */
    v->frame.spp = SR_MAX_SPP;
    v->frame.render.progress = 0;
    v->frame.render.times = NULL;
    v->frame.render.bounce_counts = 1;   /* the heads-up's rays per bounce */
    v->speed = sr_maxf(0.5f * sr_length(sr_sub(v->frame.camera.position, v->frame.camera.look_at)), 0.1f);
    /* The window opened before the scene was read, at the options' size: now the scene's. */
    int ww = 0, wh = 0;
    glfwGetWindowSize(v->win, &ww, &wh);
    if ((uint32_t)ww != v->frame.width || (uint32_t)wh != v->frame.height) {
        glfwSetWindowSize(v->win, (int)v->frame.width, (int)v->frame.height);
        const double asked = glfwGetTime();   /* the window system answers within a few events */
        do {
            glfwWaitEventsTimeout(0.01);
            glfwGetWindowSize(v->win, &ww, &wh);
        } while (((uint32_t)ww != v->frame.width || (uint32_t)wh != v->frame.height) && glfwGetTime() - asked < 1.0);
    }
    char title[96];
    snprintf(title, sizeof title, "stencilray | building BVH over %u primitives", v->scene.prim_count);
    glfwSetWindowTitle(v->win, title);
    glClear(GL_COLOR_BUFFER_BIT);
    glfwSwapBuffers(v->win);
    sr_status s = SR_OK;
    char dir[PATH_MAX + 16];   /* a folder that opened: shorter than PATH_MAX */
    if (!s) s = sr_display_find_shaders(o->shader_dir, dir, sizeof dir, err);
    if (!s) s = sr_display_init(&v->disp, dir, err);
    if (!s) s = sr_overlay_init(&v->overlay, err);
    if (s) return s;
    v->have_overlay = 1;
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(v->win, &fw, &fh);
    if (fw <= 0 || fh <= 0) { fw = (int)v->frame.width; fh = (int)v->frame.height; }
    v->seen_w = fw;
    v->seen_h = fh;
    if ((s = sr_view_resize(v, (uint32_t)fw, (uint32_t)fh, err))) return s;
    if ((s = sr_view_choose_path(v, err))) return s;
    v->run_t0 = v->hud_t0 = v->last_frame = glfwGetTime();
    if (!v->scripted) {   /* a script's shots show the image alone */
        v->hint_until = v->run_t0 + 5.0;
        if (!o->c.quiet) fprintf(stderr, "stencilray view: %s\n", sr_view_hint);
    }
    return SR_OK;
}

static void sr_view_summary(const sr_viewer *v)
{
    double t = glfwGetTime() - v->run_t0;
    printf("view %s %s | %ux%u, %u frames, %u spp, depth %u, mask %s | %.2f ms/frame (%.1f FPS): render %.2f ms, "
           "display %.2f ms\n", sr_view_backend_label(v), v->be.device_name, v->frame.width, v->frame.height, v->frames_total,
           v->sample, v->frame.depth, sr_mask_name(v->frame.render.mask), v->frames_total ? 1e3 * t / v->frames_total : 0.0,
           t > 0 ? v->frames_total / t : 0.0, v->run_rendered ? v->run_render_ms / v->run_rendered : 0.0,
           v->frames_total ? v->run_display_ms / v->frames_total : 0.0);
}

/* A desc's script steps in range, for callers other than the command line (which parses
 * them so). 0, or 2 after printing which step is wrong. */
static int sr_view_steps_ok(const sr_view_desc *d)
{
    const char *bad = d->step_count > SR_MAX_STEPS || (d->step_count && !d->steps) ? "more than 64 steps, or none given" : NULL;
    uint32_t k = 0;
    for (; !bad && k < d->step_count; k++) {
        const sr_view_step *st = &d->steps[k];
        const uint32_t n = st->camera_count;
        if ((unsigned)st->kind > SR_VIEW_STEP_KEY) bad = "not an sr_view_step_kind";
        else if (st->kind == SR_VIEW_STEP_FRAMES && !st->a) bad = "0 frames";
        else if (st->kind == SR_VIEW_STEP_DEPTH && (!st->a || st->a > SR_MAX_DEPTH)) bad = "a depth outside 1..64";
        else if (st->kind == SR_VIEW_STEP_MASK && (st->a < SR_MASK_KIND_WAVE || st->a > SR_MASK_KIND_MEGAKERNEL)) bad = "not a mask";
        else if (st->kind == SR_VIEW_STEP_SIZE && (!st->a || !st->b || st->a > SR_MAX_RESOLUTION || st->b > SR_MAX_RESOLUTION))
            bad = "a size outside 1..16384";
        else if (st->kind == SR_VIEW_STEP_EXPOSURE && !(st->exposure >= 0.0f && st->exposure < INFINITY)) bad = "a negative exposure";
        else if (st->kind == SR_VIEW_STEP_TONEMAP && st->a > SR_TONEMAP_KIND_ACES) bad = "not a tonemap";
        else if (st->kind == SR_VIEW_STEP_CAMERA && n != 6 && n != 7 && n != 12) bad = "camera_count other than 6, 7 or 12";
        else if (st->kind == SR_VIEW_STEP_SHOT && !st->path) bad = "no path";
    }
    if (!bad) return 0;
    fprintf(stderr, "stencilray view: sr_view_desc.steps[%u]: %s\n", k ? k - 1 : 0, bad);
    return 2;
}

int sr_viewer_run(const sr_view_desc *d, const char *camera_text)
{
    sr_view_opts o = { .steps = d->steps, .step_count = d->step_count, .shader_dir = d->shader_dir };
    sr_common_default(&o.c);
    o.c.scene_path = d->scene;
    o.c.ask = d->frame;
    o.c.device_list = d->frame.devices;
    o.c.exposure = d->exposure > 0.0f || (d->zeros & SR_VIEW_ZERO_EXPOSURE) ? d->exposure : 1.0f;
    o.c.tonemap = d->tonemap;
    o.c.quiet = d->quiet;
    o.c.camera_text = camera_text;
    int code = sr_view_steps_ok(d);
    if (code) return code;

    const char *path_env = getenv("SR_DISPLAY_PATH");
    char expected[256];
    if (path_env && *path_env && !sr_display_choice_find(path_env, expected, sizeof expected)) {
        fprintf(stderr, "stencilray view: SR_DISPLAY_PATH=%s: unknown display path; expected one of %s\n", path_env, expected);
        return 2;
    }
    glfwSetErrorCallback(sr_glfw_error);
    if ((!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY")) || !glfwInit()) return sr_no_display();
    sr_viewer v;
    memset(&v, 0, sizeof v);
    v.o = &o;
    /* The window opens at once, at the options' size, and shows what is read while the scene
     * loads on a thread (view_load.h); the backend opens after it, on this thread. */
    sr_error err = { SR_OK, "" };
    v.frame.width = o.c.ask.width ? o.c.ask.width : 800u;     /* until the scene says */
    v.frame.height = o.c.ask.height ? o.c.ask.height : 450u;
    v.scripted = o.step_count > 0;
    v.vsync = d->vsync == SR_VIEW_VSYNC_DEFAULT ? !v.scripted : d->vsync == SR_VIEW_VSYNC_ON;
    sr_status s = sr_view_window(&v, &err);
    if (s) {
        fprintf(stderr, "stencilray view: %s\n", err.msg);
        if (v.win) glfwDestroyWindow(v.win);
        glfwTerminate();
        return (int)s;
    }
    if ((code = sr_view_load(v.win, &o.c, &v.scene)) || (code = sr_open_backend(&o.c, "view", &v.scene, &v.be))) {
        glfwDestroyWindow(v.win);
        glfwTerminate();
        return code;
    }
    s = sr_view_setup(&v, &err);
    if (!s) s = sr_view_loop(&v, &err);
    if (!s) s = sr_view_account_all(&v, &err);   /* the last frames' times, for the summary */
    if (s) fprintf(stderr, "stencilray view: %s\n", err.msg);
    else if (v.scripted && !o.c.quiet) sr_view_summary(&v);
    if (v.win) sr_display_free(&v.disp);   /* needs the context, so before the window goes */
    if (v.have_overlay) sr_overlay_free(&v.overlay);
    if (v.have_renderer) sr_renderer_free(&v.r);
    if (v.win) glfwDestroyWindow(v.win);
    glfwTerminate();
    sr_backend_destroy(&v.be);
    sr_scene_free(&v.scene);
    return s ? (int)s : 0;
}
