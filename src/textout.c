#include "textout.h"

#include <cJSON.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

sr_status sr_textout_open(sr_textout *t, const char *path, sr_error *err)
{
    t->path = path;
    if (!strcmp(path, "-")) {   /* standard output: nothing to rename */
        t->tmp[0] = '\0';
        t->f = stdout;
        return SR_OK;
    }
    snprintf(t->tmp, sizeof t->tmp, "%s.tmp-%ld", path, (long)getpid());
    t->f = fopen(t->tmp, "w");
    if (!t->f) return sr_fail(err, SR_ERR_RUNTIME, "cannot create %s: %s", path, strerror(errno));
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
    if (bad || rename(t->tmp, t->path) != 0) {
        int e = errno;
        remove(t->tmp);
        return sr_fail(err, SR_ERR_RUNTIME, "cannot write %s: %s", t->path, strerror(e));
    }
    return SR_OK;
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
