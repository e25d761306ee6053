/* fuzz_scene.c: libFuzzer harness for the scene parser (fuzz_entry.h has the contract).
 * Build with CC=clang -DSR_FUZZ=ON; run: build-fuzz/fuzz_scene tests/fuzz/corpus_scene */
#include "fuzz_entry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[1400];
    if (sr_fuzz_scene_one(data, size, why, sizeof why)) {
        fprintf(stderr, "fuzz_scene: contract broken: %s\n", why);
        abort();
    }
    return 0;
}
