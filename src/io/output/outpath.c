#define _XOPEN_SOURCE 700   /* realpath */
#include "outpath.h"
#include "../../base/status.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *sr_file_kind(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symbolic link" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int sr_output_path_ok(const char *opt, const char *path, int allow_stdout, const char *const *inputs, char *msg,
                      size_t cap)
{
    if (!strcmp(path, "-")) {
        if (allow_stdout) return 1;
        snprintf(msg, cap, "%s -: an image cannot go to standard output; name a file", opt);
        return 0;
    }
    if (!*path) {
        snprintf(msg, cap, "%s: empty file name", opt);
        return 0;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        if (slash == dir) slash[1] = '\0'; else *slash = '\0';
        struct stat d;
        if (stat(dir, &d) != 0 || !S_ISDIR(d.st_mode)) {
            snprintf(msg, cap, "%s %s: the folder %s does not exist", opt, path, dir);
            return 0;
        }
    }
    struct stat st;
    if (lstat(path, &st) != 0) return 1;   /* a new file */
    if (!S_ISREG(st.st_mode)) {
        snprintf(msg, cap, "%s %s: that is %s; expected a regular file (it is written to a temporary name "
                 "and renamed over, which would replace it)%s", opt, path, sr_file_kind(st.st_mode),
                 allow_stdout ? "; '-' writes to standard output" : "");
        return 0;
    }
    for (size_t k = 0; inputs && inputs[k]; k++) {
        struct stat in;
        if (stat(inputs[k], &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino) {
            snprintf(msg, cap, "%s %s: that is %s, which this run reads; choose another name", opt, path, inputs[k]);
            return 0;
        }
    }
    return 1;
}

/* The outputs this run will replace, for the loaders (outpath.h). A process-wide list: the
 * loaders run deep inside the scene parser, which has no channel back to the options. It
 * grows: --save-partial may add any number of names. */
typedef struct sr_guarded {
    char opt[16];
    char *path;
    dev_t dev;
    ino_t ino;
} sr_guarded;
static sr_guarded *sr_guard;
static int sr_guard_count, sr_guard_cap;

void sr_output_guard_add(const char *opt, const char *path)
{
    struct stat st;
    if (!path || !strcmp(path, "-")) return;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return;   /* new: nothing to overwrite */
    if (sr_guard_count == sr_guard_cap) {
        const int cap = sr_guard_cap ? 2 * sr_guard_cap : 8;
        sr_guarded *grown = realloc(sr_guard, (size_t)cap * sizeof *grown);
        if (!grown) abort();   /* a few dozen bytes: nothing sensible is left to do */
        sr_guard = grown;
        sr_guard_cap = cap;
    }
    char *copy = strdup(path);
    if (!copy) abort();
    sr_guarded *g = &sr_guard[sr_guard_count++];
    snprintf(g->opt, sizeof g->opt, "%s", opt);
    g->path = copy;
    g->dev = st.st_dev;
    g->ino = st.st_ino;
}

/* OUT's name up to its extension (the whole name when it has none) and the extension. */
static void sr_split_ext(const char *out, size_t *stem_len, const char **ext)
{
    const char *dot = strrchr(out, '.');
    const char *slash = strrchr(out, '/');
    if (!dot || (slash && dot < slash)) dot = out + strlen(out);
    *stem_len = (size_t)(dot - out);
    *ext = dot;
}

char *sr_partial_path(const char *out, unsigned spp)
{
    size_t stem;
    const char *ext;
    sr_split_ext(out, &stem, &ext);
    return sr_format("%.*s.partial-%uspp%s", (int)stem, out, spp, ext);
}

void sr_output_guard_add_partials(const char *out)
{
    size_t stem;
    const char *ext;
    sr_split_ext(out, &stem, &ext);
    const char *slash = strrchr(out, '/');
    const size_t base = slash ? (size_t)(slash - out) + 1 : 0;   /* where the name starts */
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%.*s", base ? (int)base : 1, base ? out : ".");
    char prefix[NAME_MAX + 16];   /* "out.partial-" */
    snprintf(prefix, sizeof prefix, "%.*s.partial-", (int)(stem - base), out + base);
    DIR *d = opendir(folder);
    if (!d) return;   /* the output's folder was checked to exist; unreadable: nothing to list */
    const size_t plen = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (strncmp(n, prefix, plen)) continue;
        const char *p = n + plen, *digits = p;   /* "<N>spp<ext>": N one or more digits */
        while (*p >= '0' && *p <= '9') p++;
        if (p == digits || strncmp(p, "spp", 3) || strcmp(p + 3, ext)) continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%.*s%s", (int)base, out, n) < (int)sizeof path)
            sr_output_guard_add("--save-partial", path);
    }
    closedir(d);
}

int sr_output_guard_active(void) { return sr_guard_count > 0; }

int sr_output_guard_match(const struct stat *st, char *msg, size_t cap)
{
    for (int k = 0; k < sr_guard_count; k++)
        if (sr_guard[k].dev == st->st_dev && sr_guard[k].ino == st->st_ino) {
            snprintf(msg, cap, "%s %s", sr_guard[k].opt, sr_guard[k].path);
            return 1;
        }
    return 0;
}

/* The folder part of path, resolved (realpath), and the last name; 0 if the folder cannot be
 * resolved. */
static int sr_split_resolved(const char *path, char *dir, char *base)
{
    const char *slash = strrchr(path, '/');
    char folder[PATH_MAX];
    if (!slash) snprintf(folder, sizeof folder, ".");
    else if (slash == path) snprintf(folder, sizeof folder, "/");
    else snprintf(folder, sizeof folder, "%.*s", (int)(slash - path), path);
    snprintf(base, NAME_MAX + 1, "%s", slash ? slash + 1 : path);
    return realpath(folder, dir) != NULL;
}

int sr_output_same(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char da[PATH_MAX], db[PATH_MAX], ba[NAME_MAX + 1], bb[NAME_MAX + 1];
    if (!sr_split_resolved(a, da, ba) || !sr_split_resolved(b, db, bb)) return !strcmp(a, b);
    return !strcmp(da, db) && !strcmp(ba, bb);
}
