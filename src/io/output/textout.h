/* textout.h: text results (CSV, JSON, plot data) written whole or not at all, like images
 * (outfile.h): a failure never leaves a half-written file at the destination. */
#ifndef SR_TEXTOUT_H
#define SR_TEXTOUT_H

#include <stdio.h>
#include "../../base/status.h"
#include "outfile.h"

struct cJSON;

typedef struct sr_textout {
    FILE *f;           /* where to write: the temporary, or standard output for "-" */
    sr_outfile out;    /* the temporary (unused for "-") */
    const char *path;
    int werr;          /* errno of a write that failed before the commit, or 0 */
} sr_textout;

/* Open a temporary file next to `path` ("-": standard output, written directly);
 * SR_ERR_RUNTIME with a message if it cannot. */
sr_status sr_textout_open(sr_textout *t, const char *path, sr_error *err);
/* Close and rename over `path`; on any write error remove the temporary and fail. For
 * standard output: flush, and on failure say why (SR_INTERRUPTED for EINTR) and clear its
 * error flag, so that the failure is reported once, by the caller. */
sr_status sr_textout_commit(sr_textout *t, sr_error *err);

/* Add `bytes` (a file name: any bytes but NUL) to `obj` as a JSON string that is valid UTF-8:
 * each byte that does not begin a well-formed UTF-8 character becomes U+FFFD, the rest is
 * kept (cJSON copies bytes as they are, which gave text no JSON reader accepts). NULL when
 * out of memory. */
struct cJSON *sr_json_add_bytes(struct cJSON *obj, const char *key, const char *bytes);

/* Print a cJSON tree to `path` the same way. Takes the tree: it is deleted here. */
sr_status sr_textout_json(const char *path, struct cJSON *root, sr_error *err);

#endif
