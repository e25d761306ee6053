/* camera_arg.c: the --camera argument and the JSON camera object (camera_arg.h). */
#include "camera_arg.h"
#include "../scene/jsondoc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sr_camera_why(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (cap) vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return 0;
}

int sr_camera_arg_parse(const char *text, sr_camera_arg *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    const char *s = text;
    int n = 0;
    for (;;) {
        if (n == SR_CAMERA_ARG_MAX)
            return sr_camera_why(why, cap, "expected 6, 7 or 12 comma-separated numbers %s; got more than %d",
                                 SR_CAMERA_ARG_SYNTAX, SR_CAMERA_ARG_MAX);
        char *end;
        errno = 0;
        const float x = strtof(s, &end);
        /* ERANGE with a finite result is an underflow to a tiny or zero number: harmless. */
        if (end == s || !isfinite(x) || (*end != ',' && *end != '\0'))
            return sr_camera_why(why, cap, "number %d is not a finite number; expected %s, e.g. 0,2,6.5,0,1,0",
                                 n + 1, SR_CAMERA_ARG_SYNTAX);
        out->v[n++] = x;
        if (*end == '\0') break;
        s = end + 1;
    }
    if (n != 6 && n != 7 && n != 12)
        return sr_camera_why(why, cap, "expected 6, 7 or 12 comma-separated numbers %s; got %d", SR_CAMERA_ARG_SYNTAX, n);
    out->count = n;
    const float *v = out->v;
    sr_camera_desc at;
    memset(&at, 0, sizeof at);
    at.position = sr_v3(v[0], v[1], v[2]);
    at.look_at = sr_v3(v[3], v[4], v[5]);
    const double dist = sr_camera_distance(&at);
    if (!(dist > 0.0))
        return sr_camera_why(why, cap, "the look-at point (numbers 4-6) must differ from the position (numbers 1-3)");
    if (!(dist <= (double)SR_CAMERA_DIST_MAX))
        return sr_camera_why(why, cap, "the look-at point (numbers 4-6) is %g from the position (numbers 1-3); expected "
                                       "at most %g apart (the camera is built in float and squares that distance)",
                             dist, (double)SR_CAMERA_DIST_MAX);
    if (n >= 7 && !sr_camera_fov_ok(v[6]))
        return sr_camera_why(why, cap, "the field of view (number 7) " SR_CAMERA_FOV_RULE ", got %g", (double)v[6]);
    if (n == 12 && !sr_json_unit_vector(sr_v3(v[7], v[8], v[9]), NULL))
        return sr_camera_why(why, cap, "the up vector (numbers 8-10) must not be zero");
    if (n == 12 && !(v[10] >= 0.0f && v[11] >= 0.0f))
        return sr_camera_why(why, cap, "the aperture and the focus distance (numbers 11 and 12) must be 0 or "
                                       "more, got %g and %g", (double)v[10], (double)v[11]);
    return 1;
}

int sr_camera_arg_apply(const sr_camera_arg *a, sr_camera_desc *cam, char *why, size_t cap)
{
    sr_camera_desc c = *cam;
    const float *v = a->v;
    c.position = sr_v3(v[0], v[1], v[2]);
    c.look_at = sr_v3(v[3], v[4], v[5]);
    c.focus_distance = 0.0f;   /* a new look-at point is the new sharp plane */
    if (a->count >= 7) c.vfov_deg = v[6];
    if (a->count == 12) {
        c.up = sr_v3(v[7], v[8], v[9]);
        c.aperture = v[10];
        c.focus_distance = v[11];
    }
    if (!sr_camera_up_ok(&c))
        return sr_camera_why(why, cap, "up [%g, %g, %g] is parallel to the view direction (look-at - position); "
                                       "give an up vector that is not, as numbers 8-10",
                             (double)c.up.x, (double)c.up.y, (double)c.up.z);
    *cam = c;
    return 1;
}

/* x with the fewest significant digits (at most 9, which always suffice for a float) that
 * read back as exactly x, through strtof (the --camera parser) and through strtod and a cast
 * (the JSON parser): one decimal, two readers, the same bits. */
static int sr_fmt_float(char *buf, size_t cap, float x)
{
    char tmp[32];
    int digits = 1;
    for (;; digits++) {
        snprintf(tmp, sizeof tmp, "%.*g", digits, (double)x);
        const float a = strtof(tmp, NULL), b = (float)strtod(tmp, NULL);
        if ((memcmp(&a, &x, sizeof x) == 0 && memcmp(&b, &x, sizeof x) == 0) || digits == 9) break;
    }
    /* 800, not 8e+02: as many digits as the whole part has (the extra ones are zeros). */
    if (fabsf(x) >= 1.0f && fabsf(x) < 1e9f) {
        char whole[32];
        const int whole_digits = snprintf(whole, sizeof whole, "%.0f", fabs((double)x));
        if (digits < whole_digits) snprintf(tmp, sizeof tmp, "%.*g", whole_digits, (double)x);
    }
    return snprintf(buf, cap, "%s", tmp);
}

/* Append to buf at *used; -1 once it does not fit. */
static int sr_put(char *buf, size_t cap, size_t *used, const char *s)
{
    const size_t n = strlen(s);
    if (*used + n + 1 > cap) return -1;
    memcpy(buf + *used, s, n + 1);
    *used += n;
    return 0;
}

static int sr_put_float(char *buf, size_t cap, size_t *used, float x)
{
    char t[32];
    sr_fmt_float(t, sizeof t, x);
    return sr_put(buf, cap, used, t);
}

static int sr_camera_numbers(const sr_camera_desc *c, float v[SR_CAMERA_ARG_MAX])
{
    const float all[SR_CAMERA_ARG_MAX] = { c->position.x, c->position.y, c->position.z, c->look_at.x, c->look_at.y,
                                           c->look_at.z, c->vfov_deg, c->up.x, c->up.y, c->up.z, c->aperture,
                                           c->focus_distance };
    memcpy(v, all, sizeof all);
    return SR_CAMERA_ARG_MAX;
}

int sr_camera_arg_format(const sr_camera_desc *cam, char *buf, size_t cap)
{
    float v[SR_CAMERA_ARG_MAX];
    const int n = sr_camera_numbers(cam, v);
    size_t used = 0;
    if (cap) buf[0] = '\0';
    for (int k = 0; k < n; k++)
        if ((k && sr_put(buf, cap, &used, ",")) || sr_put_float(buf, cap, &used, v[k])) return -1;
    return (int)used;
}

int sr_camera_json_format(const sr_camera_desc *cam, char *buf, size_t cap)
{
    float v[SR_CAMERA_ARG_MAX];
    sr_camera_numbers(cam, v);
    static const char *const keys[] = { "{\"position\": [", "], \"look_at\": [", "], \"fov\": ", ", \"up\": [",
                                        "], \"aperture\": ", ", \"focus_distance\": " };
    static const int first[] = { 0, 3, 6, 7, 10, 11 }, count[] = { 3, 3, 1, 3, 1, 1 };
    size_t used = 0;
    if (cap) buf[0] = '\0';
    for (int f = 0; f < 6; f++) {
        if (sr_put(buf, cap, &used, keys[f])) return -1;
        for (int k = 0; k < count[f]; k++)
            if ((k && sr_put(buf, cap, &used, ", ")) || sr_put_float(buf, cap, &used, v[first[f] + k])) return -1;
    }
    return sr_put(buf, cap, &used, "}") ? -1 : (int)used;
}
