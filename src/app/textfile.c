/* textfile.c: the commands' text results through sr_write_text (textfile.h). */
#include "textfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cJSON *sr_cli_json_add_bytes(cJSON *obj, const char *key, const char *bytes)
{
    const size_t cap = sr_text_utf8(bytes, NULL, 0) + 1;
    char *text = (char *)malloc(cap);
    if (!text) return NULL;
    sr_text_utf8(bytes, text, cap);
    cJSON *item = cJSON_AddStringToObject(obj, key, text);
    free(text);
    return item;
}

sr_status sr_cli_write_text(const char *path, const char *text, size_t len, sr_error *err)
{
    const sr_result r = sr_write_text(path, text, len, err->msg, sizeof err->msg);
    err->status = r == SR_RESULT_CANCELLED ? SR_INTERRUPTED : r ? SR_ERR_RUNTIME : SR_OK;
    return err->status;
}

sr_status sr_cli_write_json(const char *path, cJSON *root, sr_error *err)
{
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return sr_fail(err, SR_ERR_RUNTIME, "out of memory writing %s", path);
    const size_t len = strlen(text);
    char *line = (char *)malloc(len + 1);
    if (line) {
        memcpy(line, text, len);
        line[len] = '\n';
    }
    cJSON_free(text);
    if (!line) return sr_fail(err, SR_ERR_RUNTIME, "out of memory writing %s", path);
    const sr_status s = sr_cli_write_text(path, line, len + 1, err);
    free(line);
    return s;
}

sr_status sr_cli_copy_file(const char *from, const char *path, sr_error *err)
{
    FILE *f = fopen(from, "rb");
    char *bytes = NULL;
    long len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (bytes = (char *)malloc((size_t)len + 1)) && fread(bytes, 1, (size_t)len, f) != (size_t)len)
        len = -1;
    if (f) fclose(f);
    remove(from);
    const sr_status s = len < 0 || !bytes ? sr_fail(err, SR_ERR_RUNTIME, "cannot read back the chart for %s", path)
                                          : sr_cli_write_text(path, bytes, (size_t)len, err);
    free(bytes);
    return s;
}
