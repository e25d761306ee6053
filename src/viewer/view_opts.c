/* view_opts.c: `stencilray view`'s command line: the help text, the options (with the ones it
 * shares with render and bench, options.c) and --script's steps. */
#include "view_opts.h"
#include "../settings/camera_arg.h"
#include "../app/options.h"
#include "../base/names.h"
#include "../../kernels/frames/sortkey.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- options ----------------------------------------------------------------------------- */

const char sr_view_help[] =
"Usage: stencilray view [SCENE.json] [options]\n"
"\n"
"Open a window and render a scene (default " SR_DEFAULT_SCENE ") live. Every frame adds one\n"
"sample per pixel to the image, so a still view converges to what 'stencilray render' writes;\n"
"moving the camera or changing depth, mask or window size starts it again. On a CUDA device\n"
"the frames go straight into OpenGL memory (CUDA-OpenGL interop); without one the CPU backend\n"
"renders and frames go through host memory. Needs a display; see 'stencilray render' for files.\n"
"\n"
"Controls:\n"
"  left drag        orbit around the look-at point\n"
"  W A S D          fly forward, left, back, right      Q E   fly down, up\n"
"  scroll           zoom (field of view)\n"
"  [ ]              halve / double the fly speed; hold Shift to fly 4x faster\n"
"  R                reset the camera\n"
"  C                print the camera to standard output, as a --camera argument (for\n"
"                   render, bench and view) and as the scene file's \"camera\" object\n"
"  1 .. 9           trace depth (1 = no reflections)\n"
"  M                next masking strategy: flags, stencil, compact, wave, megakernel\n"
"  + -              exposure up / down by half a stop\n"
"  V                vsync on / off\n"
"  P                save a screenshot (stencilray-NNNN.png in the current folder)\n"
"  H                show / hide this key list over the image (and print it)\n"
"  Esc              quit\n"
"The window title shows FPS and ms per frame; the render's ms (the GPU's time for the frame's\n"
"samples, or the CPU's) and the display's ms (getting the film into the texture, and the\n"
"draw's GPU time); samples so far, depth, backend and display path, mask, exposure and the\n"
"rays that entered each bounce (per sample).\n"
"\n"
"View options:\n"
"  --size WxH              window size (the same as --width W --height H; default: the scene's)\n"
SR_HELP_CAMERA
"  --spp N                 samples per pixel added each frame (default 1)\n"
"  --frames N              render N frames, then quit\n"
"  --screenshot FILE.png   save the last frame as the window showed it, then quit\n"
"                          (after --frames N frames, default 1)\n"
"  --script STEPS          scripted changes between frames, ';'-separated: frames=N depth=N\n"
"                          mask=M size=WxH exposure=X tonemap=T camera=C (as --camera)\n"
"                          shot=FILE.png print=camera (what the C key prints)\n"
"                          key=K (press K: one of the keys above that act on a press)\n"
"  --vsync on|off          wait for the display refresh (default on; off in scripted runs)\n"
"  --shader-dir DIR        where display.vert and display.frag are (default: next to the\n"
"                          binary, then ../share/stencilray/shaders, then the source tree)\n"
SR_HELP_SIZE SR_HELP_DEPTH SR_HELP_INTEGRATOR SR_HELP_WHERE SR_HELP_MASK SR_HELP_TUNING SR_HELP_SORT \
SR_HELP_SORT_KEY SR_HELP_OUTPUT
"\n"
"Environment:\n"
"  SR_DISPLAY_PATH=P       how a CUDA backend's frames reach the window (for measuring them):\n"
"                          extmem-rows (default: memory CUDA and OpenGL share, no per-frame\n"
"                          map, drawn straight from it), extmem (the same, copied to a\n"
"                          texture and blitted), blit or draw (the GL texture mapped for CUDA\n"
"                          each frame, blitted or drawn by a shader), extmem-draw, pbo, host\n"
"\n"
"Examples:\n"
"  stencilray view                                          # the default scene\n"
"  stencilray view scenes/mirror_hall.json --size 1280x720 --depth 4\n"
"  xvfb-run -a stencilray view --backend cpu --frames 16 --screenshot shot.png\n"
SR_HELP_FOOTER;


const char *sr_view_keys(size_t *len)
{
    const char *keys = strstr(sr_view_help, "Controls:");
    *len = (size_t)(strstr(keys, "The window title") - keys);
    return keys;
}

/* The keys a script can press (key=K): those that act on a press. */
static const char sr_script_keys[] = "HRCMVP123456789+-[]";

/* "a,b,c,..." into exactly n floats. */
static int sr_parse_floats(const char *s, float *out, int n)
{
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        out[i] = strtof(s, &end);
        if (end == s || errno || !isfinite(out[i])) return 0;
        if (i + 1 < n && *end != ',') return 0;
        s = end + (i + 1 < n);
        if (i + 1 == n && *end != '\0') return 0;
    }
    return 1;
}

static int sr_parse_size(const char *s, uint32_t *w, uint32_t *h)
{
    char *end;
    errno = 0;
    unsigned long a = strtoul(s, &end, 10);
    if (end == s || (*end != 'x' && *end != 'X') || s[0] == '-') return 0;
    const char *t = end + 1;
    unsigned long b = strtoul(t, &end, 10);
    if (end == t || *end != '\0' || t[0] == '-' || errno) return 0;
    if (a < 1 || b < 1 || a > SR_MAX_RESOLUTION || b > SR_MAX_RESOLUTION) return 0;
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return 1;
}

static int sr_png_name(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcasecmp(path + n - 4, ".png") == 0;
}

/* One "key=value" of --script into a step; 0 with a usage error printed on failure. */
static int sr_parse_step(sr_args *a, char *item, sr_step *st)
{
    char *eq = strchr(item, '=');
    if (!eq) { sr_usage_error(a, "--script: '%s' is not key=value%s", item, ""); return 0; }
    *eq = '\0';
    const char *k = item, *v = eq + 1;
    char *end;
    memset(st, 0, sizeof *st);
    int ok = 1;
    if (!strcmp(k, "frames") || !strcmp(k, "depth")) {
        st->kind = k[0] == 'f' ? SR_STEP_FRAMES : SR_STEP_DEPTH;
        unsigned long x = strtoul(v, &end, 10);
        uint32_t hi = st->kind == SR_STEP_FRAMES ? 1000000u : SR_MAX_DEPTH;
        ok = end != v && *end == '\0' && v[0] != '-' && x >= 1 && x <= hi;
        st->a = (uint32_t)x;
    } else if (!strcmp(k, "mask")) {
        st->kind = SR_STEP_MASK;
        int m = sr_mask_parse(v);
        ok = m >= 0;
        st->a = (uint32_t)m;
    } else if (!strcmp(k, "size")) {
        st->kind = SR_STEP_SIZE;
        ok = sr_parse_size(v, &st->a, &st->b);
    } else if (!strcmp(k, "exposure")) {
        st->kind = SR_STEP_EXPOSURE;
        ok = sr_parse_floats(v, st->f, 1) && st->f[0] >= 0.0f;
    } else if (!strcmp(k, "tonemap")) {
        st->kind = SR_STEP_TONEMAP;
        int t = sr_tonemap_parse(v);
        ok = t >= 0;
        st->a = (uint32_t)t;
    } else if (!strcmp(k, "camera")) {
        st->kind = SR_STEP_CAMERA;
        char why[256];
        if (!sr_camera_arg_parse(v, &st->cam, why, sizeof why)) {
            sr_usage_error(a, "--script: camera=%s: %s", v, why);
            return 0;
        }
    } else if (!strcmp(k, "print")) {
        st->kind = SR_STEP_PRINT;
        ok = !strcmp(v, "camera");
    } else if (!strcmp(k, "key")) {
        st->kind = SR_STEP_KEY;
        const char key = (char)toupper((unsigned char)v[0]);
        if (!key || v[1] || !strchr(sr_script_keys, key)) {
            sr_usage_error(a, "--script: key=%s: expected one of the keys %s", v, "H R C M V P 1..9 + - [ ]");
            return 0;
        }
        st->a = (uint32_t)key;
    } else if (!strcmp(k, "shot")) {
        st->kind = SR_STEP_SHOT;
        st->path = v;
        ok = sr_png_name(v);
    } else {
        sr_usage_error(a, "--script: unknown step '%s'; expected frames, depth, mask, size, exposure, tonemap, "
                          "camera, shot, print or key%s", k, "");
        return 0;
    }
    if (!ok) sr_usage_error(a, "--script: bad value in '%s=%s' (see --help)", k, v);
    return ok;
}

static int sr_parse_script(sr_args *a, sr_view_opts *o, const char *text)
{
    free(o->script);
    o->script = strdup(text);
    if (!o->script) { fprintf(stderr, "stencilray view: out of memory\n"); return 1; }
    o->step_count = 0;
    for (char *item = o->script; item && *item;) {
        char *semi = strchr(item, ';');
        if (semi) *semi = '\0';
        if (*item) {
            if (o->step_count + 2 >= SR_MAX_STEPS) {   /* room left for --frames/--screenshot */
                char most[16];
                snprintf(most, sizeof most, "%d", SR_MAX_STEPS - 2);
                return sr_usage_error(a, "--script: more than %s steps%s", most, "");
            }
            if (!sr_parse_step(a, item, &o->steps[o->step_count++])) return 2;
        }
        item = semi ? semi + 1 : NULL;
    }
    return 0;
}

int sr_view_parse(int argc, char **argv, sr_view_opts *o, int *help)
{
    sr_args a = { argc, 2, argv, "view" };
    memset(o, 0, sizeof *o);
    sr_common_default(&o->c);
    o->vsync = -1;
    *help = 0;
    for (; a.i < argc; a.i++) {
        const char *opt = argv[a.i], *v;
        if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) { *help = 1; return 0; }
        if (!strcmp(opt, "--size")) {
            if (!(v = sr_value(&a, opt))) return 2;
            if (!sr_parse_size(v, &o->c.ask.width, &o->c.ask.height))
                return sr_usage_error(&a, "--size: expected WxH with each side 1..16384, e.g. 1280x720, got '%s'%s", v, "");
        } else if (!strcmp(opt, "--frames")) {
            int r = sr_parse_u32(&a, opt, 1, 1000000, &o->frames);
            if (r) return r;
        } else if (!strcmp(opt, "--screenshot")) {
            if (!(o->screenshot = sr_value(&a, opt))) return 2;
            if (!sr_png_name(o->screenshot))
                return sr_usage_error(&a, "--screenshot %s: expected a name ending in .png%s", o->screenshot, "");
        } else if (!strcmp(opt, "--script")) {
            if (!(v = sr_value(&a, opt))) return 2;
            int r = sr_parse_script(&a, o, v);
            if (r) return r;
        } else if (!strcmp(opt, "--vsync")) {
            if (!(v = sr_value(&a, opt))) return 2;
            if (strcmp(v, "on") && strcmp(v, "off")) return sr_usage_error(&a, "--vsync: expected on or off, got '%s'%s", v, "");
            o->vsync = !strcmp(v, "on");
        } else if (!strcmp(opt, "--shader-dir")) {
            if (!(o->shader_dir = sr_value(&a, opt))) return 2;
        } else {
            int r = sr_parse_common(&a, &o->c);
            if (r > 0) return r;
            if (r < 0) return sr_unknown_option(&a, opt, sr_view_help);
        }
    }
    int every_mask[SR_MASK_COUNT];   /* the M key and --script switch masks as it runs */
    for (int m = 0; m < SR_MASK_COUNT; m++) every_mask[m] = m;
    const int bad = sr_check_mask_options(&a, &o->c, every_mask, SR_MASK_COUNT, o->c.ask.sort != SR_SORT_KIND_NONE);
    if (bad) return bad;
    /* --frames / --screenshot are the last steps of the script. */
    if (o->frames || o->screenshot) {
        sr_step *st = &o->steps[o->step_count++];
        memset(st, 0, sizeof *st);
        st->kind = SR_STEP_FRAMES;
        st->a = o->frames ? o->frames : 1;
    }
    if (o->screenshot) {
        sr_step *st = &o->steps[o->step_count++];
        memset(st, 0, sizeof *st);
        st->kind = SR_STEP_SHOT;
        st->path = o->screenshot;
    }
    return 0;
}
