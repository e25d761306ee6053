/* outfile.c: files written whole or not at all (outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The mode a plain fopen() would have given: 0666 less the umask (mkstemp makes 0600). */
static mode_t sr_default_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

sr_status sr_outfile_open(sr_outfile *o, const char *path, sr_error *err)
{
    o->fd = -1;
    o->path = path;
    const size_t cap = strlen(path) + 48;
    o->tmp = (char *)malloc(cap);
    if (!o->tmp) return sr_fail(err, SR_ERR_RUNTIME, "%s: out of memory", path);
    snprintf(o->tmp, cap, "%s.tmp-%ld-XXXXXX", path, (long)getpid());
    o->fd = mkstemp(o->tmp);
    if (o->fd < 0) {
        const sr_status st =
            sr_fail(err, SR_ERR_RUNTIME, "%s: cannot create a temporary file next to it: %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return st;   /* nothing was created */
    }
    if (fchmod(o->fd, sr_default_file_mode()) != 0) {
        const sr_status st =
            sr_fail(err, SR_ERR_RUNTIME, "%s: cannot set permissions on %s: %s", path, o->tmp, strerror(errno));
        sr_outfile_abandon(o);
        return st;
    }
    return SR_OK;
}

void sr_outfile_abandon(sr_outfile *o)
{
    if (o->fd >= 0) close(o->fd);
    o->fd = -1;
    if (o->tmp) unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
}

sr_status sr_outfile_commit(sr_outfile *o, int (*stop)(void), sr_error *err)
{
    int werr = 0;
    while (fsync(o->fd) != 0)
        if (errno != EINTR || (stop && stop())) { werr = errno; break; }
    if (close(o->fd) != 0 && !werr && errno != EINTR) werr = errno;   /* EINTR: closed all the same (Linux) */
    o->fd = -1;
    sr_status st = SR_OK;
    if (werr == EINTR) st = SR_INTERRUPTED;   /* Ctrl-C or SIGTERM while the flush waited */
    else if (werr) st = sr_fail(err, SR_ERR_RUNTIME, "%s: write failed: %s", o->path, strerror(werr));
    else if (stop && stop()) st = SR_INTERRUPTED;   /* asked to stop while writing */
    else if (rename(o->tmp, o->path) != 0)
        st = sr_fail(err, SR_ERR_RUNTIME, "%s: cannot replace it with the new file: %s", o->path, strerror(errno));
    if (st) unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return st;
}
