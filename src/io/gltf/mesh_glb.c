/* mesh_glb.c: the JSON of a GLB that mesh_direct.c reads without assimp (see mesh_direct.h for
 * which ones): one node without a transform placing one mesh of one triangle primitive whose
 * data are in the BIN chunk. Anything else is left to the checks and assimp; what this reader
 * takes it checks itself: every accessor within its buffer view, every view within the BIN
 * chunk. */
#include "../meshes/mesh_direct.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t le32(const unsigned char *b) { return b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }

/* Every key of object o is one of the NULL-terminated names. */
static int only_keys(const cJSON *o, const char *const *names)
{
    if (!cJSON_IsObject(o)) return 0;
    for (const cJSON *k = o->child; k; k = k->next) {
        int known = 0;
        for (int i = 0; names[i] && !known; i++) known = !strcmp(k->string, names[i]);
        if (!known) return 0;
    }
    return 1;
}

/* A whole number in [0, max], or def when absent; 0 if present and not one. */
static int whole(const cJSON *o, const char *key, double max, uint64_t def, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) {
        *out = def;
        return 1;
    }
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.0 && v->valuedouble <= max) || floor(v->valuedouble) != v->valuedouble)
        return 0;
    *out = (uint64_t)v->valuedouble;
    return 1;
}

/* The one element of a one-element array, else NULL. */
static const cJSON *single(const cJSON *o, const char *key)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsArray(a) && cJSON_GetArraySize(a) == 1 ? a->child : NULL;
}

/* Accessor `ix` as `type` (VEC3 / SCALAR): where its first element is in the BIN data, its
 * count and its component type. 0: not this reader's; -1: outside its view or buffer. */
static int accessor(const cJSON *root, uint64_t ix, const char *type, uint64_t bin_len, uint64_t *at,
                    uint64_t *count, unsigned *stride, unsigned *comp, const char *path, sr_error *err)
{
    static const char *const acc_keys[] = { "bufferView", "byteOffset", "componentType", "count", "type", "min",
                                            "max", "name", "extras", "normalized", NULL };
    static const char *const view_keys[] = { "buffer", "byteOffset", "byteLength", "byteStride", "target", "name",
                                             "extras", NULL };
    const cJSON *accs = cJSON_GetObjectItemCaseSensitive(root, "accessors");
    if (!cJSON_IsArray(accs) || ix >= (uint64_t)cJSON_GetArraySize(accs)) return 0;
    const cJSON *a = cJSON_GetArrayItem(accs, (int)ix);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(a, "type");
    const cJSON *norm = cJSON_GetObjectItemCaseSensitive(a, "normalized");
    uint64_t view, off, ct, n;
    if (!only_keys(a, acc_keys) || !cJSON_IsString(t) || strcmp(t->valuestring, type) || cJSON_IsTrue(norm) ||
        !whole(a, "bufferView", 1e9, UINT64_MAX, &view) || view == UINT64_MAX || !whole(a, "byteOffset", 9e15, 0, &off) ||
        !whole(a, "componentType", 1e5, 0, &ct) || !whole(a, "count", UINT32_MAX, 0, &n) || n == 0)
        return 0;
    const int vec3 = !strcmp(type, "VEC3");
    unsigned size = ct == 5126 && vec3 ? 4 : ct == 5121 && !vec3 ? 1 : ct == 5123 && !vec3 ? 2 : ct == 5125 && !vec3 ? 4 : 0;
    if (!size) return 0;
    const unsigned elem = size * (vec3 ? 3u : 1u);
    const cJSON *views = cJSON_GetObjectItemCaseSensitive(root, "bufferViews");
    if (!cJSON_IsArray(views) || view >= (uint64_t)cJSON_GetArraySize(views)) return 0;
    const cJSON *v = cJSON_GetArrayItem(views, (int)view);
    uint64_t buf, voff, vlen, vstride;
    if (!only_keys(v, view_keys) || !whole(v, "buffer", 0, 0, &buf) || !whole(v, "byteOffset", 9e15, 0, &voff) ||
        !whole(v, "byteLength", 9e15, UINT64_MAX, &vlen) || vlen == UINT64_MAX || !whole(v, "byteStride", 252, 0, &vstride) ||
        (vstride && vstride != elem))
        return 0;
    if (voff > bin_len || vlen > bin_len - voff) {
        sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: bufferViews[%llu] (bytes %llu to %llu) reaches past the "
                "BIN chunk's %llu bytes", path, (unsigned long long)view, (unsigned long long)voff,
                (unsigned long long)(voff + vlen), (unsigned long long)bin_len);
        return -1;
    }
    if (off > vlen || n > (vlen - off) / elem) {
        sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: accessors[%llu] (%llu elements of %u bytes from byte %llu) "
                "reaches past its buffer view's %llu bytes", path, (unsigned long long)ix, (unsigned long long)n, elem,
                (unsigned long long)off, (unsigned long long)vlen);
        return -1;
    }
    *at = voff + off;
    *count = n;
    *stride = elem;
    *comp = size;
    return 1;
}

int sr_glb_direct_open(FILE *f, sr_direct_mesh *m, sr_error *err)
{
    /* 12-byte header, then the JSON chunk (length, "JSON", text), then the BIN chunk, each
     * within the file (sr_mesh_refs_check has said so; read again, as the file is). */
    unsigned char h[20];
    if (fread(h, 1, 20, f) != 20 || memcmp(h, "glTF", 4) || le32(h + 4) != 2 || le32(h + 8) != m->file_size ||
        memcmp(h + 16, "JSON", 4))
        return 0;
    const uint64_t jlen = le32(h + 12), bin_hdr = 20 + ((jlen + 3u) & ~(uint64_t)3u);
    if (jlen == 0 || bin_hdr + 8 > m->file_size) return 0;
    char *json = malloc(jlen + 1);
    if (!json) {
        sr_fail(err, SR_ERR_RUNTIME, "out of memory reading mesh file %s", m->path);
        return -1;
    }
    unsigned char bh[8];
    int r = 0;
    cJSON *root = NULL;
    if (fread(json, 1, jlen, f) != jlen || fseeko(f, (off_t)bin_hdr, SEEK_SET) || fread(bh, 1, 8, f) != 8 ||
        memcmp(bh + 4, "BIN\0", 4))
        goto done;
    const uint64_t bin_len = le32(bh), bin_at = bin_hdr + 8;
    if (bin_len > m->file_size - bin_at) goto done;
    json[jlen] = '\0';
    if (memchr(json, '\0', jlen) || !(root = cJSON_ParseWithLength(json, jlen))) goto done;

    static const char *const root_keys[] = { "asset", "scene", "scenes", "nodes", "meshes", "accessors", "bufferViews",
                                             "buffers", "extras", NULL };
    static const char *const node_keys[] = { "mesh", "name", "extras", NULL };
    static const char *const mesh_keys[] = { "primitives", "name", "extras", NULL };
    static const char *const prim_keys[] = { "attributes", "indices", "mode", "extras", NULL };
    static const char *const attr_keys[] = { "POSITION", "NORMAL", NULL };
    static const char *const buf_keys[] = { "byteLength", "name", "extras", NULL };
    static const char *const scene_keys[] = { "nodes", "name", "extras", NULL };
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(root, "asset");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(asset, "version");
    const cJSON *scene = single(root, "scenes"), *node = single(root, "nodes"), *mesh = single(root, "meshes");
    const cJSON *buffer = single(root, "buffers");
    const cJSON *prim = mesh ? single(mesh, "primitives") : NULL;
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    const cJSON *scene_node = scene ? single(scene, "nodes") : NULL;
    uint64_t scene_ix, node_mesh, mode, blen, pos_ix, nrm_ix, idx_ix;
    if (!only_keys(root, root_keys) || !cJSON_IsString(version) || strncmp(version->valuestring, "2.", 2) ||
        cJSON_GetObjectItemCaseSensitive(asset, "minVersion") || !whole(root, "scene", 0, 0, &scene_ix) ||
        !only_keys(scene, scene_keys) || !scene_node || !cJSON_IsNumber(scene_node) || scene_node->valuedouble != 0.0 ||
        !only_keys(node, node_keys) || !whole(node, "mesh", 0, 1, &node_mesh) || node_mesh != 0 ||
        !only_keys(mesh, mesh_keys) || !only_keys(prim, prim_keys) || !whole(prim, "mode", 4, 4, &mode) || mode != 4 ||
        !only_keys(attrs, attr_keys) || !whole(attrs, "POSITION", 1e9, UINT64_MAX, &pos_ix) || pos_ix == UINT64_MAX ||
        !whole(attrs, "NORMAL", 1e9, UINT64_MAX, &nrm_ix) || !whole(prim, "indices", 1e9, UINT64_MAX, &idx_ix) ||
        !only_keys(buffer, buf_keys) || !whole(buffer, "byteLength", 9e15, UINT64_MAX, &blen) || blen > bin_len)
        goto done;
    uint64_t at, count, n_at = 0, n_count = 0, i_at = 0, i_count = 0;
    unsigned stride, comp, n_stride = 0, i_stride = 0, i_comp = 0;
    if ((r = accessor(root, pos_ix, "VEC3", blen, &at, &count, &stride, &comp, m->path, err)) != 1) goto done;
    if (comp != 4) { r = 0; goto done; }
    if (nrm_ix != UINT64_MAX) {
        if ((r = accessor(root, nrm_ix, "VEC3", blen, &n_at, &n_count, &n_stride, &comp, m->path, err)) != 1) goto done;
        if (comp != 4 || n_count != count) { r = 0; goto done; }
        m->has_normals = 1;
    }
    if (idx_ix != UINT64_MAX) {
        if ((r = accessor(root, idx_ix, "SCALAR", blen, &i_at, &i_count, &i_stride, &i_comp, m->path, err)) != 1) goto done;
    } else {
        i_count = count;   /* no indices: vertices 0, 1, 2 make the first triangle, and so on */
    }
    r = 0;
    if (i_count % 3 != 0) goto done;   /* what assimp makes of the rest is its business */
    m->vertex_count = count;
    m->tri_count = i_count / 3;
    m->pos_at = bin_at + at;
    m->pos_stride = stride;
    m->pos_off[0] = 0; m->pos_off[1] = 4; m->pos_off[2] = 8;
    m->nrm_at = bin_at + n_at;
    m->nrm_stride = n_stride;
    m->nrm_off[0] = 0; m->nrm_off[1] = 4; m->nrm_off[2] = 8;
    m->big_endian = 0;
    m->count_size = 0;
    if (idx_ix != UINT64_MAX) {
        m->tri_at = bin_at + i_at;
        m->index_size = i_comp;
    } else {
        m->tri_at = 0;   /* mesh_direct.c numbers them */
        m->index_size = 0;
    }
    r = 1;
done:
    cJSON_Delete(root);
    free(json);
    return r;
}
