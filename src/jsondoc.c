/* jsondoc.c: a JSON file read strictly, with the position of every key and value.
 *
 * cJSON parses the text; it records no positions, so a second pass walks the text in step
 * with the parsed tree (children are in document order) and notes where every key and value
 * starts. Every error then names path:line:column, the JSON path of the key, what is wrong
 * and what is expected. Malformed JSON is diagnosed by a small checker that follows cJSON's
 * grammar and says what it expected where cJSON gave up. */
#include "jsondoc.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_DEPTH_LIMIT 1000           /* CJSON_NESTING_LIMIT                             */

struct sr_json_pos { const cJSON *node; size_t key, val; };
typedef struct sr_json_pos sr_json_pos;

/* ---- text helpers ------------------------------------------------------------------------ */

static bool is_ws(char ch) { return (unsigned char)ch <= 32; }   /* cJSON skips every byte <= 32 */
static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }
static bool is_num_char(char ch)   /* what cJSON hands to strtod */
{
    return is_digit(ch) || ch == '+' || ch == '-' || ch == 'e' || ch == 'E' || ch == '.';
}
static bool is_word_char(char ch)
{
    return is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static size_t skip_ws(const char *t, size_t len, size_t i)
{
    while (i < len && is_ws(t[i])) i++;
    return i;
}

/* i at the opening quote; returns the offset just past the closing quote. */
static size_t skip_string(const char *t, size_t len, size_t i)
{
    for (i++; i < len && t[i] != '"'; i++)
        if (t[i] == '\\') i++;
    return i < len ? i + 1 : len;
}

/* Copy user text for a message: control bytes become '?', long text is cut at a UTF-8
 * character boundary and marked with "...". */
void sr_json_sanitize(char *dst, size_t cap, const char *src)
{
    if (!cap) return;
    const unsigned char *s = (const unsigned char *)(src ? src : "");
    size_t len = strlen((const char *)s);
    bool cut = len >= cap;
    size_t n = cut ? (cap > 4 ? cap - 4 : 0) : len;
    if (cut)
        while (n > 0 && (s[n] & 0xC0) == 0x80) n--;   /* s[n] is the first byte left out */
    for (size_t i = 0; i < n; i++) dst[i] = (s[i] < 32 || s[i] == 127) ? '?' : (char)s[i];
    if (cut && cap >= 4) { dst[n++] = '.'; dst[n++] = '.'; dst[n++] = '.'; }
    dst[n] = '\0';
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
/* ---- failing ----------------------------------------------------------------------------- */

static sr_status vfail_at(sr_json_doc *c, size_t off, const char *jp, const char *fmt, va_list ap)
{
    char msg[900];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const char *sep = jp && *jp ? ": " : "";
    if (!jp) jp = "";
    if (off == SR_JSON_NO_POS) return sr_fail(c->err, SR_ERR_INPUT, "%s: %s%s%s", c->path, jp, sep, msg);
    unsigned long line, col;
    line_col(c, off, &line, &col);
    return sr_fail(c->err, SR_ERR_INPUT, "%s:%lu:%lu: %s%s%s", c->path, line, col, jp, sep, msg);
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
/* ---- JSON paths and descriptions --------------------------------------------------------- */

void sr_json_path_key(char *dst, size_t cap, const char *parent, const char *key)
{
    bool ident = key[0] != '\0';
    for (const char *k = key; *k; k++)
        if (!is_word_char(*k) && *k != '-') ident = false;
    char safe[96];
    sr_json_sanitize(safe, sizeof safe, key);
    int w = ident ? snprintf(dst, cap, "%s%s%s", parent, *parent ? "." : "", safe)
                  : snprintf(dst, cap, "%s[\"%s\"]", parent, safe);
    if (w < 0 && cap) dst[0] = '\0';   /* a long path is cut, which is fine for a message */
}

void sr_json_path_index(char *dst, size_t cap, const char *parent, size_t i)
{
    if (snprintf(dst, cap, "%s[%zu]", parent, i) < 0 && cap) dst[0] = '\0';
}

/* The number as it was written (so 1e999 stays 1e999). */
static void number_text(const sr_json_doc *c, const cJSON *n, char *buf, size_t cap)
{
    size_t p = val_off(c, n);
    if (p == SR_JSON_NO_POS || cap < 8) { snprintf(buf, cap, "%.9g", n->valuedouble); return; }
    size_t k = 0;
    while (p + k < c->len && is_num_char(c->text[p + k]) && k < cap - 4) { buf[k] = c->text[p + k]; k++; }
    if (p + k < c->len && is_num_char(c->text[p + k])) { buf[k++] = '.'; buf[k++] = '.'; buf[k++] = '.'; }
    buf[k] = '\0';
}

void sr_json_describe(const sr_json_doc *c, const cJSON *n, char *buf, size_t cap)
{
    char tok[64];
    if (!n) { snprintf(buf, cap, "nothing"); return; }
    switch (n->type & 0xFF) {
    case cJSON_Number: number_text(c, n, tok, sizeof tok); snprintf(buf, cap, "a number (%s)", tok); break;
    case cJSON_String: sr_json_sanitize(tok, 40, n->valuestring); snprintf(buf, cap, "a string (\"%s\")", tok); break;
    case cJSON_Array: {
        int k = cJSON_GetArraySize(n);
        snprintf(buf, cap, "an array of %d element%s", k, k == 1 ? "" : "s");
        break;
    }
    case cJSON_Object: snprintf(buf, cap, "an object"); break;
    case cJSON_True: snprintf(buf, cap, "true"); break;
    case cJSON_False: snprintf(buf, cap, "false"); break;
    case cJSON_NULL: snprintf(buf, cap, "null"); break;
    default: snprintf(buf, cap, "an invalid value"); break;
    }
}

/* Key lists are NULL-terminated; a leading '*' marks a required key. */
static const char *key_name(const char *k) { return k[0] == '*' ? k + 1 : k; }

void sr_json_join_keys(char *buf, size_t cap, const char *const *keys, bool required_only)
{
    size_t n = 0;
    buf[0] = '\0';
    for (; *keys; keys++) {
        if (required_only && (*keys)[0] != '*') continue;
        int w = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", key_name(*keys));
        if (w < 0 || (size_t)w >= cap - n) break;
        n += (size_t)w;
    }
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40) return 99;
    size_t row[41];
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* " (did you mean "x"?)" for the closest of names within 2 edits, else "". `starred`: the
 * names are key lists with '*' marks. */
void sr_json_suggest(char *buf, size_t cap, const char *given, const char *const *names, size_t n, bool starred)
{
    size_t best = 3;
    const char *pick = NULL;
    for (size_t i = 0; i < n && names[i]; i++) {
        const char *name = starred ? key_name(names[i]) : names[i];
        size_t d = edit_distance(given, name);
        if (d < best && d < strlen(name)) { best = d; pick = name; }
    }
    if (pick) {
        char safe[64];
        sr_json_sanitize(safe, sizeof safe, pick);
        snprintf(buf, cap, " (did you mean \"%s\"?)", safe);
    } else {
        buf[0] = '\0';
    }
}

size_t sr_json_list_len(const char *const *keys)
{
    size_t n = 0;
    while (keys[n]) n++;
    return n;
}

/* Unknown keys, duplicate keys and missing required keys of one object. `what` names the
 * object in prose ("the camera", "a sphere"). */
sr_status sr_json_check_keys(sr_json_doc *c, const cJSON *obj, const char *jp, const char *what, const char *const *keys)
{
    for (const cJSON *k = obj->child; k; k = k->next) {
        const char *name = k->string ? k->string : "";
        char kjp[SR_JSON_PATH_MAX], safe[64];
        sr_json_path_key(kjp, sizeof kjp, jp, name);
        sr_json_sanitize(safe, sizeof safe, name);
        size_t i = 0;
        while (keys[i] && strcmp(key_name(keys[i]), name) != 0) i++;
        if (!keys[i]) {
            char list[400], sug[96];
            sr_json_join_keys(list, sizeof list, keys, false);
            sr_json_suggest(sug, sizeof sug, name, keys, sr_json_list_len(keys), true);
            return sr_json_fail_key(c, k, kjp, "unknown key \"%s\"%s; allowed keys in %s: %s", safe, sug, what, list);
        }
        for (const cJSON *p = obj->child; p != k; p = p->next) {
            if (p->string && strcmp(p->string, name) == 0) {
                char where[48];
                sr_json_where(c, p, where, sizeof where);
                return sr_json_fail_key(c, k, kjp, "duplicate key \"%s\" (first given %s); give each key once", safe, where);
            }
        }
    }
    for (size_t i = 0; keys[i]; i++) {
        if (keys[i][0] != '*' || cJSON_GetObjectItemCaseSensitive(obj, key_name(keys[i]))) continue;
        char req[300];
        sr_json_join_keys(req, sizeof req, keys, true);
        return sr_json_fail_val(c, obj, jp, "missing required key \"%s\"; %s needs: %s", key_name(keys[i]), what, req);
    }
    return SR_OK;
}
/* ---- values ------------------------------------------------------------------------------ */


static bool in_range(double v, sr_json_range r)
{
    if (r.lo_kind == SR_JSON_BOUND_INCL && !(v >= r.lo)) return false;
    if (r.lo_kind == SR_JSON_BOUND_EXCL && !(v > r.lo)) return false;
    if (r.hi_kind == SR_JSON_BOUND_INCL && !(v <= r.hi)) return false;
    if (r.hi_kind == SR_JSON_BOUND_EXCL && !(v < r.hi)) return false;
    return true;
}

static void range_text(char *buf, size_t cap, sr_json_range r)
{
    if (r.lo_kind == SR_JSON_BOUND_INCL && r.hi_kind == SR_JSON_BOUND_INCL) snprintf(buf, cap, "must be between %g and %g", r.lo, r.hi);
    else if (r.lo_kind == SR_JSON_BOUND_EXCL && r.hi_kind == SR_JSON_BOUND_EXCL) snprintf(buf, cap, "must be greater than %g and less than %g", r.lo, r.hi);
    else if (r.lo_kind == SR_JSON_BOUND_INCL && r.lo == 0.0) snprintf(buf, cap, "must not be negative");
    else if (r.lo_kind == SR_JSON_BOUND_INCL) snprintf(buf, cap, "must be at least %g", r.lo);
    else snprintf(buf, cap, "must be greater than %g", r.lo);
}

static sr_status read_number(sr_json_doc *c, const cJSON *n, const char *jp, double *out)
{
    char got[96];
    if (!cJSON_IsNumber(n)) {
        sr_json_describe(c, n, got, sizeof got);
        return sr_json_fail_val(c, n, jp, "expected a number, got %s", got);
    }
    double v = n->valuedouble;
    if (!isfinite(v) || fabs(v) > FLT_MAX) {
        number_text(c, n, got, sizeof got);
        return sr_json_fail_val(c, n, jp, "must be a finite number no larger than 3.4e38 in magnitude, got %s", got);
    }
    *out = v;
    return SR_OK;
}

static sr_status read_float(sr_json_doc *c, const cJSON *n, const char *jp, sr_json_range r, float *out)
{
    double v = 0.0;
    SR_TRY(read_number(c, n, jp, &v));
    if (!in_range(v, r)) {
        char rule[96], got[64];
        range_text(rule, sizeof rule, r);
        number_text(c, n, got, sizeof got);
        return sr_json_fail_val(c, n, jp, "%s, got %s", rule, got);
    }
    *out = (float)v;
    return SR_OK;
}

static sr_status read_uint(sr_json_doc *c, const cJSON *n, const char *jp, uint32_t lo, uint32_t hi, uint32_t *out)
{
    double v = 0.0;
    SR_TRY(read_number(c, n, jp, &v));
    if (v != floor(v) || v < (double)lo || v > (double)hi) {
        char got[64];
        number_text(c, n, got, sizeof got);
        return sr_json_fail_val(c, n, jp, "must be a whole number between %u and %u, got %s", lo, hi, got);
    }
    *out = (uint32_t)v;
    return SR_OK;
}


/* Normalize in double: a tiny but non-zero float vector still gives a unit vector. */
bool sr_json_unit_vector(sr_vec3 v, sr_vec3 *out)
{
    double x = v.x, y = v.y, z = v.z, l = sqrt(x * x + y * y + z * z);
    if (!(l > 0.0) || !isfinite(l)) return false;
    if (out) *out = sr_v3((float)(x / l), (float)(y / l), (float)(z / l));
    return true;
}

static sr_status read_vec3(sr_json_doc *c, const cJSON *n, const char *jp, int kind, sr_vec3 *out)
{
    char got[96];
    if (!cJSON_IsArray(n) || cJSON_GetArraySize(n) != 3) {
        sr_json_describe(c, n, got, sizeof got);
        return sr_json_fail_val(c, n, jp, "expected an array of 3 numbers, got %s", got);
    }
    float v[3] = {0.0f, 0.0f, 0.0f};
    int i = 0;
    for (const cJSON *e = n->child; e && i < 3; e = e->next, i++) {
        char ejp[SR_JSON_PATH_MAX];
        sr_json_path_index(ejp, sizeof ejp, jp, (size_t)i);
        double d = 0.0;
        SR_TRY(read_number(c, e, ejp, &d));
        if (kind == SR_JSON_VEC_COLOR && d < 0.0) {
            number_text(c, e, got, sizeof got);
            return sr_json_fail_val(c, e, ejp, "colour components must not be negative, got %s", got);
        }
        v[i] = (float)d;
    }
    *out = sr_v3(v[0], v[1], v[2]);
    if (kind == SR_JSON_VEC_DIR && !sr_json_unit_vector(*out, NULL))
        return sr_json_fail_val(c, n, jp, "must not be a zero-length vector, got [%g, %g, %g]", v[0], v[1], v[2]);
    return SR_OK;
}

const cJSON *sr_json_field(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

sr_status sr_json_opt_vec3(sr_json_doc *c, const cJSON *obj, const char *jp, const char *key, int kind, sr_vec3 def, sr_vec3 *out)
{
    const cJSON *n = sr_json_field(obj, key);
    if (!n) { *out = def; return SR_OK; }
    char kjp[SR_JSON_PATH_MAX];
    sr_json_path_key(kjp, sizeof kjp, jp, key);
    return read_vec3(c, n, kjp, kind, out);
}

sr_status sr_json_opt_float(sr_json_doc *c, const cJSON *obj, const char *jp, const char *key, sr_json_range r, float def, float *out)
{
    const cJSON *n = sr_json_field(obj, key);
    if (!n) { *out = def; return SR_OK; }
    char kjp[SR_JSON_PATH_MAX];
    sr_json_path_key(kjp, sizeof kjp, jp, key);
    return read_float(c, n, kjp, r, out);
}

sr_status sr_json_opt_uint(sr_json_doc *c, const cJSON *obj, const char *jp, const char *key, uint32_t lo, uint32_t hi,
                                  uint32_t def, uint32_t *out)
{
    const cJSON *n = sr_json_field(obj, key);
    if (!n) { *out = def; return SR_OK; }
    char kjp[SR_JSON_PATH_MAX];
    sr_json_path_key(kjp, sizeof kjp, jp, key);
    return read_uint(c, n, kjp, lo, hi, out);
}

sr_status sr_json_opt_bool(sr_json_doc *c, const cJSON *obj, const char *jp, const char *key, bool def, bool *out)
{
    const cJSON *n = sr_json_field(obj, key);
    if (!n) { *out = def; return SR_OK; }
    char kjp[SR_JSON_PATH_MAX], got[96];
    sr_json_path_key(kjp, sizeof kjp, jp, key);
    if (!cJSON_IsBool(n)) {
        sr_json_describe(c, n, got, sizeof got);
        return sr_json_fail_val(c, n, kjp, "expected true or false, got %s", got);
    }
    *out = cJSON_IsTrue(n) != 0;
    return SR_OK;
}

sr_status sr_json_need_object(sr_json_doc *c, const cJSON *n, const char *jp)
{
    if (cJSON_IsObject(n)) return SR_OK;
    char got[96];
    sr_json_describe(c, n, got, sizeof got);
    return sr_json_fail_val(c, n, jp, "expected an object ({ ... }), got %s", got);
}

sr_status sr_json_need_array(sr_json_doc *c, const cJSON *n, const char *jp)
{
    if (cJSON_IsArray(n)) return SR_OK;
    char got[96];
    sr_json_describe(c, n, got, sizeof got);
    return sr_json_fail_val(c, n, jp, "expected an array ([ ... ]), got %s", got);
}

/* The object's "type", one of names (NULL-terminated); `what` is "object", "material"... */
sr_status sr_json_read_type(sr_json_doc *c, const cJSON *obj, const char *jp, const char *what,
                                   const char *const *names, int *out)
{
    char list[200];
    sr_json_join_keys(list, sizeof list, names, false);
    const cJSON *t = sr_json_field(obj, "type");
    if (!t) return sr_json_fail_val(c, obj, jp, "missing required key \"type\"; every %s needs a \"type\", one of: %s", what, list);
    char tjp[SR_JSON_PATH_MAX], got[96];
    sr_json_path_key(tjp, sizeof tjp, jp, "type");
    if (!cJSON_IsString(t)) {
        sr_json_describe(c, t, got, sizeof got);
        return sr_json_fail_val(c, t, tjp, "expected a string, one of: %s; got %s", list, got);
    }
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], t->valuestring) == 0) { *out = i; return SR_OK; }
    char sug[96];
    sr_json_sanitize(got, 48, t->valuestring);
    sr_json_suggest(sug, sizeof sug, t->valuestring, names, sr_json_list_len(names), false);
    return sr_json_fail_val(c, t, tjp, "unknown %s type \"%s\"%s; expected one of: %s", what, got, sug, list);
}
/* ---- malformed JSON ---------------------------------------------------------------------- */

/* A checker that follows cJSON 1.7's grammar (numbers as strtod reads them, its escapes and
 * nesting limit) and stops at the first error with what it expected there. */
typedef struct jcheck {
    const char *t;
    size_t len, pos, at;
    char msg[300];
} jcheck;

static void jc_found(const jcheck *j, size_t at, char *buf, size_t cap)
{
    const char *t = j->t;
    if (at >= j->len) { snprintf(buf, cap, "the end of the file"); return; }
    char tok[40];
    size_t n = 0;
    if (is_word_char(t[at])) {
        while (at + n < j->len && is_word_char(t[at + n]) && n < 24) { tok[n] = t[at + n]; n++; }
    } else if (t[at] == '"') {
        tok[n++] = '"';
        while (at + n < j->len && t[at + n] != '"' && t[at + n] != '\n' && n < 24) { tok[n] = t[at + n]; n++; }
        if (at + n < j->len && t[at + n] == '"') tok[n++] = '"';
    } else if (t[at] == '\'') {
        snprintf(buf, cap, "a single quote");
        return;
    } else {
        tok[n++] = t[at];
    }
    tok[n] = '\0';
    char safe[48];
    sr_json_sanitize(safe, sizeof safe, tok);
    snprintf(buf, cap, "'%s'", safe);
}

static bool word_is(const jcheck *j, size_t at, const char *w)
{
    size_t n = strlen(w), i = 0;
    for (; i < n; i++) {
        if (at + i >= j->len) return false;
        char ch = j->t[at + i];
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch - 'A' + 'a');
        if (ch != w[i]) return false;
    }
    return at + n >= j->len || !is_word_char(j->t[at + n]);
}

/* key_ctx: a key was expected here (unquoted keys get their own hint). */
static bool jc_fail(jcheck *j, size_t at, const char *expected, bool key_ctx)
{
    char found[64];
    const char *hint = "";
    jc_found(j, at, found, sizeof found);
    if (at < j->len) {
        char ch = j->t[at];
        if (ch == '/') hint = " (JSON does not allow comments)";
        else if (ch == '\'') hint = " (JSON strings need double quotes)";
        else if (word_is(j, at, "nan") || word_is(j, at, "infinity") || word_is(j, at, "inf"))
            hint = " (JSON numbers must be finite)";
        else if (word_is(j, at, "true") || word_is(j, at, "false") || word_is(j, at, "null") || word_is(j, at, "none"))
            hint = " (write true, false and null in lower case)";
        else if (is_word_char(ch) && !is_digit(ch))
            hint = key_ctx ? " (keys need double quotes)" : " (strings need double quotes)";
    } else {
        hint = " (an unclosed '{', '[' or string?)";
    }
    j->at = at;
    snprintf(j->msg, sizeof j->msg, "expected %s, found %s%s", expected, found, hint);
    return false;
}

static bool jc_value(jcheck *j, int depth);

static int hex_value(char h)
{
    if (is_digit(h)) return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    if (h >= 'A' && h <= 'F') return h - 'A' + 10;
    return -1;
}

static bool jc_string(jcheck *j)
{
    const char *t = j->t;
    size_t start = j->pos, i = start + 1;
    for (; i < j->len && t[i] != '"'; i++) {
        if (t[i] != '\\') continue;
        size_t bs = i;
        if (i + 1 >= j->len) break;
        char e = t[++i];
        if (e == 'u') {
            unsigned code = 0;
            for (int k = 0; k < 4; k++) {
                char h = i + 1 + (size_t)k < j->len ? t[i + 1 + (size_t)k] : '\0';
                int v = hex_value(h);
                if (v < 0) {
                    j->at = bs;
                    snprintf(j->msg, sizeof j->msg, "invalid \\u escape in a string: expected 4 hexadecimal digits");
                    return false;
                }
                code = code * 16 + (unsigned)v;
            }
            i += 4;
            bool bad = code >= 0xDC00 && code <= 0xDFFF;
            if (code >= 0xD800 && code <= 0xDBFF) {   /* a high surrogate needs its low half */
                unsigned low = 0;
                bool ok = i + 6 < j->len && t[i + 1] == '\\' && t[i + 2] == 'u';
                for (int k = 0; ok && k < 4; k++) {
                    char h = t[i + 3 + (size_t)k];
                    int v = hex_value(h);
                    if (v < 0) ok = false;
                    else low = low * 16 + (unsigned)v;
                }
                bad = !ok || low < 0xDC00 || low > 0xDFFF;
                if (!bad) i += 6;
            }
            if (bad) {
                j->at = bs;
                snprintf(j->msg, sizeof j->msg, "invalid \\u escape in a string: an unpaired UTF-16 surrogate");
                return false;
            }
        } else if (!strchr("bfnrt\"\\/", e)) {
            j->at = bs;
            char safe[8];
            char raw[2] = {e, '\0'};
            sr_json_sanitize(safe, sizeof safe, raw);
            snprintf(j->msg, sizeof j->msg,
                     "invalid escape '\\%s' in a string; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", safe);
            return false;
        }
    }
    if (i >= j->len) {
        j->at = start;
        snprintf(j->msg, sizeof j->msg, "unterminated string: no closing '\"' before the end of the file");
        return false;
    }
    j->pos = i + 1;
    return true;
}

static bool jc_number(jcheck *j)
{
    char buf[64];
    size_t n = 0;
    while (n < sizeof buf - 1 && j->pos + n < j->len && is_num_char(j->t[j->pos + n])) { buf[n] = j->t[j->pos + n]; n++; }
    buf[n] = '\0';
    char *end = NULL;
    (void)strtod(buf, &end);
    if (end == buf) {   /* "-Infinity": point at the word */
        size_t at = j->pos + (buf[0] == '-' && n == 1 && j->pos + 1 < j->len && is_word_char(j->t[j->pos + 1]));
        return jc_fail(j, at, "a number", false);
    }
    j->pos += (size_t)(end - buf);
    return true;
}

static bool jc_container(jcheck *j, int depth, bool obj)
{
    char close = obj ? '}' : ']';
    if (depth >= JSON_DEPTH_LIMIT) {
        j->at = j->pos;
        snprintf(j->msg, sizeof j->msg, "nested too deeply (more than %d levels of '{' and '[')", JSON_DEPTH_LIMIT);
        return false;
    }
    j->pos = skip_ws(j->t, j->len, j->pos + 1);
    if (j->pos < j->len && j->t[j->pos] == close) { j->pos++; return true; }
    bool first = true;
    for (;;) {
        j->pos = skip_ws(j->t, j->len, j->pos);
        if (obj) {
            if (j->pos >= j->len || j->t[j->pos] != '"')
                return jc_fail(j, j->pos, first ? "a key in double quotes or '}'" : "a key in double quotes", true);
            if (!jc_string(j)) return false;
            j->pos = skip_ws(j->t, j->len, j->pos);
            if (j->pos >= j->len || j->t[j->pos] != ':') return jc_fail(j, j->pos, "':' after the key", false);
            j->pos++;
        }
        if (!jc_value(j, depth + 1)) return false;
        first = false;
        j->pos = skip_ws(j->t, j->len, j->pos);
        if (j->pos < j->len && j->t[j->pos] == ',') {
            size_t comma = j->pos;
            size_t next = skip_ws(j->t, j->len, comma + 1);
            if (next < j->len && j->t[next] == close) {
                j->at = comma;
                snprintf(j->msg, sizeof j->msg, "trailing comma before '%c'; JSON does not allow one, remove the ','", j->t[next]);
                return false;
            }
            j->pos = comma + 1;
            continue;
        }
        if (j->pos < j->len && j->t[j->pos] == close) { j->pos++; return true; }
        char ch = j->pos < j->len ? j->t[j->pos] : '\0';
        if (ch == '"' || ch == '{' || ch == '[' || ch == '-' || is_digit(ch)) {
            char found[64];
            jc_found(j, j->pos, found, sizeof found);
            j->at = j->pos;
            snprintf(j->msg, sizeof j->msg, "expected ',' or '%c', found %s (a missing ',' before it?)", close, found);
            return false;
        }
        return jc_fail(j, j->pos, obj ? "',' or '}' after the value" : "',' or ']' after the element", false);
    }
}

static bool jc_value(jcheck *j, int depth)
{
    j->pos = skip_ws(j->t, j->len, j->pos);
    if (j->pos >= j->len) return jc_fail(j, j->pos, "a value", false);
    char ch = j->t[j->pos];
    if (ch == '{' || ch == '[') return jc_container(j, depth, ch == '{');
    if (ch == '"') return jc_string(j);
    if (ch == '-' || is_digit(ch)) return jc_number(j);
    static const char *const lits[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(lits[k]);
        if (j->pos + n <= j->len && strncmp(j->t + j->pos, lits[k], n) == 0) { j->pos += n; return true; }
    }
    return jc_fail(j, j->pos, "a value (an object, array, string, number, true, false or null)", false);
}

static sr_status fail_malformed(sr_json_doc *c, const char *cjson_end)
{
    jcheck j;
    memset(&j, 0, sizeof j);
    j.t = c->text;
    j.len = c->len;
    j.pos = c->start;
    if (jc_value(&j, 0)) {
        j.pos = skip_ws(j.t, j.len, j.pos);
        if (j.pos < j.len) {
            char found[64];
            jc_found(&j, j.pos, found, sizeof found);
            return sr_json_fail_at(c, j.pos, "", "malformed JSON: unexpected %s after the end of the top-level value", found);
        }
        /* The checker found nothing: cJSON ran out of memory or disagrees; use its place. */
        size_t at = cjson_end && cjson_end >= c->text && cjson_end <= c->text + c->len
                        ? (size_t)(cjson_end - c->text) : c->start;
        char found[64];
        jc_found(&j, at, found, sizeof found);
        return sr_json_fail_at(c, at, "", "malformed JSON near %s", found);
    }
    return sr_json_fail_at(c, j.at, "", "malformed JSON: %s", j.msg);
}

/* ---- opening and closing ---------------------------------------------------------------- */

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
    if (nul) {
        st = sr_json_fail_at(c, (size_t)(nul - buf), "", "malformed JSON: a NUL byte; expected text (is this a binary file?)");
    } else if (skip_ws(buf, len, c->start) == len) {
        st = sr_json_fail_at(c, c->start, "", "malformed JSON: the file is empty; expected %s", expected);
    } else {
        const char *end = NULL;
        c->root = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1);
        if (!c->root) {
            st = fail_malformed(c, end);
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
    FILE *f = fopen(path, "rb");
    if (!f) return sr_fail(err, SR_ERR_INPUT, "%s: cannot read %s file: %s", path, what, strerror(errno));
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
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        /* A directory is the person's mistake; anything else is the machine's. */
        return sr_fail(err, e == EISDIR ? SR_ERR_INPUT : SR_ERR_RUNTIME, "%s: cannot read %s file: %s", path, what,
                       strerror(e));
    }
    fclose(f);
    *text = buf;
    *len = n;
    return SR_OK;
}
