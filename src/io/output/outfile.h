/* outfile.h: files written whole or not at all. The content goes to a temporary made by
 * mkstemp beside the destination (the same folder, so the rename is atomic; created
 * exclusively, so nothing planted under a guessed name is followed), with the mode a plain
 * fopen() would give, is flushed to the disk, and only then renamed over the destination.
 * Images (image.c) and text results (textout.c) are written this way. */
#ifndef SR_OUTFILE_H
#define SR_OUTFILE_H

#include "../../base/status.h"

typedef struct sr_outfile {
    int fd;             /* the temporary, open for writing */
    char *tmp;          /* its name, "<path>.tmp-<pid>-XXXXXX" */
    const char *path;   /* the destination */
} sr_outfile;

/* Create the temporary. SR_ERR_RUNTIME naming `path` if it cannot be made. */
sr_status sr_outfile_open(sr_outfile *o, const char *path, sr_error *err);

/* Flush to the disk, close, and rename over the destination; on any failure, or when stop()
 * (may be NULL) says so (SR_INTERRUPTED), the temporary is removed and the destination left
 * as it was. A signal that interrupts the flush is retried unless stop() says so. */
sr_status sr_outfile_commit(sr_outfile *o, int (*stop)(void), sr_error *err);

/* Give up: close and remove the temporary (after the content could not be written). */
void sr_outfile_abandon(sr_outfile *o);

#endif
