#include "status.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Back over UTF-8 continuation bytes, so that s[n] starts a character. */
static size_t utf8_start(const unsigned char *s, size_t n)
{
    while (n > 0 && (s[n] & 0xC0) == 0x80) n--;
    return n;
}

void sr_fit_middle(char *dst, size_t cap, const char *src)
{
    if (!cap) return;
    const unsigned char *s = (const unsigned char *)(src ? src : "");
    const size_t len = strlen((const char *)s);
    if (len < cap) {
        memmove(dst, s, len + 1);
        return;
    }
    if (cap < 8) {   /* no room for both ends */
        const size_t n = utf8_start(s, cap - 1);
        memmove(dst, s, n);
        dst[n] = '\0';
        return;
    }
    /* the first third (the file, the JSON path) and the rest from the end (the reason) */
    const size_t keep = cap - 4, head = utf8_start(s, keep / 3);
    size_t from = len - (keep - head);
    while (from < len && (s[from] & 0xC0) == 0x80) from++;
    memmove(dst, s, head);
    memcpy(dst + head, "...", 3);
    memmove(dst + head + 3, s + from, len - from + 1);
}

char *sr_vformat(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    const int n = vsnprintf(NULL, 0, fmt, again);
    va_end(again);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *sr_format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = sr_vformat(fmt, ap);
    va_end(ap);
    return s;
}

sr_status sr_fail(sr_error *err, sr_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        char *whole = sr_vformat(fmt, ap);
        va_end(ap);
        if (whole) {
            sr_fit_middle(err->msg, sizeof err->msg, whole);
            free(whole);
        } else {   /* out of memory: as much as fits */
            va_start(ap, fmt);
            vsnprintf(err->msg, sizeof err->msg, fmt, ap);
            va_end(ap);
        }
        err->status = status;
    }
    return status;
}

/* Copy user text for a message: control bytes become '?', long text loses its middle at
 * UTF-8 character boundaries, marked with "...". */
void sr_sanitize(char *dst, size_t cap, const char *src)
{
    if (!cap) return;
    sr_fit_middle(dst, cap, src);
    for (unsigned char *p = (unsigned char *)dst; *p; p++)
        if (*p < 32 || *p == 127) *p = '?';
}

void sr_list_append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 3 >= cap) return;
    if (n) { buf[n++] = ','; buf[n++] = ' '; buf[n] = '\0'; }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}
