/* mesh_ply.c: the header of a binary PLY that mesh_direct.c reads without assimp (see
 * mesh_direct.h for which ones). Anything unusual in the header is not refused here but left to
 * sr_ply_check and assimp, which say what is wrong with it. */
#include "mesh_direct.h"

#include <stdlib.h>
#include <string.h>

#define PLY_HEAD_MAX 65536u   /* a header this reader takes is a few hundred bytes */

/* Bytes and signedness of a PLY integer type; 0 if it is not one. */
static unsigned ply_int_type(const char *t, int *is_signed)
{
    static const struct { const char *name; unsigned size; int sign; } types[] = {
        {"char", 1, 1}, {"int8", 1, 1}, {"uchar", 1, 0}, {"uint8", 1, 0}, {"short", 2, 1}, {"int16", 2, 1},
        {"ushort", 2, 0}, {"uint16", 2, 0}, {"int", 4, 1}, {"int32", 4, 1}, {"uint", 4, 0}, {"uint32", 4, 0},
        {NULL, 0, 0}};
    for (int i = 0; types[i].name; i++)
        if (!strcmp(t, types[i].name)) {
            *is_signed = types[i].sign;
            return types[i].size;
        }
    return 0;
}

/* Bytes of any PLY scalar type, 0 if unknown. */
static unsigned ply_scalar_size(const char *t)
{
    int s;
    const unsigned n = ply_int_type(t, &s);
    if (n) return n;
    if (!strcmp(t, "float") || !strcmp(t, "float32")) return 4;
    if (!strcmp(t, "double") || !strcmp(t, "float64")) return 8;
    return 0;
}

/* A count of digits only, at most max. */
static int ply_count(const char *t, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (!t || !*t) return 0;
    for (; *t; t++) {
        if (*t < '0' || *t > '9') return 0;
        v = v * 10u + (uint64_t)(*t - '0');
        if (v > max) return 0;
    }
    *out = v;
    return 1;
}

int sr_ply_direct_open(FILE *f, sr_direct_mesh *m, sr_error *err)
{
    char *head = malloc(PLY_HEAD_MAX + 1);
    if (!head) {
        sr_fail(err, SR_ERR_RUNTIME, "out of memory reading mesh file %s", m->path);
        return -1;
    }
    const size_t got = fread(head, 1, PLY_HEAD_MAX, f);
    head[got] = '\0';
    int r = 0;
    /* the header ends at the first "end_header" line; a NUL byte before it is not this reader's */
    char *end = strstr(head, "\nend_header");
    if (strncmp(head, "ply\n", 4) || !end || memchr(head, '\0', (size_t)(end - head))) goto done;
    char *body = end + strlen("\nend_header");
    if (*body == '\r') body++;
    if (*body != '\n') goto done;
    body++;
    *end = '\0';
    enum { NONE, VERTEX, FACE } in = NONE;
    int elements = 0, face_props = 0, have[6] = {0};
    unsigned voff = 0;
    static const char *const vnames[6] = { "x", "y", "z", "nx", "ny", "nz" };
    char *save = NULL;
    for (char *line = strtok_r(head + 4, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r') line[--len] = '\0';
        char *ws = NULL, *word = strtok_r(line, " \t", &ws);
        if (!word || !strcmp(word, "comment") || !strcmp(word, "obj_info")) continue;
        char *a = strtok_r(NULL, " \t", &ws), *b = strtok_r(NULL, " \t", &ws), *c = strtok_r(NULL, " \t", &ws);
        char *d = c ? strtok_r(NULL, " \t", &ws) : NULL, *e = d ? strtok_r(NULL, " \t", &ws) : NULL;
        if (!strcmp(word, "format")) {
            if (!a || !b || c || strcmp(b, "1.0")) goto done;
            if (!strcmp(a, "binary_little_endian")) m->big_endian = 0;
            else if (!strcmp(a, "binary_big_endian")) m->big_endian = 1;
            else goto done;   /* text: assimp's */
            continue;
        }
        if (!strcmp(word, "element")) {
            uint64_t n;
            if (!a || !b || c || !ply_count(b, UINT32_MAX, &n)) goto done;
            elements++;
            if (elements == 1 && !strcmp(a, "vertex")) { in = VERTEX; m->vertex_count = n; }
            else if (elements == 2 && !strcmp(a, "face")) { in = FACE; m->tri_count = n; }
            else goto done;
            continue;
        }
        if (strcmp(word, "property") || !a || !b) goto done;
        if (in == VERTEX) {   /* property TYPE NAME */
            const unsigned size = ply_scalar_size(a);
            if (!size || c) goto done;
            int k = 0;
            while (k < 6 && strcmp(b, vnames[k])) k++;
            if (k == 6 || have[k] || (strcmp(a, "float") && strcmp(a, "float32"))) goto done;   /* colours, UVs, ... */
            have[k] = 1;
            if (k < 3) m->pos_off[k] = voff;
            else m->nrm_off[k - 3] = voff;
            voff += size;
        } else if (in == FACE) {   /* property list COUNT INDEX vertex_indices */
            int cs = 0, is = 0;
            if (face_props++ || strcmp(a, "list") || !c || !d || e) goto done;
            m->count_size = ply_int_type(b, &cs);
            m->index_size = ply_int_type(c, &is);
            if (!m->count_size || m->index_size < 2 || (strcmp(d, "vertex_indices") && strcmp(d, "vertex_index")))
                goto done;
            m->count_signed = cs;
            m->index_signed = is;
        } else {
            goto done;
        }
    }
    if (elements != 2 || !face_props || !have[0] || !have[1] || !have[2]) goto done;
    if ((have[3] || have[4] || have[5]) && !(have[3] && have[4] && have[5])) goto done;
    m->has_normals = have[3];
    m->pos_stride = m->nrm_stride = voff;
    m->pos_at = m->nrm_at = (uint64_t)(body - head);
    m->tri_at = m->pos_at + m->vertex_count * voff;
    /* Before anything is allocated: the body holds the vertices and at least a count and an
     * index for each face (a triangle takes 3; anything shorter is assimp's to judge). */
    const uint64_t left = m->file_size - m->pos_at;
    const uint64_t min_face = m->count_size + m->index_size;
    if (m->vertex_count * voff > left || m->tri_count > (left - m->vertex_count * voff) / min_face) {
        sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: its binary PLY body (from byte %llu) is %llu bytes, "
                "too short for the %llu vertices of %u bytes and %llu faces its header declares; the file is cut short "
                "or the header is wrong", m->path, (unsigned long long)m->pos_at, (unsigned long long)left,
                (unsigned long long)m->vertex_count, voff, (unsigned long long)m->tri_count);
        r = -1;
        goto done;
    }
    r = m->vertex_count > 0 && m->tri_count > 0;   /* nothing to draw: assimp's message */
done:
    free(head);
    return r;
}
