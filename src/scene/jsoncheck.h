/* jsoncheck.h: inside the JSON reader (jsondoc.c, jsoncheck.c): the character classes of
 * cJSON's grammar, and the diagnosis of malformed text. */
#ifndef SR_JSONCHECK_H
#define SR_JSONCHECK_H

#include <stdbool.h>
#include <stddef.h>

static inline bool is_ws(char ch) { return (unsigned char)ch <= 32; }   /* cJSON skips every byte <= 32 */
static inline bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }
static inline bool is_num_char(char ch)   /* what cJSON hands to strtod */
{
    return is_digit(ch) || ch == '+' || ch == '-' || ch == 'e' || ch == 'E' || ch == '.';
}
static inline bool is_word_char(char ch)
{
    return is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static inline size_t skip_ws(const char *t, size_t len, size_t i)
{
    while (i < len && is_ws(t[i])) i++;
    return i;
}

/* text (len bytes, valid from `start`, past a byte order mark) failed to parse; cjson_at is
 * where cJSON stopped ((size_t)-1: not known). Writes "malformed JSON: what was expected,
 * what was found (hint)" to msg and returns the byte offset it is about. */
size_t sr_json_diagnose(const char *text, size_t len, size_t start, size_t cjson_at, char *msg, size_t cap);

#endif
