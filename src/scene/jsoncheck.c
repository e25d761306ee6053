/* jsoncheck.c: why a JSON text is malformed, for the message. cJSON only says where it gave
 * up; this checker follows cJSON 1.7's grammar and says what it expected there (and hints
 * at the usual causes: comments, single quotes, unquoted keys, trailing commas). */
#include "jsoncheck.h"
#include "../base/status.h"   /* sr_sanitize */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_DEPTH_LIMIT 1000           /* CJSON_NESTING_LIMIT                             */

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
    sr_sanitize(safe, sizeof safe, tok);
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
            sr_sanitize(safe, sizeof safe, raw);
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

size_t sr_json_diagnose(const char *text, size_t len, size_t start, size_t cjson_at, char *msg, size_t cap)
{
    jcheck j;
    memset(&j, 0, sizeof j);
    j.t = text;
    j.len = len;
    j.pos = start;
    if (!jc_value(&j, 0)) {
        snprintf(msg, cap, "malformed JSON: %s", j.msg);
        return j.at;
    }
    char found[64];
    j.pos = skip_ws(j.t, j.len, j.pos);
    if (j.pos < j.len) {
        jc_found(&j, j.pos, found, sizeof found);
        snprintf(msg, cap, "malformed JSON: unexpected %s after the end of the top-level value", found);
        return j.pos;
    }
    /* The checker found nothing: cJSON ran out of memory or disagrees; use its place. */
    const size_t at = cjson_at != (size_t)-1 ? cjson_at : start;
    jc_found(&j, at, found, sizeof found);
    snprintf(msg, cap, "malformed JSON near %s", found);
    return at;
}
