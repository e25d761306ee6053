/* mesh_check_gltf_struct.c: the structure of a glTF file, checked before assimp reads it (see
 * mesh_check_gltf.h). assimp 5.2 recurses through "children" without a guard (a node that is
 * its own child, a cycle, or a chain of 20000 nodes overflowed the stack), takes a buffer's
 * byteLength on trust,
 * and reads accessors of one primitive by the first one's count; each is refused here with
 * the item it concerns. */
#include "../meshes/mesh_check.h"
#include "mesh_check_gltf.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SR_GLTF_BYTES_MAX 9007199254740992.0   /* 2^53: a whole number cJSON keeps exactly */
#define SR_GLTF_INDEX_MAX 4294967295.0
#define SR_GLTF_DEPTH_MAX 1000                  /* node levels below a root (sr_check_nodes) */

static const cJSON *sr_field(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

static sr_status sr_bad(sr_error *err, const char *path, const char *what)
{
    return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: %s", path, what);
}

/* Every buffer's byteLength within its data (a data: URI declaring 2 GB and holding 3 bytes
 * made assimp allocate the 2 GB). */
static sr_status sr_check_buffers(const char *path, const cJSON *root, uint64_t bin_at, uint64_t bin_len,
                                  uint64_t **lens, sr_error *err)
{
    const int n = cJSON_GetArraySize(sr_field(root, "buffers"));
    *lens = calloc((size_t)n + 1, sizeof **lens);
    if (!*lens) return sr_fail(err, SR_ERR_RUNTIME, "out of memory checking mesh file %s", path);
    for (int b = 0; b < n; b++) {
        char jp[40];
        snprintf(jp, sizeof jp, "buffers[%d]", b);
        sr_gltf_src src;
        SR_TRY(sr_gltf_buffer(path, root, (uint64_t)b, bin_at, bin_len, jp, &(*lens)[b], &src, err));
        if (src.f) fclose(src.f);
    }
    return SR_OK;
}

/* Every buffer view within its buffer. */
static sr_status sr_check_views(const char *path, const cJSON *root, const uint64_t *buf_len, uint64_t **lens,
                                uint64_t **strides, sr_error *err)
{
    const cJSON *views = sr_field(root, "bufferViews"), *v;
    const int nb = cJSON_GetArraySize(sr_field(root, "buffers"));
    *lens = calloc((size_t)cJSON_GetArraySize(views) + 1, sizeof **lens);
    *strides = calloc((size_t)cJSON_GetArraySize(views) + 1, sizeof **strides);
    if (!*lens || !*strides) return sr_fail(err, SR_ERR_RUNTIME, "out of memory checking mesh file %s", path);
    int i = 0;
    char msg[320];
    cJSON_ArrayForEach(v, views) {
        uint64_t b, off = 0, len;
        const cJSON *bo = sr_field(v, "byteOffset");
        if (!sr_json_index(sr_field(v, "buffer"), SR_GLTF_INDEX_MAX, &b) || b >= (uint64_t)nb) {
            snprintf(msg, sizeof msg, "bufferViews[%d].buffer is missing or not an index into \"buffers\" (%d of them); "
                     "expected one", i, nb);
            return sr_bad(err, path, msg);
        }
        if (!sr_json_index(sr_field(v, "byteLength"), SR_GLTF_BYTES_MAX, &len) || (bo && !sr_json_index(bo, SR_GLTF_BYTES_MAX, &off))) {
            snprintf(msg, sizeof msg, "bufferViews[%d] lacks a whole \"byteLength\" or has a \"byteOffset\" that is not "
                     "a whole number of bytes; expected them", i);
            return sr_bad(err, path, msg);
        }
        if (off > buf_len[b] || len > buf_len[b] - off) {
            snprintf(msg, sizeof msg, "bufferViews[%d] reaches past its buffer: byteOffset %llu + byteLength %llu, but "
                     "buffers[%llu] has %llu bytes; expected the view within its buffer", i, (unsigned long long)off,
                     (unsigned long long)len, (unsigned long long)b, (unsigned long long)buf_len[b]);
            return sr_bad(err, path, msg);
        }
        uint64_t stride = 0;
        const cJSON *bs = sr_field(v, "byteStride");
        if (bs && sr_json_index(bs, 252.0, &stride)) (*strides)[i] = stride;
        (*lens)[i++] = len;
    }
    return SR_OK;
}

/* Every accessor within its buffer view (glTF 2.0, 3.6.2.4: byteOffset + stride x (count - 1)
 * + element size); *counts gets each accessor's count. */
static sr_status sr_check_accessors(const char *path, const cJSON *root, const uint64_t *view_len,
                                    const uint64_t *view_stride, uint64_t **counts, sr_error *err)
{
    const cJSON *accs = sr_field(root, "accessors"), *views = sr_field(root, "bufferViews"), *a;
    const int nv = cJSON_GetArraySize(views);
    *counts = calloc((size_t)cJSON_GetArraySize(accs) + 1, sizeof **counts);
    if (!*counts) return sr_fail(err, SR_ERR_RUNTIME, "out of memory checking mesh file %s", path);
    int i = 0;
    char msg[400];
    cJSON_ArrayForEach(a, accs) {
        uint64_t ctype, count, v, off = 0;
        const unsigned comps = sr_gltf_components(sr_field(a, "type"));
        if (!sr_json_index(sr_field(a, "componentType"), 65535.0, &ctype) || !sr_gltf_component_size(ctype) || !comps) {
            snprintf(msg, sizeof msg, "accessors[%d] has no valid \"componentType\" (5120, 5121, 5122, 5123, 5125 or "
                     "5126) and \"type\" (SCALAR, VEC2 to VEC4, MAT2 to MAT4); expected both", i);
            return sr_bad(err, path, msg);
        }
        if (!sr_json_index(sr_field(a, "count"), SR_GLTF_INDEX_MAX, &count) || count == 0) {
            snprintf(msg, sizeof msg, "accessors[%d].count is missing or not a whole number of at least 1; expected one", i);
            return sr_bad(err, path, msg);
        }
        (*counts)[i] = count;
        const cJSON *bv = sr_field(a, "bufferView");
        if (bv) {
            if (!sr_json_index(bv, SR_GLTF_INDEX_MAX, &v) || v >= (uint64_t)nv) {
                snprintf(msg, sizeof msg, "accessors[%d].bufferView is not an index into \"bufferViews\" (%d of them); "
                         "expected one", i, nv);
                return sr_bad(err, path, msg);
            }
            const cJSON *bo = sr_field(a, "byteOffset");
            if (bo && !sr_json_index(bo, SR_GLTF_BYTES_MAX, &off)) {
                snprintf(msg, sizeof msg, "accessors[%d].byteOffset is not a whole number of bytes; expected one", i);
                return sr_bad(err, path, msg);
            }
            const uint64_t esize = (uint64_t)comps * sr_gltf_component_size(ctype);
            const uint64_t stride = view_stride[v] >= esize ? view_stride[v] : esize;
            const uint64_t need = stride * (count - 1u) + esize;
            if (off > view_len[v] || need > view_len[v] - off) {
                snprintf(msg, sizeof msg, "accessors[%d] reaches past its buffer view: byteOffset %llu + %llu elements "
                         "(%llu bytes), but bufferViews[%llu] has %llu bytes; expected a count its view holds", i,
                         (unsigned long long)off, (unsigned long long)count, (unsigned long long)need,
                         (unsigned long long)v, (unsigned long long)view_len[v]);
                return sr_bad(err, path, msg);
            }
        }
        i++;
    }
    return SR_OK;
}

/* A mesh primitive's attributes name accessors, all of one count (one per vertex). */
static sr_status sr_check_meshes(const char *path, const cJSON *root, const uint64_t *acc_count, sr_error *err)
{
    const int na = cJSON_GetArraySize(sr_field(root, "accessors"));
    const cJSON *m;
    int i = 0;
    char msg[400];
    cJSON_ArrayForEach(m, sr_field(root, "meshes")) {
        const cJSON *p;
        int k = 0;
        cJSON_ArrayForEach(p, sr_field(m, "primitives")) {
            const cJSON *attr;
            const char *first = NULL;
            uint64_t first_count = 0, ix;
            cJSON_ArrayForEach(attr, sr_field(p, "attributes")) {
                if (!sr_json_index(attr, SR_GLTF_INDEX_MAX, &ix) || ix >= (uint64_t)na) {
                    snprintf(msg, sizeof msg, "meshes[%d].primitives[%d].attributes.%.40s is not an index into "
                             "\"accessors\" (%d of them); expected one", i, k, attr->string, na);
                    return sr_bad(err, path, msg);
                }
                /* a tangent is read as 4 floats whatever the accessor holds (assimp 5.2) */
                const cJSON *acc = cJSON_GetArrayItem(sr_field(root, "accessors"), (int)ix);
                const cJSON *ty = sr_field(acc, "type"), *ct = sr_field(acc, "componentType");
                if (!strcmp(attr->string, "TANGENT") &&
                    (!cJSON_IsString(ty) || strcmp(ty->valuestring, "VEC4") || !cJSON_IsNumber(ct) || ct->valuedouble != 5126)) {
                    snprintf(msg, sizeof msg, "meshes[%d].primitives[%d].attributes.TANGENT is accessors[%llu], which "
                             "is not of type \"VEC4\" and componentType 5126 (float); expected tangents as glTF defines "
                             "them (x, y, z and the handedness w)", i, k, (unsigned long long)ix);
                    return sr_bad(err, path, msg);
                }
                if (!first) {
                    first = attr->string;
                    first_count = acc_count[ix];
                } else if (acc_count[ix] != first_count) {
                    snprintf(msg, sizeof msg, "meshes[%d].primitives[%d]: attribute %.40s has %llu elements and %.40s "
                             "has %llu; expected one count for every attribute (one element per vertex)", i, k,
                             first, (unsigned long long)first_count, attr->string, (unsigned long long)acc_count[ix]);
                    return sr_bad(err, path, msg);
                }
            }
            const cJSON *ind = sr_field(p, "indices");
            if (ind && (!sr_json_index(ind, SR_GLTF_INDEX_MAX, &ix) || ix >= (uint64_t)na)) {
                snprintf(msg, sizeof msg, "meshes[%d].primitives[%d].indices is not an index into \"accessors\" (%d of "
                         "them); expected one", i, k, na);
                return sr_bad(err, path, msg);
            }
            k++;
        }
        i++;
    }
    return SR_OK;
}

/* An optional index into root[list] ("mesh", "camera"): absent, or in range. */
static int sr_opt_index(const cJSON *root, const cJSON *node, const char *key, const char *list)
{
    const cJSON *v = sr_field(node, key);
    uint64_t ix;
    return !v || (sr_json_index(v, SR_GLTF_INDEX_MAX, &ix) && ix < (uint64_t)cJSON_GetArraySize(sr_field(root, list)));
}

/* A node's transform: "matrix" of 16 finite numbers, or "translation" (3), "rotation" (4),
 * "scale" (3), each finite. */
static int sr_finite_array(const cJSON *v, int n)
{
    if (!v) return 1;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) return 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, v) if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) return 0;
    return 1;
}

/* Nodes form a forest: children in range, never the node itself, at most one parent each,
 * every node with a parent reachable from a root (else it lies on a cycle), at most
 * SR_GLTF_DEPTH_MAX levels deep; the scenes list roots only, each once. */
static sr_status sr_check_nodes(const char *path, const cJSON *root, sr_error *err)
{
    const cJSON *nodes = sr_field(root, "nodes"), *n;
    const int count = cJSON_GetArraySize(nodes);
    char msg[400];
    if (count == 0) return SR_OK;
    int *parent = malloc((size_t)count * sizeof *parent), *stack = malloc((size_t)count * sizeof *stack);
    int *depth = malloc((size_t)count * sizeof *depth);
    int *listed_in = malloc((size_t)count * sizeof *listed_in), *listed_at = malloc((size_t)count * sizeof *listed_at);
    unsigned char *seen = calloc((size_t)count, 1);
    const cJSON **items = malloc((size_t)count * sizeof *items);
    sr_status st = SR_OK;
    if (!parent || !stack || !seen || !items || !depth || !listed_in || !listed_at) {
        st = sr_fail(err, SR_ERR_RUNTIME, "out of memory checking mesh file %s", path);
        goto done;
    }
    int i = 0;
    cJSON_ArrayForEach(n, nodes) { items[i] = n; listed_in[i] = -1; parent[i++] = -1; }
    static const struct { const char *key; int n; } xf[] = { { "matrix", 16 }, { "translation", 3 }, { "rotation", 4 },
                                                            { "scale", 3 } };
    for (i = 0; i < count && !st; i++) {
        n = items[i];
        if (!cJSON_IsObject(n)) {
            snprintf(msg, sizeof msg, "nodes[%d] is not an object; expected one", i);
            st = sr_bad(err, path, msg);
            break;
        }
        for (size_t k = 0; k < sizeof xf / sizeof xf[0] && !st; k++)
            if (!sr_finite_array(sr_field(n, xf[k].key), xf[k].n)) {
                snprintf(msg, sizeof msg, "nodes[%d].%s is not an array of %d finite numbers; expected one", i,
                         xf[k].key, xf[k].n);
                st = sr_bad(err, path, msg);
            }
        if (!st && (!sr_opt_index(root, n, "mesh", "meshes") || !sr_opt_index(root, n, "camera", "cameras"))) {
            snprintf(msg, sizeof msg, "nodes[%d] names a \"mesh\" or \"camera\" that does not exist; expected an index "
                     "into \"meshes\" or \"cameras\"", i);
            st = sr_bad(err, path, msg);
        }
        const cJSON *c;
        int k = 0;
        cJSON_ArrayForEach(c, sr_field(n, "children")) {
            uint64_t ch;
            if (st) break;
            if (!sr_json_index(c, SR_GLTF_INDEX_MAX, &ch) || ch >= (uint64_t)count) {
                snprintf(msg, sizeof msg, "nodes[%d].children[%d] is not an index into \"nodes\" (%d of them); expected "
                         "one", i, k, count);
                st = sr_bad(err, path, msg);
            } else if ((int)ch == i) {
                snprintf(msg, sizeof msg, "nodes[%d].children[%d] is node %d itself; expected other nodes (a node "
                         "cannot be its own child)", i, k, i);
                st = sr_bad(err, path, msg);
            } else if (parent[ch] >= 0) {
                snprintf(msg, sizeof msg, "nodes[%d].children[%d]: node %llu is already a child of node %d; expected "
                         "each node to have at most one parent (the nodes form a tree)", i, k,
                         (unsigned long long)ch, parent[ch]);
                st = sr_bad(err, path, msg);
            } else {
                parent[ch] = i;
            }
            k++;
        }
    }
    /* From every root, down: what is never reached has a parent but no root above it. Each
     * node's depth below its root is bounded (assimp's readers recurse once per level: a
     * chain of 20000 nodes overflowed the stack, 5000 did not). */
    for (int r = 0; r < count && !st; r++) {
        if (parent[r] >= 0) continue;
        int top = 0;
        stack[top++] = r;
        seen[r] = 1;
        depth[r] = 0;
        while (top && !st) {
            const int at = stack[--top];
            const cJSON *c, *kids = sr_field(items[at], "children");   /* the macro reads it twice */
            cJSON_ArrayForEach(c, kids) {
                const int ch = (int)c->valuedouble;
                if (seen[ch]) continue;
                seen[ch] = 1;
                depth[ch] = depth[at] + 1;
                if (depth[ch] > SR_GLTF_DEPTH_MAX) {
                    snprintf(msg, sizeof msg, "nodes[%d] is %d levels below its root node %d; at most %d are supported",
                             ch, depth[ch], r, SR_GLTF_DEPTH_MAX);
                    st = sr_bad(err, path, msg);
                    break;
                }
                stack[top++] = ch;
            }
        }
    }
    for (i = 0; i < count && !st; i++)
        if (!seen[i]) {   /* parent[i] still names its parent: depths went to depth[] */
            snprintf(msg, sizeof msg, "nodes[%d] lies on a cycle of \"children\" (node %d is its parent, and following "
                     "parents never reaches a root); expected the nodes to form a tree", i, parent[i]);
            st = sr_bad(err, path, msg);
        }
    const cJSON *sc;
    int s = 0;
    cJSON_ArrayForEach(sc, sr_field(root, "scenes")) {
        const cJSON *c;
        int k = 0;
        cJSON_ArrayForEach(c, sr_field(sc, "nodes")) {
            uint64_t ix;
            if (st) break;
            if (!sr_json_index(c, SR_GLTF_INDEX_MAX, &ix) || ix >= (uint64_t)count) {
                snprintf(msg, sizeof msg, "scenes[%d].nodes[%d] is not an index into \"nodes\" (%d of them); expected "
                         "one", s, k, count);
                st = sr_bad(err, path, msg);
            } else if (parent[ix] >= 0) {
                snprintf(msg, sizeof msg, "scenes[%d].nodes[%d] is node %llu, a child of node %d; expected root nodes "
                         "only", s, k, (unsigned long long)ix, parent[ix]);
                st = sr_bad(err, path, msg);
            } else if (listed_in[ix] == s) {   /* glTF 2.0: a scene's "nodes" has unique items */
                snprintf(msg, sizeof msg, "scenes[%d].nodes[%d] duplicates node %llu (already scenes[%d].nodes[%d]); "
                         "expected each root once (a root listed twice would be placed twice)", s, k,
                         (unsigned long long)ix, s, listed_at[ix]);
                st = sr_bad(err, path, msg);
            } else {
                listed_in[ix] = s;
                listed_at[ix] = k;
            }
            k++;
        }
        s++;
    }
done:
    free(listed_in);
    free(listed_at);
    free(depth);
    free(parent);
    free(stack);
    free(seen);
    free(items);
    return st;
}

/* The largest colour x intensity a light may have: the renderer takes a glTF light's candela
 * or lux as they are (scene_gltf.c), in a 32-bit float. */
#define SR_GLTF_POWER_MAX 3.0e38
#define SR_GLTF_PI 3.14159265358979323846

/* One KHR_lights_punctual light (lights[i]) as the extension defines it: a "type" of point,
 * spot or directional, a "color" of three numbers >= 0, an "intensity" >= 0, a spot's cone
 * angles 0 <= inner < outer <= pi/2; and colour x intensity within a float.
 * (assimp reads an unknown type as a spot and calls its cone missing.) */
static sr_status sr_check_light(const char *path, const cJSON *l, int i, sr_error *err)
{
    const cJSON *type = sr_field(l, "type"), *color = sr_field(l, "color"), *inten = sr_field(l, "intensity");
    char msg[400], name[64] = "";
    if (!cJSON_IsObject(l)) {
        snprintf(msg, sizeof msg, "KHR_lights_punctual.lights[%d] is not an object; expected one", i);
        return sr_bad(err, path, msg);
    }
    if (!cJSON_IsString(type)) {
        snprintf(msg, sizeof msg, "KHR_lights_punctual.lights[%d] has no \"type\" string; expected \"point\", "
                 "\"spot\" or \"directional\"", i);
        return sr_bad(err, path, msg);
    }
    const bool spot = !strcmp(type->valuestring, "spot");
    if (!spot && strcmp(type->valuestring, "point") && strcmp(type->valuestring, "directional")) {
        sr_sanitize(name, sizeof name, type->valuestring);
        snprintf(msg, sizeof msg, "KHR_lights_punctual.lights[%d].type is \"%s\", which KHR_lights_punctual does not "
                 "define; expected \"point\", \"spot\" or \"directional\" (the types supported)", i, name);
        return sr_bad(err, path, msg);
    }
    double c[3] = { 1, 1, 1 }, intensity = 1.0;
    bool ok = !color || (cJSON_IsArray(color) && cJSON_GetArraySize(color) == 3);
    for (int k = 0; ok && color && k < 3; k++) {
        const cJSON *v = cJSON_GetArrayItem(color, k);
        c[k] = cJSON_IsNumber(v) ? v->valuedouble : -1.0;
        ok = c[k] >= 0.0 && c[k] <= 1e30;
    }
    if (!ok) {
        snprintf(msg, sizeof msg, "KHR_lights_punctual.lights[%d].color is not three numbers of at least 0; expected "
                 "an RGB colour", i);
        return sr_bad(err, path, msg);
    }
    if (inten && (!cJSON_IsNumber(inten) || !(inten->valuedouble >= 0.0 && inten->valuedouble <= 1e30))) {
        snprintf(msg, sizeof msg, "KHR_lights_punctual.lights[%d].intensity is not a number of at least 0; expected "
                 "one", i);
        return sr_bad(err, path, msg);
    }
    if (inten) intensity = inten->valuedouble;
    const double brightest = fmax(c[0], fmax(c[1], c[2])) * intensity;
    if (!(brightest <= SR_GLTF_POWER_MAX)) {
        snprintf(msg, sizeof msg, "KHR_lights_punctual.lights[%d]: colour x intensity is %g, too large for a 32-bit "
                 "float; expected at most %g", i, brightest, SR_GLTF_POWER_MAX);
        return sr_bad(err, path, msg);
    }
    if (spot) {
        const cJSON *cone = sr_field(l, "spot"), *in = sr_field(cone, "innerConeAngle"), *out = sr_field(cone, "outerConeAngle");
        const double inner = cJSON_IsNumber(in) ? in->valuedouble : 0.0;
        const double outer = cJSON_IsNumber(out) ? out->valuedouble : SR_GLTF_PI / 4.0;
        if (!(inner >= 0.0 && inner < outer && outer <= SR_GLTF_PI / 2.0)) {
            snprintf(msg, sizeof msg, "KHR_lights_punctual.lights[%d].spot has innerConeAngle %g and outerConeAngle %g; "
                     "expected 0 <= inner < outer <= pi/2 (radians)", i, inner, outer);
            return sr_bad(err, path, msg);
        }
    }
    return SR_OK;
}

static sr_status sr_check_lights(const char *path, const cJSON *root, sr_error *err)
{
    const cJSON *lights = sr_field(sr_field(sr_field(root, "extensions"), "KHR_lights_punctual"), "lights"), *l;
    int i = 0;
    sr_status st = SR_OK;
    cJSON_ArrayForEach(l, lights) {
        if ((st = sr_check_light(path, l, i++, err))) break;
    }
    return st;
}

sr_status sr_gltf_struct_check(const char *path, const char *json, size_t len, uint64_t bin_at, uint64_t bin_len,
                               sr_error *err)
{
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!root) return SR_OK;   /* sr_mesh_refs_check refused it already */
    uint64_t *buf_len = NULL, *view_len = NULL, *view_stride = NULL, *acc_count = NULL;
    sr_status st = sr_check_buffers(path, root, bin_at, bin_len, &buf_len, err);
    if (!st) st = sr_check_views(path, root, buf_len, &view_len, &view_stride, err);
    if (!st) st = sr_check_accessors(path, root, view_len, view_stride, &acc_count, err);
    if (!st) st = sr_check_meshes(path, root, acc_count, err);
    if (!st) st = sr_check_nodes(path, root, err);
    if (!st) st = sr_check_lights(path, root, err);
    uint64_t sc;
    const cJSON *scene = sr_field(root, "scene");
    if (!st && scene &&
        (!sr_json_index(scene, SR_GLTF_INDEX_MAX, &sc) || sc >= (uint64_t)cJSON_GetArraySize(sr_field(root, "scenes"))))
        st = sr_bad(err, path, "\"scene\" is not an index into \"scenes\"; expected one");
    free(buf_len);
    free(view_len);
    free(view_stride);
    free(acc_count);
    cJSON_Delete(root);
    return st;
}
