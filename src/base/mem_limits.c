/* mem_limits.c: memory needed vs memory available, before anything large is allocated. */
#include "mem_limits.h"
#include "../../kernels/core/raystate.h"
#include "../../kernels/frames/wave.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The caps sr_mem_limits_set keeps (0: none) and the name of where they came from. Atomic:
 * contexts on other threads read them while one sets them. */
static _Atomic uint64_t sr_host_cap, sr_device_cap;
static _Atomic(const char *) sr_host_cap_source = "the host memory limit";

void sr_mem_limits_set(uint64_t host_bytes, uint64_t device_bytes, const char *host_source)
{
    if (host_source) atomic_store(&sr_host_cap_source, host_source);
    atomic_store(&sr_host_cap, host_bytes);
    atomic_store(&sr_device_cap, device_bytes);
}

uint64_t sr_mem_size_parse(const char *s)
{
    if (!s || !*s) return 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0.0)) return 0;
    double mul = 1.0;
    switch (toupper((unsigned char)*end)) {
    case 'K': mul = 1024.0; end++; break;
    case 'M': mul = 1048576.0; end++; break;
    case 'G': mul = 1073741824.0; end++; break;
    case 'T': mul = 1099511627776.0; end++; break;
    default: break;
    }
    if (toupper((unsigned char)*end) == 'I') end++;          /* "GiB" */
    if (toupper((unsigned char)*end) == 'B') end++;
    if (*end) return 0;
    v *= mul;
    return v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
}

/* A number from a one-line file such as memory.max ("max" = no limit). */
static int read_u64_file(const char *path, uint64_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[64];
    int ok = fgets(line, sizeof line, f) != NULL && isdigit((unsigned char)line[0]);
    fclose(f);
    if (ok) *out = strtoull(line, NULL, 10);
    return ok;
}

/* The system's figure (MemAvailable capped by the cgroup; it already counts what this process
 * holds) and the host cap's (a cap on the process's use; UINT64_MAX when none is set). */
static void host_figures(uint64_t *system, const char **system_from, uint64_t *cap)
{
    uint64_t best = UINT64_MAX;
    const char *from = "";
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            unsigned long long kb;
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                best = (uint64_t)kb * 1024u;
                from = "MemAvailable in /proc/meminfo";
                break;
            }
        }
        fclose(f);
    }
    /* cgroup v2: what is left under this group's limit, when it has one */
    uint64_t max_b, cur_b;
    if (read_u64_file("/sys/fs/cgroup/memory.max", &max_b) && read_u64_file("/sys/fs/cgroup/memory.current", &cur_b)) {
        uint64_t left = max_b > cur_b ? max_b - cur_b : 0;
        if (left < best) { best = left; from = "the cgroup's memory.max less memory.current"; }
    }
    const uint64_t lim = atomic_load(&sr_host_cap);
    *system = best;
    *system_from = from;
    *cap = lim ? lim : UINT64_MAX;
}

int sr_host_memory_available(uint64_t *bytes, char *source, size_t cap)
{
    uint64_t best, lim;
    const char *from;
    host_figures(&best, &from, &lim);
    if (lim < best) { best = lim; from = atomic_load(&sr_host_cap_source); }
    *bytes = best;
    if (source && cap) snprintf(source, cap, "%s", from);
    return best != UINT64_MAX;
}

uint64_t sr_device_memory_cap(uint64_t free_b)
{
    const uint64_t lim = atomic_load(&sr_device_cap);
    return lim && lim < free_b ? lim : free_b;
}

const char *sr_fmt_bytes(char *buf, size_t cap, uint64_t bytes)
{
    if (bytes >= (1ull << 30)) snprintf(buf, cap, "%.1f GiB", (double)bytes / 1073741824.0);
    else snprintf(buf, cap, "%.1f MiB", (double)bytes / 1048576.0);
    return buf;
}

sr_status sr_check_host_memory(uint64_t need, const char *what, const char *hint, sr_error *err)
{
    uint64_t avail;
    char source[96];
    if (!sr_host_memory_available(&avail, source, sizeof source) || need <= avail) return SR_OK;
    char a[32], b[32];
    return sr_fail(err, SR_ERR_INPUT, "%s needs %s of host memory, but only %s are available (%s)%s", what,
                   sr_fmt_bytes(a, sizeof a, need), sr_fmt_bytes(b, sizeof b, avail), source, hint ? hint : "");
}

sr_status sr_check_host_memory_held(uint64_t need, uint64_t held, const char *held_what, const char *what,
                                    const char *hint, sr_error *err)
{
    if (!held) return sr_check_host_memory(need, what, hint, err);
    uint64_t system, cap;
    const char *from;
    host_figures(&system, &from, &cap);
    char a[32], b[32], c[32];
    if (cap != UINT64_MAX && (need > cap || held > cap - need))
        return sr_fail(err, SR_ERR_INPUT, "%s needs %s of host memory on top of the %s of %s, but only %s are "
                       "available in all (%s)%s", what, sr_fmt_bytes(a, sizeof a, need), sr_fmt_bytes(b, sizeof b, held),
                       held_what, sr_fmt_bytes(c, sizeof c, cap), atomic_load(&sr_host_cap_source), hint ? hint : "");
    if (system != UINT64_MAX && need > system)
        return sr_fail(err, SR_ERR_INPUT, "%s needs %s of host memory, but only %s are available (%s)%s", what,
                       sr_fmt_bytes(a, sizeof a, need), sr_fmt_bytes(b, sizeof b, system), from, hint ? hint : "");
    return SR_OK;
}

/* Per slot (a half is `factor` times the image's: sr_pool_half_slots): both pool halves, the
 * hit, the flag; per pixel the film's 3 floats and, with the split's room (factor > 1), its
 * fixed-point film's 3 words; per 32 slots a stencil word. The same sums as cpu_upload's
 * allocations. */
uint64_t sr_cpu_pool_bytes(uint32_t w, uint32_t h, uint32_t factor)
{
    const uint64_t n = (uint64_t)w * h, slots = sr_pool_half_slots(w, h, 1u, factor);
    return slots * (2u * SR_RAY_BYTES + SR_HIT_BYTES + sizeof(uint32_t)) + n * 3u * (sizeof(float) + (factor > 1u ? 8u : 0u)) + (factor > 1u ? (n + 63u) / 64u * 8u : 0u) +
           3u * ((slots + 31u) / 32u) * sizeof(uint32_t);
}

uint64_t sr_cuda_pool_bytes(uint32_t w, uint32_t h, uint32_t factor)
{
    const uint64_t n = (uint64_t)w * h, aligned = sr_pool_half_slots(w, h, 256u, factor);
    return aligned * (2u * SR_RAY_BYTES + SR_HIT_BYTES + sizeof(uint32_t)) + 5u * aligned / 32u * sizeof(uint32_t) +
           n * 3u * (sizeof(float) + (factor > 1u ? 8u : 0u)) + (factor > 1u ? (n + 63u) / 64u * 8u : 0u) + SR_WAVE_ORDER_WORDS(sr_tiles(w, h)) * sizeof(uint32_t) + 4096u;
}

uint64_t sr_bvh_build_bytes(uint64_t n)
{
    /* the linear BVH's build on the CPU (src/backend/cpu/bvh_cpu.c), the larger of the two
     * builders: per node of the 2n-1 (the result's 32 B, parent, box, cost) 64 B; per prim
     * (the prims in leaf order, order, keys and ids twice, the internal nodes' nine words,
     * chain and base) 116 B. The host SAH build takes 152 B a prim. */
    return (n ? 2u * n - 1u : 0u) * 64u + n * 116u;
}

uint64_t sr_image_write_bytes(uint32_t w, uint32_t h, const char *path)
{
    /* Measured peaks (tests: 4096x4096): PNG 6 B/px for a smooth image, 9.4 for noise
     * (8-bit copy, filtered rows, deflate's growing buffer, the PNG copy); HDR 12 B/px
     * (a float copy); EXR 12 B/px (the exposed float copy; chunks of 16 lines). 12 B/px covers them; 1 MiB for the encoders' tables. */
    (void)path;
    return (uint64_t)w * h * 12u + (1u << 20);
}
