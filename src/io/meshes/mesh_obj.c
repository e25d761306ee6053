/* mesh_obj.c: an OBJ of nothing but vertices and triangles, read in one pass without assimp
 * (see mesh_direct.h). assimp's OBJ reader, and the checks it needs before it (mesh_check.c),
 * take most of the time before the first pixel of a large OBJ; the files this reader takes
 * hold only "v X Y Z" and "f A B C" lines (plus comments, blank lines and "s" lines, which
 * assimp skips). Anything else (texture coordinates, normals, groups, objects, materials,
 * polygons, other spellings of a number) is left to the checks and assimp.
 *
 * Numbers are converted as assimp converts them (its fast_atoreal_move for float: the whole
 * part as a float, then the first 15 digits of the fraction scaled in double and added in
 * float, then times powf(10, exponent)), so that the triangles are the same bit for bit. */
#include "mesh_direct.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OBJ_CHUNK (8u << 20)   /* bytes read at a time; a line longer than this is assimp's */

static const double obj_frac_scale[16] = { 0.0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11,
                                           1e-12, 1e-13, 1e-14, 1e-15 };

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* One number at *p (ending at a blank or the line's end e): 1 and *p past it, or 0 if it is
 * not in the plain form this reader takes. */
static int obj_float(const char **p, const char *e, float *out)
{
    const char *c = *p;
    const int neg = *c == '-';
    if (neg || *c == '+') c++;
    if (!(c < e && is_digit(*c)) && !(c + 1 < e && *c == '.' && is_digit(c[1]))) return 0;
    float f = 0.0f;
    if (*c != '.') {
        uint64_t v = 0;
        int n = 0;
        for (; c < e && is_digit(*c); c++) {
            if (++n > 18) return 0;
            v = v * 10u + (uint64_t)(*c - '0');
        }
        f = (float)v;
    }
    if (c + 1 < e && *c == '.' && is_digit(c[1])) {
        c++;
        uint64_t v = 0;
        unsigned n = 0;
        for (; c < e && is_digit(*c); c++)
            if (n < 15) {
                v = v * 10u + (uint64_t)(*c - '0');
                n++;
            }
        f += (float)((double)v * obj_frac_scale[n]);
    } else if (c < e && *c == '.') {
        c++;
    }
    if (c < e && (*c == 'e' || *c == 'E')) {
        c++;
        const int eneg = c < e && *c == '-';
        if (c < e && (*c == '-' || *c == '+')) c++;
        if (!(c < e && is_digit(*c))) return 0;
        uint64_t x = 0;
        int n = 0;
        for (; c < e && is_digit(*c); c++) {
            if (++n > 9) return 0;
            x = x * 10u + (uint64_t)(*c - '0');
        }
        float ex = (float)x;
        if (eneg) ex = -ex;
        f *= powf(10.0f, ex);
    }
    if (neg) f = -f;
    if (c < e && !is_blank(*c)) return 0;
    *p = c;
    *out = f;
    return 1;
}

/* A face index: [-]digits, at most 9 of them. */
static int obj_index(const char **p, const char *e, long *out)
{
    const char *c = *p;
    const int neg = *c == '-';
    if (neg) c++;
    long v = 0;
    int n = 0;
    for (; c < e && is_digit(*c); c++) {
        if (++n > 9) return 0;
        v = v * 10 + (*c - '0');
    }
    if (!n || (c < e && !is_blank(*c))) return 0;
    *p = c;
    *out = neg ? -v : v;
    return 1;
}

static const char *skip_blank(const char *c, const char *e)
{
    while (c < e && is_blank(*c)) c++;
    return c;
}

typedef struct obj_state {
    float *pos;
    uint64_t nv, cap_v;
    uint32_t *tri;
    uint64_t nt, cap_t;
    unsigned long line;
    /* Forward references (an index past the vertices read so far), each larger than the one
     * before: the first past the file's end is the first line in error. */
    struct { unsigned long line; long ix; } *fwd;
    size_t nfwd, cap_fwd;
    unsigned long bad_line;   /* the first index 0 or past the start, and its line (0: none) */
    long bad_ix;
} obj_state;

static int grow(void **a, uint64_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap) return 1;
    uint64_t c = *cap ? *cap : 4096;
    while (c < need) c *= 2;
    void *g = realloc(*a, (size_t)(c * elem));
    if (!g) return 0;
    *a = g;
    *cap = c;
    return 1;
}

/* One line (without its '\n'): 1 taken, 0 not this reader's file, -1 an error (err set). */
static int obj_line(obj_state *s, const char *c, const char *e, const char *path, sr_error *err)
{
    if (e > c && e[-1] == '\r') e--;   /* "\r\n" */
    if (c == e || *c == '#') return 1;
    if (memchr(c, '\0', (size_t)(e - c)) || memchr(c, '\r', (size_t)(e - c)) || memchr(c, '\f', (size_t)(e - c)))
        return 0;
    if (*c == 's' && (c + 1 == e || is_blank(c[1]))) return 1;
    if (c + 1 >= e || !is_blank(c[1])) return 0;
    if (*c == 'v') {
        if (!grow((void **)&s->pos, &s->cap_v, 3 * (s->nv + 1), sizeof(float))) goto oom;
        const char *p = c + 1;
        for (int k = 0; k < 3; k++) {
            p = skip_blank(p, e);
            if (!obj_float(&p, e, &s->pos[3 * s->nv + k])) return 0;
        }
        if (skip_blank(p, e) != e) return 0;
        s->nv++;
        return 1;
    }
    if (*c != 'f') return 0;
    if (!grow((void **)&s->tri, &s->cap_t, 3 * (s->nt + 1), sizeof(uint32_t))) goto oom;
    const char *p = c + 1;
    for (int k = 0; k < 3; k++) {
        long ix;
        p = skip_blank(p, e);
        if (!obj_index(&p, e, &ix)) return 0;
        if (ix == 0 || (ix < 0 && (uint64_t)(-ix) > s->nv)) {   /* said at the end, with the file's count */
            if (!s->bad_line) {
                s->bad_line = s->line;
                s->bad_ix = ix;
            }
            ix = 1;
        }
        if (ix > 0 && (uint64_t)ix > s->nv && (!s->nfwd || ix > s->fwd[s->nfwd - 1].ix)) {
            uint64_t cap = s->cap_fwd;
            if (!grow((void **)&s->fwd, &cap, s->nfwd + 1, sizeof *s->fwd)) goto oom;
            s->cap_fwd = (size_t)cap;
            s->fwd[s->nfwd].line = s->line;
            s->fwd[s->nfwd++].ix = ix;
        }
        /* positive: 1-based, checked against the whole file at the end; negative: from the end so far */
        s->tri[3 * s->nt + k] = ix > 0 ? (uint32_t)(ix - 1) : (uint32_t)(s->nv - (uint64_t)(-ix));
    }
    if (skip_blank(p, e) != e) return 0;   /* a polygon (or more): assimp triangulates it */
    s->nt++;
    return 1;
oom:
    sr_fail(err, SR_ERR_RUNTIME, "out of memory reading mesh file %s", path);
    return -1;
}

int sr_obj_direct_read(const char *path, uint64_t file_size, float **pos, uint64_t *nv, uint32_t **tri, uint64_t *nt,
                       sr_mesh_progress_fn progress, void *ctx, sr_error *err)
{
    *pos = NULL;
    *tri = NULL;
    *nv = *nt = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        sr_fail(err, SR_ERR_INPUT, "cannot read mesh file %s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(OBJ_CHUNK);
    obj_state s;
    memset(&s, 0, sizeof s);
    int r = 1;
    if (!buf) {
        sr_fail(err, SR_ERR_RUNTIME, "out of memory reading mesh file %s", path);
        r = -1;
    }
    size_t have = 0;
    uint64_t done = 0;
    int eof = 0;
    while (r == 1 && !eof) {
        if (progress && progress(ctx, file_size ? (double)done / (double)file_size : 0.0)) {
            sr_fail(err, SR_INTERRUPTED, "interrupted while reading mesh file %s", path);
            r = -1;
            break;
        }
        const size_t got = fread(buf + have, 1, OBJ_CHUNK - have, f);
        if (got < OBJ_CHUNK - have) {
            if (ferror(f)) {
                sr_fail(err, SR_ERR_INPUT, "cannot read mesh file %s: %s", path, strerror(errno));
                r = -1;
                break;
            }
            eof = 1;
        }
        have += got;
        const char *c = buf, *end = buf + have;
        for (;;) {
            const char *nl = memchr(c, '\n', (size_t)(end - c));
            if (!nl) {
                if (!eof) break;
                if (c == end) break;
                nl = end;   /* the last line, without its '\n' */
            }
            s.line++;
            r = obj_line(&s, c, nl, path, err);
            if (r != 1) break;
            c = nl < end ? nl + 1 : end;
            if (c == end) break;
        }
        if (r != 1) break;
        const size_t used = (size_t)(c - buf);
        done += used;
        memmove(buf, c, have - used);
        have -= used;
        if (!eof && have == OBJ_CHUNK) r = 0;   /* a line of 8 MiB: not this reader's */
    }
    /* the first index out of range, in the file's order (as sr_obj_check words it) */
    unsigned long bad_line = s.bad_line;
    long bad_ix = s.bad_ix;
    for (size_t i = 0; r == 1 && i < s.nfwd; i++)
        if ((uint64_t)s.fwd[i].ix > s.nv) {
            if (!bad_line || s.fwd[i].line < bad_line) {
                bad_line = s.fwd[i].line;
                bad_ix = s.fwd[i].ix;
            }
            break;
        }
    if (r == 1 && bad_line) {
        sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: OBJ line %lu: vertex index %ld is out of range (the "
                "file has %llu)", path, bad_line, bad_ix, (unsigned long long)s.nv);
        r = -1;
    }
    if (r == 1 && (s.nt == 0 || s.nv > UINT32_MAX)) r = 0;   /* nothing to draw: assimp's message */
    free(buf);
    free(s.fwd);
    fclose(f);
    if (r != 1) {
        free(s.pos);
        free(s.tri);
        return r;
    }
    *pos = s.pos;
    *tri = s.tri;
    *nv = s.nv;
    *nt = s.nt;
    return 1;
}
