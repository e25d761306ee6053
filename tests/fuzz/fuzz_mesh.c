/* fuzz_mesh.c: libFuzzer harness for mesh loading through the scene and assimp: the input
 * is a scene, the line "%%mesh", and a mesh body in any accepted format (OBJ, PLY, STL,
 * glTF, GLB), or the body alone (fuzz_entry.h). Build with
 * CC=clang -DSR_FUZZ=ON; run: build-fuzz/fuzz_mesh tests/fuzz/corpus_mesh */
#include "fuzz_entry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[1400];
    if (sr_fuzz_mesh_one(data, size, why, sizeof why)) {
        fprintf(stderr, "fuzz_mesh: contract broken: %s\n", why);
        abort();
    }
    return 0;
}
