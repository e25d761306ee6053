/* mesh_refs.c: the files a mesh pulls in, and the glTF/GLB structure assimp's glTF 2 reader
 * needs (see mesh_check.h). */
#include "mesh_check.h"
#include "../gltf/mesh_check_gltf.h"
#include "../../base/mem_limits.h"
#include "../../base/utf8.h"
#include "../output/outpath.h"

#include <cJSON.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- files a mesh pulls in, and sizes its header declares -------------------------------- */

/* `name` (name_len bytes) next to the mesh file: on the heap (free it), NULL when out of memory. */
static char *sr_ref_path(const char *mesh, const char *name, size_t name_len)
{
    const char *slash = strrchr(mesh, '/');
    const size_t dir = slash ? (size_t)(slash - mesh) + 1 : 0;
    char *path = malloc(dir + name_len + 1);
    if (!path) return NULL;
    memcpy(path, mesh, dir);
    memcpy(path + dir, name, name_len);
    path[dir + name_len] = '\0';
    return path;
}

/* A file the mesh refers to (an OBJ's mtllib, a glTF's buffer or image): resolved next to
 * the mesh, it must be a regular file (a FIFO would block assimp forever) of a bounded size,
 * and its size counts towards the import's memory budget. */
static sr_status sr_ref_file(const char *mesh, const char *name, size_t name_len, uint64_t *bytes, sr_error *err)
{
    if (name_len == 0) return SR_OK;
    char *path = sr_ref_path(mesh, name, name_len);
    if (!path) return sr_fail(err, SR_ERR_RUNTIME, "out of memory checking mesh file %s", mesh);
    struct stat st;
    sr_status s = SR_OK;
    char out[PATH_MAX + 32];
    if (stat(path, &st) != 0) {
        /* missing: assimp says so, or goes without it */
    } else if (!S_ISREG(st.st_mode)) {
        s = sr_fail(err, SR_ERR_INPUT, "mesh file %s refers to %s, which is not a regular file (a FIFO, device, "
                    "socket or directory); expected a regular file", mesh, path);
    } else if (sr_output_guard_match(&st, out, sizeof out)) {
        s = sr_fail(err, SR_ERR_INPUT, "mesh file %s refers to %s, which is also the output (%s) and would be "
                    "overwritten; choose another output name", mesh, path, out);
    } else if ((uint64_t)st.st_size > SR_MAX_MESH_BYTES) {
        s = sr_fail(err, SR_ERR_INPUT, "mesh file %s refers to %s of %.1f GiB; at most %.1f GiB are supported", mesh,
                    path, (double)st.st_size / 1073741824.0, (double)SR_MAX_MESH_BYTES / 1073741824.0);
    } else {
        *bytes += (uint64_t)st.st_size;
    }
    free(path);
    return s;
}

/* An MTL file as assimp 5.2 reads it (lines as sr_mesh_line splits them): a texture statement
 * (map_*, bump, disp, norm, refl, decal, in any case) or an anisotropy value (any statement
 * starting with 'a') before the first newmtl has no material to go to, and assimp's reader
 * writes through a null material there (found by tests/fuzz). A texture path longer than
 * assimp's strings hold (1023 bytes) is dropped by assimp without a word: the material went
 * untextured. Both refused with their line. */
static sr_status sr_mtl_check(const char *obj, const char *mtl, sr_error *err)
{
    FILE *f = fopen(mtl, "rb");
    if (!f) return SR_OK;   /* assimp goes without it */
    static const char *const textures[] = { "map_", "bump", "disp", "norm", "refl", "decal" };
    char *line = NULL;
    size_t cap = 0;
    unsigned long no = 0;
    int end = 0, named = 0;
    long len;
    sr_status st = SR_OK;
    while (!st && (len = sr_mesh_line(f, &line, &cap, &end)) >= 0) {
        no++;
        const char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (!strncmp(p, "newmtl", 6)) named = 1;
        for (size_t k = 0; k < sizeof textures / sizeof textures[0]; k++)   /* assimp ignores their case */
            if (!strncasecmp(p, textures[k], strlen(textures[k]))) {
                const char *e = line + len, *q = p;   /* the statement after its keyword, trimmed */
                while (*q && *q != ' ' && *q != '\t') q++;
                while (*q == ' ' || *q == '\t') q++;
                while (e > q && (e[-1] == ' ' || e[-1] == '\t')) e--;
                if (!named)
                    st = sr_fail(err, SR_ERR_INPUT, "mesh file %s: material file %s:%lu: a texture ('%s') before any "
                                 "'newmtl'; expected 'newmtl NAME' first", obj, mtl, no, textures[k]);
                else if (e - q > 1023)
                    st = sr_fail(err, SR_ERR_INPUT, "mesh file %s: material file %s:%lu: a texture path of %ld bytes; "
                                 "the importer keeps at most 1023 and would drop it; expected a shorter (relative) path",
                                 obj, mtl, no, (long)(e - q));
                break;
            }
        if (!st && !named && p[0] == 'a')
            st = sr_fail(err, SR_ERR_INPUT, "mesh file %s: material file %s:%lu: an anisotropy value ('a...') before "
                         "any 'newmtl'; expected 'newmtl NAME' first", obj, mtl, no);
    }
    free(line);
    fclose(f);
    return st;
}

/* Where an OBJ's material files that do not exist are listed (sr_obj_mtl_check). */
typedef struct sr_missing_list { char *buf; size_t cap; } sr_missing_list;

/* One material file name of an OBJ's mtllib (name_len bytes at name), as assimp finds it:
 * with `bytes`, checked and sized (sr_ref_file); without, read (sr_mtl_check), and listed in
 * *missing (when given) where neither it nor the OBJ's own name with "mtl" exists. */
static sr_status sr_obj_mtllib(const char *path, const char *name, size_t name_len, uint64_t *bytes,
                               const sr_missing_list *missing, sr_error *err)
{
    const char *p = name, *e = name + name_len;
    if (e == p) return SR_OK;
    int empty_part = e[-1] == '/';   /* a folder's name, there or not */
    for (const char *q = p; q + 1 < e; q++) empty_part |= q[0] == '/' && q[1] == '/';
    if (empty_part)   /* assimp leaked on both (tests/fuzz): no file needs them */
        return sr_fail(err, SR_ERR_INPUT, "mesh file %s: mtllib %.*s has an empty path part (a '/' at its end or "
                       "'//'); expected the name of a material file", path, (int)name_len, name);
    const char *last = e;   /* its last part: "." or ".." name a folder (assimp opened one and leaked) */
    while (last > p && last[-1] != '/') last--;
    if ((e - last == 1 && last[0] == '.') || (e - last == 2 && last[0] == '.' && last[1] == '.'))
        return sr_fail(err, SR_ERR_INPUT, "mesh file %s: mtllib %.*s names a folder ('.' or '..' at its end); "
                       "expected the name of a material file", path, (int)name_len, name);
    sr_status st = bytes ? sr_ref_file(path, name, name_len, bytes, err) : SR_OK;
    /* Where it is missing, assimp opens the OBJ's own name with "mtl" for its last three
     * letters instead. */
    char *mtl = st ? NULL : sr_ref_path(path, name, name_len);
    if (!st && !mtl) st = sr_fail(err, SR_ERR_RUNTIME, "out of memory checking mesh file %s", path);
    struct stat sb;
    if (!st && stat(mtl, &sb) != 0 && strlen(path) > 3) {
        free(mtl);   /* the OBJ's name, its last 3 letters "mtl" */
        mtl = sr_format("%.*smtl", (int)(strlen(path) - 3), path);
        if (!mtl) return sr_fail(err, SR_ERR_RUNTIME, "out of memory checking mesh file %s", path);
        const char *base = strrchr(mtl, '/');
        base = base ? base + 1 : mtl;
        if (bytes) st = sr_ref_file(path, base, strlen(base), bytes, err);
    }
    if (!st && !bytes && missing && stat(mtl, &sb) != 0) {   /* named as written, next to the OBJ */
        char *named = sr_ref_path(path, name, name_len), clean[512];
        if (!named) st = sr_fail(err, SR_ERR_RUNTIME, "out of memory checking mesh file %s", path);
        else sr_sanitize(clean, sizeof clean, named);
        if (named) sr_list_append(missing->buf, missing->cap, "material file %s (not found: the default material instead)", clean);
        free(named);
    }
    if (!st && !bytes) st = sr_mtl_check(path, mtl, err);
    free(mtl);
    return st;
}

/* Every material file an OBJ names (sr_obj_mtllib). assimp 5.2 opens the whole rest of an
 * mtllib line as one name, spaces and all (a FIFO named "x y" for "mtllib x y" blocked it
 * forever); the names it lists by the format's rules are checked too. */
static sr_status sr_obj_mtllibs(const char *path, uint64_t *bytes, const sr_missing_list *missing, sr_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return SR_OK;   /* sr_obj_check reports it */
    char *line = NULL;
    size_t cap = 0;
    sr_status st = SR_OK;
    int end = 0;
    while (!st && sr_mesh_line(f, &line, &cap, &end) >= 0 && end != '\0') {   /* NUL: not text, sr_obj_check refuses it */
        const char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "mtllib", 6) != 0 || (p[6] != ' ' && p[6] != '\t')) continue;
        for (p += 6; *p == ' ' || *p == '\t'; p++) {}
        const size_t whole = strlen(p);
        st = sr_obj_mtllib(path, p, whole, bytes, missing, err);   /* the name assimp opens */
        while (!st && *p) {   /* the parts, where there are several */
            const char *e = p;
            while (*e && *e != ' ' && *e != '\t') e++;
            if ((size_t)(e - p) < whole) st = sr_obj_mtllib(path, p, (size_t)(e - p), bytes, NULL, err);
            for (p = e; *p == ' ' || *p == '\t'; p++) {}
        }
    }
    free(line);
    fclose(f);
    return st;
}

/* ---- glTF: what makes assimp's glTF 2 reader take the file ---------------------------------
 *
 * .gltf and .glb are claimed by two assimp readers (glTF 1 and 2), so assimp asks each whether
 * it can read the file; when neither can, it offers the file to every reader by content, and
 * an OBJ text saved as .gltf was imported by the OBJ reader, past our OBJ checks (and leaked:
 * found by tests/fuzz). So a glTF is accepted only when the glTF 2 reader surely takes it: JSON
 * that rapidjson parses (checked strictly, RFC 8259, here), an object whose "asset" is an
 * object with a "version" string starting with 2; a .glb also needs version 2 and its first
 * chunk JSON (and a BIN chunk where its header says one follows). */

typedef struct sr_json_scan { const char *t; size_t len, at; int depth; const char *why; } sr_json_scan;

static int sr_scan_fail(sr_json_scan *j, const char *why)
{
    j->why = why;
    return 0;
}

static void sr_scan_ws(sr_json_scan *j)
{
    while (j->at < j->len && (j->t[j->at] == ' ' || j->t[j->at] == '\t' || j->t[j->at] == '\n' || j->t[j->at] == '\r'))
        j->at++;
}

static int sr_scan_hex4(sr_json_scan *j, unsigned *u)
{
    *u = 0;
    for (int k = 0; k < 4; k++, j->at++) {
        const char c = j->at < j->len ? j->t[j->at] : '\0';
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return sr_scan_fail(j, "a \\u escape without four hex digits");
        *u = *u << 4 | (unsigned)d;
    }
    return 1;
}

static int sr_scan_string(sr_json_scan *j)
{
    for (j->at++; j->at < j->len; j->at++) {
        const unsigned char c = (unsigned char)j->t[j->at];
        if (c == '"') { j->at++; return 1; }
        if (c < 0x20) return sr_scan_fail(j, "a control byte in a string");
        if (c != '\\') continue;
        if (++j->at >= j->len) break;
        const char e = j->t[j->at];
        if (strchr("\"\\/bfnrt", e) && e) continue;
        if (e != 'u') return sr_scan_fail(j, "an unknown escape in a string");
        unsigned u, lo;
        j->at++;
        if (!sr_scan_hex4(j, &u)) return 0;
        if (u >= 0xDC00 && u <= 0xDFFF) return sr_scan_fail(j, "a lone low surrogate");
        if (u >= 0xD800 && u <= 0xDBFF) {   /* a pair: \uD8xx\uDCxx */
            if (j->at + 2 > j->len || j->t[j->at] != '\\' || j->t[j->at + 1] != 'u')
                return sr_scan_fail(j, "a high surrogate without its low half");
            j->at += 2;
            if (!sr_scan_hex4(j, &lo)) return 0;
            if (lo < 0xDC00 || lo > 0xDFFF) return sr_scan_fail(j, "a high surrogate without its low half");
        }
        j->at--;   /* the loop steps past the last hex digit */
    }
    return sr_scan_fail(j, "a string without its closing quote");
}

static int sr_scan_number(sr_json_scan *j)
{
    const size_t from = j->at;
    const char *t = j->t;
#define SR_DIGIT(i) ((i) < j->len && t[i] >= '0' && t[i] <= '9')
    if (j->at < j->len && t[j->at] == '-') j->at++;
    if (!SR_DIGIT(j->at)) return sr_scan_fail(j, "a number without digits");
    if (t[j->at] == '0') j->at++;
    else while (SR_DIGIT(j->at)) j->at++;
    if (j->at < j->len && t[j->at] == '.') {
        if (!SR_DIGIT(j->at + 1)) return sr_scan_fail(j, "a number with no digit after its point");
        for (j->at++; SR_DIGIT(j->at); j->at++) {}
    }
    if (j->at < j->len && (t[j->at] == 'e' || t[j->at] == 'E')) {
        j->at++;
        if (j->at < j->len && (t[j->at] == '+' || t[j->at] == '-')) j->at++;
        if (!SR_DIGIT(j->at)) return sr_scan_fail(j, "a number with no digit in its exponent");
        while (SR_DIGIT(j->at)) j->at++;
    }
#undef SR_DIGIT
    char num[64];
    if (j->at - from >= sizeof num) return sr_scan_fail(j, "a number of 64 characters or more");
    memcpy(num, t + from, j->at - from);
    num[j->at - from] = '\0';
    const double v = strtod(num, NULL);   /* rapidjson refuses what does not fit a double */
    if (!(v >= -1e300 && v <= 1e300)) return sr_scan_fail(j, "a number too large for a double");
    return 1;
}

static int sr_scan_value(sr_json_scan *j)
{
    sr_scan_ws(j);
    if (j->at >= j->len) return sr_scan_fail(j, "the end of the text where a value belongs");
    const char c = j->t[j->at];
    if (c == '"') return sr_scan_string(j);
    if (c == '-' || (c >= '0' && c <= '9')) return sr_scan_number(j);
    static const char *const words[] = { "true", "false", "null" };
    for (int k = 0; k < 3; k++)
        if (j->len - j->at >= strlen(words[k]) && !memcmp(j->t + j->at, words[k], strlen(words[k]))) {
            j->at += strlen(words[k]);
            return 1;
        }
    if (c != '{' && c != '[') return sr_scan_fail(j, "a byte that starts no JSON value");
    if (++j->depth > 64) return sr_scan_fail(j, "arrays and objects nested more than 64 deep");
    const char close = c == '{' ? '}' : ']';
    j->at++;
    sr_scan_ws(j);
    if (j->at < j->len && j->t[j->at] == close) {
        j->at++;
        j->depth--;
        return 1;
    }
    for (;;) {
        if (close == '}') {
            sr_scan_ws(j);
            if (j->at >= j->len || j->t[j->at] != '"') return sr_scan_fail(j, "an object member without a quoted name");
            if (!sr_scan_string(j)) return 0;
            sr_scan_ws(j);
            if (j->at >= j->len || j->t[j->at] != ':') return sr_scan_fail(j, "an object member without ':'");
            j->at++;
        }
        if (!sr_scan_value(j)) return 0;
        sr_scan_ws(j);
        if (j->at < j->len && j->t[j->at] == ',') { j->at++; continue; }
        if (j->at < j->len && j->t[j->at] == close) { j->at++; j->depth--; return 1; }
        return sr_scan_fail(j, close == '}' ? "an object without ',' or '}' after a member" : "an array without ',' or ']' after an element");
    }
}

/* SR_OK when `json` is glTF 2 JSON that assimp's glTF 2 reader accepts as such. */
static sr_status sr_gltf_json_check(const char *path, const char *json, size_t len, sr_error *err)
{
    sr_json_scan j = { json, len, 0, 0, NULL };
    int ok = sr_scan_value(&j);
    if (ok) {
        sr_scan_ws(&j);
        if (j.at < j.len) ok = sr_scan_fail(&j, "more after the top-level value");
    }
    if (!ok)
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: its glTF JSON is malformed at byte %zu (%s)", path,
                       j.at, j.why);
    /* glTF's JSON is UTF-8 (glTF 2.0, 3.2); assimp's reader threw on other bytes and leaked. */
    for (size_t i = 0; i < len;) {
        const size_t n = sr_utf8_char_len((const unsigned char *)json + i, len - i);
        if (!n)
            return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: its glTF JSON is not UTF-8 at byte %zu; "
                           "expected UTF-8 text", path, i);
        i += n;
    }
    cJSON *root = cJSON_ParseWithLength(json, len);
    /* A base64 data: URI holds the base64 alphabet only: assimp's decoder threw on other
     * characters and leaked what it had built. */
    static const char *const sr_uri_owners[] = { "buffers", "images" };
    for (size_t k = 0; k < 2; k++) {
        const cJSON *item;
        int idx = 0;
        cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(root, sr_uri_owners[k])) {
            const cJSON *uri = cJSON_GetObjectItemCaseSensitive(item, "uri");
            const char *b64 = cJSON_IsString(uri) && !strncmp(uri->valuestring, "data:", 5)
                                  ? strstr(uri->valuestring, ";base64,") : NULL;
            if (b64) {
                const size_t bad = strspn(b64 + 8, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=");
                if (b64[8 + bad]) {
                    const sr_status st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s[%d].uri is a base64 "
                                                 "data: URI with a character that is not base64 at character %zu; "
                                                 "expected A-Z, a-z, 0-9, +, / and =", path, sr_uri_owners[k], idx,
                                                 (size_t)(b64 + 8 + bad - uri->valuestring));
                    cJSON_Delete(root);
                    return st;
                }
            }
            idx++;
        }
    }
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(root, "asset");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(asset, "version");
    const cJSON *profile = cJSON_GetObjectItemCaseSensitive(asset, "profile");
    const int glTF2 = cJSON_IsObject(root) && cJSON_IsObject(asset) && cJSON_IsString(version) &&
                      version->valuestring[0] == '2' && (!profile || cJSON_IsObject(profile));
    cJSON_Delete(root);
    if (!glTF2)
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: not glTF 2 (expected a JSON object whose \"asset\" "
                       "is an object with a \"version\" string starting with 2)", path);
    return SR_OK;
}

/* The length of a glTF's "nodes", and its placements: per node with a "mesh", that mesh's
 * primitives (assimp makes a mesh of each). */
static void sr_gltf_count_nodes(const cJSON *root, uint64_t *nodes, uint64_t *placements)
{
    const cJSON *node_list = cJSON_GetObjectItemCaseSensitive(root, "nodes"), *node;
    const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(root, "meshes");
    const int mesh_count = cJSON_IsArray(meshes) ? cJSON_GetArraySize(meshes) : 0;
    uint32_t *prims = calloc((size_t)mesh_count + 1u, sizeof *prims);
    const cJSON *mesh, *mesh_list = mesh_count && prims ? meshes : NULL;
    int m = 0;
    cJSON_ArrayForEach(mesh, mesh_list) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(mesh, "primitives");
        prims[m++] = cJSON_IsArray(list) ? (uint32_t)cJSON_GetArraySize(list) : 0;
    }
    *nodes = *placements = 0;
    if (!cJSON_IsArray(node_list)) node_list = NULL;
    cJSON_ArrayForEach(node, node_list) {
        (*nodes)++;
        const cJSON *ix = cJSON_GetObjectItemCaseSensitive(node, "mesh");
        if (cJSON_IsNumber(ix) && ix->valuedouble >= 0 && ix->valuedouble < mesh_count)
            *placements += prims ? prims[(int)ix->valuedouble] : 1u;
    }
    free(prims);
}

/* glTF JSON (a .gltf file, or a .glb's JSON chunk): every buffer and image "uri" that is not a
 * data: URI names a file next to the mesh. *nodes and *placements: sr_gltf_count_nodes's. */
static sr_status sr_gltf_refs(const char *path, const char *json, size_t len, uint64_t *bytes, uint64_t *nodes,
                              uint64_t *placements, sr_error *err)
{
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!root) return SR_OK;   /* assimp says what is wrong with it */
    sr_gltf_count_nodes(root, nodes, placements);
    sr_status st = SR_OK;
    static const char *const lists[] = { "buffers", "images" };
    for (int l = 0; l < 2 && !st; l++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, lists[l]), *it;
        cJSON_ArrayForEach(it, arr) {
            const cJSON *uri = cJSON_GetObjectItemCaseSensitive(it, "uri");
            if (!cJSON_IsString(uri) || !strncmp(uri->valuestring, "data:", 5)) continue;
            if ((st = sr_ref_file(path, uri->valuestring, strlen(uri->valuestring), bytes, err))) break;
        }
    }
    cJSON_Delete(root);
    return st;
}

static uint32_t sr_le32(const unsigned char *b) { return b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }

/* The JSON of a .gltf (the file) or a .glb (its first chunk, after the header and chunk
 * lengths are checked against file_size), into *json (malloc'd, *json_len bytes); *bin_at
 * and *bin_len: where a .glb's BIN chunk is (its header; 0 when it has none). A file that
 * does not open leaves *json NULL: the import says why. */
sr_status sr_gltf_read_json(const char *path, const char *ext, uint64_t file_size, char **json_out,
                                   size_t *json_len_out, uint64_t *bin_at_out, uint64_t *bin_len_out, sr_error *err)
{
    *json_out = NULL;
    *json_len_out = 0;
    *bin_at_out = *bin_len_out = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return SR_OK;
    sr_status st = SR_OK;
    char *json = NULL;
    size_t json_len = 0;
    int have_json = 0;
    if (!strcmp(ext, ".glb")) {
        /* 12-byte header (magic, version, total length), then chunks (length, type, data):
         * every length must fit the file, or assimp allocates what the header claims. */
        unsigned char h[12];
        if (fread(h, 1, 12, f) != 12 || memcmp(h, "glTF", 4) != 0) {
            st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: not a binary glTF (expected the magic 'glTF' "
                         "and a 12-byte header)", path);
        } else if (sr_le32(h + 4) != 2) {
            st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: a binary glTF of version %u; expected 2", path,
                         sr_le32(h + 4));
        } else if (sr_le32(h + 8) != file_size) {
            st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: its header declares %u bytes but the file "
                         "has %llu", path, sr_le32(h + 8), (unsigned long long)file_size);
        }
        uint64_t bin_at = 0;   /* where assimp looks for the BIN chunk (0: it does not) */
        for (uint64_t at = 12; !st && at + 8 <= file_size;) {
            unsigned char c[8];
            if (fseek(f, (long)at, SEEK_SET) != 0 || fread(c, 1, 8, f) != 8) break;
            const uint64_t clen = sr_le32(c);
            if (clen > file_size - at - 8) {
                st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: a chunk at byte %llu declares %llu bytes, "
                             "past the end of the file", path, (unsigned long long)at, (unsigned long long)clen);
                break;
            }
            if (at == 12) {
                if (memcmp(c + 4, "JSON", 4)) {
                    st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: its first chunk is not JSON", path);
                    break;
                }
                json = malloc(clen + 1);
                have_json = json && fread(json, 1, clen, f) == clen;
                json_len = clen;
                const uint64_t padded = (clen + 3) & ~(uint64_t)3;
                if (file_size >= 12 + 8 + padded + 8) bin_at = 12 + 8 + padded;
            } else if (at == bin_at) {
                if (memcmp(c + 4, "BIN\0", 4)) {
                    st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: the chunk after the JSON is not BIN", path);
                    break;
                }
                *bin_at_out = bin_at;
                *bin_len_out = clen;
            }
            at += 8 + clen;
        }
        if (!st && bin_at && bin_at != 12 + 8 + json_len)   /* padding the chunk walk above did not step over */
            st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: its JSON chunk is not padded to 4 bytes", path);
        if (!st && !json_len)
            st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: a binary glTF without a JSON chunk", path);
    } else if (file_size <= SR_MAX_MESH_BYTES) {
        json = malloc(file_size + 1);
        have_json = json && fread(json, 1, file_size, f) == file_size;
        json_len = file_size;
    }
    fclose(f);
    if (!st && !have_json)
        st = sr_fail(err, SR_ERR_RUNTIME, "cannot read mesh file %s: %s", path, json ? "read failed" : "out of memory");
    if (st) {
        free(json);
        return st;
    }
    *json_out = json;
    *json_len_out = json_len;
    return SR_OK;
}

sr_status sr_mesh_refs_check(const char *path, const char *ext, uint64_t file_size, uint64_t *ref_bytes, sr_error *err)
{
    *ref_bytes = 0;
    if (!strcmp(ext, ".obj")) return sr_obj_mtllibs(path, ref_bytes, NULL, err);
    if (strcmp(ext, ".gltf") && strcmp(ext, ".glb")) return SR_OK;
    char *json = NULL;
    size_t json_len = 0;
    uint64_t bin_at, bin_len;
    sr_status st = sr_gltf_read_json(path, ext, file_size, &json, &json_len, &bin_at, &bin_len, err);
    uint64_t nodes = 0, placements = 0;
    if (!st && json) st = sr_gltf_json_check(path, json, json_len, err);
    if (!st && json) st = sr_gltf_refs(path, json, json_len, ref_bytes, &nodes, &placements, err);
    free(json);
    if (st || !nodes) return st;
    /* The import's memory grows with the nodes and their placements as much as with the
     * bytes: budgeted before it. */
    const uint64_t bytes = file_size + *ref_bytes;
    char *what = sr_format("importing mesh file %s (%llu nodes, about %.1f KiB each, %llu placements of a mesh's "
                           "primitives by a node, %u bytes each, and %.1f MiB with the files it refers to, about %ux "
                           "that)", path, (unsigned long long)nodes, SR_GLTF_NODE_BYTES / 1024.0,
                           (unsigned long long)placements, SR_GLTF_PLACEMENT_BYTES, (double)bytes / 1048576.0,
                           SR_MESH_IMPORT_FACTOR);
    if (!what) return sr_fail(err, SR_ERR_RUNTIME, "out of memory checking mesh file %s", path);
    st = sr_check_host_memory(bytes * SR_MESH_IMPORT_FACTOR + nodes * SR_GLTF_NODE_BYTES +
                              placements * SR_GLTF_PLACEMENT_BYTES, what, "", err);
    free(what);
    return st;
}

sr_status sr_gltf_data_check(const char *path, const char *ext, uint64_t file_size, sr_error *err)
{
    char *json = NULL;
    size_t json_len = 0;
    uint64_t bin_at, bin_len;
    sr_status st = sr_gltf_read_json(path, ext, file_size, &json, &json_len, &bin_at, &bin_len, err);
    if (!st && json) st = sr_gltf_struct_check(path, json, json_len, bin_at, bin_len, err);
    if (!st && json) st = sr_gltf_sparse_check(path, json, json_len, bin_at, bin_len, err);
    free(json);
    return st;
}

sr_status sr_obj_mtl_check(const char *path, char *missing, size_t missing_cap, sr_error *err)
{
    if (missing && missing_cap) missing[0] = '\0';
    const sr_missing_list list = { missing, missing_cap };
    return sr_obj_mtllibs(path, NULL, missing && missing_cap ? &list : NULL, err);
}

sr_status sr_gltf_json_read(const char *path, const char *ext, uint64_t file_size, char **json, size_t *json_len,
                            sr_error *err)
{
    uint64_t bin_at, bin_len;
    return sr_gltf_read_json(path, ext, file_size, json, json_len, &bin_at, &bin_len, err);
}
