/* image.c: linear radiance to PNG / HDR files through stb_image_write (libstb provides the
 * implementation) and to EXR through image_exr.c. Files are written to "<path>.tmp-<pid>-XXXXXX" in the same folder and
 * renamed over the destination, so a failure never leaves a partial file at `path`. */
#include "image.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image_write.h>

enum { SR_FMT_PNG = 1, SR_FMT_HDR = 2, SR_FMT_EXR = 3 };

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
 * write interrupted by a signal that did not ask to stop could not be retried. */
typedef struct sr_sink {
    int fd;
    int err;
    int (*stop)(void);
} sr_sink;

static void sink_write(void *ctx, void *data, int size)
{
    sr_sink *s = (sr_sink *)ctx;
    const char *p = (const char *)data;
    size_t left = size > 0 ? (size_t)size : 0;
    while (!s->err && left) {
        const ssize_t put = write(s->fd, p, left);
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

/* The mode a plain fopen() would have given: 0666 less the umask (mkstemp makes 0600). */
static mode_t default_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

sr_status sr_image_write(const char *path, const float *rgb, uint32_t w, uint32_t h,
                         float exposure, sr_tonemap op, sr_error *err)
{
    return sr_image_write_unless(path, rgb, w, h, exposure, op, NULL, err);
}

sr_status sr_image_write_unless(const char *path, const float *rgb, uint32_t w, uint32_t h, float exposure,
                                sr_tonemap op, int (*stop)(void), sr_error *err)
{
    const sr_image_opts o = { .exposure = exposure, .tonemap = op, .exr_type = SR_EXR_HALF };
    return sr_image_write_as(path, rgb, w, h, &o, stop, err);
}

sr_status sr_image_write_as(const char *path, const float *rgb, uint32_t w, uint32_t h, const sr_image_opts *o,
                            int (*stop)(void), sr_error *err)
{
    const float exposure = o->exposure;
    const sr_tonemap op = o->tonemap;
    int fmt = sr_image_format_known(path);
    if (!fmt)
        return sr_fail(err, SR_ERR_INPUT,
                       "%s: unknown image format; supported extensions are .png (8-bit sRGB) "
                       "and .hdr (Radiance RGBE, linear), .exr (OpenEXR, linear)", path ? path : "(null)");
    /* stb works in int: (3w + 1) * h bytes must fit. */
    if (w == 0 || h == 0 || ((uint64_t)w * 3 + 1) * h > (uint64_t)INT_MAX)
        return sr_fail(err, SR_ERR_INPUT, "%s: cannot write a %ux%u image (empty or too large)",
                       path, (unsigned)w, (unsigned)h);

    long n = (long)w * (long)h * 3;
    /* EXR reads `rgb` as it is (image_exr.c scales a copy when exposure != 1). */
    void *pixels = fmt == SR_FMT_EXR ? malloc(1) : malloc(fmt == SR_FMT_PNG ? (size_t)n : (size_t)n * sizeof(float));
    if (!pixels) return sr_fail(err, SR_ERR_RUNTIME, "%s: out of memory for a %ux%u image",
                                path, (unsigned)w, (unsigned)h);
    if (fmt == SR_FMT_PNG) sr_image_to_srgb8(rgb, w, h, exposure, op, (uint8_t *)pixels);
    else if (fmt == SR_FMT_HDR) hdr_scale(rgb, n, exposure, (float *)pixels);

    size_t tcap = strlen(path) + 48;
    char *tmp = (char *)malloc(tcap);
    if (!tmp) {
        free(pixels);
        return sr_fail(err, SR_ERR_RUNTIME, "%s: out of memory", path);
    }
    snprintf(tmp, tcap, "%s.tmp-%ld-XXXXXX", path, (long)getpid());

    sr_status st = SR_OK;
    sr_sink sink = { -1, 0, stop };
    int fd = mkstemp(tmp);
    if (fd < 0) {
        st = sr_fail(err, SR_ERR_RUNTIME, "%s: cannot create a temporary file next to it: %s",
                     path, strerror(errno));
        goto done; /* nothing was created */
    }
    if (fchmod(fd, default_file_mode()) != 0) {
        st = sr_fail(err, SR_ERR_RUNTIME, "%s: cannot set permissions on %s: %s", path, tmp,
                     strerror(errno));
        close(fd);
        goto fail;
    }
    if (fmt == SR_FMT_EXR) {
        st = sr_exr_encode(fd, path, rgb, w, h, exposure, o->exr_type, err);
        int werr = 0;
        while (!st && !werr && fsync(fd) != 0)
            if (errno != EINTR || (stop && stop())) werr = errno;
        if (close(fd) != 0 && !werr && !st && errno != EINTR) werr = errno;
        if (!st && werr == EINTR) st = SR_INTERRUPTED;   /* a stop while the write waited */
        else if (!st && werr) st = sr_fail(err, SR_ERR_RUNTIME, "%s: write failed: %s", path, strerror(werr));
        if (st) goto fail;
        goto finish;
    }
    sink.fd = fd;

    int ok = fmt == SR_FMT_PNG
        ? stbi_write_png_to_func(sink_write, &sink, (int)w, (int)h, 3, pixels, (int)w * 3)
        : stbi_write_hdr_to_func(sink_write, &sink, (int)w, (int)h, 3, (const float *)pixels);
    while (!sink.err && fsync(fd) != 0)
        if (errno != EINTR || (stop && stop())) sink.err = errno;
    if (close(fd) != 0 && !sink.err && errno != EINTR) sink.err = errno;   /* EINTR: closed all the same (Linux) */
    if (sink.err == EINTR) {   /* Ctrl-C or SIGTERM while a write waited: nothing is renamed */
        st = SR_INTERRUPTED;
        goto fail;
    }
    if (sink.err) {
        st = sr_fail(err, SR_ERR_RUNTIME, "%s: write failed: %s", path, strerror(sink.err));
        goto fail;
    }
    if (!ok) {
        st = sr_fail(err, SR_ERR_RUNTIME, "%s: stb_image_write could not encode the image "
                     "(out of memory?)", path);
        goto fail;
    }
finish:
    if (stop && stop()) {   /* asked to stop while encoding: nothing is renamed into place */
        st = SR_INTERRUPTED;
        goto fail;
    }
    if (rename(tmp, path) != 0) {
        st = sr_fail(err, SR_ERR_RUNTIME, "%s: cannot replace it with the new image: %s", path,
                     strerror(errno));
        goto fail;
    }
    goto done;

fail:
    unlink(tmp);
done:
    free(tmp);
    free(pixels);
    return st;
}
