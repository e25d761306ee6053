/* sequence.c: frame ranges and output patterns (sequence.h). */
#define _XOPEN_SOURCE 700   /* realpath */
#include "sequence.h"

#include <errno.h>
#include <limits.h>
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

/* The file's first line: what it is, and that a person may read it. */
static const char sr_settings_head[] = "# stencilray render --frames: the settings of the frames beside this file\n";

int sr_sequence_settings_path(const char *pattern, char *buf, size_t cap)
{
    const int n = snprintf(buf, cap, "%s.settings", pattern);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

int sr_sequence_settings_text(const sr_sequence_settings *s, char *buf, size_t cap)
{
    char scene[PATH_MAX];   /* the same file, named from any folder */
    if (!realpath(s->scene, scene)) snprintf(scene, sizeof scene, "%s", s->scene);
    int n = snprintf(buf, cap, "%sscene %s\nwidth %u\nheight %u\nspp %u\ndepth %u\nintegrator %s\nseed %u\n"
                     "camera-index %u\nexposure %.9g\n", sr_settings_head, scene, s->width, s->height, s->spp,
                     s->depth, s->integrator, s->seed, s->camera_index, (double)s->exposure);
    if (n >= 0 && (size_t)n < cap && s->tonemap) n += snprintf(buf + n, cap - (size_t)n, "tonemap %s\n", s->tonemap);
    if (n >= 0 && (size_t)n < cap && s->exr_type) n += snprintf(buf + n, cap - (size_t)n, "exr-type %s\n", s->exr_type);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* The value of `key` in settings text (up to its line's end), or NULL; *len its length. */
static const char *sr_settings_value(const char *text, const char *key, size_t *len)
{
    const size_t k = strlen(key);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (!strncmp(line, key, k) && line[k] == ' ') {
            const char *v = line + k + 1;
            *len = strcspn(v, "\n");
            return v;
        }
    return NULL;
}

/* "--width 64" for an option's setting, "the scene X" for the scene, "no exposure" when absent. */
static void sr_settings_say(char *buf, size_t cap, const char *key, const char *value, size_t len)
{
    const int option = strcmp(key, "scene") != 0;
    if (!value) snprintf(buf, cap, "no %s%s", option ? "--" : "", key);
    else snprintf(buf, cap, "%s%s %.*s", option ? "--" : "the ", key, (int)len, value);
}

int sr_sequence_settings_differ(const char *path, const char *text, char *msg, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT) return -1;
        snprintf(msg, cap, "their settings file %s cannot be read (%s)", path, strerror(errno));
        return 1;
    }
    char had[8192];
    const size_t got = fread(had, 1, sizeof had - 1, f);
    fclose(f);
    had[got] = '\0';
    if (strncmp(had, sr_settings_head, sizeof sr_settings_head - 1)) {
        snprintf(msg, cap, "%s is not a settings file stencilray wrote", path);
        return 1;
    }
    /* every key of either text, in the order text has them, then any only the file has */
    for (int pass = 0; pass < 2; pass++) {
        const char *keys = pass ? had : text;
        for (const char *line = keys + sizeof sr_settings_head - 1; *line;) {
            const size_t k = strcspn(line, " \n");
            char key[32];
            snprintf(key, sizeof key, "%.*s", (int)(k < sizeof key ? k : sizeof key - 1), line);
            size_t was_len = 0, now_len = 0;
            const char *was = sr_settings_value(had, key, &was_len), *now = sr_settings_value(text, key, &now_len);
            if (!was || !now || was_len != now_len || memcmp(was, now, was_len)) {
                char a[PATH_MAX / 2], b[PATH_MAX / 2];
                sr_settings_say(a, sizeof a, key, was, was_len);
                sr_settings_say(b, sizeof b, key, now, now_len);
                snprintf(msg, cap, "%s, and this run has %s", a, b);
                return 1;
            }
            line += strcspn(line, "\n");
            if (*line) line++;
        }
    }
    return 0;
}
