/* outpath.h: an output path checked before any work starts, so that a bad one is refused
 * with exit 2 instead of being found after a long render (and so that nothing the program
 * reads is overwritten). */
#ifndef SR_OUTPATH_H
#define SR_OUTPATH_H

#include <stddef.h>

/* 1 if `path` may be written by the option `opt` ("-o", "--csv"...), else 0 with a message in
 * msg: its folder must exist; an existing directory, symbolic link, device, FIFO or socket is
 * refused (writing through a temporary name and a rename would replace it with a regular
 * file); "-" (standard output) only when allow_stdout. `inputs` (NULL-terminated, may be NULL)
 * are files the run reads: an output that is one of them (the same file, by device and inode)
 * is refused. */
int sr_output_path_ok(const char *opt, const char *path, int allow_stdout, const char *const *inputs, char *msg,
                      size_t cap);

#endif
