/* mesh_check.c: OBJ and PLY checks before assimp (see mesh_check.h). */
#include "mesh_check.h"
#include "mem_limits.h"
#include "outpath.h"

#include <cJSON.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PLY_MAX_HEADER (1u << 20)
#define PLY_MAX_ELEMENTS 64
#define PLY_MAX_PROPS 64

typedef struct ply_prop { int list; unsigned count_size, item_size; } ply_prop;
typedef struct ply_elem {
    char name[32];
    uint64_t count;
    unsigned nprops;
    ply_prop props[PLY_MAX_PROPS];
} ply_elem;

/* Bytes of a PLY scalar type (both the classic and the sized names), 0 if unknown. */
static unsigned ply_type_size(const char *t)
{
    static const struct { const char *name; unsigned size; } types[] = {
        {"char", 1}, {"int8", 1}, {"uchar", 1}, {"uint8", 1}, {"short", 2}, {"int16", 2}, {"ushort", 2},
        {"uint16", 2}, {"int", 4}, {"int32", 4}, {"uint", 4}, {"uint32", 4}, {"float", 4}, {"float32", 4},
        {"double", 8}, {"float64", 8}, {NULL, 0}};
    for (int i = 0; types[i].name; i++)
        if (!strcmp(t, types[i].name)) return types[i].size;
    return 0;
}

static uint64_t ply_read_uint(const unsigned char *b, unsigned size, int big)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++) v |= (uint64_t)b[big ? i : size - 1 - i] << (8 * (size - 1 - i));
    return v;
}

/* A PLY text value: a decimal number (integer types: digits only), nan or inf. */
static int ply_number(const char *t, int integer)
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

/* Faces with no vertex index make one of assimp's post-processing steps abort. */
static int ply_is_face(const ply_elem *e) { return !strcmp(e->name, "face") || !strcmp(e->name, "tristrips"); }

/* One text record (tok: its first value): NULL when it holds exactly the element's values. */
static const char *ply_ascii_record(const ply_elem *e, char *tok, char **save)
{
    for (unsigned k = 0; k < e->nprops; k++) {
        const ply_prop *p = &e->props[k];
        if (!tok) return "fewer values than the header declares";
        if (!p->list) {
            if (!ply_number(tok, 0)) return "a value that is not a number";
            tok = strtok_r(NULL, " \t\r\n", save);
            continue;
        }
        if (!ply_number(tok, 1) || tok[0] == '-') return "a list count that is not a whole number";
        unsigned long long n = strtoull(tok, NULL, 10);
        if (n > 1000000u) return "a list longer than a million values";
        if (n == 0 && ply_is_face(e)) return "a face with no vertex indices";
        tok = strtok_r(NULL, " \t\r\n", save);
        for (unsigned long long j = 0; j < n; j++) {
            if (!tok) return "a list shorter than its count";
            if (!ply_number(tok, 0)) return "a list value that is not a number";
            tok = strtok_r(NULL, " \t\r\n", save);
        }
    }
    return tok ? "more values than the header declares" : NULL;
}

/* Skip n bytes: small skips through stdio's buffer, big ones by seeking. */
static int ply_skip(FILE *f, uint64_t n)
{
    unsigned char scratch[4096];
    if (n <= sizeof scratch) return fread(scratch, 1, (size_t)n, f) == (size_t)n ? 0 : -1;
    return fseek(f, (long)n, SEEK_CUR);
}

sr_status sr_ply_check(const char *path, sr_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return sr_fail(err, SR_ERR_INPUT, "cannot read mesh file %s: %s", path, strerror(errno));
    static ply_elem elems[PLY_MAX_ELEMENTS];   /* 64 x 64 props: keep it off the stack */
    unsigned nelems = 0;
    int format = -1;   /* 0 ascii, 1 binary little endian, 2 binary big endian */
    char line[512];
    unsigned long lineno = 0;
    uint64_t header_bytes = 0;
    sr_status st = SR_OK;
#define PLY_BAD(...) do { st = sr_fail(err, SR_ERR_INPUT, __VA_ARGS__); goto done; } while (0)
    for (;;) {
        if (!fgets(line, sizeof line, f)) PLY_BAD("cannot parse mesh file %s: PLY header without end_header", path);
        lineno++;
        size_t len = strlen(line);
        header_bytes += len;
        if (header_bytes > PLY_MAX_HEADER) PLY_BAD("cannot parse mesh file %s: PLY header longer than 1 MiB", path);
        if (len == sizeof line - 1 && line[len - 1] != '\n') PLY_BAD("cannot parse mesh file %s: PLY header line %lu is too long", path, lineno);
        char *save = NULL, *word = strtok_r(line, " \t\r\n", &save);
        if (lineno == 1) {
            if (!word || strcmp(word, "ply")) PLY_BAD("cannot parse mesh file %s: not a PLY file (no \"ply\" line)", path);
            continue;
        }
        if (!word || !strcmp(word, "comment") || !strcmp(word, "obj_info")) continue;
        if (!strcmp(word, "end_header")) break;
        if (!strcmp(word, "format")) {
            const char *kind = strtok_r(NULL, " \t\r\n", &save);
            format = !kind ? -1 : !strcmp(kind, "ascii") ? 0 : !strcmp(kind, "binary_little_endian") ? 1
                   : !strcmp(kind, "binary_big_endian") ? 2 : -1;
            if (format < 0) PLY_BAD("cannot parse mesh file %s: PLY line %lu: unknown format", path, lineno);
        } else if (!strcmp(word, "element")) {
            const char *name = strtok_r(NULL, " \t\r\n", &save), *count = strtok_r(NULL, " \t\r\n", &save);
            char *end = NULL;
            errno = 0;
            unsigned long long n = count ? strtoull(count, &end, 10) : 0;
            if (!name || !count || *count == '-' || !end || *end || errno)
                PLY_BAD("cannot parse mesh file %s: PLY line %lu: expected \"element NAME COUNT\"", path, lineno);
            if (nelems == PLY_MAX_ELEMENTS) PLY_BAD("cannot parse mesh file %s: more than %d PLY elements", path, PLY_MAX_ELEMENTS);
            ply_elem *e = &elems[nelems++];
            memset(e, 0, sizeof *e);
            snprintf(e->name, sizeof e->name, "%s", name);
            e->count = n;
        } else if (!strcmp(word, "property")) {
            if (!nelems) PLY_BAD("cannot parse mesh file %s: PLY line %lu: a property before any element", path, lineno);
            ply_elem *e = &elems[nelems - 1];
            if (e->nprops == PLY_MAX_PROPS) PLY_BAD("cannot parse mesh file %s: more than %d properties in a PLY element", path, PLY_MAX_PROPS);
            ply_prop *p = &e->props[e->nprops++];
            const char *t = strtok_r(NULL, " \t\r\n", &save);
            if (t && !strcmp(t, "list")) {
                const char *ct = strtok_r(NULL, " \t\r\n", &save), *it = strtok_r(NULL, " \t\r\n", &save);
                p->list = 1;
                p->count_size = ct ? ply_type_size(ct) : 0;
                p->item_size = it ? ply_type_size(it) : 0;
                if (!p->count_size || !p->item_size || p->count_size == 8)
                    PLY_BAD("cannot parse mesh file %s: PLY line %lu: unknown list types", path, lineno);
            } else {
                p->item_size = t ? ply_type_size(t) : 0;
                if (!p->item_size) PLY_BAD("cannot parse mesh file %s: PLY line %lu: unknown property type", path, lineno);
            }
            if (!strtok_r(NULL, " \t\r\n", &save)) PLY_BAD("cannot parse mesh file %s: PLY line %lu: a property without a name", path, lineno);
        } else {
            PLY_BAD("cannot parse mesh file %s: PLY line %lu: unknown header keyword \"%.40s\"", path, lineno, word);
        }
    }
    if (format < 0) PLY_BAD("cannot parse mesh file %s: PLY header without a format line", path);

    /* The body: what is left of the file after the header. */
    long body_at = ftell(f);
    if (body_at < 0 || fseek(f, 0, SEEK_END) != 0) PLY_BAD("cannot parse mesh file %s: cannot seek", path);
    long file_end = ftell(f);
    if (file_end < body_at || fseek(f, body_at, SEEK_SET) != 0) PLY_BAD("cannot parse mesh file %s: cannot seek", path);
    uint64_t left = (uint64_t)(file_end - body_at);

    if (format == 0) {
        /* Text: every value takes at least two bytes (a digit and a separator). */
        uint64_t need = 0;
        for (unsigned i = 0; i < nelems; i++) {
            uint64_t per = 2u * (elems[i].nprops ? elems[i].nprops : 1u);
            if (elems[i].count > left / per) goto too_many;
            need += elems[i].count * per;
            if (need > left) goto too_many;
            continue;
        too_many:
            PLY_BAD("cannot parse mesh file %s: its PLY header declares %llu %s elements, more than the %llu bytes after "
                    "the header can hold", path, (unsigned long long)elems[i].count, elems[i].name,
                    (unsigned long long)left);
        }
        /* Then line by line, as assimp reads it: one record a line, exactly its values, all
         * numbers (assimp leaks memory on some malformed records; found by tests/fuzz). */
        char *buf = NULL;
        size_t cap = 0;
        unsigned long body_line = lineno;
        for (unsigned i = 0; i < nelems && st == SR_OK; i++) {
            const ply_elem *e = &elems[i];
            for (uint64_t r = 0; r < e->count && st == SR_OK; r++) {
                ssize_t got;
                char *save = NULL, *tok = NULL;
                do {   /* blank lines do not count */
                    got = getline(&buf, &cap, f);
                    body_line++;
                    if (got > 0) tok = strtok_r(buf, " \t\r\n", &save);
                } while (got > 0 && !tok);
                if (got <= 0) {
                    st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: its PLY body ends before %llu %s records",
                                 path, (unsigned long long)e->count, e->name);
                    break;
                }
                const char *why = ply_ascii_record(e, tok, &save);
                if (why)
                    st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: PLY line %lu (%s record %llu): %s", path,
                                 body_line, e->name, (unsigned long long)r, why);
            }
        }
        free(buf);
        goto done;
    }

    const int big = format == 2;
    for (unsigned i = 0; i < nelems; i++) {
        ply_elem *e = &elems[i];
        uint64_t fixed = 0;
        int has_list = 0;
        for (unsigned k = 0; k < e->nprops; k++) {
            if (e->props[k].list) has_list = 1;
            else fixed += e->props[k].item_size;
        }
        if (!has_list) {   /* fixed-size records: one multiplication */
            if (fixed && e->count > left / fixed) goto short_body;
            left -= e->count * fixed;
            if (fseek(f, (long)(e->count * fixed), SEEK_CUR) != 0) goto short_body;
            continue;
        }
        for (uint64_t r = 0; r < e->count; r++) {
            for (unsigned k = 0; k < e->nprops; k++) {
                const ply_prop *p = &e->props[k];
                unsigned char b[8];
                if (!p->list) {
                    if (left < p->item_size || fread(b, 1, p->item_size, f) != p->item_size) goto short_body;
                    left -= p->item_size;
                    continue;
                }
                if (left < p->count_size || fread(b, 1, p->count_size, f) != p->count_size) goto short_body;
                left -= p->count_size;
                uint64_t n = ply_read_uint(b, p->count_size, big);
                if (p->count_size == 4 && (n >> 31)) n = UINT64_MAX;   /* a negative int count */
                if (n == 0 && ply_is_face(e))
                    PLY_BAD("cannot parse mesh file %s: PLY %s %llu has no vertex indices", path, e->name,
                            (unsigned long long)r);
                if (n > left / p->item_size) goto short_body;
                left -= n * p->item_size;
                if (ply_skip(f, n * p->item_size) != 0) goto short_body;
            }
        }
        continue;
    short_body:
        PLY_BAD("cannot parse mesh file %s: its binary PLY body is shorter than its header says (element \"%s\", %llu "
                "declared); the file is cut short or the header is wrong", path, e->name,
                (unsigned long long)e->count);
    }
done:
    fclose(f);
    return st;
#undef PLY_BAD
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
    ssize_t got;
    while (st == SR_OK && (got = getline(&line, &cap, f)) > 0) {
        lineno++;
        /* assimp ends a line at a NUL byte, so what follows it is a line of its own that
         * these checks (which stop at the NUL) never see: an mtllib naming a folder leaked. */
        if (memchr(line, '\0', (size_t)got)) {
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
            if (!ply_number(tok, 0)) bad = 1;
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
    while (st == SR_OK && getline(&line, &cap, f) > 0) {
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
    while ((ch = getc(f)) == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f') *newline |= ch != ' ' && ch != '\t';
    size_t n = 0;
    for (; ch != EOF && ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n' && ch != '\f'; ch = getc(f)) {
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
    return SR_OK;   /* what follows the last solid is ignored by assimp too */
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

/* ---- files a mesh pulls in, and sizes its header declares -------------------------------- */

/* A file the mesh refers to (an OBJ's mtllib, a glTF's buffer or image): resolved next to
 * the mesh, it must be a regular file (a FIFO would block assimp forever) of a bounded size,
 * and its size counts towards the import's memory budget. */
static sr_status sr_ref_file(const char *mesh, const char *name, size_t name_len, uint64_t *bytes, sr_error *err)
{
    char path[4096];
    const char *slash = strrchr(mesh, '/');
    const int dir = slash ? (int)(slash - mesh) + 1 : 0;
    if (name_len == 0) return SR_OK;
    if ((size_t)dir + name_len + 1 > sizeof path)
        return sr_fail(err, SR_ERR_INPUT, "mesh file %s refers to a file whose name is too long", mesh);
    snprintf(path, sizeof path, "%.*s%.*s", dir, mesh, (int)name_len, name);
    struct stat st;
    if (stat(path, &st) != 0) return SR_OK;   /* missing: assimp says so, or goes without it */
    if (!S_ISREG(st.st_mode))
        return sr_fail(err, SR_ERR_INPUT, "mesh file %s refers to %s, which is not a regular file (a FIFO, device, "
                       "socket or directory); expected a regular file", mesh, path);
    char out[PATH_MAX + 32];
    if (sr_output_guard_match(&st, out, sizeof out))
        return sr_fail(err, SR_ERR_INPUT, "mesh file %s refers to %s, which is also the output (%s) and would be "
                       "overwritten; choose another output name", mesh, path, out);
    if ((uint64_t)st.st_size > SR_MAX_MESH_BYTES)
        return sr_fail(err, SR_ERR_INPUT, "mesh file %s refers to %s of %.1f GiB; at most %.1f GiB are supported", mesh,
                       path, (double)st.st_size / 1073741824.0, (double)SR_MAX_MESH_BYTES / 1073741824.0);
    *bytes += (uint64_t)st.st_size;
    return SR_OK;
}

/* An MTL file as assimp 5.2 reads it: a texture statement (map_*, bump, disp, norm, refl,
 * decal) before the first newmtl has no material to go to, and assimp's reader dereferences
 * a null material there (found by tests/fuzz). Refused with its line. */
static sr_status sr_mtl_check(const char *obj, const char *mtl, sr_error *err)
{
    FILE *f = fopen(mtl, "rb");
    if (!f) return SR_OK;   /* assimp goes without it */
    static const char *const textures[] = { "map_", "bump", "disp", "norm", "refl", "decal" };
    char *line = NULL;
    size_t cap = 0;
    unsigned long no = 0;
    int material = 0;
    sr_status st = SR_OK;
    while (!st && !material && getline(&line, &cap, f) > 0) {
        no++;
        const char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (!strncmp(p, "newmtl", 6)) {
            material = 1;
            break;
        }
        for (size_t k = 0; k < sizeof textures / sizeof textures[0]; k++)
            if (!strncmp(p, textures[k], strlen(textures[k]))) {
                st = sr_fail(err, SR_ERR_INPUT, "mesh file %s: material file %s:%lu: a texture ('%s') before any "
                             "'newmtl'; expected 'newmtl NAME' first", obj, mtl, no, textures[k]);
                break;
            }
    }
    free(line);
    fclose(f);
    return st;
}

static sr_status sr_obj_refs(const char *path, uint64_t *bytes, sr_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return SR_OK;   /* sr_obj_check reports it */
    char *line = NULL;
    size_t cap = 0;
    sr_status st = SR_OK;
    const char *slash = strrchr(path, '/');
    const int dir = slash ? (int)(slash - path) + 1 : 0;
    while (!st && getline(&line, &cap, f) > 0) {
        const char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "mtllib", 6) != 0 || (p[6] != ' ' && p[6] != '\t')) continue;
        for (p += 6; !st && *p;) {   /* one or more names, as assimp reads them */
            while (*p == ' ' || *p == '\t') p++;
            const char *e = p;
            while (*e && *e != ' ' && *e != '\t' && *e != '\r' && *e != '\n') e++;
            int empty_part = e > p && e[-1] == '/';   /* a folder's name, there or not */
            for (const char *q = p; q + 1 < e; q++) empty_part |= q[0] == '/' && q[1] == '/';
            if (empty_part) {   /* assimp leaked on both (tests/fuzz): no file needs them */
                st = sr_fail(err, SR_ERR_INPUT, "mesh file %s: mtllib %.*s has an empty path part (a '/' at its end "
                             "or '//'); expected the name of a material file", path, (int)(e - p), p);
                break;
            }
            if (e > p) {
                st = sr_ref_file(path, p, (size_t)(e - p), bytes, err);
                /* Where it is missing, assimp opens the OBJ's own name with "mtl" for its last
                 * three letters instead. */
                char mtl[4096];
                struct stat sb;
                snprintf(mtl, sizeof mtl, "%.*s%.*s", dir, path, (int)(e - p), p);
                if (!st && stat(mtl, &sb) != 0 && strlen(path) > 3 && strlen(path) < sizeof mtl) {
                    snprintf(mtl, sizeof mtl, "%.*smtl", (int)(strlen(path) - 3), path);
                    const char *base = strrchr(mtl, '/');
                    base = base ? base + 1 : mtl;
                    st = sr_ref_file(path, base, strlen(base), bytes, err);
                }
                if (!st) st = sr_mtl_check(path, mtl, err);
            }
            p = *e == '\r' || *e == '\n' ? "" : e;
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
    cJSON *root = cJSON_ParseWithLength(json, len);
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

/* glTF JSON (a .gltf file, or a .glb's JSON chunk): every buffer and image "uri" that is not a
 * data: URI names a file next to the mesh. */
static sr_status sr_gltf_refs(const char *path, const char *json, size_t len, uint64_t *bytes, sr_error *err)
{
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!root) return SR_OK;   /* assimp says what is wrong with it */
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

sr_status sr_mesh_refs_check(const char *path, const char *ext, uint64_t file_size, uint64_t *ref_bytes, sr_error *err)
{
    *ref_bytes = 0;
    if (!strcmp(ext, ".obj")) return sr_obj_refs(path, ref_bytes, err);
    if (strcmp(ext, ".gltf") && strcmp(ext, ".glb")) return SR_OK;
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
            } else if (at == bin_at && memcmp(c + 4, "BIN\0", 4)) {
                st = sr_fail(err, SR_ERR_INPUT, "cannot parse mesh file %s: the chunk after the JSON is not BIN", path);
                break;
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
    if (!st) st = sr_gltf_json_check(path, json, json_len, err);
    if (!st) st = sr_gltf_refs(path, json, json_len, ref_bytes, err);
    free(json);
    return st;
}
