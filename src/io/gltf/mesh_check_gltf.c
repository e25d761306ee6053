/* mesh_check_gltf.c: glTF sparse accessors, checked before assimp reads them (see
 * mesh_check.h). assimp 5.2 copies a sparse accessor's values and reads its indices from
 * wherever the file says they are, unchecked: values past their buffer view were read past
 * the buffer (AddressSanitizer: heap-buffer-overflow), so were base data longer than their
 * view, and a missing "bufferView" was a null pointer (SIGSEGV). */
#include "../meshes/mesh_check.h"
#include "mesh_check_gltf.h"

#include <cJSON.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* A whole number in [0, max] (JSON numbers are doubles to cJSON). */
int sr_json_index(const cJSON *v, double max, uint64_t *out)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.0 && v->valuedouble <= max) || floor(v->valuedouble) != v->valuedouble)
        return 0;
    *out = (uint64_t)v->valuedouble;
    return 1;
}

static int sr_b64(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
         : c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* n bytes from offset `off` of the buffer (off + n <= src->len, checked by the caller). */
static int sr_gltf_src_read(const sr_gltf_src *s, uint64_t off, unsigned char *out, size_t n)
{
    if (s->f) return fseek(s->f, (long)(s->at + off), SEEK_SET) == 0 && fread(out, 1, n, s->f) == n;
    if (!s->base64) {
        memcpy(out, s->text + off, n);
        return 1;
    }
    for (size_t k = 0; k < n; k++) {   /* byte p is in the 4 characters of group p / 3 */
        const uint64_t p = off + k, g = p / 3 * 4;
        int v[4];
        for (int i = 0; i < 4; i++) v[i] = g + (uint64_t)i < s->text_len ? sr_b64((unsigned char)s->text[g + i]) : 0;
        const uint32_t w = (uint32_t)(v[0] & 63) << 18 | (uint32_t)(v[1] & 63) << 12 | (uint32_t)(v[2] & 63) << 6 |
                           (uint32_t)(v[3] & 63);
        out[k] = (unsigned char)(w >> (16 - 8 * (p % 3)));
    }
    return 1;
}

/* Buffer `b` of the document: its declared byteLength, and where its bytes are. A buffer
 * that cannot be found or opened leaves src->len at the declared length with nothing to
 * read (f and text NULL): assimp then refuses the file itself. */
sr_status sr_gltf_buffer(const char *path, const cJSON *root, uint64_t b, uint64_t bin_at, uint64_t bin_len,
                                const char *jp, uint64_t *declared, sr_gltf_src *src, sr_error *err)
{
    memset(src, 0, sizeof *src);
    const cJSON *bufs = cJSON_GetObjectItemCaseSensitive(root, "buffers");
    const cJSON *buf = b < (uint64_t)cJSON_GetArraySize(bufs) ? cJSON_GetArrayItem(bufs, (int)b) : NULL;
    if (!cJSON_IsObject(buf))
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s names buffer %llu, which does not exist; "
                       "expected an index into \"buffers\"", path, jp, (unsigned long long)b);
    if (!sr_json_index(cJSON_GetObjectItemCaseSensitive(buf, "byteLength"), 9007199254740992.0, declared))
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: buffers[%llu] has no \"byteLength\"; expected a "
                       "whole number of bytes", path, (unsigned long long)b);
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(buf, "uri");
    uint64_t holds = *declared;
    if (!cJSON_IsString(uri)) {   /* a .glb's BIN chunk (buffer 0) */
        if (b == 0 && bin_at) {
            src->f = fopen(path, "rb");
            src->at = bin_at + 8;
            holds = bin_len;
        }
    } else if (!strncmp(uri->valuestring, "data:", 5)) {
        const char *comma = strchr(uri->valuestring, ',');
        if (comma) {
            src->text = comma + 1;
            src->text_len = strlen(src->text);
            src->base64 = (size_t)(comma - uri->valuestring) >= 7 && !strncmp(comma - 7, ";base64", 7);
            size_t n = src->text_len;
            while (src->base64 && n > 0 && src->text[n - 1] == '=') n--;
            holds = src->base64 ? (uint64_t)n * 3 / 4 : src->text_len;
        }
    } else {   /* a file next to the mesh (sr_mesh_refs_check has checked it is a regular one) */
        const char *slash = strrchr(path, '/');
        const size_t dir = slash ? (size_t)(slash - path) + 1 : 0, name = strlen(uri->valuestring);
        char *file = malloc(dir + name + 1);
        if (!file) return sr_fail(err, SR_ERR_RUNTIME, "out of memory checking mesh file %s", path);
        memcpy(file, path, dir);
        memcpy(file + dir, uri->valuestring, name + 1);
        src->f = fopen(file, "rb");
        free(file);
        if (src->f && fseek(src->f, 0, SEEK_END) == 0) {
            const long end = ftell(src->f);
            holds = end > 0 ? (uint64_t)end : 0;
        }
    }
    if ((src->f || src->text) && holds < *declared) {
        if (src->f) fclose(src->f);
        src->f = NULL;
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: buffers[%llu] declares %llu bytes but holds %llu; "
                       "expected a byteLength within its data", path, (unsigned long long)b, (unsigned long long)*declared,
                       (unsigned long long)holds);
    }
    src->len = *declared;
    return SR_OK;
}

/* The bytes [off, off + n) of buffer view `v` (jp says whose), within the view and the view
 * within its buffer; the buffer's bytes go to *src (close src->f after). */
static sr_status sr_gltf_view_range(const char *path, const cJSON *root, const cJSON *owner, const char *jp,
                                    uint64_t bin_at, uint64_t bin_len, uint64_t n, uint64_t *start, sr_gltf_src *src,
                                    sr_error *err)
{
    memset(src, 0, sizeof *src);
    const cJSON *views = cJSON_GetObjectItemCaseSensitive(root, "bufferViews");
    uint64_t v, off = 0, b, voff = 0, vlen, blen = 0;
    if (!sr_json_index(cJSON_GetObjectItemCaseSensitive(owner, "bufferView"), 4294967295.0, &v) ||
        v >= (uint64_t)cJSON_GetArraySize(views))
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s.bufferView is missing or not an index into "
                       "\"bufferViews\" (%d of them); expected one", path, jp, cJSON_GetArraySize(views));
    const cJSON *bo = cJSON_GetObjectItemCaseSensitive(owner, "byteOffset");
    if (bo && !sr_json_index(bo, 9007199254740992.0, &off))
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s.byteOffset is not a whole number of bytes; "
                       "expected one (or none, for 0)", path, jp);
    const cJSON *view = cJSON_GetArrayItem(views, (int)v), *vo = cJSON_GetObjectItemCaseSensitive(view, "byteOffset");
    if (!sr_json_index(cJSON_GetObjectItemCaseSensitive(view, "buffer"), 4294967295.0, &b) ||
        !sr_json_index(cJSON_GetObjectItemCaseSensitive(view, "byteLength"), 9007199254740992.0, &vlen) ||
        (vo && !sr_json_index(vo, 9007199254740992.0, &voff)))
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: bufferViews[%llu] (of %s) lacks a whole "
                       "\"buffer\" index or \"byteLength\", or has a \"byteOffset\" that is not whole; expected them",
                       path, (unsigned long long)v, jp);
    if (off > vlen || n > vlen - off)
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s reaches past its buffer view: byteOffset %llu "
                       "+ %llu bytes, but bufferViews[%llu] has %llu; expected them within its byteLength", path, jp,
                       (unsigned long long)off, (unsigned long long)n, (unsigned long long)v, (unsigned long long)vlen);
    char vjp[48];
    snprintf(vjp, sizeof vjp, "bufferViews[%llu]", (unsigned long long)v);
    SR_TRY(sr_gltf_buffer(path, root, b, bin_at, bin_len, vjp, &blen, src, err));
    if (voff > blen || vlen > blen - voff) {
        if (src->f) fclose(src->f);
        src->f = NULL;
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: bufferViews[%llu] (of %s) reaches past its "
                       "buffer: byteOffset %llu + byteLength %llu, but buffers[%llu] has %llu bytes; expected the view "
                       "within its buffer", path, (unsigned long long)v, jp, (unsigned long long)voff,
                       (unsigned long long)vlen, (unsigned long long)b, (unsigned long long)blen);
    }
    *start = voff + off;
    return SR_OK;
}

unsigned sr_gltf_component_size(uint64_t t)
{
    return t == 5120 || t == 5121 ? 1 : t == 5122 || t == 5123 ? 2 : t == 5125 || t == 5126 ? 4 : 0;
}

unsigned sr_gltf_components(const cJSON *type)
{
    static const struct { const char *name; unsigned n; } types[] = {
        { "SCALAR", 1 }, { "VEC2", 2 }, { "VEC3", 3 }, { "VEC4", 4 }, { "MAT2", 4 }, { "MAT3", 9 }, { "MAT4", 16 },
    };
    for (size_t k = 0; cJSON_IsString(type) && k < sizeof types / sizeof types[0]; k++)
        if (!strcmp(type->valuestring, types[k].name)) return types[k].n;
    return 0;
}

/* Accessor `a` (jp: "accessors[a]"), which has a "sparse" object. */
static sr_status sr_gltf_sparse_one(const char *path, const cJSON *root, const cJSON *acc, const char *jp,
                                    uint64_t bin_at, uint64_t bin_len, sr_error *err)
{
    uint64_t count, ctype, scount, itype;
    const unsigned comps = sr_gltf_components(cJSON_GetObjectItemCaseSensitive(acc, "type"));
    if (!sr_json_index(cJSON_GetObjectItemCaseSensitive(acc, "componentType"), 65535.0, &ctype) ||
        !sr_gltf_component_size(ctype) || !comps)
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s has no valid \"componentType\" (5120, 5121, "
                       "5122, 5123, 5125 or 5126) and \"type\" (SCALAR, VEC2 to VEC4, MAT2 to MAT4); expected both",
                       path, jp);
    if (!sr_json_index(cJSON_GetObjectItemCaseSensitive(acc, "count"), 4294967295.0, &count) || count == 0)
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s.count is missing or not a whole number of at "
                       "least 1; expected one", path, jp);
    const cJSON *sparse = cJSON_GetObjectItemCaseSensitive(acc, "sparse");
    const cJSON *ind = cJSON_GetObjectItemCaseSensitive(sparse, "indices");
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(sparse, "values");
    if (!cJSON_IsObject(sparse) || !cJSON_IsObject(ind) || !cJSON_IsObject(val))
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s.sparse lacks its \"indices\" or \"values\" "
                       "object; expected both", path, jp);
    if (!sr_json_index(cJSON_GetObjectItemCaseSensitive(sparse, "count"), 4294967295.0, &scount) || scount == 0 ||
        scount > count)
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s.sparse.count is missing, 0 or more than the "
                       "accessor's count (%llu); expected 1 to %llu", path, jp, (unsigned long long)count,
                       (unsigned long long)count);
    if (!sr_json_index(cJSON_GetObjectItemCaseSensitive(ind, "componentType"), 65535.0, &itype) ||
        (itype != 5121 && itype != 5123 && itype != 5125))
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s.sparse.indices.componentType is missing or not "
                       "an unsigned integer type; expected 5121, 5123 or 5125", path, jp);
    const unsigned isize = sr_gltf_component_size(itype), esize = comps * sr_gltf_component_size(ctype);
    char sjp[96];
    uint64_t at;
    sr_gltf_src src;
    if (cJSON_GetObjectItemCaseSensitive(acc, "bufferView")) {
        /* The base data the values patch: assimp copies all of it first, so it must lie within
         * its view (glTF 2.0, 3.6.2.4: byteOffset + stride * (count - 1) + element size). */
        const cJSON *views = cJSON_GetObjectItemCaseSensitive(root, "bufferViews");
        uint64_t v = 0, stride = esize;
        if (sr_json_index(cJSON_GetObjectItemCaseSensitive(acc, "bufferView"), 4294967295.0, &v)) {
            const cJSON *bs = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(views, (int)v), "byteStride");
            uint64_t s;
            if (bs && sr_json_index(bs, 252.0, &s) && s >= esize) stride = s;
        }
        SR_TRY(sr_gltf_view_range(path, root, acc, jp, bin_at, bin_len, stride * (count - 1u) + esize, &at, &src, err));
        if (src.f) fclose(src.f);
    }
    snprintf(sjp, sizeof sjp, "%s.sparse.values", jp);
    SR_TRY(sr_gltf_view_range(path, root, val, sjp, bin_at, bin_len, scount * esize, &at, &src, err));
    if (src.f) fclose(src.f);
    snprintf(sjp, sizeof sjp, "%s.sparse.indices", jp);
    SR_TRY(sr_gltf_view_range(path, root, ind, sjp, bin_at, bin_len, scount * isize, &at, &src, err));
    /* Each index names an element of the accessor: read in blocks, nothing held. */
    sr_status st = SR_OK;
    unsigned char block[1024];
    const uint64_t per = sizeof block / isize;
    for (uint64_t i = 0; !st && (src.f || src.text) && i < scount; i += per) {
        const uint64_t n = scount - i < per ? scount - i : per;
        if (!sr_gltf_src_read(&src, at + i * isize, block, (size_t)(n * isize))) {
            st = sr_fail(err, SR_ERR_INPUT, "cannot read mesh file %s: %s: the buffer could not be read", path, sjp);
            break;
        }
        for (uint64_t k = 0; k < n; k++) {
            const unsigned char *p = block + k * isize;
            const uint64_t ix = isize == 1 ? p[0] : isize == 2 ? (uint64_t)(p[0] | p[1] << 8)
                              : (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
            if (ix >= count) {
                st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s[%llu] is %llu, but the accessor has %llu "
                             "elements; expected an index below %llu", path, sjp, (unsigned long long)(i + k),
                             (unsigned long long)ix, (unsigned long long)count, (unsigned long long)count);
                break;
            }
        }
    }
    if (src.f) fclose(src.f);
    return st;
}

sr_status sr_gltf_sparse_check(const char *path, const char *json, size_t len, uint64_t bin_at, uint64_t bin_len,
                               sr_error *err)
{
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!root) return SR_OK;   /* sr_mesh_refs_check refused it already */
    sr_status st = SR_OK;
    const cJSON *acc;
    int a = 0;
    cJSON_ArrayForEach(acc, cJSON_GetObjectItemCaseSensitive(root, "accessors")) {
        if (cJSON_GetObjectItemCaseSensitive(acc, "sparse")) {
            char jp[32];
            snprintf(jp, sizeof jp, "accessors[%d]", a);
            if ((st = sr_gltf_sparse_one(path, root, acc, jp, bin_at, bin_len, err))) break;
        }
        a++;
    }
    cJSON_Delete(root);
    return st;
}
