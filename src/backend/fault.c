/* fault.c: SR_FAULT, the test-only fault switch (see fault.h). */
#include "fault.h"
#include "../base/test_hooks.h"
#include "backend.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parsed once for the process (contexts on several threads share it); seen counts the
 * matching launches of all of them. */
static struct {
    sr_fault_kind kind;
    char stage[32];
    unsigned long nth;
    atomic_ulong seen;
    char spec[80];
} sr_fault;
static pthread_once_t sr_fault_once = PTHREAD_ONCE_INIT;

/* The kernels a fault may name, by sr_kernel_name: those the CUDA backend can make fail for
 * real (cuda_refused_launch in backend_cuda.c launches each one wrongly). */
static const sr_kernel sr_fault_kernels[] = { SR_KERNEL_GENERATE, SR_KERNEL_INTERSECT, SR_KERNEL_SHADE,
                                              SR_KERNEL_COMPACT, SR_KERNEL_MEGAKERNEL, SR_KERNEL_WAVE };
#define SR_FAULT_KERNELS (sizeof sr_fault_kernels / sizeof sr_fault_kernels[0])

static void sr_fault_parse(void)
{
    const char *s = sr_test_hook(SR_HOOK_FAULT);
    if (!s || !*s) return;
    snprintf(sr_fault.spec, sizeof sr_fault.spec, "%s", s);
    sr_fault.nth = 1;
    if (!strcmp(s, "alloc")) { sr_fault.kind = SR_FAULT_ALLOC; return; }
    sr_fault_kind kind = !strncmp(s, "launch:", 7) ? SR_FAULT_LAUNCH : !strncmp(s, "kernel:", 7) ? SR_FAULT_KERNEL : SR_FAULT_NONE;
    const char *stage = s + 7, *at = strchr(stage, '@');
    size_t len = at ? (size_t)(at - stage) : strlen(stage);
    int known = 0;
    char stages[96] = "";
    for (size_t i = 0; i < SR_FAULT_KERNELS; i++) {
        const char *name = sr_kernel_name(sr_fault_kernels[i]);
        if (strlen(name) == len && !strncmp(stage, name, len)) known = 1;
        snprintf(stages + strlen(stages), sizeof stages - strlen(stages), "%s%s", i ? ", " : "", name);
    }
    char *end = NULL;
    unsigned long nth = at ? strtoul(at + 1, &end, 10) : 1;
    if (kind == SR_FAULT_NONE || !known || (at && (end == at + 1 || *end || nth == 0))) {
        /* A typo must not silently turn a fault test into a passing render. */
        fprintf(stderr, "stencilray: SR_FAULT=%s not understood; expected alloc, launch:STAGE[@N] or "
                        "kernel:STAGE[@N] with STAGE one of %s\n", s, stages);
        exit(2);
    }
    sr_fault.kind = kind;
    memcpy(sr_fault.stage, stage, len);
    sr_fault.stage[len] = '\0';
    sr_fault.nth = nth;
}

sr_fault_kind sr_fault_check(sr_fault_kind kind, const char *stage)
{
    pthread_once(&sr_fault_once, sr_fault_parse);
    if (sr_fault.kind == SR_FAULT_NONE) return SR_FAULT_NONE;
    if (kind == SR_FAULT_ALLOC) {
        if (sr_fault.kind != SR_FAULT_ALLOC) return SR_FAULT_NONE;
    } else if (sr_fault.kind == SR_FAULT_ALLOC || !stage || strcmp(stage, sr_fault.stage) != 0) {
        return SR_FAULT_NONE;
    }
    return atomic_fetch_add(&sr_fault.seen, 1) + 1 == sr_fault.nth ? sr_fault.kind : SR_FAULT_NONE;
}

const char *sr_fault_spec(void)
{
    pthread_once(&sr_fault_once, sr_fault_parse);
    return sr_fault.spec;
}
