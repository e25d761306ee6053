/* textout.h: text results (CSV, JSON, plot data) written whole or not at all, like images
 * (outfile.h): a failure never leaves a half-written file at the destination. */
#ifndef SR_TEXTOUT_H
#define SR_TEXTOUT_H

#include <stdio.h>
#include "status.h"
#include "outfile.h"

typedef struct sr_textout {
    FILE *f;           /* where to write: the temporary, or standard output for "-" */
    sr_outfile out;    /* the temporary (unused for "-") */
    const char *path;
} sr_textout;

/* Open a temporary file next to `path` ("-": standard output, written directly);
 * SR_ERR_RUNTIME with a message if it cannot. */
sr_status sr_textout_open(sr_textout *t, const char *path, sr_error *err);
/* Close and rename over `path`; on any write error remove the temporary and fail. */
sr_status sr_textout_commit(sr_textout *t, sr_error *err);

/* Print a cJSON tree to `path` the same way. Takes the tree: it is deleted here. */
struct cJSON;
sr_status sr_textout_json(const char *path, struct cJSON *root, sr_error *err);

#endif
