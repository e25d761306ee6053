/* wave_timeline.c: the warp timeline as CSV (wave_timeline.h). */
#include "wave_timeline.h"
#include "../base/test_hooks.h"

#include <stdio.h>
#include <stdlib.h>
#include "../io/output/textout.h"
#include "../../kernels/frames/wave.h"

static unsigned long long sr_record_start(const uint32_t *r) { return (unsigned long long)r[1] << 32 | r[0]; }

sr_status sr_wave_timeline_write(const char *path, const uint32_t *records, uint32_t warps, sr_error *err)
{
    unsigned long long first = ~0ull;
    for (uint32_t k = 0; k < warps; k++) {
        const unsigned long long t = sr_record_start(records + (size_t)k * SR_WAVE_TIMELINE_WORDS);
        if (t != 0 && t < first) first = t;
    }
    sr_textout out;
    SR_TRY(sr_textout_open(&out, path, err));
    fprintf(out.f, "warp,start_ns,ran_ns,sm,deepest_bounce\n");
    for (uint32_t k = 0; k < warps; k++) {
        const uint32_t *r = records + (size_t)k * SR_WAVE_TIMELINE_WORDS;
        const unsigned long long t = sr_record_start(r);
        if (t != 0) fprintf(out.f, "%u,%llu,%u,%u,%u\n", k, t - first, r[2], r[3] >> 16, r[3] & 0xffffu);
    }
    return sr_textout_commit(&out, err);
}

void sr_wave_timeline_report(sr_renderer *r, uint32_t width, uint32_t height)
{
    const char *path = sr_test_hook(SR_HOOK_WAVE_TIMELINE);
    if (!path || !*path) return;
    if (r->be->kind != SR_BACKEND_CUDA) {
        fprintf(stderr, "stencilray: $%s is set, but the CPU backend records no warp timeline\n", SR_WAVE_TIMELINE_ENV);
        return;
    }
    const uint32_t warps = sr_wave_timeline_warps(width, height);
    uint32_t *rec = (uint32_t *)malloc((size_t)warps * SR_WAVE_TIMELINE_WORDS * sizeof(uint32_t));
    sr_error err = { SR_OK, "" };
    if (!rec) sr_fail(&err, SR_ERR_RUNTIME, "out of host memory");
    if (!rec || sr_renderer_read(r, SR_BUFFER_WAVE_TIMELINE, rec, &err) ||
        sr_wave_timeline_write(path, rec, warps, &err))
        fprintf(stderr, "stencilray: %s: %s\n", path, err.msg);
    free(rec);
}
