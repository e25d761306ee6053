/* textout.c: text results written whole or not at all (textout.h, outfile.h). */
#include "textout.h"

#include <cJSON.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

sr_status sr_textout_open(sr_textout *t, const char *path, sr_error *err)
{
    t->path = path;
    t->out.fd = -1;
    t->out.tmp = NULL;
    if (!strcmp(path, "-")) {   /* standard output: nothing to rename */
        t->f = stdout;
        return SR_OK;
    }
    SR_TRY(sr_outfile_open(&t->out, path, err));
    /* stdio writes through a duplicate, so that fclose() leaves the temporary's own descriptor
     * for the flush to the disk and the rename. */
    const int dup_fd = dup(t->out.fd);
    t->f = dup_fd >= 0 ? fdopen(dup_fd, "w") : NULL;
    if (!t->f) {
        const int e = errno;
        if (dup_fd >= 0) close(dup_fd);
        sr_outfile_abandon(&t->out);
        return sr_fail(err, SR_ERR_RUNTIME, "cannot create %s: %s", path, strerror(e));
    }
    return SR_OK;
}

sr_status sr_textout_commit(sr_textout *t, sr_error *err)
{
    if (t->f == stdout) {
        t->f = NULL;
        if (fflush(stdout) != 0 || ferror(stdout))
            return sr_fail(err, SR_ERR_RUNTIME, "cannot write to standard output: %s", strerror(errno));
        return SR_OK;
    }
    int bad = ferror(t->f);
    bad |= fclose(t->f) != 0;
    t->f = NULL;
    if (bad) {
        const int e = errno;
        sr_outfile_abandon(&t->out);
        return sr_fail(err, SR_ERR_RUNTIME, "cannot write %s: %s", t->path, strerror(e));
    }
    return sr_outfile_commit(&t->out, NULL, err);
}

sr_status sr_textout_json(const char *path, cJSON *root, sr_error *err)
{
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return sr_fail(err, SR_ERR_RUNTIME, "out of memory writing %s", path);
    sr_textout out;
    sr_status s = sr_textout_open(&out, path, err);
    if (!s) {
        fputs(text, out.f);
        fputc('\n', out.f);
        s = sr_textout_commit(&out, err);
    }
    cJSON_free(text);
    return s;
}
