/* mesh_check_gltf.h: what the glTF pre-checks share (mesh_check_gltf.c: sparse accessors,
 * mesh_check_gltf_struct.c: buffers, views, accessors, meshes, nodes and scenes) and the glTF
 * scene reader (gltf_scene.c) uses. Internal to src/io. */
#ifndef SR_MESH_CHECK_GLTF_H
#define SR_MESH_CHECK_GLTF_H

#include <cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include "../../base/status.h"

/* One buffer's bytes, wherever they are: a data: URI in the JSON (base64 or not), a file next
 * to the mesh, or a .glb's BIN chunk. */
typedef struct sr_gltf_src {
    const char *text;      /* data: URI, the part after ','                     */
    size_t text_len;
    int base64;
    FILE *f;               /* an external file, or the .glb itself              */
    uint64_t at;           /* where the buffer starts in f                      */
    uint64_t len;          /* bytes it holds                                    */
} sr_gltf_src;

/* A whole number in [0, max] (JSON numbers are doubles to cJSON): 1 and *out, else 0. */
int sr_json_index(const cJSON *v, double max, uint64_t *out);

/* Buffer `b`: its declared byteLength, and where its bytes are; refuses a byteLength beyond
 * the data it has (close src->f after). jp names who asks, for messages. */
sr_status sr_gltf_buffer(const char *path, const cJSON *root, uint64_t b, uint64_t bin_at, uint64_t bin_len,
                         const char *jp, uint64_t *declared, sr_gltf_src *src, sr_error *err);

/* Bytes per component of componentType t (0: not a glTF type); components per element of
 * "type" (0: not a glTF type). */
unsigned sr_gltf_component_size(uint64_t t);
unsigned sr_gltf_components(const cJSON *type);

/* The JSON of a .gltf or .glb (mesh_refs.c): *json malloc'd (NULL when the file does not
 * open), and where a .glb's BIN chunk is (0, 0: none). */
sr_status sr_gltf_read_json(const char *path, const char *ext, uint64_t file_size, char **json_out,
                            size_t *json_len_out, uint64_t *bin_at_out, uint64_t *bin_len_out, sr_error *err);

/* The structure assimp trusts: every buffer's byteLength within its data, every buffer view
 * within its buffer, every accessor within its view, the attributes of a mesh primitive of
 * one count, indices of meshes, cameras, children and scene nodes in range, no node its own
 * child, no node with two parents, no cycle, at most 1000 levels of nodes; numbers of node
 * transforms finite. Messages
 * name the item ("nodes[2].children[0]"). */
sr_status sr_gltf_struct_check(const char *path, const char *json, size_t len, uint64_t bin_at, uint64_t bin_len,
                               sr_error *err);

#endif
