/* utf8.c: UTF-8 character lengths (utf8.h). */
#include "utf8.h"

#include <string.h>

size_t sr_utf8_char_len(const unsigned char *s, size_t left)
{
    if (!left) return 0;
    const unsigned char b = s[0];
    if (b < 0x80) return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;   /* the second byte's range */
    if (b >= 0xC2 && b <= 0xDF) n = 1;
    else if (b == 0xE0) { n = 2; lo = 0xA0; }
    else if (b == 0xED) { n = 2; hi = 0x9F; }
    else if (b >= 0xE1 && b <= 0xEF) n = 2;
    else if (b == 0xF0) { n = 3; lo = 0x90; }
    else if (b == 0xF4) { n = 3; hi = 0x8F; }
    else if (b >= 0xF1 && b <= 0xF3) n = 3;
    else return 0;
    if (n >= left) return 0;   /* truncated at the end */
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t k = 2; k <= n; k++)
        if ((s[k] & 0xC0) != 0x80) return 0;
    return n + 1;
}

size_t sr_utf8_repair(const char *bytes, char *out, size_t cap)
{
    const size_t len = strlen(bytes);
    size_t need = 0, put = 0;
    for (size_t i = 0; i < len;) {
        const size_t n = sr_utf8_char_len((const unsigned char *)bytes + i, len - i);
        const char *from = n ? bytes + i : "\xEF\xBF\xBD";   /* U+FFFD REPLACEMENT CHARACTER */
        const size_t w = n ? n : 3;
        if (put == need && need + w < cap) {
            memcpy(out + put, from, w);
            put += w;
        }
        need += w;
        i += n ? n : 1;
    }
    if (cap) out[put] = '\0';
    return need;
}
