/* fuzz_texture.c: libFuzzer harness for image files through the scene: the input is an image
 * body, loaded as a texture and as the environment map (stb_image for PNG, JPEG, TGA and
 * Radiance HDR, OpenEXR's C library for EXR in every colour layout it defines: RGB(A), Y(A),
 * Y/RY/BY with full or subsampled chroma; fuzz_entry.h). The seeds include files cut short
 * (TGA, Radiance HDR), headers larger than their files or than stb_image decodes, and the
 * EXR layouts; the file must load once for both uses. Build with CC=clang
 * -DSR_FUZZ=ON; run: build-fuzz/fuzz_texture tests/fuzz/corpus_texture */
#include "fuzz_entry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[1400];
    if (sr_fuzz_texture_one(data, size, why, sizeof why)) {
        fprintf(stderr, "fuzz_texture: contract broken: %s\n", why);
        abort();
    }
    return 0;
}
