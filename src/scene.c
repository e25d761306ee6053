/* scene.c: a JSON scene file read into an sr_scene.
 *
 * cJSON parses the text; it records no positions, so a second pass walks the text in step
 * with the parsed tree (children are in document order) and notes where every key and value
 * starts. Every error then names path:line:column, the JSON path of the key, what is wrong
 * and what is expected. Malformed JSON is diagnosed by a small checker that follows cJSON's
 * grammar and says what it expected where cJSON gave up. */
#include <stddef.h>   /* scene.h uses size_t without including it (reported to the lead) */

#include "scene.h"
#include "mesh.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JP 256                          /* room for a JSON path like objects[12].center[1] */
#define NO_POS ((size_t)-1)
#define MAX_SCENE_BYTES (256u << 20)    /* a scene is text; anything bigger is a mistake   */
#define JSON_DEPTH_LIMIT 1000           /* CJSON_NESTING_LIMIT                             */

typedef struct pos_entry { const cJSON *node; size_t key, val; } pos_entry;

typedef struct ctx {
    const char *path;           /* as given                                                */
    const char *text;           /* NUL-terminated copy of the scene text                   */
    size_t len;
    size_t start;               /* 3 after a UTF-8 byte order mark, else 0                 */
    pos_entry *pos;
    size_t npos, cap;
    sr_error *err;
} ctx;

#define TRY(x) do { sr_status st_ = (x); if (st_ != SR_OK) return st_; } while (0)

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
static void sanitize(char *dst, size_t cap, const char *src)
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

static void line_col(const ctx *c, size_t off, unsigned long *line, unsigned long *col)
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

static bool pos_add(ctx *c, const cJSON *node, size_t key, size_t val)
{
    if (c->npos == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        pos_entry *p = realloc(c->pos, cap * sizeof *p);
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
static bool pos_walk(ctx *c, const cJSON *node, size_t *i, size_t key)
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
            size_t kp = NO_POS;
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

static const pos_entry *pos_find(const ctx *c, const cJSON *node)
{
    for (size_t i = 0; i < c->npos; i++)
        if (c->pos[i].node == node) return &c->pos[i];
    return NULL;
}

static size_t val_off(const ctx *c, const cJSON *node)
{
    const pos_entry *e = pos_find(c, node);
    return e ? e->val : NO_POS;
}

static size_t key_off(const ctx *c, const cJSON *node)
{
    const pos_entry *e = pos_find(c, node);
    return e ? (e->key != NO_POS ? e->key : e->val) : NO_POS;
}

/* ---- failing ----------------------------------------------------------------------------- */

static sr_status vfail_at(ctx *c, size_t off, const char *jp, const char *fmt, va_list ap)
{
    char msg[900];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const char *sep = jp && *jp ? ": " : "";
    if (!jp) jp = "";
    if (off == NO_POS) return sr_fail(c->err, SR_ERR_INPUT, "%s: %s%s%s", c->path, jp, sep, msg);
    unsigned long line, col;
    line_col(c, off, &line, &col);
    return sr_fail(c->err, SR_ERR_INPUT, "%s:%lu:%lu: %s%s%s", c->path, line, col, jp, sep, msg);
}

__attribute__((format(printf, 4, 5)))
static sr_status fail_at(ctx *c, size_t off, const char *jp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sr_status s = vfail_at(c, off, jp, fmt, ap);
    va_end(ap);
    return s;
}

/* At the value of node. */
__attribute__((format(printf, 4, 5)))
static sr_status fail_val(ctx *c, const cJSON *node, const char *jp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sr_status s = vfail_at(c, val_off(c, node), jp, fmt, ap);
    va_end(ap);
    return s;
}

/* At the key of node (its value when it has no key). */
__attribute__((format(printf, 4, 5)))
static sr_status fail_key(ctx *c, const cJSON *node, const char *jp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sr_status s = vfail_at(c, key_off(c, node), jp, fmt, ap);
    va_end(ap);
    return s;
}

static sr_status oom(ctx *c)
{
    return sr_fail(c->err, SR_ERR_RUNTIME, "%s: out of memory while reading the scene", c->path);
}

/* ---- JSON paths and descriptions --------------------------------------------------------- */

static void jp_key(char *dst, size_t cap, const char *parent, const char *key)
{
    bool ident = key[0] != '\0';
    for (const char *k = key; *k; k++)
        if (!is_word_char(*k) && *k != '-') ident = false;
    char safe[96];
    sanitize(safe, sizeof safe, key);
    int w = ident ? snprintf(dst, cap, "%s%s%s", parent, *parent ? "." : "", safe)
                  : snprintf(dst, cap, "%s[\"%s\"]", parent, safe);
    if (w < 0 && cap) dst[0] = '\0';   /* a long path is cut, which is fine for a message */
}

static void jp_index(char *dst, size_t cap, const char *parent, size_t i)
{
    if (snprintf(dst, cap, "%s[%zu]", parent, i) < 0 && cap) dst[0] = '\0';
}

/* The number as it was written (so 1e999 stays 1e999). */
static void number_text(const ctx *c, const cJSON *n, char *buf, size_t cap)
{
    size_t p = val_off(c, n);
    if (p == NO_POS || cap < 8) { snprintf(buf, cap, "%.9g", n->valuedouble); return; }
    size_t k = 0;
    while (p + k < c->len && is_num_char(c->text[p + k]) && k < cap - 4) { buf[k] = c->text[p + k]; k++; }
    if (p + k < c->len && is_num_char(c->text[p + k])) { buf[k++] = '.'; buf[k++] = '.'; buf[k++] = '.'; }
    buf[k] = '\0';
}

static void describe(const ctx *c, const cJSON *n, char *buf, size_t cap)
{
    char tok[64];
    if (!n) { snprintf(buf, cap, "nothing"); return; }
    switch (n->type & 0xFF) {
    case cJSON_Number: number_text(c, n, tok, sizeof tok); snprintf(buf, cap, "a number (%s)", tok); break;
    case cJSON_String: sanitize(tok, 40, n->valuestring); snprintf(buf, cap, "a string (\"%s\")", tok); break;
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

static void join_keys(char *buf, size_t cap, const char *const *keys, bool required_only)
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
static void suggest(char *buf, size_t cap, const char *given, const char *const *names, size_t n, bool starred)
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
        sanitize(safe, sizeof safe, pick);
        snprintf(buf, cap, " (did you mean \"%s\"?)", safe);
    } else {
        buf[0] = '\0';
    }
}

static size_t list_len(const char *const *keys)
{
    size_t n = 0;
    while (keys[n]) n++;
    return n;
}

/* Unknown keys, duplicate keys and missing required keys of one object. `what` names the
 * object in prose ("the camera", "a sphere"). */
static sr_status check_keys(ctx *c, const cJSON *obj, const char *jp, const char *what, const char *const *keys)
{
    for (const cJSON *k = obj->child; k; k = k->next) {
        const char *name = k->string ? k->string : "";
        char kjp[JP], safe[64];
        jp_key(kjp, sizeof kjp, jp, name);
        sanitize(safe, sizeof safe, name);
        size_t i = 0;
        while (keys[i] && strcmp(key_name(keys[i]), name) != 0) i++;
        if (!keys[i]) {
            char list[400], sug[96];
            join_keys(list, sizeof list, keys, false);
            suggest(sug, sizeof sug, name, keys, list_len(keys), true);
            return fail_key(c, k, kjp, "unknown key \"%s\"%s; allowed keys in %s: %s", safe, sug, what, list);
        }
        for (const cJSON *p = obj->child; p != k; p = p->next) {
            if (p->string && strcmp(p->string, name) == 0) {
                char where[48] = "earlier";
                size_t off = key_off(c, p);
                if (off != NO_POS) {
                    unsigned long l, col;
                    line_col(c, off, &l, &col);
                    snprintf(where, sizeof where, "at %lu:%lu", l, col);
                }
                return fail_key(c, k, kjp, "duplicate key \"%s\" (first given %s); give each key once", safe, where);
            }
        }
    }
    for (size_t i = 0; keys[i]; i++) {
        if (keys[i][0] != '*' || cJSON_GetObjectItemCaseSensitive(obj, key_name(keys[i]))) continue;
        char req[300];
        join_keys(req, sizeof req, keys, true);
        return fail_val(c, obj, jp, "missing required key \"%s\"; %s needs: %s", key_name(keys[i]), what, req);
    }
    return SR_OK;
}

/* ---- values ------------------------------------------------------------------------------ */

enum { B_NONE = 0, B_INCL, B_EXCL };
typedef struct range { double lo, hi; int lo_kind, hi_kind; } range;

static const range R_POS = {0, 0, B_EXCL, B_NONE};
static const range R_NONNEG = {0, 0, B_INCL, B_NONE};
static const range R_UNIT = {0, 1, B_INCL, B_INCL};
static const range R_FOV = {0, 180, B_EXCL, B_EXCL};
static const range R_IOR = {1, 0, B_INCL, B_NONE};

static bool in_range(double v, range r)
{
    if (r.lo_kind == B_INCL && !(v >= r.lo)) return false;
    if (r.lo_kind == B_EXCL && !(v > r.lo)) return false;
    if (r.hi_kind == B_INCL && !(v <= r.hi)) return false;
    if (r.hi_kind == B_EXCL && !(v < r.hi)) return false;
    return true;
}

static void range_text(char *buf, size_t cap, range r)
{
    if (r.lo_kind == B_INCL && r.hi_kind == B_INCL) snprintf(buf, cap, "must be between %g and %g", r.lo, r.hi);
    else if (r.lo_kind == B_EXCL && r.hi_kind == B_EXCL) snprintf(buf, cap, "must be greater than %g and less than %g", r.lo, r.hi);
    else if (r.lo_kind == B_INCL && r.lo == 0.0) snprintf(buf, cap, "must not be negative");
    else if (r.lo_kind == B_INCL) snprintf(buf, cap, "must be at least %g", r.lo);
    else snprintf(buf, cap, "must be greater than %g", r.lo);
}

static sr_status read_number(ctx *c, const cJSON *n, const char *jp, double *out)
{
    char got[96];
    if (!cJSON_IsNumber(n)) {
        describe(c, n, got, sizeof got);
        return fail_val(c, n, jp, "expected a number, got %s", got);
    }
    double v = n->valuedouble;
    if (!isfinite(v) || fabs(v) > FLT_MAX) {
        number_text(c, n, got, sizeof got);
        return fail_val(c, n, jp, "must be a finite number no larger than 3.4e38 in magnitude, got %s", got);
    }
    *out = v;
    return SR_OK;
}

static sr_status read_float(ctx *c, const cJSON *n, const char *jp, range r, float *out)
{
    double v = 0.0;
    TRY(read_number(c, n, jp, &v));
    if (!in_range(v, r)) {
        char rule[96], got[64];
        range_text(rule, sizeof rule, r);
        number_text(c, n, got, sizeof got);
        return fail_val(c, n, jp, "%s, got %s", rule, got);
    }
    *out = (float)v;
    return SR_OK;
}

static sr_status read_uint(ctx *c, const cJSON *n, const char *jp, uint32_t lo, uint32_t hi, uint32_t *out)
{
    double v = 0.0;
    TRY(read_number(c, n, jp, &v));
    if (v != floor(v) || v < (double)lo || v > (double)hi) {
        char got[64];
        number_text(c, n, got, sizeof got);
        return fail_val(c, n, jp, "must be a whole number between %u and %u, got %s", lo, hi, got);
    }
    *out = (uint32_t)v;
    return SR_OK;
}

enum { V_ANY = 0, V_COLOR, V_DIR };   /* any vector, colour (no negative part), non-zero vector */

/* Normalize in double: a tiny but non-zero float vector still gives a unit vector. */
static bool unit_vector(sr_vec3 v, sr_vec3 *out)
{
    double x = v.x, y = v.y, z = v.z, l = sqrt(x * x + y * y + z * z);
    if (!(l > 0.0) || !isfinite(l)) return false;
    if (out) *out = sr_v3((float)(x / l), (float)(y / l), (float)(z / l));
    return true;
}

static sr_status read_vec3(ctx *c, const cJSON *n, const char *jp, int kind, sr_vec3 *out)
{
    char got[96];
    if (!cJSON_IsArray(n) || cJSON_GetArraySize(n) != 3) {
        describe(c, n, got, sizeof got);
        return fail_val(c, n, jp, "expected an array of 3 numbers, got %s", got);
    }
    float v[3] = {0.0f, 0.0f, 0.0f};
    int i = 0;
    for (const cJSON *e = n->child; e && i < 3; e = e->next, i++) {
        char ejp[JP];
        jp_index(ejp, sizeof ejp, jp, (size_t)i);
        double d = 0.0;
        TRY(read_number(c, e, ejp, &d));
        if (kind == V_COLOR && d < 0.0) {
            number_text(c, e, got, sizeof got);
            return fail_val(c, e, ejp, "colour components must not be negative, got %s", got);
        }
        v[i] = (float)d;
    }
    *out = sr_v3(v[0], v[1], v[2]);
    if (kind == V_DIR && !unit_vector(*out, NULL))
        return fail_val(c, n, jp, "must not be a zero-length vector, got [%g, %g, %g]", v[0], v[1], v[2]);
    return SR_OK;
}

static const cJSON *field(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

static sr_status opt_vec3(ctx *c, const cJSON *obj, const char *jp, const char *key, int kind, sr_vec3 def, sr_vec3 *out)
{
    const cJSON *n = field(obj, key);
    if (!n) { *out = def; return SR_OK; }
    char kjp[JP];
    jp_key(kjp, sizeof kjp, jp, key);
    return read_vec3(c, n, kjp, kind, out);
}

static sr_status opt_float(ctx *c, const cJSON *obj, const char *jp, const char *key, range r, float def, float *out)
{
    const cJSON *n = field(obj, key);
    if (!n) { *out = def; return SR_OK; }
    char kjp[JP];
    jp_key(kjp, sizeof kjp, jp, key);
    return read_float(c, n, kjp, r, out);
}

static sr_status opt_uint(ctx *c, const cJSON *obj, const char *jp, const char *key, uint32_t lo, uint32_t hi,
                          uint32_t def, uint32_t *out)
{
    const cJSON *n = field(obj, key);
    if (!n) { *out = def; return SR_OK; }
    char kjp[JP];
    jp_key(kjp, sizeof kjp, jp, key);
    return read_uint(c, n, kjp, lo, hi, out);
}

static sr_status opt_bool(ctx *c, const cJSON *obj, const char *jp, const char *key, bool def, bool *out)
{
    const cJSON *n = field(obj, key);
    if (!n) { *out = def; return SR_OK; }
    char kjp[JP], got[96];
    jp_key(kjp, sizeof kjp, jp, key);
    if (!cJSON_IsBool(n)) {
        describe(c, n, got, sizeof got);
        return fail_val(c, n, kjp, "expected true or false, got %s", got);
    }
    *out = cJSON_IsTrue(n) != 0;
    return SR_OK;
}

static sr_status need_object(ctx *c, const cJSON *n, const char *jp)
{
    if (cJSON_IsObject(n)) return SR_OK;
    char got[96];
    describe(c, n, got, sizeof got);
    return fail_val(c, n, jp, "expected an object ({ ... }), got %s", got);
}

static sr_status need_array(ctx *c, const cJSON *n, const char *jp)
{
    if (cJSON_IsArray(n)) return SR_OK;
    char got[96];
    describe(c, n, got, sizeof got);
    return fail_val(c, n, jp, "expected an array ([ ... ]), got %s", got);
}

/* The object's "type", one of names (NULL-terminated); `what` is "object", "material"... */
static sr_status read_type(ctx *c, const cJSON *obj, const char *jp, const char *what,
                           const char *const *names, int *out)
{
    char list[200];
    join_keys(list, sizeof list, names, false);
    const cJSON *t = field(obj, "type");
    if (!t) return fail_val(c, obj, jp, "missing required key \"type\"; every %s needs a \"type\", one of: %s", what, list);
    char tjp[JP], got[96];
    jp_key(tjp, sizeof tjp, jp, "type");
    if (!cJSON_IsString(t)) {
        describe(c, t, got, sizeof got);
        return fail_val(c, t, tjp, "expected a string, one of: %s; got %s", list, got);
    }
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], t->valuestring) == 0) { *out = i; return SR_OK; }
    char sug[96];
    sanitize(got, 48, t->valuestring);
    suggest(sug, sizeof sug, t->valuestring, names, list_len(names), false);
    return fail_val(c, t, tjp, "unknown %s type \"%s\"%s; expected one of: %s", what, got, sug, list);
}

/* ---- the scene --------------------------------------------------------------------------- */

static const char *const top_keys[] = {"*camera", "image", "background", "ambient", "*materials", "*objects", "lights",
                                       "integrator", "sky", NULL};
static const char *const integrator_names[] = {"whitted", "path", NULL};   /* sr_integrator order */
static const char *const sky_keys[] = {"*zenith", "*horizon", "ground", NULL};
static const char *const camera_keys[] = {"*position", "*look_at", "up", "fov", "aperture", "focus_distance", NULL};
static const char *const image_keys[] = {"width", "height", "spp", "max_depth", NULL};

static const char *const material_types[] = {"diffuse", "mirror", "metal", "glass", "emissive", NULL};
static const char *const material_keys[][5] = {
    {"*type", "albedo", "checker", NULL},
    {"*type", "reflectance", NULL},
    {"*type", "albedo", "roughness", NULL},
    {"*type", "ior", "tint", NULL},
    {"*type", "*radiance", "albedo", "two_sided", NULL},
};
static const char *const checker_keys[] = {"*color", "scale", NULL};

enum { OBJ_SPHERE, OBJ_PLANE, OBJ_QUAD, OBJ_MESH };
static const char *const object_types[] = {"sphere", "plane", "quad", "mesh", NULL};
static const char *const object_keys[][7] = {
    {"*type", "*center", "*radius", "*material", NULL},
    {"*type", "*point", "*normal", "*material", NULL},
    {"*type", "*corner", "*edge_u", "*edge_v", "*material", NULL},
    {"*type", "*file", "*material", "translate", "scale", "rotate", NULL},
};

static const char *const light_types[] = {"point", "directional", NULL};
static const char *const light_keys[][5] = {
    {"*type", "*position", "color", "intensity", NULL},
    {"*type", "*direction", "color", "intensity", NULL},
};

static sr_status parse_camera(ctx *c, const cJSON *cam, sr_camera_desc *d)
{
    TRY(need_object(c, cam, "camera"));
    TRY(check_keys(c, cam, "camera", "the camera", camera_keys));
    TRY(opt_vec3(c, cam, "camera", "position", V_ANY, sr_v3s(0), &d->position));
    TRY(opt_vec3(c, cam, "camera", "look_at", V_ANY, sr_v3s(0), &d->look_at));
    TRY(opt_vec3(c, cam, "camera", "up", V_DIR, sr_v3(0, 1, 0), &d->up));
    TRY(opt_float(c, cam, "camera", "fov", R_FOV, 40.0f, &d->vfov_deg));
    TRY(opt_float(c, cam, "camera", "aperture", R_NONNEG, 0.0f, &d->aperture));
    TRY(opt_float(c, cam, "camera", "focus_distance", R_NONNEG, 0.0f, &d->focus_distance));

    sr_vec3 view = sr_v3s(0.0f);
    if (!unit_vector(sr_sub(d->look_at, d->position), &view))
        return fail_val(c, field(cam, "look_at"), "camera.look_at",
                        "must differ from camera.position (both are [%g, %g, %g]); the camera looks from position towards look_at",
                        d->position.x, d->position.y, d->position.z);
    sr_vec3 up = sr_v3s(0.0f);
    unit_vector(d->up, &up);
    if (sr_length(sr_cross(up, view)) < 1e-5f) {
        const cJSON *at = field(cam, "up");
        return fail_val(c, at ? at : cam, "camera.up",
                        "%sup [%g, %g, %g] is parallel to the view direction (look_at - position); "
                        "expected an up vector that is not, e.g. [0, 0, 1]",
                        at ? "" : "the default ", d->up.x, d->up.y, d->up.z);
    }
    return SR_OK;
}

static sr_status parse_image(ctx *c, const cJSON *img, sr_scene *s)
{
    s->width = 640;
    s->height = 360;
    s->spp = 4;
    s->max_depth = 8;
    if (!img) return SR_OK;
    TRY(need_object(c, img, "image"));
    TRY(check_keys(c, img, "image", "the image", image_keys));
    TRY(opt_uint(c, img, "image", "width", 1, SR_MAX_RESOLUTION, 640, &s->width));
    TRY(opt_uint(c, img, "image", "height", 1, SR_MAX_RESOLUTION, 360, &s->height));
    TRY(opt_uint(c, img, "image", "spp", 1, SR_MAX_SPP, 4, &s->spp));
    TRY(opt_uint(c, img, "image", "max_depth", 1, SR_MAX_DEPTH, 8, &s->max_depth));
    return SR_OK;
}

static sr_status parse_material(ctx *c, const cJSON *m, const char *jp, sr_material *out)
{
    TRY(need_object(c, m, jp));
    int kind = 0;
    TRY(read_type(c, m, jp, "material", material_types, &kind));
    char what[48];
    snprintf(what, sizeof what, "%s %s material", kind == SR_MAT_EMISSIVE ? "an" : "a", material_types[kind]);
    TRY(check_keys(c, m, jp, what, material_keys[kind]));
    memset(out, 0, sizeof *out);
    out->kind = (uint32_t)kind;
    out->ior = 1.0f;
    switch (kind) {
    case SR_MAT_DIFFUSE: {
        TRY(opt_vec3(c, m, jp, "albedo", V_COLOR, sr_v3s(0.8f), &out->color));
        const cJSON *ch = field(m, "checker");
        if (ch) {
            char cjp[JP];
            jp_key(cjp, sizeof cjp, jp, "checker");
            TRY(need_object(c, ch, cjp));
            TRY(check_keys(c, ch, cjp, "the checker", checker_keys));
            TRY(opt_vec3(c, ch, cjp, "color", V_COLOR, sr_v3s(0), &out->color2));
            TRY(opt_float(c, ch, cjp, "scale", R_POS, 1.0f, &out->checker_scale));
        }
        break;
    }
    case SR_MAT_MIRROR:
        TRY(opt_vec3(c, m, jp, "reflectance", V_COLOR, sr_v3s(1.0f), &out->color));
        break;
    case SR_MAT_METAL:
        TRY(opt_vec3(c, m, jp, "albedo", V_COLOR, sr_v3s(0.8f), &out->color));
        TRY(opt_float(c, m, jp, "roughness", R_UNIT, 0.0f, &out->roughness));
        break;
    case SR_MAT_GLASS:
        TRY(opt_float(c, m, jp, "ior", R_IOR, 1.5f, &out->ior));
        TRY(opt_vec3(c, m, jp, "tint", V_COLOR, sr_v3s(1.0f), &out->color));
        break;
    default: {
        TRY(opt_vec3(c, m, jp, "radiance", V_COLOR, sr_v3s(0), &out->color));
        TRY(opt_vec3(c, m, jp, "albedo", V_COLOR, sr_v3s(0), &out->color2));
        bool two = false;
        TRY(opt_bool(c, m, jp, "two_sided", false, &two));
        out->two_sided = two ? 1u : 0u;
        break;
    }
    }
    return SR_OK;
}

/* Material names sorted for lookup; equal names sort by document order. */
typedef struct name_ix { const char *name; uint32_t ix; } name_ix;

static int name_ix_cmp(const void *a, const void *b)
{
    const name_ix *x = a, *y = b;
    int d = strcmp(x->name, y->name);
    return d ? d : (x->ix > y->ix) - (x->ix < y->ix);
}

static sr_status parse_materials(ctx *c, const cJSON *mats, sr_scene *s, name_ix **sorted)
{
    TRY(need_object(c, mats, "materials"));
    int n = cJSON_GetArraySize(mats);
    if (n == 0) return SR_OK;
    s->materials = calloc((size_t)n, sizeof *s->materials);
    s->material_names = calloc((size_t)n, sizeof *s->material_names);
    *sorted = calloc((size_t)n, sizeof **sorted);
    if (!s->materials || !s->material_names || !*sorted) return oom(c);

    const cJSON *m = mats->child;
    for (uint32_t i = 0; m; m = m->next, i++) {
        const char *name = m->string ? m->string : "";
        char jp[JP];
        jp_key(jp, sizeof jp, "materials", name);
        if (!name[0]) return fail_key(c, m, jp, "material names must not be empty");
        s->material_names[i] = strdup(name);
        if (!s->material_names[i]) return oom(c);
        s->material_count = i + 1;
        (*sorted)[i].name = s->material_names[i];
        (*sorted)[i].ix = i;
    }
    /* Duplicates before contents, so that "floor" given twice is reported as such. */
    qsort(*sorted, (size_t)n, sizeof **sorted, name_ix_cmp);
    uint32_t dup = UINT32_MAX, first = 0;
    for (size_t i = 1, g = 0; i < (size_t)n; i++) {   /* g: start of the run of equal names */
        if (strcmp((*sorted)[i].name, (*sorted)[g].name) != 0) { g = i; continue; }
        if ((*sorted)[i].ix < dup) { dup = (*sorted)[i].ix; first = (*sorted)[g].ix; }
    }
    if (dup != UINT32_MAX) {
        const cJSON *a = cJSON_GetArrayItem(mats, (int)first), *b = cJSON_GetArrayItem(mats, (int)dup);
        char jp[JP], safe[64], where[48] = "earlier";
        jp_key(jp, sizeof jp, "materials", s->material_names[dup]);
        sanitize(safe, sizeof safe, s->material_names[dup]);
        size_t off = key_off(c, a);
        if (off != NO_POS) {
            unsigned long l, col;
            line_col(c, off, &l, &col);
            snprintf(where, sizeof where, "at %lu:%lu", l, col);
        }
        return fail_key(c, b, jp, "duplicate material name \"%s\" (first given %s); give each material a different name",
                        safe, where);
    }

    m = mats->child;
    for (uint32_t i = 0; m; m = m->next, i++) {
        char jp[JP];
        jp_key(jp, sizeof jp, "materials", s->material_names[i]);
        TRY(parse_material(c, m, jp, &s->materials[i]));
    }
    return SR_OK;
}

static sr_status lookup_material(ctx *c, const cJSON *obj, const char *jp, const sr_scene *s,
                                 const name_ix *sorted, uint32_t *out)
{
    const cJSON *m = field(obj, "material");
    char mjp[JP], got[96];
    jp_key(mjp, sizeof mjp, jp, "material");
    if (!cJSON_IsString(m)) {
        describe(c, m, got, sizeof got);
        return fail_val(c, m, mjp, "expected a string naming one of the materials, got %s", got);
    }
    if (sorted && s->material_count) {
        size_t lo = 0, hi = s->material_count;
        while (lo < hi) {   /* the first entry >= the name: the first in document order */
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(sorted[mid].name, m->valuestring) < 0) lo = mid + 1;
            else hi = mid;
        }
        if (lo < s->material_count && strcmp(sorted[lo].name, m->valuestring) == 0) {
            *out = sorted[lo].ix;
            return SR_OK;
        }
    }
    sanitize(got, 48, m->valuestring);
    if (!s->material_count)
        return fail_val(c, m, mjp, "unknown material \"%s\"; no materials are defined (add it to \"materials\")", got);
    char list[400], sug[96];
    size_t n = 0;
    list[0] = '\0';
    for (uint32_t i = 0; i < s->material_count; i++) {
        char safe[48];
        sanitize(safe, sizeof safe, s->material_names[i]);
        int w = snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", safe);
        if (w < 0 || (size_t)w >= sizeof list - n) {
            if (n + 5 < sizeof list) strcpy(list + n, ", ...");
            break;
        }
        n += (size_t)w;
    }
    suggest(sug, sizeof sug, m->valuestring, (const char *const *)s->material_names, s->material_count, false);
    return fail_val(c, m, mjp, "unknown material \"%s\"%s; defined materials: %s", got, sug, list);
}

typedef struct prim_buf { sr_prim **items; uint32_t *count; size_t cap; } prim_buf;

static bool push_prim(prim_buf *b, sr_prim p)
{
    if (*b->count == UINT32_MAX) return false;
    if (*b->count == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 16;
        sr_prim *grown = realloc(*b->items, cap * sizeof *grown);
        if (!grown) return false;
        *b->items = grown;
        b->cap = cap;
    }
    (*b->items)[(*b->count)++] = p;
    return true;
}

/* A mesh path relative to the scene file's folder; absolute paths are kept. */
static char *resolve_path(const char *scene_path, const char *file)
{
    const char *slash = strrchr(scene_path, '/');
    size_t dir = (file[0] == '/' || !slash) ? 0 : (size_t)(slash - scene_path) + 1;
    size_t n = strlen(file);
    char *out = malloc(dir + n + 1);
    if (!out) return NULL;
    memcpy(out, scene_path, dir);
    memcpy(out + dir, file, n + 1);
    return out;
}

static sr_status parse_mesh(ctx *c, const cJSON *o, const char *jp, uint32_t mat, prim_buf *prims)
{
    const cJSON *file = field(o, "file");
    char fjp[JP], got[96];
    jp_key(fjp, sizeof fjp, jp, "file");
    if (!cJSON_IsString(file)) {
        describe(c, file, got, sizeof got);
        return fail_val(c, file, fjp, "expected a string (a mesh file path, relative to the scene file), got %s", got);
    }
    if (!file->valuestring[0]) return fail_val(c, file, fjp, "must not be empty; expected a mesh file path");
    sr_mesh_transform xf;
    TRY(opt_vec3(c, o, jp, "translate", V_ANY, sr_v3s(0), &xf.translate));
    TRY(opt_float(c, o, jp, "scale", R_POS, 1.0f, &xf.scale));
    TRY(opt_vec3(c, o, jp, "rotate", V_ANY, sr_v3s(0), &xf.rotate_deg));

    char *resolved = resolve_path(c->path, file->valuestring);
    if (!resolved) return oom(c);
    sr_error merr;
    memset(&merr, 0, sizeof merr);
    sr_status st = sr_mesh_load(resolved, &xf, mat, prims->items, prims->count, &merr);
    free(resolved);
    prims->cap = *prims->count;   /* the mesh loader sized the array to fit                 */
    /* The message quotes the path (and assimp's words): no control bytes on the terminal. */
    char clean[sizeof merr.msg];
    sanitize(clean, sizeof clean, merr.msg);
    if (st == SR_ERR_INPUT) return fail_val(c, file, fjp, "%s", clean);
    if (st != SR_OK) return sr_fail(c->err, st, "%s: %s: %s", c->path, fjp, clean);
    return SR_OK;
}

static sr_status parse_objects(ctx *c, const cJSON *objs, sr_scene *s, const name_ix *sorted)
{
    TRY(need_array(c, objs, "objects"));
    if (!objs->child)
        return fail_val(c, objs, "objects", "must contain at least one object (sphere, plane, quad or mesh)");
    prim_buf prims = {&s->prims, &s->prim_count, 0};
    prim_buf planes = {&s->planes, &s->plane_count, 0};
    size_t i = 0;
    for (const cJSON *o = objs->child; o; o = o->next, i++) {
        char jp[JP];
        jp_index(jp, sizeof jp, "objects", i);
        TRY(need_object(c, o, jp));
        int kind = 0;
        TRY(read_type(c, o, jp, "object", object_types, &kind));
        char what[32];
        snprintf(what, sizeof what, "a %s", object_types[kind]);
        TRY(check_keys(c, o, jp, what, object_keys[kind]));
        uint32_t mat = 0;
        TRY(lookup_material(c, o, jp, s, sorted, &mat));

        sr_prim p;
        memset(&p, 0, sizeof p);
        p.material = mat;
        char kjp[JP];
        switch (kind) {
        case OBJ_SPHERE:
            p.kind = SR_PRIM_SPHERE;
            TRY(opt_vec3(c, o, jp, "center", V_ANY, sr_v3s(0), &p.a));
            TRY(opt_float(c, o, jp, "radius", R_POS, 1.0f, &p.b.x));
            if (!push_prim(&prims, p)) return oom(c);
            break;
        case OBJ_PLANE:
            p.kind = SR_PRIM_PLANE;
            TRY(opt_vec3(c, o, jp, "point", V_ANY, sr_v3s(0), &p.a));
            TRY(opt_vec3(c, o, jp, "normal", V_DIR, sr_v3(0, 1, 0), &p.b));
            unit_vector(p.b, &p.b);
            if (!push_prim(&planes, p)) return oom(c);
            break;
        case OBJ_QUAD: {
            p.kind = SR_PRIM_QUAD;
            TRY(opt_vec3(c, o, jp, "corner", V_ANY, sr_v3s(0), &p.a));
            TRY(opt_vec3(c, o, jp, "edge_u", V_DIR, sr_v3(1, 0, 0), &p.b));
            TRY(opt_vec3(c, o, jp, "edge_v", V_DIR, sr_v3(0, 1, 0), &p.c));
            sr_vec3 u = sr_v3s(0.0f), v = sr_v3s(0.0f);
            unit_vector(p.b, &u);
            unit_vector(p.c, &v);
            if (sr_length(sr_cross(u, v)) < 1e-6f) {
                jp_key(kjp, sizeof kjp, jp, "edge_v");
                return fail_val(c, field(o, "edge_v"), kjp,
                                "is parallel to edge_u, so the quad has no area; expected two edges that span a parallelogram");
            }
            if (!push_prim(&prims, p)) return oom(c);
            break;
        }
        default:
            TRY(parse_mesh(c, o, jp, mat, &prims));
            break;
        }
    }
    return SR_OK;
}

static sr_status parse_lights(ctx *c, const cJSON *ls, sr_scene *s)
{
    if (!ls) return SR_OK;
    TRY(need_array(c, ls, "lights"));
    int n = cJSON_GetArraySize(ls);
    if (n == 0) return SR_OK;
    s->lights = calloc((size_t)n, sizeof *s->lights);
    if (!s->lights) return oom(c);
    size_t i = 0;
    for (const cJSON *l = ls->child; l; l = l->next, i++) {
        char jp[JP];
        jp_index(jp, sizeof jp, "lights", i);
        TRY(need_object(c, l, jp));
        int kind = 0;
        TRY(read_type(c, l, jp, "light", light_types, &kind));
        char what[32];
        snprintf(what, sizeof what, "a %s light", light_types[kind]);
        TRY(check_keys(c, l, jp, what, light_keys[kind]));
        sr_light *out = &s->lights[i];
        sr_vec3 color;
        float intensity;
        out->kind = (uint32_t)kind;
        if (kind == SR_LIGHT_POINT) {
            TRY(opt_vec3(c, l, jp, "position", V_ANY, sr_v3s(0), &out->v));
        } else {
            TRY(opt_vec3(c, l, jp, "direction", V_DIR, sr_v3(0, -1, 0), &out->v));
            unit_vector(out->v, &out->v);
        }
        TRY(opt_vec3(c, l, jp, "color", V_COLOR, sr_v3s(1), &color));
        TRY(opt_float(c, l, jp, "intensity", R_NONNEG, 1.0f, &intensity));
        out->power = sr_scale(color, intensity);
        if (!isfinite(out->power.x) || !isfinite(out->power.y) || !isfinite(out->power.z)) {
            char ijp[JP];
            jp_key(ijp, sizeof ijp, jp, "intensity");
            return fail_val(c, field(l, "intensity") ? field(l, "intensity") : l, ijp,
                            "color x intensity is too large for a 32-bit float; expected a product below 3.4e38");
        }
        s->light_count = (uint32_t)i + 1;
    }
    return SR_OK;
}

/* "integrator": "whitted" (default) or "path". */
static sr_status parse_integrator(ctx *c, const cJSON *n, sr_scene *s)
{
    s->integrator = SR_INTEGRATOR_WHITTED;
    if (!n) return SR_OK;
    char list[64], got[96];
    join_keys(list, sizeof list, integrator_names, false);
    if (!cJSON_IsString(n)) {
        describe(c, n, got, sizeof got);
        return fail_val(c, n, "integrator", "expected a string, one of: %s; got %s", list, got);
    }
    for (uint32_t i = 0; integrator_names[i]; i++)
        if (strcmp(integrator_names[i], n->valuestring) == 0) { s->integrator = i; return SR_OK; }
    char sug[96];
    sanitize(got, 48, n->valuestring);
    suggest(sug, sizeof sug, n->valuestring, integrator_names, list_len(integrator_names), false);
    return fail_val(c, n, "integrator", "unknown integrator \"%s\"%s; expected one of: %s", got, sug, list);
}

/* "sky": {"zenith", "horizon", "ground"}: a gradient instead of the uniform "background". */
static sr_status parse_sky(ctx *c, const cJSON *root, sr_scene *s)
{
    const cJSON *sky = field(root, "sky");
    if (!sky) return SR_OK;
    const cJSON *bg = field(root, "background");
    if (bg) {   /* point at whichever of the two comes second */
        bool sky_later = key_off(c, sky) > key_off(c, bg);
        return fail_key(c, sky_later ? sky : bg, sky_later ? "sky" : "background",
                        "\"background\" and \"sky\" are both given; give one: \"background\" is a uniform colour, "
                        "\"sky\" a gradient by direction");
    }
    TRY(need_object(c, sky, "sky"));
    TRY(check_keys(c, sky, "sky", "the sky", sky_keys));
    TRY(opt_vec3(c, sky, "sky", "zenith", V_COLOR, sr_v3s(0), &s->sky_zenith));
    TRY(opt_vec3(c, sky, "sky", "horizon", V_COLOR, sr_v3s(0), &s->sky_horizon));
    TRY(opt_vec3(c, sky, "sky", "ground", V_COLOR, s->sky_horizon, &s->sky_ground));
    s->has_sky = 1;
    return SR_OK;
}

static sr_status parse_root(ctx *c, const cJSON *root, sr_scene *s)
{
    s->path = strdup(c->path);
    if (!s->path) return oom(c);
    if (!cJSON_IsObject(root)) {
        char got[96];
        describe(c, root, got, sizeof got);
        return fail_val(c, root, "",
                        "the top level must be an object ({ \"camera\": ..., \"materials\": ..., \"objects\": ... }), got %s", got);
    }
    TRY(check_keys(c, root, "", "a scene", top_keys));
    TRY(parse_camera(c, field(root, "camera"), &s->camera));
    TRY(parse_image(c, field(root, "image"), s));
    TRY(opt_vec3(c, root, "", "background", V_COLOR, sr_v3s(0), &s->background));
    TRY(parse_sky(c, root, s));
    TRY(parse_integrator(c, field(root, "integrator"), s));
    TRY(opt_vec3(c, root, "", "ambient", V_COLOR, sr_v3s(0), &s->ambient));
    name_ix *sorted = NULL;
    sr_status st = parse_materials(c, field(root, "materials"), s, &sorted);
    if (st == SR_OK) st = parse_objects(c, field(root, "objects"), s, sorted);
    free(sorted);
    TRY(st);
    return parse_lights(c, field(root, "lights"), s);
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
    sanitize(safe, sizeof safe, tok);
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
            sanitize(safe, sizeof safe, raw);
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

static sr_status fail_malformed(ctx *c, const char *cjson_end)
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
            return fail_at(c, j.pos, "", "malformed JSON: unexpected %s after the end of the top-level value", found);
        }
        /* The checker found nothing: cJSON ran out of memory or disagrees; use its place. */
        size_t at = cjson_end && cjson_end >= c->text && cjson_end <= c->text + c->len
                        ? (size_t)(cjson_end - c->text) : c->start;
        char found[64];
        jc_found(&j, at, found, sizeof found);
        return fail_at(c, at, "", "malformed JSON near %s", found);
    }
    return fail_at(c, j.at, "", "malformed JSON: %s", j.msg);
}

/* ---- entry points ------------------------------------------------------------------------ */

sr_status sr_scene_parse(const char *path, const char *text, size_t len, sr_scene *out, sr_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path) path = "<scene>";
    if (!out) return sr_fail(err, SR_ERR_RUNTIME, "%s: sr_scene_parse: no output", path);
    if (!text) len = 0;

    char *buf = malloc(len + 1);
    if (!buf) return sr_fail(err, SR_ERR_RUNTIME, "%s: out of memory while reading the scene", path);
    if (len) memcpy(buf, text, len);
    buf[len] = '\0';

    ctx c;
    memset(&c, 0, sizeof c);
    c.path = path;
    c.text = buf;
    c.len = len;
    c.err = err;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) c.start = 3;   /* cJSON skips a BOM too */

    sr_status st;
    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        st = fail_at(&c, (size_t)(nul - buf), "",
                     "malformed JSON: a NUL byte; expected text (is this a binary file?)");
        free(buf);
        return st;
    }
    if (skip_ws(buf, len, c.start) == len) {
        st = fail_at(&c, c.start, "",
                     "malformed JSON: the file is empty; expected an object with \"camera\", \"materials\" and \"objects\"");
        free(buf);
        return st;
    }

    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1);
    if (!root) {
        st = fail_malformed(&c, end);
        free(buf);
        return st;
    }
    size_t p = c.start;
    if (!pos_walk(&c, root, &p, NO_POS)) c.npos = 0;   /* no positions rather than wrong ones */

    sr_scene s;
    memset(&s, 0, sizeof s);
    st = parse_root(&c, root, &s);
    cJSON_Delete(root);
    free(c.pos);
    free(buf);
    if (st != SR_OK) {
        sr_scene_free(&s);
        return st;
    }
    *out = s;
    return SR_OK;
}

sr_status sr_scene_load(const char *path, sr_scene *out, sr_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path) return sr_fail(err, SR_ERR_INPUT, "no scene file given");
    FILE *f = fopen(path, "rb");
    if (!f) return sr_fail(err, SR_ERR_INPUT, "%s: cannot read scene file: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    if (!text) {
        fclose(f);
        return sr_fail(err, SR_ERR_RUNTIME, "%s: out of memory while reading the scene", path);
    }
    for (;;) {
        if (len == cap) {
            if (cap >= MAX_SCENE_BYTES) {
                free(text);
                fclose(f);
                return sr_fail(err, SR_ERR_INPUT, "%s: cannot read scene file: larger than %u MiB; a scene is a small JSON file",
                               path, MAX_SCENE_BYTES >> 20);
            }
            char *grown = realloc(text, cap * 2);
            if (!grown) {
                free(text);
                fclose(f);
                return sr_fail(err, SR_ERR_RUNTIME, "%s: out of memory while reading the scene", path);
            }
            text = grown;
            cap *= 2;
        }
        size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        int e = errno;
        free(text);
        fclose(f);
        /* A directory is the person's mistake; anything else is the machine's. */
        return sr_fail(err, e == EISDIR ? SR_ERR_INPUT : SR_ERR_RUNTIME, "%s: cannot read scene file: %s", path,
                       strerror(e));
    }
    fclose(f);
    sr_status st = sr_scene_parse(path, text, len, out, err);
    free(text);
    return st;
}

void sr_scene_free(sr_scene *scene)
{
    if (!scene) return;
    free(scene->path);
    free(scene->materials);
    if (scene->material_names)
        for (uint32_t i = 0; i < scene->material_count; i++) free(scene->material_names[i]);
    free(scene->material_names);
    free(scene->prims);
    free(scene->planes);
    free(scene->lights);
    memset(scene, 0, sizeof *scene);
}

sr_camera sr_camera_make(const sr_camera_desc *d, uint32_t width, uint32_t height)
{
    sr_camera cam;
    memset(&cam, 0, sizeof cam);
    float aspect = height ? (float)width / (float)height : 1.0f;
    float focus = d->focus_distance > 0.0f ? d->focus_distance : sr_length(sr_sub(d->look_at, d->position));
    float h = tanf(d->vfov_deg * SR_PI / 360.0f);
    float vh = 2.0f * h * focus, vw = aspect * vh;
    sr_vec3 w = sr_normalize(sr_sub(d->position, d->look_at));
    sr_vec3 u = sr_normalize(sr_cross(d->up, w));
    sr_vec3 v = sr_cross(w, u);
    cam.origin = d->position;
    cam.horizontal = sr_scale(u, vw);
    cam.vertical = sr_scale(v, vh);
    cam.lower_left = sr_sub(sr_sub(sr_sub(cam.origin, sr_scale(cam.horizontal, 0.5f)), sr_scale(cam.vertical, 0.5f)),
                            sr_scale(w, focus));
    cam.u = u;
    cam.v = v;
    cam.lens_radius = 0.5f * d->aperture;
    return cam;
}
