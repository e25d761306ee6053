/* texfile.c: image textures through stb_image (libstb provides the implementation). The file
 * is opened once, checked through that descriptor (a regular file, its size), read whole into
 * budgeted memory, and decoded from there: what was checked is what is decoded, even if the
 * name is pointed elsewhere meanwhile. The dimensions in its header are checked and the memory
 * for decoding it budgeted before stb_image decodes it. */
#include "texfile.h"
#include "../../base/mem_limits.h"
#include "image_exr.h"
#include "../output/outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image.h>

float sr_srgb_decode8(uint8_t code)
{
    const double c = code / 255.0;
    return (float)(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4));
}

static const char *stb_reason(void)
{
    const char *r = stbi_failure_reason();
    return r && *r ? r : "unknown error";
}

/* Room for one more texture of `texels` texels at the end of the set (the texel array and
 * the table grown); its texels then go to set->texels + 3 * set->texel_count. */
static sr_status reserve_texture(const char *path, uint64_t texels, sr_texture_set *set, sr_error *err)
{
    if (set->texel_count + texels > UINT32_MAX)
        return sr_fail(err, SR_ERR_INPUT, "texture file %s: the scene's textures would hold more than %u texels", path,
                       UINT32_MAX);
    float *grown = realloc(set->texels, (size_t)(set->texel_count + texels) * 3u * sizeof(float));
    if (!grown) return sr_fail(err, SR_ERR_RUNTIME, "out of memory for texture file %s", path);
    set->texels = grown;
    sr_texture *items = realloc(set->items, (size_t)(set->count + 1u) * sizeof *items);
    if (!items) return sr_fail(err, SR_ERR_RUNTIME, "out of memory for texture file %s", path);
    set->items = items;
    return SR_OK;
}

/* The texture just written at the end of the set: its entry, and its index in *index. */
static void commit_texture(uint32_t w, uint32_t h, uint32_t wrap, uint32_t filter, sr_texture_set *set, uint32_t *index)
{
    sr_texture *t = &set->items[set->count];
    t->offset = (uint32_t)set->texel_count;
    t->width = w;
    t->height = h;
    t->wrap = wrap;
    t->filter = filter;
    t->has_xf = 0;
    memset(t->xf, 0, sizeof t->xf);
    set->texel_count += (uint64_t)w * h;
    *index = set->count++;
}

/* Append w x h linear texels (already decoded) as a texture. */
static sr_status append_texels(const char *path, const float *px, uint32_t w, uint32_t h, uint32_t wrap, uint32_t filter,
                               sr_texture_set *set, uint32_t *index, sr_error *err)
{
    const uint64_t texels = (uint64_t)w * h;
    SR_TRY(reserve_texture(path, texels, set, err));
    memcpy(set->texels + set->texel_count * 3u, px, (size_t)texels * 3u * sizeof(float));
    commit_texture(w, h, wrap, filter, set, index);
    return SR_OK;
}

/* Bytes the set's texels take: held while another image is decoded. */
static uint64_t held_bytes(const sr_texture_set *set)
{
    return set->texel_count * 12u;
}

/* OpenEXR through its C library (image_exr.c): linear, like Radiance HDR. */
static sr_status load_exr(const char *path, uint32_t wrap, uint32_t filter, sr_texture_set *set, uint32_t *index,
                          sr_error *err)
{
    float *px = NULL;
    uint32_t w = 0, h = 0;
    sr_status st = sr_exr_read(path, SR_MAX_TEXTURE_SIDE, held_bytes(set), &px, &w, &h, err);
    if (st) return st;
    char what[600];
    snprintf(what, sizeof what, "texture file %.400s (%ux%u)", path, w, h);
    /* the set grows by the image while the decoded copy is still held */
    st = sr_check_host_memory_held((uint64_t)w * h * 12u, held_bytes(set) + (uint64_t)w * h * 12u,
                                   "textures already decoded", what, "", err);
    if (!st) st = append_texels(path, px, w, h, wrap, filter, set, index, err);
    free(px);
    return st;
}

/* The whole of the open regular file `fd` (`size` bytes by its fstat) into memory, budgeted
 * first (on top of `held` bytes); a file that shrinks or grows while it is read is refused. */
static sr_status read_whole(int fd, const char *path, uint64_t size, uint64_t held, unsigned char **out, sr_error *err)
{
    *out = NULL;
    char what[600];
    snprintf(what, sizeof what, "texture file %.400s", path);
    SR_TRY(sr_check_host_memory_held(size, held, "textures already decoded", what, "", err));
    unsigned char *buf = malloc(size ? (size_t)size : 1u);
    if (!buf) return sr_fail(err, SR_ERR_RUNTIME, "out of memory reading texture file %s", path);
    uint64_t got = 0;
    for (;;) {
        unsigned char extra;
        const ssize_t n = got < size ? read(fd, buf + got, (size_t)(size - got)) : read(fd, &extra, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int e = errno;
            free(buf);
            return sr_fail(err, SR_ERR_INPUT, "cannot read texture file %s: %s", path, strerror(e));
        }
        if (n == 0) break;
        if (got >= size) {   /* more than fstat said */
            free(buf);
            return sr_fail(err, SR_ERR_INPUT, "texture file %s changed while it was read; try again", path);
        }
        got += (uint64_t)n;
    }
    if (got != size) {
        free(buf);
        return sr_fail(err, SR_ERR_INPUT, "texture file %s changed while it was read; try again", path);
    }
    *out = buf;
    return SR_OK;
}

/* Whether the bytes are a format this project reads through stb_image: PNG, JPEG and Radiance
 * HDR by their signatures; TGA, which has none, by a .tga name and none of the signatures
 * that would send stb_image to another decoder first. stb_image also decodes BMP, GIF, PSD,
 * PIC and PNM, whose decoders have the worst record of crashes on crafted files; nothing here
 * needs them, so they never see a user's bytes. */
static int stb_format_allowed(const char *path, const unsigned char *b, size_t n)
{
    static const struct { const char *sig; size_t len; } allowed[] = {
        { "\x89PNG\r\n\x1a\n", 8 }, { "\xff\xd8\xff", 3 }, { "#?RADIANCE\n", 11 }, { "#?RGBE\n", 7 },
    };
    static const struct { const char *sig; size_t len; } others[] = {   /* stb_image's other decoders */
        { "BM", 2 }, { "GIF8", 4 }, { "8BPS", 4 }, { "\x53\x80\xf6\x34", 4 }, { "P5", 2 }, { "P6", 2 },
    };
    for (size_t k = 0; k < sizeof allowed / sizeof allowed[0]; k++)
        if (n >= allowed[k].len && !memcmp(b, allowed[k].sig, allowed[k].len)) return 1;
    const char *dot = strrchr(path, '.');
    if (!dot || strcasecmp(dot, ".tga")) return 0;
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++)
        if (n >= others[k].len && !memcmp(b, others[k].sig, others[k].len)) return 0;
    return 1;
}

/* One header line of a Radiance HDR file as stb_image reads it (stbi__hdr_gettoken): up to a
 * '\n', at most 1023 bytes kept, the byte read at the end of the file dropped. Returns where
 * the next line starts; *empty: what stb_image takes for an empty line (it tests the first
 * byte kept, so a line that starts with a NUL byte is one). */
static size_t hdr_line(const unsigned char *b, size_t n, size_t at, int *empty)
{
    size_t kept = 0;
    if (at >= n) { *empty = 1; return n; }
    const size_t start = at;
    unsigned char c = b[at++];
    while (at < n && c != '\n') {
        if (++kept == 1023) {   /* stb flushes the rest of a long line */
            while (at < n && b[at++] != '\n') {}
            break;
        }
        c = b[at++];
    }
    *empty = kept == 0 || b[start] == '\0';
    return at;
}

/* stb_image reads a 0 for every byte past the end of the data and says nothing, so a TGA or
 * Radiance HDR file cut short decodes "successfully" into black texels (and a Radiance HDR
 * run-length scanline cut short spins its decoder for good: a count of 0 makes no progress;
 * fuzz_texture found it). The walks below follow stb_image's reads through the pixel data
 * without decoding it and say where it would first read past the end; whatever else is wrong
 * they leave to stb_image, which reports it. A walk rather than watching stb_image read through
 * its callback interface: that reader reads ahead, and its format tests read past the end of
 * small files, so a read past the end there is no sign of a file cut short. */
typedef struct sr_cut {
    int cut;             /* 1: the data ends before the image does */
    int in_rle;          /* ... inside run-length data (else flat pixels or a scanline's start) */
    uint64_t need, have;  /* bytes needed and held, for flat data */
    int64_t line;        /* the scanline it ends in (0-based), for run-length data */
} sr_cut;

/* Radiance HDR: w x h, as its header says. */
static sr_cut hdr_cut(const unsigned char *b, size_t n, int64_t w, int64_t h)
{
    sr_cut c = { 0 };
    int empty = 0;
    size_t at = hdr_line(b, n, 0, &empty);   /* "#?RADIANCE" */
    do at = hdr_line(b, n, at, &empty); while (!empty && at < n);   /* the header, to its empty line */
    at = hdr_line(b, n, at, &empty);         /* "-Y h +X w" */
    const uint64_t all = (uint64_t)w * (uint64_t)h * 4u;
    if (w < 8 || w >= 32768) {   /* flat data: 4 bytes a pixel */
        c.cut = at + all > n;
        c.need = at + all, c.have = n;
        return c;
    }
    for (int64_t j = 0; j < h; j++) {
        c.line = j;
        if (at + 3 > n) {   /* a scanline's first bytes missing */
            c.cut = 1, c.in_rle = at < n;
            return c;
        }
        if (b[at] != 2 || b[at + 1] != 2 || (b[at + 2] & 0x80)) {
            /* not run-length: stb_image reads the whole image flat from here */
            c.cut = at + all > n;
            c.need = at + all, c.have = n;
            return c;
        }
        if (at + 4 > n) {
            c.cut = 1, c.in_rle = 1;
            return c;
        }
        if ((int64_t)((b[at + 2] << 8) | b[at + 3]) != w) return c;   /* stb refuses it */
        at += 4;
        for (int k = 0; k < 4; k++)
            for (int64_t i = 0; i < w;) {
                if (at >= n) {
                    c.cut = 1, c.in_rle = 1;
                    return c;
                }
                unsigned count = b[at++];
                const size_t bytes = count > 128 ? 1u : count;   /* a run's value, or the literal bytes */
                if (count > 128) count -= 128;
                if ((int64_t)count > w - i) return c;   /* stb refuses it */
                if (at + bytes > n) {
                    c.cut = 1, c.in_rle = 1;
                    return c;
                }
                at += bytes;   /* (a count of 0 in the data is only a wasted byte) */
                i += count;
            }
    }
    return c;
}

/* TGA (the header's fields as stb_image reads them, including its use of the colour map's
 * first index as bytes to skip). */
static sr_cut tga_cut(const unsigned char *b, size_t n)
{
    sr_cut c = { 0 };
    if (n < 18) {
        c.cut = 1, c.need = 18, c.have = n;
        return c;
    }
    const int indexed = b[1] != 0, rle = b[2] >= 8;
    const uint64_t pal_start = b[3] | (b[4] << 8), pal_len = b[5] | (b[6] << 8), pal_bits = b[7];
    const uint64_t w = b[12] | (b[13] << 8), h = b[14] | (b[15] << 8), bits = b[16];
    const uint64_t px = indexed ? (bits == 8 ? 1u : 2u) : (bits + 7u) / 8u;   /* bytes a pixel (or index) */
    uint64_t at = 18u + b[0] + (indexed ? pal_start + pal_len * ((pal_bits + 7u) / 8u) : 0u);
    if (!rle) {
        c.need = at + w * h * px, c.have = n;
        c.cut = c.need > n;
        return c;
    }
    for (uint64_t left = w * h; left > 0;) {   /* packets: a count byte, then one pixel or `count` */
        c.line = (int64_t)((w * h - left) / (w ? w : 1u));
        if (at >= n) {
            c.cut = 1, c.in_rle = 1;
            return c;
        }
        const unsigned cmd = b[at++];
        const uint64_t count = (cmd & 127u) + 1u, take = count < left ? count : left;
        at += (cmd & 128u) ? px : take * px;
        if (at > n) {
            c.cut = 1, c.in_rle = 1;
            return c;
        }
        left -= take;
    }
    return c;
}

/* A PNG's size from its IHDR chunk, which must come first (stb_image's info reports only
 * "unknown image type" for a PNG it finds too large). *chans: the channels stb_image sizes
 * its buffers by (4 for a palette). 0 when the bytes have no such header. */
static int png_header(const unsigned char *b, size_t n, int64_t *w, int64_t *h, int *chans)
{
    if (n < 26 || memcmp(b, "\x89PNG\r\n\x1a\n", 8) || memcmp(b + 12, "IHDR", 4)) return 0;
    *w = ((int64_t)b[16] << 24) | (b[17] << 16) | (b[18] << 8) | b[19];
    *h = ((int64_t)b[20] << 24) | (b[21] << 16) | (b[22] << 8) | b[23];
    const int color = b[25];
    *chans = color == 3 ? 4 : (color & 2 ? 3 : 1) + (color & 4 ? 1 : 0);
    return 1;
}

/* The message for an image cut short (sr_cut). */
static sr_status cut_fail(const char *path, const char *format, const sr_cut *c, int64_t w, int64_t h, sr_error *err)
{
    if (c->in_rle)
        return sr_fail(err, SR_ERR_INPUT, "cannot decode texture file %s: its run-length data ends inside a scanline "
                       "(row %lld of %lld; a %s file cut short?); expected a complete %s image", path,
                       (long long)c->line + 1, (long long)h, format, format);
    if (c->need)
        return sr_fail(err, SR_ERR_INPUT, "texture file %s is cut short: its %s header says %lldx%lld pixels, which "
                       "need %llu bytes of file, but it has %llu; expected a complete %s image", path, format,
                       (long long)w, (long long)h, (unsigned long long)c->need, (unsigned long long)c->have, format);
    return sr_fail(err, SR_ERR_INPUT, "cannot decode texture file %s: its data ends before row %lld of %lld (a %s file "
                   "cut short?); expected a complete %s image", path, (long long)c->line + 1, (long long)h, format, format);
}

/* An 8-bit or Radiance HDR image, decoded by stb_image from the file's bytes. */
static sr_status load_stb(const char *path, const unsigned char *bytes, int len, int srgb, uint32_t wrap, uint32_t filter,
                          sr_texture_set *set, uint32_t *index, sr_error *err)
{
    if (!stb_format_allowed(path, bytes, (size_t)len))
        return sr_fail(err, SR_ERR_INPUT, "cannot read texture file %s: it starts with no PNG, JPEG or Radiance HDR "
                       "signature and is not named .tga; expected a PNG, JPEG, TGA, Radiance HDR or OpenEXR image", path);
    int64_t w = 0, h = 0;
    int chans = 0, iw = 0, ih = 0, comp = 0;
    const int png = png_header(bytes, (size_t)len, &w, &h, &chans);
    if (!png) {
        if (!stbi_info_from_memory(bytes, len, &iw, &ih, &comp))
            return sr_fail(err, SR_ERR_INPUT, "cannot read texture file %s: %s; expected a PNG, JPEG, TGA, Radiance HDR or "
                           "OpenEXR image", path, stb_reason());
        w = iw, h = ih;
    }
    if (w <= 0 || h <= 0)
        return sr_fail(err, SR_ERR_INPUT, "texture file %s is %lldx%lld pixels by its header; expected 1 to %u on a side",
                       path, (long long)w, (long long)h, SR_MAX_TEXTURE_SIDE);
    if (w > SR_MAX_TEXTURE_SIDE || h > SR_MAX_TEXTURE_SIDE)
        return sr_fail(err, SR_ERR_INPUT, "texture file %s is too large: %lldx%lld pixels; expected 1 to %u on a side",
                       path, (long long)w, (long long)h, SR_MAX_TEXTURE_SIDE);
    /* stb_image decodes at most 2^30 bytes of PNG pixels (its channels at 8 bits) */
    if (png && (uint64_t)w * (uint64_t)h * (uint64_t)chans > (1u << 30))
        return sr_fail(err, SR_ERR_INPUT, "texture file %s is too large: %lldx%lld pixels of %d channels, over the "
                       "1 GiB that stb_image decodes; expected at most 2^30 pixels times channels", path, (long long)w,
                       (long long)h, chans);
    if (png && !stbi_info_from_memory(bytes, len, &iw, &ih, &comp))
        return sr_fail(err, SR_ERR_INPUT, "cannot read texture file %s: %s; expected a PNG, JPEG, TGA, Radiance HDR or "
                       "OpenEXR image", path, stb_reason());
    const uint64_t texels = (uint64_t)w * (uint64_t)h;
    const int hdr = stbi_is_hdr_from_memory(bytes, len);
    const int tga = !png && !hdr && !(len >= 3 && !memcmp(bytes, "\xff\xd8\xff", 3));
    const sr_cut cut = hdr ? hdr_cut(bytes, (size_t)len, w, h) : tga ? tga_cut(bytes, (size_t)len) : (sr_cut){ 0 };
    if (cut.cut) return cut_fail(path, hdr ? "Radiance HDR" : "TGA", &cut, w, h, err);
    /* stb's decoded copy (3 floats or 3 bytes a texel), its working memory (up to 4 channels
     * and a row buffer: one more copy) and our linear floats, on top of the file's bytes and
     * the texels already decoded (the texel array grows in place: glibc moves large blocks
     * with mremap, not by copying) */
    char what[600];
    snprintf(what, sizeof what, "texture file %.400s (%lldx%lld)", path, (long long)w, (long long)h);
    SR_TRY(sr_check_host_memory_held(texels * (hdr ? 2u * 16u : 2u * 4u) + texels * 12u, held_bytes(set) + (uint64_t)len,
                                     "textures already decoded and the file's bytes", what, "", err));

    SR_TRY(reserve_texture(path, texels, set, err));
    float *out = set->texels + set->texel_count * 3u;
    int lw = 0, lh = 0, lc = 0;
    if (hdr) {
        float *px = stbi_loadf_from_memory(bytes, len, &lw, &lh, &lc, 3);
        if (!px || lw != w || lh != h) {
            if (px) stbi_image_free(px);
            return sr_fail(err, SR_ERR_INPUT, "cannot decode texture file %s: %s (a truncated or damaged file?)", path,
                           stb_reason());
        }
        for (uint64_t i = 0; i < texels * 3u; i++)
            out[i] = srgb == SR_DECODE_ALPHA ? 1.0f : isfinite(px[i]) && px[i] > 0.0f ? px[i] : 0.0f;
        stbi_image_free(px);
    } else {
        const int alpha = srgb == SR_DECODE_ALPHA;
        unsigned char *px = stbi_load_from_memory(bytes, len, &lw, &lh, &lc, alpha ? 4 : 3);
        if (!px || lw != w || lh != h) {
            if (px) stbi_image_free(px);
            return sr_fail(err, SR_ERR_INPUT, "cannot decode texture file %s: %s (a truncated or damaged file?)", path,
                           stb_reason());
        }
        float lut[256];
        for (int k = 0; k < 256; k++) lut[k] = srgb == 1 ? sr_srgb_decode8((uint8_t)k) : (float)k / 255.0f;
        if (alpha)   /* the alpha channel (255 where the image has none), in every channel */
            for (uint64_t i = 0; i < texels; i++) out[3u * i] = out[3u * i + 1u] = out[3u * i + 2u] = lut[px[4u * i + 3u]];
        else
            for (uint64_t i = 0; i < texels * 3u; i++) out[i] = lut[px[i]];
        stbi_image_free(px);
    }
    commit_texture((uint32_t)w, (uint32_t)h, wrap, filter, set, index);
    return SR_OK;
}

/* The file (by its fstat) already decoded the way `srgb` asks: its source, else NULL. */
static const sr_texture_source *find_source(const sr_texture_set *set, const struct stat *st, int srgb)
{
    for (uint32_t k = 0; k < set->source_count; k++) {
        const sr_texture_source *s = &set->sources[k];
        if (s->dev == (uint64_t)st->st_dev && s->ino == (uint64_t)st->st_ino &&
            ((s->decode < 0 && srgb != SR_DECODE_ALPHA) || s->decode == srgb))
            return s;
    }
    return NULL;
}

/* A texture on texels already in the set: the same texture when wrap and filter match. */
static sr_status share_texture(const char *path, const sr_texture_source *src, uint32_t wrap, uint32_t filter,
                               sr_texture_set *set, uint32_t *index, sr_error *err)
{
    for (uint32_t k = 0; k < set->count; k++) {
        const sr_texture *t = &set->items[k];
        if (t->offset == src->offset && t->width == src->width && t->height == src->height && t->wrap == wrap &&
            t->filter == filter && !t->has_xf) {
            *index = k;
            return SR_OK;
        }
    }
    sr_texture *items = realloc(set->items, (size_t)(set->count + 1u) * sizeof *items);
    if (!items) return sr_fail(err, SR_ERR_RUNTIME, "out of memory for texture file %s", path);
    set->items = items;
    items[set->count] = (sr_texture){ .offset = src->offset, .width = src->width, .height = src->height, .wrap = wrap,
                                      .filter = filter };
    *index = set->count++;
    return SR_OK;
}

/* Remember the texture just decoded (set->items[index]) as the file's. */
static sr_status add_source(const char *path, const struct stat *st, int decode, uint32_t index, sr_texture_set *set,
                            sr_error *err)
{
    sr_texture_source *grown = realloc(set->sources, (size_t)(set->source_count + 1u) * sizeof *grown);
    if (!grown) return sr_fail(err, SR_ERR_RUNTIME, "out of memory for texture file %s", path);
    set->sources = grown;
    const sr_texture *t = &set->items[index];
    grown[set->source_count++] = (sr_texture_source){ .dev = (uint64_t)st->st_dev, .ino = (uint64_t)st->st_ino,
                                                      .decode = decode, .offset = t->offset, .width = t->width,
                                                      .height = t->height };
    return SR_OK;
}

sr_status sr_texture_load(const char *path, int srgb, uint32_t wrap, uint32_t filter, sr_texture_set *set,
                          uint32_t *index, sr_error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return sr_fail(err, SR_ERR_INPUT, "cannot read texture file %s: %s", path, strerror(errno));
    struct stat st;
    const int stat_ok = fstat(fd, &st) == 0;
    sr_status status = SR_OK;
    char output[1100];
    if (!stat_ok || !S_ISREG(st.st_mode))
        status = sr_fail(err, SR_ERR_INPUT, "cannot read texture file %s: not a regular file", path);
    else if (sr_output_guard_match(&st, output, sizeof output))
        status = sr_fail(err, SR_ERR_INPUT, "texture file %s is also the output (%s), which would overwrite it; choose "
                         "another output name", path, output);
    else if ((uint64_t)st.st_size > SR_MAX_TEXTURE_FILE_BYTES)
        status = sr_fail(err, SR_ERR_INPUT, "texture file %s is %.1f MiB; at most %.0f MiB are supported", path,
                         (double)st.st_size / 1048576.0, (double)SR_MAX_TEXTURE_FILE_BYTES / 1048576.0);
    /* a file already decoded (by any name) is shared, not decoded and budgeted again */
    const sr_texture_source *known = status ? NULL : find_source(set, &st, srgb);
    if (known) {
        close(fd);
        return share_texture(path, known, wrap, filter, set, index, err);
    }
    const char *dot = strrchr(path, '.');
    if (!status && dot && !strcasecmp(dot, ".exr")) {
        close(fd);   /* OpenEXR's C library opens the file itself (image_exr.c) */
        status = load_exr(path, wrap, filter, set, index, err);
        return status ? status : add_source(path, &st, -1, *index, set, err);
    }
    unsigned char *bytes = NULL;
    if (!status) status = read_whole(fd, path, (uint64_t)st.st_size, held_bytes(set), &bytes, err);
    close(fd);
    if (status) return status;
    status = load_stb(path, bytes, (int)st.st_size, srgb, wrap, filter, set, index, err);
    const int linear = !status && stbi_is_hdr_from_memory(bytes, (int)st.st_size);
    free(bytes);
    return status ? status : add_source(path, &st, linear && srgb != SR_DECODE_ALPHA ? -1 : srgb, *index, set, err);
}

sr_status sr_texture_load_memory(const char *name, const unsigned char *bytes, size_t len, int srgb, uint32_t wrap,
                                 uint32_t filter, sr_texture_set *set, uint32_t *index, sr_error *err)
{
    if (len > SR_MAX_TEXTURE_FILE_BYTES || len > (size_t)INT32_MAX)
        return sr_fail(err, SR_ERR_INPUT, "texture %s is %.1f MiB; at most %.0f MiB are supported", name,
                       (double)len / 1048576.0, (double)SR_MAX_TEXTURE_FILE_BYTES / 1048576.0);
    if (!bytes || !len) return sr_fail(err, SR_ERR_INPUT, "texture %s is empty; expected a PNG or JPEG image", name);
    return load_stb(name, bytes, (int)len, srgb, wrap, filter, set, index, err);
}

void sr_texture_set_free(sr_texture_set *set)
{
    if (!set) return;
    free(set->items);
    free(set->texels);
    free(set->sources);
    memset(set, 0, sizeof *set);
}

sr_status sr_texture_transformed(sr_texture_set *set, uint32_t index, const float xf[6], uint32_t *out, sr_error *err)
{
    const sr_texture t = set->items[index];
    for (uint32_t k = 0; k < set->count; k++) {
        const sr_texture *o = &set->items[k];
        if (o->offset == t.offset && o->width == t.width && o->height == t.height && o->wrap == t.wrap &&
            o->filter == t.filter && o->has_xf && !memcmp(o->xf, xf, sizeof o->xf)) {
            *out = k;
            return SR_OK;
        }
    }
    sr_texture *items = realloc(set->items, (size_t)(set->count + 1u) * sizeof *items);
    if (!items) return sr_fail(err, SR_ERR_RUNTIME, "out of memory for a texture's transform");
    set->items = items;
    items[set->count] = t;
    items[set->count].has_xf = 1;
    memcpy(items[set->count].xf, xf, sizeof t.xf);
    *out = set->count++;
    return SR_OK;
}
