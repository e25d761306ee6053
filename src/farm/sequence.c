/* sequence.c: frame ranges and output patterns (sequence.h). */
#include "sequence.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sr_frame_number(const char *s, const char **end, uint32_t *out)
{
    if (*s < '0' || *s > '9') return -1;
    char *stop;
    errno = 0;
    const unsigned long v = strtoul(s, &stop, 10);
    if (errno || v > SR_FRAMES_MAX) return -1;
    *end = stop;
    *out = (uint32_t)v;
    return 0;
}

int sr_frames_parse(const char *text, uint32_t *first, uint32_t *last, char *msg, size_t cap)
{
    const char *p;
    if (sr_frame_number(text, &p, first) == 0) {
        if (*p == '\0') { *last = *first; return 0; }
        if (*p == '-' && sr_frame_number(p + 1, &p, last) == 0 && *p == '\0') {
            if (*last >= *first) return 0;
            snprintf(msg, cap, "'%s': the range ends before it starts; expected A-B with A <= B", text);
            return -1;
        }
    }
    snprintf(msg, cap, "'%s': expected a frame range A-B or one frame A (whole numbers from 0 to %u), e.g. 0-15",
             text, SR_FRAMES_MAX);
    return -1;
}

/* Where the %0Nd is, and N: 0, or -1 with a message. */
static int sr_pattern_split(const char *pattern, size_t *at, size_t *len, int *width, char *msg, size_t cap)
{
    int found = 0;
    for (size_t i = 0; pattern[i]; i++) {
        if (pattern[i] != '%') continue;
        const char *q = pattern + i;
        if (q[1] == '0' && q[2] >= '1' && q[2] <= '9' && q[3] == 'd' && !found) {
            found = 1;
            *at = i;
            *len = 4;
            *width = q[2] - '0';
            i += 3;
            continue;
        }
        if (msg)
            snprintf(msg, cap, "-o %s: %s at character %zu; expected exactly one %%0Nd (N from 1 to 9, e.g. "
                     "out_%%04d.png) and no other %%", pattern,
                     found && q[1] == '0' && q[2] >= '1' && q[2] <= '9' && q[3] == 'd' ? "a second %0Nd"
                                                                                      : "a % that is not %0Nd",
                     i + 1);
        return -1;
    }
    if (!found) {
        if (msg)
            snprintf(msg, cap, "-o %s: --frames needs a name with one %%0Nd where the frame number goes (N from 1 to "
                     "9 digits), e.g. out_%%04d.png", pattern);
        return -1;
    }
    return 0;
}

int sr_frame_pattern_check(const char *pattern, char *msg, size_t cap)
{
    size_t at, len;
    int width;
    return sr_pattern_split(pattern, &at, &len, &width, msg, cap);
}

int sr_frame_pattern_name(const char *pattern, uint32_t frame, char *buf, size_t cap)
{
    size_t at, len;
    int width;
    if (sr_pattern_split(pattern, &at, &len, &width, NULL, 0)) return -1;
    const int n = snprintf(buf, cap, "%.*s%0*u%s", (int)at, pattern, width, frame, pattern + at + len);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}
