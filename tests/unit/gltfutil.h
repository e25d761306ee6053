/* gltfutil.h: small glTF 2.0 files written by the tests. Every file has one mesh, a unit
 * square in the XY plane facing +Z (corners at +-0.5), in a base64 data: URI buffer; the
 * caller gives the nodes, the scenes and anything else at the top level (cameras, lights,
 * extensions) as JSON text. Accessors 2 and 3 (one time, one translation) serve an
 * animation sampler. */
#ifndef SR_GLTFUTIL_H
#define SR_GLTFUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

/* 4 float VEC3 positions, then 6 uint16 indices (two triangles) */
#define SR_GLTF_SQUARE_B64 "AAAAvwAAAL8AAAAAAAAAPwAAAL8AAAAAAAAAPwAAAD8AAAAAAAAAvwAAAD8AAAAAAAABAAIAAAACAAMA"

/* The top-level members every test file shares: mesh, buffer, views and accessors. */
#define SR_GLTF_SQUARE_PARTS                                                                                       \
    "\"asset\": {\"version\": \"2.0\"},\n"                                                                         \
    "\"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 0}, \"indices\": 1}]}],\n"                    \
    "\"buffers\": [{\"byteLength\": 60, \"uri\": \"data:application/octet-stream;base64," SR_GLTF_SQUARE_B64 "\"}],\n" \
    "\"bufferViews\": [{\"buffer\": 0, \"byteOffset\": 0, \"byteLength\": 48},\n"                                  \
    "                {\"buffer\": 0, \"byteOffset\": 48, \"byteLength\": 12}],\n"                                  \
    "\"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, \"count\": 4, \"type\": \"VEC3\",\n"             \
    "                \"min\": [-0.5, -0.5, 0], \"max\": [0.5, 0.5, 0]},\n"                                         \
    "              {\"bufferView\": 1, \"componentType\": 5123, \"count\": 6, \"type\": \"SCALAR\"},\n"       \
    "              {\"bufferView\": 0, \"componentType\": 5126, \"count\": 1, \"type\": \"SCALAR\",\n"          \
    "               \"min\": [-0.5], \"max\": [-0.5]},\n"                                                       \
    "              {\"bufferView\": 0, \"componentType\": 5126, \"count\": 1, \"type\": \"VEC3\"}]"

/* Write tmp/<name> as a glTF file: the square, `rest` (JSON members with a trailing comma,
 * e.g. "\"scene\": 0, \"scenes\": [...], \"nodes\": [...],"). The path goes to buf. */
static inline const char *sr_gltf_write(char *buf, size_t cap, const char *name, const char *rest)
{
    const size_t n = strlen(rest) + sizeof SR_GLTF_SQUARE_PARTS + 16;
    char *text = malloc(n);
    if (!text) abort();
    snprintf(text, n, "{%s\n%s}\n", rest, SR_GLTF_SQUARE_PARTS);
    sr_test_write_file(buf, cap, name, text);
    free(text);
    return buf;
}

#endif
