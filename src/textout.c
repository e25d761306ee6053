#include "textout.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

sr_status sr_textout_open(sr_textout *t, const char *path, sr_error *err)
{
    t->path = path;
    snprintf(t->tmp, sizeof t->tmp, "%s.tmp-%ld", path, (long)getpid());
    t->f = fopen(t->tmp, "w");
    if (!t->f) return sr_fail(err, SR_ERR_RUNTIME, "cannot create %s: %s", path, strerror(errno));
    return SR_OK;
}

sr_status sr_textout_commit(sr_textout *t, sr_error *err)
{
    int bad = ferror(t->f);
    bad |= fclose(t->f) != 0;
    t->f = NULL;
    if (bad || rename(t->tmp, t->path) != 0) {
        int e = errno;
        remove(t->tmp);
        return sr_fail(err, SR_ERR_RUNTIME, "cannot write %s: %s", t->path, strerror(e));
    }
    return SR_OK;
}
