/* output.c: what a command needs around the library: its output files checked before any work
 * starts and guarded against being one of the files its scene reads (src/io/output/outpath.c),
 * its text files written whole or not at all (textout.c), and its stops (interrupt.c). */
#include "../../include/stencilray.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/interrupt.h"
#include "../base/mem_limits.h"
#include "../base/utf8.h"
#include "../io/output/textout.h"
#include "../io/output/outpath.h"

int sr_output_check(const char *option, const char *path, int allow_stdout, const char *const *inputs,
                    char *message, size_t cap)
{
    char none[1];
    if (!message || cap == 0) { message = none; cap = sizeof none; }
    if (!option || !path) {
        snprintf(message, cap, "sr_output_check: option and path must not be NULL");
        return 0;
    }
    return sr_output_path_ok(option, path, allow_stdout, inputs, message, cap);
}

void sr_output_guard(const char *option, const char *path)
{
    if (option && path) sr_output_guard_add(option, path);
}

void sr_output_guard_partials(const char *path)
{
    if (path) sr_output_guard_add_partials(path);
}

int sr_output_same_file(const char *a, const char *b)
{
    return a && b && sr_output_same(a, b);
}

sr_result sr_output_partial_name(const char *path, uint32_t samples, char *buf, size_t cap)
{
    if (!path || !buf || cap == 0) return SR_RESULT_INPUT_ERROR;
    char *name = sr_partial_path(path, samples);
    if (!name) return SR_RESULT_RUNTIME_ERROR;
    const int n = snprintf(buf, cap, "%s", name);
    free(name);
    return n >= 0 && (size_t)n < cap ? SR_RESULT_OK : SR_RESULT_INPUT_ERROR;
}

int sr_stop_can_report(void) { return sr_interrupt_can_report(); }

void sr_stop_quick_begin(const char *what) { sr_interrupt_quick_begin(what ? what : "working"); }

void sr_stop_quick_end(void) { sr_interrupt_quick_end(); }

sr_result sr_write_text(const char *path, const char *text, size_t len, char *message, size_t cap)
{
    sr_error err = { SR_OK, "" };
    sr_status s = SR_OK;
    if (!path || (!text && len)) {
        s = sr_fail(&err, SR_ERR_INPUT, "sr_write_text: path and text must not be NULL");
    } else {
        sr_textout t;
        s = sr_textout_open(&t, path, &err);
        if (!s) {
            errno = 0;
            if (len && fwrite(text, 1, len, t.f) != len) t.werr = errno;
            s = sr_textout_commit(&t, &err);
        }
    }
    if (s && message && cap) snprintf(message, cap, "%s", err.msg);
    return s == SR_INTERRUPTED ? SR_RESULT_CANCELLED : s ? (s == SR_ERR_INPUT ? SR_RESULT_INPUT_ERROR : SR_RESULT_RUNTIME_ERROR)
                                                           : SR_RESULT_OK;
}

size_t sr_text_utf8(const char *bytes, char *out, size_t cap)
{
    char none[1];
    if (!out) { out = none; cap = 0; }
    return sr_utf8_repair(bytes ? bytes : "", out, cap);
}

uint64_t sr_memory_size(const char *text) { return sr_mem_size_parse(text); }
