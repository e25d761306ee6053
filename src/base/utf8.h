/* utf8.h: where well-formed UTF-8 characters start and end, for the scene reader (which refuses
 * text that is not UTF-8) and the JSON results (which replace what is not). */
#ifndef SR_UTF8_H
#define SR_UTF8_H

#include <stddef.h>

/* The length (1 to 4) of the well-formed UTF-8 character at s (RFC 3629: no overlong forms,
 * no surrogates, nothing past U+10FFFF; `left` bytes readable), or 0 where none starts.
 * Written here: a scan this small is not worth a library, and cJSON passes any bytes through. */
size_t sr_utf8_char_len(const unsigned char *s, size_t left);

/* bytes (NUL-terminated) as valid UTF-8 into out (cap bytes, NUL-terminated, cut at a
 * character's end when short): each byte that does not begin a well-formed character becomes
 * U+FFFD, the rest is kept. Returns the length the whole text needs (at most 3 x the bytes'). */
size_t sr_utf8_repair(const char *bytes, char *out, size_t cap);

#endif
