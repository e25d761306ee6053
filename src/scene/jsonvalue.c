/* jsonvalue.c: reading a scene's values out of a jsondoc (jsondoc.h): JSON paths, what a value
 * is when it is the wrong thing, unknown keys with the nearest known one, and typed fields with
 * their ranges, each failure at path:line:column. */
#include "jsondoc.h"
#include "jsoncheck.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- JSON paths and descriptions --------------------------------------------------------- */

void sr_json_path_key(char *dst, size_t cap, const char *parent, const char *key)
{
    bool ident = key[0] != '\0';
    for (const char *k = key; *k; k++)
        if (!is_word_char(*k) && *k != '-') ident = false;
    char safe[96];
    sr_sanitize(safe, sizeof safe, key);
    int w = ident ? snprintf(dst, cap, "%s%s%s", parent, *parent ? "." : "", safe)
                  : snprintf(dst, cap, "%s[\"%s\"]", parent, safe);
    if (w < 0 && cap) dst[0] = '\0';   /* a long path is cut, which is fine for a message */
}

void sr_json_path_index(char *dst, size_t cap, const char *parent, size_t i)
{
    if (snprintf(dst, cap, "%s[%zu]", parent, i) < 0 && cap) dst[0] = '\0';
}

/* The number as it was written (so 1e999 stays 1e999). */
void sr_json_describe(const sr_json_doc *c, const cJSON *n, char *buf, size_t cap)
{
    char tok[64];
    if (!n) { snprintf(buf, cap, "nothing"); return; }
    switch (n->type & 0xFF) {
    case cJSON_Number: sr_json_number_text(c, n, tok, sizeof tok); snprintf(buf, cap, "a number (%s)", tok); break;
    case cJSON_String: sr_sanitize(tok, 40, n->valuestring); snprintf(buf, cap, "a string (\"%s\")", tok); break;
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
        sr_sanitize(safe, sizeof safe, pick);
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
        sr_sanitize(safe, sizeof safe, name);
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
        sr_json_number_text(c, n, got, sizeof got);
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
        sr_json_number_text(c, n, got, sizeof got);
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
        sr_json_number_text(c, n, got, sizeof got);
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
            sr_json_number_text(c, e, got, sizeof got);
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
    const cJSON *t = sr_json_field(obj, "type");
    if (!t) {
        char list[200];
        sr_json_join_keys(list, sizeof list, names, false);
        return sr_json_fail_val(c, obj, jp, "missing required key \"type\"; every %s needs a \"type\", one of: %s", what, list);
    }
    char tjp[SR_JSON_PATH_MAX], twhat[64];
    sr_json_path_key(tjp, sizeof tjp, jp, "type");
    snprintf(twhat, sizeof twhat, "%s type", what);
    return sr_json_read_name(c, t, tjp, twhat, names, out);
}

sr_status sr_json_read_name(sr_json_doc *c, const cJSON *n, const char *jp, const char *what,
                            const char *const *names, int *out)
{
    char list[200], got[96];
    sr_json_join_keys(list, sizeof list, names, false);
    if (!cJSON_IsString(n)) {
        sr_json_describe(c, n, got, sizeof got);
        return sr_json_fail_val(c, n, jp, "expected a string, one of: %s; got %s", list, got);
    }
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], n->valuestring) == 0) { *out = i; return SR_OK; }
    char sug[96];
    sr_sanitize(got, 48, n->valuestring);
    sr_json_suggest(sug, sizeof sug, n->valuestring, names, sr_json_list_len(names), false);
    return sr_json_fail_val(c, n, jp, "unknown %s \"%s\"%s; expected one of: %s", what, got, sug, list);
}
