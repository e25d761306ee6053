/* jsondoc.c: a JSON file read strictly, with the position of every key and value.
 *
 * cJSON parses the text; it records no positions, so a second pass walks the text in step
 * with the parsed tree (children are in document order) and notes where every key and value
 * starts. Every error then names path:line:column, the JSON path of the key, what is wrong
 * and what is expected. Malformed JSON is diagnosed by jsoncheck.c. */
#include "jsondoc.h"
#include "../base/utf8.h"
#include "jsoncheck.h"
#include "../base/interrupt.h"
#include "../io/output/outpath.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sr_json_pos { const cJSON *node; size_t key, val; };
typedef struct sr_json_pos sr_json_pos;

/* ---- text helpers ------------------------------------------------------------------------ */

/* i at the opening quote; returns the offset just past the closing quote. */
static size_t skip_string(const char *t, size_t len, size_t i)
{
    for (i++; i < len && t[i] != '"'; i++)
        if (t[i] == '\\') i++;
    return i < len ? i + 1 : len;
}

/* ---- positions --------------------------------------------------------------------------- */

static void line_col(const sr_json_doc *c, size_t off, unsigned long *line, unsigned long *col)
{
    unsigned long l = 1, k = 1;
    for (size_t i = c->start; i < off && i < c->len; i++) {
        unsigned char ch = (unsigned char)c->text[i];
        if (ch == '\n') { l++; k = 1; }
        else if ((ch & 0xC0) != 0x80) k++;   /* count characters, not UTF-8 bytes */
    }
    *line = l;
    *col = k;
}

static bool pos_add(sr_json_doc *c, const cJSON *node, size_t key, size_t val)
{
    if (c->npos == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        sr_json_pos *p = realloc(c->pos, cap * sizeof *p);
        if (!p) return false;
        c->pos = p;
        c->cap = cap;
    }
    c->pos[c->npos].node = node;
    c->pos[c->npos].key = key;
    c->pos[c->npos].val = val;
    c->npos++;
    return true;
}

/* Walk text from *i in step with node (the text is known to be valid JSON). False if the
 * two disagree or memory runs out: positions are then missing, never wrong. */
static bool pos_walk(sr_json_doc *c, const cJSON *node, size_t *i, size_t key)
{
    const char *t = c->text;
    size_t len = c->len, p = skip_ws(t, len, *i);
    if (p >= len || !pos_add(c, node, key, p)) return false;
    int type = node->type & 0xFF;
    switch (type) {
    case cJSON_Object:
    case cJSON_Array: {
        bool obj = type == cJSON_Object;
        if (t[p] != (obj ? '{' : '[')) return false;
        p++;
        for (const cJSON *k = node->child; k; k = k->next) {
            size_t kp = SR_JSON_NO_POS;
            p = skip_ws(t, len, p);
            if (obj) {
                if (p >= len || t[p] != '"') return false;
                kp = p;
                p = skip_ws(t, len, skip_string(t, len, p));
                if (p >= len || t[p] != ':') return false;
                p++;
            }
            if (!pos_walk(c, k, &p, kp)) return false;
            p = skip_ws(t, len, p);
            if (p < len && t[p] == ',') p++;
        }
        p = skip_ws(t, len, p);
        if (p >= len || t[p] != (obj ? '}' : ']')) return false;
        p++;
        break;
    }
    case cJSON_String:
        if (t[p] != '"') return false;
        p = skip_string(t, len, p);
        break;
    case cJSON_Number:
        if (t[p] != '-' && !is_digit(t[p])) return false;
        while (p < len && is_num_char(t[p])) p++;
        break;
    case cJSON_True: p += 4; break;
    case cJSON_False: p += 5; break;
    case cJSON_NULL: p += 4; break;
    default: return false;
    }
    *i = p;
    return true;
}

static const sr_json_pos *pos_find(const sr_json_doc *c, const cJSON *node)
{
    for (size_t i = 0; i < c->npos; i++)
        if (c->pos[i].node == node) return &c->pos[i];
    return NULL;
}

static size_t val_off(const sr_json_doc *c, const cJSON *node)
{
    const sr_json_pos *e = pos_find(c, node);
    return e ? e->val : SR_JSON_NO_POS;
}

size_t sr_json_key_off(const sr_json_doc *c, const cJSON *node)
{
    const sr_json_pos *e = pos_find(c, node);
    return e ? (e->key != SR_JSON_NO_POS ? e->key : e->val) : SR_JSON_NO_POS;
}

void sr_json_where(const sr_json_doc *c, const cJSON *node, char *buf, size_t cap)
{
    size_t off = sr_json_key_off(c, node);
    if (off == SR_JSON_NO_POS) { snprintf(buf, cap, "earlier"); return; }
    unsigned long l, col;
    line_col(c, off, &l, &col);
    snprintf(buf, cap, "at %lu:%lu", l, col);
}
/* A number as the file writes it (cut with "..." past cap), or printed when it has no position. */
void sr_json_number_text(const sr_json_doc *c, const cJSON *n, char *buf, size_t cap)
{
    size_t p = val_off(c, n);
    if (p == SR_JSON_NO_POS || cap < 8) { snprintf(buf, cap, "%.9g", n->valuedouble); return; }
    size_t k = 0;
    while (p + k < c->len && is_num_char(c->text[p + k]) && k < cap - 4) { buf[k] = c->text[p + k]; k++; }
    if (p + k < c->len && is_num_char(c->text[p + k])) { buf[k++] = '.'; buf[k++] = '.'; buf[k++] = '.'; }
    buf[k] = '\0';
}

/* ---- failing ----------------------------------------------------------------------------- */

static sr_status vfail_at(sr_json_doc *c, size_t off, const char *jp, const char *fmt, va_list ap)
{
    /* whole, on the heap: sr_fail shortens the joined message in its middle, not its end */
    char fallback[900];
    va_list again;
    va_copy(again, ap);
    char *whole = sr_vformat(fmt, ap);
    if (!whole) vsnprintf(fallback, sizeof fallback, fmt, again);
    va_end(again);
    const char *msg = whole ? whole : fallback;
    const char *sep = jp && *jp ? ": " : "";
    if (!jp) jp = "";
    sr_status st;
    if (off == SR_JSON_NO_POS) {
        st = sr_fail(c->err, SR_ERR_INPUT, "%s: %s%s%s", c->path, jp, sep, msg);
    } else {
        unsigned long line, col;
        line_col(c, off, &line, &col);
        st = sr_fail(c->err, SR_ERR_INPUT, "%s:%lu:%lu: %s%s%s", c->path, line, col, jp, sep, msg);
    }
    free(whole);
    return st;
}

sr_status sr_json_fail_at(sr_json_doc *c, size_t off, const char *jp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sr_status s = vfail_at(c, off, jp, fmt, ap);
    va_end(ap);
    return s;
}

/* At the value of node. */
sr_status sr_json_fail_val(sr_json_doc *c, const cJSON *node, const char *jp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sr_status s = vfail_at(c, val_off(c, node), jp, fmt, ap);
    va_end(ap);
    return s;
}

/* At the key of node (its value when it has no key). */
sr_status sr_json_fail_key(sr_json_doc *c, const cJSON *node, const char *jp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sr_status s = vfail_at(c, sr_json_key_off(c, node), jp, fmt, ap);
    va_end(ap);
    return s;
}

sr_status sr_json_oom(sr_json_doc *c)
{
    return sr_fail(c->err, SR_ERR_RUNTIME, "%s: out of memory while reading the file", c->path);
}
/* ---- opening and closing ---------------------------------------------------------------- */

/* The offset of the first byte that is not well-formed UTF-8, or SR_JSON_NO_POS. */
static size_t sr_utf8_invalid_at(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < len;) {
        const size_t n = sr_utf8_char_len(s + i, len - i);
        if (!n) return i;
        i += n;
    }
    return SR_JSON_NO_POS;
}

sr_status sr_json_open(sr_json_doc *c, const char *path, const char *text, size_t len, const char *expected,
                       sr_error *err)
{
    memset(c, 0, sizeof *c);
    c->path = path ? path : "<input>";
    c->err = err;
    if (!text) len = 0;
    char *buf = malloc(len + 1);
    if (!buf) return sr_fail(err, SR_ERR_RUNTIME, "%s: out of memory while reading the file", c->path);
    if (len) memcpy(buf, text, len);
    buf[len] = '\0';
    c->text = buf;
    c->len = len;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) c->start = 3;   /* cJSON skips a BOM too */

    sr_status st = SR_OK;
    const char *nul = memchr(buf, '\0', len);
    size_t bad_utf8 = sr_utf8_invalid_at(buf, len);
    if (nul) {
        st = sr_json_fail_at(c, (size_t)(nul - buf), "", "malformed JSON: a NUL byte; expected text (is this a binary file?)");
    } else if (bad_utf8 != SR_JSON_NO_POS) {
        st = sr_json_fail_at(c, bad_utf8, "", "invalid UTF-8 (byte 0x%02X); a scene file is UTF-8 text",
                             (unsigned)(unsigned char)buf[bad_utf8]);
    } else if (skip_ws(buf, len, c->start) == len) {
        st = sr_json_fail_at(c, c->start, "", "malformed JSON: the file is empty; expected %s", expected);
    } else {
        const char *end = NULL;
        c->root = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1);
        if (!c->root) {
            char msg[400];
            size_t at = sr_json_diagnose(c->text, c->len, c->start,
                                         end && end >= c->text && end <= c->text + c->len ? (size_t)(end - c->text)
                                                                                         : SR_JSON_NO_POS,
                                         msg, sizeof msg);
            st = sr_json_fail_at(c, at, "", "%s", msg);
        } else {
            size_t p = c->start;
            if (!pos_walk(c, c->root, &p, SR_JSON_NO_POS)) c->npos = 0;   /* no positions rather than wrong ones */
        }
    }
    if (st != SR_OK) sr_json_close(c);
    return st;
}

void sr_json_close(sr_json_doc *c)
{
    cJSON_Delete(c->root);
    free(c->pos);
    free(c->text);
    c->root = NULL;
    c->pos = NULL;
    c->text = NULL;
    c->npos = c->cap = 0;
}

sr_status sr_json_read_file(const char *path, const char *what, size_t max_bytes, char **text, size_t *len,
                            sr_error *err)
{
    *text = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; a FIFO, device or socket is
     * refused (it could block or never end), and the size is budgeted before reading. */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return sr_fail(err, SR_ERR_INPUT, "%s: cannot read %s file: %s", path, what, strerror(errno));
    struct stat st;
    const int stat_ok = fstat(fd, &st) == 0;
    if (!stat_ok || !S_ISREG(st.st_mode)) {
        const int dir = stat_ok && S_ISDIR(st.st_mode);
        close(fd);
        return sr_fail(err, SR_ERR_INPUT, "%s: cannot read %s file: %s; expected a regular file", path, what,
                       dir ? "it is a directory" : "not a regular file (a FIFO, device or socket)");
    }
    char out[PATH_MAX + 32];
    if (sr_output_guard_match(&st, out, sizeof out)) {
        close(fd);
        return sr_fail(err, SR_ERR_INPUT, "%s: the %s file is also the output (%s), which would overwrite it; "
                       "choose another output name", path, what, out);
    }
    if ((uint64_t)st.st_size > (uint64_t)max_bytes) {
        close(fd);
        return sr_fail(err, SR_ERR_INPUT, "%s: cannot read %s file: larger than %zu MiB; a %s is a small JSON file",
                       path, what, max_bytes >> 20, what);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return sr_fail(err, SR_ERR_RUNTIME, "%s: cannot read %s file: %s", path, what, strerror(errno));
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return sr_fail(err, SR_ERR_RUNTIME, "%s: out of memory while reading the %s", path, what);
    }
    for (;;) {
        if (n == cap) {
            if (cap >= max_bytes) {
                free(buf);
                fclose(f);
                return sr_fail(err, SR_ERR_INPUT, "%s: cannot read %s file: larger than %zu MiB; a %s is a small JSON file",
                               path, what, max_bytes >> 20, what);
            }
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                fclose(f);
                return sr_fail(err, SR_ERR_RUNTIME, "%s: out of memory while reading the %s", path, what);
            }
            buf = grown;
            cap *= 2;
        }
        errno = 0;
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (ferror(f) && sr_interrupt_retry(errno)) {   /* a signal that did not ask to stop */
            clearerr(f);
            continue;
        }
        if (got == 0 || ferror(f)) break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        if (e == EINTR)   /* Ctrl-C or SIGTERM while the read waited (a slow file system) */
            return sr_fail(err, SR_INTERRUPTED, "%s: interrupted while reading the %s file", path, what);
        /* A directory is the person's mistake; anything else is the machine's. */
        return sr_fail(err, e == EISDIR ? SR_ERR_INPUT : SR_ERR_RUNTIME, "%s: cannot read %s file: %s", path, what,
                       strerror(e));
    }
    fclose(f);
    *text = buf;
    *len = n;
    return SR_OK;
}
