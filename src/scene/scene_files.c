/* scene_files.c: the files a scene refers to (meshes, textures, the environment map): where
 * they are, and how their loaders' errors are reported (scene_parse.h). */
#include "scene_parse.h"

#include <stdlib.h>
#include <string.h>

char *sr_scene_resolve_path(const char *scene_path, const char *file)
{
    const char *slash = strrchr(scene_path, '/');
    size_t dir = (file[0] == '/' || !slash) ? 0 : (size_t)(slash - scene_path) + 1;
    size_t n = strlen(file);
    char *out = malloc(dir + n + 1);
    if (!out) return NULL;
    memcpy(out, scene_path, dir);
    memcpy(out + dir, file, n + 1);
    return out;
}

/* The message quotes the path (and the library's words): no control bytes on the terminal. */
sr_status sr_scene_loader_fail(sr_json_doc *c, const cJSON *file, const char *fjp, sr_status st, const sr_error *merr)
{
    char clean[sizeof merr->msg];
    sr_sanitize(clean, sizeof clean, merr->msg);
    if (st == SR_ERR_INPUT) return sr_json_fail_val(c, file, fjp, "%s", clean);
    if (st != SR_OK) return sr_fail(c->err, st, "%s: %s: %s", c->path, fjp, clean);
    return SR_OK;
}
