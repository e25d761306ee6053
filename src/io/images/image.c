/* image.c: linear radiance to PNG / HDR files through stb_image_write (libstb provides the
 * implementation) and to EXR through image_exr.c, each written whole or not at all
 * (outfile.h): a failure never leaves a partial file at `path`. */
#include "image.h"
#include "../../base/interrupt.h"
#include "../output/outfile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image_write.h>


int sr_image_format_known(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (n < 4) return 0;
    if (strcasecmp(path + n - 4, ".png") == 0) return SR_FMT_PNG;
    if (strcasecmp(path + n - 4, ".hdr") == 0) return SR_FMT_HDR;
    if (strcasecmp(path + n - 4, ".exr") == 0) return SR_FMT_EXR;
    return 0;
}

void sr_image_to_srgb8(const float *rgb, uint32_t w, uint32_t h, float exposure,
                       sr_tonemap op, uint8_t *out)
{
    long n = (long)w * (long)h * 3;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (long i = 0; i < n; i++)
        out[i] = sr_display_byte(rgb[i], exposure, op);
}

/* Linear radiance x exposure, made safe for RGBE: stb's encoder needs finite values >= 0
 * and an exponent that fits a byte (NaN and negatives become 0, overflow saturates). */
static void hdr_scale(const float *rgb, long n, float exposure, float *out)
{
    for (long i = 0; i < n; i++) {
        float v = rgb[i] * exposure;
        out[i] = !(v > 0.0f) ? 0.0f : (v > 1e38f ? 1e38f : v);
    }
}

/* stb_image_write reports nothing about the sink, so the sink remembers the first error.
 * Plain write(2), not stdio: after EINTR stdio has already dropped what it buffered, so a
 * write interrupted by a signal that did not ask to stop could not be retried. The
 * temporary is created at the first write (PNG: after the whole deflate), and stop() is
 * asked before each write (HDR: a row at a time). */
typedef struct sr_sink {
    sr_outfile o;       /* o.fd < 0 until the first write */
    int opened;
    int err;            /* errno of the first failure (EINTR: a stop) */
    sr_error open_err;  /* why the temporary could not be made (err is then EIO) */
    int (*stop)(void);
} sr_sink;

static void sink_write(void *ctx, void *data, int size)
{
    sr_sink *s = (sr_sink *)ctx;
    if (!s->opened && !s->err) {
        sr_interrupt_quick_end();   /* from here a file exists: stops go the slow, clean way */
        if (s->stop && s->stop()) s->err = EINTR;
        else if (sr_outfile_open(&s->o, s->o.path, &s->open_err)) s->err = EIO;
        else s->opened = 1;
    }
    if (!s->err && s->stop && s->stop()) s->err = EINTR;
    const char *p = (const char *)data;
    size_t left = size > 0 ? (size_t)size : 0;
    while (!s->err && left) {
        const ssize_t put = write(s->o.fd, p, left);
        if (put > 0) {
            p += put;
            left -= (size_t)put;
        } else if (put < 0 && errno == EINTR && !(s->stop && s->stop())) {
            continue;   /* a signal that did not ask us to stop */
        } else {
            s->err = put < 0 ? errno : EIO;
        }
    }
}

sr_status sr_image_write(const char *path, const float *rgb, uint32_t w, uint32_t h,
                         float exposure, sr_tonemap op, sr_error *err)
{
    const sr_image_opts o = { .exposure = exposure, .tonemap = op, .exr_type = SR_EXR_HALF };
    return sr_image_write_as(path, rgb, w, h, &o, NULL, err);
}

/* What one file holds: 8-bit sRGB bytes for PNG, scaled floats for HDR, or the film's floats
 * with the exposure and sample type for EXR. */
typedef struct sr_encoding {
    int fmt;
    uint32_t w, h;
    const void *pixels;       /* PNG and HDR */
    const float *rgb;         /* EXR */
    float exposure;           /* EXR */
    sr_exr_type exr_type;     /* EXR */
} sr_encoding;

/* PNG or HDR through stb into a temporary made at the first write (sink_write), then
 * renamed over `path`; `quick`: the quick-stop step (interrupt.h) is on until that write. */
static sr_status sr_write_stb(const char *path, const sr_encoding *e, int quick, int (*stop)(void), sr_error *err)
{
    sr_sink sink = { .o = { .fd = -1, .tmp = NULL, .path = path }, .opened = 0, .err = 0, .stop = stop };
    sink.open_err.status = SR_OK;
    sink.open_err.msg[0] = '\0';
    const int ok = e->fmt == SR_FMT_PNG
                       ? stbi_write_png_to_func(sink_write, &sink, (int)e->w, (int)e->h, 3, e->pixels, (int)e->w * 3)
                       : stbi_write_hdr_to_func(sink_write, &sink, (int)e->w, (int)e->h, 3, (const float *)e->pixels);
    if (quick) sr_interrupt_quick_end();   /* stb failed before writing anything */
    sr_status st = SR_OK;
    if (sink.err == EINTR) st = SR_INTERRUPTED;   /* Ctrl-C or SIGTERM while encoding or writing */
    else if (sink.err && sink.open_err.status) st = sr_fail(err, sink.open_err.status, "%s", sink.open_err.msg);
    else if (sink.err) st = sr_fail(err, SR_ERR_RUNTIME, "%s: write failed: %s", path, strerror(sink.err));
    else if (!ok || !sink.opened)
        st = sr_fail(err, SR_ERR_RUNTIME, "%s: stb_image_write could not encode the image (out of memory?)", path);
    if (st) {
        if (sink.opened) sr_outfile_abandon(&sink.o);
        return st;
    }
    return sr_outfile_commit(&sink.o, stop, err);
}

/* EXR: the temporary first, then the encoder writes into it chunk by chunk (outfile.h). */
static sr_status sr_write_exr(const char *path, const sr_encoding *e, int (*stop)(void), sr_error *err)
{
    sr_outfile o;
    SR_TRY(sr_outfile_open(&o, path, err));
    const sr_status st = sr_exr_encode(o.fd, path, e->rgb, e->w, e->h, e->exposure, e->exr_type, err);
    if (st) {
        sr_outfile_abandon(&o);
        return st;
    }
    return sr_outfile_commit(&o, stop, err);
}

/* stb works in int: (3w + 1) * h bytes must fit. */
static sr_status sr_check_size(const char *path, uint32_t w, uint32_t h, sr_error *err)
{
    if (w == 0 || h == 0 || ((uint64_t)w * 3 + 1) * h > (uint64_t)INT_MAX)
        return sr_fail(err, SR_ERR_INPUT, "%s: cannot write a %ux%u image (empty or too large)",
                       path, (unsigned)w, (unsigned)h);
    return SR_OK;
}

sr_status sr_image_write_as(const char *path, const float *rgb, uint32_t w, uint32_t h, const sr_image_opts *o,
                            int (*stop)(void), sr_error *err)
{
    const int fmt = sr_image_format_known(path);
    if (!fmt)
        return sr_fail(err, SR_ERR_INPUT,
                       "%s: unknown image format; supported extensions are .png (8-bit sRGB) "
                       "and .hdr (Radiance RGBE, linear), .exr (OpenEXR, linear)", path ? path : "(null)");
    SR_TRY(sr_check_size(path, w, h, err));
    sr_encoding e = { .fmt = fmt, .w = w, .h = h, .rgb = rgb, .exposure = o->exposure, .exr_type = o->exr_type };
    if (fmt == SR_FMT_EXR) return sr_write_exr(path, &e, stop, err);   /* image_exr.c scales a copy */
    const long n = (long)w * (long)h * 3;
    void *pixels = malloc(fmt == SR_FMT_PNG ? (size_t)n : (size_t)n * sizeof(float));
    if (!pixels) return sr_fail(err, SR_ERR_RUNTIME, "%s: out of memory for a %ux%u image", path, (unsigned)w, (unsigned)h);
    /* No file exists until stb's first write: until then a stop may end the program. */
    if (stop) sr_interrupt_quick_begin("encoding the image");
    if (fmt == SR_FMT_PNG) sr_image_to_srgb8(rgb, w, h, o->exposure, o->tonemap, (uint8_t *)pixels);
    else hdr_scale(rgb, n, o->exposure, (float *)pixels);
    e.pixels = pixels;
    const sr_status st = sr_write_stb(path, &e, stop != NULL, stop, err);
    free(pixels);
    return st;
}

sr_status sr_image_write_png8(const char *path, const uint8_t *rgb8, uint32_t w, uint32_t h, sr_error *err)
{
    SR_TRY(sr_check_size(path, w, h, err));
    const sr_encoding e = { .fmt = SR_FMT_PNG, .w = w, .h = h, .pixels = rgb8 };
    return sr_write_stb(path, &e, 0, NULL, err);
}
