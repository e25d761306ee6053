/* image_exr.c: linear RGB to OpenEXR through the library's C API (OpenEXRCore). The file is
 * written through the caller's descriptor (pwrite), so it goes to the same temporary name as
 * the PNG and HDR paths and is renamed by the caller. */
#include "image_exr.h"
#include "interrupt.h"
#include "mem_limits.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <OpenEXR/openexr.h>

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

sr_status sr_exr_read(const char *path, uint32_t max_side, float **rgb, uint32_t *w_out, uint32_t *h_out, sr_error *err)
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
    float *out = NULL;
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
    int have[4] = { 0, 0, 0, 0 };   /* R, G, B, Y */
    for (int c = 0; c < chl->num_channels; c++) {
        const char *n = chl->entries[c].name.str;
        const int k = !strcmp(n, "R") ? 0 : !strcmp(n, "G") ? 1 : !strcmp(n, "B") ? 2 : !strcmp(n, "Y") ? 3 : -1;
        if (k < 0) continue;
        if (chl->entries[c].x_sampling != 1 || chl->entries[c].y_sampling != 1) {
            st = sr_fail(err, SR_ERR_INPUT, "EXR file %s: channel %s is subsampled; expected full-resolution channels", path, n);
            goto done;
        }
        have[k] = 1;
    }
    const int grey = !(have[0] && have[1] && have[2]);
    if (grey && !have[3]) {
        st = sr_fail(err, SR_ERR_INPUT, "EXR file %s has no R, G, B (or Y) channels", path);
        goto done;
    }
    char what[600];
    snprintf(what, sizeof what, "EXR file %.400s (%lldx%lld)", path, (long long)w, (long long)h);
    if ((st = sr_check_host_memory((uint64_t)w * (uint64_t)h * 12u + (1u << 20), what, "", err))) goto done;
    out = (float *)calloc((size_t)w * (size_t)h * 3u, sizeof(float));
    if (!out) {
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
            const char *n = ch->channel_name;
            int k = !strcmp(n, "R") ? 0 : !strcmp(n, "G") ? 1 : !strcmp(n, "B") ? 2 : !strcmp(n, "Y") ? 3 : -1;
            if (k == 3) k = grey ? 0 : -1;
            else if (grey) k = -1;
            if (k < 0) {
                ch->decode_to_ptr = NULL;
                continue;
            }
            ch->decode_to_ptr = (uint8_t *)(out + ((size_t)(ci.start_y - dw.min.y) * (size_t)w * 3u + (size_t)k));
            ch->user_pixel_stride = 3 * (int32_t)sizeof(float);
            ch->user_line_stride = (int32_t)(w * 3 * (int64_t)sizeof(float));
            ch->user_data_type = EXR_PIXEL_FLOAT;
            ch->user_bytes_per_element = (int16_t)sizeof(float);
        }
        r = exr_decoding_choose_default_routines(ctx, 0, &dec);
        if (r == EXR_ERR_SUCCESS) r = exr_decoding_run(ctx, 0, &dec);
        if (r != EXR_ERR_SUCCESS) break;
    }
    if (r != EXR_ERR_SUCCESS) {
        st = sr_fail(err, SR_ERR_INPUT, "cannot decode EXR file %s: %s (a truncated or damaged file?)", path,
                     why[0] ? why : exr_get_default_error_message(r));
        goto done;
    }
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        float *p = out + 3u * i;
        for (int c = 0; c < 3; c++) p[c] = isfinite(p[c]) && p[c] > 0.0f ? p[c] : 0.0f;
        if (grey) p[1] = p[2] = p[0];
    }
    *rgb = out;
    out = NULL;
    *w_out = (uint32_t)w;
    *h_out = (uint32_t)h;
done:
    if (dec_live) exr_decoding_destroy(ctx, &dec);
    exr_finish(&ctx);
    free(out);
    return st;
}
