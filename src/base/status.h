/* status.h: how every host function reports failure: a status the CLI maps to the exit code
 * and a message written for the person (what failed, on which input, what to do). */
#ifndef SR_STATUS_H
#define SR_STATUS_H

#include <stdarg.h>
#include <stddef.h>

typedef enum sr_status {
    SR_OK = 0,
    SR_ERR_RUNTIME = 1, /* the machine failed us: CUDA error, I/O error, out of memory  */
    SR_ERR_INPUT = 2,   /* the person's input is wrong: bad scene, bad option           */
    SR_INTERRUPTED = 130 /* stopped by Ctrl-C or SIGTERM (interrupt.h); 128 + SIGINT      */
} sr_status;

typedef struct sr_error {
    sr_status status;
    char msg[1024];
} sr_error;

/* Record a failure in err (may be NULL) and return its status, so callers can write
 * `return sr_fail(err, SR_ERR_INPUT, "%s: ...", path);`. A message longer than err->msg
 * loses its middle (sr_fit_middle), never its end: a long path must not push the reason out. */
sr_status sr_fail(sr_error *err, sr_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Copy user text (a file's words, a library's message) for a message: control bytes become
 * '?', so nothing from an input moves the terminal; long text loses its middle at UTF-8
 * character boundaries, marked with "...". */
void sr_sanitize(char *dst, size_t cap, const char *src);

/* Copy src to dst (cap bytes); text that does not fit keeps its first third and its end,
 * joined by "...", cut at UTF-8 character boundaries (a path's end and the reason after
 * it survive). dst may be src. */
void sr_fit_middle(char *dst, size_t cap, const char *src);

/* A formatted string on the heap (free it), sized to fit; NULL when out of memory. */
char *sr_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Append ", " (unless buf is empty) and the formatted item to buf (cap bytes), for one-line
 * lists such as notices; an item that does not fit is cut. */
void sr_list_append(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
char *sr_vformat(const char *fmt, va_list ap);

/* Return the status of x from the calling function unless it is SR_OK. */
#define SR_TRY(x) do { sr_status st_ = (x); if (st_ != SR_OK) return st_; } while (0)

#endif
