/* textfile.h: the commands' text results (--stats, bench's --json and --csv), written whole or
 * not at all through the library's sr_write_text. */
#ifndef SR_CLI_TEXTFILE_H
#define SR_CLI_TEXTFILE_H

#include <cJSON.h>
#include <stddef.h>
#include "options.h"

/* A file name (any bytes) into the JSON as valid UTF-8 (sr_text_utf8). NULL when out of memory. */
cJSON *sr_cli_json_add_bytes(cJSON *obj, const char *key, const char *bytes);
/* len bytes of text to path ("-": standard output). SR_INTERRUPTED for a stop while standard
 * output waited for a reader. */
sr_status sr_cli_write_text(const char *path, const char *text, size_t len, sr_error *err);
/* The bytes of the file at from (a temporary of ours, removed here) written to path the same
 * way. */
sr_status sr_cli_copy_file(const char *from, const char *path, sr_error *err);
/* The JSON as text and a newline, the same way; the tree is deleted here. */
sr_status sr_cli_write_json(const char *path, cJSON *root, sr_error *err);

#endif
