/* datadir.h: where stencilray's shipped files are (scenes/, shaders/, assets/). An installed
 * binary finds them beside itself, in <its folder>/../share/stencilray (where `cmake
 * --install` puts them); a binary in its build folder falls back to the source tree it was
 * built from (SR_DATA_DIR). */
#ifndef SR_DATADIR_H
#define SR_DATADIR_H

#include <stddef.h>

/* Relative to the folder of the executable; CMakeLists.txt installs to match. */
#define SR_DATA_FROM_BIN "../share/stencilray"

/* The first data folder in which `rel` (e.g. "scenes/default.json") is readable, into dir
 * (without symbolic links or "..", where it can be resolved). Returns 1; or 0 with the
 * folders looked in, ", "-separated, in dir. */
int sr_data_dir(const char *rel, char *dir, size_t cap);

#endif
