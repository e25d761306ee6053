/* mesh_check_ply.c: the PLY check before assimp (see mesh_check.h): header, counts against
 * the file's size, and every record of a text or binary body. */
#include "mesh_check.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Faces with no vertex index make one of assimp's post-processing steps abort. */
static int ply_is_face(const ply_elem *e) { return !strcmp(e->name, "face") || !strcmp(e->name, "tristrips"); }

/* One text record (tok: its first value): NULL when it holds exactly the element's values. */
static const char *ply_ascii_record(const ply_elem *e, char *tok, char **save)
{
    for (unsigned k = 0; k < e->nprops; k++) {
        const ply_prop *p = &e->props[k];
        if (!tok) return "fewer values than the header declares";
        if (!p->list) {
            if (!sr_mesh_number(tok, 0)) return "a value that is not a number";
            tok = strtok_r(NULL, " \t\r\n", save);
            continue;
        }
        if (!sr_mesh_number(tok, 1) || tok[0] == '-') return "a list count that is not a whole number";
        unsigned long long n = strtoull(tok, NULL, 10);
        if (n > 1000000u) return "a list longer than a million values";
        if (n == 0 && ply_is_face(e)) return "a face with no vertex indices";
        tok = strtok_r(NULL, " \t\r\n", save);
        for (unsigned long long j = 0; j < n; j++) {
            if (!tok) return "a list shorter than its count";
            if (!sr_mesh_number(tok, 0)) return "a list value that is not a number";
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
        const long before = ftell(f);
        if (!fgets(line, sizeof line, f)) PLY_BAD("cannot parse mesh file %s: PLY header without end_header", path);
        lineno++;
        size_t len = strlen(line);
        /* A NUL byte ends assimp's header line where ours goes on to the '\n', so the body
         * assimp reads would not be the one checked here (assimp aborted; found by tests/fuzz). */
        if (before >= 0 && ftell(f) - before != (long)len)
            PLY_BAD("cannot parse mesh file %s: PLY header line %lu holds a NUL byte; a PLY header is text", path, lineno);
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
            /* assimp reads the count of an element it does not know from the start of its NAME
             * (so "element 331332333x 3" reserved 8 GB; found by tests/fuzz): a name is a word. */
            if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_'))
                PLY_BAD("cannot parse mesh file %s: PLY line %lu: element name '%.32s' does not start with a letter",
                        path, lineno, name);
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
