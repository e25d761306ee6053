/* textout.c: text results written whole or not at all (textout.h, outfile.h). */
#include "textout.h"
#include "../../base/utf8.h"

#include <cJSON.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

sr_status sr_textout_open(sr_textout *t, const char *path, sr_error *err)
{
    t->path = path;
    t->werr = 0;
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
        errno = 0;
        const int failed = fflush(stdout) != 0;
        const int e = failed ? errno : t->werr;   /* the flush's reason, or an earlier write's */
        if (!failed && !ferror(stdout)) return SR_OK;
        clearerr(stdout);   /* reported here, once: the exit's own check (cli.c) must not repeat it */
        if (e == EINTR) return sr_fail(err, SR_INTERRUPTED, "interrupted while writing to standard output");
        return sr_fail(err, SR_ERR_RUNTIME, "cannot write to standard output%s%s", e ? ": " : "", e ? strerror(e) : "");
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
        errno = 0;
        if (fputs(text, out.f) == EOF || fputc('\n', out.f) == EOF) out.werr = errno;
        s = sr_textout_commit(&out, err);
    }
    cJSON_free(text);
    return s;
}

cJSON *sr_json_add_bytes(cJSON *obj, const char *key, const char *bytes)
{
    const size_t cap = 3 * strlen(bytes) + 1;   /* a byte grows to U+FFFD's 3 bytes at most */
    char *text = malloc(cap);
    if (!text) return NULL;
    sr_utf8_repair(bytes, text, cap);
    cJSON *item = cJSON_AddStringToObject(obj, key, text);
    free(text);
    return item;
}
