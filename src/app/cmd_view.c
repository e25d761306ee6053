/* cmd_view.c: `stencilray view`: its options and --script's steps parsed into the public
 * sr_view_desc, and the library's window (sr_view_run). */
#include "cmd_view.h"
#include "options.h"
#include "../viewer/viewer.h"
#include "../settings/camera_arg.h"
#include "../base/names.h"
#include "../api/frame_desc.h"
#include "../../kernels/frames/sortkey.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SR_VIEW_MAX_STEPS 64   /* sr_view_desc.step_count at most */

typedef struct sr_view_opts {
    sr_common c;
    uint32_t frames;
    const char *screenshot, *shader_dir;
    int vsync;               /* -1 = default */
    sr_view_step steps[SR_VIEW_MAX_STEPS];
    uint32_t step_count;
    char *script;            /* owned copy, steps point into it */
} sr_view_opts;

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
static int sr_parse_step(sr_args *a, char *item, sr_view_step *st)
{
    char *eq = strchr(item, '=');
    if (!eq) { sr_usage_error(a, "--script: '%s' is not key=value%s", item, ""); return 0; }
    *eq = '\0';
    const char *k = item, *v = eq + 1;
    char *end;
    memset(st, 0, sizeof *st);
    int ok = 1;
    if (!strcmp(k, "frames") || !strcmp(k, "depth")) {
        st->kind = k[0] == 'f' ? SR_VIEW_STEP_FRAMES : SR_VIEW_STEP_DEPTH;
        unsigned long x = strtoul(v, &end, 10);
        uint32_t hi = st->kind == SR_VIEW_STEP_FRAMES ? 1000000u : SR_MAX_DEPTH;
        ok = end != v && *end == '\0' && v[0] != '-' && x >= 1 && x <= hi;
        st->a = (uint32_t)x;
    } else if (!strcmp(k, "mask")) {
        st->kind = SR_VIEW_STEP_MASK;
        int m = sr_mask_parse(v);
        ok = m >= 0;
        st->a = ok ? (uint32_t)sr_frame_mask_kind((sr_mask)m) : 0u;
    } else if (!strcmp(k, "size")) {
        st->kind = SR_VIEW_STEP_SIZE;
        ok = sr_parse_size(v, &st->a, &st->b);
    } else if (!strcmp(k, "exposure")) {
        st->kind = SR_VIEW_STEP_EXPOSURE;
        ok = sr_parse_floats(v, &st->exposure, 1) && st->exposure >= 0.0f;
    } else if (!strcmp(k, "tonemap")) {
        st->kind = SR_VIEW_STEP_TONEMAP;
        int t = sr_tonemap_parse(v);
        ok = t >= 0;
        st->a = (uint32_t)t;
    } else if (!strcmp(k, "camera")) {
        st->kind = SR_VIEW_STEP_CAMERA;
        char why[256];
        sr_camera_arg cam;
        if (!sr_camera_arg_parse(v, &cam, why, sizeof why)) {
            sr_usage_error(a, "--script: camera=%s: %s", v, why);
            return 0;
        }
        memcpy(st->camera, cam.v, sizeof st->camera);
        st->camera_count = (uint32_t)cam.count;
    } else if (!strcmp(k, "print")) {
        st->kind = SR_VIEW_STEP_PRINT;
        ok = !strcmp(v, "camera");
    } else if (!strcmp(k, "key")) {
        st->kind = SR_VIEW_STEP_KEY;
        const char key = (char)toupper((unsigned char)v[0]);
        if (!key || v[1] || !strchr(sr_script_keys, key)) {
            sr_usage_error(a, "--script: key=%s: expected one of the keys %s", v, "H R C M V P 1..9 + - [ ]");
            return 0;
        }
        st->a = (uint32_t)key;
    } else if (!strcmp(k, "shot")) {
        st->kind = SR_VIEW_STEP_SHOT;
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
            if (o->step_count + 2 >= SR_VIEW_MAX_STEPS) {   /* room left for --frames/--screenshot */
                char most[16];
                snprintf(most, sizeof most, "%d", SR_VIEW_MAX_STEPS - 2);
                return sr_usage_error(a, "--script: more than %s steps%s", most, "");
            }
            if (!sr_parse_step(a, item, &o->steps[o->step_count++])) return 2;
        }
        item = semi ? semi + 1 : NULL;
    }
    return 0;
}

/* Parse `view`'s arguments (argv[2..]) into *o: 0, or the exit status after a message on
 * stderr (2 for a usage error); *help is set for -h/--help. o->script is owned by *o. */
static int sr_view_parse(int argc, char **argv, sr_view_opts *o, int *help)
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
        sr_view_step *st = &o->steps[o->step_count++];
        memset(st, 0, sizeof *st);
        st->kind = SR_VIEW_STEP_FRAMES;
        st->a = o->frames ? o->frames : 1;
    }
    if (o->screenshot) {
        sr_view_step *st = &o->steps[o->step_count++];
        memset(st, 0, sizeof *st);
        st->kind = SR_VIEW_STEP_SHOT;
        st->path = o->screenshot;
    }
    return 0;
}

int sr_view_main(int argc, char **argv)
{
    sr_view_opts o;
    int help = 0;
    int code = sr_view_parse(argc, argv, &o, &help);
    if (help) fputs(sr_view_help, stdout);
    if (code || help) { free(o.script); return code; }
    const sr_view_desc desc = {
        .scene = o.c.scene_path, .frame = o.c.ask, .exposure = o.c.exposure, .tonemap = o.c.tonemap,
        .zeros = SR_VIEW_ZERO_EXPOSURE, .steps = o.steps, .step_count = o.step_count, .shader_dir = o.shader_dir,
        .vsync = o.vsync < 0 ? SR_VIEW_VSYNC_DEFAULT : o.vsync ? SR_VIEW_VSYNC_ON : SR_VIEW_VSYNC_OFF, .quiet = o.c.quiet,
    };
    /* messages name the options (--camera with its text, --device) */
    const sr_context_desc cd = { .names = sr_option_names(&o.c, NULL) };
    sr_context *ctx = sr_create(&cd);
    if (!ctx) {
        fprintf(stderr, "stencilray view: out of memory\n");
        free(o.script);
        return 1;
    }
    const sr_result r = sr_view_run(ctx, &desc);   /* the viewer prints its own messages */
    sr_destroy(ctx);
    free(o.script);
    return r == SR_RESULT_CANCELLED ? 128 + SIGINT : (int)r;
}
