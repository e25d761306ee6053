#include "status.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

sr_status sr_fail(sr_error *err, sr_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

/* Copy user text for a message: control bytes become '?', long text is cut at a UTF-8
 * character boundary and marked with "...". */
void sr_sanitize(char *dst, size_t cap, const char *src)
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
