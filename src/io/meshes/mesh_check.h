/* mesh_check.h: structural checks of OBJ and PLY files before assimp (5.2, Debian 12) reads
 * them, for the inputs on which assimp crashes, aborts, leaks or exhausts memory. Each was
 * found by tests/fuzz and is replayed from tests/fuzz/regressions/mesh:
 *
 *   PLY, binary: a count larger than the file holds (999999999 faces: assimp reserves
 *       24 GiB, then the out-of-memory killer); a body cut short (reads past its buffer,
 *       SIGSEGV); a face with no vertex indices (a post-processing step aborts).
 *   PLY, text: malformed records (assimp leaks what it built), absurd counts.
 *   OBJ: a face index past the vertices, after a first mesh was built (assimp throws and
 *       leaks the meshes built so far); a NUL byte (assimp starts a new line there).
 *   STL, text: a facet of other than three vertices, without a normal, a word where a
 *       number belongs, a file cut short (assimp throws and leaks).
 *   glTF, GLB: anything its glTF 2 reader would not take (assimp then offers the file to
 *       every reader by content: OBJ text as .gltf went to the OBJ reader); a sparse
 *       accessor whose indices or values reach past their buffer view or buffer (a read
 *       past the buffer), lack their "bufferView" (SIGSEGV) or index past the accessor.
 *
 * Face indices out of range in PLY (SIGSEGV in post-processing) are caught by assimp's own
 * aiProcess_ValidateDataStructure step, which mesh.c asks for. The checks read the file
 * once, storing nothing; mesh.c runs them by the file's extension, and refuses extensions
 * assimp does not know, so that assimp never guesses a format from the content. */
#ifndef SR_MESH_CHECK_H
#define SR_MESH_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include "../../base/status.h"

/* SR_OK, or SR_ERR_INPUT "cannot parse mesh file PATH: ..." saying what does not add up. */
sr_status sr_ply_check(const char *path, sr_error *err);
sr_status sr_obj_check(const char *path, sr_error *err);
sr_status sr_stl_check(const char *path, uint64_t size, sr_error *err);

/* The text checks' number: a decimal number (integer: digits only), nan or inf; 1 if t is one. */
int sr_mesh_number(const char *t, int integer);

/* The next line of an OBJ or MTL file as assimp reads it: assimp ends a line at '\n', '\r',
 * '\f' and NUL alike ("\r\n" is one end), so a statement after a lone '\r' is a line of its
 * own. The line goes to *line (NUL-terminated, without its end; *line grows as getline's
 * does) and the byte that ended it to *end (EOF at the end of the file). Returns its length,
 * or -1 at the end of the file (or out of memory). */
long sr_mesh_line(FILE *f, char **line, size_t *cap, int *end);

/* The files a mesh pulls in (an OBJ's mtllib, a glTF's buffers and images): each must be a
 * regular file of a bounded size; their sizes add up in *ref_bytes (for the memory budget).
 * A .glb's header and chunk lengths must fit its file_size. A glTF's import is budgeted by its
 * bytes, its nodes and their placements of meshes (mem_limits.h) before it runs. ext: ".obj",
 * ".glb"... Reads the mesh file, none of the files it names. */
sr_status sr_mesh_refs_check(const char *path, const char *ext, uint64_t file_size, uint64_t *ref_bytes,
                             sr_error *err);

/* A .gltf's or .glb's data as assimp reads it (once the buffers are budgeted): every sparse
 * accessor's indices and values within their buffer views, each view within its buffer, each
 * buffer's byteLength within its data, the indices below the accessor's count, and valid
 * component types. Messages name the accessor ("accessors[2].sparse.values"). */
sr_status sr_gltf_data_check(const char *path, const char *ext, uint64_t file_size, sr_error *err);

/* The sparse part of it, over the JSON text of the file; bin_at, bin_len: where a .glb's
 * BIN chunk header is and its length (0, 0: none). Reads the index bytes, nothing more. */
sr_status sr_gltf_sparse_check(const char *path, const char *json, size_t len, uint64_t bin_at, uint64_t bin_len,
                               sr_error *err);

/* The JSON of a .gltf (the file) or a .glb (its JSON chunk, the header checked against
 * file_size) into *json (malloc'd, *json_len bytes, not NUL-terminated); *json stays NULL
 * when the file does not open. */
sr_status sr_gltf_json_read(const char *path, const char *ext, uint64_t file_size, char **json, size_t *json_len,
                            sr_error *err);

/* The material files an OBJ pulls in, read as assimp reads them (once they are budgeted).
 * missing (when not NULL): those that do not exist, as notice items (", " between them). */
sr_status sr_obj_mtl_check(const char *path, char *missing, size_t missing_cap, sr_error *err);

#endif
