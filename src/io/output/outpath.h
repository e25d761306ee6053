/* outpath.h: an output path checked before any work starts, so that a bad one is refused
 * with exit 2 instead of being found after a long render (and so that nothing the program
 * reads is overwritten). */
#ifndef SR_OUTPATH_H
#define SR_OUTPATH_H

#include <stddef.h>
#include <sys/stat.h>

/* 1 if `path` may be written by the option `opt` ("-o", "--csv"...), else 0 with a message in
 * msg: its folder must exist; an existing directory, symbolic link, device, FIFO or socket is
 * refused (writing through a temporary name and a rename would replace it with a regular
 * file); "-" (standard output) only when allow_stdout. `inputs` (NULL-terminated, may be NULL)
 * are files the run reads: an output that is one of them (the same file, by device and inode)
 * is refused. */
int sr_output_path_ok(const char *opt, const char *path, int allow_stdout, const char *const *inputs, char *msg,
                      size_t cap);

/* The files a scene reads (its meshes, their mtllib, glTF buffers and images) are known only
 * once the scene is parsed. So an output that already exists as a regular file is remembered
 * here (by device and inode, so a hard link is the same file), and every loader asks before
 * it reads a file: the scene is then refused (exit 2) before anything is imported, rendered
 * or written. A new file cannot be an input. */
void sr_output_guard_add(const char *opt, const char *path);

/* --save-partial writes OUT's stem + ".partial-<N>spp" + OUT's extension ("out.png":
 * "out.partial-54spp.png"), N known only when the render is interrupted. Every file in OUT's
 * folder with such a name could be replaced, so each is remembered like an output
 * (sr_output_guard_add, as "--save-partial NAME"): an input with one of these names (a
 * texture called out.partial-54spp.png) is refused as the scene loads. */
void sr_output_guard_add_partials(const char *out);

/* The partial image's name for `out` after `spp` samples, on the heap (free it), NULL when
 * out of memory. */
char *sr_partial_path(const char *out, unsigned spp);

/* 1 when an output is remembered (the loaders then check every mesh before the first import). */
int sr_output_guard_active(void);

/* The remembered output that is the file `st` describes: 1 with "OPT PATH" in msg, else 0. */
int sr_output_guard_match(const struct stat *st, char *msg, size_t cap);

/* 1 when two output names are one file: the same inode, or (not there yet) the same name in
 * the same resolved folder ("x.png" and "./x.png"). */
int sr_output_same(const char *a, const char *b);

#endif
