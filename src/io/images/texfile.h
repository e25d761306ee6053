/* texfile.h: image files (PNG, JPEG, TGA, Radiance HDR, through stb_image) read into the
 * scene's texture table as linear RGB floats, budgeted before they are decoded. */
#ifndef SR_TEXTURE_FILE_H
#define SR_TEXTURE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include "../../base/status.h"
#include "../../../kernels/core/types.h"

/* Images larger than this on a side, or files larger than this, are refused before decoding. */
#define SR_MAX_TEXTURE_SIDE 32768u
#define SR_MAX_TEXTURE_FILE_BYTES (1ull << 30)

/* One decoded image file, shared by every texture that names it (texfile.c): the file by
 * device and inode, how its values were made linear, and where its texels are. */
typedef struct sr_texture_source {
    uint64_t dev, ino;
    int decode;                 /* 1: sRGB bytes, 0: data bytes (/ 255), -1: linear floats (either) */
    uint32_t offset, width, height;
} sr_texture_source;

/* The scene's textures: descriptors, one texel array (3 floats per texel) and the files
 * decoded into it. */
typedef struct sr_texture_set {
    sr_texture *items;
    uint32_t count;
    float *texels;
    uint64_t texel_count;
    sr_texture_source *sources;
    uint32_t source_count;
} sr_texture_set;

/* srgb = SR_DECODE_ALPHA: the image's alpha channel (/ 255; 1 where it has none), in every
 * channel. */
#define SR_DECODE_ALPHA 2

/* Decode the image at `path` and append it: srgb = 1 for colour maps (8-bit values are sRGB
 * encoded and decoded to linear here), 0 for data maps (values / 255), SR_DECODE_ALPHA for
 * its alpha; Radiance HDR files are linear floats either way. *index gets its position. A file already in the set (the same
 * file, however it is named, decoded the same way) is not decoded again: the new texture
 * shares its texels, and one with the same wrap and filter is the same texture. Each new
 * image is budgeted together with the texels already in the set. A missing, unreadable,
 * truncated or oversized file is SR_ERR_INPUT with a message that names it. */
sr_status sr_texture_load(const char *path, int srgb, uint32_t wrap, uint32_t filter, sr_texture_set *set,
                          uint32_t *index, sr_error *err);

/* The same for an image already in memory (a glTF's embedded image: a GLB buffer view or a
 * data URI), with the same checks and budgets; `name` stands for the file in messages (a
 * name ending in .tga is decoded as TGA, any other only as PNG, JPEG or Radiance HDR). Never
 * shared with another texture. */
sr_status sr_texture_load_memory(const char *name, const unsigned char *bytes, size_t len, int srgb, uint32_t wrap,
                                 uint32_t filter, sr_texture_set *set, uint32_t *index, sr_error *err);

/* The linear value of an 8-bit sRGB code (IEC 61966-2-1), as the loader uses it. */
float sr_srgb_decode8(uint8_t code);

void sr_texture_set_free(sr_texture_set *set);

/* Texture `index` of the set with the UV transform xf (sr_texture.has_xf) on the same
 * texels: an entry that already has it, or a new one (*out). */
sr_status sr_texture_transformed(sr_texture_set *set, uint32_t index, const float xf[6], uint32_t *out, sr_error *err);

#endif
