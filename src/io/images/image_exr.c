/* image_exr.c: linear RGB to OpenEXR through the library's C API (OpenEXRCore). The file is
 * written through the caller's descriptor (pwrite), so it goes to the same temporary name as
 * the PNG and HDR paths and is renamed by the caller. */
#include "image_exr.h"
#include "../../base/interrupt.h"
#include "../../base/mem_limits.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <OpenEXR/openexr.h>
/* Imath's half-to-float, inline (no lookup table from libImath to link) */
#define IMATH_HALF_NO_LOOKUP_TABLE
#include <Imath/half.h>

typedef struct exr_sink {
    int fd;
    int err;          /* first errno from pwrite */
    char msg[256];    /* first message from the library */
} exr_sink;

static int64_t exr_sink_write(exr_const_context_t ctxt, void *userdata, const void *buffer, uint64_t sz,
                              uint64_t offset, exr_stream_error_func_ptr_t error_cb)
{
    (void)ctxt;
    (void)error_cb;
    exr_sink *s = (exr_sink *)userdata;
    const char *p = (const char *)buffer;
    uint64_t done = 0;
    while (done < sz) {
        ssize_t n = pwrite(s->fd, p + done, (size_t)(sz - done), (off_t)(offset + done));
        if (n < 0 && errno == EINTR && sr_interrupt_retry(EINTR)) continue;   /* not a stop: again */
        if (n <= 0) {
            if (!s->err) s->err = n < 0 ? errno : EIO;
            return -1;
        }
        done += (uint64_t)n;
    }
    return (int64_t)sz;
}

static void exr_sink_error(exr_const_context_t ctxt, exr_result_t code, const char *msg)
{
    void *ud = NULL;
    if (exr_get_user_data(ctxt, &ud) != EXR_ERR_SUCCESS || !ud) return;
    exr_sink *s = (exr_sink *)ud;
    if (!s->msg[0]) snprintf(s->msg, sizeof s->msg, "%s (%s)", msg ? msg : "", exr_get_default_error_message(code));
}

sr_status sr_exr_encode(int fd, const char *path, const float *rgb, uint32_t w, uint32_t h, float exposure,
                        sr_exr_type type, sr_error *err)
{
    if (w == 0 || h == 0 || w > (uint32_t)INT32_MAX || h > (uint32_t)INT32_MAX)
        return sr_fail(err, SR_ERR_INPUT, "%s: cannot write a %ux%u EXR image", path, (unsigned)w, (unsigned)h);
    exr_sink sink = { .fd = fd, .err = 0, .msg = "" };
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.user_data = &sink;
    init.write_fn = exr_sink_write;
    init.error_handler_fn = exr_sink_error;

    /* Exposure is applied like the .hdr path (the values stay linear, no tonemap); scaling
     * first keeps the library's own float-to-half rounding for the half case. */
    float *scaled = NULL;
    const float *src = rgb;
    if (exposure != 1.0f) {
        size_t n = (size_t)w * h * 3u;
        scaled = (float *)malloc(n * sizeof(float));
        if (!scaled) return sr_fail(err, SR_ERR_RUNTIME, "%s: out of memory for a %ux%u image", path, w, h);
        for (size_t i = 0; i < n; i++) scaled[i] = rgb[i] * exposure;
        src = scaled;
    }

    exr_context_t ctx = NULL;
    exr_encode_pipeline_t enc = EXR_ENCODE_PIPELINE_INITIALIZER;
    int enc_live = 0, part = 0;
    int32_t lines = 1;
    const exr_pixel_type_t ptype = type == SR_EXR_FLOAT ? EXR_PIXEL_FLOAT : EXR_PIXEL_HALF;
    /* PIZ, not ZIP: OpenEXRCore 3.1.5's ZIP writer made unreadable chunks (garbage for the C
     * and C++ readers alike) when a chunk did not compress, e.g. a 5x3 float image or noise;
     * PIZ round-trips every size and content tried (test_exr). */
    exr_result_t r = exr_start_write(&ctx, path, EXR_WRITE_FILE_DIRECTLY, &init);
    if (r == EXR_ERR_SUCCESS) r = exr_add_part(ctx, "rgb", EXR_STORAGE_SCANLINE, &part);
    if (r == EXR_ERR_SUCCESS)
        r = exr_initialize_required_attr_simple(ctx, part, (int32_t)w, (int32_t)h, EXR_COMPRESSION_PIZ);
    /* The library keeps channels sorted by name (B, G, R); look them up by name below. */
    static const char *const names[3] = { "R", "G", "B" };
    for (int c = 0; c < 3 && r == EXR_ERR_SUCCESS; c++)
        r = exr_add_channel(ctx, part, names[c], ptype, EXR_PERCEPTUALLY_LINEAR, 1, 1);
    if (r == EXR_ERR_SUCCESS) r = exr_set_lineorder(ctx, part, EXR_LINEORDER_INCREASING_Y);
    if (r == EXR_ERR_SUCCESS) r = exr_write_header(ctx);
    if (r == EXR_ERR_SUCCESS) r = exr_get_scanlines_per_chunk(ctx, part, &lines);
    for (int32_t y = 0; r == EXR_ERR_SUCCESS && y < (int32_t)h; y += lines) {
        exr_chunk_info_t ci;
        r = exr_write_scanline_chunk_info(ctx, part, y, &ci);
        if (r != EXR_ERR_SUCCESS) break;
        r = enc_live ? exr_encoding_update(ctx, part, &ci, &enc) : exr_encoding_initialize(ctx, part, &ci, &enc);
        if (r != EXR_ERR_SUCCESS) break;
        for (int c = 0; c < enc.channel_count; c++) {
            exr_coding_channel_info_t *ch = &enc.channels[c];
            int k = ch->channel_name[0] == 'R' ? 0 : ch->channel_name[0] == 'G' ? 1 : 2;
            ch->encode_from_ptr = (const uint8_t *)(src + ((size_t)ci.start_y * w * 3u + (size_t)k));
            ch->user_pixel_stride = 3 * (int32_t)sizeof(float);
            ch->user_line_stride = (int32_t)(w * 3u * sizeof(float));
            ch->user_data_type = EXR_PIXEL_FLOAT;
            ch->user_bytes_per_element = (int16_t)sizeof(float);
        }
        if (!enc_live) {
            enc_live = 1;
            r = exr_encoding_choose_default_routines(ctx, part, &enc);
            if (r != EXR_ERR_SUCCESS) break;
        }
        r = exr_encoding_run(ctx, part, &enc);
    }
    if (enc_live) exr_encoding_destroy(ctx, &enc);
    exr_result_t fin = ctx ? exr_finish(&ctx) : EXR_ERR_SUCCESS;
    if (r == EXR_ERR_SUCCESS) r = fin;
    free(scaled);
    if (sink.err == EINTR) return SR_INTERRUPTED;   /* a stop while a write waited: nothing is renamed */
    if (sink.err) return sr_fail(err, SR_ERR_RUNTIME, "%s: write failed: %s", path, strerror(sink.err));
    if (r != EXR_ERR_SUCCESS)
        return sr_fail(err, SR_ERR_RUNTIME, "%s: OpenEXR could not write the image: %s", path,
                       sink.msg[0] ? sink.msg : exr_get_default_error_message(r));
    return SR_OK;
}

const char *sr_exr_version(void)
{
    static char v[32];
    int maj = 0, min = 0, pat = 0;
    const char *extra = NULL;
    exr_get_library_version(&maj, &min, &pat, &extra);
    snprintf(v, sizeof v, "%d.%d.%d", maj, min, pat);
    return v;
}

/* Reading: the library's messages go to a buffer, not to stderr. */
static void exr_read_error(exr_const_context_t ctxt, exr_result_t code, const char *msg)
{
    void *ud = NULL;
    if (exr_get_user_data(ctxt, &ud) != EXR_ERR_SUCCESS || !ud) return;
    char *buf = (char *)ud;
    if (!buf[0]) snprintf(buf, 256, "%s", msg && *msg ? msg : exr_get_default_error_message(code));
}

/* What each channel of the file becomes. */
enum { CH_SKIP = -1, CH_R, CH_G, CH_B, CH_Y, CH_RY, CH_BY, CH_KINDS };
enum { LAYOUT_RGB, LAYOUT_Y, LAYOUT_YC };

static int channel_kind(const char *n)
{
    static const char *const names[CH_KINDS] = { "R", "G", "B", "Y", "RY", "BY" };
    for (int k = 0; k < CH_KINDS; k++)
        if (!strcmp(n, names[k])) return k;
    return CH_SKIP;
}

/* The file's channel names for a message, control bytes shown as '?'. */
static void channel_names(const exr_attr_chlist_t *chl, char *out, size_t cap)
{
    size_t at = 0;
    out[0] = '\0';
    for (int c = 0; c < chl->num_channels && at + 8 < cap; c++) {
        if (c) out[at++] = ',', out[at++] = ' ';
        for (const char *p = chl->entries[c].name.str; p && *p && at + 5 < cap; p++)
            out[at++] = (unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f ? '?' : *p;
        out[at] = '\0';
    }
    if (at + 8 >= cap) snprintf(out + cap - 5, 5, "...");
    if (!chl->num_channels) snprintf(out, cap, "none");
}

/* a / b rounded down, for negative a too (data windows may start below 0). */
static int64_t floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Luminance weights of the file's primaries, as OpenEXR defines Y: the Y row of the
 * RGB-to-XYZ matrix built from its chromaticities (Rec. 709's when it has none or they are
 * degenerate). OpenEXR's C API has no luminance/chroma conversion (only the C++ RgbaInputFile
 * does it), so this and yc_to_rgb are written here. */
static void luma_weights(exr_const_context_t ctx, double yw[3])
{
    yw[0] = 0.2126, yw[1] = 0.7152, yw[2] = 0.0722;
    exr_attr_chromaticities_t c;
    if (exr_attr_get_chromaticities(ctx, 0, "chromaticities", &c) != EXR_ERR_SUCCESS) return;
    const double x[4] = { c.red_x, c.green_x, c.blue_x, c.white_x }, y[4] = { c.red_y, c.green_y, c.blue_y, c.white_y };
    double m[3][3], wv[3];   /* columns: the primaries' XYZ with Y = 1; wv: the white point's */
    for (int k = 0; k < 4; k++) {
        if (!(fabs(y[k]) > 1e-9) || !isfinite(x[k]) || !isfinite(y[k])) return;
        const double v[3] = { x[k] / y[k], 1.0, (1.0 - x[k] - y[k]) / y[k] };
        for (int r = 0; r < 3; r++) {
            if (k < 3) m[r][k] = v[r];
            else wv[r] = v[r];
        }
    }
    /* the primaries' scales s with m s = white (Cramer's rule); Y of primary k is s[k] */
    const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                       m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (!(fabs(det) > 1e-12) || !isfinite(det)) return;
    double s[3];
    for (int k = 0; k < 3; k++) {
        double a[3][3];
        memcpy(a, m, sizeof a);
        for (int r = 0; r < 3; r++) a[r][k] = wv[r];
        s[k] = (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])) / det;
        if (!isfinite(s[k]) || !(s[k] > 1e-9)) return;   /* keep Rec. 709's: no division by 0 below */
    }
    yw[0] = s[0], yw[1] = s[1], yw[2] = s[2];
}

/* A chroma plane (cw x chh samples, one every xs x ys pixels from the data window's origin)
 * at pixel (x, y) of the window: bilinear between the nearest samples, the edge ones held. */
static float chroma_at(const float *plane, int64_t cw, int64_t chh, int xs, int ys, int64_t x, int64_t y)
{
    const int64_t i0 = x / xs, j0 = y / ys;
    const int64_t i1 = i0 + 1 < cw ? i0 + 1 : i0, j1 = j0 + 1 < chh ? j0 + 1 : j0;
    const float tx = (float)(x - i0 * xs) / (float)xs, ty = (float)(y - j0 * ys) / (float)ys;
    const float a = plane[j0 * cw + i0] + tx * (plane[j0 * cw + i1] - plane[j0 * cw + i0]);
    const float b = plane[j1 * cw + i0] + tx * (plane[j1 * cw + i1] - plane[j1 * cw + i0]);
    return a + ty * (b - a);
}

/* Luminance Y and chroma RY = (R - Y) / Y, BY = (B - Y) / Y back to R, G, B (the definition
 * OpenEXR's RgbaYca uses). */
static void yc_to_rgb(float *p, float ry, float by, const double yw[3])
{
    const double y = p[0], r = (ry + 1.0) * y, b = (by + 1.0) * y;
    p[0] = (float)r;
    p[1] = (float)((y - r * yw[0] - b * yw[2]) / yw[1]);
    p[2] = (float)b;
}

sr_status sr_exr_read(const char *path, uint32_t max_side, uint64_t held, float **rgb, uint32_t *w_out, uint32_t *h_out,
                      sr_error *err)
{
    *rgb = NULL;
    char why[256] = "";
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    init.error_handler_fn = exr_read_error;
    init.user_data = why;
    exr_context_t ctx = NULL;
    exr_result_t r = exr_start_read(&ctx, path, &init);
    if (r != EXR_ERR_SUCCESS) {
        if (ctx) exr_finish(&ctx);
        return sr_fail(err, SR_ERR_INPUT, "cannot read EXR file %s: %s", path, why[0] ? why : exr_get_default_error_message(r));
    }
    sr_status st = SR_OK;
    float *out = NULL, *plane[CH_KINDS] = { NULL }, *scratch = NULL;
    exr_decode_pipeline_t dec = EXR_DECODE_PIPELINE_INITIALIZER;
    int dec_live = 0;
    exr_storage_t storage;
    exr_attr_box2i_t dw;
    const exr_attr_chlist_t *chl = NULL;
    int32_t lines = 0;
    if (exr_get_storage(ctx, 0, &storage) != EXR_ERR_SUCCESS || storage != EXR_STORAGE_SCANLINE) {
        st = sr_fail(err, SR_ERR_INPUT, "EXR file %s is tiled or deep; expected a scanline image", path);
        goto done;
    }
    if (exr_get_data_window(ctx, 0, &dw) != EXR_ERR_SUCCESS || exr_get_channels(ctx, 0, &chl) != EXR_ERR_SUCCESS ||
        exr_get_scanlines_per_chunk(ctx, 0, &lines) != EXR_ERR_SUCCESS || lines < 1) {
        st = sr_fail(err, SR_ERR_INPUT, "cannot read EXR file %s: %s", path, why[0] ? why : "a damaged header");
        goto done;
    }
    const int64_t w = (int64_t)dw.max.x - dw.min.x + 1, h = (int64_t)dw.max.y - dw.min.y + 1;
    if (w < 1 || h < 1 || w > (int64_t)max_side || h > (int64_t)max_side) {
        st = sr_fail(err, SR_ERR_INPUT, "EXR file %s is %lldx%lld pixels; expected 1 to %u on a side", path, (long long)w,
                     (long long)h, max_side);
        goto done;
    }
    /* The layout: R, G, B if all three are there, else Y with RY and BY, else Y alone. */
    int have[CH_KINDS] = { 0 }, xs[2] = { 1, 1 }, ys[2] = { 1, 1 };
    uint64_t pixel_bytes = 0;   /* every channel's bytes per pixel, for the library's chunk buffers */
    for (int c = 0; c < chl->num_channels; c++) {
        const exr_attr_chlist_entry_t *e = &chl->entries[c];
        const int k = channel_kind(e->name.str);
        pixel_bytes += e->pixel_type == EXR_PIXEL_HALF ? 2u : 4u;
        if (k < 0) continue;
        have[k] = 1;
        if (k == CH_RY || k == CH_BY) {
            xs[k - CH_RY] = e->x_sampling;
            ys[k - CH_RY] = e->y_sampling;
        }
    }
    const int layout = have[CH_R] && have[CH_G] && have[CH_B] ? LAYOUT_RGB
                       : have[CH_Y] && (have[CH_RY] || have[CH_BY]) ? LAYOUT_YC : LAYOUT_Y;
    if (layout == LAYOUT_Y && !have[CH_Y]) {
        char names[200];
        channel_names(chl, names, sizeof names);
        st = sr_fail(err, SR_ERR_INPUT, "EXR file %s has channels %s; expected R, G, B (RGB or RGBA), Y (luminance, "
                     "or YA) or Y, RY, BY (luminance and chroma)", path, names);
        goto done;
    }
    if (layout == LAYOUT_YC && !(have[CH_RY] && have[CH_BY])) {
        st = sr_fail(err, SR_ERR_INPUT, "EXR file %s has Y and %s but no %s; expected both chroma channels RY and BY, "
                     "or neither (a luminance-only image)", path, have[CH_RY] ? "RY" : "BY", have[CH_RY] ? "BY" : "RY");
        goto done;
    }
    /* what each kind needs: R, G, B and Y at full resolution; RY and BY at full or half */
    for (int c = 0; c < chl->num_channels; c++) {
        const exr_attr_chlist_entry_t *e = &chl->entries[c];
        const int k = channel_kind(e->name.str);
        const int used = layout == LAYOUT_RGB ? k >= CH_R && k <= CH_B : layout == LAYOUT_Y ? k == CH_Y : k >= CH_Y;
        if (!used) continue;
        const int chroma = k == CH_RY || k == CH_BY;
        if (!chroma && (e->x_sampling != 1 || e->y_sampling != 1)) {
            st = sr_fail(err, SR_ERR_INPUT, "EXR file %s: channel %s is subsampled; expected full-resolution channels",
                         path, e->name.str);
            goto done;
        }
        if (chroma && (e->x_sampling < 1 || e->x_sampling > 2 || e->y_sampling < 1 || e->y_sampling > 2 ||
                       floor_div(dw.min.x, e->x_sampling) * e->x_sampling != dw.min.x ||
                       floor_div(dw.min.y, e->y_sampling) * e->y_sampling != dw.min.y)) {
            st = sr_fail(err, SR_ERR_INPUT, "EXR file %s: chroma channel %s is sampled every %dx%d pixels from a data "
                         "window at (%d, %d); expected every 1 or 2 pixels on each axis, starting at the window's origin",
                         path, e->name.str, e->x_sampling, e->y_sampling, dw.min.x, dw.min.y);
            goto done;
        }
    }
    /* Where each channel goes. Every channel gets a destination, the ones not used a scratch
     * chunk: OpenEXRCore 3.1 picks its unpacker from the channels that have one, and with some
     * left out it took three-channel shortcuts that wrote and read past the buffers
     * (exr_decoding_run crashed on Y, A, Z). Its half-to-float shortcuts also ignore
     * subsampling and channels that have no line in a chunk, so a file with any subsampled
     * channel is decoded without conversion ("raw": each used channel to a plane of its own,
     * in the file's type), which keeps the library on its generic unpacker, and widened here.
     * Otherwise the used channels are decoded straight into the RGB floats. */
    int raw = 0;
    for (int c = 0; c < chl->num_channels; c++) raw |= chl->entries[c].x_sampling != 1 || chl->entries[c].y_sampling != 1;
    int used[CH_KINDS] = { 0 };
    for (int k = 0; k < CH_KINDS; k++)
        used[k] = have[k] && (layout == LAYOUT_RGB ? k <= CH_B : layout == LAYOUT_Y ? k == CH_Y : k >= CH_Y);
    int kxs[CH_KINDS], kys[CH_KINDS];
    int64_t cw[CH_KINDS], chh[CH_KINDS];   /* samples across and down, per kind */
    uint64_t plane_bytes = 0;
    for (int k = 0; k < CH_KINDS; k++) {
        kxs[k] = k >= CH_RY ? xs[k - CH_RY] : 1;
        kys[k] = k >= CH_RY ? ys[k - CH_RY] : 1;
        cw[k] = (w - 1) / kxs[k] + 1;
        chh[k] = (h - 1) / kys[k] + 1;
        if (raw && used[k]) plane_bytes += (uint64_t)cw[k] * (uint64_t)chh[k] * 4u;
    }
    const uint64_t out_bytes = (uint64_t)w * (uint64_t)h * 12u;
    const uint64_t chunk_bytes = (uint64_t)w * (uint64_t)lines * 4u;   /* the scratch chunk */
    char what[600];
    snprintf(what, sizeof what, "EXR file %.400s (%lldx%lld)", path, (long long)w, (long long)h);
    /* the floats, the planes, the scratch, the library's packed and unpacked chunk and 1 MiB */
    const uint64_t need = out_bytes + plane_bytes + chunk_bytes + 2u * (uint64_t)w * lines * pixel_bytes + (1u << 20);
    if ((st = sr_check_host_memory_held(need, held, "textures already decoded", what, "", err))) goto done;
    out = (float *)calloc((size_t)w * (size_t)h * 3u, sizeof(float));
    scratch = (float *)malloc((size_t)chunk_bytes);
    int short_of_memory = !out || !scratch;
    for (int k = 0; k < CH_KINDS && raw; k++)
        if (used[k] && !(plane[k] = (float *)calloc((size_t)cw[k] * (size_t)chh[k], sizeof(float)))) short_of_memory = 1;
    if (short_of_memory) {
        st = sr_fail(err, SR_ERR_RUNTIME, "out of memory reading EXR file %s", path);
        goto done;
    }
    for (int32_t y = dw.min.y; y <= dw.max.y; y += lines) {
        exr_chunk_info_t ci;
        r = exr_read_scanline_chunk_info(ctx, 0, y, &ci);
        if (r == EXR_ERR_SUCCESS)
            r = dec_live ? exr_decoding_update(ctx, 0, &ci, &dec) : exr_decoding_initialize(ctx, 0, &ci, &dec);
        if (r != EXR_ERR_SUCCESS) break;
        dec_live = 1;
        for (int c = 0; c < dec.channel_count; c++) {
            exr_coding_channel_info_t *ch = &dec.channels[c];
            const int kind = channel_kind(ch->channel_name);
            const int bpe = ch->bytes_per_element;
            if (ch->width < 0 || ch->width > w || ch->height < 0 || ch->height > lines || (bpe != 2 && bpe != 4)) {
                r = EXR_ERR_CORRUPT_CHUNK;
                break;
            }
            if (kind >= 0 && used[kind] && !raw) {   /* straight into the floats */
                const int k = layout == LAYOUT_RGB ? kind : kind - CH_Y;   /* R G B, or Y RY BY */
                ch->decode_to_ptr = (uint8_t *)(out + ((size_t)(ci.start_y - dw.min.y) * (size_t)w * 3u + (size_t)k));
                ch->user_pixel_stride = 3 * (int32_t)sizeof(float);
                ch->user_line_stride = (int32_t)(w * 3 * (int64_t)sizeof(float));
                ch->user_data_type = EXR_PIXEL_FLOAT;
                ch->user_bytes_per_element = (int16_t)sizeof(float);
                continue;
            }
            /* raw: the file's type, packed (widened in place after decoding) */
            ch->user_data_type = ch->data_type;
            ch->user_bytes_per_element = (int16_t)bpe;
            ch->user_pixel_stride = bpe;
            if (kind >= 0 && used[kind]) {
                /* the chunk's first sampled line, as a row of the plane */
                const int64_t row = floor_div((int64_t)ci.start_y + kys[kind] - 1, kys[kind]) - floor_div(dw.min.y, kys[kind]);
                if (ch->width != cw[kind] || row < 0 || row + ch->height > chh[kind]) {
                    r = EXR_ERR_CORRUPT_CHUNK;
                    break;
                }
                ch->decode_to_ptr = (uint8_t *)plane[kind] + (size_t)row * (size_t)cw[kind] * (size_t)bpe;
                ch->user_line_stride = (int32_t)(cw[kind] * bpe);
            } else {
                ch->decode_to_ptr = (uint8_t *)scratch;
                ch->user_line_stride = ch->width * bpe;
            }
        }
        if (r == EXR_ERR_SUCCESS) r = exr_decoding_choose_default_routines(ctx, 0, &dec);
        if (r == EXR_ERR_SUCCESS) r = exr_decoding_run(ctx, 0, &dec);
        if (r != EXR_ERR_SUCCESS) break;
    }
    if (r != EXR_ERR_SUCCESS) {
        st = sr_fail(err, SR_ERR_INPUT, "cannot decode EXR file %s: %s (a truncated or damaged file?)", path,
                     why[0] ? why : exr_get_default_error_message(r));
        goto done;
    }
    /* raw planes to floats, in place from the end (a 2- or 4-byte value never lies past the
     * float it becomes); Imath's conversion, the one OpenEXR uses */
    for (int c = 0; c < chl->num_channels && raw; c++) {
        const int k = channel_kind(chl->entries[c].name.str);
        if (k < 0 || !used[k]) continue;
        const exr_pixel_type_t t = chl->entries[c].pixel_type;
        const uint16_t *hv = (const uint16_t *)plane[k];
        const uint32_t *uv = (const uint32_t *)plane[k];
        for (size_t i = (size_t)cw[k] * (size_t)chh[k]; i-- > 0;)
            if (t == EXR_PIXEL_HALF) plane[k][i] = imath_half_to_float(hv[i]);
            else if (t == EXR_PIXEL_UINT) plane[k][i] = (float)uv[i];
    }
    double yw[3] = { 0.2126, 0.7152, 0.0722 };
    if (layout == LAYOUT_YC) luma_weights(ctx, yw);
    for (int64_t j = 0; j < h; j++)
        for (int64_t i = 0; i < w; i++) {
            const size_t at = (size_t)j * (size_t)w + (size_t)i;
            float *p = out + 3u * at;
            if (raw) {
                if (layout == LAYOUT_RGB) p[0] = plane[CH_R][at], p[1] = plane[CH_G][at], p[2] = plane[CH_B][at];
                else p[0] = plane[CH_Y][at];
                if (layout == LAYOUT_YC) {
                    p[1] = chroma_at(plane[CH_RY], cw[CH_RY], chh[CH_RY], kxs[CH_RY], kys[CH_RY], i, j);
                    p[2] = chroma_at(plane[CH_BY], cw[CH_BY], chh[CH_BY], kxs[CH_BY], kys[CH_BY], i, j);
                }
            }
            if (layout == LAYOUT_YC) yc_to_rgb(p, p[1], p[2], yw);
            else if (layout == LAYOUT_Y) p[1] = p[2] = p[0];
            for (int c = 0; c < 3; c++) p[c] = isfinite(p[c]) && p[c] > 0.0f ? p[c] : 0.0f;
        }
    *rgb = out;
    out = NULL;
    *w_out = (uint32_t)w;
    *h_out = (uint32_t)h;
done:
    if (dec_live) exr_decoding_destroy(ctx, &dec);
    exr_finish(&ctx);
    free(out);
    free(scratch);
    for (int k = 0; k < CH_KINDS; k++) free(plane[k]);
    return st;
}
