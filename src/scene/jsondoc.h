/* jsondoc.h: a JSON file read strictly (cJSON's grammar, no comments, no trailing commas),
 * with the line and column of every key and value, so that every message can say
 * "path:line:column: json.path: what is wrong; expected ...". The readers below check one
 * value each and fail with such a message; scene.c is built on them.
 *
 * Key lists are NULL-terminated arrays of names; a leading '*' marks a required key. JSON
 * paths ("objects[2].center") are built with sr_json_path_key and sr_json_path_index. */
#ifndef SR_JSONDOC_H
#define SR_JSONDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../base/status.h"
#include "../../kernels/core/vmath.h"

#define SR_JSON_PATH_MAX 256          /* room for a JSON path like objects[12].center[1]   */
#define SR_JSON_NO_POS ((size_t)-1)   /* an offset that is not known                       */

typedef struct sr_json_doc {
    const char *path;           /* as given, for messages                                  */
    char *text;                 /* NUL-terminated copy of the text                         */
    size_t len;
    size_t start;               /* 3 after a UTF-8 byte order mark, else 0                 */
    struct sr_json_pos *pos;    /* where each node's key and value start                   */
    size_t npos, cap;
    sr_error *err;              /* where failures are written                              */
    cJSON *root;                /* the parsed tree                                         */
} sr_json_doc;

/* Parse `text` (len bytes; `path` names it in messages). On malformed JSON: SR_ERR_INPUT,
 * err says where and what was expected there; `expected` says what an empty file should
 * have held ("an object with ..."). On success free it with sr_json_close. */
sr_status sr_json_open(sr_json_doc *doc, const char *path, const char *text, size_t len, const char *expected,
                       sr_error *err);
void sr_json_close(sr_json_doc *doc);

/* Read a whole file of at most max_bytes into *text (malloc'd; the caller frees it). `what`
 * names it in messages ("scene": "cannot read scene file: ..."). */
sr_status sr_json_read_file(const char *path, const char *what, size_t max_bytes, char **text, size_t *len,
                            sr_error *err);

/* ---- failing, with the position ---------------------------------------------------------- */

/* At byte offset `off` (SR_JSON_NO_POS: no line:column), `jp` the JSON path ("" for none). */
sr_status sr_json_fail_at(sr_json_doc *doc, size_t off, const char *jp, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* At node's value. */
sr_status sr_json_fail_val(sr_json_doc *doc, const cJSON *node, const char *jp, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* At node's key (its value when it has none). */
sr_status sr_json_fail_key(sr_json_doc *doc, const cJSON *node, const char *jp, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
sr_status sr_json_oom(sr_json_doc *doc);

size_t sr_json_key_off(const sr_json_doc *doc, const cJSON *node);
/* "at LINE:COL" of node's key, or "earlier" when not known. */
void sr_json_where(const sr_json_doc *doc, const cJSON *node, char *buf, size_t cap);
/* A number value as the file writes it (cut with "..." past cap). */
void sr_json_number_text(const sr_json_doc *doc, const cJSON *n, char *buf, size_t cap);

/* ---- paths and text for messages ---------------------------------------------------------- */

void sr_json_path_key(char *dst, size_t cap, const char *parent, const char *key);
void sr_json_path_index(char *dst, size_t cap, const char *parent, size_t i);
/* What a value is, in words: "a number (1e999)", "an array of 2 elements", "nothing". */
void sr_json_describe(const sr_json_doc *doc, const cJSON *n, char *buf, size_t cap);
/* "a, b, c" from a key list (required_only: the '*' ones). */
void sr_json_join_keys(char *buf, size_t cap, const char *const *keys, bool required_only);
/* " (did you mean "x"?)" for the closest of names within 2 edits, else "". `starred`: the
 * names are a key list with '*' marks. */
void sr_json_suggest(char *buf, size_t cap, const char *given, const char *const *names, size_t n, bool starred);
size_t sr_json_list_len(const char *const *keys);

/* ---- readers ------------------------------------------------------------------------------- */

enum { SR_JSON_BOUND_NONE = 0, SR_JSON_BOUND_INCL, SR_JSON_BOUND_EXCL };
typedef struct sr_json_range { double lo, hi; int lo_kind, hi_kind; } sr_json_range;

/* Vector kinds: any, a colour (no negative part), a direction (not zero-length). */
enum { SR_JSON_VEC_ANY = 0, SR_JSON_VEC_COLOR, SR_JSON_VEC_DIR };

/* Unknown keys (with a suggestion), duplicate keys and missing required keys of one object;
 * `what` names it in prose ("the camera", "a sphere"). */
sr_status sr_json_check_keys(sr_json_doc *doc, const cJSON *obj, const char *jp, const char *what,
                             const char *const *keys);
const cJSON *sr_json_field(const cJSON *obj, const char *key);
/* obj[key] into *out, or def when the key is absent. */
sr_status sr_json_opt_vec3(sr_json_doc *doc, const cJSON *obj, const char *jp, const char *key, int kind, sr_vec3 def,
                           sr_vec3 *out);
sr_status sr_json_opt_float(sr_json_doc *doc, const cJSON *obj, const char *jp, const char *key, sr_json_range r,
                            float def, float *out);
sr_status sr_json_opt_uint(sr_json_doc *doc, const cJSON *obj, const char *jp, const char *key, uint32_t lo,
                           uint32_t hi, uint32_t def, uint32_t *out);
sr_status sr_json_opt_bool(sr_json_doc *doc, const cJSON *obj, const char *jp, const char *key, bool def, bool *out);
sr_status sr_json_need_object(sr_json_doc *doc, const cJSON *n, const char *jp);
sr_status sr_json_need_array(sr_json_doc *doc, const cJSON *n, const char *jp);
/* A string that must be one of names (NULL-terminated), as an index; `what` names it in
 * messages ("integrator": unknown integrator "x" (did you mean ...); expected one of: ...). */
sr_status sr_json_read_name(sr_json_doc *doc, const cJSON *n, const char *jp, const char *what,
                            const char *const *names, int *out);
/* The object's "type", one of names (NULL-terminated), as an index; `what` is "object",
 * "material"... */
sr_status sr_json_read_type(sr_json_doc *doc, const cJSON *obj, const char *jp, const char *what,
                            const char *const *names, int *out);

/* Normalize in double: a tiny but non-zero float vector still gives a unit vector. False for
 * a zero-length or non-finite one. out may be NULL. */
bool sr_json_unit_vector(sr_vec3 v, sr_vec3 *out);

#endif
