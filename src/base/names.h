/* names.h: the one table of names for each option value the command line, the scene files and
 * the reports share: the tonemap (kernels/core/tonemap.h), the integrator (kernels/core/types.h), the
 * coherence sort's algorithm and key (kernels/frames/sortkey.h). Kept apart from the backends so the
 * option parser needs none of them. The masks' names are in backend.c, the kernels' too.
 *
 * For each: name(i) is "?" for a value out of range, parse(name) -1 for an unknown name, and
 * parse(name(i)) == i (tests/unit/test_names.c). The tables are NULL-terminated, as
 * sr_json_read_name and sr_name_choices take them. */
#ifndef SR_NAMES_H
#define SR_NAMES_H

#include <stddef.h>

extern const char *const sr_tonemap_names[];    /* "clamp", "reinhard", "aces"  */
extern const char *const sr_integrator_names[]; /* "whitted", "path"            */
extern const char *const sr_sort_algo_names[];  /* "none", "merge", "radix"     */
extern const char *const sr_sort_key_names[];   /* "dir-morton", "material"     */

const char *sr_tonemap_name(int op);
int sr_tonemap_parse(const char *name);
const char *sr_integrator_name(int integrator);
int sr_integrator_parse(const char *name);
const char *sr_sort_algo_name(int algo);
int sr_sort_algo_parse(const char *name);
const char *sr_sort_key_name(int key);
int sr_sort_key_parse(const char *name);

/* A table's names as a usage message lists them, "clamp, reinhard or aces", into buf. */
const char *sr_name_choices(const char *const *names, char *buf, size_t cap);

/* The edits from a to b: letters put in, taken out, changed, or two neighbours swapped
 * ("renderr", "rednre" and "rendr" are one from "render"); words longer than
 * SR_NAME_DISTANCE_MAX_LEN count as far from everything. */
#define SR_NAME_DISTANCE_MAX_LEN 63
size_t sr_name_distance(const char *a, const char *b);
/* The name of the NULL-terminated list closest to a mistyped word, for a "did you mean":
 * within 2 edits and fewer than half the word's letters (so "-x" suggests nothing); the
 * first of equally close names; NULL when none is close. */
const char *sr_name_closest(const char *word, const char *const *names);

#endif
