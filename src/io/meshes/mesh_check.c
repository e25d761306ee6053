/* mesh_check.c: the OBJ and STL checks before assimp (see mesh_check.h). */
#include "mesh_check.h"

#include <errno.h>
#include <sys/types.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A value of a PLY or OBJ text line: a decimal number (integer: digits only), nan or inf. */
int sr_mesh_number(const char *t, int integer)
{
    const char *p = t;
    if (*p == '+' || *p == '-') p++;
    if (!integer && (!strcasecmp(p, "nan") || !strcasecmp(p, "inf"))) return 1;
    int digits = 0;
    while (*p >= '0' && *p <= '9') { p++; digits++; }
    if (integer) return digits > 0 && !*p;
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') { p++; digits++; }
    }
    if (!digits) return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return 0;
        while (*p >= '0' && *p <= '9') p++;
    }
    return !*p;
}

long sr_mesh_line(FILE *f, char **line, size_t *cap, int *end)
{
    /* A whole '\n' line at a time (getdelim scans stdio's buffer, much faster than a byte at
     * a time), then cut at the first other end ('\r', '\f', NUL) inside it, stepping the
     * stream back to just after that end: rare outside "\r\n" files, which need no step. */
    const ssize_t got = getdelim(line, cap, '\n', f);
    if (got < 0) {
        *end = EOF;
        if (!*line) {   /* an empty file: still a buffer the caller can read */
            *line = (char *)malloc(1);
            if (*line) { **line = '\0'; *cap = 1; }
        } else if (*cap) {
            **line = '\0';
        }
        return -1;
    }
    size_t n = (size_t)got;
    int ch = EOF;
    if (n && (*line)[n - 1] == '\n') { n--; ch = '\n'; }
    const size_t cut = strcspn(*line, "\r\f");   /* stops at a NUL too */
    if (cut < n) {
        const char c = (*line)[cut];
        size_t next = cut + 1;   /* the first byte of the next line */
        if (c == '\r' && next < (size_t)got && (*line)[next] == '\n') next++;   /* "\r\n" ends one line */
        if (next < (size_t)got && fseeko(f, -(off_t)((size_t)got - next), SEEK_CUR) != 0) return -1;
        n = cut;
        ch = (unsigned char)c;
    }
    (*line)[n] = '\0';
    *end = ch;
    return (long)n;
}

/* ---- OBJ ------------------------------------------------------------------------------------ */

/* Indices of an f, l or p statement (v, v/vt, v/vt/vn, v//vn; negative = from the end of
 * what was read so far) against the positions, texture coordinates and normals of the
 * whole file. Like assimp, a statement is known by its first letter. */
sr_status sr_obj_check(const char *path, sr_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return sr_fail(err, SR_ERR_INPUT, "cannot read mesh file %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    uint64_t total[3] = {0, 0, 0}, seen[3] = {0, 0, 0};
    /* pass 1: how many positions, texture coordinates and normals there are. Each must hold
     * what assimp reads (v: 3, 4 or 6 numbers; vt: 1 to 3; vn: 3): on a line it does not
     * count, the indices after it would be off (and assimp leaks; found by tests/fuzz). */
    sr_status st = SR_OK;
    unsigned long lineno = 0;
    int ended = 0;
    while (st == SR_OK && sr_mesh_line(f, &line, &cap, &ended) >= 0) {
        lineno++;
        /* assimp ends a line at a NUL byte too, and an OBJ with one is not text (an mtllib
         * naming a folder after one leaked, when these checks stopped at the NUL). */
        if (ended == '\0') {
            st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: OBJ line %lu holds a NUL byte; an OBJ file is "
                         "text", path, lineno);
            break;
        }
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (p[0] != 'v') continue;
        int slot = (p[1] == ' ' || p[1] == '\t') ? 0 : p[1] == 't' ? 1 : p[1] == 'n' ? 2 : -1;
        if (slot < 0) continue;   /* vp and the like: assimp skips them */
        int values = 0, bad = 0;
        char *save = NULL;
        for (char *tok = strtok_r(p + (slot ? 2 : 1), " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
            if (!sr_mesh_number(tok, 0)) bad = 1;
            values++;
        }
        const int ok = !bad && (slot == 0 ? (values == 3 || values == 4 || values == 6)
                                : slot == 1 ? (values >= 1 && values <= 3) : values == 3);
        if (!ok) {
            static const char *const want[] = { "3, 4 or 6 numbers", "1 to 3 numbers", "3 numbers" };
            st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: OBJ line %lu: %s needs %s", path, lineno,
                         slot == 0 ? "a vertex (v)" : slot == 1 ? "a texture coordinate (vt)" : "a normal (vn)", want[slot]);
            break;
        }
        total[slot]++;
    }
    rewind(f);
    lineno = 0;
    while (st == SR_OK && sr_mesh_line(f, &line, &cap, &ended) >= 0) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (p[0] == 'v') {
            if (p[1] == ' ' || p[1] == '\t') seen[0]++;
            else if (p[1] == 't') seen[1]++;
            else if (p[1] == 'n') seen[2]++;
            continue;
        }
        size_t len = strlen(p);
        while (len > 0 && (p[len - 1] == '\n' || p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
        if (len > 0 && p[len - 1] == '\\') {   /* assimp joins it with the next line, unchecked (and leaks) */
            st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: OBJ line %lu is continued with '\\'; join it "
                         "with the next line", path, lineno);
            break;
        }
        if (p[0] != 'f' && p[0] != 'l' && p[0] != 'p') continue;
        char *save = NULL;
        for (char *tok = strtok_r(p + 1, " \t\r\n", &save); tok && st == SR_OK; tok = strtok_r(NULL, " \t\r\n", &save)) {
            int slot = 0;
            for (char *q = tok; *q && slot < 3; slot++) {
                if (*q == '/') { q++; continue; }          /* an empty slot: v//vn */
                char *end;
                long long ix = strtoll(q, &end, 10);
                if (end == q) break;                        /* not a number: assimp's business */
                const uint64_t n = total[slot], so_far = seen[slot];
                if (ix == 0 || (ix > 0 && (uint64_t)ix > n) || (ix < 0 && (uint64_t)(-ix) > so_far)) {
                    static const char *const what[] = { "vertex", "texture coordinate", "normal" };
                    st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: OBJ line %lu: %s index %lld is out of "
                                 "range (the file has %llu)", path, lineno, what[slot], ix, (unsigned long long)n);
                    break;
                }
                q = end;
                if (*q == '/') q++;
                else break;
            }
        }
    }
    free(line);
    fclose(f);
    return st;
}

/* A text STL's next token (split at spaces, tabs and line ends, as assimp splits it) into
 * tok. Returns its length; 0 at the end of the file; -1 for a NUL byte or a token of
 * cap bytes or more. *newline: a line end came before it. */
static int sr_stl_token(FILE *f, char *tok, size_t cap, int *newline)
{
    int ch;
    *newline = 0;
    while ((ch = getc_unlocked(f)) == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f') *newline |= ch != ' ' && ch != '\t';
    size_t n = 0;
    for (; ch != EOF && ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n' && ch != '\f'; ch = getc_unlocked(f)) {
        if (ch == '\0' || n + 1 >= cap) return -1;
        tok[n++] = (char)ch;
    }
    if (ch != EOF) ungetc(ch, f);
    tok[n] = '\0';
    return (int)n;
}

/* A number as assimp's STL reader (fast_atoreal_move) takes it without throwing: [+-] then
 * nan, inf or infinity, or digits [. [digits]] or . digits, then [e [+-] digits]. */
static int sr_stl_number(const char *t)
{
    if (*t == '+' || *t == '-') t++;
    if (!strcasecmp(t, "nan") || !strcasecmp(t, "inf") || !strcasecmp(t, "infinity")) return 1;
    if (!(*t >= '0' && *t <= '9') && !(*t == '.' && t[1] >= '0' && t[1] <= '9')) return 0;
    while (*t >= '0' && *t <= '9') t++;
    if (*t == '.')
        for (t++; *t >= '0' && *t <= '9'; t++) {}
    if (*t == 'e' || *t == 'E') {
        t++;
        if (*t == '+' || *t == '-') t++;
        if (!(*t >= '0' && *t <= '9')) return 0;
        while (*t >= '0' && *t <= '9') t++;
    }
    return *t == '\0';
}

/* A text STL, token by token, as assimp 5.2 reads it: each "facet" has "normal" and three
 * numbers on its line, then exactly three "vertex" lines of three numbers, before the next
 * facet or "endsolid"; "outer loop", "endloop", "endfacet", a solid's name and any other
 * word are skipped, as assimp skips them. assimp throws, and leaks the meshes built so far, on a facet of fewer vertices
 * or without a normal, on a token where a number belongs, and on a file cut short. */
static sr_status sr_stl_text_check(const char *path, FILE *f, sr_error *err)
{
    char tok[1000], where[64];
    int newline = 0, len;
    uint64_t facets = 0;
#define STL_BAD(...) do { snprintf(where, sizeof where, " (facet %llu)", (unsigned long long)facets); \
                          return sr_fail(err, SR_ERR_INPUT, __VA_ARGS__); } while (0)
    len = sr_stl_token(f, tok, sizeof tok, &newline);
    while (len > 0 && !strncmp(tok, "solid", 5)) {   /* one solid (a file may hold several) */
        int in_facet = 0, verts = 0, ended = 0, have = 0;
        if (!strcmp(tok, "solid")) {   /* the next token on its line is its name, whatever it says */
            len = sr_stl_token(f, tok, sizeof tok, &newline);
            if (len < 0) break;
            have = len > 0 && newline;   /* on the next line: not a name, the solid's first token */
        }
        while (!ended && (have || (len = sr_stl_token(f, tok, sizeof tok, &newline)) > 0)) {
            have = 0;
            const int facet = !strcmp(tok, "facet"), end = !strncmp(tok, "endsolid", 8);
            if ((facet || end) && in_facet && verts != 3)
                STL_BAD("cannot parse mesh file %s: a text STL facet with %d vertices%s; expected 3", path, verts, where);
            if (facet) {
                facets++;
                in_facet = 1;
                verts = 0;
                if (sr_stl_token(f, tok, sizeof tok, &newline) <= 0 || newline || strcmp(tok, "normal"))
                    STL_BAD("cannot parse mesh file %s: a text STL \"facet\" without \"normal\" on its line%s", path,
                            where);
            } else if (!strcmp(tok, "vertex")) {
                if (!in_facet || verts == 3)
                    STL_BAD("cannot parse mesh file %s: a text STL \"vertex\" %s%s; expected 3 in each facet", path,
                            in_facet ? "past the third of its facet" : "outside a facet", where);
                verts++;
            } else if (end) {
                ended = 1;
                continue;
            } else {
                continue;   /* skipped, as assimp skips it */
            }
            for (int k = 0; k < 3; k++) {   /* the normal's or the vertex's three numbers, on its line */
                const int n = sr_stl_token(f, tok, sizeof tok, &newline);
                if (n <= 0 || newline || !sr_stl_number(tok))
                    STL_BAD("cannot parse mesh file %s: a text STL %s line with %s%.40s%s where its number %d belongs%s",
                            path, verts ? "vertex" : "normal", n > 0 && !newline ? "\"" : "",
                            n < 0 ? "a NUL byte or a long token" : n == 0 ? "the end of the file"
                                  : newline ? "a line end" : tok, n > 0 && !newline ? "\"" : "", k + 1, where);
            }
        }
        if (len < 0) break;
        if (!ended) return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: a text STL that does not end with "
                                   "\"endsolid\" (cut short?)", path);
        do len = sr_stl_token(f, tok, sizeof tok, &newline);   /* the rest of the line: a name */
        while (len > 0 && !newline);
    }
#undef STL_BAD
    if (len < 0)
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: a text STL with a NUL byte or a token of %zu "
                       "bytes or more", path, sizeof tok - 1);
    /* assimp goes on reading facets after "endsolid" (and throws and leaks on a bad one), so
     * nothing but another solid may follow one. */
    if (len > 0)
        return sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: a text STL with \"%.40s\" after \"endsolid\"; "
                       "expected another \"solid\" or the end of the file", path, tok);
    return SR_OK;
}

/* STL: binary (an 80-byte header, a triangle count, 50 bytes a triangle: the size must say
 * so exactly) or text from "solid" to "endsolid", checked as assimp reads it. */
sr_status sr_stl_check(const char *path, uint64_t size, sr_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return sr_fail(err, SR_ERR_INPUT, "cannot read mesh file %s: %s", path, strerror(errno));
    unsigned char head[84];
    const size_t got = fread(head, 1, sizeof head, f);
    const uint64_t count = got == 84 ? (uint64_t)(head[80] | head[81] << 8 | head[82] << 16 | (uint32_t)head[83] << 24) : 0;
    if (got == 84 && size == 84 + 50 * count && count > 0) { fclose(f); return SR_OK; }
    size_t i = 0;
    while (i < got && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n')) i++;
    sr_status st;
    if (got - i >= 5 && !memcmp(head + i, "solid", 5) && fseek(f, 0, SEEK_SET) == 0)
        st = sr_stl_text_check(path, f, err);
    else
        st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: neither a binary STL (84 bytes + 50 per triangle, "
                     "as its count says) nor a text STL", path);
    fclose(f);
    return st;
}
