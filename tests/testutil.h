/* testutil.h: what several tests need: temporary files, running the real CLI and reading
 * what it printed, and cmocka's headers in the order they want. */
#ifndef SR_TESTUTIL_H
#define SR_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

/* A path under the test build's tmp/ folder (static buffer per call site is not needed:
 * writes into buf). */
const char *sr_test_tmp_path(char *buf, size_t cap, const char *name);

/* Write text to tmp/name and return its path in buf. */
const char *sr_test_write_file(char *buf, size_t cap, const char *name, const char *text);

/* Run the stencilray CLI with argv (NULL-terminated, without the program name). Returns its
 * exit status (or -1 if it died on a signal); its stderr, NUL-terminated, goes to err_out. */
int sr_test_run_cli(const char *const *argv, char *err_out, size_t cap);

int sr_test_file_exists(const char *path);

/* A shipped file, e.g. "scenes/default.json", as an absolute path in buf. */
const char *sr_test_source_path(char *buf, size_t cap, const char *rel);

#endif

/* ---- rendering helpers ---------------------------------------------------------------- */
#include "render.h"

/* Parse a scene from JSON text (messages name `name`); fails the test on error. */
void sr_test_parse(const char *name, const char *json, sr_scene *out);

/* Render `scene` on backend `kind` with `mask` and `seed`; returns a malloc'd w*h*3 image of
 * the mean radiance. Returns NULL when kind is CUDA and no device is present. Fails the test
 * on any other error. */
float *sr_test_render(const sr_scene *scene, sr_backend_kind kind, sr_mask mask, float compact_below,
                      uint32_t seed, sr_render_stats *stats);
