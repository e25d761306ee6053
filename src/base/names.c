/* names.c: the option values' names (see names.h). */
#include "names.h"

#include <stdio.h>
#include <string.h>
#include "../../kernels/core/tonemap.h"
#include "../../kernels/frames/sortkey.h"

const char *const sr_tonemap_names[SR_TONEMAP_COUNT + 1] = { "clamp", "reinhard", "aces", NULL };
const char *const sr_integrator_names[SR_INTEGRATOR_COUNT + 1] = { "whitted", "path", NULL };
const char *const sr_sort_algo_names[SR_SORT_ALGO_COUNT + 1] = { "none", "merge", "radix", NULL };
const char *const sr_sort_key_names[SR_SORT_KEY_COUNT + 1] = { "dir-morton", "material", NULL };

/* A table of count names, indexed by the enum's value. */
static const char *sr_name_of(const char *const *names, int count, int i)
{
    return i >= 0 && i < count && names[i] ? names[i] : "?";
}

static int sr_name_parse(const char *const *names, const char *name)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(name, names[i])) return i;
    return -1;
}

const char *sr_tonemap_name(int op) { return sr_name_of(sr_tonemap_names, SR_TONEMAP_COUNT, op); }
int sr_tonemap_parse(const char *name) { return sr_name_parse(sr_tonemap_names, name); }
const char *sr_integrator_name(int integrator) { return sr_name_of(sr_integrator_names, SR_INTEGRATOR_COUNT, integrator); }
int sr_integrator_parse(const char *name) { return sr_name_parse(sr_integrator_names, name); }
const char *sr_sort_algo_name(int algo) { return sr_name_of(sr_sort_algo_names, SR_SORT_ALGO_COUNT, algo); }
int sr_sort_algo_parse(const char *name) { return sr_name_parse(sr_sort_algo_names, name); }
const char *sr_sort_key_name(int key) { return sr_name_of(sr_sort_key_names, SR_SORT_KEY_COUNT, key); }
int sr_sort_key_parse(const char *name) { return sr_name_parse(sr_sort_key_names, name); }

const char *sr_name_choices(const char *const *names, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap) buf[0] = '\0';
    for (int i = 0; names[i] && len < cap; i++) {
        const char *sep = i == 0 ? "" : names[i + 1] ? ", " : " or ";
        int w = snprintf(buf + len, cap - len, "%s%s", sep, names[i]);
        if (w < 0) break;
        len += (size_t)w;
    }
    return buf;
}

size_t sr_name_distance(const char *a, const char *b)
{
    const size_t n = strlen(a), m = strlen(b);
    if (n > SR_NAME_DISTANCE_MAX_LEN || m > SR_NAME_DISTANCE_MAX_LEN) return (size_t)-1;
    /* d[i][j]: the edits from a's first i letters to b's first j */
    size_t d[SR_NAME_DISTANCE_MAX_LEN + 1][SR_NAME_DISTANCE_MAX_LEN + 1];
    for (size_t i = 0; i <= n; i++) d[i][0] = i;
    for (size_t j = 0; j <= m; j++) d[0][j] = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

const char *sr_name_closest(const char *word, const char *const *names)
{
    const char *best = NULL;
    size_t best_d = 3;   /* within 2 edits */
    for (int i = 0; names[i]; i++) {
        const size_t d = sr_name_distance(word, names[i]);
        if (d < best_d && 2 * d < strlen(word)) {
            best = names[i];
            best_d = d;
        }
    }
    return best;
}
